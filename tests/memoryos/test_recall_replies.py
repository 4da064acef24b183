"""Replies: the answer that follows a matching question is recalled, though it shares no word with
the query ("What have you been researching?" -> "Adoption agencies, mostly.")."""

from __future__ import annotations

import memoryos
from memoryos.testing import FakeClock

QUESTION = "Jon: What have you been researching lately?"
ANSWER = "Maria: Adoption agencies, mostly."


def _texts(found: memoryos.Recall) -> list[str]:
    return [h.text for h in found.hits]


def _chat(mem: memoryos.Memory, scope: memoryos.Scope) -> None:
    for n in range(6):
        mem.remember(scope, f"Maria: the weather was fine on day {n}", role="user")


class TestReplies:
    def test_the_reply_to_a_matching_question_is_a_hit_below_it(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        _chat(mem, alice)
        mem.remember(alice, QUESTION, role="assistant")
        answer = mem.remember(alice, ANSWER, role="user")
        _chat(mem, alice)
        hits = mem.recall(alice, "What did Maria research?", k=5).hits
        assert [h.text for h in hits[:2]] == [QUESTION, ANSWER]
        assert hits[1].score == hits[0].score * 0.5
        assert hits[1].source_ids == (answer.memory_id,)  # the turn it was built from

    def test_replies_are_found_after_promotion_to_pages(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        mem.remember(alice, ANSWER, role="user")
        for n in range(20):  # pushes both out of STM into MTM pages
            mem.remember(alice, f"Jon: other small talk number {n}", role="assistant" if n % 2 else "user")
        clock.advance(hours=3)
        mem.maintain()
        assert ANSWER in _texts(mem.recall(alice, "researching", k=5))

    def test_a_statement_brings_no_neighbour(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.remember(alice, "Jon: I have been researching lately.", role="assistant")
        mem.remember(alice, ANSWER, role="user")
        assert ANSWER not in _texts(mem.recall(alice, "researching", k=5))

    def test_the_same_speaker_going_on_is_not_a_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        mem.remember(alice, ANSWER, role="assistant")
        assert ANSWER not in _texts(mem.recall(alice, "researching", k=5))

    def test_a_turn_long_after_the_question_is_not_its_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        clock.advance(hours=1)
        mem.remember(alice, ANSWER, role="user")
        assert ANSWER not in _texts(mem.recall(alice, "researching", k=5))

    def test_another_scopes_turn_stored_in_between_changes_nothing(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        mem.remember(bob, "Bob: researching what? Tell me", role="user")
        mem.remember(alice, ANSWER, role="user")
        hits = mem.recall(alice, "researching", k=5).hits
        assert [h.text for h in hits] == [QUESTION, ANSWER]

    def test_a_forgotten_reply_is_not_returned(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        answer = mem.remember(alice, ANSWER, role="user")
        mem.forget(alice, answer.memory_id)
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION]
