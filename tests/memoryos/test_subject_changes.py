"""How people state a change of a fact, and restate one in passing (the seventh session's shapes of
memoryos.policies.subjects, subject_shapes and mentions, and reconcile's owned things): each rule
with sentences that state it and sentences of the same shape that must not (someone else, a
supposition, a trait, a one-off, a negation). The sentences are our own, written for these tests,
not taken from any scripted corpus."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.extraction.reconcile import Known, decide, mention_outcome, owned_nouns
from memoryos.policies import mentions
from memoryos.policies.subjects import profile_facts
from memoryos.testing import FakeClock
from tests.memoryos.store_contract import sqlite_of

WHOLE = memoryos.Scope(user="u", assistant="a")


def facts(sentence: str) -> dict[str, str]:
    return dict(profile_facts(sentence))


def fact(key: str, body: str, turn: str = "t0") -> Known:
    return Known(f"{key}@1", key, "semantic", body, (turn,), "profile")


class TestSubjectsSaidWithoutMy:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("Home's Tulsa.", "fact:home", "Tulsa."),
            ("We sold up last spring — home is Galway now.", "fact:home", "Galway"),
            ("Now that I'm in Porto, the rent is lower.", "fact:home", "Porto"),
            ("We live in a small flat in Ghent with the twins.", "fact:home", "Ghent"),
            ("Husband is Idris, he cooks.", "fact:husband", "Idris"),
            ("So, boss's name is Priya.", "fact:boss", "Priya"),
            ("My wife Noor's taken up pottery.", "fact:wife", "Noor"),
            ("my laptop's a Framework 13, and I love it", "fact:laptop", "a Framework 13"),
            ("Quick intro. Home's Tulsa. I drive a lot.", "fact:home", "Tulsa."),  # the value ends there
            ("As a native Tamil speaker, I hear it at once.", "fact:first-language", "Tamil"),
            ("The move to Boise is done!", "fact:home", "Boise"),
            ("We finished the move to Leith on Friday.", "fact:home", "Leith"),
            ("We're slowly settling into Duluth, boxes everywhere.", "fact:home", "Duluth"),
            ("I'm based out of Tulsa, mostly.", "fact:home", "Tulsa"),
            ("I've been in Denver for five years.", "fact:home", "Denver"),
            ("We've been in Oslo since 2019.", "fact:home", "Oslo"),
            ("I've been at Initech for six years.", "fact:employer", "Initech"),
        ],
    )
    def test_the_subject_and_its_value(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "Home is where the heart is.",  # no place
            "Home Depot had a sale on paint.",  # a name, not "home is"
            "Boss is happy with the quarter.",  # what is said of the boss is no name
            "my mom's car is red",  # a possessive, not "is"
            "My son, as a native Tamil speaker, reads it at once.",  # the son's language
            "My phone is dead, I'll text you later.",  # a passing condition, not a phone
            "my car is in the shop till Friday",  # a passing condition
            "The move to Boise is next spring.",  # not done
            "We're planning the move to Boise.",  # a plan
            "My sister is settling into Duluth.",  # someone else's
            "I've been in Denver for two weeks.",  # a stay
            "I've been at Mercy for six hours.",  # hours at a hospital, not a job
            "My brother's been in Oslo for years.",  # someone else's
        ],
    )
    def test_no_subject(self, sentence: str) -> None:
        assert facts(sentence) == {}


def test_reflection_keeps_no_passing_condition() -> None:
    from memoryos.capture import reflect

    assert reflect.fact("My laptop is acting up again.") is None
    found = reflect.fact("My laptop is a Framework now.")
    assert found is not None and found.key == "fact:laptop"


class TestDietOneIsOn:
    @pytest.mark.parametrize(
        ("sentence", "diet"),
        [
            ("These days I'm doing paleo, mostly.", "paleo"),
            ("I'm on a vegan diet since March.", "vegan"),
            ("I've been pescatarian for years.", "pescatarian"),
        ],
    )
    def test_the_diet(self, sentence: str, diet: str) -> None:
        assert facts(sentence).get("fact:diet") == diet

    def test_someone_elses_diet_is_not_the_speakers(self) -> None:
        assert "fact:diet" not in facts("My brother has gone vegan.")


class TestHouseholdCounts:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("We have two children, both in school.", "fact:children-count", "two children"),
            ("I've got 3 cats and a parrot.", "fact:cats-count", "three cats"),
            ("Four grandkids now, can you believe it?", "fact:grandchildren-count", "four grandkids"),
            ("The twins arrived, so five kids now.", "fact:children-count", "five kids"),
        ],
    )
    def test_the_count(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "My neighbour has two dogs.",  # someone else's
            "I drove three kids to football yesterday.",  # a one-off, not a household
            "She has three kids now.",  # someone else's, said with "now"
            "If we had two kids we'd need a bigger car.",  # a supposition
        ],
    )
    def test_no_count(self, sentence: str) -> None:
        assert not [k for k in facts(sentence) if k.endswith("-count")]

    def test_a_count_is_mentioned_only_with_its_number(self) -> None:
        marks = mentions.marks("three kids", "We've got three kids.")
        assert mentions.mentioned("Three kids and one bathroom, send help.", marks) is not None
        assert mentions.mentioned("The kids are at school.", marks) is None

    def test_a_new_count_updates_the_old(self) -> None:
        known = [fact("fact:children-count", "We have two kids.")]
        outcome = decide("semantic", "fact:children-count", "Three kids under one roof now.", known)
        assert (outcome.action, outcome.rule) == ("update", "subject")
        again = decide("semantic", "fact:children-count", "We have two kids, a boy and a girl.", known)
        assert again.action == "reinforce"


class TestRoles:
    @pytest.mark.parametrize(
        ("sentence", "role"),
        [
            ("I'm a welder now, the shop trained me.", "welder"),
            ("I'm now a surveyor.", "surveyor"),
            ("I'm a line supervisor these days.", "line supervisor"),
            ("I got promoted to charge nurse last month.", "charge nurse"),
            ("The district promoted me to assistant principal.", "assistant principal"),
        ],
    )
    def test_the_new_role(self, sentence: str, role: str) -> None:
        assert facts(sentence).get("fact:occupation") == role

    @pytest.mark.parametrize(
        "sentence",
        [
            "I'm a big reader now.",  # a trait
            "I'm a worrier these days.",  # a trait
            "I'm not a smoker now.",  # a negation
            "I'm a bartender.",  # an -er noun without "now" is not read as a role
            "I was made redundant in May.",  # "made" is no promotion
            "The post got promoted to the front page.",  # not the speaker
        ],
    )
    def test_no_role(self, sentence: str) -> None:
        assert "fact:occupation" not in facts(sentence)


class TestNewJobsAndThings:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("I got a job at Brightline!", "fact:employer", "Brightline"),
            ("I finally got hired by Northwind Traders.", "fact:employer", "Northwind Traders."),
            ("Good news, Contoso hired me on Friday.", "fact:employer", "Contoso"),
            ("We adopted a dog named Juniper.", "fact:dog", "Juniper"),
            ("We got a kitten, Mochi.", "fact:cat", "Mochi"),
            ("I got a new phone, a Fairphone 5.", "fact:phone", "Fairphone 5"),
            ("I work nights now, so text me after noon.", "fact:shift", "night shift"),
            ("I'm back on days, finally.", "fact:shift", "day shift"),
            ("I teach year six at Hillcrest Primary.", "fact:teach-place", "Hillcrest Primary"),
        ],
    )
    def test_the_new_value(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "My cousin got a job at Brightline.",  # someone else's
            "If I got hired by Northwind I'd move.",  # a supposition
            "My aunt adopted a dog named Juniper.",  # someone else's
            "I bought a new phone case.",  # no phone
            "I'm on days off this week.",  # days off
            "I'm working nights to cover for Sam.",  # covering is temporary
        ],
    )
    def test_no_value(self, sentence: str) -> None:
        said = facts(sentence)
        assert not set(said) & {"fact:employer", "fact:dog", "fact:phone", "fact:shift"}


class TestContrastAndEndings:
    @pytest.mark.parametrize(
        ("sentence", "old"),
        [
            ("We meet in Room Delta now instead of Room Alpha.", "Alpha"),
            ("I'm taking the Harlow route rather than the Bexley one.", "Bexley"),
            ("It's Kestrel, not Osprey.", "Osprey"),
            ("The launch is in 2031, not 2030.", "2030"),
            ("The Zenbook finally died last night.", "Zenbook"),
            ("Traded in the Corolla this weekend, we got a minivan.", "Corolla"),  # dated, not a stay
            ("I got laid off from Initrode in May.", "Initrode"),
            ("I resigned from Globex, finally.", "Globex"),
            ("We moved out of Pawnee.", "Pawnee"),
            ("Pepper passed away on Sunday.", "Pepper"),
            ("I quit Globex, can you update my CV?", "Globex"),  # reported, then a question
            ("Goodbye Krita, what should I learn next?", "Krita"),
            ("I've moved on from Krita to Inkscape.", "Krita"),
            ("I'm officially done with Krita.", "Krita"),
        ],
    )
    def test_the_old_value_is_given_up(self, sentence: str, old: str) -> None:
        assert mentions.retired(sentence, ((old,),), frozenset())

    @pytest.mark.parametrize(
        ("sentence", "old"),
        [
            ("I'm not going back to Osprey.", "Osprey"),  # a negation, no correction
            ("Why not Osprey?", "Osprey"),  # a question
            ("A friend says VS Code. Not for me, Osprey forever.", "Osprey"),  # a sentence end
            ("My sister's Zenbook finally died.", "Zenbook"),  # someone else's
            ("The Zenbook died mid-call, charging it now.", "Zenbook"),  # a flat battery
            ("If we went with Kestrel instead of Osprey I'd be sad.", "Osprey"),  # a supposition
            ("I'm borrowing the Corolla this weekend.", "Corolla"),  # a stay
            ("I swapped the Corolla for the van this weekend.", "Corolla"),  # a swap may be a one-off
            ("Sold the Corolla for now, until the baby comes.", "Corolla"),  # temporary
            ("My brother got laid off from Initrode.", "Initrode"),  # someone else's
            ("If I got fired from Initrode I'd sue.", "Initrode"),  # a supposition
            ("Should I take the Harlow route instead of the Bexley one?", "Bexley"),  # a question
            ("Do you think I should quit Globex?", "Globex"),  # a question
            ("Can we call it Kestrel, not Osprey?", "Osprey"),  # a question
            ("My brother is done with Krita.", "Krita"),  # someone else's
            ("I'm done with Krita for today.", "Krita"),  # temporary ("for today" is no for good)
        ],
    )
    def test_nothing_is_given_up(self, sentence: str, old: str) -> None:
        assert not mentions.retired(sentence, ((old,),), frozenset())


class TestNames:
    def test_a_camel_case_brand_is_a_name(self) -> None:
        assert mentions.marks(None, "We all switched to iPad minis at work.") == (("iPad",),)

    def test_a_model_is_mentioned_by_its_designation(self) -> None:
        marks = mentions.marks("a Galaxy A54", "my phone's a Galaxy A54")
        assert mentions.mentioned("The A54 fell in the lake.", marks) is not None
        assert mentions.mentioned("Seven people came.", marks) is None

    def test_a_titled_name_is_mentioned_by_the_surname_not_the_title(self) -> None:
        marks = mentions.marks(None, "My advisor is Dr. Amaka Obi. Super patient.")
        assert ("Dr", "Amaka", "Obi") in marks  # the run ends with its sentence
        assert mentions.mentioned("Obi liked the draft.", marks) is not None
        assert mentions.mentioned("Dr. Stein was on the panel.", marks) is None


class TestOwnedThings:
    def test_the_nouns_of_an_owned_subject(self) -> None:
        assert owned_nouns("fact:employer") == ("job", "company", "workplace", "work")
        assert owned_nouns("fact:home") == ()  # a home is not given away

    @pytest.mark.parametrize(
        "sentence",
        [
            "We had to give away the dog when we moved.",
            "We rehomed the dog, it broke my heart.",
            "Our old dog gave up the ghost in June.",
        ],
    )
    def test_parting_with_the_thing_updates_its_fact(self, sentence: str) -> None:
        known = [fact("fact:dog", "Our dog Pepper sleeps all day.")]
        found = mention_outcome(sentence, known, ("t9",))
        assert found is not None and (found.action, found.rule) == ("update", "retired")

    @pytest.mark.parametrize(
        "sentence",
        [
            "My sister had to give away her dog.",  # someone else's
            "I gave the dog a bath.",  # no cue
            "I quit sugar, the dog is fine.",  # the dog is not what was quit
            "The dog is gone for the weekend, at my mum's.",  # "is gone" alone retires no owned thing
        ],
    )
    def test_other_sentences_retire_nothing(self, sentence: str) -> None:
        known = [fact("fact:dog", "Our dog Pepper sleeps all day.")]
        found = mention_outcome(sentence, known, ("t9",))
        assert found is None or found.action != "update"


def test_a_flat_battery_is_no_new_phone() -> None:
    known = [fact("fact:phone", "my phone's a Moto G54")]
    found = mention_outcome("My phone is dead, I'll call you tonight.", known, ("t9",))
    assert found is None or found.action != "update"


def test_a_change_and_its_restatement_through_the_public_api(tmp_path: Path) -> None:
    """A phone said "my phone's a ...", then the old one dies and a new one is named, then the new
    one is mentioned: one record with its history, the change an UPDATE, the mention a REINFORCE."""
    clock = FakeClock(dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC))
    db = tmp_path / "c.db"
    sessions = [
        ["By the way, my phone's a Moto G54, nothing fancy."],
        ["The G54 finally died on the bus. I caved and got a Pixel 8."],
        ["Could the Pixel back up my photos automatically?"],
    ]
    with memoryos.open(db, clock=clock, heat_threshold=1.0) as mem:
        for number, said in enumerate(sessions):
            clock.now = clock.now + dt.timedelta(days=3)
            scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
            for text in said:
                mem.remember(scope, text, role="user")
                mem.remember(scope, "Noted.", role="assistant")
            mem.end_session(scope)
            mem.maintain()
        history = mem.history(WHOLE, "fact:phone")
        keys = sqlite_of(mem)._live().execute("SELECT DISTINCT key FROM units WHERE key IS NOT NULL")
        holding = [k for (k,) in keys.fetchall() if any("Pixel" in r.body for r in mem.history(WHOLE, k))]
    assert [r.status for r in history] == ["superseded", "active"]
    assert "Pixel 8" in history[1].body and history[1].reinforced == 1
    assert holding == ["fact:phone"]  # no second record of the new phone


def test_distractors_of_the_new_shapes_change_nothing(tmp_path: Path) -> None:
    """Someone else's count and move, a supposition, a flat battery, a stay and the assistant's own
    suggestion, each said in the new shapes: every fact keeps its one version."""
    clock = FakeClock(dt.datetime(2026, 5, 4, 9, tzinfo=dt.UTC))
    db = tmp_path / "d.db"
    sessions = [
        [("user", "Home's Duluth. We've got two kids and my phone's a Moto G54.")],
        [
            ("user", "My sister has three kids now, chaos."),
            ("user", "If we moved to Boise instead of Duluth I'd miss the lake."),
            ("user", "My phone is dead, I'll text you tonight."),
            ("user", "I've been in Denver for two weeks for a course."),
            ("assistant", "You could get a Pixel 8 instead of the G54, not the Moto."),
        ],
    ]
    with memoryos.open(db, clock=clock, heat_threshold=1.0) as mem:
        for number, said in enumerate(sessions):
            clock.now = clock.now + dt.timedelta(days=3)
            scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
            for role, text in said:
                mem.remember(scope, text, role=role)
            mem.end_session(scope)
            mem.maintain()
        versions = {
            key: len(mem.history(WHOLE, key)) for key in ("fact:home", "fact:children-count", "fact:phone")
        }
    assert versions == {"fact:home": 1, "fact:children-count": 1, "fact:phone": 1}
