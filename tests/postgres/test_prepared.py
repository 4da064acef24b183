"""psycopg's prepared statements in pipeline mode stay in step with the server (postgres_tx.Marked):
a statement that a failed batch skipped, or that a DEALLOCATE ALL owed since a ROLLBACK dropped,
is prepared again instead of failing with InvalidSqlStatementName (the eight-writer CI failure:
"prepared statement "_pg3_63" does not exist"). Both are psycopg 3.3.9's own behaviour; the
connections here are the store's own (prepare_threshold=2)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

import memoryos
from memoryos.store.postgres import PostgresStore
from memoryos.store.postgres_tx import Marked
from receipts import uuid7
from tests.memoryos.store_contract import receipt_draft, unit
from tests.pg_server import pg_url

__all__ = ["pg_url"]

COUNT = "SELECT count(*) + ? FROM units WHERE tier = 'stm'"


@contextmanager
def store_connection(url: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection of the store's pool, its ROLLBACK prepared already: psycopg then never empties
    its cache on a ROLLBACK it is told of (it checks only a statement new to its cache), as on a
    connection that has served a few reads."""
    with memoryos.open(url) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        with store._live_pool().connection() as raw:
            assert raw.prepare_threshold == 2
            for _ in range(3):
                raw.execute("BEGIN")
                raw.execute("ROLLBACK")
            yield raw


def run_twice(conn: Marked, sql: str, *params: Any) -> None:
    for _ in range(2):  # its next run prepares it (prepare_threshold=2)
        conn.execute(sql, params)


def test_a_statement_skipped_by_a_failed_batch_is_prepared_again(pg_url: str) -> None:
    with store_connection(pg_url) as raw:
        conn = Marked(raw)
        conn.begin("BEGIN")
        run_twice(conn, COUNT, 0)
        conn.later("SELECT 1 / (SELECT count(*) FROM units WHERE tier = 'none')")  # fails
        conn.later(COUNT, (1,))  # sent to be prepared, but the server skips it, Parse and all
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.sync()
        raw.execute("ROLLBACK")
        conn.begin("BEGIN")
        assert conn.execute(COUNT, (2,)).fetchone() == (2,)  # not InvalidSqlStatementName
        conn.finish("ROLLBACK")


def test_the_commit_a_lost_seal_skipped_commits_after_the_savepoint(pg_url: str) -> None:
    """The optimistic seal's path (PostgresTransaction.commit): SAVEPOINT, the seal that fails,
    COMMIT skipped with it; ROLLBACK TO SAVEPOINT, then the seal and the COMMIT again."""
    with store_connection(pg_url) as raw:
        conn = Marked(raw)
        raw.execute("CREATE TEMP TABLE seals (seq INT PRIMARY KEY)")
        for _ in range(3):  # ROLLBACK TO SAVEPOINT prepared too: psycopg no longer empties its cache on it
            conn.begin("BEGIN")
            conn.execute("SAVEPOINT receipts")
            conn.execute("ROLLBACK TO SAVEPOINT receipts")
            conn.finish("ROLLBACK")
        for _ in range(2):
            conn.begin("BEGIN")
            conn.finish("COMMIT")
        conn.begin("BEGIN")
        conn.execute("INSERT INTO seals VALUES (1)")
        conn.later("SAVEPOINT receipts")
        with pytest.raises(psycopg.errors.UniqueViolation):  # COMMIT's third run: to be prepared
            conn.finish(("INSERT INTO seals VALUES (?)", (1,)), "COMMIT")
        conn.resume()
        conn.later("ROLLBACK TO SAVEPOINT receipts")
        conn.finish(("INSERT INTO seals VALUES (?)", (2,)), "COMMIT")  # not InvalidSqlStatementName
        assert raw.execute("SELECT count(*) FROM seals").fetchone() == (2,)


def test_executemany_after_a_rollback_to_savepoint_runs_again(pg_url: str) -> None:
    with store_connection(pg_url) as raw:
        conn = Marked(raw)
        raw.execute("CREATE TEMP TABLE rows_many (x INT)")
        conn.begin("BEGIN")
        run_twice(conn, COUNT, 0)
        conn.execute(COUNT, (0,))  # prepared: psycopg's cache is not empty
        conn.execute("SAVEPOINT s")
        conn.execute("ROLLBACK TO SAVEPOINT s")  # psycopg empties its cache, owes a DEALLOCATE ALL
        conn.executemany("INSERT INTO rows_many VALUES (?)", [(1,), (2,)])  # prepared at once
        conn.executemany("INSERT INTO rows_many VALUES (?)", [(3,), (4,)])  # not InvalidSqlStatementName
        assert conn.execute("SELECT count(*) FROM rows_many").fetchone() == (4,)
        conn.finish("COMMIT")


def test_a_psycopg_without_the_parts_the_mends_use_prepares_nothing(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mends read psycopg's private PrepareManager: a psycopg that renamed its parts must not
    break every write with an AttributeError; its connections run unprepared instead."""
    from memoryos.store import postgres_tx

    with memoryos.open(pg_url) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        with store._live_pool().connection() as raw:
            assert postgres_tx.prepares_safely(raw)  # the installed psycopg has them
    monkeypatch.setattr(postgres_tx, "_MANAGER_PARTS", ("_a_part_psycopg_renamed",))
    with memoryos.open(pg_url) as mem:
        scope = memoryos.Scope("u", "a")
        for n in range(6):  # past prepare_threshold, through promotions and a savepoint or two
            mem.remember(scope, f"turn {n} about the release train")
        assert [h.text for h in mem.recall(scope, "release train", k=1).hits]
        store = mem.store
        assert isinstance(store, PostgresStore)
        with store._live_pool().connection() as raw:
            assert raw.prepare_threshold is None


def test_reads_keep_the_prepared_statements_after_a_lost_seal(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lost optimistic seal's ROLLBACK TO SAVEPOINT empties psycopg's cache, ROLLBACK's own entry
    with it: a read ending with ROLLBACK then emptied it again, and so did every read after it (the
    cache never kept ROLLBACK long enough to know it), so every promotion's read threw away what
    the turns before it had prepared. Reads end with COMMIT."""
    from psycopg._preparing import PrepareManager

    emptied: list[bool] = []
    clear = PrepareManager.clear

    def counted(self: PrepareManager) -> bool:
        dropped = clear(self)
        emptied.append(dropped)
        return dropped

    monkeypatch.setattr(PrepareManager, "clear", counted)
    with (
        memoryos.open(pg_url, heat_threshold=1e12) as mem,
        memoryos.open(pg_url, heat_threshold=1e12) as rival,
    ):
        store = mem.store
        assert isinstance(store, PostgresStore)
        scope = memoryos.Scope("u", "a")
        for n in range(20):  # statements prepared, promotions (and their reads) among them
            mem.remember(scope, f"turn {n} before the lost seal")
        with store.write("store") as tx:
            tx.insert_unit(unit(body="the writer's turn", user_scope="x" * 32, assistant_scope="y" * 32))
            rival.remember(memoryos.Scope("v", "a"), "a rival commits first")  # not in flight at the read
            tx.emit(receipt_draft(uuid7()))
        assert store.seal_conflicts == 1
        emptied.clear()
        for n in range(3):  # statements prepared again before the next read (no promotion)
            mem.remember(memoryos.Scope("w", "a"), f"turn {n} of another scope")
        for n in range(30):  # four promotions, each with its read
            mem.remember(scope, f"turn {n} after the lost seal")
    assert not any(emptied)
