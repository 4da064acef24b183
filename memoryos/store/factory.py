"""The backend a store location names (memoryos/store/location.py): PostgreSQL for a URL, else SQLite."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from memoryos.errors import ConfigError
from memoryos.store.base import Store
from memoryos.store.location import is_url, store_location

__all__ = ["open_store", "store_location"]


def open_store(
    location: Path | str, *, durability: str, busy_timeout_ms: int, clock: Callable[[], datetime]
) -> Store:
    if is_url(location):
        try:
            from memoryos.store.postgres import PostgresStore
        except ImportError:
            raise ConfigError(
                "a postgresql:// store needs psycopg 3: pip install 'memoryos[postgres]'"
            ) from None
        return PostgresStore(
            str(location), durability=durability, busy_timeout_ms=busy_timeout_ms, clock=clock
        )
    from memoryos.store.sqlite import SQLiteStore

    return SQLiteStore(location, durability=durability, busy_timeout_ms=busy_timeout_ms, clock=clock)
