"""Workloads as data: a seeded list of operations that the child replays against a fresh store.

A plan is a pure function of (workload name, seed), so the parent can rebuild exactly what the child
ran without talking to it. Capacities are tiny so that every boundary (STM -> MTM, MTM -> LPM, MTM
and LPM eviction, expiry, forget, decay, export, recovery) is crossed many times in a few dozen steps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

#: Small capacities make every boundary happen often; the fake clock makes idleness and heat happen.
CONFIG: dict[str, Any] = {
    "stm_capacity": 3,
    "stm_idle_seconds": 600.0,
    "mtm_capacity": 4,
    "lpm_list_capacity": 3,
    "heat_threshold": 3.0,
    # Small enough that topics fill segments and distillations leave a backlog: the kills then land
    # in incremental distillation and in placement past a full segment too.
    "segment_max_pages": 4,
    "distill_batch_pages": 2,
    "intent_grace_seconds": 300.0,
    "stale_after_days": 1.0,
    "retired_after_days": 2.0,
}
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
USERS = (("alice", "coder"), ("bob", "coder"))
TOPICS = (
    "deploy release pipeline makefile staging",
    "espresso grinder beans roast crema",
    "python typing mypy strict protocol",
    "garden tomatoes basil compost soil",
    "train tickets berlin platform timetable",
    "invoice budget ledger quarterly taxes",
    "violin practice scales etude bow",
)
WORKLOADS = ("small", "random", "long")


@dataclass(frozen=True)
class Op:
    """One step. `kind` selects the Memory call; the other fields are its arguments as data."""

    kind: str  # remember | put | correct | forget_key | forget_turn | recall | get | maintain | export | tick
    scope: int = 0
    text: str = ""
    key: str = ""
    role: str = "user"
    ttl: float | None = None
    seconds: float = 0.0


class FakeClock:
    """A clock the workload moves explicitly, so a plan's times do not depend on machine speed."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _sentence(rng: random.Random, topic: int, n: int) -> str:
    words = TOPICS[topic].split()
    rng.shuffle(words)
    lead = rng.choice(("I like", "We discussed", "Remember that", "Note:", "I prefer"))
    return f"{lead} {' '.join(words[:4])} item{n}."


def small() -> list[Op]:
    """A fixed script that crosses every boundary at least once, for the exhaustive sweep."""
    rng = random.Random(7)
    ops: list[Op] = []
    for n in range(4):  # fills STM: the 3rd turn promotes, the 4th starts again
        ops += [Op("remember", 0, _sentence(rng, 0, n)), Op("tick", seconds=5)]
    ops += [Op("recall", 0, "deploy pipeline"), Op("recall", 0, "release staging")]
    ops += [Op("put", 0, "rule body one", key="deploy:blyck"), Op("tick", seconds=5)]
    ops += [Op("correct", 0, "rule body two", key="deploy:blyck"), Op("tick", seconds=5)]
    ops += [Op("remember", 0, _sentence(rng, 0, 9), role="assistant", ttl=30.0), Op("tick", seconds=5)]
    ops += [
        Op("remember", 0, _sentence(rng, n % 7, 10 + n)) for n in range(1, 6)
    ]  # new segments: MTM eviction
    ops += [Op("forget_turn", 0), Op("tick", seconds=700), Op("maintain"), Op("export")]
    ops += [Op("remember", 1, _sentence(rng, 2, 20), ttl=30.0), Op("forget_key", 0, key="deploy:blyck")]
    for n in range(8):  # one hot topic, distilled again and again: the LPM lists overflow
        # distinct facts of one topic (a restated one would only be reinforced); distillation runs
        # in maintain(), never inside remember() (issue 15)
        fact = f"I like {TOPICS[1].split()[n % 5]} espresso from roaster{n} in town{n}."
        ops += [Op("remember", 1, fact), Op("recall", 1, "espresso crema"), Op("maintain")]
    ops += [Op("tick", seconds=3 * 86_400), Op("maintain"), Op("export")]
    return ops


def random_plan(seed: int, length: int = 60) -> list[Op]:
    """A longer seeded mix of every operation, for the seeded part of the sweep."""
    rng = random.Random(seed)
    ops: list[Op] = []
    for n in range(length):
        roll = rng.random()
        scope = rng.randrange(len(USERS))
        if roll < 0.5:
            ttl = rng.choice((None, None, None, 40.0))
            role = rng.choice(("user", "user", "assistant"))
            ops.append(
                Op("remember", scope, _sentence(rng, rng.randrange(len(TOPICS)), n), role=role, ttl=ttl)
            )
        elif roll < 0.62:
            ops.append(Op("recall", scope, " ".join(TOPICS[rng.randrange(len(TOPICS))].split()[:2])))
        elif roll < 0.7:
            key = f"fact:{rng.randrange(4)}"
            ops.append(Op("put", scope, f"value {rng.randrange(3)}", key=key))
        elif roll < 0.74:
            ops.append(Op("correct", scope, f"fixed {n}", key=f"fact:{rng.randrange(4)}"))
        elif roll < 0.77:
            ops.append(Op("forget_key", scope, key=f"fact:{rng.randrange(4)}"))
        elif roll < 0.8:
            ops.append(Op("forget_turn", scope))
        elif roll < 0.84:
            ops.append(Op("get", scope, key=f"fact:{rng.randrange(4)}"))
        elif roll < 0.92:
            ops.append(Op("maintain"))
        elif roll < 0.95:
            ops.append(Op("export"))
        ops.append(Op("tick", seconds=rng.choice((1.0, 10.0, 60.0, 700.0))))
    return ops


def plan(workload: str, seed: int) -> list[Op]:
    if workload == "small":
        return small()
    if workload == "random":
        return random_plan(seed)
    if workload == "long":  # the external-kill soak: long enough that a random instant lands mid-work
        return random_plan(seed, length=400)
    raise ValueError(f"unknown workload {workload!r}: choose one of {', '.join(WORKLOADS)}")


def end_time(ops: list[Op]) -> datetime:
    """Where the fake clock stands after the whole plan (the parent's clock starts no earlier)."""
    return EPOCH + timedelta(seconds=sum(op.seconds for op in ops if op.kind == "tick"))
