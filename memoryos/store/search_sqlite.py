"""The SQLite side of the search port: the shared statements (memoryos/store/sql_search.py) run
on the store's one connection, under its lock; and the reindexing of rows a previous release wrote.
"""

from __future__ import annotations

import sqlite3
import threading
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager

from memoryos.store.base import Postings, ScopeStats, SearchIndex, SearchPlan
from memoryos.store.rows import Hit, Unit
from memoryos.store.sql_rows import next_turn_units
from memoryos.store.sql_search import (
    index_values,
    matched_docs,
    ranked,
    scope_stats,
    scope_token,
    turn_postings,
)

REINDEX_BATCH = 2000


def reindex_pending(conn: sqlite3.Connection) -> int:
    """Index every unit row that has no terms yet (rows a previous release wrote); the update
    trigger files their postings. Runs inside the caller's transaction."""
    done = 0
    while True:
        rows = conn.execute(
            "SELECT rowid, body, key, kind FROM units WHERE terms IS NULL ORDER BY rowid LIMIT ?",
            (REINDEX_BATCH,),
        ).fetchall()
        if not rows:
            return done
        conn.executemany(
            "UPDATE units SET terms = ?, term_count = ? WHERE rowid = ?",
            [(*index_values(body, key, kind), rowid) for rowid, body, key, kind in rows],
        )
        done += len(rows)


class SQLiteSearch(SearchIndex):
    """The search port of SQLiteStore, which supplies the connection, its lock, the translation
    of driver errors and the loading of unit rows."""

    _lock: threading.RLock

    @abstractmethod
    def _live(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _translated(self) -> AbstractContextManager[None]: ...

    @abstractmethod
    def _units_by_rowid(
        self, conn: sqlite3.Connection, rowids: Sequence[int], as_of: int | None
    ) -> list[Unit]: ...

    def scope_stats(self, user: str, assistant: str, terms: Sequence[str]) -> ScopeStats:
        with self._lock, self._translated():
            return scope_stats(self._live(), scope_token(user, assistant), terms)

    def search(self, plan: SearchPlan, user: str, assistant: str, as_of: int, limit: int) -> list[Hit]:
        """The exact top-`limit` of this scope's units valid at `as_of` (DESIGN §6).

        Candidates come in one total order (BM25 over the scope's own statistics, then the more
        recently stored) and are filtered on validity and status in that order until `limit`
        survive: the same result as filtering every match first and ranking afterwards.
        """
        token = scope_token(user, assistant)
        wanted = max(2 * limit, 16)
        with self._lock, self._translated():
            conn = self._live()
            while True:
                best = ranked(conn, token, plan, wanted)
                units = {u.rowid: u for u in self._units_by_rowid(conn, [r for r, _ in best], as_of)}
                valid = [Hit(units[rowid], score) for rowid, score in best if rowid in units]
                if len(valid) >= limit or len(best) < wanted:
                    return valid[:limit]
                wanted *= 4

    def matches(self, terms: Sequence[str], user: str, assistant: str, limit: int) -> list[Unit]:
        with self._lock, self._translated():
            conn = self._live()
            return self._units_by_rowid(
                conn, matched_docs(conn, scope_token(user, assistant), terms, limit), None
            )

    def turn_postings(
        self, terms: Sequence[str], user: str, assistant: str, turn_ids: Sequence[str]
    ) -> dict[str, Postings]:
        with self._lock, self._translated():
            return turn_postings(self._live(), scope_token(user, assistant), terms, turn_ids)

    def next_turns(
        self, user: str, assistant: str, after: Sequence[int], known: Mapping[int, Unit]
    ) -> dict[int, Unit]:
        with self._lock, self._translated():
            return next_turn_units(self._live(), user, assistant, after, known)
