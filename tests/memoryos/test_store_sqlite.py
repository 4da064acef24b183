from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memoryos.store.sqlite import SQLiteStore
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
