"""A model may propose the reconciliation action (memoryos.extraction.propose); its answer is checked
like every model answer, and whatever fails a check falls back to the deterministic decision."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

import memoryos
from memoryos.errors import ModelError
from memoryos.extraction import propose
from memoryos.extraction.reconcile import Known, Outcome
from memoryos.extraction.write import _checked
from memoryos.llm import Message
from memoryos.policies.distill import Distilled
from memoryos.testing import FakeClock, FakeLLMServer

A = memoryos.Scope(user="alice", assistant="coder")
KEY = "fact:home-airport"


@contextmanager
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    with FakeLLMServer("normal") as server:
        monkeypatch.setenv("MEMORYOS_LLM_URL", server.url)
        monkeypatch.setenv("MEMORYOS_LLM_MODEL", "fake")
        yield server


def say(mem: memoryos.Memory, text: str) -> None:
    mem.remember(A, text)
    mem.end_session(A)
    mem.maintain()


def reconcile_requests(server: FakeLLMServer) -> list[dict[str, Any]]:
    out = []
    for received in server.received:
        content = orjson.loads(received.body["messages"][-1]["content"])
        if "reconcile" in content:
            out.append(content)
    return out


def answer(*actions: dict[str, object]) -> str:
    return orjson.dumps({"actions": list(actions)}).decode()


class TestThroughTheFakeServer:
    def test_the_model_is_asked_with_the_offered_records_and_its_valid_answer_is_applied(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with (
            served(monkeypatch) as server,
            memoryos.open(tmp_path / "m.db", clock=FakeClock(), heat_threshold=1) as mem,
        ):
            say(mem, "My home airport is SFO.")
            (first,) = mem.history(A, KEY)
            # the rules would UPDATE (another value); the model says it restates the record
            server.reply = answer({"item": 0, "action": "reinforce", "target": first.ref})
            say(mem, "My home airport is OAK.")
            (record,) = mem.history(A, KEY)
            asked = reconcile_requests(server)
        assert record.ref == first.ref and record.reinforced == 1  # the model's REINFORCE, no new version
        item = asked[-1]["reconcile"][0]
        assert item["suggested"] == {"action": "update", "target": first.ref}
        assert [r["ref"] for r in item["records"]] == [first.ref]

    def test_in_normal_mode_the_fake_confirms_the_rules_and_the_drawer_is_theirs(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with (
            served(monkeypatch) as server,
            memoryos.open(tmp_path / "m.db", clock=FakeClock(), heat_threshold=1) as mem,
        ):
            say(mem, "My home airport is SFO.")
            say(mem, "My home airport is now OAK.")
            versions = mem.history(A, KEY)
            assert reconcile_requests(server)  # the proposal path ran
        assert [r.status for r in versions] == ["superseded", "active"]

    @pytest.mark.parametrize(
        "reply",
        [
            answer({"item": 0, "action": "update", "target": "01a2322b-0000-7000-8000-000000000000@1"}),
            answer({"item": 7, "action": "add", "target": None}),
            answer({"item": 0, "action": "delete", "target": None}),
            answer({"item": 0, "action": "add", "target": "x"}),
            answer({"item": 0, "action": "reinforce", "target": None}),
            '{"actions": [], "note": "extra"}',
            "I think you should update it.",
        ],
        ids=[
            "unknown-target",
            "unknown-item",
            "unknown-action",
            "add-with-target",
            "no-target",
            "extra",
            "prose",
        ],
    )
    def test_an_invalid_answer_falls_back_to_the_deterministic_decision(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str
    ) -> None:
        with (
            served(monkeypatch) as server,
            memoryos.open(tmp_path / "m.db", clock=FakeClock(), heat_threshold=1) as mem,
        ):
            say(mem, "My home airport is SFO.")
            server.reply = reply
            say(mem, "My home airport is OAK.")
            versions = mem.history(A, KEY)
            keys = {r.key for r in mem.recall(A, "airport", k=20).hits if r.key}
        assert [r.status for r in versions] == ["superseded", "active"]  # the rules' UPDATE
        assert versions[1].body == "My home airport is OAK." and keys <= {KEY}

    def test_an_add_of_a_key_that_has_a_live_record_is_not_a_second_active_record(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with (
            served(monkeypatch) as server,
            memoryos.open(tmp_path / "m.db", clock=FakeClock(), heat_threshold=1) as mem,
        ):
            say(mem, "My home airport is SFO.")
            server.reply = answer({"item": 0, "action": "add", "target": None})
            say(mem, "My home airport is OAK.")
            versions = mem.history(A, KEY)
        assert [r.status for r in versions] == ["superseded", "active"]


ITEM = Distilled(
    "profile", "My home airport is OAK.", ("p@1",), ("t1",), kind="semantic", subject=KEY, keyed=True
)
SFO = Known("m1@1", KEY, "semantic", "My home airport is SFO.")
EDITOR = Known("m2@1", "fact:favorite-editor", "semantic", "My favourite editor is Helix.")


class Scripted:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.asked: list[Sequence[Message]] = []

    def chat(self, messages: Sequence[Message]) -> str:
        self.asked.append(messages)
        return self.reply


class TestTheChecks:
    def test_only_keyed_items_are_asked_about_and_the_answer_attaches_to_them(self) -> None:
        digest = Distilled("user_knowledge", "airport talk", ("p@1",), ("t1",))
        client = Scripted(answer({"item": 0, "action": "update", "target": SFO.ref}))
        out = propose.proposed(client, [digest, ITEM], [SFO, EDITOR])
        assert out[0] is digest and isinstance(out[1], propose.Proposed)
        assert out[1].proposal == propose.Proposal("update", SFO.ref)
        sent = orjson.loads(client.asked[0][-1]["content"])["reconcile"]
        assert [i["body"] for i in sent] == [ITEM.body]

    def test_a_model_failure_leaves_the_items_as_they_were(self) -> None:
        class Down:
            def chat(self, messages: Sequence[Message]) -> str:
                raise ModelError("unreachable", "no model")

        assert propose.proposed(Down(), [ITEM], [SFO]) == [ITEM]

    def test_a_target_offered_for_another_item_is_refused(self) -> None:
        offers = [[SFO], [EDITOR]]
        with pytest.raises(ModelError, match="not one of the records offered"):
            propose.parse_proposals(answer({"item": 0, "action": "update", "target": EDITOR.ref}), offers)
        with pytest.raises(ModelError, match="answered twice"):
            propose.parse_proposals(
                answer(
                    {"item": 0, "action": "reinforce", "target": SFO.ref},
                    {"item": 0, "action": "reinforce", "target": SFO.ref},
                ),
                offers,
            )

    def test_at_write_a_target_no_longer_live_falls_back(self) -> None:
        proposed = propose.Proposed(**vars(ITEM), proposal=propose.Proposal("reinforce", SFO.ref))
        assert _checked(proposed, "semantic", [SFO]) is not None
        assert _checked(proposed, "semantic", [EDITOR]) is None  # superseded or forgotten meanwhile
        adding = propose.Proposed(**vars(ITEM), proposal=propose.Proposal("add", None))
        assert _checked(adding, "semantic", [SFO]) is None  # a second active fact:home-airport
        assert _checked(adding, "semantic", [EDITOR]) == Outcome("add", KEY, None, "model")
        assert _checked(ITEM, "semantic", [SFO]) is None  # no proposal: the rules decide

    def test_a_proposal_that_is_the_rules_decision_keeps_what_else_it_restates(self) -> None:
        proposed = propose.Proposed(**vars(ITEM), proposal=propose.Proposal("reinforce", SFO.ref))
        decided = Outcome("reinforce", KEY, SFO, "mention", also=(EDITOR,))
        assert _checked(proposed, "semantic", [SFO, EDITOR], decided) is None  # the rules' outcome
        assert _checked(proposed, "semantic", [SFO, EDITOR]) == Outcome(
            "reinforce", SFO.key or "", SFO, "model"
        )

    def test_a_target_of_another_subject_is_refused(self) -> None:
        """A keyed item updates or reinforces only its own subject's record: a home airport is no
        new version of the favourite editor, however the model answers."""
        assert ITEM.subject == KEY and EDITOR.key != KEY
        for action in ("update", "reinforce"):
            proposed = propose.Proposed(**vars(ITEM), proposal=propose.Proposal(action, EDITOR.ref))
            assert _checked(proposed, "semantic", [SFO, EDITOR]) is None
