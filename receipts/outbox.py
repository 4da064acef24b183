"""Read a store's receipt outbox without writing to, locking or otherwise touching the store.

The table is the contract between a store and its readers:
`receipt_outbox(seq INTEGER PRIMARY KEY, chain_id TEXT, receipt_id TEXT, run_id TEXT, body BLOB)`,
where `body` is the rendered receipt exactly as it would appear on a JSONL line.

A store in WAL mode can only be read where SQLite may create its `-shm` file, which a read-only
mount (or a directory the reader cannot write) forbids. `open_outbox` then falls back, choosing the
fallback that cannot miss a committed receipt:

- no `-wal` beside the store, or an empty one: the main file holds every commit, so it is opened
  with `immutable=1` (no locks, no `-shm`);
- a `-wal` with content: `immutable=1` would silently ignore the commits in it, so the store and its
  `-wal` are copied into a private temporary directory and the copy is read (SQLite rebuilds the
  WAL index there). The copy is checked against the originals' size and mtime afterwards, so a store
  that changed while it was copied is retried, never read torn.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import quote

from receipts.jsonl import Line, parse_line

__all__ = ["OUTBOX_TABLE", "Outbox", "open_outbox", "read_only_uri", "read_outbox"]

OUTBOX_TABLE = "receipt_outbox"
_BATCH = 1000
_COPY_TRIES = 3


def read_only_uri(path: str | os.PathLike[str], *, immutable: bool = False) -> str:
    uri = "file:" + quote(str(Path(path).resolve())) + "?mode=ro"
    return uri + "&immutable=1" if immutable else uri


class Outbox:
    """A read-only view of one store's outbox (see `open_outbox`)."""

    def __init__(self, conn: sqlite3.Connection, source: str) -> None:
        self._conn = conn
        self.source = source

    def _rows(self, sql: str, params: tuple[int, ...]) -> list[tuple[int, object]]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise OSError(f"{self.source} has no readable receipt outbox: {exc}") from None

    def _line(self, seq: int, body: object) -> Line:
        raw = body if isinstance(body, bytes) else str(body).encode()
        return parse_line(raw, self.source, seq) or Line(self.source, seq, None, "empty outbox row")

    def lines(self, after_seq: int = 0) -> Iterator[Line]:
        """Every row after `after_seq`, in seq order, in batches."""
        last = after_seq
        while True:
            rows = self._rows(
                f"SELECT seq, body FROM {OUTBOX_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?", (last, _BATCH)
            )
            for seq, body in rows:
                yield self._line(seq, body)
            if len(rows) < _BATCH:
                return
            last = rows[-1][0]

    def last(self) -> Line | None:
        """The row with the highest seq, or None for an empty outbox."""
        rows = self._rows(f"SELECT seq, body FROM {OUTBOX_TABLE} ORDER BY seq DESC LIMIT ?", (1,))
        return self._line(*rows[0]) if rows else None

    def at(self, seq: int) -> Line | None:
        """The row at `seq`, or None when there is none."""
        rows = self._rows(f"SELECT seq, body FROM {OUTBOX_TABLE} WHERE seq = ?", (seq,))
        return self._line(*rows[0]) if rows else None


def _connect(uri: str) -> sqlite3.Connection:
    """Connect and touch the schema: SQLite opens lazily, and a missing `-shm` only shows then."""
    conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _wal_has_content(store: Path) -> bool:
    try:
        return os.stat(f"{store}-wal").st_size > 0
    except FileNotFoundError:
        return False


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _copy_store(store: Path, into: Path) -> Path:
    """Copy the store and its `-wal` (not the `-shm`: SQLite rebuilds it from the WAL)."""
    target = into / store.name
    for _ in range(_COPY_TRIES):
        before = (_stamp(str(store)), _stamp(f"{store}-wal"))
        shutil.copyfile(store, target)
        if before[1] is not None:
            shutil.copyfile(f"{store}-wal", f"{target}-wal")
        if (_stamp(str(store)), _stamp(f"{store}-wal")) == before:
            return target
    raise OSError(f"{store} kept changing while it was copied to be read: try again when it is idle")


def _fallback(store: Path, stack: ExitStack) -> sqlite3.Connection:
    """The read-only-directory case: immutable when the main file holds every commit, else a copy."""
    source = os.fspath(store)
    if not _wal_has_content(store):
        try:
            return _connect(read_only_uri(store, immutable=True))
        except sqlite3.Error as exc:
            raise OSError(f"cannot open {source} read-only: {exc}") from None
    scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memoryos-outbox-")))
    try:
        return _connect(read_only_uri(_copy_store(store, scratch)))
    except sqlite3.Error as exc:
        raise OSError(f"cannot read a copy of {source}: {exc}") from None


def _open_read_only(store: Path, stack: ExitStack) -> sqlite3.Connection:
    try:
        return _connect(read_only_uri(store))
    except sqlite3.Error as exc:
        if os.access(store.parent, os.W_OK):  # not the read-only case: the file is not a usable store
            raise OSError(f"cannot open {os.fspath(store)} read-only: {exc}") from None
    return _fallback(store, stack)


@contextmanager
def open_outbox(path: str | os.PathLike[str]) -> Iterator[Outbox]:
    """A read-only view of the store's outbox, also on a read-only mount (see the module's notes).

    Raises OSError when the file is missing or is not a store.
    """
    store = Path(path)
    if not store.is_file():
        raise FileNotFoundError(f"no store at {os.fspath(path)}")
    with ExitStack() as stack:
        conn = _open_read_only(store, stack)
        stack.callback(conn.close)
        yield Outbox(conn, os.fspath(path))


def read_outbox(path: str | os.PathLike[str], after_seq: int = 0) -> Iterator[Line]:
    """Yield the outbox in seq order, in batches, from a read-only connection.

    Raises OSError when the file is missing or is not a store (the auditor reports that as
    unreadable input); rows inside a readable outbox are never a reason to raise.
    """
    with open_outbox(path) as outbox:
        yield from outbox.lines(after_seq)
