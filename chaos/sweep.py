"""Which trials a sweep runs, and running them on a small pool.

Hits are learned, not guessed: a counting child replays the same plan with every point armed as
`sleep(0)` (which fires, and so counts, without changing behaviour) and reports how often each point
was reached. The exhaustive part then kills at every hit of every point of the small workload; the
seeded part kills at one random hit of every point of each seed's larger workload.
"""

from __future__ import annotations

import functools
import random
import tempfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chaos import stores
from chaos.naive import HOOK
from chaos.trial import Spec, run, spawn
from memoryos.failpoints import POINTS

RECOVERY_POINTS = tuple(p for p in POINTS if p.startswith("recovery."))
#: Where a promotion intent is committed and still open: the state recovery has to reconcile.
OPEN_INTENT_POINTS = ("mtm_to_lpm.after_intent", "mtm_to_lpm.after_distill")
SOAK_SECONDS = (0.0, 0.9)  # after the child opened its store; a `long` plan runs for about 0.8 s


@dataclass(frozen=True)
class Plan:
    """What to sweep. `hits="all"` is exhaustive; `"one"` takes a single hit per point (CI)."""

    points: tuple[str, ...] = POINTS
    seeds: int = 20
    workload: str = "random"
    hits: str = "all"
    raise_hits: str = "all"
    recovery_seeds: int = 20
    soak: int = 100
    naive_seeds: int = 20
    first_seed: int = 1


#: The bounded slice CI runs: every failpoint once (kill and raise), a few seeds of everything else.
CI = Plan(hits="one", raise_hits="one", seeds=2, recovery_seeds=1, soak=6, naive_seeds=2)


#: The PostgreSQL server of this sweep (`--db`), or None for SQLite files.
SERVER: dict[str, str | None] = {"url": None}


def count_hits(workload: str, seed: int, *, naive: bool = False) -> dict[str, int]:
    """Replay the plan unarmed-in-effect and report how many times each point is reached."""
    return _count_hits(workload, seed, naive, SERVER["url"])


@functools.cache  # the seeded, recovery and naive parts ask for the same seeds (on the same backend)
def _count_hits(workload: str, seed: int, naive: bool, server: str | None) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="chaos-count-") as tmp:
        extra = ("--mode", "count", "--naive") if naive else ("--mode", "count")
        store = stores.new_store(Path(tmp), server)
        try:
            child = spawn(store, Path(tmp), Spec("count", workload, seed), "", *extra)
        finally:
            stores.drop_store(store, server)
    counts = [a["counts"] for a in child.acks if a.get("op") == "counts"]
    if child.returncode != 0 or not counts:
        raise RuntimeError(f"the counting run of {workload}/{seed} failed: {child.stderr[-500:]}")
    return {str(k): int(v) for k, v in counts[0].items()}


def _hits(count: int, mode: str, rng: random.Random) -> list[int]:
    if count == 0:
        return []
    return list(range(1, count + 1)) if mode == "all" else [rng.randint(1, count)]


def exhaustive(plan: Plan, family: str, mode: str) -> Iterator[Spec]:
    """Every point x every hit (or one hit) of the small workload."""
    counts = count_hits("small", 0)
    rng = random.Random(f"{family}-small")
    for point in plan.points:
        for hit in _hits(counts.get(point, 0), mode, rng):
            yield Spec(family, "small", 0, point, hit)


def seeded(plan: Plan) -> Iterator[Spec]:
    """Every point x seeds of the larger random workload, one random hit each."""
    for seed in range(plan.first_seed, plan.first_seed + plan.seeds):
        counts = count_hits(plan.workload, seed)
        rng = random.Random(seed)
        for point in plan.points:
            for hit in _hits(counts.get(point, 0), "one", rng):
                yield Spec("kill", plan.workload, seed, point, hit)


def recovery(plan: Plan) -> Iterator[Spec]:
    """Kill with an intent open, then kill the restart at every recovery point, x seeds."""
    for seed in range(plan.first_seed, plan.first_seed + plan.recovery_seeds):
        counts = count_hits(plan.workload, seed)
        rng = random.Random(seed * 7919)
        for point in OPEN_INTENT_POINTS:
            for hit in _hits(counts.get(point, 0), "one", rng):
                for recovery_point in RECOVERY_POINTS:
                    yield Spec("recovery", plan.workload, seed, point, hit, recovery_point)


def soak(plan: Plan) -> Iterator[Spec]:
    rng = random.Random("soak")
    for n in range(plan.soak):
        yield Spec("soak", "long", plan.first_seed + n, delay=round(rng.uniform(*SOAK_SECONDS), 3))


def naive(plan: Plan) -> Iterator[Spec]:
    """The negative control: every hit of its release->write gap on small, one per random seed."""
    for hit in range(1, count_hits("small", 0, naive=True).get(HOOK, 0) + 1):
        yield Spec("naive", "small", 0, HOOK, hit)
    for seed in range(plan.first_seed, plan.first_seed + plan.naive_seeds):
        hits = _hits(count_hits(plan.workload, seed, naive=True).get(HOOK, 0), "one", random.Random(seed))
        yield from (Spec("naive", plan.workload, seed, HOOK, hit) for hit in hits)


def trials(plan: Plan) -> list[Spec]:
    specs: list[Spec] = [*exhaustive(plan, "kill", plan.hits), *seeded(plan)]
    if plan.raise_hits != "none":
        specs += exhaustive(plan, "raise", plan.raise_hits)
    wanted = set(plan.points)
    specs += [s for s in recovery(plan) if s.point in wanted or s.recovery_point in wanted]
    specs += soak(plan)
    specs += naive(plan)
    return specs


def execute(
    specs: Iterable[Spec], jobs: int, keep: Path | None, progress: Callable[[dict[str, Any]], None]
) -> list[dict[str, Any]]:
    """Run trials on `jobs` threads; each trial's real work happens in its own child process."""
    results: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(lambda s: run(s, keep, SERVER["url"]), specs):
            results.append(result)
            progress(result)
    return results
