"""At the edges: a committed change is never reported as failed, an erasure's promise holds or says it
is pending, lost receipts are noticed, and a full or read-only disk is an error, never a dead host."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoryos
import memoryos.failpoints
import memoryos.memory
import receipts
from memoryos.errors import DiskFull, ReadOnlyStore
from memoryos.testing import FakeClock
from receipts.head import read_head
from tests.memoryos.disks import fill, remount, small_disk

CANARY = "zqxerasecanaryvw"


def count_rows(db: Path, sql: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def on_disk(db: Path, needle: str) -> bool:
    files = [db, db.with_name(db.name + "-wal")]
    return any(f.exists() and needle.encode() in f.read_bytes() for f in files)


class Blocker:
    """A second, real connection that takes the write lock when asked and holds it."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(db, isolation_level=None)

    def hold(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        self.conn.close()


@pytest.fixture
def blocker(db: Path, mem: memoryos.Memory) -> Iterator[Blocker]:
    holder = Blocker(db)
    yield holder
    holder.release()


# -- 4: once the change is committed, the call succeeds ---------------------------------------------
class TestCommittedMeansSucceeded:
    def test_remember_succeeds_when_the_promotion_after_its_commit_raises(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        import memoryos.failpoints as fp

        with memoryos.open(db, clock=clock, stm_capacity=3) as mem:
            fp.arm("stm_to_mtm.before_commit=raise")
            try:
                stored = [mem.remember(alice, f"kiwi note {i}") for i in range(3)]
            finally:
                fp.arm("")
            assert count_rows(db, "SELECT count(*) FROM units") == 3  # each turn exactly once
            follow_ups = mem.status()["follow_ups"]
            assert follow_ups["deferred"] == {"promotion": 1}
            assert mem.maintain().promoted_turns == 3  # maintain() finishes what was deferred
            assert mem.status()["tiers"]["stm"] == 0 and stored[-1].version == 1
            assert mem.check() == []

    def test_remember_succeeds_while_another_connection_holds_the_write_lock_after_its_commit(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with memoryos.open(db, clock=clock, stm_capacity=2, busy_timeout_ms=20) as mem:
            holder = Blocker(db)
            real = memoryos.failpoints.failpoint

            def lock_after_commit(name: str) -> None:
                real(name)
                if name == "store.after_commit" and mem.status()["tiers"]["stm"] == 2:
                    holder.hold()

            monkeypatch.setattr(memoryos.memory, "failpoint", lock_after_commit)
            mem.remember(alice, "first turn")
            second = mem.remember(alice, "second turn fills STM")  # its promotion finds the lock
            holder.release()
            assert second.version == 1
            assert mem.status()["follow_ups"]["deferred"] == {"promotion": 1}
            assert count_rows(db, "SELECT count(*) FROM units WHERE tier = 'stm'") == 2
            assert mem.maintain().promoted_turns == 2

    def test_forget_succeeds_when_the_scrub_after_its_commit_finds_the_store_locked(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with memoryos.open(db, clock=clock, busy_timeout_ms=20) as mem:
            mem.put(alice, "secret-ish", CANARY)
            holder = Blocker(db)
            scrub = mem.store.scrub

            def locked_scrub() -> bool:
                holder.hold()  # another writer between the erasure's commit and the scrub
                return scrub()

            monkeypatch.setattr(mem.store, "scrub", locked_scrub)
            erased = mem.forget(alice, "secret-ish")
            holder.release()
            assert erased == 1 and erased.erasure_pending
            assert mem.get(alice, "secret-ish") is None  # the erasure itself committed
            # the pending flag could not be written either (the lock): the process remembers it
            assert mem.status()["follow_ups"]["deferred"] == {"scrub": 1, "pending_flag": 1}
            monkeypatch.setattr(mem.store, "scrub", scrub)
            assert mem.check() == []  # which finished the scrub
            assert not mem.status()["follow_ups"]["erasure_pending"]
        assert not on_disk(db, CANARY)


# -- 5: forget's promise holds, or the result says it is pending ----------------------------------------
READER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN")
conn.execute("SELECT count(*) FROM units").fetchone()
print("reading", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@pytest.fixture
def reader(db: Path) -> Iterator[Any]:
    """Start a reader process holding a read snapshot of `db` (call it once the store has data)."""
    started: list[subprocess.Popen[str]] = []

    def start() -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, "-c", READER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "reading"
        started.append(child)
        return child

    yield start
    for child in started:
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()


def end(child: subprocess.Popen[str]) -> None:
    assert child.stdin is not None
    child.stdin.write("\n")
    child.stdin.flush()
    assert child.wait(timeout=30) == 0


class TestErasureWithAReader:
    def test_forget_under_a_readers_snapshot_says_pending_at_once_and_check_finishes_it(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path, reader: Any
    ) -> None:
        mem.put(alice, "door code", CANARY)
        child = reader()
        started = time.monotonic()
        erased = mem.forget(alice, "door code")
        assert time.monotonic() - started < 2  # no busy_timeout stall (5 s by default)
        assert erased == 1 and erased.erasure_pending
        assert on_disk(db, CANARY)  # which is what "pending" truthfully says
        assert [f.code for f in mem.check()] == ["erasure_pending"]  # the reader is still there
        end(child)
        assert mem.check() == []
        assert not on_disk(db, CANARY)
        assert not mem.status()["follow_ups"]["erasure_pending"]

    def test_maintain_finishes_a_pending_erasure_and_reports_it(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path, reader: Any
    ) -> None:
        mem.put(alice, "door code", CANARY)
        child = reader()
        assert mem.forget(alice, "door code").erasure_pending
        end(child)
        assert mem.maintain().erasures_completed == 1
        assert not on_disk(db, CANARY)
        assert mem.maintain().erasures_completed == 0

    def test_a_pending_erasure_survives_a_restart(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope, reader: Any
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            mem.put(alice, "door code", CANARY)
            child = reader()
            assert mem.forget(alice, "door code").erasure_pending
        end(child)
        with memoryos.open(db, clock=clock) as mem:
            assert mem.status()["follow_ups"]["erasure_pending"]
            assert mem.check() == []
        assert not on_disk(db, CANARY)

    def test_without_a_reader_forget_scrubs_at_once(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        mem.put(alice, "door code", CANARY)
        erased = mem.forget(alice, "door code")
        assert erased == 1 and not erased.erasure_pending
        assert not on_disk(db, CANARY)


# -- 6: the chain's high-water mark ----------------------------------------------------------------------
WRITER = """
import os, signal, sys
import memoryos
mem = memoryos.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    mem.remember(memoryos.Scope(user="u", assistant="a"), f"turn {i}")
os.kill(os.getpid(), signal.SIGKILL)
"""


class TestHighWaterMark:
    def test_the_mark_follows_every_commit_that_adds_receipts(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        for i in range(3):
            mem.remember(alice, f"turn {i}")
            head = read_head(db, mem.key)
            assert head is not None and head.seq == mem.status()["outbox"]["head_seq"] == i + 1
        assert os.stat(str(db) + ".receipt-head").st_mode & 0o777 == 0o600

    def test_deleting_the_newest_receipts_is_a_finding_even_after_later_writes(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            for i in range(5):
                mem.remember(alice, f"turn {i}")
        conn = sqlite3.connect(db)  # someone deletes the newest rows behind the store's back
        conn.execute("DELETE FROM receipt_outbox WHERE seq > 2")
        conn.commit()
        conn.close()
        with memoryos.open(db, clock=clock) as mem:
            [finding] = mem.check()
            assert finding.code == "receipts_missing" and "3 acknowledged receipts" in finding.detail
            mem.remember(alice, "a later turn moves the mark back to the chain's head")
            assert [f.code for f in mem.check()] == ["receipts_missing"]

    @pytest.mark.parametrize("damage", ["truncate", "delete"])
    def test_a_damaged_wal_of_a_killed_writer_is_a_finding(self, db: Path, damage: str) -> None:
        child = subprocess.run([sys.executable, "-c", WRITER, str(db), "20"], check=False)
        assert child.returncode == -signal.SIGKILL
        wal = db.with_name(db.name + "-wal")
        assert wal.stat().st_size > 0  # the acknowledged turns live in the WAL
        if damage == "truncate":
            os.truncate(wal, 0)
        else:
            wal.unlink()
        with memoryos.open(db) as mem:
            findings = mem.check()
        assert [f.code for f in findings] == ["receipts_missing"]
        assert "acknowledged receipts are missing" in findings[0].detail

    def test_a_forged_mark_is_a_finding(self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path) -> None:
        mem.remember(alice, "one turn")
        mark = Path(str(db) + ".receipt-head")
        mark.write_bytes(mark.read_bytes().replace(b'"seq":1', b'"seq":9'))
        assert [f.code for f in mem.check()] == ["receipts_missing"]
        assert "cannot be trusted" in mem.check()[0].detail


# -- 10: several processes open a new store at once ---------------------------------------------------
OPENER = """
import sys, time
import memoryos
go = float(sys.argv[2])
while time.time() < go:
    pass
with memoryos.open(sys.argv[1]) as mem:
    print(mem.store_id, mem.key.hex())
"""


def test_a_process_that_creates_the_key_first_wins_and_the_other_uses_it(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = receipts.create_key_file

    def another_process_first(path: Path) -> bytes:
        # the race, made certain: a real second process opens the same new store right now
        other = subprocess.run(
            [sys.executable, "-c", OPENER, str(db), "0"], capture_output=True, text=True, check=True
        )
        monkeypatch.setattr(memoryos.memory, "create_key_file", real)
        assert other.stdout
        return real(path)

    monkeypatch.setattr(memoryos.memory, "create_key_file", another_process_first)
    with memoryos.open(db) as mem:
        mine = f"{mem.store_id} {mem.key.hex()}"
    theirs = subprocess.run(
        [sys.executable, "-c", OPENER, str(db), "0"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert mine == theirs


def test_concurrent_first_opens_of_a_new_store_agree_on_one_key(tmp_path: Path) -> None:
    for trial in range(3):
        db = tmp_path / f"new-{trial}.db"
        go = time.time() + 1.0  # every process is imported and spinning by then
        children = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(db), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        results = [child.communicate(timeout=120) for child in children]
        assert [c.returncode for c in children] == [0] * 4, [err for _, err in results]
        assert len({out for out, _ in results}) == 1  # one store id, one key


# -- 18: a key file open to others ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", [0o644, 0o660, 0o606])
def test_a_receipt_key_open_to_others_is_refused_like_ssh_does(db: Path, mode: int) -> None:
    memoryos.open(db).close()
    key = Path(str(db) + ".receipt-key")
    key.chmod(mode)
    with pytest.raises(memoryos.StoreError, match="chmod 600"):
        memoryos.open(db)
    key.chmod(0o600)
    memoryos.open(db).close()


# -- 8, 12, 15: a full or read-only disk ------------------------------------------------------------------
OPEN_STATUS = "import memoryos, sys; m = memoryos.open(sys.argv[1]); print(m.status()['tiers']); m.close()"


def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)


class TestFullAndReadOnlyDisks:
    def test_a_full_disk_is_an_error_and_never_sigbus(self, tmp_path: Path) -> None:
        with small_disk(tmp_path) as disk:
            db = disk / "s.db"
            with memoryos.open(db) as mem:
                mem.remember(memoryos.Scope(user="u", assistant="a"), "hello")
            for free_kib in (4, 10, 24, 40):  # each of 10, 24 and 40 died of SIGBUS before the fix
                fill(disk, free_kib)
                opened = run(OPEN_STATUS, str(db))
                assert opened.returncode == 1, (free_kib, opened.returncode, opened.stderr[-300:])
                assert "DiskFull" in opened.stderr and "is full" in opened.stderr
                cli = subprocess.run(
                    [sys.executable, "-m", "memoryos", "status", "--db", str(db)],
                    check=False,
                    capture_output=True,
                    text=True,
                )
                assert cli.returncode == 5 and "full" in cli.stderr, (free_kib, cli.returncode, cli.stderr)
            fill(disk, 400)
            assert run(OPEN_STATUS, str(db)).returncode == 0

    def test_every_amount_of_free_space_opens_an_old_store_or_says_the_disk_is_full(
        self, tmp_path: Path
    ) -> None:
        from memoryos.store.schema import MIGRATIONS

        with small_disk(tmp_path) as disk:
            db = disk / "old.db"
            conn = sqlite3.connect(db)
            conn.executescript(MIGRATIONS[0][1])  # a first-release store: open() migrates it
            conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
            conn.execute("INSERT INTO migrations VALUES (?, 0)", (MIGRATIONS[0][0],))
            conn.commit()
            conn.close()
            for free_kib in range(64, 200, 12):
                fill(disk, free_kib)
                opened = run(OPEN_STATUS, str(db))
                assert opened.returncode in (0, 1), (free_kib, opened.returncode)
                if opened.returncode:
                    assert "DiskFull" in opened.stderr, (free_kib, opened.stderr[-400:])
                    assert "cannot rollback" not in opened.stderr

    def test_an_export_to_a_full_disk_is_disk_full_and_leaves_nothing(
        self, mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
    ) -> None:
        for i in range(40):
            mem.remember(alice, f"a turn long enough to need a few blocks of export {i} " * 4)
        with small_disk(tmp_path) as disk:
            fill(disk, 2)
            with pytest.raises(DiskFull, match="is full"):
                mem.export(disk / "e.jsonl")
            with pytest.raises(DiskFull, match="is full"):
                mem.export_receipts(disk / "r.jsonl")
            assert sorted(p.name for p in disk.iterdir()) == ["filler", "lost+found", "r.jsonl"]
            assert mem.status()["outbox"]["exported_seq"] == 0  # the cursor did not move

    def test_a_store_on_a_read_only_mount_says_read_only(self, tmp_path: Path) -> None:
        with small_disk(tmp_path) as disk:
            db = disk / "s.db"
            memoryos.open(db).close()
            remount(disk, "ro")
            try:
                with pytest.raises(ReadOnlyStore, match="read-only"):
                    memoryos.open(db)
            finally:
                remount(disk, "rw")


# -- 11: a damaged outbox row is a finding, never an exception ---------------------------------------
@pytest.fixture(scope="module")
def sealed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sealed") / "s.db"
    with memoryos.open(db) as mem:
        for i in range(6):
            mem.remember(memoryos.Scope(user="u", assistant="a"), f"turn {i}")
    return db


@settings(max_examples=60, deadline=None)
@given(row=st.integers(1, 6), at=st.integers(0, 400), junk=st.binary(min_size=16, max_size=16))
def test_check_returns_findings_for_any_16_byte_corruption_of_an_outbox_row(
    sealed_store: Path, row: int, at: int, junk: bytes
) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        db = folder / "s.db"
        for suffix in ("", ".receipt-key", ".receipt-head"):
            shutil.copy(str(sealed_store) + suffix, str(db) + suffix)
        conn = sqlite3.connect(db)
        [body] = conn.execute("SELECT body FROM receipt_outbox WHERE seq = ?", (row,)).fetchone()
        damaged = body[:at] + junk + body[at + 16 :]
        conn.execute("UPDATE receipt_outbox SET body = ? WHERE seq = ?", (damaged, row))
        conn.commit()
        conn.close()
        with memoryos.open(db) as mem:
            findings = mem.check()
        assert all(isinstance(f, memoryos.Finding) for f in findings)
        if damaged != body and row < 6:  # the next receipt no longer links to a damaged one
            assert {f.code for f in findings} & {"receipt_chain", "receipt_damaged"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
