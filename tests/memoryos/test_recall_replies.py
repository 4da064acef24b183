"""Replies: the answer that follows a matching question is recalled, though it shares no word with
the query ("What have you been researching?" -> "Adoption agencies, mostly."), read from the
caller's own scope through an index of its turns (migration 0008_scope_turn_order)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import memoryos
from memoryos.retrieval.replies import REPLY_SHARE
from memoryos.store.schema import MIGRATIONS
from memoryos.store.sql_search import next_turns
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
        assert hits[1].score == hits[0].score * REPLY_SHARE == hits[0].score * 0.5
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
        found = mem.recall(alice, "researching", k=5)
        assert [h.tier for h in found.hits if h.text == ANSWER] == ["mtm"]  # the page holding it

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

    def test_another_sessions_turn_in_between_is_not_its_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        first = memoryos.Scope(alice.user, alice.assistant, session="s1")
        second = memoryos.Scope(alice.user, alice.assistant, session="s2")
        mem.remember(first, QUESTION, role="assistant")
        mem.remember(second, "Maria: the cat knocked a vase over.", role="user")
        mem.remember(first, ANSWER, role="user")
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION]

    def test_a_turn_beyond_the_window_is_not_its_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        clock.advance(minutes=11)
        mem.remember(alice, ANSWER, role="user")
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION]

    def test_a_turn_within_the_window_is_its_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        clock.advance(minutes=9)
        mem.remember(alice, ANSWER, role="user")
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION, ANSWER]

    def test_another_scopes_answer_is_never_the_reply(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        mem.remember(bob, ANSWER, role="user")  # stored next, by another role, but in bob's scope
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION]
        assert _texts(mem.recall(bob, "researching", k=5)) == []

    def test_other_scopes_rows_in_between_change_nothing(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        for n in range(40):
            role = "user" if n % 2 else "assistant"
            mem.remember(bob, f"Bob: researching what? Tell me, part {n}", role=role)
        mem.remember(alice, ANSWER, role="user")
        hits = mem.recall(alice, "researching", k=5).hits
        assert [h.text for h in hits] == [QUESTION, ANSWER]

    def test_a_reply_not_yet_valid_at_as_of_is_not_returned(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        between = clock.advance(seconds=30)
        clock.advance(minutes=2)
        mem.remember(alice, ANSWER, role="user")
        assert _texts(mem.recall(alice, "researching", k=5, as_of=between)) == [QUESTION]
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION, ANSWER]

    def test_a_forgotten_reply_is_not_returned(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        answer = mem.remember(alice, ANSWER, role="user")
        mem.forget(alice, answer.memory_id)
        assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION]


def _plan(conn: sqlite3.Connection) -> str:
    sql: list[tuple[str, Sequence[Any]]] = []

    class Recording:
        def execute(self, statement: str, params: Sequence[Any] = ()) -> list[object]:
            sql.append((statement, params))
            return []

        def executemany(self, statement: str, params: object) -> None:
            raise AssertionError("not used")

    next_turns(Recording(), "alice", "coder", [1, 2])
    [(statement, params)] = sql
    rows = conn.execute(f"EXPLAIN QUERY PLAN {statement}", params).fetchall()
    return " ".join(str(r[-1]) for r in rows)


class TestTheIndexedRead:
    def test_the_next_turn_is_one_seek_of_the_scope_turns_index(
        self, mem: memoryos.Memory, db: Path, alice: memoryos.Scope
    ) -> None:
        mem.remember(alice, QUESTION, role="assistant")
        with sqlite3.connect(db) as conn:
            plan = _plan(conn)
        assert "units_scope_turns" in plan and "rowid>?" in plan.replace(" ", "")

    def test_an_older_store_gets_the_index_by_its_named_migration(self, tmp_path: Path) -> None:
        db = tmp_path / "old.db"
        conn = sqlite3.connect(db)
        conn.executescript(MIGRATIONS[0][1])  # the store as the first release wrote it
        conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
        conn.execute("INSERT INTO migrations VALUES (?, 0)", (MIGRATIONS[0][0],))
        conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
        conn.commit()
        conn.close()
        alice = memoryos.Scope(user="alice", assistant="coder")
        with memoryos.open(db, clock=FakeClock()) as mem:
            mem.remember(alice, QUESTION, role="assistant")
            mem.remember(alice, ANSWER, role="user")
            assert _texts(mem.recall(alice, "researching", k=5)) == [QUESTION, ANSWER]
        with sqlite3.connect(db) as conn:
            applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
            indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "0008_scope_turn_order" in applied and "units_scope_turns" in indexes
