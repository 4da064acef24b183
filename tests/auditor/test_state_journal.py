"""The audit state as a journal (`memoryos.audit-state/4`): a save appends only what changed."""

from __future__ import annotations

import hmac
import itertools
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor import audit
from auditor.bloom import Bloom
from auditor.incremental import IncrementalAudit
from auditor.state import STATE_SCHEMA, StateError, _SavedBloom, state_key
from tests.auditor.streams import Stream, later
from tests.auditor.test_incremental import KEY, append, at_line, verdicts
from tests.auditor.test_properties import PROPS, build, workloads


def grown(tmp_path: Path, cycles: int = 30) -> tuple[Stream, Path, Path]:
    """A stream of `cycles` healthy cycles and more, the first `cycles` of it audited and saved."""
    s = Stream(key=KEY)
    for _ in range(cycles):
        s.healthy_cycle()
    first = len(s.lines)
    for _ in range(3):
        s.healthy_cycle()
    path, state = tmp_path / "r.jsonl", tmp_path / "audit.state"
    s.write(path, s.lines[:first])
    auditor = IncrementalAudit([path], key=KEY, idle=20, sweep_every=4)
    auditor.check(at_line(s, first))
    auditor.save(state)
    return s, path, state


class TestAppending:
    def test_a_resumed_save_appends_to_the_file_instead_of_rewriting_it(self, tmp_path: Path) -> None:
        s, path, state = grown(tmp_path)
        before = state.read_bytes()
        auditor = IncrementalAudit.resume(state, [path], key=KEY)
        append(path, s.lines[path.read_bytes().count(b"\n") :])
        auditor.check(later(s))
        auditor.save(state)
        after = state.read_bytes()
        assert after.startswith(before)  # what was saved stays as it was: one record follows
        assert len(after) - len(before) < len(before) / 2
        full = audit(path, now=later(s), key=KEY)
        assert verdicts(IncrementalAudit.resume(state, [path], key=KEY).check(later(s))) == verdicts(full)

    def test_the_file_is_rewritten_whole_before_it_doubles(self, tmp_path: Path) -> None:
        s, path, state = grown(tmp_path, cycles=5)
        auditor = IncrementalAudit.resume(state, [path], key=KEY)
        base = state.stat().st_size
        sizes = []
        for _ in range(60):  # saves with nothing new: each delta holds the window again
            auditor.save(state)
            sizes.append(state.stat().st_size)
        assert max(sizes) <= 2 * base
        assert any(after < before for before, after in itertools.pairwise(sizes))
        assert verdicts(IncrementalAudit.resume(state, [path], key=KEY).check(later(s))) == verdicts(
            audit(path, now=later(s), key=KEY)
        )

    def test_a_file_written_by_another_audit_meanwhile_is_rewritten_not_appended_to(
        self, tmp_path: Path
    ) -> None:
        s, path, state = grown(tmp_path)
        mine = IncrementalAudit.resume(state, [path], key=KEY)
        other = IncrementalAudit.resume(state, [path], key=KEY)
        append(path, s.lines[path.read_bytes().count(b"\n") :])
        other.check(later(s))
        other.save(state)  # appended: the file is not the one `mine` read any more
        mine.check(later(s))
        mine.save(state)
        resumed = IncrementalAudit.resume(state, [path], key=KEY)  # verifies: one audit's state
        assert verdicts(resumed.check(later(s))) == verdicts(audit(path, now=later(s), key=KEY))


class TestDamage:
    def test_a_record_cut_short_by_a_crash_leaves_the_state_before_it(self, tmp_path: Path) -> None:
        s, path, state = grown(tmp_path)
        auditor = IncrementalAudit.resume(state, [path], key=KEY)
        append(path, s.lines[path.read_bytes().count(b"\n") :])
        auditor.check(later(s))
        saved = state.stat().st_size
        auditor.save(state)
        with state.open("r+b") as handle:  # the appended record, half written
            handle.truncate(saved + (state.stat().st_size - saved) // 2)
        resumed = IncrementalAudit.resume(state, [path], key=KEY)
        assert resumed._cursors[0].position < path.stat().st_size  # from the point before the append
        assert verdicts(resumed.check(later(s))) == verdicts(audit(path, now=later(s), key=KEY))
        resumed.save(state)  # the torn record is gone: the file is rewritten
        IncrementalAudit.resume(state, [path], key=KEY)

    def test_a_changed_byte_in_an_earlier_record_does_not_verify(self, tmp_path: Path) -> None:
        _, path, state = grown(tmp_path)
        auditor = IncrementalAudit.resume(state, [path], key=KEY)
        auditor.save(state)
        data = bytearray(state.read_bytes())
        data[len(data) // 4] ^= 1
        state.write_bytes(bytes(data))
        with pytest.raises(StateError, match="does not verify under its key"):
            IncrementalAudit.resume(state, [path], key=KEY)

    def test_a_dropped_record_in_the_middle_does_not_verify(self, tmp_path: Path) -> None:
        _, path, state = grown(tmp_path)
        sizes = [state.stat().st_size]
        auditor = IncrementalAudit.resume(state, [path], key=KEY)
        for _ in range(2):
            auditor.save(state)
            sizes.append(state.stat().st_size)
        assert sizes[0] < sizes[1] < sizes[2]  # three records: base, delta, delta
        data = state.read_bytes()
        state.write_bytes(data[: sizes[0]] + data[sizes[1] :])
        with pytest.raises(StateError, match="does not verify under its key"):
            IncrementalAudit.resume(state, [path], key=KEY)

    def test_a_state_of_the_previous_format_is_refused_with_the_fix(self, tmp_path: Path) -> None:
        _, path, _ = grown(tmp_path)
        state = tmp_path / "old.state"
        body = orjson.dumps({"settings": {}, "sources": [], "engine": {}})
        key = state_key(state, KEY, create=True)
        header = {"mac": hmac.digest(key, body, "sha256").hex(), "schema": "memoryos.audit-state/3"}
        state.write_bytes(orjson.dumps(header) + b"\n" + body)  # how /3 laid out its file
        with pytest.raises(StateError, match=r"is a memoryos\.audit-state/3 audit state") as caught:
            IncrementalAudit.resume(state, [path], key=KEY)
        assert "without --state" in str(caught.value) and "delete" in str(caught.value)
        assert STATE_SCHEMA == "memoryos.audit-state/4"


@PROPS
@given(workloads, st.data(), st.integers(1, 4))
def test_an_audit_saved_in_many_records_resumes_as_one_saved_whole(
    ops: list[str], data: st.DataObject, idle: int
) -> None:
    # The same audit is saved at every cut to two files: one resumed and appended to at each cut,
    # one always written anew. Both must resume to the report of a full audit at the end.
    s = build([*ops, "cycle", *ops, "cycle"])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(s.lines)), min_size=1, max_size=5)))
    now = later(s)
    with tempfile.TemporaryDirectory() as tmp:
        path, journal, whole = Path(tmp) / "r.jsonl", Path(tmp) / "j.state", Path(tmp) / "w.state"
        path.touch()
        auditor = IncrementalAudit([path], idle=idle, sweep_every=1)
        done = 0
        for cut in cuts:
            append(path, s.lines[done:cut])
            done = max(done, cut)
            auditor.check(at_line(s, done))
            auditor.save(journal)
            IncrementalAudit.resume(journal, [path]).save(whole.with_name(f"w{cut}.state"))
            auditor = IncrementalAudit.resume(journal, [path])
        append(path, s.lines[done:])
        full = audit(path, now=now)
        for state in (journal, whole.with_name(f"w{cuts[-1]}.state")):
            resumed = IncrementalAudit.resume(state, [path]).check(now)
            assert (resumed.verdict, resumed.counts, resumed.runs) == (full.verdict, full.counts, full.runs)


@given(
    st.lists(st.text(min_size=1, max_size=12), max_size=300),
    st.integers(0, 300),
    st.lists(st.text(max_size=12)),
)
def test_a_saved_filter_answers_and_dumps_as_the_filter_it_was_saved_from(
    ids: list[str], cut: int, asked: list[str]
) -> None:
    live = Bloom(capacity=16)  # small: the ids overflow it into larger filters
    for key in ids[:cut]:
        live.add(key)
    saved = _SavedBloom(*live.dump())
    for key in ids[cut:]:
        live.add(key)
        saved.add(key)
    assert saved.added == ids[cut:]
    assert [key in saved for key in [*ids, *asked]] == [key in live for key in [*ids, *asked]]
    assert saved.dump() == live.dump()
