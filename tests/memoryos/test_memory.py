"""The public API, behaviour by behaviour (DESIGN §6)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import orjson
import pytest

import memoryos
import receipts
from memoryos.testing import FakeClock


def outbox(db: Path) -> list[dict[str, object]]:
    return [line.receipt for line in receipts.read_outbox(db) if line.receipt is not None]


def tier_counts(mem: memoryos.Memory) -> dict[str, int]:
    return dict(mem.status()["tiers"])


class TestRemember:
    def test_a_turn_is_in_stm_with_a_store_receipt_in_the_same_commit(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        stored = mem.remember(alice, "I deploy blyck with make release")
        assert tier_counts(mem)["stm"] == 1
        (receipt,) = outbox(db)
        assert receipt["boundary"] == "store" and receipt["memoryId"] == stored.memory_id
        assert receipt["toTier"] == "stm" and receipt["status"] == "committed"
        assert "waitUntilUtc" in receipt

    def test_a_full_stm_is_promoted_whole_into_mtm_pages(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        ids = [mem.remember(alice, f"turn number {i} about rust builds").memory_id for i in range(7)]
        assert tier_counts(mem)["stm"] == 0 and tier_counts(mem)["mtm_pages"] == 7
        promoted = [r for r in outbox(db) if r["boundary"] == "stm_to_mtm"]
        assert sorted(str(r["derivedFrom"][0]).split("@")[0] for r in promoted) == sorted(ids)  # type: ignore[index]
        assert all(r["sourcePresent"] is False and r["status"] == "committed" for r in promoted)
        assert len({r["runId"] for r in promoted}) == 1

    def test_a_promotion_is_exactly_one_commit(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock, heat_threshold=1000) as mem:
            for i in range(6):
                mem.remember(alice, f"turn {i} about deployments")
            before = mem.store.commits
            mem.remember(alice, "the seventh turn fills STM")
            # one commit stores the turn, exactly one more moves the whole STM (no segment is hot)
            assert mem.store.commits - before == 2
            assert tier_counts(mem)["mtm_pages"] == 7

    def test_idle_turns_leave_stm_when_maintain_runs_after_the_window(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, "a lonely turn")
        assert mem.maintain().promoted_turns == 0
        clock.advance(minutes=31)
        assert mem.maintain().promoted_turns == 1
        assert tier_counts(mem) == {"stm": 0, "mtm_pages": 1, "mtm_segments": 1, "lpm": 0}

    def test_similar_pages_share_a_segment(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        for i in range(7):
            mem.remember(alice, f"the blyck release pipeline step {i} runs make release")
        assert tier_counts(mem)["mtm_segments"] == 1


class TestHeatAndLpm:
    def test_a_hot_segment_is_distilled_into_lpm_with_lineage_and_its_heat_resets(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        turns = [
            mem.remember(alice, f"I prefer rust for the blyck build tool, note {i}.").memory_id
            for i in range(7)
        ]
        assert tier_counts(mem)["lpm"] == 0  # extraction never runs inside remember() (issue 15)
        # 7 pages + recency already exceed the threshold of 5, so the next maintain() distils
        assert mem.maintain().distilled_segments == 1
        assert tier_counts(mem)["lpm"] > 0
        distilled = [r for r in outbox(db) if r["boundary"] == "mtm_to_lpm"]
        assert distilled[0]["status"] == "started"
        assert any(r["status"] == "committed" for r in distilled)
        hit = mem.recall(alice, "rust blyck build", k=20).hits
        lpm = [h for h in hit if h.tier == "lpm"]
        assert lpm and set(lpm[0].source_ids) <= set(turns)
        assert mem.status()["heat_top"][0]["heat"] < 5

    def test_recall_visits_heat_a_segment(
        self,
        mem: memoryos.Memory,
        alice: memoryos.Scope,
        clock: FakeClock,
    ) -> None:
        mem.remember(alice, "the staging database migration timed out")
        clock.advance(minutes=31)
        mem.maintain()
        before = mem.status()["heat_top"][0]["visits"]
        mem.recall(alice, "staging migration")
        assert mem.status()["heat_top"][0]["visits"] == before + 1

    def test_mtm_capacity_evicts_the_coldest_segment_with_receipts(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock, stm_capacity=1, mtm_capacity=2, heat_threshold=1000) as mem:
            for topic in ("rust compiler", "garden tomatoes", "jazz piano", "tax forms"):
                mem.remember(alice, f"{topic} {topic}")
            assert tier_counts(mem)["mtm_segments"] == 2
        evicted = [r for r in outbox(db) if r["boundary"] == "evict"]
        assert len(evicted) == 2 and all(r["reason"] == "capacity" for r in evicted)


class TestRecall:
    def test_recall_never_returns_another_scopes_memory(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.remember(alice, "alice keeps her tomatoes in the greenhouse")
        assert mem.recall(bob, "tomatoes greenhouse").hits == []
        assert len(mem.recall(alice, "tomatoes greenhouse").hits) == 1

    def test_a_query_matching_nothing_returns_nothing(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        mem.remember(alice, "something about rust")
        assert mem.recall(alice, "zebra").hits == []

    def test_fts_syntax_in_queries_is_just_text(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.remember(alice, "NEAR the AND gate")
        assert len(mem.recall(alice, 'NEAR( "AND" OR * ^gate').hits) == 1

    def test_validity_is_filtered_before_ranking(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        for i in range(5):
            mem.remember(alice, f"expiring kiwi note {i}", ttl=60)
        mem.remember(alice, "a lasting kiwi note")
        clock.advance(minutes=2)
        hits = mem.recall(alice, "kiwi", k=1).hits
        assert [h.text for h in hits] == ["a lasting kiwi note"]

    def test_hits_carry_refs_and_the_turns_they_came_from(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        stored = mem.remember(alice, "the cat is called Miso")
        (hit,) = mem.recall(alice, "cat Miso").hits
        assert hit.ref == f"{hit.memory_id}@{hit.version}" == stored.ref
        assert hit.source_ids == (stored.memory_id,)

    def test_generated_records_the_refs_in_a_generate_receipt(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        mem.remember(alice, "the cat is called Miso")
        result = mem.recall(alice, "cat")
        mem.generated(alice, result.run_id, depends_on=result.refs, outcome="test:passed")
        generate = [r for r in outbox(db) if r["boundary"] == "generate"]
        assert generate[0]["dependsOnVersion"] == result.refs and generate[0]["runId"] == result.run_id

    def test_generated_for_an_unknown_run_is_not_found(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        with pytest.raises(memoryos.NotFound):
            mem.generated(alice, receipts.uuid7(), depends_on=[])


class TestDrawer:
    def test_put_adds_updates_and_reinforces(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        first = mem.put(alice, "deploy:blyck", "make release", kind="procedure")
        again = mem.put(alice, "deploy:blyck", "make release", kind="procedure")
        changed = mem.put(alice, "deploy:blyck", "make ship", kind="procedure")
        assert (first.version, again.version, changed.version) == (1, 1, 2)
        assert first.memory_id == again.memory_id == changed.memory_id
        record = mem.get(alice, "deploy:blyck")
        assert record is not None and record.body == "make ship" and record.version == 2
        assert [r.status for r in mem.history(alice, "deploy:blyck")] == ["superseded", "active"]

    def test_get_as_of_answers_what_was_valid_then(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.put(alice, "db:host", "db-1")
        before = clock.advance(hours=1)
        clock.advance(hours=1)
        mem.correct(alice, "db:host", "db-2")
        old = mem.get(alice, "db:host", as_of=before)
        new = mem.get(alice, "db:host")
        assert old is not None and old.body == "db-1"
        assert new is not None and new.body == "db-2"

    def test_correcting_an_unknown_key_is_not_found(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        with pytest.raises(memoryos.NotFound):
            mem.correct(alice, "nope", "body")

    def test_a_superseded_version_is_never_recalled(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        mem.put(alice, "editor", "vim is the editor")
        mem.correct(alice, "editor", "helix is the editor")
        assert [h.text for h in mem.recall(alice, "editor", k=10).hits] == ["helix is the editor"]

    def test_status_counts_a_corrected_record_once(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.put(alice, "editor", "vim is the editor")
        mem.correct(alice, "editor", "helix is the editor")
        mem.put(alice, "shell", "fish")
        assert tier_counts(mem)["lpm"] == 2  # records, as the auditor's report counts them; not versions


class TestForget:
    def test_forget_erases_a_key_and_is_idempotent(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        mem.put(alice, "door:code", "the garage code is written on the fridge")
        mem.correct(alice, "door:code", "the garage code moved to the drawer")
        assert mem.forget(alice, "door:code") == 2
        assert mem.forget(alice, "door:code") == 0
        assert mem.get(alice, "door:code") is None and mem.history(alice, "door:code") == []
        assert [r["reason"] for r in outbox(db) if r["boundary"] == "forget"] == ["user_request"] * 2

    def test_forgetting_a_turn_removes_what_was_built_from_it(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        stored = [mem.remember(alice, f"I prefer rust for blyck, note {i}.") for i in range(7)]
        mem.maintain()
        assert tier_counts(mem)["lpm"] > 0
        mem.forget(alice, stored[0].memory_id)
        for hit in mem.recall(alice, "rust blyck note", k=50).hits:
            assert stored[0].memory_id not in hit.source_ids
        assert mem.check() == []

    def test_forgetting_in_one_scope_leaves_another_alone(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.put(alice, "k", "alice value")
        mem.put(bob, "k", "bob value")
        mem.forget(alice, "k")
        assert (record := mem.get(bob, "k")) is not None and record.body == "bob value"

    def test_forgetting_an_unknown_key_is_not_found(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        with pytest.raises(memoryos.NotFound):
            mem.forget(alice, "never-stored")


class TestStore:
    def test_reopening_keeps_everything_and_check_is_clean(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            for i in range(10):
                mem.remember(alice, f"note {i} about the build")
        with memoryos.open(db, clock=clock) as mem:
            assert sum(tier_counts(mem)[t] for t in ("stm", "mtm_pages")) == 10
            assert mem.check() == []

    def test_the_database_uses_wal_and_full_sync(self, mem: memoryos.Memory, db: Path) -> None:
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()

    def test_durability_mode_is_part_of_the_source_version(self, tmp_path: Path) -> None:
        with (
            memoryos.open(tmp_path / "a.db") as full,
            memoryos.open(tmp_path / "b.db", durability="normal") as fast,
        ):
            assert full.source_version != fast.source_version

    def test_a_store_from_a_newer_version_is_refused(self, db: Path) -> None:
        memoryos.open(db).close()
        conn = sqlite3.connect(db)
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        conn.commit()
        conn.close()
        with pytest.raises(memoryos.StoreVersionError, match="newer"):
            memoryos.open(db)

    def test_a_file_that_is_not_a_store_is_refused_clearly(self, tmp_path: Path) -> None:
        path = tmp_path / "junk.db"
        path.write_bytes(b"this is not sqlite" * 100)
        with pytest.raises(memoryos.StoreError):
            memoryos.open(path)

    def test_a_missing_receipt_key_is_refused(self, db: Path) -> None:
        memoryos.open(db).close()
        Path(str(db) + ".receipt-key").unlink()
        with pytest.raises(memoryos.StoreError, match="receipt key"):
            memoryos.open(db)

    def test_an_interrupted_distillation_is_rolled_back_on_open(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        import memoryos.failpoints as fp

        fp.arm("mtm_to_lpm.after_intent=raise")
        try:
            with memoryos.open(db, clock=clock) as mem:
                for i in range(7):
                    mem.remember(alice, f"I like rust, note {i}.")  # the 7th makes the segment hot
                with pytest.raises(memoryos.InjectedFault):
                    mem.maintain()  # its distillation fails after the intent
        finally:
            fp.arm("")
        clock.advance(minutes=10)  # past the intent grace period of a live owner
        with memoryos.open(db, clock=clock) as mem:
            assert mem.recovered == 1
            assert mem.status()["open_intents"] == 0
            runs = [r for r in outbox(db) if r["boundary"] == "mtm_to_lpm"]
            assert [r["status"] for r in runs] == ["started", "failed"]
            assert mem.maintain().distilled_segments == 1  # retried afresh under a new run
            assert mem.check() == []

    def test_a_rollback_after_its_segment_was_evicted_claims_no_release(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        import memoryos.failpoints as fp

        with memoryos.open(db, clock=clock, stm_capacity=3, mtm_capacity=1, heat_threshold=3) as mem:
            fp.arm("mtm_to_lpm.after_intent=1*raise")
            try:
                for i in range(3):  # the third turn makes the segment hot
                    mem.remember(alice, f"espresso grinder beans crema {i}")
                with pytest.raises(memoryos.InjectedFault):
                    mem.maintain()  # the distillation it starts fails after the intent
            finally:
                fp.arm("")
            for i in range(3):  # another topic: the hot segment is evicted, with evict receipts
                mem.remember(alice, f"train tickets berlin platform {i}")
        clock.advance(minutes=10)
        with memoryos.open(db, clock=clock, stm_capacity=3, mtm_capacity=1, heat_threshold=3) as mem:
            assert mem.recovered == 1
        failed = [r for r in outbox(db) if r["status"] == "failed"]
        assert len(failed) == 1 and "sourcePresent" not in failed[0]

    def test_receipts_export_is_at_least_once_with_a_durable_cursor(
        self, mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
    ) -> None:
        out = tmp_path / "r.jsonl"
        mem.remember(alice, "one")
        assert mem.export_receipts(out) == 1
        mem.remember(alice, "two")
        assert mem.export_receipts(out) == 1
        assert mem.export_receipts(out) == 0
        lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
        assert [r["seq"] for r in lines] == [1, 2]
        assert mem.status()["outbox"]["lag"] == 0

    def test_time_to_live_expires_content_on_maintain(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock, db: Path
    ) -> None:
        mem.put(alice, "temp", "short lived", ttl=timedelta(minutes=5))
        clock.advance(minutes=6)
        assert mem.get(alice, "temp") is None
        assert mem.maintain().expired == 1
        assert [r["reason"] for r in outbox(db) if r["boundary"] == "expire"] == ["ttl"]
