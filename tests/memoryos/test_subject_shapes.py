"""Subjects read by sentence structure (memoryos.policies.subject_shapes) and the broader change
cues of memoryos.policies.mentions: each family with sentences that state it and sentences of the
same shape that must not (a supposition, someone else, a one-off, a negation). The sentences are
our own, written for these tests, not taken from any scripted corpus."""

from __future__ import annotations

import pytest

from memoryos.policies import mentions
from memoryos.policies.subjects import profile_facts


def facts(sentence: str) -> dict[str, str]:
    return dict(profile_facts(sentence))


class TestRole:
    @pytest.mark.parametrize(
        ("sentence", "role"),
        [
            ("I'm a retired pharmacist, so I read every label.", "retired pharmacist"),
            ("I am a dental hygienist.", "dental hygienist"),
            ("I work as a paralegal.", "paralegal"),
            ("I'm retired now, which means long walks.", "retired"),
        ],
    )
    def test_the_speakers_role(self, sentence: str, role: str) -> None:
        assert facts(sentence).get("fact:occupation") == role

    @pytest.mark.parametrize(
        "sentence",
        [
            "I'm a big reader of thrillers.",  # a trait
            "I'm not a teacher, whatever the form says.",  # a negation
            "My aunt thinks I'm a terrible driver.",  # hearsay
            "I'm a morning person.",  # no role
        ],
    )
    def test_no_role(self, sentence: str) -> None:
        assert "fact:occupation" not in facts(sentence)

    def test_a_role_at_an_employer_is_the_employers_record(self) -> None:
        found = facts("I'm a welder at Kessler Works.")
        assert "fact:employer" in found and "fact:occupation" not in found


class TestHabitAtAPlace:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            (
                "I volunteer at the Maple Street Shelter on Fridays.",
                "fact:volunteer-place",
                "Maple Street Shelter",
            ),
            ("These days I volunteer at the animal shelter.", "fact:volunteer-place", "animal shelter"),
            ("I've been singing with the Harbor Chorale since spring.", "fact:sing-place", "Harbor Chorale"),
            ("I swim at the Y most mornings.", "fact:swim-place", "Y"),
        ],
    )
    def test_a_habit_keyed_by_its_verb(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    def test_a_place_said_with_also_is_another_place(self) -> None:
        assert facts("I also volunteer at the county library.") == {
            "fact:volunteer-place-county-library": "county library"
        }

    @pytest.mark.parametrize(
        "sentence",
        [
            "I'm volunteering at the fair this weekend.",  # a one-off
            "My neighbour wants me to volunteer at her church.",  # someone else's wish
            "If I volunteered at the shelter I'd adopt them all.",  # a supposition
            "I play cards with Norma.",  # company, not a place
            "I swim at the moment, mostly.",  # no place
        ],
    )
    def test_no_habit(self, sentence: str) -> None:
        assert not [k for k in facts(sentence) if k.endswith("-place") or "-place-" in k]


class TestPeople:
    def test_several_grandchildren_are_several_facts(self) -> None:
        assert facts("My granddaughter Ivy is five and my grandson Otto is two.") == {
            "fact:granddaughter-ivy": "Ivy",
            "fact:grandson-otto": "Otto",
        }

    def test_one_has_one_partner_and_one_doctor(self) -> None:
        assert facts("My husband Arlo drove.") == {"fact:husband": "Arlo"}
        assert facts("My new doctor is Dr. Okoro now.") == {"fact:doctor": "Dr. Okoro"}
        assert facts("Wren is my daughter.") == {"fact:daughter-wren": "Wren"}

    def test_what_is_said_of_a_relation_is_no_name(self) -> None:
        assert facts("My son is obsessed with trains.") == {}


class TestActivityDays:
    @pytest.mark.parametrize(
        ("sentence", "key", "days"),
        [
            ("Book club is now on Thursdays.", "fact:book-club-schedule", "thursday"),
            ("The book club moved to Wednesdays.", "fact:book-club-schedule", "wednesday"),
            ("I have pottery on Mondays and Fridays.", "fact:pottery-schedule", "monday and friday"),
            ("Choir meets every Tuesday.", "fact:choir-schedule", "tuesday"),
        ],
    )
    def test_a_weekly_activity(self, sentence: str, key: str, days: str) -> None:
        assert facts(sentence).get(key) == days

    @pytest.mark.parametrize(
        "sentence",
        [
            "Pottery is on Thursday this time.",  # one date, not a habit
            "Book club was this Monday.",
            "My sister said choir is on Mondays.",  # hearsay
        ],
    )
    def test_no_schedule(self, sentence: str) -> None:
        assert not [k for k in facts(sentence) if k.endswith("-schedule")]


class TestGroupsAndCareers:
    def test_a_group_joined(self) -> None:
        assert facts("I've joined the Lakeside Garden Club.") == {"fact:garden-group": "Lakeside Garden Club"}
        assert facts("I'm in a quilting circle with old friends.")["fact:quilting-group"] == "quilting circle"

    def test_no_group(self) -> None:
        assert not [k for k in facts("My cousin joined a rowing club.") if k.endswith("-group")]
        assert not [k for k in facts("I'm in the hiking club for the weekend.") if k.endswith("-group")]

    @pytest.mark.parametrize(
        "sentence",
        [
            "I taught third grade at Hillcrest Elementary for twenty-six years.",
            "I retired from Hillcrest Elementary last spring.",
            "I retired after 30 years teaching at Hillcrest Elementary.",
        ],
    )
    def test_a_career_is_one_key(self, sentence: str) -> None:
        assert facts(sentence).get("fact:career") == "Hillcrest Elementary"

    def test_a_visit_is_no_career(self) -> None:
        assert "fact:career" not in facts("I taught a class at Hillcrest Elementary yesterday.")


class TestHomeMoves:
    @pytest.mark.parametrize(
        "sentence",
        [
            "We've moved into a condo in Galveston to be near the kids.",
            "We moved down to Galveston last spring.",
            "We live in Galveston now.",
            "We're in Galveston now, two streets from the beach.",
        ],
    )
    def test_a_move(self, sentence: str) -> None:
        assert facts(sentence).get("fact:home") == "Galveston"

    @pytest.mark.parametrize(
        "sentence",
        [
            "My brother moved to Galveston.",
            "If we ever moved to Galveston I'd fish every day.",
            "I'm in Galveston this week.",
            "We bought a cottage in Galveston for the summers.",
        ],
    )
    def test_no_move(self, sentence: str) -> None:
        assert "fact:home" not in facts(sentence)


class TestCommute:
    def test_by_bus_or_on_foot(self) -> None:
        assert facts("I take the bus downtown most days.") == {"fact:commute": "bus"}
        assert facts("I walk everywhere now.") == {"fact:commute": "walk"}
        assert "fact:commute" not in facts("I took the bus to the zoo.")


class TestMoreChangeCues:
    @pytest.mark.parametrize(
        ("sentence", "marks"),
        [
            ("I quit Brightway last month.", [("Brightway",)]),
            ("I've stopped volunteering at Brightway.", [("Brightway",)]),
            ("I've left Brightway.", [("Brightway",)]),
            ("I don't sing with Brightway any more.", [("Brightway",)]),
        ],
    )
    def test_a_value_given_up(self, sentence: str, marks: list[tuple[str, ...]]) -> None:
        assert mentions.retired(sentence, marks, frozenset())

    @pytest.mark.parametrize(
        "sentence",
        [
            "I left Brightway with my sister for the afternoon.",  # a place left for an hour
            "I stopped by Brightway on the way home.",  # a visit
            "My friend quit Brightway.",  # someone else
            "I'm not leaving Brightway any time soon.",  # no cue
        ],
    )
    def test_no_value_given_up(self, sentence: str) -> None:
        assert not mentions.retired(sentence, [("Brightway",)], frozenset())

    def test_a_value_is_marked_by_the_whole_name_its_body_says(self) -> None:
        marks = mentions.marks("Outback", "I drive a Subaru Outback.")
        assert ("Subaru", "Outback") in marks
        assert mentions.retired("We sold the Subaru in May.", marks, frozenset())

    def test_a_long_name_by_the_and_its_last_noun(self) -> None:
        marks = mentions.marks("Eastside Community Pantry", "I help at the Eastside Community Pantry.")
        assert mentions.mentioned("The pantry ran out of rice.", marks) is not None
        assert mentions.mentioned("A pantry opened nearby.", marks) is None  # "the" names that one
        marks = mentions.marks("St. Jude's choir", "I sing with the St. Jude's choir.")
        assert mentions.retired("I don't sing in the choir anymore.", marks, frozenset())
