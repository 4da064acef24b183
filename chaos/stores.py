"""Where a trial's store lives: a SQLite file in the trial's directory (the default), or a database of
its own on a PostgreSQL server (`python -m chaos run --db postgresql://…`: the URL of a database the
harness may create databases from).

The checks read a PostgreSQL store through their own psycopg connection in a read-only
transaction, never through memoryos, as they read a SQLite file through their own sqlite3
connection: a bug in memoryos's readers must not hide a bug in its writers.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from receipts.jsonl import Line, parse_line

SCHEMES = ("postgresql", "postgres")


def is_url(store: str | Path) -> bool:
    return isinstance(store, str) and urlsplit(store).scheme in SCHEMES


def new_store(workdir: Path, server: str | None) -> str:
    """The store of one trial: a file path, or the URL of a new, empty database on `server`."""
    if server is None:
        return str(workdir / "store.db")
    import psycopg

    name = f"chaos_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(server)._replace(path="/" + name))


def drop_store(store: str, server: str | None) -> None:
    if server is None or not is_url(store):
        return
    import psycopg

    name = urlsplit(store).path.lstrip("/")
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def workdir_of(store: str, fallback: Path) -> Path:
    return fallback if is_url(store) else Path(store).parent


@contextmanager
def pg_reader(url: str) -> Iterator[Any]:
    """A connection of our own, in a read-only transaction (one snapshot for everything read)."""
    import psycopg

    with psycopg.connect(url) as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield conn


def pg_has_store(url: str) -> bool:
    """The child got far enough to create the schema (killed earlier: nothing to check)."""
    with pg_reader(url) as conn:
        row = conn.execute("SELECT to_regclass('receipt_outbox') IS NOT NULL").fetchone()
    return bool(row and row[0])


def pg_rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with pg_reader(url) as conn:
        return list(conn.execute(sql).fetchall())


def json_list(value: Any) -> tuple[str, ...]:
    """A list column as either backend stores it: JSON text (SQLite, text), or jsonb (a list)."""
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    raw = value if isinstance(value, bytes) else str(value).encode()
    return tuple(str(v) for v in orjson.loads(raw))


def pg_outbox_rows(url: str) -> list[tuple[int, bytes]]:
    """Every outbox row, in seq order, its body exactly as stored (the rendered JSONL line)."""
    rows = pg_rows(url, "SELECT seq, body FROM receipt_outbox ORDER BY seq")
    return [(int(seq), bytes(b) if isinstance(b, bytes | memoryview) else str(b).encode()) for seq, b in rows]


def pg_outbox(url: str) -> list[Line]:
    return [
        parse_line(raw, url, seq) or Line(url, seq, None, "empty outbox row")
        for seq, raw in pg_outbox_rows(url)
    ]


def receipts_file(url: str, folder: Path) -> Path:
    """The outbox as a JSONL file, for the auditor to read as an operator's export would be."""
    path = folder / "outbox.jsonl"
    path.write_bytes(b"".join(raw.rstrip(b"\n") + b"\n" for _, raw in pg_outbox_rows(url)))
    return path


def pg_key(url: str) -> bytes | None:
    """The store's receipt key, read as the owning role (the harness connects as the store's owner)."""
    rows = pg_rows(url, "SELECT key FROM receipt_key WHERE id = 1") if pg_has_store(url) else []
    return bytes(rows[0][0]) if rows else None
