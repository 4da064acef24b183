"""`memoryos-audit report --html`: the audit as one self-contained HTML page.

Inline CSS and inline SVG only: no scripts, fonts, images or URLs, so the page opens offline and
leaks nothing when mailed around. It is content-free by construction (a Report and receipts hold
ids, versions, pseudonyms and codes only), and every value is escaped anyway: finding reasons
quote file paths, and a path may contain markup.

Beyond the Report, the page needs one extra pass over the receipts (`scan`): when each run was
last seen (to pick the most recent runs) and which units each tier holds (occupancy). The lineage
of each chosen run is the networkx graph of `auditor.lineage`, re-read per run: this is the
diagnostic path, not the bulk pass.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import networkx as nx

from auditor.engine import CREATES, DONE, FILE_RUN, PROMOTIONS, REMOVALS
from auditor.lineage import lineage_graph
from auditor.parse import Facts, Parsed
from auditor.report import DEFAULT_MAX_RUNS, Report
from auditor.sources import read_source
from auditor.states import STATES

__all__ = [
    "DEFAULT_MAX_RUNS",
    "Evidence",
    "choose_runs",
    "layout",
    "render_html",
    "scan",
    "svg_lineage",
    "write_html",
]

Source = tuple[str | os.PathLike[str], bool]  # (path, insist that it is a store), as in lineage

MAX_DRAWN_NODES = 300  # a forget_scope run can touch thousands of units; the page stays readable
MAX_LISTED_RUNS = 100  # the JSON report lists them all
TIER_ORDER = ("stm", "mtm", "lpm")

STATE_COLORS = {
    "scope_conflict": "#99000d",
    "source_at_risk": "#cb181d",
    "promotion_missing": "#ef3b2c",
    "stale_retrieval": "#fb6a4a",
    "generation_unverified": "#fd8d3c",
    "uncertain": "#807dba",
    "waiting": "#4292c6",
    "healthy": "#238b45",
}
assert set(STATE_COLORS) == set(STATES)
TIER_COLORS = {"stm": "#8dd3c7", "mtm": "#80b1d3", "lpm": "#bebada"}
UNKNOWN_COLOR = "#d9d9d9"  # a unit whose creating receipt is not in the input
RECEIPT_COLOR = "#525252"
FLAG_COLOR = "#cb181d"  # receipts named by a finding


# ---- evidence beyond the report -----------------------------------------------------------------
@dataclass
class Evidence:
    """Run recency and tier placement, as the receipts tell them."""

    last_seen: dict[str, str] = field(default_factory=dict)  # runId -> latest atUtc
    tier_of: dict[str, str] = field(default_factory=dict)  # memoryId -> tier it was placed in
    gone: set[str] = field(default_factory=set)  # memoryIds moved out of their tier or removed

    def take(self, f: Facts) -> None:
        if f.at > self.last_seen.get(f.run_id, ""):
            self.last_seen[f.run_id] = f.at
        if f.boundary in PROMOTIONS and f.source_present is False:
            # a released source has left its tier whether or not the promotion committed
            self.gone.update(ref.partition("@")[0] for ref in f.derived_from or ())
        if f.status not in DONE or f.memory_id is None:
            return
        if f.boundary in CREATES and f.to_tier is not None:
            self.tier_of[f.memory_id] = f.to_tier
        elif f.boundary in REMOVALS and f.source_present is False:  # decay keeps the unit
            self.gone.add(f.memory_id)

    def occupancy(self) -> dict[str, int]:
        """Units present per tier. memoryos never reuses a memoryId, so leaving is final and the
        answer does not depend on the order of the input."""
        counts = Counter(tier for mid, tier in self.tier_of.items() if mid not in self.gone)
        return {tier: counts.get(tier, 0) for tier in (*TIER_ORDER, *sorted(set(counts) - set(TIER_ORDER)))}


def scan(sources: Iterable[Source]) -> Evidence:
    evidence = Evidence()
    for path, store in sources:
        for item, _ in read_source(path, lambda: None, store=store):
            if isinstance(item, Parsed):  # invalid receipts are findings, not evidence of placement
                evidence.take(item.facts)
    return evidence


def choose_runs(
    report: Report, evidence: Evidence, wanted: Sequence[str] = (), max_runs: int = DEFAULT_MAX_RUNS
) -> list[str]:
    """The runs asked for; by default the runs that are not healthy (worst first), then the most
    recent, `max_runs` in all. Raises ValueError for an asked-for run the input does not know."""
    if wanted:
        for run_id in wanted:
            if run_id not in evidence.last_seen and report.run(run_id) is None:
                raise ValueError(f"no receipts for run {run_id}")
        return list(dict.fromkeys(wanted))
    troubled = [r.run_id for r in report.runs if r.run_id != FILE_RUN]
    recent = sorted(evidence.last_seen, key=lambda r: (evidence.last_seen[r], r), reverse=True)
    return list(dict.fromkeys([*troubled, *recent]))[:max_runs]


# ---- the lineage drawing -------------------------------------------------------------------------
COLUMN, ROW, MARGIN, RADIUS = 190, 34, 24, 8
LABEL_ROOM = 130  # right of the last column, for its labels


def layout(graph: nx.DiGraph, root: str) -> dict[str, tuple[float, float]]:
    """Pixel positions: one column per BFS layer from the root, nodes in discovery order.

    The arrangement of networkx's `bfs_layout`, computed from `nx.bfs_layers` because every
    networkx layout function needs numpy, which the auditor does not depend on. Deterministic:
    the order follows the graph's insertion order, which follows the input.
    """
    layers = list(nx.bfs_layers(graph, [root])) if root in graph else []
    placed = {node for layer in layers for node in layer}
    stray = [node for node in graph if node not in placed]  # unreachable: a last column of its own
    if stray:
        layers.append(stray)
    tallest = max((len(layer) for layer in layers), default=1)
    positions: dict[str, tuple[float, float]] = {}
    for column, layer in enumerate(layers):
        top = MARGIN + (tallest - len(layer)) * ROW / 2  # centre each column vertically
        for row, node in enumerate(layer):
            positions[node] = (MARGIN + column * COLUMN + RADIUS, top + row * ROW + RADIUS)
    return positions


def _drawn(graph: nx.DiGraph, root: str) -> nx.DiGraph:
    """The graph, or its first MAX_DRAWN_NODES nodes nearest the root."""
    if graph.number_of_nodes() <= MAX_DRAWN_NODES:
        return graph
    order = [node for layer in nx.bfs_layers(graph, [root]) for node in layer][:MAX_DRAWN_NODES]
    return graph.subgraph(order).copy()


def _short(node: str, data: dict[str, str]) -> str:
    """A short visible label; the full one is the tooltip. uuid7s share their leading (time) digits,
    so a unit is shown by the end of its id."""
    if data["kind"] == "unit":
        memory_id, _, version = node.removeprefix("unit:").partition("@")
        return f"…{memory_id[-6:]}@{version}"
    if data["kind"] == "receipt":
        return " ".join(data["label"].split(" ", 2)[:2])  # boundary and status
    return data["kind"]


def _fill(node: str, data: dict[str, str], verdict: str, evidence: Evidence) -> str:
    if data["kind"] == "unit":
        memory_id = node.removeprefix("unit:").partition("@")[0]
        return TIER_COLORS.get(evidence.tier_of.get(memory_id, ""), UNKNOWN_COLOR)
    if data["kind"] == "receipt":
        return RECEIPT_COLOR
    return STATE_COLORS[verdict]


def _edge(ax: float, ay: float, bx: float, by: float) -> tuple[float, float, float, float]:
    """The segment between two circles' rims, so that the arrowhead stays visible."""
    dx, dy = bx - ax, by - ay
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    ux, uy = dx / length, dy / length
    return ax + ux * RADIUS, ay + uy * RADIUS, bx - ux * (RADIUS + 2), by - uy * (RADIUS + 2)


def svg_lineage(graph: nx.DiGraph, verdict: str, evidence: Evidence, flagged: set[str], index: int) -> str:
    root = "root:" + graph.graph["target"]
    drawn = _drawn(graph, root)
    pos = layout(drawn, root)
    width = int(max((x for x, _ in pos.values()), default=0) + RADIUS + MARGIN + LABEL_ROOM)
    height = int(max((y for _, y in pos.values()), default=0) + RADIUS + MARGIN)
    marker = f"arrow-{index}"  # ids are document-wide: one marker per drawing
    target = escape(graph.graph["target"])
    parts = [
        f'<svg class="lineage" data-nodes="{drawn.number_of_nodes()}" data-edges="{drawn.number_of_edges()}"'
        f' data-total-nodes="{graph.number_of_nodes()}" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="lineage of {target}">',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"'
        ' markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#737373"/></marker></defs>',
        '<g class="edges">',
    ]
    for tail, head, data in drawn.edges(data=True):
        x1, y1, x2, y2 = _edge(*pos[tail], *pos[head])
        tip = f"{tail} → {head}" + (f" ({data['label']})" if data.get("label") else "")
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
            f' marker-end="url(#{marker})"><title>{escape(tip)}</title></line>'
        )
    parts.append('</g><g class="nodes">')
    for node, data in drawn.nodes(data=True):
        x, y = pos[node]
        flag = node.removeprefix("receipt:") in flagged and data["kind"] == "receipt"
        parts.append(
            f'<g class="node {data["kind"]}{" flagged" if flag else ""}" data-kind="{data["kind"]}">'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS}" fill="{_fill(node, data, verdict, evidence)}">'
            f"<title>{escape(data['label'])}</title></circle>"
            f'<text x="{x + RADIUS + 4:.1f}" y="{y + 4:.1f}">{escape(_short(node, data))}</text></g>'
        )
    parts.append("</g></svg>")
    return "".join(parts)


# ---- the page ----------------------------------------------------------------------------------
_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px 32px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 0 0 6px; }
code { font: 12px ui-monospace, monospace; }
table { border-collapse: collapse; }
td, th { padding: 3px 10px; text-align: left; border-bottom: 1px solid #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { height: 12px; }
.nowrap { white-space: nowrap; }
.sw { display: inline-block; width: 11px; height: 11px; margin-right: 6px; vertical-align: -1px;
      border-radius: 2px; }
#verdict { display: inline-block; padding: 6px 14px; border-radius: 4px; color: #fff; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 12px 0; }
dt { color: #666; }
dd { margin: 0; }
.run { border: 1px solid #ddd; border-radius: 6px; padding: 12px; margin: 12px 0; overflow-x: auto; }
.badge { color: #fff; padding: 1px 8px; border-radius: 3px; font-weight: 600; margin-right: 6px; }
.note { color: #666; font-size: 12px; }
svg.lineage { display: block; margin-top: 8px; }
svg.lineage line { stroke: #969696; stroke-width: 1.2; }
svg.lineage text { font: 10px ui-monospace, monospace; fill: #333; }
svg.lineage circle { stroke: #fff; stroke-width: 1.5; }
"""


def _css() -> str:
    swatches = "".join(f".s-{state} {{ background: {color}; }}\n" for state, color in STATE_COLORS.items())
    tiers = "".join(f".t-{tier} {{ background: {color}; }}\n" for tier, color in TIER_COLORS.items())
    flagged = f"svg.lineage .flagged circle {{ stroke: {FLAG_COLOR}; stroke-width: 3; }}\n"
    return _STYLE + flagged + swatches + tiers


def _summary(report: Report) -> str:
    window = "-" if report.window is None else f"{report.window[0]} .. {report.window[1]}"
    facts = (
        ("clock", report.now),
        ("receipts", f"{report.receipts} ({report.duplicates} duplicates ignored, {report.lines} lines)"),
        ("window", window),
        ("source versions", ", ".join(report.source_versions) or "-"),
        ("pass", report.mode),
        ("MACs", report.macs.describe()),
        *(("note", note) for note in report.notes),
    )
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    state = escape(report.verdict)
    return (
        f'<div id="verdict" class="s-{state}" data-verdict="{state}">verdict: {state}</div>'
        f'<dl id="summary" data-macs-verified="{str(report.macs.verified).lower()}">{rows}</dl>'
    )


def _counts(report: Report) -> str:
    top = max(report.counts.values(), default=0) or 1
    rows = []
    for state in STATES:
        n = report.counts.get(state, 0)
        rows.append(
            f'<tr data-state="{state}" data-count="{n}"><td><span class="sw s-{state}"></span>{state}</td>'
            f'<td class="num">{n}</td><td style="width:320px">'
            f'<div class="bar s-{state}" style="width:{100 * n / top:.1f}%"></div></td></tr>'
        )
    return (
        '<h2>Runs per state</h2><table id="counts"><thead><tr><th>state</th><th>runs</th><th></th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _tiers(evidence: Evidence) -> str:
    occupancy = evidence.occupancy()
    rows = "".join(
        f'<tr data-tier="{escape(tier)}" data-count="{n}"><td><span class="sw t-{escape(tier)}"></span>'
        f'{escape(tier)}</td><td class="num">{n}</td></tr>'
        for tier, n in occupancy.items()
    )
    return (
        '<h2>Tier occupancy</h2><p class="note">Units present per tier as evidenced by receipts: stored'
        " into a tier, minus those moved out, evicted, expired or forgotten, counted by memoryId: a record"
        " corrected into several versions counts once.</p>"
        f'<table id="tiers"><thead><tr><th>tier</th><th>units</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def _problems(report: Report) -> str:
    if not report.runs:
        return '<h2>Runs that are not healthy</h2><p id="problems" class="note">None.</p>'
    rows = []
    for run in report.runs[:MAX_LISTED_RUNS]:
        for f in run.findings:
            rows.append(
                f'<tr data-run-id="{escape(run.run_id)}"><td><code>{escape(run.run_id)}</code></td>'
                f'<td class="nowrap"><span class="sw s-{run.verdict}"></span>{run.verdict}</td>'
                f"<td><code>{escape(f.rule)}</code></td><td>{escape(f.reason)}</td></tr>"
            )
    more = len(report.runs) - MAX_LISTED_RUNS
    note = f'<p class="note">{more} more runs in the JSON report (check --format json).</p>'
    note = note if more > 0 else ""
    return (
        '<h2>Runs that are not healthy</h2><table id="problems"><thead><tr><th>run</th><th>verdict</th>'
        f"<th>rule</th><th>reason</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{note}"
    )


def _legend() -> str:
    items = [f'<span class="sw t-{tier}"></span>{tier} unit' for tier in TIER_COLORS]
    items.append(f'<span class="sw" style="background:{UNKNOWN_COLOR}"></span>unit of unknown tier')
    items.append(f'<span class="sw" style="background:{RECEIPT_COLOR}"></span>receipt')
    items.append(f'<span class="sw" style="border:3px solid {FLAG_COLOR}"></span>receipt named by a finding')
    items.append("run: coloured by its verdict; hover a node or edge for ids")
    return '<p class="note">' + " &nbsp; ".join(items) + "</p>"


def _run_section(report: Report, evidence: Evidence, graph: nx.DiGraph, run_id: str, index: int) -> str:
    verdict = report.verdict_of(run_id)
    result = report.run(run_id)
    findings = result.findings if result is not None else ()
    flagged = {rid for f in findings for rid in f.receipt_ids}
    items = "".join(f"<li><code>{escape(f.rule)}</code> {escape(f.reason)}</li>" for f in findings)
    drawn = min(graph.number_of_nodes(), MAX_DRAWN_NODES)
    note = (
        f'<p class="note">Drawn: the {drawn} nodes nearest the run, of {graph.number_of_nodes()}.</p>'
        if graph.number_of_nodes() > drawn
        else ""
    )
    if graph.number_of_nodes() == 1:
        note = '<p class="note">No valid receipts of this run to draw.</p>'
    return (
        f'<section class="run" data-run-id="{escape(run_id)}" data-verdict="{verdict}">'
        f'<h3><span class="badge s-{verdict}">{verdict}</span>run <code>{escape(run_id)}</code></h3>'
        f'<ul class="findings">{items}</ul>{note}'
        f"{svg_lineage(graph, verdict, evidence, flagged, index)}</section>"
    )


def render_html(
    report: Report, sources: Iterable[Source], *, runs: Sequence[str] = (), max_runs: int = DEFAULT_MAX_RUNS
) -> str:
    """The page for `report`, which must come from the same sources. Raises ValueError for an
    asked-for run the sources do not know, and AuditInputError when a source cannot be read."""
    listed = list(sources)
    evidence = scan(listed)
    chosen = choose_runs(report, evidence, runs, max_runs)
    sections = "".join(
        _run_section(report, evidence, lineage_graph(listed, run_id), run_id, index)
        for index, run_id in enumerate(chosen)
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>memoryos audit: {escape(report.verdict)}</title><style>{_css()}</style></head><body>"
        f"<h1>memoryos audit report</h1>{_summary(report)}{_counts(report)}{_tiers(evidence)}"
        f'{_problems(report)}<h2>Lineage of chosen runs</h2>{_legend()}<div id="runs">{sections}</div>'
        '<p class="note">Content-free: receipts carry ids, versions, pseudonymous scopes and codes only.'
        "</p></body></html>\n"
    )


def write_html(path: str | os.PathLike[str], page: str) -> None:
    """Write through a temporary file and rename, so a reader never sees half a report."""
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(page, encoding="utf-8")
        os.replace(partial, target)
    except OSError:
        partial.unlink(missing_ok=True)  # never leave a stray half-written page behind
        raise
