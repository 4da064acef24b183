"""Pure policies: heat, FIFO selection, segment choice, eviction, decay, reconciliation."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from memoryos.policies import segments, stm
from memoryos.policies.heat import HeatParams, heat, is_hot
from memoryos.policies.lpm import Reconcile, RecordView, decayed_status, evict_from_list, reconcile
from memoryos.policies.text import coverage

PAPER = HeatParams()


class TestHeat:
    def test_paper_defaults(self) -> None:
        assert heat(PAPER, visits=0, interactions=0, seconds_since_visit=0) == 1.0
        assert heat(PAPER, visits=2, interactions=3, seconds_since_visit=0) == 6.0
        assert math.isclose(heat(PAPER, 0, 0, 1e7), math.exp(-1))

    def test_threshold_is_inclusive(self) -> None:
        assert is_hot(PAPER, visits=0, interactions=4, seconds_since_visit=0)
        assert not is_hot(PAPER, visits=0, interactions=3, seconds_since_visit=0)

    @given(st.integers(0, 10**6), st.integers(0, 10**6), st.floats(-1e9, 1e12))
    def test_heat_grows_with_visits_and_interactions(
        self, visits: int, interactions: int, age: float
    ) -> None:
        base = heat(PAPER, visits, interactions, age)
        assert heat(PAPER, visits + 1, interactions, age) > base
        assert heat(PAPER, visits, interactions + 1, age) > base
        assert heat(PAPER, visits, interactions, age + 1e6) <= base


class TestStmSelection:
    def test_below_capacity_nothing_moves(self) -> None:
        turns = [stm.StmTurn(f"t{i}", i) for i in range(6)]
        assert stm.overflow(turns, 7) == []

    @given(st.lists(st.integers(0, 10**9), min_size=1, max_size=30))
    def test_a_full_stm_moves_whole_oldest_first(self, times: list[int]) -> None:
        turns = [stm.StmTurn(f"t{i:03}", t) for i, t in enumerate(times)]
        chosen = stm.overflow(turns, len(turns))
        assert sorted(t.memory_id for t in chosen) == sorted(t.memory_id for t in turns)
        assert [t.created_at for t in chosen] == sorted(times)

    @given(st.lists(st.integers(0, 10**6), max_size=30), st.integers(0, 2 * 10**6), st.integers(1, 10**6))
    def test_idle_selects_exactly_the_turns_past_the_window(
        self, times: list[int], now: int, window: int
    ) -> None:
        turns = [stm.StmTurn(f"t{i}", t) for i, t in enumerate(times)]
        chosen = {t.memory_id for t in stm.idle(turns, now, window)}
        assert chosen == {t.memory_id for t in turns if t.created_at + window <= now}


class TestSegments:
    def view(self, sid: str, words: str, heat_value: float = 1.0, created: int = 0) -> segments.SegmentView:
        return segments.SegmentView(sid, tuple(words.split()), heat_value, created)

    def test_a_page_joins_the_most_similar_segment(self) -> None:
        chosen = segments.choose_segment(
            ["rust", "build"], [self.view("a", "rust cargo"), self.view("b", "rust build cargo")], 0.2
        )
        assert chosen == "b"

    def test_below_the_threshold_a_page_starts_a_segment(self) -> None:
        assert segments.choose_segment(["tomato"], [self.view("a", "rust cargo")], 0.2) is None

    def test_the_coldest_segments_leave_first(self) -> None:
        views = [self.view("hot", "", 9), self.view("cold", "", 1), self.view("warm", "", 5)]
        assert segments.coldest(views, 2) == ["cold"]
        assert segments.coldest(views, 3) == []

    @given(st.lists(st.text(min_size=1, max_size=5), max_size=10), st.lists(st.text(min_size=1, max_size=5)))
    def test_coverage_is_a_share(self, page: list[str], segment: list[str]) -> None:
        assert 0.0 <= coverage(page, segment) <= 1.0


class TestLpm:
    def test_reconcile(self) -> None:
        assert reconcile(None, "x") is Reconcile.ADD
        assert reconcile("x", "x") is Reconcile.REINFORCE
        assert reconcile("x", "y") is Reconcile.UPDATE

    def test_list_eviction_prefers_the_least_reinforced_then_least_seen(self) -> None:
        records = [RecordView("a", 3, 10), RecordView("b", 0, 50), RecordView("c", 0, 20)]
        assert evict_from_list(records, 2) == ["c"]

    def test_decay_by_kind_and_age(self) -> None:
        day = 86_400 * 10**6
        status = {
            (kind, age): decayed_status(
                kind=kind,
                status="active",
                last_seen=0,
                now=age * day,
                stale_after=90 * day,
                retired_after=180 * day,
            )
            for kind in ("fact", "decision", "capability", "rule", "procedure")
            for age in (89, 90, 180)
        }
        assert status[("fact", 89)] == "active" and status[("fact", 90)] == "stale"
        assert status[("decision", 180)] == "retired"
        assert {status[(k, 180)] for k in ("capability", "rule", "procedure")} == {"active"}

    def test_decay_never_moves_backwards(self) -> None:
        assert (
            decayed_status(kind="fact", status="retired", last_seen=0, now=0, stale_after=1, retired_after=2)
            == "retired"
        )
