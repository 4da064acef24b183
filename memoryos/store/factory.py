"""Which backend a store location names: a `postgresql://` (or `postgres://`) URL, else a file."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from memoryos.errors import ConfigError
from memoryos.store.base import Store

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | os.PathLike[str]) -> bool:
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def store_location(location: str | os.PathLike[str]) -> Path | str:
    """A URL as given (a Path would fold its `//`), anything else as a file path."""
    return location if is_url(location) else Path(location)  # type: ignore[return-value]


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
