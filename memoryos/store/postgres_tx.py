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
from datetime import datetime
from typing import Any

import psycopg

from memoryos.errors import StoreError
from memoryos.store.base import Transaction
from memoryos.store.rows import Segment, Unit
from memoryos.store.sql_common import CommonRows
from memoryos.store.sql_rows import (
    INSERT_SOURCE,
    INSERT_UNIT,
    TURN_INTO_PAGE,
    page_update,
    row_of,
    sources_of,
)
from memoryos.store.sql_segments import SELECT_SEGMENT, segment_of_row
from receipts import ZERO_HASH, ChainHead, seal_all


@functools.lru_cache(maxsize=512)
def dialect(sql: str) -> str:
    """The shared `?` markers as psycopg's `%s` (no shared statement holds a literal `?` or `%`)."""
    return sql.replace("%", "%%").replace("?", "%s")


class Marked:
    """A psycopg connection with the execute/executemany of sqlite3 (`?` markers)."""

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        return self.raw.execute(dialect(sql), parameters or None)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> psycopg.Cursor[Any]:
        cursor = self.raw.cursor()
        rows = list(parameters)
        if rows:  # psycopg sends the batch in one pipeline
            cursor.executemany(dialect(sql), rows)
        return cursor


_SEAL = (
    "WITH added AS (INSERT INTO receipt_outbox (seq, chain_id, receipt_id, run_id, link, body)"
    " SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[]), CAST(? AS BYTEA[])))"
    " UPDATE receipt_chains SET seq = ?, link = ? WHERE chain_id = ?"
)
_START_CHAIN = (
    "INSERT INTO receipt_chains (chain_id, seq, link)"
    " SELECT ?, coalesce(max(seq), 0),"
    " coalesce((SELECT link FROM receipt_outbox ORDER BY seq DESC LIMIT 1), ?)"
    " FROM receipt_outbox ON CONFLICT DO NOTHING"
)


class PostgresTransaction(CommonRows, Transaction):
    """Domain operations inside one transaction. Receipts are sealed just before COMMIT."""

    _conn: Marked

    def __init__(
        self, conn: Marked, chain_id: str, key: bytes, clock: Callable[[], datetime], *, writing: bool
    ):
        self._conn = conn
        self._writing = writing
        self._chain_id = chain_id
        self._key = key
        self._clock = clock
        self._drafts: list[dict[str, Any]] = []
        self._seal: tuple[Any, ...] | None = None
        self.sealed: tuple[int, str, str] | None = None  # (seq, link, receipt id) of the last one sealed

    # -- receipts -------------------------------------------------------------------------------
    def emit(self, draft: Mapping[str, Any]) -> None:
        self._drafts.append(dict(draft))

    def _locked_head(self) -> ChainHead:
        sql = "SELECT seq, link FROM receipt_chains WHERE chain_id = ? FOR UPDATE"
        row = self._conn.execute(sql, (self._chain_id,)).fetchone()
        if row is None:  # the chain's first receipt in this store
            self._conn.execute(_START_CHAIN, (self._chain_id, ZERO_HASH))
            row = self._conn.execute(sql, (self._chain_id,)).fetchone()
            if row is None:
                raise StoreError("the receipt chain's head row could not be made; nothing was written")
        return ChainHead(self._chain_id, int(row[0]), str(row[1])) if row[0] else ChainHead(self._chain_id)

    def flush_receipts(self) -> int:
        """Seal pending drafts onto the chain head, locked until this transaction ends; commit()
        inserts them with the new head in one statement, sent with the COMMIT."""
        if not self._drafts:
            return 0
        sealed = seal_all(self._drafts, self._locked_head(), self._key, self._clock())
        columns: list[list[Any]] = [[], [], [], [], [], []]
        for s in sealed:
            row = (
                s.head.seq,
                self._chain_id,
                s.receipt["receiptId"],
                s.receipt["runId"],
                s.head.link,
                s.line,
            )
            for column, value in zip(columns, row, strict=True):
                column.append(value)
        last = sealed[-1]
        self._seal = (*columns, last.head.seq, last.head.link, self._chain_id)
        self.sealed = (last.head.seq, last.head.link, str(last.receipt["receiptId"]))
        count = len(self._drafts)
        self._drafts.clear()
        return count

    def commit(self) -> None:
        """The sealed receipts and COMMIT in one round trip (a pipeline: COMMIT is not sent on its
        own after them, and a failed insert fails the COMMIT too)."""
        raw = self._conn.raw
        with raw.pipeline():
            if self._seal is not None:
                self._conn.execute(_SEAL, self._seal)
            raw.execute("COMMIT")

    # -- units ----------------------------------------------------------------------------------
    def insert_unit(self, unit: Unit) -> int:
        rowid = self._one(INSERT_UNIT + " RETURNING rowid", row_of(unit))
        self._conn.executemany(INSERT_SOURCE, sources_of(unit))
        return int(rowid)

    def insert_units(self, units: Sequence[Unit]) -> None:
        self._conn.executemany(INSERT_UNIT, [row_of(u) for u in units])
        self._conn.executemany(INSERT_SOURCE, [pair for u in units for pair in sources_of(u)])

    def turn_into_pages(self, moves: Sequence[tuple[int, Unit]]) -> None:
        # `terms` is not written, so the search trigger (UPDATE OF terms) does not fire: the page
        # has the turn's body, key and kind, hence its postings, under the same rowid. A turn that
        # another transaction promoted meanwhile no longer matches `tier = 'stm'` once its lock
        # is released, so it is counted missing and this promotion rolls back.
        moved = self._conn.executemany(TURN_INTO_PAGE, [page_update(rowid, page) for rowid, page in moves])
        if moves and moved.rowcount != len(moves):
            raise StoreError("a turn left STM during its own promotion; the promotion is rolled back")
        self._conn.executemany(INSERT_SOURCE, [pair for _, u in moves for pair in sources_of(u)])

    # -- claims: what SQLite's single writer gives for free, row locks give here --------------------
    def stm_rowids(self, user: str, assistant: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """A promotion's claim: the turns are locked (in rowid order, so two claims cannot
        deadlock) and one another promotion took meanwhile is no longer `tier = 'stm'` once its
        lock is released, so it is left out."""
        if not memory_ids:
            return {}
        rows = self._conn.execute(
            "SELECT memory_id, rowid FROM units WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?"
            " AND memory_id = ANY(?) ORDER BY rowid FOR UPDATE",
            (user, assistant, list(memory_ids)),
        )
        return {str(m): int(r) for m, r in rows}

    def last_pages(self, segment_ids: Sequence[str]) -> dict[str, int]:
        """In a write, the segments are locked first (in id order): a promotion decides where its
        pages go (in place or at the end, DESIGN: distillation reads pages by rowid) on page
        numbers no concurrent promotion into the same segments can change before it commits."""
        if self._writing and segment_ids:
            self._conn.execute(
                "SELECT 1 FROM segments WHERE segment_id = ANY(?) ORDER BY segment_id FOR UPDATE",
                (sorted(segment_ids),),
            ).fetchall()
        return super().last_pages(segment_ids)

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
        super().grow_segments(sorted(grown, key=lambda g: g[0]))  # one lock order for every writer

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
