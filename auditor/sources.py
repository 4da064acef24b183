"""Receipt sources: JSONL files (plain or gzip) and a store's SQLite outbox, opened read-only.

A source that cannot be opened at all is unreadable input (`AuditInputError`); everything inside a
readable source, however broken, becomes a finding.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from auditor.fastline import parse_canonical
from auditor.parse import Bad, Parsed, from_object, parse_raw
from receipts import read_outbox
from receipts.jsonl import MAX_LINE_BYTES

__all__ = ["AuditInputError", "Item", "is_store", "read_source", "where_of"]

_GZIP_MAGIC = b"\x1f\x8b"
_SQLITE_MAGIC = b"SQLite format 3\x00"

# What a source yields: (parsed line, "path:line"), or (None, reason) for an unreadable stretch.
# (A valid receipt with nothing uncertain carries only the path: see where_of.)
Item = tuple[Parsed | Bad | None, str]


class AuditInputError(OSError):
    """A source that cannot be read at all: missing, a directory, not a store, no permission."""


def _magic(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as probe:
            return probe.read(size)
    except OSError as exc:
        raise AuditInputError(f"cannot read {path}: {exc.strerror or exc}") from None


def is_store(path: str | os.PathLike[str]) -> bool:
    """A SQLite database file (the store's outbox is read from it)."""
    return _magic(Path(path), len(_SQLITE_MAGIC)) == _SQLITE_MAGIC


def _open(path: Path) -> BinaryIO:
    if _magic(path, 2) == _GZIP_MAGIC:
        return gzip.open(path, "rb")  # type: ignore[return-value]  # GzipFile is a BinaryIO
    return open(path, "rb")


_BATCH = 1 << 20  # bytes of lines read at once: fewer trips through the file object per line


def _jsonl(path: Path, last_link: Callable[[], str | None]) -> Iterator[Item]:
    where = str(path)
    number = 0
    try:
        with _open(path) as handle:
            while batch := handle.readlines(_BATCH):
                for raw in batch:
                    number += 1
                    stripped = raw.strip()
                    if stripped:  # parse_raw, its fast path written out (this runs per line)
                        fast = parse_canonical(stripped) if len(stripped) <= MAX_LINE_BYTES else None
                        if fast is not None:
                            yield fast, where
                        else:
                            item = parse_raw(stripped, last_link)
                            yield item, where_of(item, where, number)
    except (OSError, EOFError, zlib.error) as exc:  # truncated or corrupt gzip stream
        yield None, f"{where}:{number + 1}: unreadable ({type(exc).__name__})"


def where_of(item: Parsed | Bad, path: str, number: int) -> str:
    """ "path:line" for an item that can make a finding; a valid receipt with nothing uncertain
    never names its place (the engine reads it only for findings), so it is not formatted."""
    if type(item) is Parsed and item[2] is None:
        return path
    return f"{path}:{number}"


def _outbox(path: Path, last_link: Callable[[], str | None], *, insist: bool) -> Iterator[Item]:
    try:
        for line in read_outbox(path):
            where = f"{path}#seq={line.number}"
            if line.receipt is None:
                yield None, f"{where}: {line.error}"
            else:
                yield from_object(line.receipt, last_link()), where
    except OSError as exc:
        if insist:  # asked for a store (--db) and this is none: unreadable input
            raise AuditInputError(str(exc)) from None
        # listed as a receipt file and merely starts like SQLite: bad data, so a finding
        yield None, f"{path}: unreadable ({exc})"


def checked_source(path: str | os.PathLike[str], *, store: bool = False) -> bool:
    """Whether a source is a store (else a receipt file); raises AuditInputError for a missing path,
    a directory, or a file that `store=True` (the CLI's --db) insists on but is no store."""
    source = Path(path)
    if not source.exists():
        raise AuditInputError(f"no such file: {source}")
    if source.is_dir():
        raise AuditInputError(f"{source} is a directory, not a receipt file or store")
    sqlite = is_store(source)
    if store and not sqlite:
        raise AuditInputError(f"{source} is not a memoryos store (no SQLite header)")
    return sqlite


def read_source(
    path: str | os.PathLike[str], last_link: Callable[[], str | None], *, store: bool = False
) -> Iterator[Item]:
    """Yield a source's items; `store=True` insists that it is a store (the CLI's --db)."""
    if isinstance(path, str) and path.startswith(("postgresql://", "postgres://")):
        from auditor.stores import pg_items  # a PostgreSQL store (auditor.stores imports us)

        return pg_items(path, last_link)
    source = Path(path)
    if checked_source(source, store=store):
        return _outbox(source, last_link, insist=store)
    return _jsonl(source, last_link)
