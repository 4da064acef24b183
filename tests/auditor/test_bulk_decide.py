"""The streaming sweep decides its idle runs together, and a unit that leaves the store is decided
only when there is something to decide: both must give what deciding everything one by one gives.

`Engine._decide_runs` counts a run with nothing to judge without judging it and puts the ids into the
filter of decided runs in one call. `OneByOne` is the reference: every run judged by
`_run_findings`, every id added on its own, the open runs scanned one at a time, every dropped
unit decided. On faulty streams, swept after every receipt, both give
the same findings (rule, state, receipts, reason), counts, next change, filter bits and
largest decided id.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from auditor.api import DEFAULT_GRACE, _times
from auditor.chains import Unordered
from auditor.engine import Engine, _Run
from auditor.judge import open_intents
from auditor.parse import parse_raw
from tests.auditor.streams import later
from tests.auditor.test_properties import PROPS, build, workloads


class OneByOne(Engine):
    """The reference decision: the front of the open runs taken one at a time, each idle run judged
    and remembered on its own (the sweep as it was before runs were decided together)."""

    def _sweep(self) -> None:
        limit = self._n - self._idle
        for _ in range(len(self._open)):
            run_id, run = next(iter(self._open.items()))
            if run.born >= limit:
                break
            if run.touched >= limit:
                self._open.move_to_end(run_id)
                continue
            del self._open[run_id]
            if run.promo is not None and open_intents(run.promo):
                self._held[run_id] = run
            else:
                self._decide_runs([run])

    def _drop(self, memory_id: str) -> None:  # every unit that leaves is decided, with or without work
        unit = self._units.pop(memory_id, None)
        if unit is not None:
            self._decide_unit(memory_id, unit, self._late)
        self._dropped_units.add(memory_id)
        self._max_unit = max(self._max_unit, memory_id)

    def _decide_runs(self, runs: list[_Run]) -> None:
        for run in runs:
            found = self._run_findings(run)
            self._runs += 1
            if found:
                self._closed[run.run_id] = found
            if self._ordered:
                self._decided_runs.add(run.run_id)
                self._max_run = max(self._max_run, run.run_id)


def _outcome(engine_type: type[Engine], lines: list[bytes], now: Any, idle: int) -> Any:
    engine = engine_type(_times(now, None, DEFAULT_GRACE), ordered=True, idle=idle, sweep_every=1)
    try:
        for line in lines:
            engine.feed(parse_raw(line, engine.last_link), "t")
    except Unordered:
        return "unordered"
    outcome = engine.finish()
    return (
        outcome.findings,
        (outcome.runs, outcome.receipts, outcome.lines, outcome.duplicates, outcome.next_change),
        engine._decided_runs.dump(),
        engine._max_run,
        engine._dropped_units.dump(),
        engine._max_unit,
        list(engine._held),
        list(engine._open),
    )


@PROPS
@given(workloads, st.integers(0, 5), st.integers(1, 3))
def test_deciding_runs_together_is_deciding_them_one_by_one(ops: list[str], idle: int, rounds: int) -> None:
    s = build([*ops, "cycle", *ops] * rounds)
    now = later(s, 0.1)  # some waiting windows still open: runs are held as well as decided
    fast = _outcome(Engine, s.lines, now, idle)
    assert fast == _outcome(OneByOne, s.lines, now, idle)
    assert fast != "unordered"


def test_the_sweep_decides_most_runs_of_a_long_stream() -> None:
    """The property above compares something: with idle 0 the sweep decides nearly every run."""
    s = build(["cycle", "store", "stale", "hung", "undeclared"] * 4)
    engine = Engine(_times(later(s), None, DEFAULT_GRACE), ordered=True, idle=0, sweep_every=1)
    for line in s.lines:
        engine.feed(parse_raw(line, engine.last_link), "t")
    assert engine._runs >= len(engine._open) + len(engine._held) and engine._runs > 10
    assert engine._closed, "some decided runs carry findings"
