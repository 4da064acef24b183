"""The PostgreSQL side of the search port: the shared statements (memoryos/store/sql_search.py) on
a pooled connection, or on the thread's open transaction when it has one (so a search inside a
write sees that write, as on SQLite).

`search` runs the ranking and the unit rows in one round trip: the best `wanted` documents by BM25
over the scope's own postings, each joined to its unit when that unit is valid at `as_of`.

A two-term query that mixes a rare term with a common one (a word most pages have) would sum the
common term's postings for most of the scope. `_pruned` (MaxScore) sums first only the postings of
the heavy ("essential") terms; a document can gain at most weight * (k1 + 1) from each light term,
so when the `wanted`-th best partial score beats the light terms' total bound, only documents whose
partial score comes within that bound of it can reach the top. Their full scores are the same sum
over the same postings as the plain ranking, so the ids, order and scores are those of `ranking`;
when the bound does not hold (or the query has no light term) the plain ranking runs instead.

Two common terms (a topic and a word a fifth of the pages have) leave no light term, and the plain
ranking sums both terms' postings for tens of thousands of documents. `_both` (a top-k with a
threshold) ranks first only the documents holding both terms, read from the covering postings
index in doc order (a merge, no aggregation): their `wanted`-th best score is a cut no document
of the top is below. A document holding one term only scores that term's part alone; each term
row keeps the largest tf and the shortest length of its postings (migration 0007), so that part
has a bound, and a term whose bound is below the cut is not read again at all; the other's
documents are kept only when their part reaches the cut. Every score kept is the plain ranking's
sum over the same postings (one or two terms: the same float in any order), so the top is its
top. With fewer than `wanted` documents holding both, MaxScore (when a term is light) or the
plain ranking runs.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager

from memoryos.store.base import Postings, ScopeStats, SearchIndex, SearchPlan
from memoryos.store.postgres_tx import Marked
from memoryos.store.rows import Hit, Unit
from memoryos.store.sql_rows import SELECT_UNIT, UNIT_COLUMNS, next_turn_units, unit_of_row
from memoryos.store.sql_search import (
    matched_docs,
    ranking,
    scope_stats,
    scope_token,
    turn_postings,
)

_UNIT = ", ".join(f"u.{c}" for c in ("rowid", *UNIT_COLUMNS))


# Light terms may add up to this share of the heaviest term's bound: the bound then holds when the
# `wanted`-th best document scores at least what one occurrence of the heaviest term gives in a
# document of average length (its weight). A wider share skips more postings but fails the bound
# (and reruns the plain ranking) more often.
_LIGHT_SHARE = 0.9
# Two terms only: a float sum of two is the same in either order, so the full scores are the plain
# ranking's to the last bit (three or more add up in an order the plain plan picks: a difference
# in the last bit would reorder documents that tie).
_TERMS = 2
# A partial score and the full one are float sums of different terms: a margin far above their
# rounding.
_MARGIN = 1e-6
_BM25 = "q.weight * p.tf * (? + 1.0) / (p.tf + ? * (1.0 - ? + ? * p.length / ?))"


def light_terms(plan: SearchPlan) -> set[str]:
    """The lightest terms whose bounds together stay within _LIGHT_SHARE of the heaviest's weight."""
    if len(plan.weights) != _TERMS or min(plan.weights.values()) < 0:
        return set()
    ordered = sorted(plan.weights.items(), key=lambda item: (item[1], item[0]))
    budget, light, total = _LIGHT_SHARE * ordered[-1][1] / (plan.k1 + 1.0), set(), 0.0
    for term, weight in ordered[:-1]:
        if total + weight > budget:
            break
        total += weight
        light.add(term)
    return light


def _pruned(token: str, plan: SearchPlan, light: set[str], wanted: int) -> tuple[str, list[object]]:
    """The plain ranking's best `wanted` (doc, score) when the light terms' bound holds, else none."""
    values = ", ".join("(?, ?, ?)" for _ in plan.weights)
    weights = [p for term, weight in plan.weights.items() for p in (term, weight, term not in light)]
    bm25 = [plan.k1, plan.k1, plan.b, plan.b, plan.average_length]
    bound = sum(plan.weights[t] for t in light) * (plan.k1 + 1.0) + _MARGIN
    sql = (
        f"WITH q (term, weight, essential) AS (VALUES {values}),"
        f" part AS (SELECT p.doc, sum({_BM25}) AS score FROM q JOIN search_postings p"
        " ON p.scope_token = ? AND p.term = q.term WHERE q.essential GROUP BY p.doc),"
        " cut AS (SELECT score FROM part ORDER BY score DESC LIMIT 1 OFFSET ?),"
        " near AS (SELECT part.doc FROM part, cut WHERE cut.score > ? AND part.score >= cut.score - ?)"
        f" SELECT p.doc, sum({_BM25}) AS score FROM near CROSS JOIN q"
        " JOIN search_postings p ON p.scope_token = ? AND p.term = q.term AND p.doc = near.doc"
        " GROUP BY p.doc ORDER BY score DESC, p.doc DESC LIMIT ?"
    )
    return sql, [*weights, *bm25, token, wanted - 1, bound, bound, *bm25, token, wanted]


def _term_bm25(alias: str) -> str:
    """One term's BM25 in a posting row `alias`, as _BM25 writes it (the same float, to the bit)."""
    return f"? * {alias}.tf * (? + 1.0) / ({alias}.tf + ? * (1.0 - ? + ? * {alias}.length / ?))"


def _alone(one: str) -> str:
    """The documents of term `one` whose part on that term alone reaches the cut: none at all
    (the scan does not run) when the term's bound is below the cut. A document holding both
    terms may come along with its part alone, below its sum: the caller keeps each document's
    largest score (a part is never above the two-term sum, in floats too: both are positive)."""
    return (
        f"SELECT {one}.doc, {_term_bm25(one)} AS score FROM search_postings {one}"
        f" WHERE {one}.scope_token = ? AND {one}.term = ?"
        f" AND (SELECT score FROM bound WHERE term = ?) >= (SELECT score FROM cut) - ?"
        f" AND {_term_bm25(one)} >= (SELECT score FROM cut)"
    )


def _both(token: str, plan: SearchPlan, wanted: int) -> tuple[str, list[object]]:
    """The plain ranking's best `wanted` (doc, score) of a two-term query from the documents
    holding both terms (`top`: its `wanted`-th best score is the cut) and those whose part on one
    term alone reaches the cut; none when fewer than `wanted` documents hold both."""
    (first, w1), (second, w2) = sorted(plan.weights.items())
    k1, b, avg = plan.k1, plan.b, plan.average_length
    scoring = [k1, k1, b, b, avg]
    sql = (
        "WITH q (term, weight) AS (VALUES (?, ?), (?, ?)),"
        " bound AS (SELECT q.term, q.weight * t.max_tf * (? + 1.0)"
        " / (t.max_tf + ? * (1.0 - ? + ? * t.min_length / ?)) AS score"
        " FROM q JOIN search_terms t ON t.scope_token = ? AND t.term = q.term),"
        f" top AS (SELECT x.doc, {_term_bm25('x')} + {_term_bm25('y')} AS score"
        " FROM search_postings x JOIN search_postings y"
        " ON y.scope_token = ? AND y.term = ? AND y.doc = x.doc"
        " WHERE x.scope_token = ? AND x.term = ? ORDER BY score DESC, x.doc DESC LIMIT ?),"
        " cut AS (SELECT min(score) AS score FROM top HAVING count(*) = ?)"
        " SELECT doc, max(score) AS score FROM (SELECT doc, score FROM top WHERE EXISTS (SELECT 1 FROM cut)"
        f" UNION ALL {_alone('x')} UNION ALL {_alone('y')}) AS c"
        " GROUP BY doc ORDER BY score DESC, doc DESC LIMIT ?"
    )
    params: list[object] = [first, w1, second, w2, *scoring, token]
    params += [w1, *scoring, w2, *scoring, token, second, token, first, wanted, wanted]
    for term, weight in ((first, w1), (second, w2)):
        params += [weight, *scoring, token, term, term, _MARGIN, weight, *scoring]
    return sql, [*params, wanted]


def _strategies(plan: SearchPlan) -> list[str]:
    """The rankings to try in turn, the plain one last (it always answers); a cost choice only:
    each answers exactly the plain ranking's top, or nothing. For two terms the intersection goes
    first: with a rare term the planner reads the rare term's postings and looks each up in the
    other's (faster than MaxScore, which looks each up twice); with two common ones it is the only
    pruning that holds."""
    light = ["light"] if light_terms(plan) else []
    if len(plan.weights) == _TERMS and min(plan.weights.values()) >= 0:
        return ["both", *light, "plain"]
    return [*light, "plain"]


def _best(plan: SearchPlan, token: str, wanted: int, strategy: str) -> tuple[str, list[object]]:
    if strategy == "light":
        return _pruned(token, plan, light_terms(plan), wanted)
    if strategy == "both":
        return _both(token, plan, wanted)
    return ranking(token, plan, wanted)


def _ranked_units(
    plan: SearchPlan, token: str, as_of: int, wanted: int, strategy: str = "plain"
) -> tuple[str, list[object]]:
    best, params = _best(plan, token, wanted, strategy)
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
                for strategy in _strategies(plan):
                    rows = conn.execute(*_ranked_units(plan, token, as_of, wanted, strategy)).fetchall()
                    if len(rows) == wanted:  # else the bound did not hold, or all are there
                        break
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

    def next_turns(
        self, user: str, assistant: str, after: Sequence[int], known: Mapping[int, Unit]
    ) -> dict[int, Unit]:
        with self._reader() as conn:
            return next_turn_units(conn, user, assistant, after, known)
