"""PostgreSQL's pruned ranking (MaxScore over the light terms) hands out exactly what the plain BM25
ranking does: the same ids, order and scores, whether the bound holds or the plain ranking reruns."""

from __future__ import annotations

import random

import pytest

import memoryos
from memoryos.store.postgres_search import light_terms
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
