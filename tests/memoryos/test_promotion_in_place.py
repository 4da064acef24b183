"""A promoted turn's row becomes its page in place (issue 12): the page has the turn's words in the
turn's scope, so its search postings and the scope's statistics are left exactly as they were,
and recall finds the page where it found the turn."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import memoryos
from memoryos.promotion import _in_place
from memoryos.store.rows import Unit
from memoryos.testing import FakeClock

ALICE = memoryos.Scope(user="alice", assistant="coder")
TOPIC = "the blyck release pipeline runs make release on staging"


def index_tables(db: Path) -> dict[str, list[Any]]:
    with sqlite3.connect(db) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("search_postings", "search_terms", "search_scopes")
        }


def rows(db: Path) -> dict[int, tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return {r: (t, m) for r, t, m in conn.execute("SELECT rowid, tier, memory_id FROM units")}


def opened(tmp_path: Path, **config: Any) -> memoryos.Memory:
    clock = FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(seconds=1))
    return memoryos.open(tmp_path / "m.db", clock=clock, heat_threshold=1e12, **config)


class TestInPlace:
    def test_a_promotion_leaves_the_index_as_it_was_and_recall_unchanged(self, tmp_path: Path) -> None:
        with opened(tmp_path, stm_capacity=50) as mem:
            for i in range(6):
                mem.remember(ALICE, f"{TOPIC} step {i}")
            key = mem._scopes(ALICE)
            with mem.store.read() as tx:
                stm = tx.stm_turns(key.user, key.assistant)
            before, turns, found = (
                index_tables(Path(mem.path)),
                rows(Path(mem.path)),
                mem.recall(ALICE, "staging step 3"),
            )
            outcome = mem.promoter.promote_turns(stm, int(datetime(2026, 6, 2, tzinfo=UTC).timestamp() * 1e6))
            assert outcome.promoted == 6
            after = rows(Path(mem.path))
            assert set(after) == set(turns)  # the same rows: each turn's row is now its page
            for rowid, (tier, memory_id) in after.items():
                assert tier == "mtm" and memory_id != turns[rowid][1]
            assert index_tables(Path(mem.path)) == before  # no posting, frequency or count moved
            again = mem.recall(ALICE, "staging step 3")
            assert [h.score for h in again.hits] == [h.score for h in found.hits]
            assert [h.source_ids for h in again.hits] == [(h.memory_id,) for h in found.hits]


def unit(memory_id: str, segment: str, rowid: int) -> Unit:
    return Unit(memory_id, 1, "stm", "u", "a", "text", 0, 0, 0, "run", segment_id=segment, rowid=rowid)


class TestOrderOfPages:
    def test_a_turn_older_than_its_segment_s_last_page_is_reinserted_and_so_are_those_after_it(
        self,
    ) -> None:
        turns = [unit("t1", "", 5), unit("t2", "", 3), unit("t3", "", 9), unit("t4", "", 20)]
        pages = [unit("p1", "s", 0), unit("p2", "s", 0), unit("p3", "s", 0), unit("p4", "new", 0)]
        in_place, reinserted = _in_place(turns, pages, {"s": 4})
        assert [(r, p.memory_id) for r, p in in_place] == [(5, "p1"), (20, "p4")]
        assert [(t.memory_id, p.memory_id) for t, p in reinserted] == [("t2", "p2"), ("t3", "p3")]

    def test_a_page_promoted_after_a_newer_turn_s_page_still_comes_after_it(self, tmp_path: Path) -> None:
        with opened(tmp_path, stm_capacity=50) as mem:
            later = mem.remember(ALICE, f"{TOPIC} first written")
            earlier = mem.remember(
                ALICE, f"{TOPIC} written second, said first", at=datetime(2026, 1, 1, tzinfo=UTC)
            )
            key = mem._scopes(ALICE)
            with mem.store.read() as tx:
                stm = {t.memory_id: t for t in tx.stm_turns(key.user, key.assistant)}
            now = int(datetime(2026, 6, 2, tzinfo=UTC).timestamp() * 1e6)
            first = mem.promoter.promote_turns([stm[earlier.memory_id]], now)
            second = mem.promoter.promote_turns([stm[later.memory_id]], now)
            assert first.segments == second.segments  # one topic, one segment
            with mem.store.read() as tx:
                pages = tx.pages_after(first.segments[0], 0, 10)
            # distillation reads a segment's pages by rowid: the later page must not hide before it
            assert [p.source_ids for p in pages] == [(earlier.memory_id,), (later.memory_id,)]


class TestUnindexedTurns:
    def test_a_turn_written_without_terms_is_indexed_as_its_page(self, tmp_path: Path) -> None:
        with opened(tmp_path, stm_capacity=50) as mem:
            turn = mem.remember(ALICE, f"{TOPIC} unindexed")
            with sqlite3.connect(mem.path) as conn:  # as a raw INSERT since open would leave it
                conn.execute(
                    "UPDATE units SET terms = NULL, term_count = 0 WHERE memory_id = ?", (turn.memory_id,)
                )
            assert mem.recall(ALICE, "unindexed").hits == []
            key = mem._scopes(ALICE)
            with mem.store.read() as tx:
                stm = tx.stm_turns(key.user, key.assistant)
            mem.promoter.promote_turns(stm, int(datetime(2026, 6, 2, tzinfo=UTC).timestamp() * 1e6))
            assert [h.source_ids for h in mem.recall(ALICE, "unindexed").hits] == [(turn.memory_id,)]
