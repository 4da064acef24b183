"""The PostgreSQL backend's transaction: the shared rows (memoryos/store/sql_common.py) over a
psycopg connection that takes `?` markers, plus what this dialect does its own way.

The receipt chain's head is a row (`receipt_chains`) locked `FOR UPDATE` when the receipts are
sealed, just before COMMIT: concurrent writers seal one after another, in commit order, so the seq
of a chain is gapless and ordered as the commits are, while the rest of each transaction runs in
parallel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack, suppress
from datetime import datetime
from typing import Any

import orjson
import psycopg

from memoryos.errors import StoreError
from memoryos.store.base import Transaction
from memoryos.store.postgres_errors import guard, is_lost_connection
from memoryos.store.rows import Segment, SegmentHead, Unit
from memoryos.store.sql_common import CommonRows
from memoryos.store.sql_rows import INSERT_UNIT, PAGE_COLUMNS, page_update, row_of, sources_of
from memoryos.store.sql_segments import OPEN_HEADS_SQL, SELECT_SEGMENT, segment_of_row
from receipts import ZERO_HASH, ChainHead, Sealed, seal_all


@functools.lru_cache(maxsize=512)
def dialect(sql: str) -> str:
    """The shared `?` markers as psycopg's `%s` (no shared statement holds a literal `?` or `%`)."""
    return sql.replace("%", "%%").replace("?", "%s")


class Sent:
    """One statement of the batch not yet answered, and the cursor its answer lands on."""

    __slots__ = ("_cursor", "many", "params", "sql")

    def __init__(self, sql: str, params: Any, many: bool) -> None:
        self.sql, self.params, self.many = sql, params, many
        self._cursor: psycopg.Cursor[Any] | None = None

    @property
    def cursor(self) -> psycopg.Cursor[Any]:
        if self._cursor is None:  # only read once its round trip has answered it
            raise StoreError("a statement was read before it was sent; nothing was written")
        return self._cursor

    @property
    def answered(self) -> bool:
        return self._cursor is not None and self._cursor.pgresult is not None

    def run(self, raw: psycopg.Connection[Any]) -> None:
        self._cursor = raw.cursor()
        if self.many:
            self._cursor.executemany(self.sql, self.params)
        else:
            self._cursor.execute(self.sql, self.params)


def _first_failure(exc: psycopg.Error) -> psycopg.Error:
    """The error of a pipeline's first failed statement. Leaving pipeline mode reports the
    statements skipped after it (PipelineAborted), raised over it: the first is its context."""
    found = exc
    while isinstance(found, psycopg.errors.PipelineAborted) and isinstance(found.__context__, psycopg.Error):
        found = found.__context__
    return found


#: How psycopg names the statements it prepares (_preparing.PrepareManager.get): `_pg3_<index>`.
_PREPARED_PREFIX = b"_pg3_"


#: The parts of psycopg's private PrepareManager that the two mends below use.
_MANAGER_PARTS = ("_prepared_idx", "_names", "_to_flush", "maintain_gen")


def prepares_safely(raw: psycopg.Connection[Any]) -> bool:
    """Whether server-side prepared statements can stay on for `raw`: they can while psycopg's
    prepared-statement manager has the parts the mends below use. A psycopg that renamed them
    gets `prepare_threshold = None` (the store's pool configure step): every statement is then
    planned each time, but the two bugs the mends work around cannot happen."""
    manager = getattr(raw, "_prepared", None)
    return all(hasattr(manager, part) for part in _MANAGER_PARTS)


def prepared_index(raw: psycopg.Connection[Any]) -> int:
    """The index psycopg gives the next statement it prepares on `raw` (they only grow)."""
    if raw.prepare_threshold is None:
        return 0
    return raw._prepared._prepared_idx


def forget_prepared(raw: psycopg.Connection[Any], since: int) -> None:
    """Forget the statements psycopg prepared on `raw` from index `since` on: they may not exist.

    psycopg (3.3.9, the latest, and before) records a statement as prepared when it sends its
    Parse, and in pipeline mode checks the answer only for a statement new to its cache. A
    statement prepared on its third run (prepare_threshold=2) in a batch that an earlier
    statement's error aborted is skipped by the server, Parse and all, yet kept as prepared: its
    next run fails with InvalidSqlStatementName ("prepared statement "_pg3_N" does not exist"),
    e.g. the COMMIT sent again after a lost optimistic seal. Forgotten, it is prepared again under
    a new name; one the server did prepare is left unused until the connection closes."""
    if raw.prepare_threshold is None:
        return
    names = raw._prepared._names
    for key, name in list(names.items()):
        if name.startswith(_PREPARED_PREFIX) and int(name[len(_PREPARED_PREFIX) :]) >= since:
            del names[key]


def maintain_prepared(raw: psycopg.Connection[Any]) -> None:
    """Queue now what psycopg has left to tell the server about its prepared statements.

    After a ROLLBACK (also ROLLBACK TO SAVEPOINT) psycopg empties its cache and owes the server a
    DEALLOCATE ALL, which it sends after the next statement it runs. executemany prepares its
    statement at once: the DEALLOCATE ALL sent after it drops that statement, which psycopg keeps
    as prepared, and the next run fails with InvalidSqlStatementName. Sent first, it drops only
    what psycopg has forgotten."""
    if raw.prepare_threshold is None:
        return
    manager = raw._prepared
    if manager._to_flush:
        raw.wait(manager.maintain_gen(raw))


#: A new connection in place of one found broken, for replaying a transaction's first batch.
Reconnect = Callable[[psycopg.Connection[Any]], psycopg.Connection[Any]]


class Marked:
    """A psycopg connection with the execute/executemany of sqlite3 (`?` markers).

    Inside a transaction the connection is in pipeline mode: `later` queues a statement whose
    answer nobody waits for (BEGIN, a lock, an insert whose failure fails the transaction anyway),
    and it goes to the server with the next statement that is answered (`execute`), in one round
    trip. Errors are raised only there, once the pipeline is back in step with the server (psycopg
    may read an earlier statement's error while sending a later one: it is kept until then), and
    as the first failed statement's error, not the skipped ones' after it. Until its first answer,
    a transaction has shown the caller nothing, so a connection found broken then (a server
    restart since it was pooled) is replaced and the batch sent again (`reconnect`), as BEGIN was
    retried before it was queued."""

    def __init__(self, raw: psycopg.Connection[Any], reconnect: Reconnect | None = None) -> None:
        self.raw = raw
        self.returned = False  # `raw` went back to the pool while it was being replaced
        self._reconnect = reconnect
        self._stack: ExitStack | None = None
        self._pipe: psycopg.Pipeline | None = None
        self._batch: list[Sent] = []
        self._failure: psycopg.Error | None = None  # met while queueing: raised at the round trip
        self._named_from = 0  # psycopg's prepared index when the batch began (forget_prepared)
        self._fresh = False
        self.statements = 0  # statements sent in this transaction: what a cached answer is valid for
        self.round_trips = 0
        #: Called before each round trip, to queue what is worth asking on the way (the chain head).
        self.before_sync: Callable[[], None] | None = None

    @property
    def fresh(self) -> bool:
        """Nothing of this transaction has been answered yet."""
        return self._fresh

    # -- the transaction's pipeline ----------------------------------------------------------------
    def begin(self, *statements: str) -> None:
        """Enter pipeline mode and queue the statements that start the transaction."""
        self._enter()
        self._fresh = True
        for statement in statements:
            self.later(statement)

    def _enter(self) -> None:
        self._stack = ExitStack()
        self._pipe = self._stack.enter_context(self.raw.pipeline())

    def leave(self) -> None:
        """Leave pipeline mode: what is still queued is sent, and every answer read."""
        stack, self._stack, self._pipe = self._stack, None, None
        self._batch.clear()
        self._failure = None
        if stack is not None:
            try:
                stack.close()
            except psycopg.Error:
                forget_prepared(self.raw, self._named_from)  # the batch failed: see there
                raise

    def finish(self, *statements: str | tuple[str, Sequence[Any]]) -> None:
        """Queue the statements that end the transaction and leave pipeline mode: their answers and
        the pipeline's own last Sync in one round trip. Raises the first error among them."""
        if self._pipe is None:
            self._enter()
        for statement in statements:
            sql, params = (statement, ()) if isinstance(statement, str) else statement
            self.later(sql, params)
        self.round_trips += 1
        failure = self._failure
        try:
            self.leave()
        except psycopg.Error as exc:
            failure = failure or exc
        if failure is not None:
            forget_prepared(self.raw, self._named_from)
            raise _first_failure(failure) from None

    def resume(self) -> None:
        """Back into pipeline mode inside the same transaction (after finish() raised)."""
        if self._pipe is None:
            self._enter()

    # -- statements ------------------------------------------------------------------------------
    def later(self, sql: str, parameters: Sequence[Any] = (), /) -> Sent:
        """Queue a statement; outside a transaction's pipeline it runs at once."""
        return self._send(Sent(dialect(sql), parameters or None, False))

    def later_many(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Sent | None:
        rows = list(parameters)
        return self._send(Sent(dialect(sql), rows, True)) if rows else None

    def _send(self, sent: Sent) -> Sent:
        self.statements += 1
        if self._pipe is None:
            if sent.many:
                maintain_prepared(self.raw)
            sent.run(self.raw)
            return sent
        if not self._batch:
            self._named_from = prepared_index(self.raw)
        self._batch.append(sent)
        if self._failure is None:  # after a failure the server skips the rest until the Sync
            try:
                if sent.many:
                    maintain_prepared(self.raw)
                sent.run(self.raw)
            except psycopg.Error as exc:
                self._failure = exc
        return sent

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        sent = self.later(sql, parameters)
        self.sync()
        return sent.cursor

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> psycopg.Cursor[Any]:
        sent = self.later_many(sql, parameters)
        if sent is None:
            return self.raw.cursor()  # nothing to run: no rows, rowcount -1
        self.sync()
        return sent.cursor

    def sync(self) -> None:
        """Send what is queued and read every answer: one round trip."""
        if self._pipe is None:
            return
        if self.before_sync is not None:
            self.before_sync()
        self.round_trips += 1
        failure = self._exchange()
        if failure is not None:
            batch = list(self._batch)
            self._quit()
            if not self._replayable(failure, batch):
                raise failure from None
            self._replay(batch)
        self._fresh = False
        self._batch.clear()

    def _exchange(self) -> psycopg.Error | None:
        failure, self._failure = self._failure, None
        if failure is None:
            assert self._pipe is not None
            try:
                self._pipe.sync()
            except psycopg.Error as exc:
                failure = exc
        if failure is None:
            return None
        forget_prepared(self.raw, self._named_from)  # what the failure skipped was never prepared
        return _first_failure(failure)

    def _quit(self) -> None:
        """Out of pipeline mode after a failure: leaving reads what it left unanswered."""
        with suppress(psycopg.Error):
            self.leave()

    def _replayable(self, failure: psycopg.Error, batch: Sequence[Sent]) -> bool:
        committing = any(s.sql.startswith("COMMIT") for s in batch)
        return self._fresh and not committing and self._reconnect is not None and is_lost_connection(failure)

    def _replay(self, batch: Sequence[Sent]) -> None:
        """The first batch again on a new connection (the broken one's transaction died with it)."""
        assert self._reconnect is not None
        self.returned = True  # the reconnect hands the broken one back first: never return it twice
        self.raw = self._reconnect(self.raw)
        self.returned = False
        self._enter()
        for sent in batch:
            self._send(sent)
        failure = self._exchange()
        if failure is not None:
            self._quit()
            raise failure from None


#: The chain head moves and the receipts are appended in one statement, in that order (the head's
#: UPDATE runs first, as the InitPlan of the insert): whoever inserts into the outbox holds the head
#: row, so two sealers never wait on each other's outbox rows (no deadlock). The head moves only
#: from the seq it was sealed on; when another transaction moved it first, the first receipt's seq
#: is taken already and the insert fails (receipt_outbox_pkey): see PostgresTransaction.commit.
#: The receipts come as one JSON array of rows, each line in hex (see _TURNS_INTO_PAGES for why).
_SEAL = (
    "WITH head AS (UPDATE receipt_chains SET seq = ?, link = ? WHERE chain_id = ? AND seq = ? RETURNING seq)"
    " INSERT INTO receipt_outbox (seq, chain_id, receipt_id, run_id, link, body)"
    " SELECT CAST(r->>0 AS BIGINT), ?, r->>1, r->>2, r->>3, decode(r->>4, 'hex')"
    " FROM json_array_elements(CAST(? AS json)) AS r WHERE (SELECT count(*) FROM head) >= 0"
)
_START_CHAIN = (
    "INSERT INTO receipt_chains (chain_id, seq, link)"
    " SELECT ?, coalesce(max(seq), 0),"
    " coalesce((SELECT link FROM receipt_outbox ORDER BY seq DESC LIMIT 1), ?)"
    " FROM receipt_outbox ON CONFLICT DO NOTHING"
)
_HEAD = "SELECT seq, link FROM receipt_chains WHERE chain_id = ?"
#: What every memoryos connection calls itself (PostgresStore's pool sets it).
APPLICATION = "memoryos"
#: The other memoryos writers of this database in flight: their transactions have written (they
#: hold an xid) and not yet committed. pg_stat_get_activity reads the backends' shared status; xids
#: are shown to every role, unlike the query or wait columns. No lock is taken: a probe made of
#: transaction-scoped advisory try-locks (a session-level lock released in the same expression is
#: not allowed on pooled connections) has to keep the lock it was granted to its commit, and a
#: writer that starts meanwhile goes unmarked: with eight writers 46% of remember()s sealed on a
#: guessed head and 19% were sealed again, against 3% and 1% with this count
#: (bench/results/postgres.md, 2026-12-02).
_RIVALS = (
    "(SELECT count(*) FROM pg_stat_get_activity(NULL) AS a"
    " WHERE a.datid = (SELECT oid FROM pg_database WHERE datname = current_database())"
    f" AND a.application_name = '{APPLICATION}' AND a.backend_xid IS NOT NULL"
    " AND a.pid <> pg_backend_pid())"
)
#: The chain head read unlocked, and the rivals in flight (its parameter: the chain id). A chain
#: with no head row yet answers NULLs: its first seal is made on the locked head.
_PEEKED = (
    f"(SELECT h.seq, h.link, w.rivals FROM (SELECT {_RIVALS} AS rivals) AS w"
    " LEFT JOIN receipt_chains AS h ON h.chain_id = ?)"
)
_PEEK = f"SELECT seq, link, rivals FROM {_PEEKED} AS p"
#: An STM turn's insert, answering its rowid and the STM count of its scope before it.
_INSERT_TURN = (
    f"WITH added AS ({INSERT_UNIT} RETURNING rowid) SELECT (SELECT rowid FROM added),"
    " (SELECT count(*) FROM units WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?)"
)
#: The same, on a transaction's first round trip: with the chain head and the rivals (_PEEK's),
#: one statement where two were sent (remember()'s first round trip is its BEGIN and this).
_INSERT_TURN_PEEKING = f"{_INSERT_TURN}, p.seq, p.link, p.rivals FROM {_PEEKED} AS p"
#: PostgreSQL's type of each column a turn becomes its page by (sql_rows.PAGE_COLUMNS), and its rowid.
_PAGE_TYPES = {"version": "INTEGER", "last_seen": "BIGINT", "rowid": "BIGINT"}
_PAGED = (*PAGE_COLUMNS, "rowid")
#: sql_rows.TURN_INTO_PAGE for every turn of a promotion in one statement, its rows as one JSON
#: array of arrays: one statement instead of one per turn, and one parameter orjson renders, where
#: psycopg would render one per value (or escape every element of an array) in Python. The rows
#: were locked by the promotion's claim (stm_rowids), so the order they are updated in cannot
#: deadlock.
_TURNS_INTO_PAGES = (
    f"UPDATE units SET {', '.join(f'{c} = p.{c}' for c in PAGE_COLUMNS)}"
    " FROM (SELECT "
    + ", ".join(f"CAST(r->>{i} AS {_PAGE_TYPES.get(c, 'TEXT')}) AS {c}" for i, c in enumerate(_PAGED))
    + " FROM json_array_elements(CAST(? AS json)) AS r) AS p"
    " WHERE units.rowid = p.rowid AND units.tier = 'stm'"
)
#: sql_rows.INSERT_SOURCE for many pairs in one statement, the same way (DO NOTHING also skips a
#: pair given twice).
_INSERT_SOURCES = (
    "INSERT INTO unit_sources (source_id, memory_id)"
    " SELECT r->>0, r->>1 FROM json_array_elements(CAST(? AS json)) AS r ON CONFLICT DO NOTHING"
)


#: Every turn of the promotion moved (its parameter: how many): else the transaction fails. The
#: pages are sent with the COMMIT (nobody waits for their answer), so the server checks it.
_ALL_MOVED = guard(
    "count(*) = CAST(? AS INTEGER)", "a turn left STM during its own promotion; the promotion is rolled back"
)
_TURNS_INTO_PAGES_GUARDED = f"WITH moved AS ({_TURNS_INTO_PAGES} RETURNING 1) SELECT {_ALL_MOVED} FROM moved"
#: _TURNS_INTO_PAGES and the pages' lineage (_INSERT_SOURCES) in one statement, guarded the same
#: way (the tables differ and no row of unit_sources is another writer's: the pages' memory ids
#: are new).
_TURNS_INTO_PAGES_WITH_SOURCES = (
    f"WITH moved AS ({_TURNS_INTO_PAGES} RETURNING 1), sourced AS ({_INSERT_SOURCES})"
    f" SELECT {_ALL_MOVED} FROM moved"
)
#: A promotion's claim (stm_rowids).
_CLAIM = (
    "SELECT memory_id, rowid FROM units WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?"
    " AND memory_id = ANY(?) ORDER BY rowid FOR UPDATE"
)
#: The same, on a transaction's first round trip: with the chain head and the rivals (_PEEK's) on
#: every row, read once (a MATERIALIZED CTE: the probe runs once, not once per turn).
_CLAIM_PEEKING = (
    f"WITH p AS MATERIALIZED {_PEEKED} SELECT u.memory_id, u.rowid, p.seq, p.link, p.rivals"
    " FROM units AS u, p WHERE u.tier = 'stm' AND u.user_scope = ? AND u.assistant_scope = ?"
    " AND u.memory_id = ANY(?) ORDER BY u.rowid FOR UPDATE OF u"
)
#: sql_segments.grow_segments for many segments in one statement, the same way. A promotion locked
#: the segments it grows (last_pages), in id order, before: the order this updates them in cannot
#: deadlock; the rows come in id order all the same.
_GROW_SEGMENTS = (
    "UPDATE segments SET keywords = g.keywords, interactions = interactions + g.joined,"
    " version = version + g.joined, pages = pages + g.joined"
    " FROM (SELECT r->>0 AS segment_id, r->>1 AS keywords, CAST(r->>2 AS INTEGER) AS joined"
    " FROM json_array_elements(CAST(? AS json)) AS r) AS g WHERE segments.segment_id = g.segment_id"
)


def _json_rows(rows: Sequence[Sequence[Any]]) -> str:
    """Rows as the one JSON parameter of a statement that reads them with json_array_elements."""
    return orjson.dumps(rows).decode()


#: The advisory lock class of a key's writers (the two-int key space: apart from MIGRATION_LOCK's).
KEY_LOCK_CLASS = 0x6B6579
_KEY_LOCK = f"SELECT pg_advisory_xact_lock({KEY_LOCK_CLASS}, hashtext(?))"
_TAKEN = "receipt_outbox_pkey"
_SAVEPOINT = "receipts"


def seal_optimistically(rivals: int) -> bool:
    """Seal on the head read unlocked only when no other writer was in flight as it was read
    (`rivals`: 0 when none was, else at least 1).

    A rival in flight then has already written and is nearer its commit than we are: it most
    likely takes the seq the guess is made on, and a lost guess costs more than the round trip
    the locked seal spends (a rollback to the savepoint, the locked head, a second seal, and the
    aborted pipeline's error path). Lost seals are the wrong thing to count: measured with 8
    writers on a quiet machine, guessing lowered throughput while only 9% of guesses were lost,
    and a writer sealing on the locked head learns nothing about the guesses it does not make."""
    return rivals == 0


def _outbox_row(sealed: Sealed) -> tuple[int, str, str, str, str]:
    """A sealed receipt as _SEAL reads it: seq, receipt id, run id, link, the line in hex."""
    receipt = sealed.receipt
    return (sealed.head.seq, receipt["receiptId"], receipt["runId"], sealed.head.link, sealed.line.hex())


def _head_of(chain_id: str, row: Sequence[Any]) -> ChainHead:
    return ChainHead(chain_id, int(row[0]), str(row[1])) if row[0] else ChainHead(chain_id)


class ReadAhead:
    """What a store's promotions read right after their claim: the open segments under the page
    limit they asked with last (`max_pages`). The next claim sends that read with it, in its own
    round trip; the read's snapshot is still taken after the claim's row locks are granted (the
    statements of a pipeline run one after another), so it sees what a promotion it waited for
    committed."""

    __slots__ = ("max_pages",)

    def __init__(self) -> None:
        self.max_pages: int | None = None


class PostgresTransaction(CommonRows, Transaction):
    """Domain operations inside one transaction. Receipts are sealed just before COMMIT.

    Sealing is optimistic: the chain head is read, unlocked, on a round trip the transaction makes
    anyway, and the receipts are sealed on it and sent with the COMMIT, so the head row is locked
    only while the server runs that last statement and commits (not while this process seals).
    When another transaction moved the head meanwhile, the seal is rolled back to its savepoint
    and done again on the head locked FOR UPDATE: the seq stays gapless and in commit order.
    The head is read once, on the transaction's first round trip, with the other writers of the
    chain in flight then (_RIVALS); while there is any, the receipts are sealed on the locked
    head instead (seal_optimistically). A later read would be fresher, but only the last one
    could be used and which round trip is the last is not known when it is sent: a promotion
    read the head on three of them, two for nothing."""

    _conn: Marked

    def __init__(
        self,
        conn: Marked,
        chain_id: str,
        key: bytes,
        clock: Callable[[], datetime],
        *,
        writing: bool,
        ahead: ReadAhead | None = None,
    ):
        self._conn = conn
        self._ahead = ahead
        #: The open segment heads read with the claim: (arguments, its statement, statements sent then).
        self._heads_ahead: tuple[tuple[str, str, int], Sent, int] | None = None
        self._writing = writing
        self._chain_id = chain_id
        self._key = key
        self._clock = clock
        self._drafts: list[dict[str, Any]] = []
        self._seal: tuple[Any, ...] | None = None
        self._peeked: Sent | None = None  # the unlocked read of the chain head, to be answered
        self._head_read: Sequence[Any] | None = None  # its answer: seq, link, rivals
        self._reads_head = writing and bool(chain_id)  # the head read is still to be sent
        self._locked = False  # sealed on the head locked FOR UPDATE (no rival can move it)
        self.guessed = False  # sealed first on the head read unlocked (an optimistic seal)
        self._stm_count: tuple[tuple[str, str], int, int] | None = None
        self.sealed: tuple[int, str, str] | None = None  # (seq, link, receipt id) of the last one sealed
        self.conflicts = 0  # optimistic seals another transaction's receipts got ahead of
        if writing and chain_id:
            conn.before_sync = self._peek_head

    # -- receipts -------------------------------------------------------------------------------
    def emit(self, draft: Mapping[str, Any]) -> None:
        self._drafts.append(dict(draft))

    def _peek_head(self) -> None:
        """On the transaction's first round trip, read the chain head too (no lock, no extra
        round trip), unless its first statement read it (insert_unit): flush_receipts seals on it."""
        if self._peeks_now():
            self._reads_head = False
            self._peeked = self._conn.later(_PEEK, (self._chain_id,))

    def _peeks_now(self) -> bool:
        """The statement being queued goes on the round trip that is to read the chain head."""
        return self._reads_head and self._seal is None and self._conn.fresh

    def _peeked_head(self) -> ChainHead | None:
        """The head read unlocked, if the receipts are to be sealed on it (else None)."""
        peeked, self._peeked = self._peeked, None
        if peeked is not None and peeked.answered:
            self._head_read = peeked.cursor.fetchone()
        row, self._head_read = self._head_read, None
        if row is None or row[0] is None or not seal_optimistically(int(row[2])):
            return None  # never answered (the transaction failed before), no chain yet (it is made
            # under the lock), or a rival about to commit: seal on the locked head
        return _head_of(self._chain_id, row)

    def _locked_head(self) -> ChainHead:
        self._locked = True
        sql = _HEAD + " FOR UPDATE"
        row = self._conn.execute(sql, (self._chain_id,)).fetchone()
        if row is None:  # the chain's first receipt in this store
            self._conn.execute(_START_CHAIN, (self._chain_id, ZERO_HASH))
            row = self._conn.execute(sql, (self._chain_id,)).fetchone()
            if row is None:
                raise StoreError("the receipt chain's head row could not be made; nothing was written")
        return _head_of(self._chain_id, row)

    def flush_receipts(self) -> int:
        """Seal pending drafts onto the chain head read on the first round trip (or, without one or
        when a rival was in flight as it was read, on the head locked now); commit() sends them
        with the COMMIT."""
        if not self._drafts:
            return 0
        self._conn.before_sync = None  # what is asked from now on is the seal's own business
        head = self._peeked_head()
        self.guessed = head is not None
        self._seal_on(head if head is not None else self._locked_head())
        return len(self._drafts)

    def _seal_on(self, head: ChainHead) -> None:
        sealed = seal_all(self._drafts, head, self._key, self._clock())
        rows = [_outbox_row(r) for r in sealed]
        last, chain = sealed[-1], self._chain_id
        self._seal = (last.head.seq, last.head.link, chain, head.seq, chain, _json_rows(rows))
        self.sealed = (last.head.seq, last.head.link, str(last.receipt["receiptId"]))

    def commit(self) -> None:
        """The sealed receipts and COMMIT in one round trip. An optimistic seal goes under a
        savepoint: when its first seq was taken by a rival that committed first, it is rolled back
        to it, sealed again on the locked head, and sent again; the rest of the transaction stays."""
        if self._seal is None:
            self._conn.finish("COMMIT")
            return
        if not self._locked:
            try:
                self._conn.finish(f"SAVEPOINT {_SAVEPOINT}", (_SEAL, self._seal), "COMMIT")
                return
            except psycopg.errors.UniqueViolation as exc:
                if exc.diag.constraint_name != _TAKEN:
                    raise
            self.conflicts += 1
            self._conn.resume()
            self._conn.later(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
            self._seal_on(self._locked_head())
        self._conn.finish((_SEAL, self._seal), "COMMIT")

    # -- units ----------------------------------------------------------------------------------
    def insert_unit(self, unit: Unit) -> int:
        """An STM turn's insert also counts its scope's STM (what remember() asks next), so that
        count_stm right after it is answered without another round trip."""
        if unit.tier != "stm":
            rowid = self._one(INSERT_UNIT + " RETURNING rowid", row_of(unit))
            self._add_sources(sources_of(unit))
            return int(rowid)
        scope = (unit.user_scope, unit.assistant_scope)
        if self._peeks_now():
            self._reads_head = False
            row = self._conn.execute(_INSERT_TURN_PEEKING, (*row_of(unit), *scope, self._chain_id)).fetchone()
            self._head_read = None if row is None else row[2:]
        else:
            row = self._conn.execute(_INSERT_TURN, (*row_of(unit), *scope)).fetchone()
        if row is None:  # an INSERT ... RETURNING answers its row, or fails
            raise StoreError("the turn's insert answered nothing; nothing was written")
        self._stm_count = (scope, int(row[1]) + 1, self._conn.statements)  # +1: the insert's own row
        self._add_sources(sources_of(unit))
        return int(row[0])

    def count_stm(self, user: str, assistant: str) -> int:
        known = self._stm_count
        if known is not None and known[0] == (user, assistant) and known[2] == self._conn.statements:
            return known[1]  # no statement of this transaction since the insert that counted it
        return super().count_stm(user, assistant)

    def insert_units(self, units: Sequence[Unit]) -> None:
        self._conn.executemany(INSERT_UNIT, [row_of(u) for u in units])
        self._add_sources([pair for u in units for pair in sources_of(u)])

    def turn_into_pages(self, moves: Sequence[tuple[int, Unit]]) -> None:
        # `terms` is not written, so the search trigger (UPDATE OF terms) does not fire: the page
        # has the turn's body, key and kind, hence its postings, under the same rowid. A turn that
        # another transaction promoted meanwhile no longer matches `tier = 'stm'` once its lock
        # is released, so it is counted missing and this promotion rolls back.
        # Nothing of this promotion reads what it writes before the COMMIT, so it goes with the
        # COMMIT's round trip, the count of moved turns checked by the server (_ALL_MOVED).
        if not moves:
            return
        updates = _json_rows([page_update(rowid, page) for rowid, page in moves])
        sources = [pair for _, u in moves for pair in sources_of(u)]
        if sources:
            self._conn.later(_TURNS_INTO_PAGES_WITH_SOURCES, (updates, _json_rows(sources), len(moves)))
        else:
            self._conn.later(_TURNS_INTO_PAGES_GUARDED, (updates, len(moves)))

    def _add_sources(self, pairs: Sequence[tuple[str, str]]) -> None:
        if pairs:
            self._conn.later(_INSERT_SOURCES, (_json_rows(pairs),))

    def _later_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.later_many(sql, rows)

    def key_versions(self, user: str, assistant: str, key: str) -> list[Unit]:
        """In a write, the key is locked first (a transaction-scoped advisory lock on its hash):
        two writers of one key (put, correct, extraction) take turns, the second reading the
        versions the first committed, instead of both adding the same version."""
        if self._writing:
            self._conn.later(_KEY_LOCK, (f"{user}\x1f{assistant}\x1f{key}",))
        return super().key_versions(user, assistant, key)

    # -- claims: what SQLite's single writer gives for free, row locks give here --------------------
    def stm_rowids(self, user: str, assistant: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """A promotion's claim: the turns are locked (in rowid order, so two claims cannot
        deadlock) and one another promotion took meanwhile is no longer `tier = 'stm'` once its
        lock is released, so it is left out."""
        if not memory_ids:
            return {}
        claim = (user, assistant, list(memory_ids))
        peeking = self._peeks_now()
        if peeking:
            self._reads_head = False  # this statement reads it (when it claims any turn)
            sent = self._conn.later(_CLAIM_PEEKING, (self._chain_id, *claim))
        else:
            sent = self._conn.later(_CLAIM, claim)
        self._read_heads_ahead(user, assistant)
        self._conn.sync()
        rows = sent.cursor.fetchall()
        if peeking:
            self._head_read = rows[0][2:] if rows else None
        return {str(row[0]): int(row[1]) for row in rows}

    def _read_heads_ahead(self, user: str, assistant: str) -> None:
        max_pages = None if self._ahead is None else self._ahead.max_pages
        if max_pages is not None:
            sent = self._conn.later(OPEN_HEADS_SQL, (user, assistant, max_pages))
            self._heads_ahead = ((user, assistant, max_pages), sent, self._conn.statements)

    def open_segment_heads(self, user: str, assistant: str, max_pages: int) -> list[SegmentHead]:
        """Answered by the read sent with the claim when it asked the same and no statement was
        sent since (nothing of this transaction changed the segments in between)."""
        if self._ahead is not None:
            self._ahead.max_pages = max_pages
        ahead, self._heads_ahead = self._heads_ahead, None
        asked = (user, assistant, max_pages)
        if ahead is None or ahead[0] != asked or ahead[2] != self._conn.statements or not ahead[1].answered:
            return super().open_segment_heads(user, assistant, max_pages)
        return [SegmentHead(r[0], r[1], r[2], r[3]) for r in ahead[1].cursor]

    def last_pages(self, segment_ids: Sequence[str]) -> dict[str, int]:
        """In a write, the segments are locked first (in id order): a promotion decides where its
        pages go (in place or at the end, DESIGN: distillation reads pages by rowid) on page
        numbers no concurrent promotion into the same segments can change before it commits. The
        lock and the read go in one round trip, as two statements: the read's snapshot is taken
        after the locks are granted, so it sees the pages of a promotion it waited for."""
        if not segment_ids:
            return {}
        if self._writing:
            self._conn.later(
                "SELECT 1 FROM segments WHERE segment_id = ANY(?) ORDER BY segment_id FOR UPDATE",
                (sorted(segment_ids),),
            )
        rows = self._conn.execute(
            "SELECT s, (SELECT max(rowid) FROM units WHERE segment_id = s)"
            " FROM unnest(CAST(? AS TEXT[])) AS t(s)",
            (list(segment_ids),),
        )
        return {str(s): int(r) for s, r in rows if r is not None}

    def segment(self, segment_id: str) -> Segment | None:
        """In a write, the segment is locked until commit: what a distillation checks it against
        cannot change under it (a promotion growing it waits)."""
        if not self._writing:
            return super().segment(segment_id)
        row = self._conn.execute(
            f"{SELECT_SEGMENT} WHERE segment_id = ? FOR UPDATE", (segment_id,)
        ).fetchone()
        return None if row is None else segment_of_row(row)

    def grow_segments(self, grown: Sequence[tuple[str, dict[str, int], int]]) -> None:
        """sql_segments' update for every grown segment in one statement (one per segment before).
        A segment named twice would be updated once by UPDATE ... FROM: the shared way does both."""
        if len({segment_id for segment_id, _, _ in grown}) < len(grown):
            super().grow_segments(sorted(grown, key=lambda g: g[0]))  # one lock order for every writer
            return
        if grown:
            rows = [(sid, orjson.dumps(keywords).decode(), joined) for sid, keywords, joined in sorted(grown)]
            self._conn.later(_GROW_SEGMENTS, (_json_rows(rows),))

    def claim_cursor(self, name: str) -> int | None:
        """The cursor row locked FOR UPDATE SKIP LOCKED: a second exporter of the same cursor gets
        None at once instead of reading the same receipts. (A cursor's very first claim inserts
        its row; a rival first claim waits for that insert, up to the lock timeout.)"""
        lock = "SELECT seq FROM export_cursors WHERE name = ? FOR UPDATE SKIP LOCKED"
        seq = self._conn.execute(lock, (name,)).fetchone()
        exists = "SELECT 1 FROM export_cursors WHERE name = ?"  # a plain read never waits
        if seq is None and self._one(exists, (name,)) is None:  # no row yet: make it, then claim it
            self._conn.execute("INSERT INTO export_cursors VALUES (?, 0) ON CONFLICT DO NOTHING", (name,))
            seq = self._conn.execute(lock, (name,)).fetchone()
        return None if seq is None else int(seq[0])

    def merge_index(self) -> None:
        """Nothing to merge inside the transaction: the store VACUUMs after an erasure (scrub)."""

    # -- the receipt key (memoryos.store.postgres.PostgresStore.receipt_key) ----------------------
    def stored_key(self) -> bytes | None:
        value = self._one("SELECT key FROM receipt_key WHERE id = 1")
        return None if value is None else bytes(value)

    def store_key(self, key: bytes) -> None:
        self._conn.execute("INSERT INTO receipt_key (id, key) VALUES (1, ?) ON CONFLICT DO NOTHING", (key,))

    def chain_head(self, chain_id: str) -> tuple[int, str] | None:
        row = self._conn.execute(
            "SELECT seq, link FROM receipt_chains WHERE chain_id = ?", (chain_id,)
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def only_chain(self) -> str | None:
        rows = self._conn.execute("SELECT chain_id FROM receipt_chains LIMIT 2").fetchall()
        return str(rows[0][0]) if len(rows) == 1 else None
