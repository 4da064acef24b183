"""Scaling benchmark (issue 12): does the cost of remember() grow with the conversation?

One scope, one topic, N turns through remember() at the chosen durability, every promotion and
(inline, extractive) distillation on the request path as a host would see them. Per window of turns
it reports remember()'s p50 and p99, a raw INSERT+COMMIT's p99 measured interleaved (one after each
turn, on its own file with the same durability: the machine's noise floor), the receipt bytes
written per turn and the longest receipt line. The headline figures are the last window's p99 over
the first window's and receipt bytes per turn, last window over first.

    python bench/bench_scaling.py                                  # 50,000 turns (a few minutes)
    python bench/bench_scaling.py --turns 3000 --window 500 --out '' --json /tmp/s.json   # CI slice

The script uses only the public API and the store's outbox table, so the same file measures an
older checkout too: `PYTHONPATH=/path/to/checkout python bench/bench_scaling.py ...`.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

import memoryos
from memoryos.testing import FakeClock

TOPIC = "the blyck release pipeline deploys staging through the makefile"
VOCABULARY = [f"w{i}" for i in range(400)]
LINE_CAP = 4096


@dataclass(frozen=True)
class Window:
    """One window of turns: timings in microseconds, receipt figures in bytes."""

    first_turn: int
    turns: int
    p50_us: float
    p99_us: float
    raw_p99_us: float
    receipt_bytes_per_turn: float
    longest_line: int
    distillations: int


def turn_text(rng: random.Random, index: int) -> tuple[str, str]:
    """A turn of the one conversation: the same topic words, a few others, now and then a fact."""
    words = " ".join(rng.choices(VOCABULARY, k=6))
    if index % 2:
        return "assistant", f"For {TOPIC}, run make release after {words}."
    if index % 10 == 0:
        return "user", f"I prefer {words} when {TOPIC}."
    return "user", f"How does {TOPIC} handle {words}?"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raw_baseline(folder: Path, durability: str) -> sqlite3.Connection:
    conn = sqlite3.connect(folder / "raw.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("CREATE TABLE turns (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    return conn


def raw_insert(conn: sqlite3.Connection, text: str) -> float:
    start = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO turns (body) VALUES (?)", (text,))
    conn.execute("COMMIT")
    return time.perf_counter() - start


class Outbox:
    """Reads the receipts written since the last look, through its own connection."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
        self.seq = 0

    def since_last(self) -> tuple[int, int, int]:
        """(bytes of the receipt lines, the longest line, distillations started) since the last call."""
        total, longest, distillations = 0, 0, 0
        rows = self.conn.execute(
            "SELECT seq, body FROM receipt_outbox WHERE seq > ? ORDER BY seq", (self.seq,)
        )
        for self.seq, body in rows:
            line = len(body) + 1  # a JSONL line: the receipt and its newline
            total += line
            longest = max(longest, line)
            receipt = orjson.loads(body)
            distillations += receipt["boundary"] == "mtm_to_lpm" and receipt["status"] == "started"
        return total, longest, distillations

    def close(self) -> None:
        self.conn.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="memoryos-scaling-", dir=args.tmp))
    rng = random.Random(args.seed)
    clock = FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(microseconds=50))
    scope = memoryos.Scope(user="scaling-user", assistant="bench")
    windows: list[Window] = []
    try:
        mem = memoryos.open(folder / "scaling.db", clock=clock, durability=args.durability)
        raw = raw_baseline(folder, args.durability)
        outbox = Outbox(Path(mem.path))
        ours: list[float] = []
        base: list[float] = []
        for index in range(args.turns):
            role, text = turn_text(rng, index)
            start = time.perf_counter()
            mem.remember(scope, text, role=role)
            ours.append(time.perf_counter() - start)
            base.append(raw_insert(raw, text))
            if len(ours) == args.window or index == args.turns - 1:
                written, longest, distillations = outbox.since_last()
                windows.append(
                    Window(
                        index + 1 - len(ours),
                        len(ours),
                        statistics.median(ours) * 1e6,
                        percentile(ours, 0.99) * 1e6,
                        percentile(base, 0.99) * 1e6,
                        written / len(ours),
                        longest,
                        distillations,
                    )
                )
                if args.progress:
                    print(windows[-1], flush=True)
                ours, base = [], []
        status = mem.status()
        outbox.close()
        raw.close()
        mem.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    figures = [asdict(w) for w in windows]
    return {
        "turns": args.turns,
        "window": args.window,
        "durability": args.durability,
        "code": code_under_test(),
        "windows": figures,
        **summarise(figures),
        "tiers": status["tiers"],
    }


def code_under_test() -> str:
    """Where memoryos was imported from, and its commit: the before/after runs say which code ran."""
    where = Path(memoryos.__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(where), "log", "--oneline", "-1"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return f"{where} ({commit})"


def summarise(windows: list[dict[str, Any]]) -> dict[str, Any]:
    """The headline ratios of a list of windows (also for a run rebuilt from its --progress log)."""
    first, last = windows[0], windows[-1]
    return {
        "p99_ratio": last["p99_us"] / first["p99_us"],
        "p50_ratio": last["p50_us"] / first["p50_us"],
        "receipt_bytes_ratio": last["receipt_bytes_per_turn"] / first["receipt_bytes_per_turn"],
        "longest_line": max(w["longest_line"] for w in windows),
    }


def report(results: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"- Code: {results['code']}; {results['turns']:,} turns, windows of {results['window']:,},"
        f" durability={results['durability']}.",
        f"- remember() p99, last window / first: **{results['p99_ratio']:.2f}x** (p50:"
        f" {results['p50_ratio']:.2f}x). Target <= 1.5x. The raw INSERT+COMMIT column shows the"
        " machine's noise in each window.",
        f"- Receipt bytes per turn, last window / first: **{results['receipt_bytes_ratio']:.2f}x**;"
        f" longest receipt line: **{results['longest_line']:,} bytes** (cap {LINE_CAP:,}).",
        f"- Tiers at the end: {results.get('tiers', 'not recorded (the run was stopped)')}.",
        "",
        "| turns | remember() p50 | p99 | raw INSERT+COMMIT p99 | p99 ratio to raw | receipt bytes/turn"
        " | longest line | distillations |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w in results["windows"]:
        end = w["first_turn"] + w["turns"]
        lines.append(
            f"| {w['first_turn'] + 1:,}–{end:,} | {w['p50_us']:.0f} µs | {w['p99_us']:.0f} µs"
            f" | {w['raw_p99_us']:.0f} µs | {w['p99_us'] / w['raw_p99_us']:.1f}x"
            f" | {w['receipt_bytes_per_turn']:.0f} | {w['longest_line']:,} | {w['distillations']} |"
        )
    return "\n".join(lines) + "\n"


def header(args: argparse.Namespace) -> str:
    return (
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()},"
        f" SQLite {sqlite3.sqlite_version}."
        f" Command: `python bench/bench_scaling.py --turns {args.turns} --window {args.window}"
        f" --durability {args.durability} --seed {args.seed}`\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=50_000, help="turns remembered in the one scope")
    parser.add_argument("--window", type=int, default=1000, help="turns per reported window")
    parser.add_argument("--durability", default="normal", choices=["full", "normal"], help="store durability")
    parser.add_argument("--seed", type=int, default=12, help="seed of the generated conversation")
    parser.add_argument("--tmp", default=None, help="folder for the temporary stores")
    parser.add_argument(
        "--out", default="bench/results/scaling.md", help="markdown results file ('' to skip)"
    )
    parser.add_argument("--json", default="", help="also write the figures as JSON here")
    parser.add_argument("--progress", action="store_true", help="print each window as it ends")
    parser.add_argument(
        "--before", default="", help="a JSON an earlier run wrote (older code, say): reported below this one"
    )
    args = parser.parse_args()
    if args.turns < args.window or args.window < 100:
        parser.error("--turns must be at least --window, and --window at least 100 (a p99 needs samples)")
    results = run(args)
    text = header(args) + "\n" + report(results, args)
    if args.before:
        before = orjson.loads(Path(args.before).read_bytes())
        text += f"\n## Before\n\n{before.get('note', '')}\n\n{report(before, args)}"
    print(text)
    if args.out:
        Path(args.out).write_text(
            f"# Scaling benchmark — {datetime.now(UTC):%Y-%m-%d}\n\n{text}", encoding="utf-8"
        )
    if args.json:
        Path(args.json).write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
