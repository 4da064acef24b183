"""Read a store's receipt outbox without writing to, locking or otherwise touching the store.

The table is the contract between a store and its readers:
`receipt_outbox(seq INTEGER PRIMARY KEY, chain_id TEXT, receipt_id TEXT, run_id TEXT, body BLOB)`,
where `body` is the rendered receipt exactly as it would appear on a JSONL line.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from receipts.jsonl import Line, parse_line

OUTBOX_TABLE = "receipt_outbox"
_BATCH = 1000


def read_only_uri(path: str | os.PathLike[str]) -> str:
    return "file:" + quote(str(Path(path).resolve())) + "?mode=ro"


def read_outbox(path: str | os.PathLike[str], after_seq: int = 0) -> Iterator[Line]:
    """Yield the outbox in seq order, in batches, from a read-only connection.

    Raises OSError when the file is missing or is not a store (the auditor reports that as
    unreadable input); rows inside a readable outbox are never a reason to raise.
    """
    source = os.fspath(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no store at {source}")
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise OSError(f"cannot open {source} read-only: {exc}") from None
    try:
        last = after_seq
        while True:
            try:
                rows = conn.execute(
                    f"SELECT seq, body FROM {OUTBOX_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?",
                    (last, _BATCH),
                ).fetchall()
            except sqlite3.Error as exc:
                raise OSError(f"{source} has no readable receipt outbox: {exc}") from None
            for seq, body in rows:
                raw = body if isinstance(body, bytes) else str(body).encode()
                line = parse_line(raw, source, seq)
                yield line or Line(source, seq, None, "empty outbox row")
            if len(rows) < _BATCH:
                return
            last = rows[-1][0]
    finally:
        conn.close()
