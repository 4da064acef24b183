"""Value mentions and change cues (memoryos.policies.mentions, reconcile rules 3 and 4): a later
user turn that mentions a fact's current value restates it, one that retires it changes it, and a
hypothetical, temporary or other person's statement changes nothing. The sentences are our own,
not the scripted corpora's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import ClassVar

import pytest

import memoryos
import receipts
from memoryos.extraction.reconcile import Known, decide
from memoryos.extraction.typed import once_per_statement, provenance
from memoryos.policies import mentions
from memoryos.policies.distill import Distilled, PageView
from memoryos.policies.subjects import profile_facts
from memoryos.testing import FakeClock, FakeLLMServer
from tests.memoryos.store_contract import sqlite_of

WHOLE = memoryos.Scope(user="u", assistant="a")


def fact(key: str, body: str, turn: str = "t0", ref: str | None = None) -> Known:
    return Known(ref or f"{key}@1", key, "semantic", body, (turn,), "profile")


class TestMarks:
    def test_a_table_value_is_marked_by_its_proper_nouns(self) -> None:
        assert mentions.marks("Globex Industries", "I work at Globex Industries.") == (
            ("Globex", "Industries"),
        )

    def test_a_short_lower_case_value_is_marked_by_its_words(self) -> None:
        assert mentions.marks("cycle", "I cycle to work.") == (("cycle",),)

    def test_a_long_lower_case_value_has_no_marks(self) -> None:
        assert mentions.marks("the slow train from the north side of town", "x") == ()

    def test_a_body_is_marked_by_its_names_but_not_its_first_word_or_its_times(self) -> None:
        found = mentions.marks(None, "Lately I sketch in Krita on Sundays. Nothing else comes close.")
        assert found == (("Krita",),)
        assert mentions.marks(None, "So I've moved choir to Fridays, I'm told.") == ()


class TestMentioned:
    def test_a_short_mark_keeps_its_case(self) -> None:
        assert mentions.mentioned("I ran it in R again", [("R",)]) is not None
        assert mentions.mentioned("the r in the word", [("R",)]) is None

    def test_a_possessive_and_a_plural_mention_the_name(self) -> None:
        assert mentions.mentioned("took Miso's bowl to the vet", [("Miso",)]) is not None
        assert mentions.mentioned("more Kritas than ever", [("Krita",)]) is not None

    def test_a_name_of_several_words_by_its_first_word_or_its_initials_alone(self) -> None:
        name = [("Globex", "Industries")]
        assert mentions.mentioned("Globex threw a party", name) is not None
        assert mentions.mentioned("the GI badge came today", name) is not None
        assert mentions.mentioned("I use Power GI daily", name) is None  # part of another name
        assert mentions.mentioned("Industries everywhere", [("New", "Town")]) is None


class TestRetired:
    def test_forward_and_backward_cues_name_the_value_given_up(self) -> None:
        assert mentions.retired("so it's goodbye Krita for me", [("Krita",)], frozenset())
        assert mentions.retired("The old Corolla has been sold, finally", [("Corolla",)], frozenset())
        assert mentions.retired("I stopped using Krita last week", [("Krita",)], frozenset())
        assert mentions.retired("we bought a new Corolla, a hybrid", [("Corolla",)], frozenset())
        assert not mentions.retired("we bought a Corolla for my dad", [("Corolla",)], frozenset())
        assert not mentions.retired("Krita is great and goodbye to the rain", [("Krita",)], frozenset())

    def test_moved_what_to_retires_the_record_holding_the_word(self) -> None:
        words = frozenset({"choir", "friday"})
        assert mentions.retired("I've moved choir to Thursdays", [], words)

    def test_a_hypothetical_a_stay_or_someone_elses_change_retires_nothing(self) -> None:
        marks = [("Krita",)]
        assert not mentions.retired("If I ever stopped using Krita I'd miss it", marks, frozenset())
        assert not mentions.retired("For now it's goodbye Krita until the update", marks, frozenset())
        assert not mentions.retired("my colleague stopped using Krita", marks, frozenset())
        assert not mentions.retired("I'm not saying goodbye Krita", marks, frozenset())


def test_a_retirement_is_read_with_the_sentence_beside_it() -> None:
    def states(sentence: str) -> bool:
        return bool(profile_facts(sentence))

    parts = ["The studio was busy.", "So it's goodbye Krita.", "Everything is drawn in Inkscape now."]
    assert mentions.statements(parts, states) == [
        "The studio was busy.",
        "So it's goodbye Krita. Everything is drawn in Inkscape now.",
    ]
    last = ["I bought a Fairphone.", "The old Pixel has been handed down to my niece."]
    assert mentions.statements(last, states) == [" ".join(last)]
    keyed = ["So it's goodbye Krita.", "I live in Oslo."]  # the neighbour states a subject
    assert mentions.statements(keyed, states) == keyed


class TestDecide:
    known: ClassVar[list[Known]] = [
        fact("fact:employer", "I work at Globex Industries.", "t1"),
        fact("fact:cat", "My cat Miso sleeps all day.", "t2"),
        fact("fact:drawing", "Lately I sketch in Krita on Sundays.", "t3"),
    ]

    def test_a_mention_reinforces_every_fact_it_names_and_adds_nothing(self) -> None:
        out = decide("episodic", None, "Miso sat on my Globex laptop", self.known, turns=("t9",))
        assert out.action == "reinforce" and out.rule == "mention"
        assert {out.match.key if out.match else None, *(k.key for k in out.also)} == {
            "fact:employer",
            "fact:cat",
        }

    def test_a_retirement_updates_the_fact_and_restates_the_others(self) -> None:
        body = "Globex made us switch, so goodbye Krita. I draw in Inkscape now."
        out = decide("taxonomic", "taxonomy:globex", body, self.known, turns=("t9",))
        assert out.action == "update" and out.match is not None and out.match.key == "fact:drawing"
        assert [k.key for k in out.also] == ["fact:employer"]

    def test_its_own_turn_and_an_assistant_restate_nothing(self) -> None:
        assert decide("episodic", None, "Miso purred", self.known, turns=("t2",)).action == "add"
        assert decide("episodic", None, "Miso purred", self.known, user=False, turns=("t9",)).action == "add"

    def test_a_superseded_value_reinforces_nothing(self) -> None:
        # only the current versions are offered: Initech is not a value any live record holds
        assert decide("episodic", None, "I miss Initech's canteen", self.known, turns=("t9",)).action == "add"

    def test_a_new_subject_of_a_known_value_reinforces_it(self) -> None:
        known = [*self.known, fact("fact:favorite-editor", "My favourite editor is Helix.", "t4")]
        out = decide("semantic", "fact:daily-driver", "My daily driver is Helix.", known, turns=("t9",))
        assert out.action == "reinforce" and out.rule == "value"
        assert out.match is not None and out.match.key == "fact:favorite-editor"

    def test_a_fact_of_its_own_is_never_a_mention(self) -> None:
        out = decide("semantic", "fact:home", "I live in Oslo, near Globex.", self.known, turns=("t9",))
        assert out.action == "add" and out.key == "fact:home"


def test_a_named_possession_is_a_fact_and_its_hand_down_updates_it(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    converse(
        db,
        [
            ["Most evenings I game on my trusty Steamdeck, which still runs fine."],
            ["Treated myself and bought a Legion Go. The Steamdeck has been handed down to my nephew."],
        ],
    )
    held = [v for v in histories(db).values() if any("Steamdeck" in r.body for r in v)]
    assert len(held) == 1 and [r.status for r in held[0]] == ["superseded", "active"]
    assert "Legion Go" in held[0][1].body


class TestSubjectPhrasings:
    def test_new_phrasings(self) -> None:
        assert profile_facts("we're officially living in Bergen now") == [("fact:home", "Bergen")]
        assert profile_facts("Today was my first day at Initech!") == [("fact:employer", "Initech")]
        assert profile_facts("I do bookkeeping for Dunder Mifflin") == [("fact:employer", "Dunder Mifflin")]
        assert profile_facts("I cycle to work most days") == [("fact:commute", "cycle")]
        assert profile_facts("I just can't have dairy") == [("fact:diet", "lactose-intolerant")]
        assert profile_facts("I'm coeliac, sadly") == [("fact:diet", "gluten-free")]
        assert profile_facts("Our dog Rex barks") == [("fact:dog", "Rex")]
        assert ("fact:first-language", "Basque") in profile_facts(
            "My Basque is rusty even though it's my first language"
        )

    def test_hearsay_is_not_the_users_fact(self) -> None:
        assert profile_facts("my aunt thinks I'm vegan") == []
        assert profile_facts("someone assumed I'm vegetarian") == []


def test_a_typed_item_wins_over_the_digest_of_its_sentence() -> None:
    digest = Distilled("user_knowledge", "Miso chewed a cable.", ("p@1",), ("t",))
    episode = Distilled(
        "user_knowledge", "Miso chewed a cable.", ("p@1",), ("t",), kind="episodic", keyed=True
    )
    assert once_per_statement([digest, episode]) == [episode]


def converse(db: Path, sessions: list[list[str]]) -> None:
    clock = FakeClock(dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC))
    with memoryos.open(db, clock=clock, heat_threshold=1.0) as mem:
        for number, said in enumerate(sessions):
            clock.now = clock.now + dt.timedelta(days=3)
            scope = memoryos.Scope(user="u", assistant="a", session=f"s{number}")
            for text in said:
                mem.remember(scope, text, role="user")
                mem.remember(scope, "Noted.", role="assistant")
            mem.end_session(scope)
            mem.maintain()


def histories(db: Path) -> dict[str, list[memoryos.Record]]:
    with memoryos.open(db) as mem:
        rows = sqlite_of(mem)._live().execute("SELECT DISTINCT key FROM units WHERE key IS NOT NULL")
        return {key: mem.history(WHOLE, key) for (key,) in rows.fetchall()}


def test_mentions_and_retirements_through_the_public_api(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    converse(
        db,
        [
            ["My cat Miso is ten.", "I use Krita for all my sketches."],
            ["Miso knocked a plant over. Then Miso hid."],  # one turn: one restatement
            ["The studio switched everything, so goodbye Krita. Everything is drawn in Inkscape now."],
            ["If I ever stopped using Inkscape I'd be lost."],
        ],
    )
    found = histories(db)
    cat = found["fact:cat"]
    assert [r.reinforced for r in cat] == [1]  # no second record of Miso, one count per turn
    assert not [k for k, v in found.items() if k != "fact:cat" and any("Miso" in r.body for r in v)]
    drawing = next(v for v in found.values() if any("Krita" in r.body for r in v))
    assert [r.status for r in drawing] == ["superseded", "active"]
    assert "Inkscape" in drawing[1].body
    assert drawing[1].reinforced == 1  # the hypothetical restates Inkscape, changes nothing
    lineage: set[str] = set()  # what the receipts about the new version derive it from
    for line in receipts.read_outbox(db):
        r = line.receipt
        if r is not None and r.get("memoryId") == drawing[1].memory_id and r.get("version") == 2:
            lineage.update(r.get("derivedFrom", []))
    assert drawing[0].ref in lineage


def test_a_models_record_derives_from_the_page_that_says_it() -> None:
    pages = [
        PageView("p1@1", "user", "I work at Globex Industries.", ("t1",)),
        PageView("p2@1", "user", "Globex's canteen is great.", ("t2",)),
    ]
    assert provenance("globex's  canteen is great.", pages) == (("p2@1",), ("t2",))
    assert provenance("The user works at Globex.", pages) == (("p1@1", "p2@1"), ("t1", "t2"))


def test_with_the_fake_model_a_later_turn_of_one_batch_restates_an_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "f.db"
    with FakeLLMServer("normal") as server:
        monkeypatch.setenv("MEMORYOS_LLM_URL", server.url)
        monkeypatch.setenv("MEMORYOS_LLM_MODEL", "fake")
        converse(db, [["I work at Globex Industries.", "Globex's canteen is great today."]])
    found = histories(db)
    holding = [v for v in found.values() if any("Globex" in r.body for r in v)]
    assert len(holding) == 1 and holding[0][-1].reinforced == 1  # one record, restated once
