"""The PostgreSQL backend passes the same contract suite as SQLite (tests/memoryos/store_contract.py),
on a fresh database per test (tests/pg_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from memoryos.store.postgres import PostgresStore
from tests.memoryos.bounded_store_contract import BoundedStoreContract
from tests.memoryos.store_contract import StoreContract
from tests.pg_server import pg_url

__all__ = ["pg_url"]


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStore]:
    backend = PostgresStore(pg_url, durability="full", busy_timeout_ms=1000, clock=lambda: datetime.now(UTC))
    backend.bind_receipts("chain-1", b"k" * 32)
    yield backend
    backend.close()


class TestPostgresStore(StoreContract):
    pass


class TestPostgresBoundedQueries(BoundedStoreContract):
    pass
