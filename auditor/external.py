"""Out-of-order input in bounded memory: sort the lines on disk, then stream them.

When the streaming pass finds its input out of export order (auditor.engine), `audit()` no longer
holds every receipt in memory: it reads every source's raw lines, sorts them by
(atUtc, chainId, seq) in runs of `CHUNK` lines spilled to a temporary directory, and merges the runs
back (heapq.merge) into the streaming pass. Memory is one run plus the engine's compact state,
whatever the input's size. Lines that are not receipts sort first (they name no time); the
verdicts do not depend on the order (a property test), only the streaming pass's memory does.
If even the sorted input is not in the order the streaming pass relies on (a chain whose seq and
time disagree), the caller falls back to the exact in-memory pass.
"""

from __future__ import annotations

import gzip
import heapq
import os
import struct
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from operator import itemgetter
from pathlib import Path
from typing import BinaryIO

import orjson

from auditor.incremental import read_outbox_rows
from auditor.sources import AuditInputError, checked_source

__all__ = ["CHUNK", "sorted_lines"]

CHUNK = 50_000  # lines per sorted run: about 40 MB of memoryos receipts
_GZIP_MAGIC = b"\x1f\x8b"
_LENGTHS = struct.Struct("<II")

Key = tuple[str, str, int, int]  # (atUtc, chainId, seq, arrival): arrival keeps ties stable
Record = tuple[Key, bytes | None, str]  # raw line (None: an unreadable stretch), "path:line"
Source = tuple[str | os.PathLike[str], bool]


def _key(raw: bytes, arrival: int) -> Key:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return ("", "", 0, arrival)
    if not isinstance(obj, dict):
        return ("", "", 0, arrival)
    at, chain, seq = obj.get("atUtc"), obj.get("chainId"), obj.get("seq")
    return (
        at if isinstance(at, str) else "",
        chain if isinstance(chain, str) else "",
        seq if type(seq) is int else 0,
        arrival,
    )


def _open(path: Path) -> BinaryIO:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == _GZIP_MAGIC:
        return gzip.open(path, "rb")  # type: ignore[return-value]  # GzipFile is a BinaryIO
    return open(path, "rb")


def _raw_lines(path: Path) -> Iterator[tuple[bytes | None, str]]:
    number = 0
    try:
        with _open(path) as handle:
            for raw in handle:
                number += 1
                stripped = raw.strip()
                if stripped:
                    yield stripped, f"{path}:{number}"
    except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt gzip stream
        yield None, f"{path}:{number + 1}: unreadable ({type(exc).__name__})"


def _raw_rows(path: Path, *, insist: bool) -> Iterator[tuple[bytes | None, str]]:
    try:
        for seq, raw in read_outbox_rows(path):
            yield (raw.strip() or None), f"{path}#seq={seq}" + ("" if raw.strip() else ": empty outbox row")
    except OSError as exc:
        if insist:
            raise AuditInputError(str(exc)) from None
        yield None, f"{path}: unreadable ({exc})"


def _raw_pg_rows(url: str) -> Iterator[tuple[bytes | None, str]]:
    from auditor.stores import pg_outbox

    try:
        with pg_outbox(url) as outbox:
            for seq, raw in outbox.raw_rows():
                where = f"{outbox.source}#seq={seq}"
                yield (raw.strip() or None), where + ("" if raw.strip() else ": empty outbox row")
    except OSError as exc:  # unreachable, or no outbox: as the streaming pass says (auditor.stores)
        raise AuditInputError(str(exc)) from None


def _source_rows(given: str | os.PathLike[str], store: bool) -> Iterator[tuple[bytes | None, str]]:
    if isinstance(given, str) and given.startswith(("postgresql://", "postgres://")):
        return _raw_pg_rows(given)  # a URL is no path: Path() would fold its '//'
    path = Path(given)
    return _raw_rows(path, insist=store) if checked_source(path, store=store) else _raw_lines(path)


def _records(sources: Iterable[Source]) -> Iterator[tuple[bytes | None, str] | str]:
    """Every raw line of every source; a bare string names a source that holds no receipts."""
    for given, store in sources:
        count = 0
        for record in _source_rows(given, store):
            count += 1
            yield record
        if count == 0:
            yield os.fspath(given)


def _spill(chunk: list[Record], directory: str) -> str:
    chunk.sort(key=itemgetter(0))
    fd, name = tempfile.mkstemp(dir=directory, suffix=".run")
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        for key, raw, where in chunk:
            head = orjson.dumps([*key, where])
            body = b"" if raw is None else raw
            out.write(_LENGTHS.pack(len(head), len(body) if raw is not None else 0xFFFFFFFF))
            out.write(head)
            out.write(body)
    return name


def _read_run(name: str) -> Iterator[Record]:
    with open(name, "rb", buffering=1 << 16) as handle:
        while header := handle.read(_LENGTHS.size):
            head_len, body_len = _LENGTHS.unpack(header)
            at, chain, seq, arrival, where = orjson.loads(handle.read(head_len))
            raw = None if body_len == 0xFFFFFFFF else handle.read(body_len)
            yield (at, chain, seq, arrival), raw, where


def sorted_lines(sources: Iterable[Source], empty: list[str]) -> Iterator[tuple[bytes | None, str]]:
    """(raw line, where) of every source in (atUtc, chainId, seq) order; `empty` collects the
    sources that hold no receipts."""
    with tempfile.TemporaryDirectory(prefix="memoryos-audit-") as directory:
        runs: list[str] = []
        chunk: list[Record] = []
        for arrival, record in enumerate(_records(sources)):
            if isinstance(record, str):
                empty.append(record)
                continue
            raw, where = record
            key = _key(raw, arrival) if raw is not None else ("", "", 0, arrival)
            chunk.append((key, raw, where))
            if len(chunk) >= CHUNK:
                runs.append(_spill(chunk, directory))
                chunk = []
        chunk.sort(key=itemgetter(0))
        merged = heapq.merge(*(_read_run(name) for name in runs), iter(chunk), key=itemgetter(0))
        for _, raw, where in merged:
            yield raw, where
