"""What keeps a resumed audit cheap (issue 13): costs that do not grow with what was appended."""

from __future__ import annotations

import gc
import importlib.util
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor import audit
from auditor.engine import collector_paused
from auditor.incremental import IncrementalAudit
from auditor.state import STATE_SCHEMA, StateError
from tests.auditor.streams import Stream, later
from tests.auditor.test_incremental import KEY, append, at_line
from tests.auditor.test_properties import PROPS, build, workloads

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_auditor.py"


def test_what_a_paused_pass_keeps_is_not_walked_by_the_next_young_collection() -> None:
    # Without the hand-over, everything allocated during the pause is in generation 0 and the
    # first collection afterwards walks all of it: a tenth of a resumed audit.
    assert gc.isenabled()
    with collector_paused():
        kept = [[index] for index in range(20_000)]
    young = {id(obj) for generation in (0, 1) for obj in gc.get_objects(generation=generation)}
    assert not any(id(item) in young for item in kept)
    assert gc.isenabled()


def test_a_collector_disabled_by_the_caller_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@PROPS
@given(workloads, st.data(), st.integers(1, 4))
def test_decided_runs_resumed_with_their_saved_verdicts_report_as_in_a_full_audit(
    ops: list[str], data: st.DataObject, idle: int
) -> None:
    # The state keeps each decided run's verdict with its findings, and a resumed audit reports them
    # from there: the whole report (verdicts, findings and their order) must be the full audit's,
    # also when a later receipt adds a finding to a run decided before the cut.
    s = build([*ops, "cycle", *ops, "cycle"])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(s.lines)), min_size=1, max_size=4)))
    now = later(s)
    with tempfile.TemporaryDirectory() as tmp:
        path, state = Path(tmp) / "r.jsonl", Path(tmp) / "audit.state"
        path.touch()
        auditor = IncrementalAudit([path], idle=idle, sweep_every=1)
        done = 0
        for cut in cuts:
            append(path, s.lines[done:cut])
            done = max(done, cut)
            auditor.check(at_line(s, done))
            auditor.save(state)
            auditor = IncrementalAudit.resume(state, [path])
            decided = auditor._engine._closed
            assert set(auditor._results) == set(decided)  # the saved verdicts are in use
        append(path, s.lines[done:])
        resumed, full = auditor.check(now), audit(path, now=now)
        assert (resumed.verdict, resumed.counts, resumed.runs) == (full.verdict, full.counts, full.runs)


def test_a_state_of_the_previous_format_is_refused(tmp_path: Path) -> None:
    s = Stream(key=KEY)
    s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl")
    state = tmp_path / "audit.state"
    IncrementalAudit([path], key=KEY).save(state)
    head, _, body = state.read_bytes().partition(b"\n")
    state.write_bytes(head.replace(STATE_SCHEMA.encode(), b"memoryos.audit-state/3") + b"\n" + body)
    with pytest.raises(StateError, match=r"is a memoryos\.audit-state/3 audit state, which this auditor no"):
        IncrementalAudit.resume(state, [path], key=KEY)


def test_the_bench_reuses_a_kept_file_and_makes_the_states_afresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("bench_auditor", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    args = ["--receipts", "2000", "--repeat", "1", "--incremental-only", "--keep", str(tmp_path)]
    assert bench.main(args) == 0
    made = (tmp_path / "bench.jsonl").stat().st_mtime_ns
    (tmp_path / "seed.state").write_bytes(b"not a state")  # a state left by other code
    assert bench.main(args) == 0
    assert (tmp_path / "bench.jsonl").stat().st_mtime_ns == made
    assert capsys.readouterr().out.count("same verdicts: True") == 2
