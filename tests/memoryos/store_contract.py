"""The contract every store backend passes (STYLE practice 2). Not collected by itself: each
backend's test module subclasses StoreContract and provides the `store` fixture."""

from __future__ import annotations

import pytest

from memoryos.errors import StoreClosed, StoreError
from memoryos.store.base import SearchPlan, Store
from memoryos.store.rows import Intent, Segment, SegmentHead, Unit
from receipts import ZERO_HASH, link_hash, parse_line, uuid7

USER, ASSISTANT = "a" * 32, "b" * 32


def unit(tier: str = "stm", body: str = "rust build notes", **extra: object) -> Unit:
    fields: dict[str, object] = {
        "memory_id": uuid7(),
        "version": 1,
        "tier": tier,
        "user_scope": USER,
        "assistant_scope": ASSISTANT,
        "body": body,
        "created_at": 1,
        "valid_from": 1,
        "last_seen": 1,
        "run_id": uuid7(),
        **extra,
    }
    return Unit(**fields)  # type: ignore[arg-type]


def receipt_draft(run_id: str) -> dict[str, object]:
    return {
        "runId": run_id,
        "boundary": "store",
        "status": "committed",
        "sourceVersion": "memoryos/test",
        "userScope": USER,
        "assistantScope": ASSISTANT,
    }


class StoreContract:
    def test_a_committed_write_is_visible_with_its_receipts_chained(self, store: Store) -> None:
        first = unit()
        with store.write("store") as tx:
            tx.insert_unit(first)
            tx.emit(receipt_draft(first.run_id))
            tx.emit(receipt_draft(first.run_id))
        with store.read() as tx:
            assert [u.memory_id for u in tx.stm_turns(USER, ASSISTANT)] == [first.memory_id]
            rows = tx.outbox_after(0, 10)
        receipts = [line.receipt for _, body in rows if (line := parse_line(body, "t", 0)) and line.receipt]
        assert [r["seq"] for r in receipts] == [1, 2]
        assert receipts[0]["prev"] == ZERO_HASH and receipts[1]["prev"] == link_hash(receipts[0])

    def test_an_exception_rolls_everything_back(self, store: Store) -> None:
        with pytest.raises(RuntimeError), store.write("store") as tx:
            tx.insert_unit(unit())
            tx.emit(receipt_draft(uuid7()))
            raise RuntimeError("boom")
        with store.read() as tx:
            assert tx.stm_turns(USER, ASSISTANT) == [] and tx.outbox_after(0, 10) == []

    def test_driver_errors_become_store_errors(self, store: Store) -> None:
        same = unit()
        with pytest.raises(StoreError), store.write("store") as tx:
            tx.insert_unit(same)
            tx.insert_unit(same)  # (memory_id, version) is unique
        with store.read() as tx:
            assert tx.stm_turns(USER, ASSISTANT) == []

    def test_search_is_scoped_and_filtered_before_ranking(self, store: Store) -> None:
        with store.write("store") as tx:
            tx.insert_unit(unit(body="kiwi kiwi kiwi expired", valid_until=5))
            tx.insert_unit(unit(body="kiwi lasting"))
            tx.insert_unit(unit(body="kiwi kiwi other scope", user_scope="c" * 32))
        hits = store.search(SearchPlan({"kiwi": 1.0}, 3.0, 1.2, 0.75), USER, ASSISTANT, as_of=10, limit=1)
        assert [h.unit.body for h in hits] == ["kiwi lasting"]

    def test_segments_and_intents_round_trip(self, store: Store) -> None:
        segment = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 1, 2, 3, 4, 1)
        intent = Intent(uuid7(), "mtm_to_lpm", segment.segment_id, 1, "host:1", 5)
        with store.write("store") as tx:
            tx.put_segment(segment)
            tx.insert_intent(intent)
        with store.read() as tx:
            assert tx.segment(segment.segment_id) == segment
            assert tx.intents() == [intent]

    def test_releasing_stm_deletes_only_this_scopes_turns_and_says_which(self, store: Store) -> None:
        mine, page, theirs = unit(), unit(tier="mtm"), unit(user_scope="c" * 32)
        with store.write("store") as tx:
            for u in (mine, page, theirs):
                tx.insert_unit(u)
        ids = [mine.memory_id, page.memory_id, theirs.memory_id, uuid7()]
        with store.write("store") as tx:
            assert tx.release_stm(USER, ASSISTANT, ids) == {mine.memory_id}
        with store.read() as tx:
            assert tx.stm_turns(USER, ASSISTANT) == [] and len(tx.stm_turns("c" * 32, ASSISTANT)) == 1

    def test_a_segment_grows_in_place_and_its_summary_goes_stale(self, store: Store) -> None:
        segment = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 3, 2, 3, 4, 1, 1, True)
        with store.write("store") as tx:
            tx.put_segment(segment)
            tx.grow_segments([(segment.segment_id, {"rust": 3, "cargo": 1}, 2)])
        with store.read() as tx:
            grown = tx.segment(segment.segment_id)
            assert tx.segment_heads(USER, ASSISTANT) == [SegmentHead(segment.segment_id, 3, 4)]
            assert tx.segment_keywords(segment.segment_id) == {"rust": 3, "cargo": 1}
            assert tx.stale_summaries(10) == [grown]
        assert grown is not None and (grown.interactions, grown.visits, grown.version) == (4, 3, 3)
        assert grown.summary_stale and grown.summary == "summary"

    def test_use_after_close_is_refused(self, store: Store) -> None:
        store.close()
        with pytest.raises(StoreClosed), store.write("store"):
            pass
