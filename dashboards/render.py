"""Plot what each panel of memoryos.json reads, from the series the end-to-end dashboard test saw.

    MEMORYOS_DASHBOARD_SERIES=dashboards/img/series.json \\
        pytest -q tests/memoryos/test_dashboards.py -k every_panel
    python dashboards/render.py dashboards/img/series.json dashboards/img

One PNG per panel. The test cuts its run into three exports, then closes the store (a fourth) and
runs the auditor (a fifth), so each line has a point per OTLP request that carried it: a counter's
cumulative value, a gauge's value, or a latency quantile of the calls since the previous export
(what histogram_quantile(rate(...)) gives over that window). Needs matplotlib (`memoryos[docs]`).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.memoryos.test_dashboards import Sample, load, matches, panels, parse  # noqa: E402

Line = dict[int, float]


def read(path: Path) -> list[Sample]:
    return [
        Sample(s["name"], tuple((k, v) for k, v in s["labels"]), s["value"], s["export"])
        for s in json.loads(path.read_text())
    ]


def legend(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template).strip() or "value"


def grouped(selected: Sequence[Sample], by: Sequence[str]) -> dict[tuple[tuple[str, str], ...], Line]:
    lines: dict[tuple[tuple[str, str], ...], Line] = {}
    for sample in selected:
        key = tuple((label, sample.label(label) or "") for label in by)
        line = lines.setdefault(key, {})
        line[sample.export] = line.get(sample.export, 0.0) + sample.value
    return lines


def quantile(q: float, buckets: dict[float, float]) -> float:
    """histogram_quantile over cumulative bucket counts (linear within a bucket, as Prometheus)."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]]
    if total <= 0:
        return math.nan
    rank, lower, below = q * total, 0.0, 0.0
    for bound in bounds:
        if buckets[bound] >= rank:
            if math.isinf(bound):
                return lower
            return lower + (bound - lower) * (rank - below) / max(buckets[bound] - below, 1e-12)
        lower, below = bound, buckets[bound]
    return lower


def quantile_lines(q: float, selected: Sequence[Sample], by: Sequence[str]) -> dict[tuple[Any, ...], Line]:
    keep = [label for label in by if label != "le"]
    per: dict[tuple[Any, ...], dict[int, dict[float, float]]] = {}
    for sample in selected:
        key = tuple((label, sample.label(label) or "") for label in keep)
        cut = per.setdefault(key, {}).setdefault(sample.export, {})
        bound = float(sample.label("le") or "inf")
        cut[bound] = cut.get(bound, 0.0) + sample.value
    lines: dict[tuple[Any, ...], Line] = {}
    for key, cuts in per.items():
        previous: dict[float, float] = {}
        for export in sorted(cuts):
            window = {b: v - previous.get(b, 0.0) for b, v in cuts[export].items()}
            previous = cuts[export]
            lines.setdefault(key, {})[export] = quantile(q, window)
    return lines


def plot_panel(panel: dict[str, Any], samples: Sequence[Sample], out: Path) -> None:
    figure, axes = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    for target in panel["targets"]:
        query = parse(target["expr"])
        selected = [s for selector in query.selectors for s in samples if matches(selector, s)]
        by = query.grouping[-1][0] if query.grouping else []
        found = re.match(r"histogram_quantile\(([0-9.]+)", target["expr"])
        lines = quantile_lines(float(found.group(1)), selected, by) if found else grouped(selected, by)
        for key, line in sorted(lines.items()):
            exports = sorted(line)
            axes.plot(
                exports,
                [line[e] for e in exports],
                marker="o",
                label=legend(target["legendFormat"], dict(key)),
            )
    axes.set_title(panel["title"], fontsize=10)
    axes.set_xlabel("OTLP export of the test run")
    axes.set_xticks(sorted({s.export for s in samples}))
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def main(argv: Sequence[str]) -> int:
    series, into = Path(argv[0]), Path(argv[1])
    into.mkdir(parents=True, exist_ok=True)
    samples = read(series)
    for panel in panels(load()):
        plot_panel(panel, samples, into / f"panel-{panel['id']:02d}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
