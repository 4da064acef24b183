"""Ranking per scope (DESIGN §9): nothing one scope stores moves another scope's recall or explain."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.testing import FakeClock

VOCABULARY = ["kiwi", "camping", "camped", "release", "blyck", "staging", "ferry", "invoice", "piano", "rust"]
A = memoryos.Scope(user="alice", assistant="coder")
B = memoryos.Scope(user="bob", assistant="coder")
C = memoryos.Scope(user="alice", assistant="writer")

texts = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8).map(" ".join)
# "question": a turn by the other role that asks, so that the next turn may be recalled as its reply
documents = st.tuples(texts, st.sampled_from(["turn", "question", "record", "expired", "future"]))


def _store(mem: memoryos.Memory, scope: memoryos.Scope, doc: tuple[str, str], n: int) -> None:
    text, how = doc
    now = mem._clock()
    if how == "turn":
        mem.remember(scope, text)
    elif how == "question":
        mem.remember(scope, f"{text}?", role="assistant")
    elif how == "record":
        mem.put(scope, f"note:{n}", text)
    elif how == "expired":
        mem.put(
            scope, f"old:{n}", text, valid_from=now - timedelta(days=2), valid_until=now - timedelta(days=1)
        )
    else:
        mem.put(scope, f"later:{n}", text, valid_from=now + timedelta(days=30))


def _answer(mem: memoryos.Memory, query: str) -> tuple[object, ...]:
    found = mem.recall(A, query, k=5, explain=True)
    return (
        [(h.memory_id, h.version, h.score, h.source_ids) for h in found.hits],
        [(e.memory_id, e.version, e.reason) for e in found.excluded],
        mem.context(A, query, budget_tokens=200).refs,
        mem.topics(A),
    )


class TestScopeIsolation:
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @example(mine=[("kiwi ferry", "question")], before=[], after=[("piano", "turn")], query="kiwi")
    @given(
        mine=st.lists(documents, min_size=1, max_size=10),
        before=st.lists(documents, max_size=6),
        after=st.lists(documents, min_size=1, max_size=12),
        query=texts,
    )
    def test_other_scopes_documents_never_change_this_scopes_recall(
        self,
        mine: list[tuple[str, str]],
        before: list[tuple[str, str]],
        after: list[tuple[str, str]],
        query: str,
    ) -> None:
        """Adding any documents, including the query's own words, to other scopes leaves scope A's
        hits, their order and scores, its explain output, its context block and its topics as they were."""
        with tempfile.TemporaryDirectory() as folder:
            mem = memoryos.open(Path(folder) / "m.db", clock=FakeClock(tick=timedelta(0)))
            for n in range(max(len(mine), len(before))):  # B's rows between A's (and A's replies)
                if n < len(before):
                    _store(mem, B, before[n], n)
                if n < len(mine):
                    _store(mem, A, mine[n], n)
            first = _answer(mem, query)
            tail = [(query, "question"), (query, "turn"), (query, "record"), (query, "expired")]
            for n, doc in enumerate([*after, *tail]):
                _store(mem, B if n % 2 else C, doc, 100 + n)
            assert _answer(mem, query) == first
            mem.close()

    def test_a_score_does_not_move_when_another_user_writes_the_word(self, mem: memoryos.Memory) -> None:
        mem.remember(A, "the kiwi harvest starts in May")
        mem.remember(A, "ferry times to the island")
        alone = mem.recall(A, "kiwi").hits[0].score
        for n in range(30):
            mem.remember(B, f"kiwi kiwi note {n}")
        assert mem.recall(A, "kiwi").hits[0].score == alone

    def test_explain_lists_only_the_callers_own_exclusions(
        self, mem: memoryos.Memory, clock: FakeClock
    ) -> None:
        now = clock.now
        mem.put(B, "theirs", "kiwi season", valid_from=now - timedelta(days=2), valid_until=now)
        mem.put(A, "mine", "kiwi season", valid_from=now - timedelta(days=2), valid_until=now)
        mem.remember(B, "kiwi for breakfast")
        found = mem.recall(A, "kiwi", explain=True)
        assert found.hits == []
        assert [e.reason for e in found.excluded] == ["expired"]
        assert mem.recall(A, "unknownword", explain=True).excluded == []
        assert not any(e.reason == "other_scope" for e in mem.recall(B, "kiwi", explain=True).excluded)
