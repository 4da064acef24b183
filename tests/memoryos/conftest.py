from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memoryos


class FakeClock:
    """A clock the test moves; each reading advances it by one millisecond so order is strict."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def mem(db: Path, clock: FakeClock) -> Iterator[memoryos.Memory]:
    with memoryos.open(db, clock=clock) as memory:
        yield memory


@pytest.fixture
def alice() -> memoryos.Scope:
    return memoryos.Scope(user="alice", assistant="coder")


@pytest.fixture
def bob() -> memoryos.Scope:
    return memoryos.Scope(user="bob", assistant="coder")
