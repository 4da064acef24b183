"""The dependency arrows of DESIGN §2: receipts imports nothing of ours; auditor only receipts."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"memoryos", "receipts", "auditor", "chaos"}
ALLOWED = {"receipts": set(), "auditor": {"receipts"}, "memoryos": {"receipts"}}


def imported_packages(package: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return (found & OURS) - {package}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_the_design_allows(package: str) -> None:
    if not (ROOT / package).is_dir():
        pytest.fail(f"{package}/ is part of the required layout")
    assert imported_packages(package) <= ALLOWED[package]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, modules: set[str]) -> str | None:
    """The module an import names, or its nearest enclosing package of ours (`a.b.C` -> `a.b`)."""
    while module and module not in modules:
        module = module.rpartition(".")[0]
    return module or None


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:`, which never run (annotations only)."""
    nodes: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return nodes


def _imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every module of ours `path` imports, at module level or inside a function (lazy imports count:
    a cycle hidden in a function is still a cycle, only deferred)."""
    found: set[str] = set()
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from memoryos import validation` names a module; `from memoryos import Scope` the package.
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(target for name in names if (target := _resolve(name, modules)) is not None)
    return found


def import_graph(package: str) -> nx.DiGraph:
    paths = {_module_name(p): p for p in (ROOT / package).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for name, path in paths.items():
        graph.add_edges_from((name, target) for target in _imports_of(path, set(paths)) if target != name)
    return graph


def test_memoryos_has_no_import_cycle() -> None:
    cycles = sorted(" -> ".join([*c, c[0]]) for c in nx.simple_cycles(import_graph("memoryos")))
    assert cycles == []
