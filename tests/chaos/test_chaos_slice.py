"""The bounded chaos slice CI runs: every failpoint once (kill and raise), a few seeds of the random
workload, recovery crashes, an external-kill soak and the negative control. Fails on any loss."""

from __future__ import annotations

from typing import Any

import pytest

from chaos import report
from chaos.sweep import CI, execute, trials
from memoryos.failpoints import POINTS


@pytest.fixture(scope="module")
def results() -> list[dict[str, Any]]:
    return execute(trials(CI), jobs=2, keep=None, progress=lambda _: None)


def test_every_failpoint_is_killed_at_least_once(results: list[dict[str, Any]]) -> None:
    killed = {r["point"] for r in results if r["family"] == "kill" and r["killed"]}
    assert killed == set(POINTS)


def test_memoryos_loses_duplicates_and_misreceipts_nothing(results: list[dict[str, Any]]) -> None:
    failed = [r for r in results if r["family"] != "naive" and not r["ok"]]
    assert failed == []
    facts = report.summary(results)
    assert (facts["lost"], facts["duplicated"], facts["receipt_mismatches"]) == (0, 0, 0)


def test_the_negative_control_loses_turns_and_the_auditor_says_so(results: list[dict[str, Any]]) -> None:
    facts = report.summary(results)
    assert facts["control_lossy"] > 0
    assert facts["control_caught"] == facts["control_lossy"]
