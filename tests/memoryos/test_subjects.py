"""The subject tables (memoryos.policies.subjects), shared by extraction and reflection, on phrasings
of our own (not the scripted corpus'): subjects, values, and what is refused as not a lasting fact."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.capture.reflect import fact
from memoryos.extraction.handlers import semantic_subjects
from memoryos.policies.subjects import milestone, normal_date, normal_subject, profile_facts
from memoryos.testing import FakeClock

WHOLE = memoryos.Scope(user="u", assistant="a")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("We need to ship Orion by June 3rd.", ("fact:orion-deadline", "jun 3")),
        ("The Orion release slipped to 12 July.", ("fact:orion-deadline", "jul 12")),
        ("Orion goes live on the 9th.", ("fact:orion-deadline", "9")),
        ("Kestrel is due 2027-01-15.", ("fact:kestrel-deadline", "2027-01-15")),
    ],
)
def test_a_dated_milestone_of_a_named_project_is_its_deadline(
    sentence: str, expected: tuple[str, str]
) -> None:
    assert milestone(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "We shipped it yesterday.",
        "Lunch is on Friday.",
        "The release notes are long.",
        "I launched on June 3.",
    ],
)
def test_no_project_or_no_date_is_no_milestone(sentence: str) -> None:
    assert milestone(sentence) is None


def test_dates_are_compared_by_month_and_day() -> None:
    assert normal_date("September 30th") == "sep 30" == normal_date("30 of Sept")
    assert normal_date("the 2nd") == "2"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I don't eat meat, so skip the steakhouse.", [("fact:diet", "vegetarian")]),
        ("I no longer eat animal products.", [("fact:diet", "vegan")]),
        ("I've become fully pescatarian.", [("fact:diet", "pescatarian")]),
        ("My partner Sam is joining.", [("fact:partner", "Sam")]),
        ("My fiancee, Ines, booked it.", [("fact:fiancee", "Ines")]),
        (
            "It's all Kotlin, which is my favourite language to code in.",
            [("fact:favorite-language", "Kotlin")],
        ),
        ("My favourite programming language is Zig.", [("fact:favorite-language", "Zig")]),
        ("My dietary preference is vegan.", [("fact:diet", "vegan")]),
    ],
)
def test_more_ways_to_state_a_subject(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert profile_facts(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "I live in Emacs all day.",  # an idiom
        "I live in spreadsheets all the time.",
        "I'm based in Denver this week for a trade show.",  # a stay
        "I'm living in Oslo for a few months.",
        "I'm still working for Initech as a contractor.",  # not the main job
        "I work for a charity on the side.",
        "My brother, based in Leeds, called.",  # someone else's home
        "My sister moved to Paris.",
    ],
)
def test_what_is_not_a_lasting_fact_of_the_speaker_has_no_subject(sentence: str) -> None:
    assert [k for k, _ in profile_facts(sentence) if k in ("fact:home", "fact:employer")] == []


def test_two_subjects_in_one_sentence() -> None:
    assert profile_facts("I'm a designer at Globex, based in Denver.") == [
        ("fact:employer", "Globex"),
        ("fact:home", "Denver."),
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "My favourite editor is Helix.",
        "My fave colour is teal.",
        "My current employer is Initech.",
        "I live in Denver.",
        "I'm vegan.",
        "I don't eat meat.",
        "My home town is Porto.",
    ],
)
def test_reflection_keys_a_fact_as_extraction_does(sentence: str) -> None:
    found = fact(sentence)
    assert found is not None and found.key == semantic_subjects(sentence)[0]


def test_normalisation_drops_empty_words_but_keeps_a_subject() -> None:
    assert normal_subject("fact:programming") == "fact:programming"
    assert normal_subject("fact:favourite-coding-language") == "fact:favorite-language"


def _converse(db: Path, said: list[str]) -> memoryos.Memory:
    clock = FakeClock(dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC))
    mem = memoryos.open(db, clock=clock, heat_threshold=1.0)
    for number, text in enumerate(said):
        clock.now += dt.timedelta(days=1)
        scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
        mem.remember(scope, text, role="user")
        mem.end_session(scope)
        mem.maintain()
    return mem


def test_a_deadline_is_added_moved_and_restated(tmp_path: Path) -> None:
    said = [
        "We must ship Orion by June 3.",
        "Bad news, the Orion launch slipped to June 17.",
        "Orion is on track for the 17th.",
    ]
    with _converse(tmp_path / "d.db", said) as mem:
        versions = mem.history(WHOLE, "fact:orion-deadline")
    assert [(r.status, r.reinforced) for r in versions] == [("superseded", 0), ("active", 1)]


def test_a_stay_and_side_work_change_nothing(tmp_path: Path) -> None:
    said = [
        "I'm a designer at Globex, based in Denver.",
        "I'm based in Chicago this week for a workshop.",
        "I'm still working for Initech as a contractor.",
    ]
    with _converse(tmp_path / "s.db", said) as mem:
        home, employer = mem.history(WHOLE, "fact:home"), mem.history(WHOLE, "fact:employer")
    # one sentence, two subjects: two records (before, the second matched the first by its words)
    assert [r.version for r in home] == [1] and [r.version for r in employer] == [1]
    assert home[0].memory_id != employer[0].memory_id
