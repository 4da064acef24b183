"""The rows of a store transaction in the SQL that SQLite and PostgreSQL agree on.

A mixin of each backend's transaction: it needs only `_conn`, something with the DB-API `execute`
and `executemany` of sqlite3 taking `?` markers (the PostgreSQL backend wraps psycopg to take them).
What the dialects disagree on (receipt sealing, unit inserts, turning a turn into a page) stays in
each backend's module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple
from typing import Any

from memoryos.store.rows import CandidateRow, Intent, PageNote, Unit
from memoryos.store.sql_rows import SELECT_UNIT, in_chunks, unit_of_row
from memoryos.store.sql_segments import SegmentRows
from memoryos.store.sql_types import Connection

TOMBSTONE_COLUMNS = (
    "memory_id",
    "version",
    "tier",
    "user_scope",
    "assistant_scope",
    "key_hash",
    "reason",
    "at",
)


class CommonRows(SegmentRows):
    """Every transaction method whose SQL both dialects run as written."""

    _conn: Connection

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def delete_units(self, rowids: Sequence[int]) -> None:
        self._conn.executemany("DELETE FROM units WHERE rowid = ?", [(r,) for r in rowids])

    def _units(self, where: str, params: Sequence[Any] = ()) -> list[Unit]:
        return [unit_of_row(r) for r in self._conn.execute(f"{SELECT_UNIT} WHERE {where}", params)]

    def count_stm(self, user: str, assistant: str) -> int:
        return int(
            self._one(
                "SELECT count(*) FROM units WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?",
                (user, assistant),
            )
        )

    def pages(self, segment_id: str) -> list[Unit]:
        return self._units("segment_id = ? ORDER BY created_at, memory_id", (segment_id,))

    def pages_after(self, segment_id: str, after_rowid: int, limit: int) -> list[Unit]:
        # units_segment holds (segment_id, rowid): a range scan of the pages asked for, no more
        return self._units(
            "segment_id = ? AND rowid > ? ORDER BY rowid LIMIT ?", (segment_id, after_rowid, limit)
        )

    def newest_pages(self, segment_id: str, limit: int) -> list[Unit]:
        newest = self._units(
            "segment_id = ? ORDER BY created_at DESC, memory_id DESC LIMIT ?", (segment_id, limit)
        )
        return newest[::-1]

    def list_records(self, user: str, assistant: str, list_name: str) -> list[Unit]:
        return self._units(
            "user_scope = ? AND assistant_scope = ? AND list = ? AND tier = 'lpm'",
            (user, assistant, list_name),
        )

    def list_standing(self, user: str, assistant: str, list_name: str) -> list[tuple[str, int, int]]:
        rows = self._conn.execute(
            "SELECT memory_id, reinforced, last_seen FROM units"
            " WHERE user_scope = ? AND assistant_scope = ? AND list = ? AND tier = 'lpm'",
            (user, assistant, list_name),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def list_record(self, user: str, assistant: str, list_name: str, digest: str) -> Unit | None:
        found = self._units(
            "user_scope = ? AND assistant_scope = ? AND list = ? AND content_hash = ?"
            " AND status != 'superseded' LIMIT 1",
            (user, assistant, list_name, digest),
        )
        return found[0] if found else None

    def drawer_keys(self, user: str, assistant: str, limit: int) -> list[str]:
        return [
            r[0]
            for r in self._conn.execute(
                "SELECT DISTINCT key FROM units"
                " WHERE user_scope = ? AND assistant_scope = ? AND key IS NOT NULL"
                " ORDER BY key LIMIT ?",
                (user, assistant, limit),
            )
        ]

    def key_versions(self, user: str, assistant: str, key: str) -> list[Unit]:
        return self._units(
            "user_scope = ? AND assistant_scope = ? AND key = ? ORDER BY version", (user, assistant, key)
        )

    def id_versions(self, user: str, assistant: str, memory_id: str) -> list[Unit]:
        return self._units(
            "user_scope = ? AND assistant_scope = ? AND memory_id = ? ORDER BY version",
            (user, assistant, memory_id),
        )

    def units_by_ids(self, memory_ids: Sequence[str]) -> list[Unit]:
        found: list[Unit] = []
        for memory_id in memory_ids:
            found.extend(self._units("memory_id = ? ORDER BY version", (memory_id,)))
        return found

    def scope_units(self, user: str | None, assistant: str | None, limit: int) -> list[Unit]:
        """Units of a user (any assistant), an assistant (any user), or one user with one assistant."""
        return self.units_page(0, limit, user, assistant)

    def units_page(self, after_rowid: int, limit: int, user: str | None, assistant: str | None) -> list[Unit]:
        """The next `limit` units after `after_rowid`, optionally of one user and/or one assistant."""
        return self._units(
            "rowid > ? AND (CAST(? AS TEXT) IS NULL OR user_scope = ?)"
            " AND (CAST(? AS TEXT) IS NULL OR assistant_scope = ?)"
            " ORDER BY rowid LIMIT ?",
            (after_rowid, user, user, assistant, assistant, limit),
        )

    def tombstones(self, user: str | None, assistant: str | None) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT memory_id, version, tier, user_scope, assistant_scope, key_hash, reason, at"
            " FROM tombstones WHERE (CAST(? AS TEXT) IS NULL OR user_scope = ?)"
            " AND (CAST(? AS TEXT) IS NULL OR assistant_scope = ?)"
            " ORDER BY at, memory_id",
            (user, user, assistant, assistant),
        )
        return [dict(zip(TOMBSTONE_COLUMNS, row, strict=True)) for row in rows]

    def insert_tombstone(self, row: Mapping[str, Any]) -> None:
        self._conn.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [row[name] for name in TOMBSTONE_COLUMNS],
        )

    def is_empty(self) -> bool:
        return not any(self._one(f"SELECT count(*) FROM {t}") for t in ("units", "segments", "tombstones"))

    def set_meta(self, name: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (name, value),
        )

    def insert_candidate(self, row: CandidateRow) -> None:
        self._conn.execute("INSERT INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", astuple(row))

    def candidates(self, user: str, assistant: str, status: str | None) -> list[CandidateRow]:
        rows = self._conn.execute(
            "SELECT * FROM candidates WHERE user_scope = ? AND assistant_scope = ?"
            " AND (CAST(? AS TEXT) IS NULL OR status = ?)"
            " ORDER BY created_at, candidate_id",
            (user, assistant, status, status),
        )
        return [CandidateRow(*r) for r in rows]

    def decide_candidate(self, candidate_id: str, status: str, at: int, memory_id: str | None) -> None:
        """Approve or reject; a rejected candidate's content is erased, its id and decision kept."""
        erase = status == "rejected"
        self._conn.execute(
            "UPDATE candidates SET status = ?, decided_at = ?, memory_id = ?,"
            " body = CASE WHEN ? THEN '' ELSE body END, key = CASE WHEN ? THEN '' ELSE key END,"
            " proof = CASE WHEN ? THEN NULL ELSE proof END WHERE candidate_id = ?",
            (status, at, memory_id, erase, erase, erase, candidate_id),
        )

    def expired(self, now: int, limit: int) -> list[Unit]:
        return self._units(
            "valid_until IS NOT NULL AND valid_until <= ? AND status != 'superseded'"
            " ORDER BY valid_until LIMIT ?",
            (now, limit),
        )

    def decay_candidates(self, seen_before: int, limit: int) -> list[Unit]:
        return self._units(
            "kind IS NOT NULL AND last_seen <= ? AND status IN ('active', 'stale')"
            " ORDER BY last_seen LIMIT ?",
            (seen_before, limit),
        )

    def stm_turns(self, user: str, assistant: str) -> list[Unit]:
        return self._units(
            "tier = 'stm' AND user_scope = ? AND assistant_scope = ? ORDER BY created_at, memory_id",
            (user, assistant),
        )

    def release_stm(self, user: str, assistant: str, memory_ids: Sequence[str]) -> set[str]:
        released: set[str] = set()
        for chunk, marks in in_chunks(memory_ids):
            released.update(
                r[0]
                for r in self._conn.execute(
                    "DELETE FROM units WHERE tier = 'stm' AND user_scope = ? AND assistant_scope = ?"
                    f" AND memory_id IN ({marks}) RETURNING memory_id",
                    (user, assistant, *chunk),
                )
            )
        return released

    def stm_rowids(self, user: str, assistant: str, memory_ids: Sequence[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        for chunk, marks in in_chunks(memory_ids):
            found.update(
                self._conn.execute(
                    "SELECT memory_id, rowid FROM units WHERE tier = 'stm' AND user_scope = ?"
                    f" AND assistant_scope = ? AND memory_id IN ({marks})",
                    (user, assistant, *chunk),
                ).fetchall()
            )
        return found

    def last_pages(self, segment_ids: Sequence[str]) -> dict[str, int]:
        """One statement of one scalar subquery per segment (units_segment: one seek each), where a
        statement per segment paid the driver's round trip each time; chunked under the bound-
        parameter limit."""
        found: dict[str, int] = {}
        for chunk, _ in in_chunks(segment_ids):
            columns = ", ".join(["(SELECT max(rowid) FROM units WHERE segment_id = ?)"] * len(chunk))
            row = self._conn.execute(f"SELECT {columns}", chunk).fetchone()
            found.update((s, int(r)) for s, r in zip(chunk, row, strict=True) if r is not None)
        return found

    def tombstoned(self, user: str, assistant: str, memory_id: str | None, key_hash: str | None) -> bool:
        return (
            self._one(
                "SELECT 1 FROM tombstones WHERE user_scope = ? AND assistant_scope = ?"
                " AND (memory_id = ? OR key_hash = ?) LIMIT 1",
                (user, assistant, memory_id, key_hash),
            )
            is not None
        )

    def run_scope(self, run_id: str) -> list[bytes]:
        return [
            bytes(r[0])
            for r in self._conn.execute(
                "SELECT body FROM receipt_outbox WHERE run_id = ? ORDER BY seq", (run_id,)
            )
        ]

    def stm_scopes_due(self, created_before: int) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT DISTINCT user_scope, assistant_scope FROM units WHERE tier = 'stm' AND created_at <= ?",
            (created_before,),
        )
        return [(r[0], r[1]) for r in rows]

    def update_unit(self, rowid: int, **changes: Any) -> None:
        assignments = ", ".join(f"{name} = ?" for name in changes)
        self._conn.execute(f"UPDATE units SET {assignments} WHERE rowid = ?", (*changes.values(), rowid))

    def dependents(self, source_ids: Sequence[str]) -> list[str]:
        """Memory ids of units built from any of these sources."""
        found: set[str] = set()
        for source in source_ids:
            found.update(
                r[0]
                for r in self._conn.execute(
                    "SELECT memory_id FROM unit_sources WHERE source_id = ?", (source,)
                )
            )
        return sorted(found)

    def drop_sources(self, memory_ids: Sequence[str]) -> None:
        self._conn.executemany("DELETE FROM unit_sources WHERE memory_id = ?", [(m,) for m in memory_ids])

    def page_count(self, segment_id: str) -> int:
        return int(self._one("SELECT count(*) FROM units WHERE segment_id = ?", (segment_id,)))

    def drop_page_notes(self, segment_id: str) -> None:
        self._conn.execute("DELETE FROM page_notes WHERE segment_id = ?", (segment_id,))

    def notes_of(self, memory_ids: Sequence[str]) -> dict[str, PageNote]:
        found: dict[str, PageNote] = {}
        for chunk, marks in in_chunks(memory_ids):
            for r in self._conn.execute(
                "SELECT memory_id, segment_id, summary, follows, degraded FROM page_notes"
                f" WHERE memory_id IN ({marks})",
                chunk,
            ):
                found[r[0]] = PageNote(r[0], r[1], r[2], r[3], bool(r[4]))
        return found

    def put_page_notes(self, notes: Sequence[PageNote]) -> None:
        self._conn.executemany(
            "INSERT INTO page_notes VALUES (?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET"
            " segment_id = excluded.segment_id, summary = excluded.summary, follows = excluded.follows,"
            " degraded = excluded.degraded",
            [(n.memory_id, n.segment_id, n.summary, n.follows, int(n.degraded)) for n in notes],
        )

    def insert_intent(self, intent: Intent) -> bool:
        """Claim the intent's subject; False when another run already holds an open intent on it."""
        cursor = self._conn.execute(
            "INSERT INTO intents VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                intent.run_id,
                intent.boundary,
                intent.subject_id,
                intent.subject_version,
                intent.owner,
                intent.started_at,
            ),
        )
        return bool(cursor.rowcount == 1)

    def delete_intent(self, run_id: str) -> bool:
        """Release an intent; False when it was no longer there (recovery reconciled it meanwhile)."""
        return bool(self._conn.execute("DELETE FROM intents WHERE run_id = ?", (run_id,)).rowcount == 1)

    def intents(self) -> list[Intent]:
        return [Intent(*r) for r in self._conn.execute("SELECT * FROM intents ORDER BY started_at")]

    def run_committed(self, run_id: str) -> bool:
        return self._one("SELECT 1 FROM receipt_outbox WHERE run_id = ? LIMIT 1", (run_id,)) is not None

    def tombstone(self, unit: Unit, key_hash: str | None, reason: str, at: int) -> None:
        self._conn.execute(
            "INSERT INTO tombstones VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id, version)"
            " DO UPDATE SET tier = excluded.tier, key_hash = excluded.key_hash, reason = excluded.reason,"
            " at = excluded.at",
            (
                unit.memory_id,
                unit.version,
                unit.tier,
                unit.user_scope,
                unit.assistant_scope,
                key_hash,
                reason,
                at,
            ),
        )

    def meta_get(self, name: str) -> str | None:
        value = self._one("SELECT value FROM meta WHERE key = ?", (name,))
        return None if value is None else str(value)

    def outbox_after(self, seq: int, limit: int) -> list[tuple[int, bytes]]:
        rows = self._conn.execute(
            "SELECT seq, body FROM receipt_outbox WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
        )
        return [(int(r[0]), bytes(r[1])) for r in rows]

    def outbox_link(self, seq: int) -> str | None:
        value = self._one("SELECT link FROM receipt_outbox WHERE seq = ?", (seq,))
        return None if value is None else str(value)

    def outbox_head(self) -> int:
        return int(self._one("SELECT max(seq) FROM receipt_outbox") or 0)

    def lineage_problems(self) -> list[str]:
        """Invariants: a turn is in STM or in one page, pages have segments, segments have pages."""
        checks = {
            "turns both in STM and in an MTM page": (
                "SELECT count(*) FROM units s JOIN unit_sources us ON us.source_id = s.memory_id"
                " JOIN units p ON p.memory_id = us.memory_id AND p.tier = 'mtm' WHERE s.tier = 'stm'"
            ),
            "turns promoted into more than one page": (
                "SELECT count(*) FROM (SELECT us.source_id FROM unit_sources us JOIN units p"
                " ON p.memory_id = us.memory_id AND p.tier = 'mtm' GROUP BY us.source_id"
                " HAVING count(*) > 1) AS twice"
            ),
            "pages whose segment is missing": (
                "SELECT count(*) FROM units p WHERE p.tier = 'mtm'"
                " AND NOT EXISTS (SELECT 1 FROM segments g WHERE g.segment_id = p.segment_id)"
            ),
            "segments without pages": (
                "SELECT count(*) FROM segments g"
                " WHERE NOT EXISTS (SELECT 1 FROM units p WHERE p.segment_id = g.segment_id)"
            ),
        }
        problems = []
        for what, sql in checks.items():
            count = int(self._one(sql))
            if count:
                problems.append(f"{count} {what}")
        return problems

    def occupancy(self) -> dict[str, int]:
        # Records, not versions: a corrected record keeps its superseded versions in `units`.
        counts = dict(
            self._conn.execute("SELECT tier, count(DISTINCT memory_id) FROM units GROUP BY tier").fetchall()
        )
        counts["segments"] = int(self._one("SELECT count(*) FROM segments"))
        counts["intents"] = int(self._one("SELECT count(*) FROM intents"))
        return {k: int(v) for k, v in counts.items()}

    def meta_setdefault(self, name: str, value: str) -> str:
        self._conn.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT DO NOTHING", (name, value))
        return str(self._one("SELECT value FROM meta WHERE key = ?", (name,)))

    def cursor(self, name: str) -> int:
        return int(self._one("SELECT seq FROM export_cursors WHERE name = ?", (name,)) or 0)

    def set_cursor(self, name: str, seq: int) -> None:
        self._conn.execute(
            "INSERT INTO export_cursors VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seq = excluded.seq",
            (name, seq),
        )

    def session_units(self, user: str, assistant: str, session: str) -> list[Unit]:
        return self._units(
            "user_scope = ? AND assistant_scope = ? AND session = ?", (user, assistant, session)
        )
