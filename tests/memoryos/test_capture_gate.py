"""The approval gate and reflection: three capture paths, one gate (issue 15)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import memoryos
from memoryos.capture.model import ModelReflector, parse_candidates
from memoryos.capture.reflect import TurnView, reflect
from memoryos.errors import ModelError
from memoryos.llm import LLMSettings, ModelClient
from memoryos.testing import FakeClock, FakeLLMServer

DEPLOY: dict[str, Any] = {
    "type": "command",
    "command": "aws s3 cp dist/ s3://blyck-releases --recursive",
    "exit_status": 0,
}
S1 = memoryos.Scope(user="alice", assistant="coder", session="s-1")


class TestGate:
    def test_the_same_key_pending_twice_is_one_candidate(self, mem: memoryos.Memory) -> None:
        first = mem.observe(S1, DEPLOY)
        again = mem.observe(S1, {**DEPLOY, "command": DEPLOY["command"] + " --quiet"})
        assert first is not None and again is not None and again.candidate_id == first.candidate_id
        assert len(mem.candidates(S1)) == 1

    def test_a_decided_key_can_be_proposed_again(self, mem: memoryos.Memory) -> None:
        first = mem.observe(S1, DEPLOY)
        assert first is not None
        mem.approve(S1, first.candidate_id)
        again = mem.observe(S1, DEPLOY)
        assert again is not None and again.candidate_id != first.candidate_id
        mem.approve(S1, again.candidate_id)
        record = mem.get(S1, "deploy:blyck-releases")
        assert record is not None and record.version == 1 and record.reinforced == 1  # REINFORCE

    def test_auto_approve_is_an_explicit_policy_per_kind(self, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, auto_approve_kinds=["capability"]) as mem:
            candidate = mem.observe(S1, DEPLOY)
            assert candidate is not None and candidate.status == "approved" and candidate.memory_id
            assert mem.get(S1, "deploy:blyck-releases") is not None
            rule = mem.observe(S1, {"type": "instruction", "text": "Never deploy on Fridays"})
            assert rule is not None and rule.status == "pending"  # rules still wait for a person
            assert mem.get(S1, rule.key) is None

    def test_an_unknown_auto_approve_kind_is_a_config_error(self, db: Path) -> None:
        with pytest.raises(memoryos.ConfigError, match="auto_approve_kinds"):
            memoryos.open(db, auto_approve_kinds=["semantic"])


class TestReflection:
    SESSION = (
        ("user", "Never touch the PROD database. This PC can deploy blyck to S3."),
        ("assistant", "Understood."),
        ("user", "To release, run `make release`. My home airport is SFO."),
    )

    def _remember(self, mem: memoryos.Memory, scope: memoryos.Scope) -> None:
        for role, text in self.SESSION:
            mem.remember(scope, text, role=role)

    def test_end_session_proposes_rules_capabilities_procedures_and_facts_degraded(
        self, mem: memoryos.Memory
    ) -> None:
        self._remember(mem, S1)
        reflection = mem.end_session(S1)
        assert reflection.degraded and reflection.turns == 3
        found = {(c.kind, c.key) for c in reflection.candidates}
        assert found == {
            ("rule", "rule:never-touch-the-prod-database"),
            ("capability", "deploy:blyck"),
            ("procedure", "how:release"),
            ("fact", "fact:home-airport"),
        }
        assert all(c.status == "pending" for c in reflection.candidates)
        assert mem.get(S1, "deploy:blyck") is None  # nothing enters the drawer before approval
        assert mem.status()["tiers"]["stm"] == 0  # the session's turns moved on to MTM

    def test_reflecting_again_proposes_nothing_new(self, mem: memoryos.Memory) -> None:
        self._remember(mem, S1)
        first = mem.reflect(S1)
        second = mem.reflect(S1)
        assert {c.candidate_id for c in second.candidates} == {c.candidate_id for c in first.candidates}
        assert len(mem.candidates(S1)) == len(first.candidates)

    def test_the_idle_window_ends_the_session(self, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, stm_idle_seconds=60) as mem:
            self._remember(mem, S1)
            clock.advance(minutes=5)
            done = mem.maintain()
            assert done.reflected_candidates == 4 and len(mem.candidates(S1)) == 4

    def test_a_secret_in_a_session_never_becomes_a_candidate(self, mem: memoryos.Memory) -> None:
        mem.remember(S1, "To deploy, run `deploy --token hunter2secret prod`.")
        assert mem.end_session(S1).candidates == []

    def test_with_a_model_the_model_proposes_and_nothing_is_degraded(
        self, db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with FakeLLMServer("normal") as server:
            monkeypatch.setenv("MEMORYOS_LLM_URL", server.url)
            monkeypatch.setenv("MEMORYOS_LLM_MODEL", "fake")
            with memoryos.open(db, clock=clock) as mem:
                mem.remember(S1, "Our staging box is called kiwi.")
                reflection = mem.end_session(S1)
        assert not reflection.degraded
        assert [(c.kind, c.key) for c in reflection.candidates] == [("fact", "fact:our-staging-box")]

    @pytest.mark.parametrize("mode", ["error500", "malformed"])
    def test_a_failing_model_falls_back_to_the_extractive_reflection(self, mode: str) -> None:
        with FakeLLMServer(mode) as server:  # type: ignore[arg-type]
            client = ModelClient(LLMSettings(server.url, "fake", attempts=1), sleep=lambda _: None)
            reflected = ModelReflector(client).reflect([TurnView("user", "Never deploy on Fridays.")])
        assert reflected.degraded and [c.key for c in reflected.candidates] == [
            "rule:never-deploy-on-fridays"
        ]


TRACEBACK_ANSWER = orjson.dumps(
    {"candidates": [{"kind": "fact", "key": "fact:x", "body": "Traceback (most recent call last):"}]}
).decode()


class TestModelAnswers:
    @pytest.mark.parametrize(
        "answer",
        [
            "ok",
            '{"candidates": [], "extra": 1}',
            '{"candidates": [{"kind": "secret", "key": "fact:x", "body": "b"}]}',
            '{"candidates": [{"kind": "fact", "key": "Fact X", "body": "b"}]}',
            TRACEBACK_ANSWER,
            '{"candidates": [{"kind": "fact", "key": "fact:x"}]}',
        ],
    )
    def test_an_answer_off_the_format_is_refused_whole(self, answer: str) -> None:
        with pytest.raises(ModelError):
            parse_candidates(answer)

    def test_a_well_formed_answer_is_read(self) -> None:
        answer = orjson.dumps(
            {"candidates": [{"kind": "rule", "key": "rule:no-fridays", "body": "No Fridays."}]}
        )
        (candidate,) = parse_candidates(answer.decode())
        assert (candidate.kind, candidate.key, candidate.body) == ("rule", "rule:no-fridays", "No Fridays.")


class TestExtractiveRules:
    @pytest.mark.parametrize(
        ("text", "kind", "key"),
        [
            ("We can now ssh into the bastion host.", "capability", "connect:the-bastion-host"),
            (
                "I deployed the docs site with `make docs-deploy`, it worked.",
                "capability",
                "deploy:make-docs-deploy",
            ),
            ("Run `tox -e lint` to check the style.", "procedure", "how:check-the-style"),
            ("My favourite editor is Neovim.", "fact", "fact:favorite-editor"),  # as extraction keys it
            ("Always squash before merging.", "rule", "rule:always-squash-before-merging"),
        ],
    )
    def test_sentence_shapes_become_candidates(self, text: str, kind: str, key: str) -> None:
        (candidate,) = reflect([TurnView("user", text)])
        assert (candidate.kind, candidate.key) == (kind, key)

    @pytest.mark.parametrize(
        "text",
        [
            "I could not deploy blyck yesterday.",
            "What is the weather like?",
            "The deploy failed with `make deploy`.",
        ],
    )
    def test_failures_and_questions_propose_nothing(self, text: str) -> None:
        assert reflect([TurnView("user", text)]) == []


@pytest.fixture
def mem(db: Path, clock: FakeClock) -> Iterator[memoryos.Memory]:
    with memoryos.open(db, clock=clock) as memory:
        yield memory
