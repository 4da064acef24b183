"""The folded forms of a full-STM promotion (issue 12: its cost against a raw move) write what the
plain ones wrote: the STM claim that also answers which turns lack index terms, the one-statement
last_pages, and the keyword state a promotion carries over to the next one (held equal to a cold
read of every segment, also after a promotion that was rolled back)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.errors import InjectedFault
from memoryos.failpoints import arm
from memoryos.store.base import SearchPlan
from memoryos.store.rows import Unit
from memoryos.store.sqlite import SQLiteStore
from memoryos.testing import FakeClock
from receipts import uuid7

USER, ASSISTANT = "a" * 32, "b" * 32


def turn(body: str, tier: str = "stm", **extra: Any) -> Unit:
    return Unit(uuid7(), 1, tier, USER, ASSISTANT, body, 5, 5, 5, uuid7(), role="user", **extra)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    backend = SQLiteStore(
        tmp_path / "s.db", durability="normal", busy_timeout_ms=1000, clock=lambda: datetime.now(UTC)
    )
    backend.bind_receipts("chain-1", b"k" * 32)
    yield backend
    backend.close()


def strip_terms(store: SQLiteStore, memory_id: str) -> None:
    """As a raw INSERT since open leaves a row: no index terms yet."""
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE units SET terms = NULL, term_count = 0 WHERE memory_id = ?", (memory_id,))


def found(store: SQLiteStore, word: str) -> list[str]:
    hits = store.search(SearchPlan({word: 1.0}, 2.0, 1.2, 0.75), USER, ASSISTANT, as_of=10, limit=5)
    return [h.unit.memory_id for h in hits]


class TestTheStmClaim:
    def test_it_claims_only_the_asked_turns_of_the_scope(self, store: SQLiteStore) -> None:
        mine, other = turn("kiwi"), turn("fig")
        theirs = turn("lime").but(user_scope="c" * 32)
        with store.write("store") as tx:
            for u in (mine, other, theirs):
                tx.insert_unit(u)
        with store.write("store") as tx:
            held = tx.stm_rowids(USER, ASSISTANT, [mine.memory_id, theirs.memory_id, uuid7()])
        assert list(held) == [mine.memory_id]

    def test_a_claimed_turn_without_terms_is_indexed_as_its_page(self, store: SQLiteStore) -> None:
        bare = turn("kiwi orchard")
        with store.write("store") as tx:
            tx.insert_unit(bare)
        strip_terms(store, bare.memory_id)
        page = bare.but(memory_id=uuid7(), tier="mtm", segment_id="seg", source_ids=(bare.memory_id,))
        with store.write("store") as tx:
            rowid = tx.stm_rowids(USER, ASSISTANT, [bare.memory_id])[bare.memory_id]
            tx.turn_into_pages([(rowid, page)])
        assert found(store, "kiwi") == [page.memory_id]

    def test_a_turn_moved_without_a_claim_in_its_transaction_is_still_checked(
        self, store: SQLiteStore
    ) -> None:
        bare, indexed = turn("blyck orchard"), turn("blyck grove")
        with store.write("store") as tx:
            tx.insert_unit(bare)
            tx.insert_unit(indexed)
            rowids = tx.stm_rowids(USER, ASSISTANT, [bare.memory_id, indexed.memory_id])
        strip_terms(store, bare.memory_id)
        pages = [
            u.but(memory_id=uuid7(), tier="mtm", segment_id="seg", source_ids=(u.memory_id,))
            for u in (bare, indexed)
        ]
        with store.write("store") as tx:  # a new transaction: it read no claim, so it asks
            moves = [(rowids[u.memory_id], p) for u, p in zip((bare, indexed), pages, strict=True)]
            tx.turn_into_pages(moves)
        assert sorted(found(store, "blyck")) == sorted(p.memory_id for p in pages)


class TestLastPages:
    def test_many_segments_in_one_read_each_with_its_own_last_page(self, store: SQLiteStore) -> None:
        segments = [f"seg-{i:04d}" for i in range(1203)]  # over two chunks of bound parameters
        with store.write("store") as tx:
            for i, segment in enumerate(segments):
                if i % 3:  # every third segment holds no page
                    for _ in range(1 + i % 2):
                        tx.insert_unit(turn("page", tier="mtm", segment_id=segment))
        with store.read() as tx:
            one_read = tx.last_pages([*segments, "none"])
            each = {s: tx._one("SELECT max(rowid) FROM units WHERE segment_id = ?", (s,)) for s in segments}
        assert one_read == {s: r for s, r in each.items() if r is not None}
        assert len(one_read) == 802 and "none" not in one_read


# -- the keyword state carried from one promotion to the next ---------------------------------------
VOCABULARY = [f"w{i}" for i in range(40)] + ["deploy", "garden", "piano", "taxes", "travel"]
bodies = st.lists(
    st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=25).map(" ".join), min_size=14, max_size=35
)


def segments_written(bodies: list[str], tmp: Path, *, cold: bool, fail_at: int) -> list[tuple[Any, ...]]:
    """Every segment the bodies make, oldest first; `cold` reads each segment's keywords from the store
    before every promotion; the promotion due at turn `fail_at` is first tried and rolled back."""
    clock = FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(seconds=1))
    scope = memoryos.Scope(user="alice", assistant="coder")
    with memoryos.open(tmp / "m.db", clock=clock, heat_threshold=1e12, segment_max_pages=9) as mem:
        key = mem._scopes(scope)
        failed = False
        for i, body in enumerate(bodies):
            if cold:
                mem.promoter._keywords.entries.clear()
            with mem.store.read() as tx:
                turns = tx.stm_turns(key.user, key.assistant)
            if i >= fail_at and turns and not failed:
                failed = True
                arm("stm_to_mtm.after_receipts=raise")
                try:
                    with pytest.raises(InjectedFault):
                        mem.promoter.promote_turns(turns, int(clock().timestamp() * 1e6))
                finally:
                    arm("")
            mem.remember(scope, body)
        with mem.store.read() as tx:
            written = sorted(tx.segments(key.user, key.assistant), key=lambda s: (s.created_at, s.segment_id))
    return [(list(s.keywords.items()), s.pages, s.interactions, s.version) for s in written]


class TestCarriedKeywords:
    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(bodies, st.integers(0, 34))
    def test_promotions_write_what_a_cold_read_of_every_segment_writes(
        self, tmp_path_factory: pytest.TempPathFactory, texts: list[str], fail_at: int
    ) -> None:
        warm = segments_written(texts, tmp_path_factory.mktemp("warm"), cold=False, fail_at=fail_at)
        cold = segments_written(texts, tmp_path_factory.mktemp("cold"), cold=True, fail_at=fail_at)
        assert warm == cold and len(warm) >= 1
