"""Property tests: verdicts do not depend on order, duplicates, or unrelated healthy activity."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import Report, audit
from auditor.api import DEFAULT_GRACE, _times
from auditor.chains import Unordered
from auditor.engine import Engine
from auditor.parse import _valid, parse_raw
from auditor.states import rank
from receipts import problems, uuid7
from tests.auditor.streams import ALICE, BOB, Stream, later

OPS = (
    "cycle",
    "store",
    "foreign_recall",
    "stale",
    "undeclared",
    "failed_release",
    "hung",
    "foreign_promotion",
)
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(ops: Sequence[str]) -> Stream:
    """A realistic stream with the faults named by `ops` seeded in."""
    s = Stream()
    for op in ops:
        if op == "cycle":
            s.healthy_cycle()
        elif op == "store":
            s.store()
        elif op in {"foreign_recall", "stale", "undeclared", "foreign_promotion"}:
            _, turn = s.store()
            _, (page,) = s.promote([turn], BOB if op == "foreign_promotion" else ALICE)
            if op == "stale":
                s.correct(page, 2)
            scope = BOB if op == "foreign_recall" else ALICE
            recall = s.recall([(page, 1)], scope)
            s.generate(recall, None if op == "undeclared" else [f"{page}@1"], scope)
        else:  # a promotion that fails after releasing its source, or hangs after starting
            _, turn = s.store()
            failed = op == "failed_release"
            s.promote([turn], status="failed" if failed else "started", source_present=not failed)
    return s


def audit_lines(lines: Sequence[bytes], now: datetime) -> Report:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        return audit(path, now=now)


def verdicts(report: Report) -> tuple[dict[str, str], dict[str, int]]:
    return {r.run_id: r.verdict for r in report.runs}, dict(report.counts)


workloads = st.lists(st.sampled_from(OPS), min_size=1, max_size=6)


@PROPS
@given(workloads, st.randoms(use_true_random=False), st.integers(0, 1))
def test_the_order_of_receipts_does_not_change_verdicts(ops: list[str], rnd: Any, hours: int) -> None:
    s = build(ops)
    now = s.clock + timedelta(minutes=10) if hours == 0 else later(s)
    shuffled = list(s.lines)
    rnd.shuffle(shuffled)
    assert verdicts(audit_lines(shuffled, now)) == verdicts(audit_lines(s.lines, now))


@PROPS
@given(workloads, st.data())
def test_duplicating_any_receipt_changes_nothing(ops: list[str], data: st.DataObject) -> None:
    s = build(ops)
    index = data.draw(st.integers(0, len(s.lines) - 1))
    where = data.draw(st.integers(0, len(s.lines)))
    doubled = [*s.lines[:where], s.lines[index], *s.lines[where:]]
    baseline = audit_lines(s.lines, later(s))
    report = audit_lines(doubled, later(s))
    assert verdicts(report) == verdicts(baseline)
    assert report.duplicates == 1


@PROPS
@given(workloads, st.integers(1, 3))
def test_appending_healthy_runs_never_lowers_another_runs_verdict(ops: list[str], cycles: int) -> None:
    s = build(ops)
    now = later(s, 24)
    before = audit_lines(s.lines, now)
    for _ in range(cycles):
        s.healthy_cycle()
    after = audit_lines(s.lines, now)
    for result in before.runs:
        assert rank(after.verdict_of(result.run_id)) <= rank(result.verdict)
    assert rank(after.verdict) <= rank(before.verdict)


@PROPS
@given(workloads, st.sampled_from(["started", "waiting"]), st.integers(1, 3))
def test_removing_the_committed_destination_of_a_released_source_is_source_at_risk(
    ops: list[str], intent: str, turns: int
) -> None:
    s = build(ops)
    sources = [s.store()[1] for _ in range(turns)]
    run, destination = uuid7(), uuid7()
    common: dict[str, Any] = {
        "runId": run,
        "boundary": "stm_to_mtm",
        "fromTier": "stm",
        "toTier": "mtm",
        "version": 1,
    }
    refs = [f"{t}@1" for t in sources]
    wait: dict[str, Any] = {"waitUntilUtc": "2099-01-01T00:00:00.000000Z"} if intent == "waiting" else {}
    s.emit(**common, memoryId=destination, derivedFrom=refs, status=intent, sourcePresent=False, **wait)
    s.emit(**common, memoryId=destination, derivedFrom=refs, sourcePresent=False)
    assert audit_lines(s.lines, later(s)).verdict_of(run) != "source_at_risk"
    assert audit_lines(s.lines[:-1], later(s)).verdict_of(run) == "source_at_risk"


@PROPS
@given(workloads, st.integers(1, 6))
def test_the_streaming_pass_agrees_with_the_exact_pass(ops: list[str], idle: int) -> None:
    s = build([*ops, "cycle", *ops])
    times = _times(later(s), None, DEFAULT_GRACE)
    results = []
    for ordered in (True, False):
        engine = Engine(times, ordered=ordered, idle=idle)
        try:
            for line in s.lines:
                engine.feed(parse_raw(line, engine.last_link), "t")
        except Unordered:
            return  # the streaming pass declined; audit() then uses the exact one
        outcome = engine.finish()
        results.append(
            ({run: sorted(f.rule for f in found) for run, found in outcome.findings.items()}, outcome.runs)
        )
    assert results[0] == results[1]


valid_receipt = Stream().emit(runId=uuid7(), boundary="retrieve", memoryId=uuid7(), version=1)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([*sorted(valid_receipt), "extra"]), json_values)
def test_the_cheap_validator_never_accepts_what_problems_rejects(field: str, value: object) -> None:
    mutated = {**valid_receipt, field: value}
    if _valid(mutated):
        assert problems(mutated) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300) | json_values.map(orjson.dumps), max_size=8))
def test_junk_never_crashes_the_auditor(junk: list[bytes]) -> None:
    lines = [line.replace(b"\n", b" ") for line in junk]
    report = audit_lines(lines, later(Stream()))
    assert report.verdict == "uncertain"
    assert isinstance(report.to_json(), bytes)
    assert report.to_text()


@pytest.mark.parametrize("field", ["boundary", "status", "fromTier", "toTier"])
def test_a_list_where_a_code_belongs_is_a_finding_not_a_crash(field: str) -> None:
    line = orjson.dumps({**valid_receipt, field: ["retrieve"], "reason": "capacity"})
    assert audit_lines([line], later(Stream())).verdict == "uncertain"
