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
