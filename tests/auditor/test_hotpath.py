"""The engine's hot path (auditor.engine.Engine._take and _boundary, written out for speed) against
the same engine asked at every step: findings, not only verdicts, must not depend on when the
engine is asked, and what a receipt brings must land on its own run."""

from __future__ import annotations

from datetime import timedelta

import orjson
from hypothesis import given
from hypothesis import strategies as st

from auditor.engine import Engine, Outcome
from auditor.judge import Times
from auditor.parse import parse_raw
from receipts import format_utc, uuid7
from tests.auditor.streams import ALICE, BOB, Stream, later
from tests.auditor.test_properties import PROPS, build, workloads

KEY = bytes(range(32))


def _times(stream: Stream) -> Times:
    now = later(stream)
    return Times(format_utc(now), format_utc(now - timedelta(minutes=5)), None)


def _outcome(lines: list[bytes], times: Times, *, ordered: bool, ask_every: int = 0) -> Outcome:
    engine = Engine(times, KEY, ordered=ordered, idle=3, sweep_every=2)
    for index, line in enumerate(lines, 1):
        engine.feed(parse_raw(line, engine.last_link), f"r:{index}")
        if ask_every and index % ask_every == 0:
            engine.finish()  # changes nothing: the memo of each run must be cleared by what comes next
    return engine.finish()


def _findings(outcome: Outcome) -> dict[str, list[tuple[str, tuple[str | None, ...], str]]]:
    return {
        run: sorted((f.rule, f.receipt_ids, f.reason) for f in found)
        for run, found in outcome.findings.items()
    }


@PROPS
@given(workloads, st.integers(1, 4), st.booleans())
def test_findings_do_not_depend_on_when_the_engine_is_asked(
    ops: list[str], every: int, ordered: bool
) -> None:
    s = build([*ops, "cycle", *ops])
    s.key = KEY
    s = _resealed(s)
    times = _times(s)
    once = _outcome(s.lines, times, ordered=ordered)
    assert _findings(_outcome(s.lines, times, ordered=ordered, ask_every=every)) == _findings(once)


def _resealed(s: Stream) -> Stream:
    """The same receipts, sealed under KEY (build() writes them without a key)."""
    out = Stream(key=KEY, start=s.clock)
    for receipt in s.receipts:
        draft = {
            k: v
            for k, v in receipt.items()
            if k not in {"receiptId", "seq", "prev", "mac", "chainId", "atUtc", "schema"}
        }
        out.emit(at=receipt["atUtc"], **draft)
    return out


def test_a_broken_link_is_found_on_the_run_of_its_receipt_not_the_next() -> None:
    s = Stream(key=None)
    s.store()
    s.store()  # the receipt whose prev is broken below: its own run
    s.store(BOB)  # the next receipt, of another run
    broken = orjson.loads(s.lines[1])
    broken["prev"] = "f" * 64
    lines = [s.lines[0], orjson.dumps(broken, option=orjson.OPT_SORT_KEYS), s.lines[2]]
    outcome = _outcome(lines, _times(s), ordered=True)
    chain = {
        f.reason.split()[3]: run
        for run, found in outcome.findings.items()
        for f in found
        if f.rule == "evidence.chain"
    }  # "prev of seq N ...": seq 2 is the broken receipt, seq 3 no longer links to its new hash
    third = orjson.loads(s.lines[2])
    assert chain == {"2": broken["runId"], "3": third["runId"]}


def test_the_earliest_creator_names_a_units_scope_when_it_comes_second() -> None:
    """Two creating receipts of one unit in one scope, the one with the lower version second: the
    unit's creator is that one, so a receipt in another scope is held against it."""
    s = Stream(key=KEY)
    unit = "01943aa0-bc00-7000-8000-00000000aaaa"
    for version in (2, 1):
        s.emit(ALICE, runId=uuid7(), boundary="correct", toTier="lpm", memoryId=unit, version=version)
    s.emit(BOB, runId=uuid7(), boundary="retrieve", fromTier="lpm", memoryId=unit, version=1)
    outcome = _outcome(s.lines, _times(s), ordered=False)
    lineage = [f for found in outcome.findings.values() for f in found if f.rule == "scope.lineage"]
    creator = s.receipts[1]["receiptId"]
    assert [f.receipt_ids[1] for f in lineage] == [creator]
