"""What replies cost recall(): the indexed read of a scope's next turn against no replies at all.

A scope asks 12 questions that match the query (the speakers take turns, so each question but the
last has a reply: the next one), then 20,000 pages of other scopes are stored after them. For the
last question the scope stored no turn since, so a read that scans rowids from the question on
(the `units_page` read the first try used, branch recall2-replies) reads all 20,000 rows. The
shipped read (SearchIndex.next_turns, index units_scope_turns of migration 0008) is one seek per
question whatever the rows after.

Three arms, interleaved sample by sample in a rotating order, each timed as the CPU time of the
process over one `recall(k=10)` (load-independent where wall-clock on a shared machine is not):
  indexed  the shipped recall;
  scan     replies read with units_page (the unindexed read, rebuilt here for comparison only);
  off      no replies (memoryos.retrieval.replies.replies answers nothing).

    python bench/bench_replies_cost.py                         # 20,000 other pages, 200 samples an arm
    python bench/bench_replies_cost.py --others 2000 --samples 30   # a quick smoke run
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core  # a sibling script, not a package

import memoryos
from memoryos.retrieval import replies
from memoryos.store.base import SearchIndex
from memoryos.store.rows import Hit, Unit

QUESTIONS = 12
QUERY = "kayak trip"
SCOPE = memoryos.Scope(user="asker", assistant="bench")

_shipped = replies.replies


def _scanned(
    index: SearchIndex, user: str, assistant: str, found: Sequence[Hit], moment: int
) -> list[tuple[Unit, float]]:
    """Replies read as the first try read them: the scope's next unit by a scan of rowids."""
    store: Any = index
    answered = []
    with store.read() as tx:
        for hit in found:
            if hit.unit.rowid is None or not replies.asks(hit.unit):
                continue
            after = tx.units_page(hit.unit.rowid, 1, user, assistant)
            if after and replies.replies_to(after[0], hit.unit, moment):
                answered.append((after[0], replies.REPLY_SHARE * hit.score))
    return answered


def _none(*_args: Any) -> list[tuple[Unit, float]]:
    return []


ARMS: dict[str, Callable[..., list[tuple[Unit, float]]]] = {
    "indexed": _shipped,
    "scan": _scanned,
    "off": _none,
}


def build(folder: Path, others: int) -> memoryos.Memory:
    mem = memoryos.open(
        folder / "replies.db", clock=bench_core.bench_clock(), durability="normal", heat_threshold=1e12
    )
    for n in range(QUESTIONS):
        role = "assistant" if n % 2 else "user"
        mem.remember(SCOPE, f"Did you enjoy the kayak trip to lake number {n}?", role=role)
    scopes = [memoryos.Scope(user=f"other-{i}", assistant="bench") for i in range(50)]
    bench_core.fill(mem, others, scopes, random.Random(7))
    return mem


def measure(mem: memoryos.Memory, samples: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {arm: [] for arm in ARMS}
    names = list(ARMS)
    hits: dict[str, int] = {}
    try:
        for i in range(samples + 5):
            for arm in names[i % 3 :] + names[: i % 3]:
                replies.replies = ARMS[arm]
                start = time.process_time()
                found = mem.recall(SCOPE, QUERY, k=10)
                spent = time.process_time() - start
                hits[arm] = len(found.hits)
                if i >= 5:  # the first rounds warm the caches
                    times[arm].append(spent)
    finally:
        replies.replies = _shipped
    print("hits per recall:", hits, flush=True)
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--others", type=int, default=20_000, help="other scopes' pages stored after the questions"
    )
    parser.add_argument("--samples", type=int, default=200, help="recalls timed per arm")
    parser.add_argument("--tmp", default=None, help="folder for the temporary store")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoryos-replies-", dir=args.tmp) as tmp:
        mem = build(Path(tmp), args.others)
        try:
            times = measure(mem, args.samples)
        finally:
            mem.close()
    off = times["off"]
    print(
        f"| arm ({args.others:,} other pages) | recall() median CPU | p95 CPU"
        " | median ratio to off | p95 ratio to off |"
    )
    print("|---|---|---|---|---|")
    for arm, spent in times.items():
        median, p95 = statistics.median(spent), percentile(spent, 0.95)
        print(
            f"| {arm} | {median * 1e6:,.0f} µs | {p95 * 1e6:,.0f} µs"
            f" | {median / statistics.median(off):.2f}x | {p95 / percentile(off, 0.95):.2f}x |"
        )


if __name__ == "__main__":
    main()
