"""Bounded work per call (issue 12): what one remember() or promotion reads does not grow with the
segment, the scope or the store, and nothing is dropped to make it so."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import memoryos
import receipts
from memoryos.errors import ConfigError
from memoryos.policies.distill import Distilled, ExtractiveSummarizer, PageView, extract, undistilled_after
from memoryos.store.sqlite import SQLiteTransaction
from memoryos.testing import FakeClock
from tests.memoryos.store_contract import sqlite_of

TOPIC = "the blyck release pipeline runs make release on staging"


def outbox(db: Path) -> list[dict[str, Any]]:
    return [line.receipt for line in receipts.read_outbox(db) if line.receipt is not None]


def started(db: Path) -> list[list[str]]:
    """The pages each distillation said it would read, in order."""
    return [
        list(r["derivedFrom"])
        for r in outbox(db)
        if r["boundary"] == "mtm_to_lpm" and r["status"] == "started"
    ]


def page_refs(mem: memoryos.Memory) -> list[str]:
    rows = (
        sqlite_of(mem)
        ._live()
        .execute("SELECT memory_id, version FROM units WHERE tier = 'mtm' ORDER BY rowid")
    )
    return [f"{m}@{v}" for m, v in rows]


def converse(mem: memoryos.Memory, scope: memoryos.Scope, turns: int, start: int = 0) -> None:
    for i in range(start, start + turns):
        mem.remember(
            scope, f"{TOPIC}, note {i}: step {i} of the release", role="user" if i % 2 else "assistant"
        )


def converse_maintained(mem: memoryos.Memory, scope: memoryos.Scope, turns: int, every: int = 7) -> None:
    """converse(), with a maintain() pass after every `every` turns: extraction runs there, never
    inside remember() (issue 15)."""
    for start in range(0, turns, every):
        converse(mem, scope, min(every, turns - start), start=start)
        mem.maintain()


@pytest.fixture
def whole_segment_reads_refused(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Reading every page of a segment is what made promotion linear: refuse it outright."""

    def refused(self: SQLiteTransaction, segment_id: str) -> list[Any]:
        raise AssertionError("a whole segment was read on the request path or in maintain()")

    monkeypatch.setattr(SQLiteTransaction, "pages", refused)
    yield


class Deferred:
    """A summarizer that is not cheap enough for the request path (as a model is): only
    maintain() distils, so pages pile up between its passes."""

    inline = False

    def __init__(self) -> None:
        self.batches: list[int] = []

    def distill(self, pages: Sequence[PageView]) -> list[Distilled]:
        self.batches.append(len(pages))
        return ExtractiveSummarizer().distill(pages)


class TestIncrementalDistillation:
    def test_each_distillation_reads_only_the_pages_added_since_the_last_one(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope, whole_segment_reads_refused: None
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            converse_maintained(mem, alice, 70)
            batches = started(db)
            assert len(batches) == 10  # every full-STM promotion of 7 pages made the segment hot
            assert all(len(b) == 7 for b in batches)
            read = [ref for batch in batches for ref in batch]
            assert sorted(read) == sorted(page_refs(mem)) and len(set(read)) == len(read)

    def test_a_distilled_record_lists_only_the_pages_it_was_built_from(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            converse_maintained(mem, alice, 70)
        batches = started(db)
        runs = {r["runId"]: r for r in outbox(db) if r["status"] == "started"}
        records = [r for r in outbox(db) if r["boundary"] == "mtm_to_lpm" and r["status"] == "committed"]
        assert records
        for record in records:
            # An UPDATE also derives from the version it supersedes (issue 15): the only other ref.
            superseded = {f"{record['memoryId']}@{v}" for v in range(1, record["version"])}
            assert set(record["derivedFrom"]) <= set(runs[record["runId"]]["derivedFrom"]) | superseded
        assert max(len(r["derivedFrom"]) for r in records) <= max(len(b) for b in batches)

    def test_the_extract_names_the_pages_whose_sentences_it_kept(self) -> None:
        pages = [
            PageView("p1@1", "user", "Rust builds blyck. Rust tests blyck with cargo.", ("t1",)),
            PageView("p2@1", "user", "Rust and cargo release blyck.", ("t2",)),
            PageView("p3@1", "user", "Lunch was nice " + "x" * 500 + ".", ("t3",)),
        ]
        body, used = extract(pages, limit_chars=120)
        assert "Lunch" not in body
        assert [p.ref for p in used] == ["p1@1", "p2@1"]
        record = next(d for d in ExtractiveSummarizer().distill(pages) if d.list_name == "user_knowledge")
        assert record.derived_from == ("p1@1", "p2@1") and record.source_ids == ("t1", "t2")

    def test_a_backlog_is_distilled_a_batch_at_a_time_and_every_page_exactly_once(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope, whole_segment_reads_refused: None
    ) -> None:
        deferred = Deferred()
        with memoryos.open(db, clock=clock, summarizer=deferred, distill_batch_pages=8) as mem:
            converse(mem, alice, 28)  # 4 promotions, nothing distilled on the request path
            assert started(db) == []
            passes = 0
            while mem.maintain().distilled_segments:
                passes += 1
            assert deferred.batches == [8, 8, 8] and passes == 3
            read = [ref for batch in started(db) for ref in batch]
            assert read == page_refs(mem)[:24]  # oldest first, each once
            # the 4 left are fewer than make a segment hot: they wait for the next pages
            assert sqlite_of(mem)._live().execute("SELECT interactions FROM segments").fetchone() == (4,)
            converse(mem, alice, 7, start=28)
            mem.maintain()
            assert deferred.batches == [8, 8, 8, 8] and started(db)[-1] == page_refs(mem)[24:32]
            assert mem.check() == []

    def test_a_segment_hot_by_visits_alone_reads_nothing_again(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            converse_maintained(mem, alice, 7)
            before = len(outbox(db))
            for _ in range(6):
                mem.recall(alice, "blyck release")
            visits_only = [r for r in outbox(db)[before:] if r["boundary"] == "mtm_to_lpm"]
            assert mem.maintain().distilled_segments == 0 and visits_only == []

    def test_the_remaining_count_after_one_batch(self) -> None:
        assert undistilled_after(20, 8, 8) == 12
        assert undistilled_after(5, 5, 8) == 0
        assert undistilled_after(3, 5, 8) == 0  # an old count that overstated: the read says all


class TestSegmentsStayBounded:
    def test_a_full_segment_takes_no_more_pages_and_the_topic_goes_on_in_a_new_one(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock, segment_max_pages=10, heat_threshold=1e9) as mem:
            converse(mem, alice, 35)
            rows = sqlite_of(mem)._live().execute("SELECT pages FROM segments ORDER BY created_at").fetchall()
            counts = Counter(
                r[0]
                for r in sqlite_of(mem)._live().execute("SELECT segment_id FROM units WHERE tier = 'mtm'")
            )
            assert [r[0] for r in rows] == [10, 10, 10, 5] and sorted(counts.values()) == [5, 10, 10, 10]
            assert len(page_refs(mem)) == 35  # nothing dropped: every turn became a page
            assert mem.check() == []

    def test_evicting_a_capped_segment_leaves_a_receipt_for_each_of_its_pages(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock, segment_max_pages=7, mtm_capacity=2, heat_threshold=1e9) as mem:
            converse(mem, alice, 21)
            evicted = [r for r in outbox(db) if r["boundary"] == "evict"]
            assert len(evicted) == 7 and mem.status()["tiers"]["mtm_segments"] == 2
            assert mem.check() == []

    def test_maintain_reads_neither_every_segment_nor_every_page(
        self,
        db: Path,
        clock: FakeClock,
        alice: memoryos.Scope,
        monkeypatch: pytest.MonkeyPatch,
        whole_segment_reads_refused: None,
    ) -> None:
        def refused(self: SQLiteTransaction) -> list[Any]:
            raise AssertionError("maintain() read every segment of the store")

        with memoryos.open(db, clock=clock, summarizer=Deferred()) as mem:
            converse(mem, alice, 21)
            monkeypatch.setattr(SQLiteTransaction, "all_segments", refused)
            done = mem.maintain()
            assert (done.distilled_segments, done.summarized_segments) == (1, 1)


class TestReceiptsStayShort:
    def test_no_receipt_line_exceeds_4_kb_however_long_the_conversation(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        deferred = Deferred()
        with memoryos.open(db, clock=clock, summarizer=deferred, distill_batch_pages=64) as mem:
            converse(mem, alice, 350)
            while mem.maintain().distilled_segments:
                pass
            assert max(deferred.batches) == 64
        lines = [bytes(r[0]) for r in sqlite3.connect(db).execute("SELECT body FROM receipt_outbox")]
        assert max(len(line) + 1 for line in lines) <= 4096

    def test_a_batch_that_would_overflow_a_receipt_line_is_refused(self) -> None:
        with pytest.raises(ConfigError, match="4 KB"):
            memoryos.Config(distill_batch_pages=65)


class TestStoreOrderAndUpgrades:
    def test_a_page_stored_after_the_newest_distilled_one_was_forgotten_is_still_distilled(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        # SQLite hands out a deleted newest rowid again: the segment's mark must not cover it.
        with memoryos.open(db, clock=clock, stm_capacity=1, heat_threshold=1.5) as mem:
            mem.remember(alice, f"{TOPIC} first")
            mem.maintain()
            last = mem.remember(alice, f"{TOPIC} second")
            mem.maintain()
            assert len(started(db)) == 2
            mem.forget(alice, last.memory_id, reason="user request")
            mem.remember(alice, f"{TOPIC} third")
            mem.maintain()
            newest = page_refs(mem)[-1]
            assert started(db)[-1] == [newest]
            assert mem.check() == []

    def test_an_existing_store_is_migrated_to_distil_only_what_its_segments_had_not(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock, heat_threshold=1e9) as mem:
            converse(mem, alice, 21)
            pages = page_refs(mem)
        conn = sqlite3.connect(db, isolation_level=None)  # as a store of schema 4 left it
        conn.execute("UPDATE segments SET interactions = 5")
        conn.execute("DROP INDEX segments_open")
        conn.execute("DROP INDEX segments_stale")
        conn.execute("ALTER TABLE segments DROP COLUMN pages")
        conn.execute("ALTER TABLE segments DROP COLUMN distilled_through")
        conn.execute("DELETE FROM migrations WHERE name = '0006_incremental_distillation'")
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        conn.close()
        with memoryos.open(db, clock=clock, heat_threshold=5) as mem:
            segment = sqlite_of(mem)._live().execute("SELECT pages, interactions FROM segments").fetchone()
            assert segment == (21, 5)
            mem.recall(alice, "blyck")  # a visit: 5 pages + 1 visit + recency > 5
            assert mem.maintain().distilled_segments == 1
        assert started(db) == [pages[-5:]]
