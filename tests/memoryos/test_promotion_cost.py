"""The cheap forms a full-STM promotion uses (issue 12: its cost against a raw move) are the same
values as the plain ones they replace: a page copied without dataclasses.replace, a receipt draft
built in one literal, keywords re-ranked without rebuilding a dict per page. And every receipt a
promotion writes validates against the shipped JSON schema."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs in the test extra

import memoryos
from memoryos.policies import segments as segment_policy
from memoryos.policies.text import keywords, ranked, top_keywords
from memoryos.promotion import _Known, _known, _Placer
from memoryos.receipting import Drafts
from memoryos.store.rows import SegmentHead, Unit
from memoryos.store.sql_rows import page_update
from memoryos.store.sqlite import _page_row
from memoryos.testing import FakeClock
from receipts import uuid7
from receipts.schema import load_schema

TURN = Unit(uuid7(), 1, "stm", "u" * 16, "a" * 16, "blyck release", 5, 5, 5, uuid7(), role="user", rowid=9)

unit_changes = st.fixed_dictionaries(
    {},
    optional={
        "memory_id": st.text(min_size=1, max_size=8),
        "version": st.integers(1, 9),
        "tier": st.sampled_from(["stm", "mtm", "lpm"]),
        "segment_id": st.none() | st.text(max_size=8),
        "source_ids": st.lists(st.text(max_size=8), max_size=3).map(tuple),
        "derived_from": st.lists(st.text(max_size=8), max_size=3).map(tuple),
        "last_seen": st.integers(0, 2**40),
        "rowid": st.none() | st.integers(1, 2**40),
    },
)


class TestCheapCopies:
    @given(unit_changes)
    def test_a_unit_copied_with_changes_equals_dataclasses_replace(self, changes: dict[str, Any]) -> None:
        cheap, plain = TURN.but(**changes), dataclasses.replace(TURN, **changes)
        assert cheap == plain and vars(cheap) == vars(plain) and cheap.rowid == plain.rowid
        assert vars(TURN)["memory_id"] == TURN.memory_id and TURN.rowid == 9  # the original is untouched

    def test_a_copy_refuses_a_name_that_is_not_a_field(self) -> None:
        with pytest.raises(TypeError, match="tire"):
            TURN.but(tire="mtm")

    def test_a_copy_stays_frozen(self) -> None:
        with pytest.raises(dataclasses.FrozenInstanceError):
            TURN.but(tier="mtm").tier = "lpm"  # type: ignore[misc]

    def test_the_promotion_draft_is_the_draft_about_the_page(self) -> None:
        drafts, run_id = Drafts("9.9.9"), uuid7()
        page = TURN.but(memory_id=uuid7(), tier="mtm", segment_id=uuid7(), rowid=None)
        assert drafts.promoted(run_id, TURN, page) == drafts.about(
            run_id,
            "stm_to_mtm",
            page,
            fromTier="stm",
            toTier="mtm",
            derivedFrom=[TURN.ref],
            sourcePresent=False,
        )


# -- placement: the re-ranking without a dict per page places exactly as the plain algorithm -------
class ReferencePlacer:
    """Placement as written before it was made cheap (and as docs describe it): after each page,
    the segment's counts are `ranked()` (the strongest 64) and its view is their first 32."""

    def __init__(self, known: Sequence[_Known], threshold: float, max_pages: int) -> None:
        self.known = {k.head.segment_id: k for k in known}
        self.threshold, self.max_pages = threshold, max_pages
        self.views = {
            sid: segment_policy.SegmentView(sid, k.top, 0.0, k.head.created_at)
            for sid, k in self.known.items()
        }
        self.counts: dict[str, dict[str, int]] = {}
        self.joined: dict[str, int] = {}

    def place(self, body: str, new_id: str, now: int) -> str:
        words = keywords(body)
        page = words if len(words) <= 32 else top_keywords(words)
        chosen = segment_policy.choose_segment(page, list(self.views.values()), self.threshold)
        if chosen is None:
            chosen = new_id
            self.known[chosen] = _known(SegmentHead(chosen, 0, now), {})
            self.views[chosen] = segment_policy.SegmentView(chosen, frozenset(), 0.0, now)
        counts = dict(self.counts.get(chosen) or self.known[chosen].keywords)
        for word, count in words.items():
            counts[word] = counts.get(word, 0) + count
        self.counts[chosen] = counts = ranked(counts)
        created = self.views[chosen].created_at
        self.views[chosen] = segment_policy.SegmentView(chosen, frozenset(list(counts)[:32]), 0.0, created)
        self.joined[chosen] = self.joined.get(chosen, 0) + 1
        if (self.known[chosen].head.pages or 0) + self.joined[chosen] >= self.max_pages:
            del self.views[chosen]
        return chosen


VOCABULARY = [f"w{i}" for i in range(90)]  # small enough that pages share words and segments fill
word = st.sampled_from(VOCABULARY)
bodies = st.lists(st.lists(word, min_size=0, max_size=40).map(" ".join), min_size=1, max_size=12)
# segments near and over the 64 keywords a segment keeps, where the cut decides what survives
segment_keywords = (
    st.dictionaries(word, st.integers(1, 5), max_size=8)
    | st.dictionaries(word, st.integers(1, 30), min_size=50, max_size=80)
).map(ranked)


def canonical(placed: list[str]) -> list[int]:
    """Segment ids by order of first use: new segments get fresh random ids on each side."""
    names: dict[str, int] = {}
    return [names.setdefault(s, len(names)) for s in placed]


class TestPlacement:
    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(segment_keywords, max_size=6),
        bodies,
        st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0]),
        st.integers(1, 6),
    )
    def test_pages_go_where_the_plain_algorithm_puts_them_with_the_same_keywords(
        self, existing: list[dict[str, int]], pages: list[str], threshold: float, max_pages: int
    ) -> None:
        known = [_known(SegmentHead(f"s{i}", 1 + i, i, i % max_pages), kw) for i, kw in enumerate(existing)]
        placer, reference = _Placer(known, threshold, max_pages), ReferencePlacer(known, threshold, max_pages)
        turns = [TURN.but(body=b) for b in pages]
        ours = [placer.place(t, 100) for t in turns]
        # the reference names a new segment as ours did, so that both sides' ids line up
        theirs = [reference.place(t.body, s, 100) for t, s in zip(turns, ours, strict=True)]
        assert canonical(ours) == canonical(theirs) and ours == theirs
        grown = placer.finished()
        assert [g.head.segment_id for g in grown] == list(reference.joined)
        for g in grown:
            expected = reference.counts[g.head.segment_id]
            assert g.keywords == expected and list(g.keywords) == list(expected)  # same counts, same order
            assert g.joined == reference.joined[g.head.segment_id]


# -- what a promotion writes -----------------------------------------------------------------------
def test_every_receipt_a_promotion_writes_validates_against_the_schema(tmp_path: Path) -> None:
    clock = FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(seconds=1))
    scope = memoryos.Scope(user="alice", assistant="coder")
    with memoryos.open(tmp_path / "m.db", clock=clock, heat_threshold=1e12) as mem:
        topics = ["blyck release pipeline staging", "garden tomatoes watering", "piano scales practice"]
        for i in range(4 * mem.config.stm_capacity):  # several full-STM promotions, several segments
            mem.remember(scope, f"{topics[i % 3]} note {i}")
        path = mem.path
    with sqlite3.connect(path) as conn:
        lines = [bytes(r[0]) for r in conn.execute("SELECT body FROM receipt_outbox ORDER BY seq")]
    validator = Draft202012Validator(load_schema())
    promoted = [orjson.loads(line) for line in lines if b'"stm_to_mtm"' in line]
    assert len(promoted) >= 3 * 7
    for line in lines:
        validator.validate(orjson.loads(line))
    assert all(r["derivedFrom"][0].endswith("@1") and r["sourcePresent"] is False for r in promoted)


class TestPageRows:
    @given(unit_changes)
    def test_the_page_row_the_sqlite_store_writes_is_the_shared_page_update(
        self, changes: dict[str, Any]
    ) -> None:
        page = TURN.but(**changes)
        assert _page_row(41, page) == page_update(41, page)
