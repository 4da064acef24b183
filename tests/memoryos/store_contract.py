"""The contract every store backend passes (STYLE practice 2), split like the port
(memoryos/store/base.py): one abstract class per role. Not collected by itself: each backend's test
module subclasses them (or StoreContract, their union) and provides the `store` fixture."""

from __future__ import annotations

import pytest

from memoryos.errors import StoreClosed, StoreError
from memoryos.memory import Memory
from memoryos.store.base import SearchPlan, Store
from memoryos.store.rows import CandidateRow, Intent, PageNote, Segment, SegmentHead, Unit
from memoryos.store.sqlite import SQLiteStore
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


class TransactionContract:
    """What every write and read transaction guarantees, whatever the role."""

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

    def test_the_store_is_usable_after_a_failed_transaction(self, store: Store) -> None:
        same = unit()
        with pytest.raises(StoreError), store.write("store") as tx:
            tx.insert_unit(same)
            tx.insert_unit(same)
        with store.write("store") as tx:
            tx.insert_unit(same)
        with store.read() as tx:
            assert [u.memory_id for u in tx.stm_turns(USER, ASSISTANT)] == [same.memory_id]

    def test_use_after_close_is_refused(self, store: Store) -> None:
        store.close()
        with pytest.raises(StoreClosed), store.write("store"):
            pass


class UnitContract:
    def test_units_round_trip_with_their_lineage(self, store: Store) -> None:
        turn = unit()
        page = unit("mtm", source_ids=(turn.memory_id,), derived_from=("x@1",), confidence=0.5)
        with store.write("store") as tx:
            rowid = tx.insert_unit(page)
            tx.insert_units([turn])
        with store.read() as tx:
            (found,) = tx.units_by_ids([page.memory_id])
            assert found == page and found.rowid == rowid
            assert tx.dependents([turn.memory_id, "x"]) == [page.memory_id]
            assert [u.memory_id for u in tx.units_page(0, 10, USER, None)] == [page.memory_id, turn.memory_id]

    def test_an_update_changes_only_the_named_columns(self, store: Store) -> None:
        record = unit("lpm", key="k", kind="fact")
        with store.write("store") as tx:
            rowid = tx.insert_unit(record)
            tx.update_unit(rowid, status="stale", last_seen=9)
        with store.read() as tx:
            (found,) = tx.id_versions(USER, ASSISTANT, record.memory_id)
        assert (found.status, found.last_seen, found.body) == ("stale", 9, record.body)

    def test_expiry_and_decay_find_only_what_is_due(self, store: Store) -> None:
        due, later = unit("lpm", valid_until=5), unit("lpm", valid_until=50)
        fading = unit("lpm", kind="fact", last_seen=2)
        with store.write("store") as tx:
            for u in (due, later, fading):
                tx.insert_unit(u)
        with store.read() as tx:
            assert [u.memory_id for u in tx.expired(10, 10)] == [due.memory_id]
            assert [u.memory_id for u in tx.decay_candidates(3, 10)] == [fading.memory_id]

    def test_a_sessions_units_are_found_in_their_scope_only(self, store: Store) -> None:
        mine, other = unit(session="s1"), unit(session="s1", user_scope="c" * 32)
        with store.write("store") as tx:
            tx.insert_units([mine, other, unit(session="s2")])
        with store.read() as tx:
            assert [u.memory_id for u in tx.session_units(USER, ASSISTANT, "s1")] == [mine.memory_id]


class ShortTermContract:
    def test_a_committed_write_is_visible(self, store: Store) -> None:
        first = unit()
        with store.write("store") as tx:
            tx.insert_unit(first)
        with store.read() as tx:
            assert [u.memory_id for u in tx.stm_turns(USER, ASSISTANT)] == [first.memory_id]
            assert tx.count_stm(USER, ASSISTANT) == 1
            assert tx.stm_scopes_due(1) == [(USER, ASSISTANT)] and tx.stm_scopes_due(0) == []

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

    def test_a_turn_becomes_its_page_in_place_and_stays_searchable(self, store: Store) -> None:
        turn = unit(body="kiwi orchard")
        with store.write("store") as tx:
            tx.insert_unit(turn)
            rowids = tx.stm_rowids(USER, ASSISTANT, [turn.memory_id, uuid7()])
        page = unit("mtm", body=turn.body, segment_id="seg", source_ids=(turn.memory_id,))
        with store.write("store") as tx:
            tx.turn_into_pages([(rowids[turn.memory_id], page)])
        with store.read() as tx:
            assert tx.stm_turns(USER, ASSISTANT) == []
            assert [p.memory_id for p in tx.pages("seg")] == [page.memory_id]
            assert tx.last_pages(["seg", "none"]) == {"seg": rowids[turn.memory_id]}
        hits = store.search(SearchPlan({"kiwi": 1.0}, 2.0, 1.2, 0.75), USER, ASSISTANT, as_of=10, limit=5)
        assert [h.unit.memory_id for h in hits] == [page.memory_id]


class DrawerContract:
    def test_keyed_versions_and_drawer_keys(self, store: Store) -> None:
        first = unit("lpm", key="lang", kind="fact")
        second = unit("lpm", key="lang", kind="fact", memory_id=first.memory_id, version=2)
        with store.write("store") as tx:
            tx.insert_units([second, first, unit("lpm", key="editor", kind="fact")])
        with store.read() as tx:
            assert [u.version for u in tx.key_versions(USER, ASSISTANT, "lang")] == [1, 2]
            assert tx.drawer_keys(USER, ASSISTANT, 10) == ["editor", "lang"]
            assert tx.drawer_keys(USER, ASSISTANT, 1) == ["editor"]

    def test_a_list_record_is_found_by_its_digest(self, store: Store) -> None:
        record = unit("lpm", list="profile", content_hash="h1")
        with store.write("store") as tx:
            tx.insert_unit(record)
        with store.read() as tx:
            assert tx.list_record(USER, ASSISTANT, "profile", "h1") == record
            assert tx.list_record(USER, ASSISTANT, "profile", "h2") is None
            assert tx.list_records(USER, ASSISTANT, "profile") == [record]

    def test_a_rejected_candidate_keeps_its_decision_and_loses_its_content(self, store: Store) -> None:
        kept = CandidateRow(uuid7(), USER, ASSISTANT, "fact", "k1", "body one", "proof", "pending", 1)
        dropped = CandidateRow(uuid7(), USER, ASSISTANT, "fact", "k2", "body two", "proof", "pending", 2)
        with store.write("store") as tx:
            tx.insert_candidate(kept)
            tx.insert_candidate(dropped)
            tx.decide_candidate(kept.candidate_id, "approved", 5, "m1")
            tx.decide_candidate(dropped.candidate_id, "rejected", 6, None)
        with store.read() as tx:
            assert [c.candidate_id for c in tx.candidates(USER, ASSISTANT, "pending")] == []
            approved, rejected = tx.candidates(USER, ASSISTANT, None)
        assert (approved.status, approved.memory_id, approved.body) == ("approved", "m1", "body one")
        assert (rejected.status, rejected.body, rejected.key, rejected.proof) == ("rejected", "", "", None)


class SegmentContract:
    def test_segments_round_trip(self, store: Store) -> None:
        segment = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 1, 2, 3, 4, 1)
        with store.write("store") as tx:
            tx.put_segment(segment)
            tx.put_segment(segment)  # an upsert, not a second row
        with store.read() as tx:
            assert tx.segment(segment.segment_id) == segment
            assert tx.segments(USER, ASSISTANT) == [segment] == tx.all_segments()

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

    def test_a_visit_counts_and_a_deleted_segment_is_gone(self, store: Store) -> None:
        segment = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 1, 2, 3, 4, 1)
        with store.write("store") as tx:
            tx.put_segment(segment)
            tx.visit_segments([segment.segment_id], 99)
        with store.read() as tx:
            visited = tx.segment(segment.segment_id)
        assert visited is not None and (visited.visits, visited.last_visit_at) == (2, 99)
        with store.write("store") as tx:
            tx.delete_segment(segment.segment_id)
        with store.read() as tx:
            assert tx.segment(segment.segment_id) is None and tx.segment_keywords(segment.segment_id) == {}


class PageContract:
    def test_page_notes_go_with_their_page(self, store: Store) -> None:
        first, second = unit("mtm", segment_id="seg"), unit("mtm", segment_id="seg")
        notes = [
            PageNote(first.memory_id, "seg", "one", None, False),
            PageNote(second.memory_id, "seg", "two", first.memory_id, True),
        ]
        with store.write("store") as tx:
            rowid = tx.insert_unit(first)
            tx.insert_unit(second)
            tx.put_page_notes(notes)
        with store.read() as tx:
            assert tx.page_count("seg") == 2
            assert tx.notes_of([first.memory_id, second.memory_id, "x"]) == {n.memory_id: n for n in notes}
        with store.write("store") as tx:
            tx.delete_units([rowid])
        with store.read() as tx:
            assert tx.notes_of([first.memory_id, second.memory_id]) == {
                second.memory_id: PageNote(second.memory_id, "seg", "two", None, True)
            }
        with store.write("store") as tx:
            tx.drop_page_notes("seg")
        with store.read() as tx:
            assert tx.notes_of([second.memory_id]) == {}


class OutboxContract:
    def test_receipts_commit_with_their_change_chained(self, store: Store) -> None:
        first = unit()
        with store.write("store") as tx:
            tx.insert_unit(first)
            tx.emit(receipt_draft(first.run_id))
            tx.emit(receipt_draft(first.run_id))
        with store.read() as tx:
            rows = tx.outbox_after(0, 10)
            assert tx.outbox_head() == 2 and tx.run_committed(first.run_id) and not tx.run_committed("x")
            assert len(tx.run_scope(first.run_id)) == 2 and tx.outbox_link(3) is None
        receipts = [line.receipt for _, body in rows if (line := parse_line(body, "t", 0)) and line.receipt]
        assert [r["seq"] for r in receipts] == [1, 2]
        assert receipts[0]["prev"] == ZERO_HASH and receipts[1]["prev"] == link_hash(receipts[0])

    def test_the_next_transaction_continues_the_chain(self, store: Store) -> None:
        for _ in range(2):
            with store.write("store") as tx:
                tx.emit(receipt_draft(uuid7()))
        with store.read() as tx:
            assert [seq for seq, _ in tx.outbox_after(1, 10)] == [2]

    def test_an_export_cursor_round_trips(self, store: Store) -> None:
        with store.write("store") as tx:
            assert tx.cursor("default") == 0
            tx.set_cursor("default", 7)
            tx.set_cursor("default", 9)
        with store.read() as tx:
            assert tx.cursor("default") == 9 and tx.cursor("other") == 0

    def test_a_claimed_cursor_reads_where_it_stands(self, store: Store) -> None:
        with store.write("store") as tx:
            assert tx.claim_cursor("new") == 0
            tx.set_cursor("new", 4)
        with store.write("store") as tx:
            assert tx.claim_cursor("new") == 4


class IntentContract:
    def test_intents_round_trip(self, store: Store) -> None:
        intent = Intent(uuid7(), "mtm_to_lpm", uuid7(), 1, "host:1", 5)
        with store.write("store") as tx:
            assert tx.insert_intent(intent)
        with store.read() as tx:
            assert tx.intents() == [intent]

    def test_a_subject_is_claimed_once_and_released_once(self, store: Store) -> None:
        intent = Intent(uuid7(), "mtm_to_lpm", uuid7(), 1, "host:1", 5)
        rival = Intent(uuid7(), "mtm_to_lpm", intent.subject_id, 1, "host:2", 6)
        with store.write("store") as tx:
            assert tx.insert_intent(intent) and not tx.insert_intent(rival)
        with store.write("store") as tx:
            assert tx.delete_intent(intent.run_id) and not tx.delete_intent(intent.run_id)


class ErasureContract:
    def test_a_tombstone_is_found_by_id_or_key_hash_in_its_scope(self, store: Store) -> None:
        gone = unit("lpm", key="k")
        with store.write("store") as tx:
            tx.tombstone(gone, "kh", "user request", 7)
            tx.tombstone(gone, "kh", "user request", 8)  # the same version once
        with store.read() as tx:
            assert tx.tombstoned(USER, ASSISTANT, gone.memory_id, None)
            assert tx.tombstoned(USER, ASSISTANT, None, "kh")
            assert not tx.tombstoned("c" * 32, ASSISTANT, gone.memory_id, "kh")
            (row,) = tx.tombstones(USER, None)
        assert (row["memory_id"], row["key_hash"], row["at"]) == (gone.memory_id, "kh", 8)

    def test_an_erased_unit_leaves_the_index(self, store: Store) -> None:
        gone = unit(body="kiwi secret")
        with store.write("store") as tx:
            rowid = tx.insert_unit(gone)
        with store.write("store") as tx:
            tx.delete_units([rowid])
            tx.drop_sources([gone.memory_id])
            tx.merge_index()
        plan = SearchPlan({"kiwi": 1.0}, 2.0, 1.2, 0.75)
        assert store.search(plan, USER, ASSISTANT, as_of=10, limit=5) == []
        assert store.scope_stats(USER, ASSISTANT, ["kiwi"]).documents == 0
        assert store.integrity() == []


class MaintenanceContract:
    def test_meta_values_and_set_if_absent(self, store: Store) -> None:
        assert store.meta("x") is None
        assert store.set_meta_if_absent("x", "1") == "1" and store.set_meta_if_absent("x", "2") == "1"
        with store.write("store") as tx:
            tx.set_meta("x", "3")
        assert store.meta("x") == "3"

    def test_occupancy_counts_records_not_versions(self, store: Store) -> None:
        record = unit("lpm", key="k")
        with store.write("store") as tx:
            assert tx.is_empty()
            tx.insert_units([record, unit("lpm", key="k", memory_id=record.memory_id, version=2), unit()])
        with store.read() as tx:
            occupancy = tx.occupancy()
            assert not tx.is_empty() and tx.lineage_problems() == []
        assert (occupancy["lpm"], occupancy["stm"], occupancy["segments"], occupancy["intents"]) == (
            1,
            1,
            0,
            0,
        )


class SearchContract:
    def test_search_is_scoped_and_filtered_before_ranking(self, store: Store) -> None:
        with store.write("store") as tx:
            tx.insert_unit(unit(body="kiwi kiwi kiwi expired", valid_until=5))
            tx.insert_unit(unit(body="kiwi lasting"))
            tx.insert_unit(unit(body="kiwi kiwi other scope", user_scope="c" * 32))
        hits = store.search(SearchPlan({"kiwi": 1.0}, 3.0, 1.2, 0.75), USER, ASSISTANT, as_of=10, limit=1)
        assert [h.unit.body for h in hits] == ["kiwi lasting"]

    def test_scope_statistics_count_only_the_scope(self, store: Store) -> None:
        with store.write("store") as tx:
            tx.insert_units(
                [unit(body="kiwi pear"), unit(body="pear"), unit(body="kiwi", user_scope="c" * 32)]
            )
        stats = store.scope_stats(USER, ASSISTANT, ["kiwi", "pear", "plum"])
        assert (stats.documents, dict(stats.frequencies)) == (2, {"kiwi": 1, "pear": 2})
        matched = store.matches(["kiwi"], USER, ASSISTANT, 10)
        assert [u.body for u in matched] == ["kiwi pear"]

    def test_turn_postings_follow_a_turn_into_its_page(self, store: Store) -> None:
        turn = unit(body="kiwi kiwi pear")
        with store.write("store") as tx:
            tx.insert_unit(turn)
        found = store.turn_postings(["kiwi", "plum"], USER, ASSISTANT, [turn.memory_id, "gone"])
        assert set(found) == {turn.memory_id} and found[turn.memory_id].frequencies == {"kiwi": 2}


class StoreContract(
    TransactionContract,
    UnitContract,
    ShortTermContract,
    DrawerContract,
    SegmentContract,
    PageContract,
    OutboxContract,
    IntentContract,
    ErasureContract,
    MaintenanceContract,
    SearchContract,
):
    """Every role's contract: a backend's test class subclasses this (or the roles one by one)."""


def sqlite_of(mem: Memory) -> SQLiteStore:
    """The SQLite store under a Memory, for tests that read its tables directly."""
    assert isinstance(mem.store, SQLiteStore), "this test reads a SQLite store's tables"
    return mem.store
