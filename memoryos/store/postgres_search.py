"""The PostgreSQL side of the search port: the shared statements (memoryos/store/sql_search.py) on
a pooled connection, or on the thread's open transaction when it has one (so a search inside a
write sees that write, as on SQLite).

`search` runs the ranking and the unit rows in one round trip: the best `wanted` documents by BM25
over the scope's own postings, each joined to its unit when that unit is valid at `as_of`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager

from memoryos.store.base import Postings, ScopeStats, SearchIndex, SearchPlan
from memoryos.store.postgres_tx import Marked
from memoryos.store.rows import Hit, Unit
from memoryos.store.sql_rows import SELECT_UNIT, UNIT_COLUMNS, unit_of_row
from memoryos.store.sql_search import matched_docs, ranking, scope_stats, scope_token, turn_postings

_UNIT = ", ".join(f"u.{c}" for c in ("rowid", *UNIT_COLUMNS))


def _ranked_units(plan: SearchPlan, token: str, as_of: int, wanted: int) -> tuple[str, list[object]]:
    best, params = ranking(token, plan, wanted)
    sql = (
        f"SELECT b.doc, b.score, {_UNIT} FROM ({best}) AS b LEFT JOIN units u ON u.rowid = b.doc"
        " AND u.status IN ('active', 'stale') AND u.valid_from <= ?"
        " AND (u.valid_until IS NULL OR u.valid_until > ?) ORDER BY b.score DESC, b.doc DESC"
    )
    return sql, [*params, as_of, as_of]


class PostgresSearch(SearchIndex):
    """The search port of PostgresStore, which supplies the connection and translates errors."""

    @abstractmethod
    def _reader(self) -> AbstractContextManager[Marked]: ...

    def scope_stats(self, user: str, assistant: str, terms: Sequence[str]) -> ScopeStats:
        with self._reader() as conn:
            return scope_stats(conn, scope_token(user, assistant), terms)

    def search(self, plan: SearchPlan, user: str, assistant: str, as_of: int, limit: int) -> list[Hit]:
        """The exact top-`limit` of this scope's units valid at `as_of` (DESIGN §6): candidates in
        one total order (BM25, then the more recently stored), filtered in that order."""
        if not plan.weights:
            return []
        token = scope_token(user, assistant)
        wanted = max(2 * limit, 16)
        with self._reader() as conn:
            while True:
                rows = conn.execute(*_ranked_units(plan, token, as_of, wanted)).fetchall()
                valid = [Hit(unit_of_row(r[2:]), float(r[1])) for r in rows if r[2] is not None]
                if len(valid) >= limit or len(rows) < wanted:
                    return valid[:limit]
                wanted *= 4

    def matches(self, terms: Sequence[str], user: str, assistant: str, limit: int) -> list[Unit]:
        with self._reader() as conn:
            docs = matched_docs(conn, scope_token(user, assistant), terms, limit)
            if not docs:
                return []
            rows = conn.execute(f"{SELECT_UNIT} WHERE rowid = ANY(?) ORDER BY rowid", (docs,))
            return [unit_of_row(r) for r in rows]

    def turn_postings(
        self, terms: Sequence[str], user: str, assistant: str, turn_ids: Sequence[str]
    ) -> dict[str, Postings]:
        with self._reader() as conn:
            return turn_postings(conn, scope_token(user, assistant), terms, turn_ids)
