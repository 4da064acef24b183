"""The search SQL both backends run as written: per-scope postings and BM25 (DESIGN §9).

A unit row carries its index terms as JSON (`terms`, `term_count`, made by
memoryos.retrieval.terms); triggers (SQLite: migration 0005; PostgreSQL: its own 0005) copy them
into `search_postings` and keep `search_terms` (document frequency per scope and term) and
`search_scopes` (documents and total length per scope) in the same transaction. A query reads only
its own scope's rows of these tables, so no other scope can move its scores. The BM25 sum is plain
SQL arithmetic over the weights memoryos.retrieval.ranking computed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from memoryos.retrieval.terms import index_terms
from memoryos.store.base import Postings, ScopeStats, SearchPlan
from memoryos.store.rows import Unit
from memoryos.store.sql_types import Connection

REINDEX_BATCH = 2000
INDEX_COLUMNS = ("terms", "term_count")


def scope_token(user: str, assistant: str) -> str:
    """The index key of a scope; must agree with the generated column units.scope_token."""
    return f"s{user[:16]}{assistant[:16]}"


def index_values(body: str, key: str | None, kind: str | None) -> tuple[str, int]:
    """The `terms` JSON and `term_count` of a unit row."""
    counts = index_terms(body, key, kind)
    return orjson.dumps(counts).decode(), sum(counts.values())


def unit_index_values(unit: Unit) -> tuple[str, int]:
    return index_values(unit.body, unit.key, unit.kind)


def _chunks(items: Sequence[str], size: int = 400) -> Iterator[tuple[Sequence[str], str]]:
    for start in range(0, len(items), size):
        chunk = items[start : start + size]
        yield chunk, ", ".join("?" * len(chunk))


def scope_stats(conn: Connection, token: str, terms: Sequence[str]) -> ScopeStats:
    row = conn.execute("SELECT docs, length FROM search_scopes WHERE scope_token = ?", (token,)).fetchone()
    frequencies: dict[str, int] = {}
    for chunk, marks in _chunks(list(dict.fromkeys(terms))):
        frequencies.update(
            conn.execute(
                f"SELECT term, df FROM search_terms WHERE scope_token = ? AND term IN ({marks})",
                (token, *chunk),
            ).fetchall()
        )
    return ScopeStats(0, 0, {}) if row is None else ScopeStats(int(row[0]), int(row[1]), frequencies)


def _weights_cte(plan: SearchPlan) -> tuple[str, list[object]]:
    values = ", ".join("(?, ?)" for _ in plan.weights)
    params: list[object] = [p for pair in plan.weights.items() for p in pair]
    return f"WITH q (term, weight) AS (VALUES {values})", params


def ranking(token: str, plan: SearchPlan, limit: int) -> tuple[str, list[object]]:
    """The statement (and its parameters) of the scope's best `limit` documents as (doc, score),
    best first, then newest first: BM25 over the scope's own postings."""
    cte, params = _weights_cte(plan)
    sql = (
        f"{cte} SELECT p.doc, sum(q.weight * p.tf * (? + 1.0) / (p.tf + ? * (1.0 - ? + ? * p.length / ?)))"
        " AS score FROM q JOIN search_postings p ON p.scope_token = ? AND p.term = q.term"
        " GROUP BY p.doc ORDER BY score DESC, p.doc DESC LIMIT ?"
    )
    k1, b = plan.k1, plan.b
    return sql, [*params, k1, k1, b, b, plan.average_length, token, limit]


def ranked(conn: Connection, token: str, plan: SearchPlan, limit: int) -> list[tuple[int, float]]:
    """(rowid, BM25 score) of the scope's best `limit` documents, best first, then newest first."""
    rows = conn.execute(*ranking(token, plan, limit)).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]


def matched_docs(conn: Connection, token: str, terms: Sequence[str], limit: int) -> list[int]:
    found: set[int] = set()
    for chunk, marks in _chunks(list(dict.fromkeys(terms))):
        found.update(
            r[0]
            for r in conn.execute(
                f"SELECT doc FROM search_postings WHERE scope_token = ? AND term IN ({marks})",
                (token, *chunk),
            )
        )
    return sorted(found)[:limit]


def turn_postings(
    conn: Connection, token: str, terms: Sequence[str], turn_ids: Sequence[str]
) -> dict[str, Postings]:
    """Each turn's frequencies of the terms, read from the STM turn or the MTM page holding it."""
    docs: dict[int, str] = {}
    for chunk, marks in _chunks(list(dict.fromkeys(turn_ids))):
        docs.update(
            (int(doc), str(turn))
            for turn, doc in conn.execute(
                "SELECT us.source_id, u.rowid FROM unit_sources us"
                " JOIN units u ON u.memory_id = us.memory_id AND u.tier = 'mtm'"
                f" WHERE us.source_id IN ({marks})"
                " UNION ALL SELECT memory_id, rowid FROM units"
                f" WHERE tier = 'stm' AND memory_id IN ({marks})",
                (*chunk, *chunk),
            )
        )
    found: dict[str, Postings] = {}
    terms = list(dict.fromkeys(terms))
    for doc, turn in docs.items():
        frequencies: dict[str, int] = {}
        length = 0
        for chunk, marks in _chunks(terms):
            for term, tf, size in conn.execute(
                "SELECT term, tf, length FROM search_postings"
                f" WHERE scope_token = ? AND term IN ({marks}) AND doc = ?",
                (token, *chunk, doc),
            ):
                frequencies[term], length = int(tf), int(size)
        if frequencies and turn not in found:
            found[turn] = Postings(frequencies, length)
    return found


def next_turns(conn: Connection, user: str, assistant: str, after: Sequence[int]) -> dict[int, int]:
    """For each rowid in `after`, the rowid of the turn (STM turn or MTM page, any state) this
    scope stored next after it; left out when the scope stored no turn since.

    One seek of units_scope_turns (migration 0008) per rowid, all in one statement: what other
    scopes wrote in between is never read, so the cost does not grow with it."""
    found: dict[int, int] = {}
    wanted = sorted(set(after))
    for start in range(0, len(wanted), 400):
        part = wanted[start : start + 400]
        asked = " UNION ALL ".join(["SELECT CAST(? AS BIGINT) AS asked"] * len(part))
        sql = (
            f"SELECT q.asked, (SELECT n.rowid FROM units n WHERE n.user_scope = ? AND n.assistant_scope = ?"
            f" AND n.tier != 'lpm' AND n.rowid > q.asked ORDER BY n.rowid LIMIT 1) FROM ({asked}) AS q"
        )
        found.update(
            (int(q), int(n)) for q, n in conn.execute(sql, (user, assistant, *part)) if n is not None
        )
    return found


def scope_rows(
    conn: Connection, user: str, assistant: str, rowids: Sequence[int], columns: Sequence[str]
) -> list[Sequence[Any]]:
    """The `columns` of this scope's units with these rowids (another scope's are left out)."""
    rows: list[Sequence[Any]] = []
    wanted = sorted(set(rowids))
    for start in range(0, len(wanted), 400):
        part = wanted[start : start + 400]
        marks = ", ".join(["CAST(? AS BIGINT)"] * len(part))
        rows.extend(
            conn.execute(
                f"SELECT {', '.join(columns)} FROM units WHERE user_scope = ? AND assistant_scope = ?"
                f" AND rowid IN ({marks})",
                (user, assistant, *part),
            ).fetchall()
        )
    return rows


def integrity(conn: Connection) -> list[str]:
    """Findings when the postings disagree with the rows they index (content-free counts only)."""
    checks = {
        "units not yet indexed": "SELECT count(*) FROM units WHERE terms IS NULL",
        "postings without their unit": (
            "SELECT count(*) FROM search_postings p WHERE NOT EXISTS"
            " (SELECT 1 FROM units u WHERE u.rowid = p.doc AND u.scope_token = p.scope_token)"
        ),
        "documents counted that are not stored": (
            "SELECT abs((SELECT coalesce(sum(docs), 0) FROM search_scopes)"
            " - (SELECT count(*) FROM units WHERE terms IS NOT NULL))"
        ),
    }
    found = []
    for what, sql in checks.items():
        count = int(conn.execute(sql).fetchone()[0])
        if count:
            found.append(f"full-text index: {count} {what}")
    return found
