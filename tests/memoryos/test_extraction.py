"""Typed extraction off the request path, and reconciliation of what it extracts (issue 15)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoryos
import receipts
from memoryos.extraction.handlers import extractive_handlers
from memoryos.extraction.reconcile import Known, content_words, decide, same_value, value_words
from memoryos.extraction.typed import ModelHandler, TypedExtractor
from memoryos.llm import LLMSettings, ModelClient
from memoryos.policies.distill import Distilled, PageView
from memoryos.testing import FakeClock, FakeLLMServer

A = memoryos.Scope(user="alice", assistant="coder")


def outbox(db: Path) -> list[dict[str, Any]]:
    return [line.receipt for line in receipts.read_outbox(db) if line.receipt is not None]


def say(mem: memoryos.Memory, *texts: str) -> None:
    """One session of user turns, ended, then a maintenance pass: extraction runs there."""
    for text in texts:
        mem.remember(A, text)
    mem.end_session(A)
    mem.maintain()


class Counting:
    """A distiller that counts its calls: where extraction runs is where it is called."""

    inline = True  # even a distiller cheap enough for the request path is not called there

    def __init__(self) -> None:
        self.calls = 0

    def distill(self, pages: Sequence[PageView]) -> list[Distilled]:
        self.calls += 1
        return []


class TestOffTheRequestPath:
    def test_remember_never_extracts_even_when_a_segment_is_hot(self, db: Path, clock: FakeClock) -> None:
        counting = Counting()
        with memoryos.open(db, clock=clock, summarizer=counting, stm_capacity=2, heat_threshold=1) as mem:
            for i in range(40):
                mem.remember(A, f"the blyck release pipeline runs make release, note {i}")
            assert counting.calls == 0
            assert not [r for r in outbox(db) if r["boundary"] == "mtm_to_lpm"]
            mem.maintain()
            assert counting.calls >= 1

    def test_each_kind_is_its_own_handler_over_the_same_pages(self) -> None:
        pages = [
            PageView(
                "p1@1", "user", "My home airport is SFO. Yesterday we migrated the billing database.", ("t1",)
            ),
            PageView(
                "p2@1", "user", "To release, run `make release`. Blyck is a static site generator.", ("t2",)
            ),
        ]
        found = {
            kind: [(d.subject, d.body) for d in handler.extract(pages) if d.keyed]
            for kind, handler in extractive_handlers().items()
        }
        assert found == {
            "semantic": [("fact:home-airport", "My home airport is SFO.")],
            "episodic": [(None, "Yesterday we migrated the billing database.")],
            "procedural": [("how:release", "To release, run `make release`.")],
            "taxonomic": [("taxonomy:blyck", "Blyck is a static site generator.")],
        }

    def test_a_disabled_kind_is_not_extracted_but_can_still_be_put(self, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, heat_threshold=1, extraction_kinds=["procedural"]) as mem:
            say(mem, "My home airport is SFO. To release, run `make release`.")
            assert mem.get(A, "how:release") is not None
            assert mem.get(A, "fact:home-airport") is None  # semantic is off
            assert mem.put(A, "fact:home-airport", "SFO", kind="semantic").version == 1

    def test_an_unknown_extraction_kind_is_a_config_error(self, db: Path) -> None:
        with pytest.raises(memoryos.ConfigError, match="extraction_kinds"):
            memoryos.open(db, extraction_kinds=["gossip"])

    def test_with_a_model_each_kind_is_one_call(self) -> None:
        pages = [PageView("p1@1", "user", "My home airport is SFO.", ("t1",))]
        with FakeLLMServer("normal") as server:
            client = ModelClient(LLMSettings(server.url, "fake"), sleep=lambda _: None)
            fallbacks = extractive_handlers()
            extractor = TypedExtractor({k: ModelHandler(k, client, h) for k, h in fallbacks.items()}, client)
            items = extractor.distill(pages)
            assert server.requests == 4
        # the fake model echoes the page as every kind; the sentence is the fact `fact:home-airport`,
        # so it is one record, not also an episode (memoryos.extraction.typed.once_per_statement)
        assert [d.kind for d in items] == ["semantic"]
        assert not any(d.degraded for d in items)
        assert {d.subject for d in items if d.kind == "semantic"} == {"fact:home-airport"}

    def test_a_model_answer_of_another_kind_is_refused_and_the_kind_degrades(self) -> None:
        reply = orjson.dumps({"records": [{"list": "profile", "kind": "episodic", "body": "x happened"}]})
        pages = [PageView("p1@1", "user", "My home airport is SFO.", ("t1",))]
        with FakeLLMServer("normal", reply=reply.decode()) as server:
            client = ModelClient(LLMSettings(server.url, "fake"), sleep=lambda _: None)
            handler = ModelHandler("semantic", client, extractive_handlers()["semantic"])
            items = handler.extract(pages)
        assert items and all(d.degraded for d in items)
        assert "x happened" not in {d.body for d in items}


class TestReconciliation:
    def test_a_change_is_an_update_with_history_and_a_restatement_a_reinforce(
        self, db: Path, clock: FakeClock
    ) -> None:
        with memoryos.open(db, clock=clock, heat_threshold=1) as mem:
            say(mem, "My home airport is SFO.")
            say(mem, "My home airport is now OAK.")
            say(mem, "Reminder: my home airport is OAK.")
            versions = mem.history(A, "fact:home-airport")
            assert [(r.version, r.status) for r in versions] == [(1, "superseded"), (2, "active")]
            assert versions[1].body == "My home airport is now OAK." and versions[1].reinforced == 1
            assert [h.text for h in mem.recall(A, "home airport").hits if h.key] == [versions[1].body]
        update = next(
            r for r in outbox(db) if r.get("memoryId") == versions[1].memory_id and r.get("version") == 2
        )
        assert versions[0].ref in update["derivedFrom"] and update["boundary"] == "mtm_to_lpm"

    def test_an_approved_fact_and_an_extracted_one_are_one_record(self, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, heat_threshold=1) as mem:
            mem.put(A, "fact:home-airport", "My home airport is SFO.", kind="fact")
            say(mem, "My home airport is OAK.")
            versions = mem.history(A, "fact:home-airport")
            assert [r.status for r in versions] == ["superseded", "active"]

    def test_matching_by_similarity_when_no_subject_is_named(self) -> None:
        known = [Known("m@1", "episode:x", "episodic", "We migrated the billing database to Postgres.")]
        restated = decide("episodic", None, "we migrated the billing database to postgres!", known)
        assert (restated.action, restated.rule, restated.key) == ("reinforce", "similar", "episode:x")
        other = decide("episodic", None, "We adopted a cat.", known)
        assert other.action == "add" and other.key.startswith("episode:")
        assert (
            decide("semantic", None, "We migrated the billing database to Postgres.", known).action == "add"
        )

    @given(st.text(max_size=60), st.text(max_size=60))
    def test_reconciliation_is_deterministic_and_reinforces_only_the_same_words(
        self, old: str, new: str
    ) -> None:
        known = [Known("m@1", "episode:k", "episodic", old)]
        first, second = decide("episodic", None, new, known), decide("episodic", None, new, known)
        assert first == second
        assert (first.action == "reinforce") <= (content_words(old) == content_words(new))
        keyed = decide("semantic", "fact:k", new, [Known("m@1", "fact:k", "semantic", old)])
        assert keyed.action in ("update", "reinforce") and keyed.key == "fact:k"
        assert (keyed.action == "reinforce") == same_value(
            value_words(old, "fact:k"), value_words(new, "fact:k")
        )


def test_a_record_changed_twice_in_one_pass_gets_two_new_versions(db: Path, clock: FakeClock) -> None:
    """Items of one batch see the versions earlier items wrote (a second UPDATE supersedes the
    first one's version instead of writing the same version again)."""
    with memoryos.open(db, clock=clock, heat_threshold=1, extraction_kinds=["semantic"]) as mem:
        say(mem, "My home airport is SFO.")
        say(mem, "My home airport is OAK. My home airport is BOS. My home airport is BOS again.")
        versions = mem.history(A, "fact:home-airport")
        assert [(r.version, r.status) for r in versions] == [
            (1, "superseded"),
            (2, "superseded"),
            (3, "active"),
        ]
        assert versions[2].reinforced == 1 and mem.check() == []
