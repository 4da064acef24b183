"""Draw the benchmark results that are curves as PNG plots beside their tables, from the tables.

    python bench/plot.py                 # reads bench/results/*.md, writes bench/results/*.png
    python bench/plot.py --results DIR   # another results folder

Nothing is measured again: each plot reads the points its committed table already holds.

- `scaling.png`: remember() p50 and p99 against conversation length (bench_scaling's windows), with
  the raw INSERT+COMMIT p99 measured interleaved, the machine's noise.
- `auditor.png`: full-audit time against receipts, every (receipts, seconds) pair bench_auditor's
  tables state, with a resumed (`--state`) audit beside it where the table has one.
- `watch.png`: bench_watch's writer throughput with and without a watcher, and the audit's lag.
- `writers.png`: throughput against writer processes, from any results table whose columns name
  writer processes and a throughput (none is committed yet: then it says so and draws nothing).

Needs matplotlib (`memoryos[docs]`).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

RESULTS = Path(__file__).resolve().parent / "results"
Row = dict[str, str]
_SECONDS = re.compile(r"([0-9]+(?:\.[0-9]+)?) s\b")
_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?")


# ---- reading markdown tables ---------------------------------------------------------------------
def tables(text: str) -> Iterator[tuple[str, list[Row]]]:
    """Every pipe table in a markdown text, with the heading it sits under, rows keyed by header."""
    heading, block = "", []
    for line in [*text.splitlines(), ""]:
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|"):
            block.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if len(block) >= 2:
            header, body = block[0], block[2:] if set("".join(block[1])) <= set("-: ") else block[1:]
            yield heading, [dict(zip(header, cells, strict=False)) for cells in body]
        block = []


def number(cell: str, index: int = 0) -> float | None:
    """The `index`th number in a table cell ("1,001–2,000" has two), commas dropped."""
    found = _NUMBER.findall(cell.replace("\u2009", ""))
    if len(found) <= index:
        return None
    return float(found[index].replace(",", ""))


def column(rows: Sequence[Row], *words: str) -> str | None:
    """The first header holding every word (case-insensitive)."""
    for header in rows[0] if rows else {}:
        if all(word in header.lower() for word in words):
            return header
    return None


# ---- the plots ------------------------------------------------------------------------------------
def _save(figure: Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot_scaling(results: Path) -> Path | None:
    source = results / "scaling.md"
    if not source.exists():
        return None
    for _, rows in tables(source.read_text()):
        turns, p99 = column(rows, "turns"), column(rows, "p99")
        p50, raw = column(rows, "p50"), column(rows, "raw", "p99")
        if turns is None or p99 is None or p50 is None:
            continue
        points = [(number(r[turns], 1), r) for r in rows]
        windows = [(x, r) for x, r in points if x is not None]
        xs = [x for x, _ in windows]
        figure, axes = plt.subplots(figsize=(8, 4.2))
        axes.plot(xs, [_ms(r[p99]) for _, r in windows], marker=".", label="remember() p99")
        axes.plot(xs, [_ms(r[p50]) for _, r in windows], marker=".", label="remember() p50")
        if raw is not None:
            axes.plot(xs, [_ms(r[raw]) for _, r in windows], ":", label="raw INSERT+COMMIT p99 (noise)")
        axes.set(xlabel="turns in the conversation (end of each window)", ylabel="ms", yscale="log")
        axes.set_title("remember() latency against conversation length (bench_scaling)")
        axes.legend()
        axes.grid(alpha=0.3)
        return _save(figure, results / "scaling.png")
    return None


def _ms(cell: str) -> float:
    value = number(cell) or 0.0
    return value / 1000 if "µs" in cell or "us" in cell else value


def audit_points(text: str) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(receipts, seconds) of every full audit and every resumed audit the auditor's tables state."""
    full: list[tuple[float, float]] = []
    resumed: list[tuple[float, float]] = []
    for _, rows in tables(text):
        values = {r.get("measure", ""): r.get("value", "") for r in rows}
        receipts = next((number(v) for k, v in values.items() if k == "receipts"), None)
        if receipts is None:
            continue
        for measure, value in values.items():
            timed = _SECONDS.match(value.strip())
            if timed is None:
                continue
            seconds = float(timed.group(1))
            if "full verification" in measure or measure.startswith("full audit"):
                full.append((receipts, seconds))
            elif "resumed" in measure and "ratio" not in measure:
                resumed.append((receipts, seconds))
    return sorted(full), sorted(resumed)


def plot_auditor(results: Path) -> Path | None:
    source = results / "auditor.md"
    if not source.exists():
        return None
    full, resumed = audit_points(source.read_text())
    if not full:
        return None
    figure, axes = plt.subplots(figsize=(7, 4.2))
    axes.plot([x for x, _ in full], [y for _, y in full], marker="o", label="full audit (MACs verified)")
    if resumed:
        axes.plot([x for x, _ in resumed], [y for _, y in resumed], marker="s", label="resumed audit (+1%)")
    for x, y in full + resumed:
        axes.annotate(f"{y:g} s", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    axes.set(xlabel="receipts", ylabel="seconds", xscale="log", yscale="log")
    axes.set_title("audit time against receipts (bench_auditor)")
    axes.legend()
    axes.grid(alpha=0.3, which="both")
    return _save(figure, results / "auditor.png")


def plot_watch(results: Path) -> Path | None:
    source = results / "watch.md"
    if not source.exists():
        return None
    for _, rows in tables(source.read_text()):
        run, alone, watched = column(rows, "run"), column(rows, "alone"), column(rows, "watched")
        if run is None or alone is None or watched is None:
            continue
        xs = [number(r[run]) or 0.0 for r in rows]
        figure, axes = plt.subplots(figsize=(7, 4.2))
        axes.plot(xs, [number(r[alone]) or 0.0 for r in rows], marker="o", label="writer alone")
        axes.plot(
            xs, [number(r[watched]) or 0.0 for r in rows], marker="o", label="writer with watch running"
        )
        axes.set(xlabel="run (alternating)", ylabel="remember() per second", ylim=(0, None))
        axes.set_title("writer throughput with and without a watcher (bench_watch)")
        axes.legend()
        axes.grid(alpha=0.3)
        return _save(figure, results / "watch.png")
    return None


def plot_writers(results: Path) -> Path | None:
    for source in sorted(results.glob("*.md")):
        for heading, rows in tables(source.read_text()):
            writers, rate = column(rows, "writer"), column(rows, "per s") or column(rows, "throughput")
            if writers is None or rate is None:
                continue
            points = sorted((number(r[writers]) or 0.0, number(r[rate]) or 0.0) for r in rows)
            figure, axes = plt.subplots(figsize=(7, 4.2))
            axes.plot([x for x, _ in points], [y for _, y in points], marker="o")
            axes.set(xlabel="writer processes", ylabel=rate, ylim=(0, None))
            axes.set_title(f"throughput against writer processes ({source.stem}: {heading})")
            axes.grid(alpha=0.3)
            return _save(figure, results / "writers.png")
    return None


PLOTS = {"scaling": plot_scaling, "auditor": plot_auditor, "watch": plot_watch, "writers": plot_writers}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/plot.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="the results folder (default bench/results)"
    )
    args = parser.parse_args(argv)
    for name, plot in PLOTS.items():
        made = plot(args.results)
        print(f"{name}: {made if made is not None else 'no table with these points yet: nothing drawn'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
