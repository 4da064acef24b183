"""The lineage of one run or one memory, as a networkx DiGraph built on demand (explain, --dot).

This is the diagnostic path, not the bulk pass: it keeps the creating receipts of every unit so
that it can walk a lineage backwards (record -> pages -> turns) across runs.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from auditor.engine import CREATES
from auditor.parse import Facts, Parsed
from auditor.sources import read_source

__all__ = ["lineage_graph", "to_dot", "to_tree"]


def _facts(sources: Iterable[tuple[str | os.PathLike[str], bool]]) -> Iterable[Facts]:
    seen: set[str] = set()
    for path, store in sources:
        for item, _ in read_source(path, lambda: None, store=store):
            if isinstance(item, Parsed) and item.facts.receipt_id not in seen:
                seen.add(item.facts.receipt_id)
                yield item.facts


def _receipt_node(graph: nx.DiGraph, f: Facts) -> str:
    node = "receipt:" + f.receipt_id
    if node not in graph:
        about = f" {f.memory_id}@{f.version}" if f.memory_id else ""
        label = f"{f.boundary} {f.status}{about} at {f.at} [{f.receipt_id}]"
        graph.add_node(node, kind="receipt", label=label, run=f.run_id)
    return node


def _unit_node(graph: nx.DiGraph, ref: str) -> str:
    node = "unit:" + ref
    if node not in graph:
        graph.add_node(node, kind="unit", label="unit " + ref)
    return node


def lineage_graph(sources: Iterable[tuple[str | os.PathLike[str], bool]], target: str) -> nx.DiGraph:
    """Nodes: the run (or memory), its receipts, the units they touch, and those units' ancestry."""
    own: list[Facts] = []
    creators: dict[str, list[Facts]] = defaultdict(list)
    for f in _facts(sources):
        if target in (f.run_id, f.memory_id):
            own.append(f)
        if f.boundary in CREATES and f.memory_id is not None:
            creators[f"{f.memory_id}@{f.version}"].append(f)
    graph = nx.DiGraph(target=target)
    root = "root:" + target
    kind = "run" if any(f.run_id == target for f in own) else "memory"
    graph.add_node(root, kind=kind, label=f"{kind} {target} ({len(own)} receipts)")
    todo: list[str] = []
    for f in sorted(own, key=lambda f: (f.at, f.seq)):
        graph.add_edge(root, _receipt_node(graph, f))
        todo.extend(_link(graph, f))
    done: set[str] = set()
    while todo:  # walk the ancestry: each unit back to the receipts that created it
        ref = todo.pop()
        if ref in done:
            continue
        done.add(ref)
        for f in creators.get(ref, ()):
            node = _receipt_node(graph, f)
            graph.add_edge(_unit_node(graph, ref), node, label="created by")
            todo.extend(ref for ref in f.derived_from or () if ref not in done)
            for parent in f.derived_from or ():
                graph.add_edge(node, _unit_node(graph, parent), label="derived from")
    return graph


def _link(graph: nx.DiGraph, f: Facts) -> list[str]:
    node = _receipt_node(graph, f)
    refs: list[str] = []
    if f.memory_id is not None and f.version is not None and f.boundary not in CREATES:
        refs.append(f"{f.memory_id}@{f.version}")
        graph.add_edge(node, _unit_node(graph, refs[-1]), label=f.boundary)
    for label, group in (("derived from", f.derived_from), ("depends on", f.depends_on)):
        for ref in group or ():
            graph.add_edge(node, _unit_node(graph, ref), label=label)
            refs.append(ref)
    return refs


def to_tree(graph: nx.DiGraph) -> str:
    """An indented tree from the root; a node reached twice is printed once, then referred to."""
    root = "root:" + graph.graph["target"]
    lines = [graph.nodes[root]["label"]]
    printed: set[str] = {root}

    def walk(node: str, prefix: str) -> None:
        children = list(graph.successors(node))
        for index, child in enumerate(children):
            last = index == len(children) - 1
            edge = graph.edges[node, child].get("label")
            label = graph.nodes[child]["label"] + (f"  ({edge})" if edge else "")
            again = child in printed
            lines.append(prefix + ("└── " if last else "├── ") + label + (" ^" if again else ""))
            if not again:
                printed.add(child)
                walk(child, prefix + ("    " if last else "│   "))

    walk(root, "")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: nx.DiGraph) -> str:
    """Graphviz DOT, written directly so that no pydot/pygraphviz is needed."""
    shapes = {"run": "doubleoctagon", "memory": "doubleoctagon", "receipt": "box", "unit": "ellipse"}
    lines = ["digraph lineage {", "  rankdir=LR;"]
    for node, data in graph.nodes(data=True):
        lines.append(f"  {_quote(node)} [label={_quote(data['label'])}, shape={shapes[data['kind']]}];")
    for tail, head, data in graph.edges(data=True):
        label = f" [label={_quote(data['label'])}]" if data.get("label") else ""
        lines.append(f"  {_quote(tail)} -> {_quote(head)}{label};")
    lines.append("}")
    return "\n".join(lines) + "\n"
