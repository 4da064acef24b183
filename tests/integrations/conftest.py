from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import memoryos
from memoryos.testing import FakeClock


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mem(db: Path, clock: FakeClock) -> Iterator[memoryos.Memory]:
    with memoryos.open(db, clock=clock) as memory:
        yield memory


def file_bytes(db: Path) -> bytes:
    """The store file and its WAL: erased content must be gone from both."""
    return b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
