"""The PostgreSQL backend's own guarantees: its schema and migrations, how driver errors reach the
caller, where the receipt key lives, and what an erasure leaves behind."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import psycopg
import pytest

import memoryos
from memoryos.errors import StoreBusy, StoreError, StoreVersionError
from memoryos.store import postgres_schema, schema
from memoryos.store.postgres import PostgresStore
from receipts import uuid7
from tests.memoryos.store_contract import ASSISTANT, USER, receipt_draft, unit
from tests.pg_server import pg_url

__all__ = ["pg_url"]
SCOPE = memoryos.Scope(user="u", assistant="a")


def _store(url: str, **extra: object) -> PostgresStore:
    return PostgresStore(
        url,
        durability="full",
        busy_timeout_ms=200,
        clock=lambda: datetime.now(UTC),
        **extra,  # type: ignore[arg-type]
    )


def test_the_migrations_are_the_sqlite_ones_by_name() -> None:
    assert [n for n, _ in postgres_schema.MIGRATIONS] == [n for n, _ in schema.MIGRATIONS]


def test_opening_records_every_migration_once(pg_url: str) -> None:
    _store(pg_url).close()
    _store(pg_url).close()
    with psycopg.connect(pg_url) as conn:
        applied = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert applied == [n for n, _ in schema.MIGRATIONS] and version == (str(schema.SCHEMA_VERSION),)


def test_processes_opening_a_new_store_at_once_all_succeed(pg_url: str) -> None:
    opener = "import sys, memoryos\nwith memoryos.open(sys.argv[1]) as mem: print(mem.store_id)"
    runs = [
        subprocess.Popen([sys.executable, "-c", opener, pg_url], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    ids = {run.communicate(timeout=120)[0].strip() for run in runs}
    assert all(run.returncode == 0 for run in runs) and len(ids) == 1  # one store, one identity


def test_a_store_written_by_a_newer_version_is_refused(pg_url: str) -> None:
    _store(pg_url).close()
    with psycopg.connect(pg_url) as conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    with pytest.raises(StoreVersionError, match="newer memoryos"):
        memoryos.open(pg_url)


def test_an_unreachable_server_is_a_store_error_saying_what_to_check() -> None:
    with pytest.raises(StoreError, match="check the URL") as caught:
        _store("postgresql://nobody:secret@127.0.0.1:1/none", connect_timeout_s=1.0)
    assert "secret" not in str(caught.value) and "nobody" not in str(caught.value)


def test_a_row_locked_elsewhere_is_store_busy_after_the_lock_timeout(pg_url: str) -> None:
    store = _store(pg_url)
    store.bind_receipts("chain", b"k" * 32)
    turn = unit()
    with store.write("store") as tx:
        tx.insert_unit(turn)
    blocker = psycopg.connect(pg_url)
    blocker.execute("SELECT 1 FROM units FOR UPDATE")  # holds the row until rollback
    try:
        with pytest.raises(StoreBusy, match="retry later"), store.write("store") as tx:
            tx.release_stm(turn.user_scope, turn.assistant_scope, [turn.memory_id])
    finally:
        blocker.rollback()
        blocker.close()
    with store.write("store") as tx:  # usable again once the lock is gone
        assert tx.release_stm(turn.user_scope, turn.assistant_scope, [turn.memory_id]) == {turn.memory_id}
    store.close()


def test_a_constraint_violation_names_no_stored_value(pg_url: str) -> None:
    store = _store(pg_url)
    same = unit(body="secret body", key="secret-key")
    with pytest.raises(StoreError) as caught, store.write("store") as tx:
        tx.insert_unit(same)
        tx.insert_unit(same)
    assert "UniqueViolation" in str(caught.value) and "secret" not in str(caught.value)
    store.close()


def test_the_receipt_key_lives_in_the_store_readable_by_its_owner_only(pg_url: str) -> None:
    with memoryos.open(pg_url) as mem:
        key = mem.key
    with memoryos.open(pg_url) as again:
        assert again.key == key and len(key) == 32
    with psycopg.connect(pg_url) as conn:
        grants = conn.execute(
            "SELECT count(*) FROM information_schema.role_table_grants"
            " WHERE table_name = 'receipt_key' AND grantee = 'PUBLIC'"
        ).fetchone()
        conn.execute("DELETE FROM receipt_key")
    assert grants == (0,)
    with pytest.raises(StoreError, match=r"receipt key .* is missing"):
        memoryos.open(pg_url)


def test_forget_erases_from_tables_and_index_and_vacuums(pg_url: str) -> None:
    with memoryos.open(pg_url) as mem:
        mem.put(SCOPE, "pet", "a tortoise named zanzibar")
        forgotten = mem.forget(SCOPE, "pet")
        assert not forgotten.erasure_pending
        assert mem.recall(SCOPE, "zanzibar tortoise").hits == []
    with psycopg.connect(pg_url) as conn:
        bodies = conn.execute("SELECT count(*) FROM units WHERE body LIKE '%zanzibar%'").fetchone()
        postings = conn.execute("SELECT count(*) FROM search_postings WHERE term LIKE 'zanzibar%'").fetchone()
        vacuumed = conn.execute(
            "SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'units'"
        ).fetchone()
    assert bodies == (0,) and postings == (0,) and vacuumed == (True,)


def test_pooled_connections_killed_between_transactions_are_replaced_not_reported(pg_url: str) -> None:
    store = _store(pg_url)
    store.bind_receipts("chain", b"k" * 32)
    with store.write("store") as tx:
        tx.insert_unit(unit())
    with psycopg.connect(pg_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = 'memoryos'"
        ).fetchone()
    assert killed is not None and killed[0] >= 1
    with store.write("store") as tx:  # the broken connection is dropped and BEGIN tried again
        tx.insert_unit(unit())
        tx.emit(receipt_draft(uuid7()))
    with store.read() as tx:
        assert tx.count_stm(USER, ASSISTANT) == 2 and tx.outbox_head() == 1
    store.close()


def test_a_connection_killed_inside_a_transaction_is_a_store_error_and_nothing_is_kept(pg_url: str) -> None:
    store = _store(pg_url)
    store.bind_receipts("chain", b"k" * 32)
    with pytest.raises(StoreError), store.write("store") as tx:
        tx.insert_unit(unit())
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = 'memoryos'"
                " AND state = 'idle in transaction'"
            )
        tx.insert_unit(unit())
    with store.read() as tx:
        assert tx.count_stm(USER, ASSISTANT) == 0
    store.close()
