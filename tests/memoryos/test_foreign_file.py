"""A file memoryos did not write is refused with StoreVersionError, and left as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import memoryos
from memoryos.errors import StoreVersionError


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_another_programs_sqlite_database_is_not_adopted(tmp_path: Path) -> None:
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(StoreVersionError, match="not a memoryos store"):
        memoryos.open(path)
    assert _tables(path) == {"t"}  # nothing of memoryos's was added


def test_a_schema_version_that_is_no_number_is_a_damaged_store(tmp_path: Path) -> None:
    path = tmp_path / "ours.db"
    memoryos.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")
    with pytest.raises(StoreVersionError, match="damaged"):
        memoryos.open(path)


def test_an_empty_sqlite_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    with memoryos.open(path) as mem:
        mem.remember(memoryos.Scope(user="u", assistant="a"), "hello")
    assert "migrations" in _tables(path)
