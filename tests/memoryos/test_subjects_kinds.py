"""Subjects said without "my X is" (issue 15, a third conversation's misses): allergies, dated
events, a work shift, a car by its model, the usual drink, a move by its steps, the language being
learned, a pet named by its breed; and sentences cut after an abbreviation. Own sentences, not the
held-out corpora's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.extraction.handlers import semantic_value, statements_of
from memoryos.extraction.reconcile import Known, decide
from memoryos.policies import mentions
from memoryos.policies.distill import PageView
from memoryos.policies.subjects import profile_facts
from memoryos.testing import FakeClock, FakeLLMServer
from tests.memoryos.store_contract import sqlite_of
from tests.memoryos.test_extraction_phrasings import WHOLE, converse


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Quick note: I'm severely allergic to shellfish.", ("fact:allergy-shellfish", "shellfish")),
        ("I have a latex allergy, so no gloves.", ("fact:allergy-latex", "latex")),
        ("Heads up, my bar exam is on July 29.", ("fact:exam-date", "jul 29")),
        ("The interview got pushed to 3 June.", ("fact:interview-date", "jun 3")),
        ("I'm on night shift for the foreseeable future.", ("fact:shift", "night shift")),
        ("Reminder that I drive a Toyota Corolla.", ("fact:car", "Corolla")),
        ("Our trusty Subaru Outback needs tyres.", ("fact:car", "Outback")),
        ("I usually get a flat white before first thing meetings.", ("fact:drink", "flat white")),
        ("I've switched to matcha, coffee was wrecking me.", ("fact:drink", "matcha")),
        ("We're finally unpacking boxes in Eugene, send snacks.", ("fact:home", "Eugene")),
        ("We closed on the house in Boise yesterday!", ("fact:home", "Boise")),
        ("I'm learning Korean for our trip.", ("fact:learning-language", "Korean")),
        ("Pickles keeps chewing cables, she's our tabby.", ("fact:cat", "Pickles")),
        ("After work, Rufus gets a walk, he's my old labrador.", ("fact:dog", "Rufus")),
        ("Please give me replies as numbered lists.", ("fact:reply-format", "numbered lists")),
        ("Could you write the summaries in bullet points?", ("fact:reply-format", "bullet points")),
        ("Wednesday and Friday mornings are swimming.", ("fact:swimming-schedule", "wednesday and friday")),
        ("I've shifted running to Saturdays.", ("fact:running-schedule", "saturday")),
        (
            "Skipped my Thursday knitting circle, but my cycling club rides Sunday.",
            ("fact:cycling-group", "cycling club"),
        ),
    ],
)
def test_a_kind_of_subject_is_read_with_its_value(sentence: str, fact: tuple[str, str]) -> None:
    assert fact in profile_facts(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm not allergic to peanuts.",
        "The pharmacy says I'm allergic to sulfa.",
        "My son's exam is on May 2.",
        "I'm covering two night shifts for Priya.",
        "I picked up extra day shift hours.",
        "My brother thinks I should get a Honda Accord.",
        "I love Thai food and Italian wine.",
        "Keep it short, I'm in a hurry.",
    ],
)
def test_what_is_not_the_users_fact_is_not_read(sentence: str) -> None:
    keys = [key for key, _ in profile_facts(sentence)]
    assert not any(k.startswith(("fact:allergy", "fact:exam", "fact:shift", "fact:car")) for k in keys), keys
    assert "fact:learning-language" not in keys and "fact:reply-format" not in keys


def test_every_named_relation_of_a_sentence_is_a_fact() -> None:
    facts = dict(profile_facts("We're in Reno with my wife Dana and our son Theo."))
    # one has one wife at a time, and may have several sons: a son is keyed by his name too
    assert (facts.get("fact:wife"), facts.get("fact:son-theo")) == ("Dana", "Theo")


def test_a_second_allergy_adds_beside_the_first() -> None:
    facts = profile_facts("I'm allergic to penicillin and I have a pollen allergy.")
    allergies = [k for k, _ in facts if k.startswith("fact:allergy")]
    assert allergies == ["fact:allergy-penicillin", "fact:allergy-pollen"]


def test_day_shift_is_a_change_from_night_shift_not_a_restatement() -> None:
    known = [Known("r1", "fact:shift", "semantic", "I work night shift.")]
    outcome = decide("semantic", "fact:shift", "I'm on day shift.", known, semantic_value)
    assert outcome.action == "update"


def test_a_trade_retires_the_model_it_gives_up() -> None:
    marks = mentions.marks("Corolla", "Reminder that I drive a Toyota Corolla.")
    words = frozenset({"corolla"})
    assert mentions.retired("We traded in the Corolla for a Prius.", marks, words)
    assert not mentions.retired("My dad wants me to trade the Corolla for a truck.", marks, words)


def test_a_sentence_cut_after_an_abbreviation_is_rejoined() -> None:
    parts = ["I'm a nurse at St.", "Luke's in Boise.", "Dr.", "me later."]
    assert mentions.rejoin_abbreviations(parts) == ["I'm a nurse at St. Luke's in Boise.", "Dr.", "me later."]
    page = PageView("p1", "user", "I work at St. Vincent's now. It's closer.", ("s1",))
    assert statements_of(page)[0] == "I work at St. Vincent's now."


def test_a_shift_change_and_a_trade_are_updates_with_history(tmp_path: Path) -> None:
    sessions = [
        ["I'm on night shift at the warehouse.", "I do school runs in my old Toyota Corolla."],
        ["Back on night shift again, ugh.", "The Corolla made a weird noise today."],
        ["Great news, I'm on day shift from now on.", "We traded in the Corolla for a Prius."],
    ]
    with converse(tmp_path / "k.db", sessions) as mem:
        shift = mem.history(WHOLE, "fact:shift")
        assert [r.status for r in shift] == ["superseded", "active"]
        assert shift[0].reinforced == 1 and "day shift" in shift[-1].body
        car = mem.history(WHOLE, "fact:car")
        assert [r.status for r in car] == ["superseded", "active"]
        assert car[0].reinforced == 1 and "Prius" in car[-1].body


def test_the_assistants_words_alone_make_no_record_about_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC))
    with FakeLLMServer("normal") as server:  # it echoes the pages it is shown, the assistant's too
        monkeypatch.setenv("MEMORYOS_LLM_URL", server.url)
        monkeypatch.setenv("MEMORYOS_LLM_MODEL", "fake")
        with memoryos.open(tmp_path / "a.db", clock=clock, heat_threshold=1.0) as mem:
            scope = memoryos.Scope(user="u", assistant="a", session="s1")
            mem.remember(scope, "I work at Globex Corporation.", role="user")
            mem.remember(scope, "Congratulations on the new job at Initech! Enjoy Zurich.", role="assistant")
            mem.end_session(scope)
            mem.maintain()
            bodies = [
                body
                for (body,) in sqlite_of(mem)._live().execute("SELECT body FROM units WHERE tier = 'lpm'")
            ]
    assert any("Globex" in body for body in bodies)
    assert not any("Initech" in body for body in bodies), bodies
