"""Reconciliation without a model on small conversations of our own, one per phrasing family:
a fact said several ways is one subject key; a restatement in other words is a REINFORCE, a new
value an UPDATE with history, and a sentence that is a fact is not also an episode of its own key.
(Written before the scripted corpus of bench/corpora/reconciliation.json was measured again.)"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memoryos
from memoryos.extraction.handlers import profile_fact, semantic_subject
from memoryos.extraction.reconcile import content_words, same_value
from memoryos.policies.subjects import normal_subject
from memoryos.testing import FakeClock
from tests.memoryos.store_contract import sqlite_of

WHOLE = memoryos.Scope(user="u", assistant="a")


def converse(db: Path, sessions: list[list[str]]) -> memoryos.Memory:
    clock = FakeClock(dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC))
    mem = memoryos.open(db, clock=clock, heat_threshold=1.0)
    for number, said in enumerate(sessions):
        clock.now = clock.now + dt.timedelta(days=2)
        scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
        for text in said:
            mem.remember(scope, text, role="user")
            mem.remember(scope, "Noted.", role="assistant")
        mem.end_session(scope)
        mem.maintain()
    return mem


FAMILIES = {
    "fact:home": (
        ["I live in Denver."],
        ["Reminder: I'm based in Denver."],
        ["We moved to Austin last month."],
        ["My home is Austin these days."],
        "austin",
    ),
    "fact:employer": (
        ["I work at Globex Corporation."],
        ["Still working for Globex Corporation."],
        ["I just joined Initech."],
        ["I'm employed by Initech now."],
        "initech",
    ),
    "fact:home-airport": (
        ["My home airport is DEN."],
        ["I usually fly out of DEN."],
        ["AUS is my home airport now."],
        ["My usual airport is AUS."],
        "aus",
    ),
    "fact:diet": (
        ["I'm vegetarian."],
        ["I am still vegetarian."],
        ["I've gone vegan."],
        ["I'm vegan."],
        "vegan",
    ),
    "fact:name": (
        ["My name is Priya Shah."],
        ["Call me Priya Shah."],
        ["My name is Priya Raman now."],
        ["I go by Priya Raman."],
        "raman",
    ),
    "fact:first-language": (
        ["I'm a native Tamil speaker."],
        ["Tamil is my first language, by the way."],
        ["Actually, my first language is Telugu."],
        ["I grew up speaking Telugu."],
        "telugu",
    ),
    "fact:favorite-editor": (
        ["My favourite editor is Vim."],
        ["My favorite editor is still Vim."],
        ["My favourite editor is now Helix."],
        ["My favorite editor is Helix."],
        "helix",
    ),
}


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_a_fact_said_four_ways_is_add_reinforce_update_reinforce_under_one_key(
    tmp_path: Path, key: str
) -> None:
    *sessions, final = FAMILIES[key]
    with converse(tmp_path / "p.db", list(sessions)) as mem:
        versions = mem.history(WHOLE, key)
        assert [r.status for r in versions] == ["superseded", "active"]
        assert [r.reinforced for r in versions] == [1, 1]  # each restatement counted once, no copy
        assert final in versions[-1].body.lower()
        rows = (
            sqlite_of(mem)
            ._live()
            .execute(
                "SELECT key, body FROM units WHERE tier = 'lpm' AND key IS NOT NULL AND status = 'active'"
            )
        )
        others = [k for k, body in rows if k != key and final in body.lower()]
        assert others == []  # no second active record of the statement (e.g. as an episode)


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("I live in Denver.", "fact:home"),
        ("My hometown is Denver.", "fact:home"),
        ("We relocated to Lisbon.", "fact:home"),
        ("My current employer is Initech.", "fact:employer"),
        ("My job is at Initech.", "fact:employer"),
        ("I took a job at Initech.", "fact:employer"),
        ("My mother tongue is Tamil.", "fact:first-language"),
        ("My favourite colour is teal.", "fact:favorite-color"),
        ("Denver is my hometown now.", "fact:home"),
        ("I'm still with Globex, just remote.", "fact:employer"),
        ("I'm still a designer at Globex.", "fact:employer"),
        ("I'll be flying out of DEN as usual.", "fact:home-airport"),
        ("I'm a native Tamil speaker.", "fact:first-language"),
        ("I grew up speaking Tamil.", "fact:first-language"),
        ("I've lived in Denver for years.", "fact:home"),
        ("Can you find a sitter for my dog Biscuit?", "fact:dog"),
        ("We write the API in Go, by the way, which is my favourite language.", "fact:favorite-language"),
    ],
)
def test_phrasings_of_one_subject_share_its_key(sentence: str, key: str) -> None:
    assert semantic_subject(sentence) == key


def test_a_relative_clause_states_the_value_before_it() -> None:
    assert profile_fact("It is all Go, by the way, which is my favourite language.") == (
        "fact:favorite-language",
        "Go",
    )


def test_subject_normalisation_leaves_other_keys_alone() -> None:
    assert normal_subject("fact:staging-box") == "fact:staging-box"
    assert normal_subject("how:release") == "how:release"
    assert normal_subject("fact:new") == "fact:new"  # a modifier alone is still the subject


def test_values_are_compared_stemmed_by_inclusion_and_negation() -> None:
    assert same_value(content_words("Boston Logan"), content_words("Logan"))
    assert same_value(content_words("vegans"), content_words("vegan"))
    assert not same_value(content_words("not vegetarian"), content_words("vegetarian"))
    assert not same_value(content_words("Austin"), content_words("Denver"))
    assert same_value(content_words("Austin these days"), content_words("Austin"))
