from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import memoryos
from memoryos.testing import FakeClock


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
