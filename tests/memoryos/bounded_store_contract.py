"""The store queries that keep a promotion bounded (issue 12), as a contract: `BoundedStoreContract`
needs only a `store` fixture; each backend's test file subclasses it (tests/memoryos/test_store_sqlite.py)."""

from __future__ import annotations

from dataclasses import replace

from memoryos.store.base import Store
from memoryos.store.rows import Segment, SegmentHead
from receipts import uuid7
from tests.memoryos.store_contract import ASSISTANT, USER, unit


def segment(pages: int = 0, **extra: object) -> Segment:
    base = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "", 0, pages, 3, 4, 1)
    return replace(base, pages=pages, **extra)  # type: ignore[arg-type]


class BoundedStoreContract:
    def test_pages_after_a_mark_come_in_store_order_and_no_more_than_asked(self, store: Store) -> None:
        home = segment()
        pages = [unit("mtm", segment_id=home.segment_id, created_at=10 - i) for i in range(5)]
        with store.write("store") as tx:
            tx.put_segment(home)
            for page in pages:
                tx.insert_unit(page)
        with store.read() as tx:
            stored = tx.pages_after(home.segment_id, 0, 100)
            assert [p.memory_id for p in stored] == [p.memory_id for p in pages]  # not by created_at
            after = tx.pages_after(home.segment_id, stored[1].rowid or 0, 2)
            assert [p.memory_id for p in after] == [p.memory_id for p in pages[2:4]]
            newest = tx.newest_pages(home.segment_id, 2)
            assert [p.memory_id for p in newest] == [pages[1].memory_id, pages[0].memory_id]

    def test_only_open_segments_are_offered_to_placement(self, store: Store) -> None:
        small, full, other = segment(pages=3), segment(pages=8), segment(pages=1, user_scope="c" * 32)
        with store.write("store") as tx:
            for s in (small, full, other):
                tx.put_segment(s)
            tx.grow_segments([(small.segment_id, {"rust": 3}, 2)])
        with store.read() as tx:
            assert tx.open_segment_heads(USER, ASSISTANT, 8) == [SegmentHead(small.segment_id, 3, 4, 5)]
            assert tx.segment_count(USER, ASSISTANT) == 2
            grown = tx.segment(small.segment_id)
        assert grown is not None and (grown.pages, grown.interactions) == (5, 5)

    def test_the_distillation_mark_round_trips(self, store: Store) -> None:
        marked = segment(pages=4, distilled_through=17)
        with store.write("store") as tx:
            tx.put_segment(marked)
        with store.read() as tx:
            assert tx.segment(marked.segment_id) == marked

    def test_only_segments_near_the_heat_threshold_are_read(self, store: Store) -> None:
        cold, warm = segment(pages=1), replace(segment(pages=2), visits=2)
        with store.write("store") as tx:
            tx.put_segment(cold)
            tx.put_segment(warm)
        with store.read() as tx:
            assert [s.segment_id for s in tx.segments_heated(1.0, 1.0, 4.0)] == [warm.segment_id]

    def test_a_lists_standing_is_read_without_its_records(self, store: Store) -> None:
        records = [unit("lpm", list="profile", reinforced=i, last_seen=10 + i) for i in range(3)]
        with store.write("store") as tx:
            for record in records:
                tx.insert_unit(record)
            tx.insert_unit(unit("lpm", list="user_knowledge"))
        with store.read() as tx:
            standing = sorted(tx.list_standing(USER, ASSISTANT, "profile"))
        assert standing == sorted((r.memory_id, r.reinforced, r.last_seen) for r in records)
