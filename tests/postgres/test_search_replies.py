"""Replies on PostgreSQL: the turn a scope stored next after a question is read through the same
port (SearchIndex.next_turns) and statement as on SQLite, from the index that migration
0008_scope_turn_order adds, and never from another scope's rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import memoryos
from memoryos.store import postgres, postgres_schema
from memoryos.store.sql_search import next_turns
from memoryos.testing import FakeClock
from tests.pg_server import pg_url

__all__ = ["pg_url"]

ALICE = memoryos.Scope(user="alice", assistant="coder")
BOB = memoryos.Scope(user="bob", assistant="coder")
QUESTION = "Jon: What have you been researching lately?"
ANSWER = "Maria: Adoption agencies, mostly."


def _texts(found: memoryos.Recall) -> list[str]:
    return [h.text for h in found.hits]


def test_the_reply_comes_from_the_callers_scope_past_other_scopes_rows(pg_url: str) -> None:
    with memoryos.open(pg_url, clock=FakeClock()) as mem:
        mem.remember(ALICE, QUESTION, role="assistant")
        mem.remember(BOB, ANSWER, role="user")  # stored next, another role, another scope
        for n in range(30):
            mem.remember(BOB, f"Bob: researching what? part {n}", role="user" if n % 2 else "assistant")
        assert _texts(mem.recall(ALICE, "researching", k=5)) == [QUESTION]
        mem.remember(ALICE, ANSWER, role="user")
        hits = mem.recall(ALICE, "researching", k=5).hits
        assert [h.text for h in hits] == [QUESTION, ANSWER]
        assert hits[1].score == hits[0].score * 0.5


def test_the_next_turn_is_read_from_the_scope_turns_index(pg_url: str) -> None:
    with memoryos.open(pg_url, clock=FakeClock()) as mem:
        mem.remember(ALICE, QUESTION, role="assistant")
        statements: list[tuple[str, Sequence[Any]]] = []

        class Recording:
            def execute(self, sql: str, params: Sequence[Any] = ()) -> list[object]:
                statements.append((sql, params))
                return []

            def executemany(self, sql: str, params: object) -> None:
                raise AssertionError("not used")

        next_turns(Recording(), "alice", "coder", [1, 2])
        [(sql, params)] = statements
        with mem.store._reader() as conn:  # type: ignore[attr-defined]
            conn.execute("SET LOCAL enable_seqscan = off")
            plan = " ".join(str(r[0]) for r in conn.execute(f"EXPLAIN {sql}", params).fetchall())
    assert "units_scope_turns" in plan


def test_an_older_store_gets_the_index_by_its_named_migration(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [name for name, _ in postgres_schema.MIGRATIONS]
    monkeypatch.setattr(
        postgres, "MIGRATIONS", postgres_schema.MIGRATIONS[: names.index("0008_scope_turn_order")]
    )
    clock = FakeClock()
    with memoryos.open(pg_url, clock=clock) as old:
        old.remember(ALICE, QUESTION, role="assistant")
        old.remember(ALICE, ANSWER, role="user")
    monkeypatch.undo()
    with memoryos.open(pg_url, clock=clock) as mem:
        assert _texts(mem.recall(ALICE, "researching", k=5)) == [QUESTION, ANSWER]
        with mem.store._reader() as conn:  # type: ignore[attr-defined]
            applied = {r[0] for r in conn.execute("SELECT name FROM migrations").fetchall()}
            indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes").fetchall()}
    assert "0008_scope_turn_order" in applied and "units_scope_turns" in indexes
