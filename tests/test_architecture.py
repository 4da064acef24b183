"""The dependency arrows of DESIGN §2: receipts imports nothing of ours; auditor only receipts."""

from __future__ import annotations

import ast
from pathlib import Path

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
