"""What the reply lookup (memoryos.retrieval.engine.Retriever.replies) costs recall(), worst case.

Scope A holds question turns that every query matches, each the last unit A stored before many
other scopes' rows (so the lookup of "the unit A stored next" scans past them), or not. recall()
is timed with the lookup and without it (Retriever.replies patched to find nothing), interleaved,
medians and p95 in microseconds.

    python bench/bench_replies_cost.py --others 100000 --samples 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import memoryos
from memoryos.retrieval.engine import Retriever

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import fill  # a sibling module: bench/ is not a package


def _time(mem: memoryos.Memory, scope: memoryos.Scope, query: str) -> float:
    started = time.perf_counter()
    mem.recall(scope, query, k=10)
    return (time.perf_counter() - started) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--others", type=int, default=100_000, help="other scopes' rows stored after A's")
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    a = memoryos.Scope(user="alice", assistant="bench")
    others = [memoryos.Scope(user=f"u{n}", assistant="bench") for n in range(8)]
    with tempfile.TemporaryDirectory(prefix="memoryos-replies-") as folder:
        mem = memoryos.open(Path(folder) / "r.db", durability="normal")
        for n in range(12):
            mem.remember(a, f"Jon: did you ever go kayaking on lake number {n}?", role="assistant")
        fill(mem, args.others, others, random.Random(1))
        real = Retriever.replies
        timings: dict[str, list[float]] = {"with replies": [], "without": []}
        for _ in range(args.samples):
            timings["with replies"].append(_time(mem, a, "kayaking lake"))
            Retriever.replies = lambda self, sk, found, moment: []  # type: ignore[method-assign]
            timings["without"].append(_time(mem, a, "kayaking lake"))
            Retriever.replies = real  # type: ignore[method-assign]
        mem.close()
    for name, values in timings.items():
        p95 = statistics.quantiles(values, n=20)[-1]
        print(f"{name}: median {statistics.median(values):.0f} us, p95 {p95:.0f} us")
    ratio = statistics.median(timings["with replies"]) / statistics.median(timings["without"])
    print(f"ratio (with / without, medians): {ratio:.2f}x")


if __name__ == "__main__":
    main()
