"""The PostgreSQL backend: a psycopg 3 connection pool, explicit BEGIN/COMMIT/ROLLBACK on
autocommit connections, the transactional outbox with a locked chain head (DESIGN §3).

- Opening applies the named migrations (memoryos/store/postgres_schema.py) in one transaction
  under `pg_advisory_xact_lock`: several processes opening one store serialise there, and no lock
  outlives its transaction (nothing session-level on pooled connections).
- Writers run at READ COMMITTED in parallel; they meet on the rows they both touch (a scope's
  index statistics, an STM turn being promoted, an intent's subject) and on the chain head at
  flush. A lock not granted within busy_timeout_ms is StoreBusy, as on SQLite.
- Only what is safe to repeat is retried: getting a working connection and BEGIN (a pooled
  connection broken by a server restart). A transaction that fails midway is rolled back by the
  server and reported; one whose COMMIT lost its connection is looked up by its last receipt, so
  a change that did commit is never reported as failed.

Driver errors never leave this module: they become StoreError subclasses (postgres_errors.py).
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from memoryos.errors import MemoryOSError, MigrationError, StoreClosed, StoreError, StoreVersionError
from memoryos.failpoints import failpoint
from memoryos.store.base import Store
from memoryos.store.postgres_errors import describe, is_lost_connection, translate
from memoryos.store.postgres_schema import MIGRATIONS
from memoryos.store.postgres_search import PostgresSearch
from memoryos.store.postgres_tx import APPLICATION, Marked, PostgresTransaction, ReadAhead, prepares_safely
from memoryos.store.schema import SCHEMA_VERSION
from memoryos.store.sql_search import integrity
from receipts import ReceiptError

#: The advisory lock key under which a store's migrations run (any constant: one per database).
MIGRATION_LOCK = 0x6D656D6F7279
KEY_BYTES = 32
RECONNECT_S = 2.0  # see ConnectionPool(reconnect_timeout=) below
#: Tables an erasure touches: VACUUMed after it so the dead tuples holding erased text go now.
ERASED_TABLES = ("units", "unit_sources", "search_postings", "search_terms", "page_notes", "candidates")


class PostgresStore(PostgresSearch, Store):
    """Every tier and the receipt outbox in one PostgreSQL database, shared by many processes."""

    def __init__(
        self,
        url: str,
        *,
        durability: str,
        busy_timeout_ms: int,
        clock: Callable[[], datetime],
        sleep: Callable[[float], None] = time.sleep,
        attempts: int = 5,
        pool_size: int = 4,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.url = url
        self.where = describe(url)
        self._clock = clock
        self._durability = durability
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._pid = os.getpid()
        self._local = threading.local()
        self._retrying = Retrying(
            retry=retry_if_exception(is_lost_connection),  # only ever around BEGIN: see _begun
            stop=stop_after_attempt(attempts),
            wait=wait_exponential(multiplier=0.05, max=1.0),
            sleep=sleep,
            reraise=True,
        )
        self._timeout = connect_timeout_s
        self._wait_s = max(0.5, min(connect_timeout_s, busy_timeout_ms / 1000))
        self.commits = 0
        self.round_trips = 0  # of transactions (a load-independent cost: bench/bench_postgres.py)
        self.optimistic_seals = 0  # writes sealed on the chain head read unlocked
        self.seal_conflicts = 0  # optimistic seals done again on the locked chain head
        self.chain_id = ""
        self.key = b""
        self._ahead = ReadAhead()  # what the write transactions' promotions read after their claim
        self._pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        try:
            self._pool = ConnectionPool(
                url,
                min_size=1,
                max_size=pool_size,
                kwargs={"autocommit": True, "prepare_threshold": 2, "application_name": APPLICATION},
                configure=self._configure,
                timeout=connect_timeout_s,
                # A connection attempt that fails is retried with backoff for this long only, then
                # given up: the next caller starts a new one at once, so a server that comes back
                # is found by the first call after it, not after a backoff grown while it was down.
                reconnect_timeout=RECONNECT_S,
                open=False,
                name="memoryos",
            )
            self._pool.open(wait=True, timeout=connect_timeout_s)
            self._migrate()
        except MemoryOSError:
            self._close_quietly()
            raise
        except (psycopg.Error, PoolTimeout) as exc:
            self._close_quietly()
            raise StoreError(
                f"opening {self.where}: {translate(exc, self.where, 'cannot connect')}; check the URL"
                " (postgresql://user@host:port/database) and that the server is running"
            ) from None

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        if not prepares_safely(conn):
            conn.prepare_threshold = None
        conn.execute(f"SET lock_timeout = {self._busy_timeout_ms}")
        conn.execute("SET synchronous_commit = " + ("on" if self._durability == "full" else "off"))

    # -- connections and transactions -----------------------------------------------------------
    def _live_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        if self._pool is None:
            raise StoreClosed("the store is closed: open it again with memoryos.open()")
        if os.getpid() != self._pid:
            raise StoreError("this store was opened before a fork(): open it again in the child process")
        return self._pool

    def _begun(self, statement: str) -> psycopg.Connection[Any]:
        """A pooled connection inside a new transaction. A connection broken since it was pooled
        (a server restart) is dropped and another tried, with backoff."""

        def attempt() -> psycopg.Connection[Any]:
            pool = self._live_pool()
            conn = pool.getconn(timeout=self._wait_s)  # as long as SQLite waits for its lock
            try:
                conn.execute(statement)
            except BaseException:
                pool.putconn(conn)  # a broken one is discarded by the pool
                raise
            return conn

        return self._retrying(attempt)

    def _pipelined(self, *begin: str) -> Marked:
        """A pooled connection in pipeline mode with its BEGIN queued: sent with the transaction's
        first statement, so starting a transaction costs no round trip of its own. A connection
        broken since it was pooled is found by that first round trip and replaced (_replacement)."""

        def attempt() -> Marked:
            conn = self._live_pool().getconn(timeout=self._wait_s)  # as long as SQLite waits for its lock
            marked = Marked(conn, reconnect=self._replacement)
            try:
                marked.begin(*begin)  # psycopg refuses a connection it already knows is broken
            except BaseException:
                self._release(marked)
                raise
            return marked

        try:  # the first attempt outside tenacity: its bookkeeping cost ~0.1 ms a transaction
            return attempt()
        except psycopg.Error as exc:
            if not is_lost_connection(exc):
                raise
        return self._retrying(attempt)  # a broken connection: the next ones with backoff

    def _replacement(self, broken: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
        """A working connection for a transaction whose first round trip found its own broken
        (nothing of it was answered, so it is sent again): tried with a round trip, with backoff."""
        self._live_pool().putconn(broken)  # a broken one is discarded by the pool
        return self._begun("SELECT 1")

    def _release(self, conn: Marked | psycopg.Connection[Any]) -> None:
        raw = conn.raw if isinstance(conn, Marked) else conn
        if isinstance(conn, Marked):
            with suppress(psycopg.Error):  # what was still queued failed with the transaction:
                conn.leave()  # it is rolled back below
            if conn.returned:  # a failed replacement: the broken connection is back in the pool
                return
        if not raw.closed and raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            try:
                raw.execute("ROLLBACK")
            except psycopg.Error:
                raw.close()  # the error that brought us here is the one to report
        if self._pool is not None:
            self._pool.putconn(raw)

    @contextmanager
    def write(self, label: str, *, durable: bool = True) -> Iterator[PostgresTransaction]:
        """One write transaction; `label` names its failpoint `<label>.before_commit`.

        `durable=False` commits without waiting for the WAL flush (synchronous_commit off for this
        transaction): only bookkeeping that describes reads uses it."""
        with self._translated():
            lazy = not durable and self._durability == "full"
            # READ COMMITTED whatever the role's default: the optimistic seal and the lock order rely on it
            begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
            conn = self._pipelined(begin, *(["SET LOCAL synchronous_commit = off"] if lazy else []))
            try:
                tx = PostgresTransaction(
                    conn, self.chain_id, self.key, self._clock, writing=True, ahead=self._ahead
                )
                self._local.conn = conn
                try:
                    yield tx
                    tx.flush_receipts()
                    failpoint(label + ".before_commit")
                finally:
                    self._local.conn = None
                self._commit(tx)
            finally:
                self._release(conn)
        self.commits += 1
        self.round_trips += conn.round_trips
        self.optimistic_seals += tx.guessed
        self.seal_conflicts += tx.conflicts

    def _commit(self, tx: PostgresTransaction) -> None:
        try:
            tx.commit()
        except psycopg.Error as exc:
            if not (is_lost_connection(exc) and tx.sealed is not None and self._landed(tx.sealed[2])):
                raise

    def _landed(self, receipt_id: str) -> bool:
        """After a COMMIT whose answer was lost: did it commit? Its last receipt says."""
        try:
            with self._live_pool().connection() as conn:
                found = conn.execute("SELECT 1 FROM receipt_outbox WHERE receipt_id = %s", (receipt_id,))
                return found.fetchone() is not None
        except (psycopg.Error, PoolTimeout):
            return False

    @contextmanager
    def read(self) -> Iterator[PostgresTransaction]:
        """A consistent snapshot for reads (REPEATABLE READ, READ ONLY); nothing is written."""
        with self._translated():
            conn = self._pipelined("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield PostgresTransaction(conn, self.chain_id, self.key, self._clock, writing=False)
                # COMMIT, not ROLLBACK: the same for a read-only transaction, but psycopg empties its
                # prepared-statement cache on a ROLLBACK new to that cache, and the cache forgets
                # ROLLBACK itself then: once one lost seal (ROLLBACK TO SAVEPOINT) emptied it, every
                # read did again, and a connection prepared its statements anew every few calls.
                conn.finish("COMMIT")  # with the pipeline's last Sync: one round trip
            finally:
                self.round_trips += conn.round_trips
                self._release(conn)

    @contextmanager
    def _reader(self) -> Iterator[Marked]:
        """The thread's open write transaction, else a pooled connection (statements autocommit)."""
        current: Marked | None = getattr(self._local, "conn", None)
        with self._translated():
            if current is not None:
                yield current
                return
            with self._live_pool().connection() as conn:
                yield Marked(conn)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except MemoryOSError:
            raise
        except ReceiptError as exc:  # a bug of ours, not the caller's: still never a partial write
            raise StoreError(f"a receipt was refused ({exc}); the change was rolled back") from None
        except (psycopg.Error, PoolTimeout) as exc:
            raise translate(exc, self.where, "nothing was written") from None

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._translated():
            conn = self._begun("BEGIN")
            try:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS migrations"
                    " (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)"
                )
                applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
                self._refuse_newer(conn, applied)
                now = int(time.time())
                for name, script in MIGRATIONS:
                    if name not in applied:
                        self._apply(conn, name, script, now)
                conn.execute(
                    "INSERT INTO meta VALUES ('schema_version', %s)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(SCHEMA_VERSION),),
                )
                conn.execute("COMMIT")
            finally:
                self._release(conn)

    def _refuse_newer(self, conn: psycopg.Connection[Any], applied: set[str]) -> None:
        if not applied:
            return
        found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        unknown = applied - {name for name, _ in MIGRATIONS}
        if (found is not None and int(found[0]) > SCHEMA_VERSION) or unknown:
            raise StoreVersionError(
                f"{self.where} was written by a newer memoryos (schema {found[0] if found else '?'} >"
                f" {SCHEMA_VERSION}): upgrade memoryos to open it"
            )

    def _apply(self, conn: psycopg.Connection[Any], name: str, script: str, now: int) -> None:
        try:
            conn.execute(script)  # one simple-protocol batch, inside our transaction
            conn.execute("INSERT INTO migrations VALUES (%s, %s)", (name, now))
        except psycopg.Error as exc:
            doing = f"migration {name} of {self.where} failed and was rolled back"
            raise MigrationError(f"{doing}: {translate(exc, self.where, 'migrating')}") from None

    # -- the rest of the port ---------------------------------------------------------------------
    def receipt_key(self) -> bytes:
        """The store's receipt key, kept in `receipt_key` (readable by the owning role only):
        every host sharing the store signs one chain. Made by the first open of a new store."""
        with self.write("receipt_key") as tx:
            found = tx.stored_key()
            if found is not None:
                return found
            if tx.meta_get("store_id") is not None:
                raise StoreError(
                    f"the receipt key of {self.where} is missing (table receipt_key is empty):"
                    " restore it from backup"
                )
            tx.store_key(secrets.token_bytes(KEY_BYTES))
            stored = tx.stored_key()
        if stored is None:
            raise StoreError(f"the receipt key of {self.where} could not be stored")
        return stored

    def marked_chain(self, key: bytes) -> str | None:
        """The chain this store's head row records (a store whose meta was lost keeps its chain)."""
        with self.read() as tx:
            return tx.only_chain()

    def bind_receipts(self, chain_id: str, key: bytes) -> None:
        self.chain_id, self.key = chain_id, key

    @property
    def mark_failures(self) -> int:
        return 0  # the chain head is a row of the same transaction: it cannot fail apart from it

    def mark_findings(self) -> list[str]:
        """Receipts the chain head row says were committed and the outbox lacks."""
        with self.read() as tx:
            head = tx.chain_head(self.chain_id)
            outbox = tx.outbox_head()
            if head is None or head[0] == 0:
                return []
            if head[0] > outbox:
                return [
                    f"{head[0] - outbox} acknowledged receipts are missing: the chain head says seq"
                    f" {head[0]}, the outbox ends at {outbox} (rows deleted)"
                ]
            if tx.outbox_link(head[0]) != head[1]:
                return [f"the receipt at seq {head[0]} is not the one the chain head recorded (rewritten)"]
            return []

    def meta(self, name: str) -> str | None:
        with self.read() as tx:
            return tx.meta_get(name)

    def set_meta_if_absent(self, name: str, value: str) -> str:
        with self.write("meta") as tx:
            return tx.meta_setdefault(name, value)

    def scrub(self) -> bool:
        """After an erasure: VACUUM the tables it touched, so the dead tuples holding erased text
        are removed now rather than by autovacuum later. False when VACUUM could not run (a role
        that does not own the tables), or when an older snapshot kept them (PostgreSQL keeps dead
        tuples any open transaction may still see)."""
        with self._translated(), self._live_pool().connection() as conn:
            try:
                conn.execute(f"VACUUM {', '.join(ERASED_TABLES)}")
            except psycopg.errors.InsufficientPrivilege:
                return False
            oldest = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_xmin IS NOT NULL AND pid != pg_backend_pid()"
            ).fetchone()
            return not (oldest and oldest[0])

    def integrity(self) -> list[str]:
        with self._reader() as conn:
            return integrity(conn)

    def close(self) -> None:
        self._close_quietly()

    def _close_quietly(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    @property
    def closed(self) -> bool:
        return self._pool is None
