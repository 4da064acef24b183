"""The ninth session's shapes of memoryos.policies.subjects and reconciliation: names that open
with an accented capital ("Élodie", "Östersund") or hold a particle ("Banco do Brasil"), the role
said before the workplace ("I work as a line cook at X", "I'm the head brewer at X"), where the
speaker is from (`fact:origin`, not the home), a relation in the speaker's other language ("ma
blonde Chloé"), the days off, smoking and quitting as one fact, a home rented or found by its kind,
and a fact faded to retired matched again by its subject. Each rule with sentences that state it
and sentences of the same shape that must not (someone else, a trip, a supposition). The sentences
are our own, written for these tests, not taken from any scripted corpus."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.extraction.handlers import semantic_value
from memoryos.extraction.reconcile import Known, decide
from memoryos.policies.subjects import profile_facts
from memoryos.testing import FakeClock

WHOLE = memoryos.Scope(user="u", assistant="a")


def facts(sentence: str) -> dict[str, str]:
    """Each subject and its value, the sentence's full stop aside ("Dundee." is "Dundee")."""
    return {key: value.rstrip(".") for key, value in profile_facts(sentence)}


def fact(key: str, body: str, turn: str = "t0") -> Known:
    return Known(f"{key}@1", key, "semantic", body, (turn,), "profile")


class TestAccentedCapitals:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("I work for Équipe Verte, a landscaping firm.", "fact:employer", "Équipe Verte"),
            ("We moved to Östersund last spring.", "fact:home", "Östersund"),
            ("My wife Élodie teaches piano.", "fact:wife", "Élodie"),
            ("Ángel is my manager now.", "fact:manager", "Ángel"),
        ],
    )
    def test_a_name_opening_with_an_accented_capital_is_a_name(
        self, sentence: str, key: str, value: str
    ) -> None:
        assert facts(sentence).get(key) == value

    def test_a_lower_case_accented_word_is_still_no_name(self) -> None:
        assert "fact:employer" not in facts("I work for éclairs and coffee, honestly.")


class TestRelationsInTheSpeakersOtherLanguage:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("Ma blonde Chloé thinks I work too much.", "fact:girlfriend", "Chloé"),
            ("Minha namorada Bia is coming to visit.", "fact:girlfriend", "Bia"),
            ("Meine Frau Anke is a nurse.", "fact:wife", "Anke"),
            ("Mi hija Lucía starts school in September.", "fact:daughter-lucia", "Lucía"),
        ],
    )
    def test_a_code_switched_relation_and_name_is_the_english_relation(
        self, sentence: str, key: str, value: str
    ) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize("sentence", ["Mon Dieu, what a week.", "My mãe's recipe is the best."])
    def test_an_exclamation_or_a_relation_without_a_name_is_no_person(self, sentence: str) -> None:
        assert facts(sentence) == {}


class TestParticleNames:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("I work at Banco do Brasil, in the branch downtown.", "fact:employer", "Banco do Brasil"),
            ("We live in Rio de Janeiro now.", "fact:home", "Rio de Janeiro"),
            ("I just joined Bank of America.", "fact:employer", "Bank of America"),
        ],
    )
    def test_a_particle_between_two_capitalised_words_is_part_of_the_name(
        self, sentence: str, key: str, value: str
    ) -> None:
        assert facts(sentence).get(key) == value

    def test_a_particle_before_a_lower_case_word_ends_the_name(self) -> None:
        assert facts("I work at Acme of course.").get("fact:employer") == "Acme"


class TestRoleBeforeWorkplace:
    @pytest.mark.parametrize(
        ("sentence", "employer"),
        [
            ("I work as a line cook at Fig Tree Bistro.", "Fig Tree Bistro"),
            ("I work as night porter for Hotel Marès.", "Hotel Marès"),
            ("These days I'm the head brewer at Hopworks.", "Hopworks"),
        ],
    )
    def test_the_workplace_after_the_role_is_the_employer(self, sentence: str, employer: str) -> None:
        assert facts(sentence).get("fact:employer") == employer

    def test_work_on_the_side_is_not_the_employer(self) -> None:
        assert "fact:employer" not in facts("I work as a tutor for Kumon on the side.")


class TestOrigin:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("I'm originally from Cork, but I've been in Leeds for years.", "Cork"),
            ("Hi, I'm a nurse from Nairobi, three years in Manchester now.", "Nairobi"),
            ("I'm from Tbilisi originally, I came over for university.", "Tbilisi"),
            ("I grew up in São Luís and moved south at twenty.", "São Luís"),
            ("I was born and raised in Dundee.", "Dundee"),
        ],
    )
    def test_where_the_speaker_is_from_is_the_origin(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:origin") == value

    def test_the_origin_is_not_the_home(self) -> None:
        said = facts("I'm originally from Cork, but I've been in Leeds for years.")
        assert said.get("fact:home") == "Leeds" and said.get("fact:origin") == "Cork"

    @pytest.mark.parametrize(
        "sentence",
        [
            "I'm back from Madrid, the conference was fine.",
            "I'm writing from Porto this week.",
            "My cousin is from Oslo.",
            "She's Danish, from Aarhus.",
            "If I were from Texas I'd like the heat.",
            "I'm a long way from Brisbane.",
        ],
    )
    def test_a_trip_someone_else_or_a_supposition_is_no_origin(self, sentence: str) -> None:
        assert "fact:origin" not in facts(sentence)

    def test_an_origin_restated_in_another_phrasing_reinforces_it(self) -> None:
        known = [fact("fact:origin", "I'm originally from Cork.")]
        said = "I'm a teacher from Cork, so the rain does not bother me."
        found = decide("semantic", "fact:origin", said, known, semantic_value)
        assert (found.action, found.key) == ("reinforce", "fact:origin")


class TestDaysOff:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("My days off are Thursday and Friday this year.", "thursday and friday"),
            ("My days off stay Wednesday and Thursday, luckily.", "wednesday and thursday"),
            ("The clinic shuts Saturday and Sunday, so those are my days off now.", "saturday and sunday"),
            ("About the days off: still Monday and Friday.", "monday and friday"),
            ("My days off have moved to Tuesdays and Thursdays.", "tuesday and thursday"),
        ],
    )
    def test_the_days_off_are_one_fact_said_by_their_days(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:days-off") == value

    def test_a_day_off_said_in_the_generic_shape_is_the_same_one_key(self) -> None:
        assert facts("My day off is Thursday, so I do the shopping then.") == {"fact:days-off": "thursday"}

    def test_someone_elses_days_off_are_not_the_speakers(self) -> None:
        assert "fact:days-off" not in facts("My boss said my days off stay Monday and Tuesday.")

    def test_days_off_restated_in_another_phrasing_reinforce_them(self) -> None:
        known = [fact("fact:days-off", "My days off are Thursday and Friday.")]
        said = "We close Thursday and Friday, so those are my days off."
        found = decide("semantic", "fact:days-off", said, known, semantic_value)
        assert (found.action, found.key) == ("reinforce", "fact:days-off")


class TestSmoking:
    @pytest.mark.parametrize(
        ("sentence", "key", "value"),
        [
            ("I smoke, maybe ten a day, I know.", "fact:smoking", "smoker"),
            ("Big news: I quit smoking in March.", "fact:smoking", "quit smoking"),
            ("I've stopped vaping, finally.", "fact:vaping", "quit vaping"),
            ("I don't smoke any more.", "fact:smoking", "quit smoking"),
        ],
    )
    def test_smoking_and_quitting_are_one_fact(self, sentence: str, key: str, value: str) -> None:
        assert facts(sentence).get(key) == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "My dad smokes a pipe.",
            "He smokes two packs a day.",
            "My sister asked if I still smoke.",
            "I smoke salmon on the weekends.",
        ],
    )
    def test_someone_elses_habit_a_question_or_a_kitchen_is_no_smoking(self, sentence: str) -> None:
        assert "fact:smoking" not in facts(sentence)


class TestHomeByItsKind:
    @pytest.mark.parametrize(
        ("sentence", "value"),
        [
            ("I rent a room in Ealing with two nurses.", "Ealing"),
            ("We share a flat in Gràcia, five of us.", "Gràcia"),
            ("We finally found a two-bedroom in Leith.", "Leith"),
            ("I found a little studio in Neukölln, finally my own place.", "Neukölln"),
        ],
    )
    def test_a_dwelling_rented_or_found_in_a_place_is_the_home(self, sentence: str, value: str) -> None:
        assert facts(sentence).get("fact:home") == value

    @pytest.mark.parametrize(
        "sentence",
        [
            "I found a room in Lyon for the weekend.",
            "I found a great bakery in Soho.",
            "We rented a flat in Rome for a week.",
        ],
    )
    def test_a_stay_or_a_shop_is_no_home(self, sentence: str) -> None:
        assert "fact:home" not in facts(sentence)


def _converse(mem: memoryos.Memory, clock: FakeClock, sessions: list[tuple[int, str]]) -> None:
    """Each (days later, user sentence) its own session, ended and maintained."""
    for number, (days, said) in enumerate(sessions):
        clock.now = clock.now + dt.timedelta(days=days)
        scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
        mem.remember(scope, said, role="user")
        mem.remember(scope, "Noted.", role="assistant")
        mem.end_session(scope)
        mem.maintain()


@pytest.mark.parametrize(
    ("restated", "statuses", "reinforced"),
    [
        ("I'm originally from Cork, as you know.", ["active"], 1),
        ("I'm originally from Galway, actually, not Cork.", ["superseded", "active"], 0),
    ],
)
def test_a_fact_faded_to_retired_is_matched_by_its_subject(
    tmp_path: Path, restated: str, statuses: list[str], reinforced: int
) -> None:
    """A fact unseen for longer than `retired_after_days` decays to retired; stating its subject
    again revives it (REINFORCE) or changes it (UPDATE): one chain under the key, not a second."""
    clock = FakeClock(dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC))
    with memoryos.open(tmp_path / "r.db", clock=clock, heat_threshold=1.0) as mem:
        _converse(
            mem, clock, [(0, "I'm originally from Cork, by the way."), (200, "Any tips for a rainy Sunday?")]
        )
        assert [r.status for r in mem.history(WHOLE, "fact:origin")] == ["retired"]
        _converse(mem, clock, [(1, restated)])
        history = mem.history(WHOLE, "fact:origin")
    assert [r.status for r in history] == statuses
    assert len({r.memory_id for r in history}) == 1 and history[-1].reinforced == reinforced
