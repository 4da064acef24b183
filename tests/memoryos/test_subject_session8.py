"""The eighth session's shapes of memoryos.policies.subjects and mentions: a relation said "here"
after a move, Indian English diet words, a two-wheeler or a vehicle bought, an employer named after
what it is ("a couple, the Whitfields"), and "goodbye" as a noun. Each rule with sentences that
state it and sentences of the same shape that must not (someone else, a supposition, another
place). The sentences are our own, written for these tests, not taken from any scripted corpus."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.extraction.reconcile import Known, decide, mention_outcome
from memoryos.policies import mentions
from memoryos.policies.subjects import profile_facts
from memoryos.testing import FakeClock

WHOLE = memoryos.Scope(user="u", assistant="a")


def facts(sentence: str) -> dict[str, str]:
    return dict(profile_facts(sentence))


def fact(key: str, body: str, turn: str = "t0") -> Known:
    return Known(f"{key}@1", key, "semantic", body, (turn,), "profile")


def reconciled(said: str, known: list[Known]) -> tuple[str, str]:
    """The action and key for the first subject the sentence states (as extraction reads it)."""
    subject = next(iter(facts(said)), None)
    found = decide("semantic", subject, said, known)
    return found.action, found.key


class TestHere:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("My manager here is Tomasz Wolak, very calm guy.", "fact:manager", "Tomasz Wolak"),
            ("my landlord here is Mr Okafor", "fact:landlord", "Mr Okafor"),
            ("My favourite cafe here is Blue Door.", "fact:favorite-cafe", "Blue Door"),
        ],
    )
    def test_here_is_the_one_one_has_now(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    def test_another_place_keeps_its_words(self) -> None:
        assert "fact:dentist" not in facts("My dentist there is Dr Mbeki.")

    def test_the_manager_here_updates_the_manager(self) -> None:
        known = [fact("fact:manager", "My manager is Gita Rao, strict but fair.")]
        assert reconciled("My manager here is Tomasz Wolak.", known) == ("update", "fact:manager")


class TestIndianEnglishDiets:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("Arre, I'm not pure veg, I'm eggetarian actually.", "eggetarian"),
            ("I'm veg, so only paneer for me.", "vegetarian"),
            ("I am pure veg since childhood.", "vegetarian"),
            ("I'm non-veg now, chicken is fine.", "non-vegetarian"),
            ("I'm flexitarian these days.", "flexitarian"),
        ],
    )
    def test_the_diet(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:diet") == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "I'm a veg box subscriber.",  # "veg" is the whole value, never a noun's modifier
            "I'm vegging out tonight.",
            "My mother is pure veg.",  # someone else's
            "I'm not veg.",  # a negation
        ],
    )
    def test_no_diet(self, sentence: str) -> None:
        assert "fact:diet" not in facts(sentence)

    def test_a_correction_updates_the_diet(self) -> None:
        known = [fact("fact:diet", "I'm vegetarian, keep it veg only.")]
        said = "Small correction: I'm not pure veg, I'm eggetarian."
        assert reconciled(said, known) == ("update", "fact:diet")


class TestVehicles:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("I bought a second-hand Ather 450X last month.", "450X"),
            ("We got a used Mazda CX-5 from a neighbour.", "CX-5"),
            ("Honestly I go everywhere on my Splendor, it never fails.", "Splendor"),
            ("I commute on my Vespa most days.", "Vespa"),
            ("I now ride a Yamaha FZ to the office.", "FZ"),
        ],
    )
    def test_the_vehicle(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:car") == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "My cousin bought a used Honda Jazz.",  # someone else's
            "If I bought a new Tesla Model 3 I'd be broke.",  # a supposition
            "I go everywhere on my own, honestly.",  # no vehicle named
            "Back home my Splendor did the ring road in twenty minutes.",  # a story, no make
        ],
    )
    def test_no_vehicle(self, sentence: str) -> None:
        assert "fact:car" not in facts(sentence)

    def test_the_vehicle_bought_after_one_sold_updates_it(self) -> None:
        known = [fact("fact:car", "I sold the Splendor before the move.")]
        said = "I bought a second-hand Ather 450X from a friend."
        assert reconciled(said, known) == ("update", "fact:car")


class TestEmployerNamedByWhatItIs:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("I work as a nanny for a young family, the Okonkwos, in Leeds.", "Okonkwos"),
            ("Since March I work for a new couple, the Haralds — lovely people.", "Haralds"),
            ("I nanny for a family called Lindqvist in Uppsala.", "Lindqvist"),
            ("I work for a small startup, Fernlight, on payments.", "Fernlight"),
        ],
    )
    def test_the_employer(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:employer") == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "My cousin works for a family, the Garcias.",  # someone else's
            "If I work for a family, the Reyes, I would earn more.",  # a supposition
            "I work for a living, honestly.",
        ],
    )
    def test_no_employer(self, sentence: str) -> None:
        assert "fact:employer" not in facts(sentence)


class TestFarewellNoun:
    def test_an_emotional_goodbye_gives_nothing_up(self) -> None:
        said = "The Haralds left for Oslo on the 2nd, a tearful goodbye, even Mr Harald cried."
        assert not mentions.retired(said, (("Haralds",),), frozenset())
        known = [fact("fact:employer", "I work for a couple, the Haralds.")]
        found = mention_outcome(said, known, ("t9",))
        assert found is None or found.action != "update"

    @pytest.mark.parametrize("said", ["So goodbye Haralds, hello Oslo.", "Goodbye to the Haralds, sadly."])
    def test_goodbye_to_a_value_still_gives_it_up(self, said: str) -> None:
        assert mentions.retired(said, (("Haralds",),), frozenset())


def test_a_scooter_sold_then_another_bought_through_the_public_api(tmp_path: Path) -> None:
    """A vehicle ridden everywhere, then sold, then another bought and mentioned, with a story of
    the old one beside the purchase: one key, three versions, the new one current and reinforced."""
    clock = FakeClock(dt.datetime(2026, 4, 6, 9, tzinfo=dt.UTC))
    sessions = [
        ["I go everywhere on my Splendor, the traffic here is crazy."],
        ["I sold the Splendor before the move. Buses only for now."],
        ["I bought a second-hand Ather 450X from a friend. Back home my Splendor was faster, haha."],
        ["The Ather is great on the highway, by the way."],
    ]
    with memoryos.open(tmp_path / "v.db", clock=clock, heat_threshold=1.0) as mem:
        for number, said in enumerate(sessions):
            clock.now = clock.now + dt.timedelta(days=3)
            scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
            for text in said:
                mem.remember(scope, text, role="user")
                mem.remember(scope, "Noted.", role="assistant")
            mem.end_session(scope)
            mem.maintain()
        history = mem.history(WHOLE, "fact:car")
    assert [r.status for r in history] == ["superseded", "superseded", "active"]
    assert "Ather 450X" in history[-1].body and history[-1].reinforced >= 1


class TestJoinedRetirement:
    def test_a_guard_is_read_in_the_cue_sentence(self) -> None:
        said = "I sold the Splendor before the move. Buses only for now."
        assert mentions.retired(said, (("Splendor",),), frozenset())

    @pytest.mark.parametrize(
        "said",
        ["I sold the Splendor for now, until the visa comes. Buses it is.", "Maybe I sold the Splendor."],
    )
    def test_a_guard_in_the_cue_sentence_still_guards(self, said: str) -> None:
        assert not mentions.retired(said, (("Splendor",),), frozenset())

    def test_a_model_that_opens_with_a_digit_is_named_with_its_make(self) -> None:
        marks = mentions.marks("450X", "I bought a second-hand Ather 450X.")
        assert mentions.mentioned("The Ather is quick on the highway.", marks) is not None
        assert mentions.mentioned("The bus is quick on the highway.", marks) is None


class TestWorkTools:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("Stack is Django with Postgres, plus some Celery.", "fact:stack", "Django with Postgres"),
            (
                "And the stack here is Phoenix with Elixir — no more Rails.",
                "fact:stack",
                "Phoenix with Elixir",
            ),
            ("Our database is MariaDB, on a single box.", "fact:database", "MariaDB"),
            ("So the shell is Fish now.", "fact:shell", "Fish"),
        ],
    )
    def test_the_tool(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "The editor is open on my other screen.",  # no name: a state, not a tool
            "My friend says the stack is Rails.",  # someone else's claim
            "The stack is not Rails, it's Django.",  # a negation is no value of its own
            "Their stack is Go.",  # someone else's
        ],
    )
    def test_no_tool(self, sentence: str) -> None:
        assert not {"fact:editor", "fact:stack"} & set(facts(sentence))

    def test_a_new_stack_updates_the_old(self) -> None:
        known = [fact("fact:stack", "Stack is Django with Postgres, plus some Celery.")]
        assert reconciled("And the stack is Phoenix with Elixir now.", known) == ("update", "fact:stack")
