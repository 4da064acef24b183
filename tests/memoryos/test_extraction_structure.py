"""Reconciliation of the structural families through the public API (remember, end_session,
maintain, history): a change read by sentence shape is an UPDATE with history, a passing mention
anywhere in a user's turn is a REINFORCE, a statement of one subject retires another it names, and
a supposition, someone else's move or a one-off changes nothing. The conversation is our own."""

from __future__ import annotations

from pathlib import Path

import memoryos
from memoryos.extraction.handlers import Restatement
from memoryos.extraction.typed import restatements
from memoryos.policies.distill import Distilled, PageView
from tests.memoryos.test_extraction_mentions import converse, histories


def holding(found: dict[str, list[memoryos.Record]], word: str) -> list[str]:
    return [key for key, versions in found.items() if any(word in r.body for r in versions)]


def test_every_user_sentence_no_item_holds_is_read_for_mentions() -> None:
    pages = [
        PageView("p1@1", "user", "I work at Globex. Globex's canteen is great. What a week!", ("t1",)),
        PageView("p2@1", "assistant", "Globex sounds fun.", ("t2",)),
    ]
    items = [Distilled("profile", "I work at Globex.", ("p1@1",), ("t1",), kind="semantic", keyed=True)]
    found = restatements(pages, items)
    assert [r.body for r in found] == ["Globex's canteen is great.", "What a week!"]
    assert all(isinstance(r, Restatement) and not r.keyed for r in found)  # never written as records


def test_structural_changes_are_updates_and_mentions_reinforce(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    converse(
        db,
        [
            [
                "I live in Dayton with my husband Arlo.",
                "I volunteer at the Maple Street Shelter on Fridays.",
                "I drive a Subaru Outback, nothing fancy.",
                "Pottery is on Mondays.",
            ],
            [
                # one long turn: the digest keeps only some of its sentences, the mention is in the last
                "It rained all week and the gutters overflowed twice, which was a whole saga with the "
                "landlord and two plumbers, three buckets, a wet carpet and a ruined rug in the hallway. "
                "The plumbers came back on Tuesday with a pump, the landlord paid for the carpet and the "
                "rug, and the gutters were cleared by the plumbers again on Wednesday. "
                "Anyway, the shelter had a bake sale that went really well. Arlo was happy.",
                "My neighbour Ruth moved to Tampa.",  # someone else's move
                "If we ever moved to Denver I'd miss the river.",  # a supposition
            ],
            [
                "Big change: we've moved into a condo in Galveston to be near our daughter.",
                "We sold the Subaru, so I walk everywhere now.",  # states the commute, retires the car
                "Pottery moved to Thursdays.",
            ],
        ],
    )
    found = histories(db)
    home = found["fact:home"]
    assert [r.status for r in home] == ["superseded", "active"] and "Galveston" in home[1].body
    assert not [k for k in holding(found, "Tampa") + holding(found, "Denver") if k == "fact:home"]
    pottery = found["fact:pottery-schedule"]
    assert [r.status for r in pottery] == ["superseded", "active"] and "Thursdays" in pottery[1].body
    car = found["fact:car"]
    assert [r.status for r in car] == ["superseded", "active"] and "sold" in car[1].body
    assert found["fact:husband"][-1].reinforced == 1  # "Arlo was happy.", past what the digest keeps
    shelter = found["fact:volunteer-place"]
    assert len(shelter) == 1 and shelter[0].reinforced == 1  # "the shelter had a bake sale"


def test_a_statement_with_a_subject_retires_no_record_by_a_moved_word() -> None:
    from memoryos.extraction.reconcile import Known, mention_outcome

    choir = Known(
        "c@1", "fact:sing-place", "semantic", "I sing with the choir at Grace Church.", ("t1",), "profile"
    )
    said = "I've moved choir to Thursdays."
    moved = mention_outcome(said, [choir], ("t2",))
    assert moved is not None and moved.action == "update"  # a subject-less "moved X to"
    # the schedule's own statement: the choir is restated, not given up
    kept = mention_outcome(said, [choir], ("t2",), by_word=False)
    assert kept is not None and kept.action == "reinforce"
