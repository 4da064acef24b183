from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memoryos.store.sqlite import SQLiteStore
from tests.memoryos.bounded_store_contract import BoundedStoreContract
from tests.memoryos.store_contract import StoreContract


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    backend = SQLiteStore(
        tmp_path / "s.db", durability="full", busy_timeout_ms=1000, clock=lambda: datetime.now(UTC)
    )
    backend.bind_receipts("chain-1", b"k" * 32)
    yield backend
    backend.close()


class TestSQLiteStore(StoreContract):
    pass


class TestSQLiteBoundedQueries(BoundedStoreContract):
    pass


def test_a_locked_store_is_retried_with_backoff_then_reported_busy(tmp_path: Path) -> None:
    import sqlite3

    from memoryos.errors import StoreBusy

    naps: list[float] = []
    backend = SQLiteStore(
        tmp_path / "s.db",
        durability="full",
        busy_timeout_ms=1,
        clock=lambda: datetime.now(UTC),
        sleep=naps.append,
        attempts=4,
    )
    blocker = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusy, match="retry later"), backend.write("store"):
            pass
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert len(naps) == 3 and naps == sorted(naps)
    with backend.write("store"):  # usable again once the lock is gone
        pass
    backend.close()


def test_a_store_made_at_an_older_schema_is_upgraded_by_named_migrations(tmp_path: Path) -> None:
    import sqlite3

    import memoryos
    from memoryos.store.schema import MIGRATIONS, SCHEMA_VERSION

    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(MIGRATIONS[0][1])  # the store as the first release wrote it
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
    conn.execute("INSERT INTO migrations VALUES (?, 0)", (MIGRATIONS[0][0],))
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.commit()
    conn.close()
    with memoryos.open(db) as mem:
        mem.remember(memoryos.Scope(user="u", assistant="a"), "after the upgrade")
    conn = sqlite3.connect(db)
    applied = [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY name")]
    version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    conn.close()
    assert applied == [name for name, _ in MIGRATIONS] and int(version) == SCHEMA_VERSION
