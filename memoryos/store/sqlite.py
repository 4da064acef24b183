"""The SQLite backend: one file, WAL, BEGIN IMMEDIATE, explicit COMMIT/ROLLBACK, transactional outbox.

Driver errors never leave this module: they become StoreError subclasses (DESIGN §3, STYLE 4).
"""

from __future__ import annotations

import contextlib
import operator
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from memoryos.errors import (
    MemoryOSError,
    MigrationError,
    StoreBusy,
    StoreClosed,
    StoreError,
    StoreVersionError,
)
from memoryos.failpoints import failpoint
from memoryos.store import search_sqlite as search_sql
from memoryos.store import sql_search
from memoryos.store.base import Store, Transaction
from memoryos.store.mark import ChainMark
from memoryos.store.rows import Unit
from memoryos.store.schema import MIGRATIONS, SCHEMA_VERSION
from memoryos.store.sql_common import CommonRows
from memoryos.store.sql_rows import (
    INSERT_SOURCE,
    INSERT_UNIT,
    JSON_COLUMNS,
    PAGE_COLUMNS,
    SELECT_UNIT,
    TURN_INTO_PAGE,
    row_of,
    sources_of,
    unit_of_row,
)
from memoryos.store.sqlite_files import check_path, classify, fill_shared_memory, reserve_shared_memory
from receipts import ChainHead, ReceiptError, seal_all

_page_values = operator.attrgetter(*PAGE_COLUMNS)
_PAGE_JSON = [i for i, name in enumerate(PAGE_COLUMNS) if name in JSON_COLUMNS]


def _page_row(rowid: int, page: Unit) -> list[Any]:
    """sql_rows.page_update(rowid, page), with the columns read by one attrgetter (a promotion
    writes a row per page; tests/memoryos/test_promotion_cost.py holds the two equal)."""
    values = [*_page_values(page), rowid]
    for i in _PAGE_JSON:
        values[i] = orjson.dumps(values[i]).decode()
    return values


def _rollback_quietly(conn: sqlite3.Connection) -> None:
    """ROLLBACK if a transaction is still open: SQLite ends one itself on some errors (disk full)."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):  # the error that brought us here is the one to report
            conn.execute("ROLLBACK")


def _is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower()


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (executescript() would COMMIT our transaction)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        raise StoreError("a migration ends in an incomplete statement")


class SQLiteTransaction(CommonRows, Transaction):
    """Domain operations inside one write transaction. Receipts are sealed just before COMMIT."""

    def __init__(self, conn: sqlite3.Connection, chain_id: str, key: bytes, clock: Callable[[], datetime]):
        self._conn = conn
        self._chain_id = chain_id
        self._key = key
        self._clock = clock
        self._drafts: list[dict[str, Any]] = []
        self.sealed: tuple[int, str] | None = None  # (seq, link) of the last receipt this tx sealed
        # rowid -> terms IS NULL, of the STM turns stm_rowids() read in this transaction: what
        # turn_into_pages() would otherwise ask in a statement of its own
        self._unindexed: dict[int, bool] = {}

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def emit(self, draft: Mapping[str, Any]) -> None:
        self._drafts.append(dict(draft))

    def flush_receipts(self) -> int:
        """Seal pending drafts onto the chain head read inside this transaction, and insert them."""
        if not self._drafts:
            return 0
        row = self._conn.execute("SELECT seq, link FROM receipt_outbox ORDER BY seq DESC LIMIT 1").fetchone()
        head = ChainHead(self._chain_id) if row is None else ChainHead(self._chain_id, row[0], row[1])
        rows = [
            (s.head.seq, self._chain_id, s.receipt["receiptId"], s.receipt["runId"], s.head.link, s.line)
            for s in seal_all(self._drafts, head, self._key, self._clock())
        ]
        self.sealed = (rows[-1][0], rows[-1][4])
        self._conn.executemany(
            "INSERT INTO receipt_outbox (seq, chain_id, receipt_id, run_id, link, body)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        count = len(self._drafts)
        self._drafts.clear()
        return count

    def insert_unit(self, unit: Unit) -> int:
        cursor = self._conn.execute(INSERT_UNIT, row_of(unit))
        self._conn.executemany(INSERT_SOURCE, sources_of(unit))
        return int(cursor.lastrowid or 0)

    def insert_units(self, units: Sequence[Unit]) -> None:
        """Many units in two statements (a promotion's pages)."""
        self._conn.executemany(INSERT_UNIT, [row_of(u) for u in units])
        self._conn.executemany(INSERT_SOURCE, [pair for u in units for pair in sources_of(u)])

    def claim_cursor(self, name: str) -> int | None:
        return self.cursor(name)  # BEGIN IMMEDIATE: this transaction is the only writer already

    def merge_index(self) -> None:
        """Nothing to merge: the postings are plain rows, and secure_delete zeroes deleted ones."""

    def stm_rowids(self, user: str, assistant: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """The scope's STM read whole (units_stm: a range of the index; STM is bounded by its
        capacity) and filtered here: an IN list of ids would build a temporary table per promotion,
        and a second one for the terms check that this read answers on the way (_unindexed)."""
        wanted = set(memory_ids)
        found: dict[str, int] = {}
        unindexed = self._unindexed
        for memory_id, rowid, bare in self._conn.execute(
            "SELECT memory_id, rowid, terms IS NULL FROM units"
            " WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?",
            (user, assistant),
        ):
            if memory_id in wanted:
                found[memory_id] = rowid
                unindexed[rowid] = bool(bare)
        return found

    def turn_into_pages(self, moves: Sequence[tuple[int, Unit]]) -> None:
        # `terms` is not written, so the index triggers (AFTER UPDATE OF terms) do not fire: the
        # page has the turn's body, key and kind, hence its postings, under the same rowid.
        unindexed = self._unindexed_of([rowid for rowid, _ in moves])  # read before the rows change
        moved = self._conn.executemany(TURN_INTO_PAGE, [_page_row(rowid, page) for rowid, page in moves])
        if moved.rowcount != len(moves):
            raise StoreError("a turn left STM during its own promotion; the promotion is rolled back")
        # a turn a raw INSERT wrote since open has no terms yet: its page is indexed now, as an
        # inserted page would be (the update trigger fires for these rows only)
        if unindexed:  # rare: an empty executemany still prepares and runs the statement
            self._conn.executemany(
                "UPDATE units SET terms = ?, term_count = ? WHERE rowid = ?",
                [(*sql_search.unit_index_values(page), rowid) for rowid, page in moves if rowid in unindexed],
            )
        self._conn.executemany(INSERT_SOURCE, [pair for _, u in moves for pair in sources_of(u)])

    def _unindexed_of(self, rowids: Sequence[int]) -> set[int]:
        """Which of these rows have no terms yet: from stm_rowids()'s read when it saw them all
        (a promotion's turns, claimed by it in this transaction), else asked."""
        known = self._unindexed
        if all(rowid in known for rowid in rowids):
            return {rowid for rowid in rowids if known[rowid]}
        unindexed: set[int] = set()
        for start in range(0, len(rowids), 500):  # well under the bound-parameter limit
            part = list(rowids[start : start + 500])
            sql = f"SELECT rowid FROM units WHERE terms IS NULL AND rowid IN ({', '.join('?' * len(part))})"
            unindexed.update(r for (r,) in self._conn.execute(sql, part))  # units_unindexed: cheap
        return unindexed


class SQLiteStore(search_sql.SQLiteSearch, Store):
    """One database file holding every tier and the receipt outbox."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: str,
        busy_timeout_ms: int,
        clock: Callable[[], datetime],
        sleep: Callable[[float], None] = time.sleep,
        attempts: int = 5,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self._retrying = Retrying(
            retry=retry_if_exception(_is_busy),
            stop=stop_after_attempt(attempts),
            wait=wait_exponential(multiplier=0.05, max=1.0),
            sleep=sleep,
            reraise=True,
        )
        self.commits = 0
        self._durability = durability
        self._busy_timeout_ms = int(busy_timeout_ms)
        self.chain_id = ""
        self.key = b""
        self.mark = ChainMark(self.path)
        self._conn: sqlite3.Connection | None = None
        check_path(self.path)
        try:
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
            reserve_shared_memory(self.path)  # before SQLite maps -shm: a full disk is an error, not SIGBUS
            self._configure(durability, busy_timeout_ms)
            fill_shared_memory(self.path)  # and the holes SQLite left in it, now that it is mapped
            self._migrate()
        except sqlite3.Error as exc:
            self._close_quietly()
            raise classify(exc, self.path, f"opening {self.path}") from None
        except BaseException:
            self._close_quietly()
            raise

    def _configure(self, durability: str, busy_timeout_ms: int) -> None:
        conn = self._live()
        # Turning a new file to WAL takes an exclusive lock that SQLite does not wait for: under
        # concurrent first opens it answers "locked" at once, so it is retried like a busy BEGIN.
        mode = self._retrying(conn.execute, "PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{self.path}: WAL journal mode is required, the file system gave {mode!r}")
        conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA secure_delete = ON")  # erased content does not linger in free pages
        conn.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        conn = self._live()
        self._begin(conn)
        try:
            self._refuse_foreign(conn)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
            )
            applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
            if applied:
                self._refuse_newer(conn)
            now = int(time.time())
            for name, script in MIGRATIONS:
                if name not in applied:
                    self._apply(conn, name, script, now)
            search_sql.reindex_pending(conn)  # rows written before 0005 (or by a raw INSERT)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            _rollback_quietly(conn)  # the real cause propagates, not "no transaction is active"
            raise

    def _refuse_foreign(self, conn: sqlite3.Connection) -> None:
        """Another program's SQLite database is not adopted: memoryos's tables are never added to it."""
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "migrations" not in tables:
            raise StoreVersionError(
                f"{self.path} is not a memoryos store (an SQLite database with other tables):"
                " give memoryos a path of its own"
            )

    def _refuse_newer(self, conn: sqlite3.Connection) -> None:
        found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if found is None:
            return
        try:
            version = int(found[0])
        except (TypeError, ValueError):
            raise StoreVersionError(
                f"{self.path} is damaged (its schema version is not a number): restore it from a backup"
            ) from None
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"{self.path} was written by a newer memoryos (schema {version} > {SCHEMA_VERSION}):"
                " upgrade memoryos to open it"
            )

    def _apply(self, conn: sqlite3.Connection, name: str, script: str, now: int) -> None:
        try:
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, now))
        except sqlite3.Error as exc:
            doing = f"migration {name} of {self.path} failed and was rolled back"
            raise classify(exc, self.path, doing, MigrationError) from None

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosed("the store is closed: open it again with memoryos.open()")
        if os.getpid() != self._pid:
            raise StoreError("this store was opened before a fork(): open it again in the child process")
        return self._conn

    def _begin(self, conn: sqlite3.Connection, mode: str = "IMMEDIATE") -> None:
        """BEGIN; a store found busy (after SQLite's own busy_timeout) is retried with backoff."""
        statement = f"BEGIN {mode}"
        try:
            conn.execute(statement)  # the uncontended case pays nothing for the retry machinery
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
        try:
            self._retrying(conn.execute, statement)
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise StoreBusy("the store stayed locked by another writer: retry later") from None
            raise

    def scrub(self) -> bool:
        """After an erasure: merge the index and truncate the WAL, so that (with secure_delete) no
        erased byte stays in the database file or its WAL. False, at once, if another connection's
        read snapshot kept the WAL alive (waiting for it would stall the caller for busy_timeout)."""
        with self.write("scrub") as tx:
            tx.merge_index()
        with self._lock, self._translated():
            conn = self._live()
            conn.execute("PRAGMA busy_timeout = 0")
            try:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        return not busy

    def bind_receipts(self, chain_id: str, key: bytes) -> None:
        self.chain_id, self.key = chain_id, key
        self.mark.bind(key)

    def receipt_key(self) -> bytes | None:
        return None  # a file beside the store (memoryos.memory.key_path_for)

    def marked_chain(self, key: bytes) -> str | None:
        return self.mark.chain_id(key)

    @property
    def mark_failures(self) -> int:
        return self.mark.failures

    def mark_findings(self) -> list[str]:
        """Receipts the chain's high-water mark says were committed and the outbox no longer has."""
        with self.read() as tx:
            head = tx.outbox_head()
            return self.mark.findings(self.chain_id, self.key, head, tx.outbox_link)

    def meta(self, name: str) -> str | None:
        with self.read() as tx:
            return tx.meta_get(name)

    def set_meta_if_absent(self, name: str, value: str) -> str:
        with self.write("meta") as tx:
            return tx.meta_setdefault(name, value)

    @contextmanager
    def write(self, label: str, *, durable: bool = True) -> Iterator[SQLiteTransaction]:
        """One write transaction; `label` names its failpoint `<label>.before_commit`.

        `durable=False` commits without waiting for the disk (synchronous=NORMAL): the change survives
        a crash of the process, and may be lost with the latest few on power loss. Only bookkeeping
        that describes reads (retrieve receipts, visit counts) uses it.
        """
        with self._lock, self._translated():
            conn = self._live()
            if not durable and self._durability == "full":
                conn.execute("PRAGMA synchronous = NORMAL")
            try:
                yield from self._transaction(conn, label)
            finally:
                if not durable and self._durability == "full":
                    conn.execute("PRAGMA synchronous = FULL")

    def _transaction(self, conn: sqlite3.Connection, label: str) -> Iterator[SQLiteTransaction]:
        self._begin(conn)
        try:
            tx = SQLiteTransaction(conn, self.chain_id, self.key, self._clock)
            yield tx
            tx.flush_receipts()
            failpoint(label + ".before_commit")
            conn.execute("COMMIT")
        except BaseException:
            _rollback_quietly(conn)
            raise
        self.commits += 1
        if tx.sealed is not None:
            self.mark.record(self.chain_id, *tx.sealed)

    @contextmanager
    def read(self) -> Iterator[SQLiteTransaction]:
        """A consistent snapshot for reads (a deferred transaction); nothing it does is committed."""
        with self._lock, self._translated():
            conn = self._live()
            conn.execute("BEGIN")
            try:
                yield SQLiteTransaction(conn, self.chain_id, self.key, self._clock)
            finally:
                conn.execute("ROLLBACK")

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except MemoryOSError:
            raise
        except ReceiptError as exc:  # a bug of ours, not the caller's: still never a partial write
            raise StoreError(f"a receipt was refused ({exc}); the change was rolled back") from None
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise StoreBusy("the store stayed locked by another writer: retry later") from None
            raise classify(exc, self.path, "nothing was written") from None
        except sqlite3.Error as exc:
            raise classify(exc, self.path, "nothing was written") from None

    # -- the search port lives in memoryos/store/search_sqlite.py (SQLiteSearch) -----------------
    def _units_by_rowid(
        self, conn: sqlite3.Connection, rowids: Sequence[int], as_of: int | None
    ) -> list[Unit]:
        """Units by rowid, oldest first; with `as_of`, only those active or stale and valid then."""
        found: list[Unit] = []
        valid = (
            ""
            if as_of is None
            else " AND status IN ('active', 'stale') AND valid_from <= ?"
            " AND (valid_until IS NULL OR valid_until > ?)"
        )
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            params = [*part] if as_of is None else [*part, as_of, as_of]
            sql = f"{SELECT_UNIT} WHERE rowid IN ({', '.join('?' * len(part))}){valid} ORDER BY rowid"
            found.extend(unit_of_row(r) for r in conn.execute(sql, params))
        return found

    def integrity(self) -> list[str]:
        with self._lock, self._translated():
            conn = self._live()
            found = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
            found.extend(sql_search.integrity(conn))
        return [] if found == ["ok"] else [f for f in found if f != "ok"]

    def close(self) -> None:
        with self._lock:
            self._close_quietly()
            self.mark.close()

    def _close_quietly(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    @property
    def closed(self) -> bool:
        return self._conn is None
