"""`memoryos-audit watch` beside writers (issue 17): what it costs them, and whether it keeps up.

(a) Cost: one writer process calls remember() as fast as it can for --seconds, alone or with a
    watcher process auditing the same store every --interval (and exporting its gauges over
    OTLP/HTTP to a receiver on 127.0.0.1). Runs alternate alone / watched; the figure is the median
    watched throughput over the median alone. Target: >= 0.95 (costs the writers <= 5 %).
(b) Lag: the writer paced at --rate remember()/s for --lag-seconds, the watcher beside it. Every
    50 ms the benchmark reads the store's outbox head and the seq the watcher's verdict file says
    it audited through; the lag at a moment is how long the oldest receipt not yet audited has been
    committed. Target: the largest lag <= 2 intervals.

    python bench/bench_watch.py                       # about 90 s
    python bench/bench_watch.py --runs 2 --seconds 3 --lag-seconds 8   # smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from bench_telemetry import receiver  # the same do-nothing OTLP/HTTP receiver on 127.0.0.1

import memoryos
from memoryos.cli_output import Progress

TOPICS = ["deploy", "rust", "garden", "invoice", "piano", "kubernetes", "recipe", "travel", "tax", "football"]


# -- the writer (a child process) -------------------------------------------------------------------
def write(db: str, seconds: float, rate: float, durability: str) -> dict[str, Any]:
    """remember() for `seconds`, paced at `rate` per second (0: as fast as it can)."""
    scopes = [memoryos.Scope(user=f"user{i}", assistant="bench") for i in range(4)]
    count, latencies = 0, []
    with memoryos.open(db, durability=durability) as mem:
        started = time.perf_counter()
        while (now := time.perf_counter()) - started < seconds:
            if rate and count > (now - started) * rate:
                time.sleep(max(started + count / rate - now, 0.0))
                continue
            began = time.perf_counter()
            mem.remember(scopes[count % 4], f"{TOPICS[count % 10]} turn {count} of the benchmark")
            latencies.append(time.perf_counter() - began)
            count += 1
        elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "count": count,
        "per_s": count / elapsed,
        "p50_us": latencies[len(latencies) // 2] * 1e6,
        "p99_us": latencies[int(len(latencies) * 0.99)] * 1e6,
    }


def writer(db: Path, seconds: float, rate: float, durability: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--writer", str(db), str(seconds), str(rate), durability]
    done = subprocess.run(command, capture_output=True, check=True, stdin=subprocess.DEVNULL)
    result: dict[str, Any] = orjson.loads(done.stdout)
    return result


# -- the watcher ----------------------------------------------------------------


@contextmanager
def watcher(db: Path, work: Path, interval: float, endpoint: str) -> Iterator[Path]:
    verdict = work / "verdict"
    for stale in (work / "state", work / "state.key", verdict):
        stale.unlink(missing_ok=True)
    env = {**os.environ, "MEMORYOS_TELEMETRY": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
    command = [sys.executable, "-m", "auditor", "watch", "--db", str(db), "--interval", str(interval)]
    command += ["--state", str(work / "state"), "--verdict", str(verdict)]
    child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not verdict.exists() and time.monotonic() < deadline:  # its first pass is done
            time.sleep(0.05)
        yield verdict
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)


# -- (a) cost ---------------------------------------------------------------------------------------
def cost(base: Path, work: Path, args: argparse.Namespace, progress: Progress) -> list[dict[str, Any]]:
    rows = []
    with receiver() as endpoint:
        for run in range(1, args.runs + 1):
            row: dict[str, Any] = {"run": run}
            for mode in ("alone", "watched") if run % 2 else ("watched", "alone"):
                db = work / f"{mode}.db"
                fresh_copy(base, db)
                if mode == "alone":
                    row[mode] = writer(db, args.seconds, 0, args.durability)
                else:
                    with watcher(db, work, args.interval, endpoint):
                        row[mode] = writer(db, args.seconds, 0, args.durability)
                progress.advance()
            rows.append(row)
    return rows


def fresh_copy(base: Path, db: Path) -> None:
    for suffix in ("", "-wal", "-shm", ".receipt-key", ".receipt-head"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    for suffix in ("", ".receipt-key", ".receipt-head"):
        if Path(f"{base}{suffix}").exists():
            shutil.copy2(f"{base}{suffix}", f"{db}{suffix}")


# -- (b) lag ----------------------------------------------------------------------------------------
def head_of(db: Path) -> int | None:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        try:
            return int(conn.execute("SELECT max(seq) FROM receipt_outbox").fetchone()[0] or 0)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def covered_by(verdict: Path, db: Path) -> int | None:
    try:
        body = orjson.loads(verdict.read_bytes().partition(b"\n")[2])
        return int(body["covered"][str(db.resolve())])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def lag(base: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    db = work / "paced.db"
    fresh_copy(base, db)
    heads: list[tuple[float, int]] = []  # (time, outbox head) as sampled
    lags: list[float] = []
    result: dict[str, Any] = {}
    with receiver() as endpoint, watcher(db, work, args.interval, endpoint) as verdict:
        done = threading.Event()

        def paced() -> None:
            result.update(writer(db, args.lag_seconds, args.rate, args.durability))
            done.set()

        thread = threading.Thread(target=paced, daemon=True)
        thread.start()
        while not done.is_set():
            now, head, covered = time.monotonic(), head_of(db), covered_by(verdict, db)
            if head is not None:
                heads.append((now, head))
            if covered is not None:
                lags.append(_lag_at(now, covered, heads))
            time.sleep(0.05)
        thread.join()
    return {**result, "max_lag_s": max(lags, default=0.0), "samples": len(lags)}


def _lag_at(now: float, covered: int, heads: list[tuple[float, int]]) -> float:
    """How long the first receipt after `covered` has been in the outbox (0 when none is)."""
    for at, head in heads:
        if head > covered:
            return now - at
    return 0.0


# -- the report -------------------------------------------------------------------------------------
def table(rows: list[dict[str, Any]], paced: dict[str, Any], args: argparse.Namespace, spent: float) -> str:
    alone = statistics.median(r["alone"]["per_s"] for r in rows)
    watched = statistics.median(r["watched"]["per_s"] for r in rows)
    ratio = statistics.median(r["watched"]["per_s"] / r["alone"]["per_s"] for r in rows)
    lag_intervals = paced["max_lag_s"] / args.interval
    lines = [
        "# `memoryos-audit watch` beside a writer",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: nproc {os.cpu_count()}, Python "
        f"{platform.python_version()}, {platform.platform()}, load average {os.getloadavg()[0]:.1f}.",
        f"Command: `python bench/bench_watch.py {' '.join(sys.argv[1:])}` ({spent:.0f} s).",
        "",
        f"Store prefilled with {args.turns} turns; the writer at durability {args.durability}. "
        f"Watcher: its own process, a pass every {args.interval:g} s from its state file, gauges "
        "exported over OTLP/HTTP to a receiver on 127.0.0.1 at the same interval.",
        "",
        "| figure | value | target |",
        "|---|---|---|",
        f"| writer throughput watched / alone (median of run ratios) | {ratio:.3f}"
        f" ({(ratio - 1) * 100:+.1f} %) | >= 0.95 |",
        f"| median remember()/s alone, watched | {alone:.0f}, {watched:.0f} |  |",
        f"| paced writer: remember()/s reached (asked {args.rate:g}) | {paced['per_s']:.0f} |  |",
        f"| largest audit lag at that rate | {paced['max_lag_s']:.2f} s = {lag_intervals:.2f} intervals"
        f" ({paced['samples']} samples) | <= 2 intervals |",
        f"| paced remember() p50 / p99 with the watcher | {paced['p50_us']:.0f} / {paced['p99_us']:.0f} µs"
        " |  |",
        "",
        "Runs (remember() per second; alone and watched alternate which goes first):",
        "",
        "| run | alone | watched | ratio | alone p99 µs | watched p99 µs |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        a, w = r["alone"], r["watched"]
        lines.append(
            f"| {r['run']} | {a['per_s']:.0f} | {w['per_s']:.0f} | {w['per_s'] / a['per_s']:.3f} "
            f"| {a['p99_us']:.0f} | {w['p99_us']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def prefill(path: Path, turns: int) -> None:
    scopes = [memoryos.Scope(user=f"user{i}", assistant="bench") for i in range(4)]
    with memoryos.open(path, durability="normal") as mem:
        for i in range(turns):
            mem.remember(scopes[i % 4], f"{TOPICS[i % 10]} prefilled turn {i}")


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--writer":
        db, seconds, rate, durability = sys.argv[2:]
        print(orjson.dumps(write(db, float(seconds), float(rate), durability)).decode())
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="alternating alone/watched runs")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per writer run")
    parser.add_argument("--interval", type=float, default=1.0, help="the watcher's interval, s")
    parser.add_argument("--rate", type=float, default=200.0, help="paced remember() per second")
    parser.add_argument("--lag-seconds", type=float, default=20.0, help="seconds of the paced run")
    parser.add_argument("--turns", type=int, default=2000, help="turns prefilled into the store")
    parser.add_argument(
        "--durability", choices=("full", "normal"), default="normal", help="the writer's (default normal)"
    )
    parser.add_argument("--out", default="", help="write the results table (markdown) here ('' to skip)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        work = Path(tmp)
        base = work / "base.db"
        prefill(base, args.turns)
        with Progress("bench_watch: runs", total=args.runs * 2, quiet=args.quiet) as progress:
            rows = cost(base, work, args, progress)
        paced = lag(base, work, args)
    text = table(rows, paced, args, time.monotonic() - started)
    print(text)
    if args.out:  # '' skips writing, as in the other benchmarks (Path('') would be the current directory)
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
