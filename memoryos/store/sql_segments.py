"""The segment rows of a store transaction, in SQL both backends run: placement, heat,
distillation marks and summaries.

A mixin of each backend's transaction (through memoryos.store.sql_common.CommonRows): it needs
only the transaction's connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from memoryos.store.rows import Segment, SegmentHead
from memoryos.store.sql_types import Connection

_SEGMENT_COLUMNS = (
    "segment_id, user_scope, assistant_scope, keywords, summary, visits, interactions, last_visit_at,"
    " created_at, version, summary_version, summary_degraded, pages, distilled_through"
)
SELECT_SEGMENT = f"SELECT {_SEGMENT_COLUMNS} FROM segments"


def segment_of_row(row: Sequence[Any]) -> Segment:
    sid, user, assistant, keywords, summary, visits, interactions, last_visit, created, version, *rest = row
    summary_version, summary_degraded, pages, distilled_through = rest
    return Segment(
        sid,
        user,
        assistant,
        orjson.loads(keywords),
        summary,
        visits,
        interactions,
        last_visit,
        created,
        version,
        summary_version,
        bool(summary_degraded),
        pages,
        distilled_through,
    )


#: A scope's segments with room for more pages (PostgreSQL also sends it ahead with a promotion's claim).
OPEN_HEADS_SQL = (
    "SELECT segment_id, version, created_at, pages FROM segments"
    " WHERE user_scope = ? AND assistant_scope = ? AND pages < ?"
)


class SegmentRows:
    """Segment queries of one transaction (the connection is the transaction's)."""

    _conn: Connection

    def _later_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """A statement whose answer nobody reads: at once here; a backend may send it with the next
        statement that is answered (PostgreSQL's pipeline), an error then failing that one."""
        self._conn.executemany(sql, rows)

    def _value(self, sql: str, params: Sequence[Any]) -> Any:
        row = self._conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def segments(self, user: str, assistant: str) -> list[Segment]:
        return [
            segment_of_row(r)
            for r in self._conn.execute(
                f"{SELECT_SEGMENT} WHERE user_scope = ? AND assistant_scope = ?", (user, assistant)
            )
        ]

    def all_segments(self) -> list[Segment]:
        return [segment_of_row(r) for r in self._conn.execute(SELECT_SEGMENT)]

    def segments_heated(self, alpha: float, beta: float, floor: float) -> list[Segment]:
        # Heat is α·visits + β·interactions + γ·recency with recency <= 1: below this floor no
        # segment can be hot, so only the few near it are read (and their exact heat computed).
        return [
            segment_of_row(r)
            for r in self._conn.execute(
                f"{SELECT_SEGMENT} WHERE ? * visits + ? * interactions >= ?", (alpha, beta, floor)
            )
        ]

    def segment(self, segment_id: str) -> Segment | None:
        row = self._conn.execute(f"{SELECT_SEGMENT} WHERE segment_id = ?", (segment_id,)).fetchone()
        return None if row is None else segment_of_row(row)

    def put_segment(self, segment: Segment) -> None:
        self._conn.execute(
            # An upsert updates the row in place: INSERT OR REPLACE would delete and re-insert it,
            # rewriting both indexes, and every page it dirties is written to the WAL at commit.
            f"INSERT INTO segments ({_SEGMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (segment_id)"
            " DO UPDATE SET keywords = excluded.keywords, summary = excluded.summary,"
            " visits = excluded.visits, interactions = excluded.interactions,"
            " last_visit_at = excluded.last_visit_at, version = excluded.version,"
            " summary_version = excluded.summary_version, summary_degraded = excluded.summary_degraded,"
            " pages = excluded.pages, distilled_through = excluded.distilled_through",
            (
                segment.segment_id,
                segment.user_scope,
                segment.assistant_scope,
                orjson.dumps(segment.keywords).decode(),  # kept in ranked order (policies.text.ranked)
                segment.summary,
                segment.visits,
                segment.interactions,
                segment.last_visit_at,
                segment.created_at,
                segment.version,
                segment.summary_version,
                int(segment.summary_degraded),
                segment.pages,
                segment.distilled_through,
            ),
        )

    def segment_heads(self, user: str, assistant: str) -> list[SegmentHead]:
        return [
            SegmentHead(r[0], r[1], r[2])
            for r in self._conn.execute(
                "SELECT segment_id, version, created_at FROM segments"
                " WHERE user_scope = ? AND assistant_scope = ?",
                (user, assistant),
            )
        ]

    def open_segment_heads(self, user: str, assistant: str, max_pages: int) -> list[SegmentHead]:
        return [
            SegmentHead(r[0], r[1], r[2], r[3])
            for r in self._conn.execute(OPEN_HEADS_SQL, (user, assistant, max_pages))
        ]

    def segment_count(self, user: str, assistant: str) -> int:
        sql = "SELECT count(*) FROM segments WHERE user_scope = ? AND assistant_scope = ?"
        return int(self._value(sql, (user, assistant)))

    def segment_keywords(self, segment_id: str) -> dict[str, int]:
        found = self._value("SELECT keywords FROM segments WHERE segment_id = ?", (segment_id,))
        return {} if found is None else dict(orjson.loads(found))

    def grow_segments(self, grown: Sequence[tuple[str, dict[str, int], int]]) -> None:
        self._later_many(
            "UPDATE segments SET keywords = ?, interactions = interactions + ?, version = version + ?,"
            " pages = pages + ? WHERE segment_id = ?",
            [(orjson.dumps(keywords).decode(), pages, pages, pages, sid) for sid, keywords, pages in grown],
        )

    def stale_summaries(self, limit: int) -> list[Segment]:
        return [
            segment_of_row(r)
            for r in self._conn.execute(
                f"{SELECT_SEGMENT} WHERE summary_version != version"
                " ORDER BY last_visit_at DESC, segment_id LIMIT ?",
                (limit,),
            )
        ]

    def delete_segment(self, segment_id: str) -> None:
        self._conn.execute("DELETE FROM segments WHERE segment_id = ?", (segment_id,))

    def visit_segments(self, segment_ids: Sequence[str], now: int) -> None:
        self._conn.executemany(
            "UPDATE segments SET visits = visits + 1, last_visit_at = ? WHERE segment_id = ?",
            [(now, s) for s in segment_ids],
        )
