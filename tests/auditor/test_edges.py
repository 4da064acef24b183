"""The auditor at the edges (issue 11): deleted newest receipts, MACs by default, absurd clock and
duration arguments, a store on a read-only mount, and what `report --html` says.

Every test audits a real store written by memoryos, through the real command line in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import orjson
import pytest

import memoryos
from auditor.states import RULES, rank
from auditor.stores import check_head, compare_head
from memoryos.testing import FakeClock
from receipts import compute_mac, format_utc, link_hash, read_key_file, read_outbox
from receipts.head import Head, HeadFile, head_path

ROOT = Path(__file__).resolve().parents[2]  # where `tests` imports from, for child processes
START = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
ALICE = memoryos.Scope(user="alice", assistant="coder")
NOW = format_utc(START + timedelta(hours=2))


# ---- helpers -------------------------------------------------------------------------------------
def make_store(db: Path, turns: int = 12) -> Path:
    """A real store: turns remembered, STM promoted, a record put and corrected."""
    clock = FakeClock(start=START, tick=timedelta(0))
    with memoryos.open(db, clock=clock) as mem:
        for index in range(turns):
            mem.remember(ALICE, f"note number {index} about the blyck release train", role="user")
            clock.advance(seconds=10)
        mem.put(ALICE, "deploy:blyck", "make release", kind="capability")
        clock.advance(seconds=10)
        mem.correct(ALICE, "deploy:blyck", "make release after migrating staging")
        clock.advance(hours=1)
        mem.maintain()
    return db


def outbox(db: Path) -> list[dict[str, Any]]:
    return [line.receipt for line in read_outbox(db) if line.receipt is not None]


def store_key(db: Path) -> bytes:
    return read_key_file(db.with_name(db.name + ".receipt-key"))


def untouched_outbox(db: Path) -> list[dict[str, Any]]:
    """The outbox of a cleanly closed store, read without leaving `-wal`/`-shm` files beside it."""
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        rows = conn.execute("SELECT body FROM receipt_outbox ORDER BY seq").fetchall()
    finally:
        conn.close()
    return [orjson.loads(body) for (body,) in rows]


def mark_head(db: Path, key: bytes | None = None, receipts: Sequence[dict[str, Any]] | None = None) -> Head:
    """Write the store's head mark as the store does after a commit: its last receipt's seq and link."""
    last = (outbox(db) if receipts is None else receipts)[-1]
    head = Head(last["chainId"], last["seq"], link_hash(last))
    writer = HeadFile(db, store_key(db) if key is None else key)
    try:
        writer.write(head)
    finally:
        writer.close()
    return head


def execute(db: Path, sql: str, params: Sequence[object] = ()) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def audit_cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "auditor", *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def check_json(db: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    done = audit_cli("check", "--db", str(db), "--now", NOW, "--format", "json", *extra)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def at_least_uncertain(report: dict[str, Any]) -> bool:
    return rank(report["verdict"]) <= rank("uncertain")


def rules_of(report: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for run in report["runs"]:
        for f in run["findings"]:
            found.setdefault(f["rule"], []).append(f["reason"])
    return found


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return make_store(tmp_path / "agent.db")


# ---- item 6: the head mark -----------------------------------------------------------------------
class TestHeadMark:
    def test_an_intact_store_with_its_mark_audits_as_before_and_says_so(self, store: Path) -> None:
        head = mark_head(store)
        code, report = check_json(store)
        assert report["verdict"] in {"healthy", "waiting"}, report["runs"]
        assert code in {0, 1}
        assert any(f"head mark (seq {head.seq}) matches" in note for note in report["notes"])

    def test_deleting_the_newest_receipts_is_found_and_names_the_missing_seqs(self, store: Path) -> None:
        head = mark_head(store)
        execute(store, "DELETE FROM receipt_outbox WHERE seq > ?", (head.seq - 3,))
        code, report = check_json(store)
        assert at_least_uncertain(report), report["runs"]  # the lost promotions show too
        assert code == 3
        (reason,) = rules_of(report)["evidence.truncated"]
        assert f"seqs {head.seq - 2}..{head.seq} (3 receipts) missing" in reason

    def test_deleting_every_receipt_is_found(self, store: Path) -> None:
        head = mark_head(store)
        execute(store, "DELETE FROM receipt_outbox")
        _, report = check_json(store)
        assert at_least_uncertain(report)
        (reason,) = rules_of(report)["evidence.truncated"]
        assert f"seqs 1..{head.seq}" in reason

    def test_a_deleted_wal_after_a_crash_is_found(self, store: Path) -> None:
        """The issue's probe: a host dies with commits still in the -wal, and the -wal is lost."""
        crash = (
            "import os, sys, memoryos\n"
            "from tests.auditor.test_edges import ALICE, mark_head\n"
            "from pathlib import Path\n"
            "db = Path(sys.argv[1])\n"
            "mem = memoryos.open(db)\n"
            "for i in range(5):\n"
            "    mem.remember(ALICE, f'a turn the crash will take {i}', role='user')\n"
            "mark_head(db)\n"
            "os._exit(0)\n"  # no close(): the commits stay in the -wal
        )
        before = len(outbox(store))
        done = subprocess.run(
            [sys.executable, "-c", crash, str(store)], check=False, capture_output=True, text=True, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr
        assert Path(f"{store}-wal").stat().st_size > 0
        for suffix in ("-wal", "-shm"):
            Path(f"{store}{suffix}").unlink()
        assert len(outbox(store)) == before  # the chain that is left is intact: only the mark knows
        _, report = check_json(store)
        assert at_least_uncertain(report)
        (reason,) = rules_of(report)["evidence.truncated"]
        assert f"the outbox ends at seq {before}" in reason

    def test_a_receipt_rewritten_at_the_marks_seq_is_found_even_with_a_valid_mac(self, store: Path) -> None:
        head = mark_head(store)
        last = outbox(store)[-1]
        forged = {k: v for k, v in last.items() if k != "mac"}
        forged["atUtc"] = format_utc(START + timedelta(hours=1, minutes=30))
        forged["mac"] = compute_mac(store_key(store), forged)  # even a forger holding the key
        execute(store, "UPDATE receipt_outbox SET body = ? WHERE seq = ?", (orjson.dumps(forged), head.seq))
        _, report = check_json(store)
        assert report["verdict"] == "uncertain"
        assert "evidence.head_mismatch" in rules_of(report), report["runs"]

    def test_a_mark_that_does_not_verify_under_the_key_is_a_finding(self, store: Path) -> None:
        mark_head(store, key=b"\x01" * 32)
        _, report = check_json(store)
        assert report["verdict"] == "uncertain"
        (reason,) = rules_of(report)["evidence.head_invalid"]
        assert "MAC does not verify" in reason

    def test_a_damaged_mark_is_a_finding(self, store: Path) -> None:
        head_path(store).write_bytes(b"{not json")
        _, report = check_json(store)
        assert "evidence.head_invalid" in rules_of(report)

    def test_a_store_without_a_mark_is_noted_not_an_error(self, store: Path) -> None:
        head_path(store).unlink()  # a store written before marks existed
        code, report = check_json(store)
        assert report["verdict"] in {"healthy", "waiting"}, report["runs"]
        assert code in {0, 1}
        assert any("no head mark" in note for note in report["notes"])

    def test_a_mark_file_opened_but_never_written_is_no_mark_for_both_readers(self, store: Path) -> None:
        # a writer killed between creating the mark file and its first pwrite leaves it empty
        head_path(store).write_bytes(b"")
        code, report = check_json(store)
        assert "evidence.head_invalid" not in rules_of(report), report["runs"]
        assert report["verdict"] in {"healthy", "waiting"} and code in {0, 1}
        assert any("no head mark" in note for note in report["notes"])
        with memoryos.open(store) as mem:
            assert mem.check() == []

    def test_a_mark_beside_a_database_without_an_outbox_is_noted_not_raised(self, tmp_path: Path) -> None:
        other = tmp_path / "other.db"
        execute(other, "CREATE TABLE t (x)")
        writer = HeadFile(other, b"k" * 32)
        writer.write(Head("c", 3, "a" * 64))
        writer.close()
        checked = check_head(other, None)
        assert checked.findings == ()
        assert "not compared" in checked.notes[0]

    def test_the_comparison_is_a_pure_rule(self) -> None:
        head = Head("c", 5, "a" * 64)
        receipt = {"chainId": "c", "seq": 5, "receiptId": "r"}
        assert compare_head("s", Head("c", 0, "a" * 64), 0, None) == ()
        assert [f.rule for f in compare_head("s", head, 4, None)] == ["evidence.truncated"]
        assert [f.rule for f in compare_head("s", head, 9, None)] == ["evidence.truncated"]
        assert [f.rule for f in compare_head("s", head, 5, receipt)] == ["evidence.head_mismatch"]
        matching = Head("c", 5, link_hash(receipt))
        assert compare_head("s", matching, 7, receipt) == ()
        assert (
            compare_head("s", matching._replace(chain_id="d"), 7, receipt)[0].rule == "evidence.head_mismatch"
        )
        assert all(RULES[f].state == "uncertain" for f in ("evidence.truncated", "evidence.head_invalid"))


# ---- item 7: MACs by default, and every report says so ------------------------------------------
def relink(db: Path, seq: int, change: dict[str, Any]) -> None:
    """A forgery without the key: change a receipt and re-link every later one, MACs left as found."""
    receipts = outbox(db)
    conn = sqlite3.connect(db)
    try:
        for index, receipt in enumerate(receipts):
            if receipt["seq"] < seq:
                continue
            if receipt["seq"] == seq:
                receipt.update(change)
            else:
                receipt["prev"] = link_hash(receipts[index - 1])
            conn.execute(
                "UPDATE receipt_outbox SET body = ? WHERE seq = ?", (orjson.dumps(receipt), receipt["seq"])
            )
        conn.commit()
    finally:
        conn.close()


class TestMacsByDefault:
    def test_a_relinked_forgery_is_caught_with_the_key_beside_the_store(self, store: Path) -> None:
        first = outbox(store)[0]
        relink(store, first["seq"], {"atUtc": format_utc(START + timedelta(seconds=1))})
        code, report = check_json(store)
        assert report["macs"]["verified"] is True
        assert report["macs"]["keySource"] == str(store) + ".receipt-key"
        assert "evidence.mac" in rules_of(report), report["runs"]
        assert report["verdict"] == "uncertain"
        assert code == 3

    def test_the_same_forgery_without_a_key_says_macs_were_not_verified(self, store: Path) -> None:
        relink(store, outbox(store)[0]["seq"], {"atUtc": format_utc(START + timedelta(seconds=1))})
        store.with_name(store.name + ".receipt-key").unlink()
        _, report = check_json(store)
        assert report["macs"]["verified"] is False
        assert "no key file beside" in report["macs"]["reason"]
        assert "evidence.mac" not in rules_of(report)

    def test_a_key_file_open_to_others_is_refused_as_ssh_refuses_one(self, store: Path) -> None:
        beside = store.with_name(store.name + ".receipt-key")
        beside.chmod(0o644)
        _, report = check_json(store)
        assert report["macs"]["verified"] is False
        assert "open to others (mode 644)" in report["macs"]["reason"]
        done = audit_cli("check", "--db", str(store), "--now", NOW, "--key-file", str(beside))
        assert done.returncode == 2
        assert "chmod 600" in done.stderr and "Traceback" not in done.stderr

    def test_an_explicit_key_file_wins(self, store: Path, tmp_path: Path) -> None:
        other = tmp_path / "other.key"
        other.write_text("ab" * 32 + "\n")
        other.chmod(0o600)
        _, report = check_json(store, "--key-file", str(other))
        assert report["macs"] == {"verified": True, "keySource": "given", "reason": None}
        assert "evidence.mac" in rules_of(report)

    def test_two_stores_with_different_keys_are_not_verified_with_either(
        self, store: Path, tmp_path: Path
    ) -> None:
        other = make_store(tmp_path / "other.db", turns=2)
        done = audit_cli("check", "--db", str(store), "--db", str(other), "--now", NOW, "--format", "json")
        macs = json.loads(done.stdout)["macs"]
        assert macs["verified"] is False
        assert "different keys" in macs["reason"]

    def test_a_receipt_file_alone_is_reported_unverified(self, store: Path, tmp_path: Path) -> None:
        exported = tmp_path / "r.jsonl"
        exported.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in outbox(store)))
        done = audit_cli("check", str(exported), "--now", NOW, "--format", "json")
        report = json.loads(done.stdout)
        assert report["macs"]["verified"] is False
        assert "--key-file" in report["macs"]["reason"]

    def test_text_and_html_reports_say_whether_macs_were_verified(self, store: Path, tmp_path: Path) -> None:
        text = audit_cli("check", "--db", str(store), "--now", NOW, "--format", "text").stdout
        assert f"MACs: verified (key: {store}.receipt-key)" in text
        out = tmp_path / "report.html"
        audit_cli("report", "--db", str(store), "--now", NOW, "--html", str(out))
        page = out.read_text()
        assert 'data-macs-verified="true"' in page
        assert "<dt>MACs</dt><dd>verified" in page
        store.with_name(store.name + ".receipt-key").unlink()
        text = audit_cli("check", "--db", str(store), "--now", NOW, "--format", "text").stdout
        assert "MACs: NOT verified: no key file beside" in text


# ---- item 14: absurd durations and clocks --------------------------------------------------------
class TestArgumentEdges:
    @pytest.mark.parametrize("option", ["--max-age", "--grace"])
    def test_a_duration_too_long_to_represent_is_a_usage_error(self, store: Path, option: str) -> None:
        done = audit_cli("check", "--db", str(store), option, "99999999999999d")
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert "duration too long" in done.stderr

    @pytest.mark.parametrize(
        "argv",
        [
            ["--now", "0001-01-01T00:00:00Z"],
            ["--now", "0001-01-01T00:00:00Z", "--max-age", "7d"],
            ["--max-age", "999999999d"],
            ["--grace", "999999999d"],
            ["--now", "9999-12-31T23:59:59.999999Z", "--max-age", "1s"],
        ],
    )
    def test_a_cut_before_year_one_is_handled_as_no_cut(self, store: Path, argv: list[str]) -> None:
        done = audit_cli("check", "--db", str(store), "--format", "json", *argv)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in {0, 1, 3}
        report = json.loads(done.stdout)
        if argv[:1] == ["--max-age"] or argv[-2:] == ["--max-age", "7d"]:
            assert "evidence.expired" not in rules_of(report)

    def test_an_early_clock_keeps_four_digit_years_so_times_still_compare(self, store: Path) -> None:
        done = audit_cli("check", "--db", str(store), "--now", "0999-01-01T00:00:00Z", "--format", "json")
        report = json.loads(done.stdout)
        assert report["now"] == "0999-01-01T00:00:00.000000Z"
        # every wait window is in this clock's future: nothing can be overdue yet
        assert "promotion.overdue" not in rules_of(report)

    def test_a_clock_that_leaves_the_calendar_in_utc_is_a_usage_error(self, store: Path) -> None:
        done = audit_cli("check", "--db", str(store), "--now", "0001-01-01T00:00:00+01:00")
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert "out of range" in done.stderr


# ---- item 15: a store on a read-only mount -------------------------------------------------------
_READ_ONLY = (
    'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 98\n'
    'if touch "$1/.probe" 2>/dev/null; then echo "the mount is writable" >&2; exit 99; fi\n'
    'shift; exec "$@"'
)


def run_read_only(directory: Path, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Run the auditor with `directory` read-only: as root, a read-only bind mount in a private mount
    namespace (gone when the process ends); otherwise the directory made read-only by mode (a user
    other than root is held to it)."""
    command = [sys.executable, "-m", "auditor", *argv]
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            return subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
        finally:
            directory.chmod(0o755)
    wrapped = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, "sh"]
    done = subprocess.run(
        [*wrapped, str(directory), *command], check=False, capture_output=True, text=True, timeout=120
    )
    if done.returncode in {98, 99}:  # never a skip: CI runs as root, where mount namespaces work
        pytest.fail(f"cannot make {directory} a read-only mount here: {done.stderr}")
    return done


def receipts_in(report: dict[str, Any]) -> int:
    return int(report["receipts"])


class TestReadOnlyMount:
    def test_a_cleanly_closed_store_on_a_read_only_mount_is_audited(self, tmp_path: Path) -> None:
        directory = tmp_path / "ro"
        directory.mkdir()
        db = make_store(directory / "agent.db")
        head = mark_head(db, receipts=untouched_outbox(db))
        before = sorted(p.name for p in directory.iterdir())
        assert before == ["agent.db", "agent.db.receipt-head", "agent.db.receipt-key"]  # no -shm to reuse
        done = run_read_only(directory, ["check", "--db", str(db), "--now", NOW, "--format", "json"])
        assert done.returncode in {0, 1}, done.stderr
        report = json.loads(done.stdout)
        assert receipts_in(report) == head.seq
        assert report["macs"]["verified"] is True
        assert any("matches" in note for note in report["notes"])
        assert sorted(p.name for p in directory.iterdir()) == before

    def test_a_store_with_commits_still_in_its_wal_is_read_whole(self, tmp_path: Path) -> None:
        live, directory = tmp_path / "live", tmp_path / "ro"
        live.mkdir()
        directory.mkdir()
        db = make_store(live / "agent.db")
        mem = memoryos.open(db, clock=FakeClock(start=START + timedelta(hours=2), tick=timedelta(0)))
        try:
            for index in range(3):
                mem.remember(ALICE, f"a late note {index}", role="user")
            expected = outbox(db)
            # a snapshot of a live store: the main file and its -wal, no -shm
            for suffix in ("", "-wal", ".receipt-key"):
                shutil.copyfile(f"{db}{suffix}", f"{directory / 'agent.db'}{suffix}")
        finally:
            mem.close()
        copy = directory / "agent.db"
        mark_head(copy, receipts=expected)
        main_file_only = sqlite3.connect(f"file:{copy}?mode=ro&immutable=1", uri=True)
        try:
            in_main = main_file_only.execute("SELECT count(*) FROM receipt_outbox").fetchone()[0]
        finally:
            main_file_only.close()
        assert in_main < len(expected)  # immutable=1 alone would have lost these
        done = run_read_only(directory, ["check", "--db", str(copy), "--now", NOW, "--format", "json"])
        assert done.returncode in {0, 1, 3}, done.stderr
        report = json.loads(done.stdout)
        assert receipts_in(report) == len(expected)
        assert "evidence.truncated" not in rules_of(report)
        assert sorted(p.name for p in directory.iterdir()) == sorted(
            ["agent.db", "agent.db-wal", "agent.db.receipt-key", "agent.db.receipt-head"]
        )


# ---- item 23: what `report --html` says, and its LPM count ---------------------------------------
class _Tiers(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and found.get("data-tier") and found.get("data-count"):
            self.counts[str(found["data-tier"])] = int(str(found["data-count"]))


class TestReportCommand:
    def test_it_says_where_it_wrote_and_the_verdict(self, store: Path, tmp_path: Path) -> None:
        out = tmp_path / "report.html"
        done = audit_cli("report", "--db", str(store), "--now", NOW, "--html", str(out))
        verdict = json.loads(audit_cli("check", "--db", str(store), "--now", NOW, "--format", "json").stdout)[
            "verdict"
        ]
        assert out.exists()
        assert done.stdout.startswith(f"wrote {out}: verdict {verdict} (exit {done.returncode})")

    def test_its_lpm_count_is_the_demo_stores_records_each_version_counted_once(self, tmp_path: Path) -> None:
        demo = subprocess.run(
            [sys.executable, "-m", "memoryos", "demo", "--dir", str(tmp_path / "demo")],
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert demo.returncode == 0, demo.stderr
        db = tmp_path / "demo" / "demo.db"
        out = tmp_path / "report.html"
        audit_cli("report", "--db", str(db), "--html", str(out))
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            records, rows = conn.execute(
                "SELECT count(DISTINCT memory_id), count(*) FROM units WHERE tier = 'lpm'"
            ).fetchone()
        finally:
            conn.close()
        assert rows > records  # the demo corrects a record: two versions of one record
        assert _Tiers(out.read_text()).counts["lpm"] == records
