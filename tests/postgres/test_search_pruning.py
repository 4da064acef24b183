"""PostgreSQL's pruned rankings (MaxScore over the light terms; two common terms ranked from their
intersection under the terms' stored bounds) hand out exactly what the plain BM25 ranking does: the
same ids, order and scores, whether the bound holds or the plain ranking reruns."""

from __future__ import annotations

import random

import pytest

import memoryos
from memoryos.store import postgres, postgres_schema
from memoryos.store.postgres_search import _ranked_units, _strategies, light_terms
from memoryos.store.rows import Hit
from memoryos.store.sql_search import ranked, scope_token
from memoryos.testing import FakeClock
from tests.pg_server import pg_url

__all__ = ["pg_url"]

SCOPE = memoryos.Scope(user="u", assistant="a")
OTHER = memoryos.Scope(user="v", assistant="a")


@pytest.fixture
def mem(pg_url: str) -> memoryos.Memory:
    mem = memoryos.open(pg_url, clock=FakeClock(), heat_threshold=1e12)
    rng = random.Random(7)
    common = ["word0", "word1", "word2"]
    for n in range(240):
        rare = f"rare{n % 9}" if n % 3 == 0 else f"scarce{n % 40}"
        mem.remember(SCOPE, f"{rng.choice(common)} {rng.choice(common)} {rare} note{n}")
        if n % 4 == 0:  # another scope's rows, rare terms in them too: they must move nothing here
            mem.remember(OTHER, f"{rare} {rare} word0 other{n}")
    return mem


Found = tuple[set[str], list[tuple[int, float]], list[Hit]]


def _search(mem: memoryos.Memory, query: str, limit: int) -> Found:
    """The plan's light terms, the plain ranking's best `limit` and what search() hands out."""
    sk = mem._scopes(SCOPE)
    plan = mem.retriever.plan(sk, query)
    assert plan is not None
    hits = mem.store.search(plan, sk.user, sk.assistant, 2**62, limit)
    with mem.store._reader() as conn:  # type: ignore[attr-defined]
        plain = ranked(conn, scope_token(sk.user, sk.assistant), plan, max(2 * limit, 16))
    return light_terms(plan), plain[:limit], hits


@pytest.mark.parametrize("query", ["rare3 word0", "rare6 word2", "scarce7 word1", "word0 word1"])
def test_the_pruned_ranking_is_the_plain_one(mem: memoryos.Memory, query: str) -> None:
    light, plain, hits = _search(mem, query, 10)
    assert [(h.unit.rowid, h.score) for h in hits] == plain
    if query.startswith("rare"):  # a rare term beside a common one: the common one is pruned
        assert light == {query.split()[1]}


def test_three_terms_are_not_pruned(mem: memoryos.Memory) -> None:
    """Three float terms add up in the plain plan's order: pruning could move a tie's last bit."""
    light, plain, hits = _search(mem, "rare6 word2 word0", 10)
    assert not light and [(h.unit.rowid, h.score) for h in hits] == plain


def test_a_rare_term_in_too_few_documents_falls_back_to_the_plain_ranking(mem: memoryos.Memory) -> None:
    light, plain, hits = _search(mem, "scarce7 word1", 12)  # scarce7 is in 4 notes, fewer than wanted
    assert light == {"word1"} and len(hits) == 12
    assert [(h.unit.rowid, h.score) for h in hits] == plain


Ranked = list[tuple[int, float]]


def _both(mem: memoryos.Memory, query: str, limit: int) -> tuple[Ranked, Ranked]:
    """What the intersection ranking alone answers, and the plain ranking's best `wanted`."""
    sk = mem._scopes(SCOPE)
    plan = mem.retriever.plan(sk, query)
    assert plan is not None and _strategies(plan)[0] == "both"
    wanted, token = max(2 * limit, 16), scope_token(sk.user, sk.assistant)
    with mem.store._reader() as conn:  # type: ignore[attr-defined]
        rows = conn.execute(*_ranked_units(plan, token, 2**62, wanted, "both")).fetchall()
        plain = ranked(conn, token, plan, wanted)
    return [(int(r[0]), float(r[1])) for r in rows], plain


def test_two_common_terms_rank_from_their_intersection(mem: memoryos.Memory) -> None:
    """No term is light in "word0 word1": the intersection ranking answers, and its top is the
    plain one, to the last bit of every score."""
    both, plain = _both(mem, "word0 word1", 10)
    assert both == plain and len(both) == 20
    light, top, hits = _search(mem, "word0 word1", 10)
    assert not light and [(h.unit.rowid, h.score) for h in hits] == top


def test_a_document_holding_one_term_can_still_rank_first(mem: memoryos.Memory) -> None:
    """A short note saying beta six times outscores every long note holding alpha and beta:
    beta's stored bound reaches the cut, so its documents alone are read and that note leads."""
    for n in range(25):
        mem.remember(SCOPE, f"alpha beta filler one two three four five six n{n}")
    for n in range(40):
        mem.remember(SCOPE, f"alpha n{n}")
        mem.remember(SCOPE, f"beta n{n}")
    lone = mem.remember(SCOPE, "beta " * 6)
    both, plain = _both(mem, "alpha beta", 10)
    assert both == plain
    _, top, hits = _search(mem, "alpha beta", 10)
    assert [(h.unit.rowid, h.score) for h in hits] == top and hits[0].unit.memory_id == lone.memory_id


def test_too_few_documents_holding_both_terms_answer_nothing(mem: memoryos.Memory) -> None:
    """rare3 is in few notes: fewer than `wanted` hold both terms, so the intersection answers
    nothing (no cut) and the next ranking runs; search() still hands out the plain top."""
    both, plain = _both(mem, "rare3 word1", 10)
    assert both == [] and plain
    _, top, hits = _search(mem, "rare3 word1", 10)
    assert [(h.unit.rowid, h.score) for h in hits] == top


def _bounds(mem: memoryos.Memory) -> list[tuple[str, str, int, int, int, int]]:
    """Each term row's stored bounds beside the largest tf and shortest length of its postings."""
    with mem.store._reader() as conn:  # type: ignore[attr-defined]
        rows = conn.execute(
            "SELECT t.scope_token, t.term, t.max_tf, t.min_length, max(p.tf), min(p.length)"
            " FROM search_terms t JOIN search_postings p"
            " ON p.scope_token = t.scope_token AND p.term = t.term GROUP BY 1, 2, 3, 4 ORDER BY 1, 2"
        ).fetchall()
    return [tuple(r) for r in rows]


def test_each_term_keeps_bounds_of_its_postings(mem: memoryos.Memory) -> None:
    mem.remember(SCOPE, "word2 " * 5 + "longest note of them all with many more words than others")
    rows = _bounds(mem)
    assert rows and all(r[2] == r[4] and r[3] == r[5] for r in rows)
    stored = mem.remember(SCOPE, "word0 " * 12)
    assert any(r[1] == "word0" and r[2] == 12 for r in _bounds(mem))
    assert mem.forget(SCOPE, stored.memory_id) == 1
    assert all(r[2] >= r[4] and r[3] <= r[5] for r in _bounds(mem))  # looser after a delete, still bounds


def test_the_migration_fills_the_bounds_of_a_store_written_before_it(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [name for name, _ in postgres_schema.MIGRATIONS]
    before = names.index("0007_search_term_bounds")
    monkeypatch.setattr(postgres, "MIGRATIONS", postgres_schema.MIGRATIONS[:before])
    with memoryos.open(pg_url, clock=FakeClock()) as old:
        for n in range(30):
            old.remember(SCOPE, f"word0 {'word1 ' * (n % 4)} note{n}")
    monkeypatch.undo()
    with memoryos.open(pg_url, clock=FakeClock()) as mem:
        rows = _bounds(mem)
        assert any(r[1] == "word1" and r[2] == 3 for r in rows)
        assert all(r[2] == r[4] and r[3] == r[5] for r in rows)
