"""Properties of PostgreSQL's ranking over random corpora (DESIGN §9): whichever pruned ranking
answers (the two-term intersection under the stored bounds, MaxScore, or none), search() hands out
the plain BM25 ranking's top, to the last bit of every score; and nothing other scopes store, the
query's own words included, moves this scope's recall."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.store.sql_search import ranked, scope_token
from memoryos.testing import FakeClock
from tests.pg_server import drop_database, fresh_database

# Few words, drawn with repetition: pairs that share many notes, notes saying one word many times.
VOCABULARY = ["kiwi", "ferry", "piano", "rust", "staging", "invoice"]
words = st.sampled_from(VOCABULARY)
notes = st.lists(words, min_size=1, max_size=9).map(" ".join)
queries = st.lists(words, min_size=2, max_size=2, unique=True).map(" ".join)  # two terms: the pruned rankings


@pytest.fixture(scope="module")
def mem() -> Iterator[memoryos.Memory]:
    """One store for every example (a database per example would take most of the time); each
    example writes scopes of its own."""
    url = fresh_database()
    try:
        with memoryos.open(url, clock=FakeClock(), heat_threshold=1e12) as mem:
            yield mem
    finally:
        drop_database(url)


def _scope() -> memoryos.Scope:
    return memoryos.Scope(user=f"u{uuid.uuid4().hex}", assistant="a")


def _recall(mem: memoryos.Memory, scope: memoryos.Scope, query: str) -> list[tuple[str, int, float]]:
    return [(h.memory_id, h.version, h.score) for h in mem.recall(scope, query, k=5).hits]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mine=st.lists(notes, min_size=40, max_size=80), theirs=st.lists(notes, max_size=20), query=queries)
def test_search_is_the_plain_ranking_and_other_scopes_move_nothing(
    mem: memoryos.Memory, mine: list[str], theirs: list[str], query: str
) -> None:
    scope, other = _scope(), _scope()
    for n, text in enumerate(mine):
        mem.remember(scope, f"{text} n{n}")
    sk = mem._scopes(scope)
    plan = mem.retriever.plan(sk, query)
    if plan is not None:
        for limit in (3, 10):
            hits = mem.store.search(plan, sk.user, sk.assistant, 2**62, limit)
            with mem.store._reader() as conn:  # type: ignore[attr-defined]
                plain = ranked(conn, scope_token(sk.user, sk.assistant), plan, max(2 * limit, 16))
            assert [(h.unit.rowid, h.score) for h in hits] == plain[:limit]
    first = _recall(mem, scope, query)
    for n, text in enumerate([*theirs, query, f"{query} {query} {query}"]):
        mem.remember(other, f"{text} m{n}")
    assert _recall(mem, scope, query) == first
