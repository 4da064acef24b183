"""The chaos harness on PostgreSQL (`python -m chaos run --db postgresql://…`), a bounded slice: a
client process SIGKILLed (and a fault raised) at every failpoint of a promotion and of a
distillation, crashes inside the recovery that follows, a random-instant kill, and the negative
control. Each trial has a database of its own on the test server. The full sweep is a command
(README, chaos/README.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chaos import report
from chaos.sweep import SERVER, Plan, execute, trials
from memoryos.failpoints import POINTS
from tests.pg_server import require_postgres

#: Every failpoint of an STM -> MTM promotion and of an MTM -> LPM distillation.
PROMOTION_POINTS = tuple(p for p in POINTS if p.startswith(("stm_to_mtm.", "mtm_to_lpm.")))
SLICE = Plan(
    points=PROMOTION_POINTS, hits="one", raise_hits="one", seeds=1, recovery_seeds=1, soak=2, naive_seeds=0
)


@pytest.fixture(scope="module")
def results() -> Iterator[list[dict[str, Any]]]:
    SERVER["url"] = require_postgres()
    try:
        yield execute(trials(SLICE), jobs=2, keep=None, progress=lambda _: None)
    finally:
        SERVER["url"] = None


def test_every_promotion_and_distillation_failpoint_is_killed(results: list[dict[str, Any]]) -> None:
    killed = {r["point"] for r in results if r["family"] == "kill" and r["killed"]}
    assert killed == set(PROMOTION_POINTS)


def test_nothing_is_lost_duplicated_or_misreceipted_and_the_auditor_agrees(
    results: list[dict[str, Any]],
) -> None:
    failed = [
        {k: r[k] for k in ("family", "point", "hit", "seed", "bug", "findings", "audit", "verdict")}
        for r in results
        if r["family"] != "naive" and not r["ok"]
    ]
    assert failed == []
    facts = report.summary(results)
    assert (facts["lost"], facts["duplicated"], facts["receipt_mismatches"]) == (0, 0, 0)


def test_the_negative_control_loses_turns_on_postgresql_too_and_the_auditor_says_so(
    results: list[dict[str, Any]],
) -> None:
    facts = report.summary(results)
    assert facts["control_lossy"] > 0
    assert facts["control_caught"] == facts["control_lossy"]
