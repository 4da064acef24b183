"""Incremental auditing (issue 13): resuming from a state reaches the verdicts of one full audit."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoryos
from auditor import Report, audit
from auditor.incremental import IncrementalAudit
from auditor.state import StateError
from memoryos.testing import FakeClock
from receipts import format_utc, parse_utc, read_key_file
from tests.auditor.streams import Stream, later
from tests.auditor.test_properties import PROPS, build, workloads

KEY = bytes(range(32))


def verdicts(report: Report) -> tuple[dict[str, str], dict[str, int], int]:
    return {r.run_id: r.verdict for r in report.runs}, dict(report.counts), report.receipts


def at_line(stream: Stream, count: int) -> datetime:
    """A moment just after the first `count` receipts were written."""
    if count == 0:
        return parse_utc(stream.receipts[0]["atUtc"])
    return parse_utc(stream.receipts[count - 1]["atUtc"]) + timedelta(seconds=30)


def append(path: Path, lines: list[bytes]) -> None:
    with path.open("ab") as out:
        out.write(b"".join(line + b"\n" for line in lines))


@PROPS
@given(workloads, st.data(), st.integers(1, 8), st.integers(1, 3), st.booleans())
def test_auditing_in_any_number_of_increments_gives_the_full_audits_verdicts(
    ops: list[str], data: st.DataObject, idle: int, sweep: int, through_a_file: bool
) -> None:
    s = build([*ops, "cycle", *ops])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(s.lines)), max_size=5)))
    now = data.draw(st.sampled_from([s.clock + timedelta(minutes=10), later(s)]))
    with tempfile.TemporaryDirectory() as tmp:
        path, state = Path(tmp) / "r.jsonl", Path(tmp) / "audit.state"
        path.touch()
        auditor = IncrementalAudit([path], idle=idle, sweep_every=sweep)
        done = 0
        for cut in cuts:  # each increment is audited as it arrives, on the clock of that moment
            append(path, s.lines[done:cut])
            done = max(done, cut)
            auditor.check(at_line(s, done))
            if through_a_file:  # a new process each time: save, then resume from the file
                auditor.save(state)
                auditor = IncrementalAudit.resume(state, [path])
        append(path, s.lines[done:])
        report = auditor.check(now)
        assert verdicts(report) == verdicts(audit(path, now=now))


def test_a_resumed_audit_reads_only_what_was_appended(tmp_path: Path) -> None:
    s = Stream()
    for _ in range(3):
        s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl")
    first = IncrementalAudit([path])
    assert first.check(later(s)).receipts == len(s.lines)
    first.save(tmp_path / "state")
    before = len(s.lines)
    s.healthy_cycle()
    append(path, s.lines[before:])
    resumed = IncrementalAudit.resume(tmp_path / "state", [path])
    report = resumed.check(later(s))
    assert report.verdict == "healthy" and report.receipts == len(s.lines)
    assert resumed._engine._lines == len(s.lines)  # the old lines were not read again
    assert resumed._cursors[0].lines == len(s.lines)


def test_a_half_written_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in s.lines[:-1]) + s.lines[-1][:20])
    auditor = IncrementalAudit([path])
    assert auditor.check(later(s)).receipts == len(s.lines) - 1
    with path.open("ab") as out:
        out.write(s.lines[-1][20:] + b"\n")
    report = auditor.check(later(s))
    assert report.receipts == len(s.lines) and report.verdict == "healthy"


class TestRefusals:
    def setup_stream(self, tmp_path: Path, key: bytes | None = None) -> tuple[Stream, Path, Path]:
        s = Stream(key=key)
        s.healthy_cycle()
        path, state = s.write(tmp_path / "r.jsonl"), tmp_path / "audit.state"
        auditor = IncrementalAudit([path], key=key)
        auditor.check(later(s))
        auditor.save(state)
        return s, path, state

    def test_a_state_that_was_changed_does_not_verify(self, tmp_path: Path) -> None:
        _, path, state = self.setup_stream(tmp_path)
        header, body = state.read_bytes().split(b"\n", 1)
        state.write_bytes(header + b"\n" + body.replace(b'"idle":50000', b'"idle":50001'))
        with pytest.raises(StateError, match="does not verify under its key"):
            IncrementalAudit.resume(state, [path])

    def test_a_state_under_another_receipt_key_does_not_verify(self, tmp_path: Path) -> None:
        _, path, state = self.setup_stream(tmp_path, key=KEY)
        with pytest.raises(StateError, match="does not verify under its key"):
            IncrementalAudit.resume(state, [path], key=bytes(32))

    def test_a_state_of_another_file_is_refused(self, tmp_path: Path) -> None:
        _, _, state = self.setup_stream(tmp_path)
        other = Stream(chain="store-2")
        other.healthy_cycle()
        with pytest.raises(StateError, match="other sources"):
            IncrementalAudit.resume(state, [other.write(tmp_path / "other.jsonl")])

    def test_a_file_replaced_by_another_chain_is_refused(self, tmp_path: Path) -> None:
        _, path, state = self.setup_stream(tmp_path)
        other = Stream(chain="store-2")
        other.healthy_cycle()
        other.write(path)
        with pytest.raises(StateError, match="starts with another line"):
            IncrementalAudit.resume(state, [path]).check()

    def test_a_file_rewritten_below_the_resume_point_is_refused(self, tmp_path: Path) -> None:
        s, path, state = self.setup_stream(tmp_path)
        s.write(path, s.lines[:-1])
        with pytest.raises(StateError, match="no longer holds the lines already audited"):
            IncrementalAudit.resume(state, [path]).check()

    def test_other_options_are_refused(self, tmp_path: Path) -> None:
        _, path, state = self.setup_stream(tmp_path)
        with pytest.raises(StateError, match="other options"):
            IncrementalAudit.resume(state, [path], grace=timedelta(minutes=1))

    def test_a_file_that_is_not_a_state_is_refused(self, tmp_path: Path) -> None:
        _, path, state = self.setup_stream(tmp_path)
        state.write_bytes(orjson.dumps({"schema": "memoryos.audit-state/0"}) + b"\n{}")
        with pytest.raises(StateError, match=r"is not a memoryos\.audit-state/4"):
            IncrementalAudit.resume(state, [path])


class TestThroughTheCommandLine:
    def run_cli(self, *argv: str) -> tuple[int, dict[str, object], str]:
        done = subprocess.run(
            [sys.executable, "-m", "auditor", "check", *argv, "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.returncode, json.loads(done.stdout or "{}"), done.stderr

    def test_check_with_a_state_resumes_and_agrees_with_a_full_check(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        path, state = s.write(tmp_path / "r.jsonl"), tmp_path / "audit.state"
        now = ["--now", format_utc(later(s, 24))]
        code, first, _ = self.run_cli(str(path), "--state", str(state), *now)
        assert code == 0 and first["receipts"] == len(s.lines) and state.exists()
        before = len(s.lines)
        _, turn = s.store()
        s.promote([turn], status="started", source_present=True)  # hangs: promotion_missing
        append(path, s.lines[before:])
        code, resumed, _ = self.run_cli(str(path), "--state", str(state), *now)
        code_full, full, _ = self.run_cli(str(path), *now)
        assert (code, resumed["verdict"], resumed["runs"]) == (code_full, full["verdict"], full["runs"])
        assert resumed["verdict"] == "promotion_missing"

    def test_a_state_that_does_not_verify_is_a_clear_error(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        path, state = s.write(tmp_path / "r.jsonl"), tmp_path / "audit.state"
        assert self.run_cli(str(path), "--state", str(state))[0] == 0
        state.write_bytes(state.read_bytes()[:-1] + b" ")
        code, _, err = self.run_cli(str(path), "--state", str(state))
        assert code == 2 and "does not verify under its key" in err and "Traceback" not in err

    def test_a_maximum_age_cannot_be_combined_with_a_state(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        path = s.write(tmp_path / "r.jsonl")
        code, _, err = self.run_cli(str(path), "--state", str(tmp_path / "st"), "--max-age", "7d")
        assert code == 2 and "cannot be combined with a state" in err


def test_a_real_store_is_audited_in_increments_like_in_full(tmp_path: Path) -> None:
    db, state = tmp_path / "memory.db", tmp_path / "audit.state"
    clock = FakeClock()
    alice = memoryos.Scope(user="alice", assistant="coder")
    key_file = db.with_name(db.name + ".receipt-key")
    reports = []
    for round_ in range(3):
        with memoryos.open(db, clock=clock) as mem:
            for i in range(5):
                mem.remember(alice, f"round {round_} note {i} about the blyck release")
            res = mem.recall(alice, "blyck release", k=3)
            mem.generated(alice, res.run_id, depends_on=[h.ref for h in res.hits])
        key = read_key_file(key_file)
        now = clock() + timedelta(minutes=1)
        reports.append(audit([], now=now, key=key, stores=[db], state=state))
        full = audit([], now=now, key=key, stores=[db])
        assert verdicts(reports[-1]) == verdicts(full)
    assert reports[-1].receipts > reports[0].receipts


@pytest.mark.parametrize("minutes", [[1, 2, 40], [4, 6, 29, 31], [1, 90]])
def test_a_held_report_changes_when_the_clock_crosses_a_window_without_new_receipts(
    tmp_path: Path, minutes: list[int]
) -> None:
    s = Stream()
    s.store()  # a turn waiting in STM for 30 minutes
    _, turn = s.store()
    s.promote([turn], status="started", source_present=True)  # an intent with a 5-minute grace
    path = s.write(tmp_path / "r.jsonl")
    auditor = IncrementalAudit([path])
    for minute in minutes:
        now = s.clock + timedelta(minutes=minute)
        assert verdicts(auditor.check(now)) == verdicts(audit(path, now=now)), minute


def test_a_gzip_file_that_grows_by_members_is_resumed(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    path, state = tmp_path / "r.jsonl.gz", tmp_path / "audit.state"
    path.write_bytes(gzip.compress(b"".join(line + b"\n" for line in s.lines)))
    audit(path, now=later(s), state=state)
    before = len(s.lines)
    s.healthy_cycle()
    with path.open("ab") as out:  # a second gzip member, as `gzip >>` appends
        out.write(gzip.compress(b"".join(line + b"\n" for line in s.lines[before:])))
    report = audit(path, now=later(s), state=state)
    assert verdicts(report) == verdicts(audit(path, now=later(s)))
    assert report.receipts == len(s.lines) and report.verdict == "healthy"


def test_findings_about_a_source_are_reported_once_however_often_it_is_checked(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl", [b"not json", *s.lines])
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    auditor = IncrementalAudit([path, empty])
    for _ in range(3):  # each check reads something new, so each builds its report afresh
        report = auditor.check(later(s))
        rules = sorted(f.rule for r in report.runs for f in r.findings)
        assert rules == ["evidence.unreadable", "evidence.unreadable"]
        start = len(s.lines)
        s.healthy_cycle()
        append(path, s.lines[start:])


def test_a_late_finding_for_a_reported_run_reaches_the_next_report(tmp_path: Path) -> None:
    s = Stream(key=KEY)
    _, turn = s.store()
    s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl")
    auditor = IncrementalAudit([path], key=KEY)
    now = s.clock + timedelta(minutes=1)
    assert auditor.check(now).verdict == "waiting"
    s.promote([turn], status="failed", source_present=False)  # releases the source, no destination
    append(path, s.lines[-1:])
    now = s.clock + timedelta(minutes=1)
    after = auditor.check(now)
    assert verdicts(after) == verdicts(audit(path, now=now, key=KEY))
    assert after.verdict == "source_at_risk"
