"""The framing of an audit state file (auditor.state): a header line, then MAC-chained records.

    {"schema":"memoryos.audit-state/4"}\\n
    record*      record = "R" | length (8 bytes, big-endian) | mac (32 bytes) | payload
    payload      = meta length (4 bytes, big-endian) | meta (JSON object) | blob*

`mac` is HMAC-SHA256 under the state key of the previous record's mac (for the first record, of the
header line) followed by the payload: a record cannot be changed, dropped from the middle, moved or
taken from another file without the chain failing. The meta names each blob and its length
(`"blobs": [[name, length], ...]`), so that a reader slices the blobs without copying them.

A save appends one record and fsyncs it; a final record cut short (a crash while appending) is not
part of the state and is dropped by the next save, which rewrites the file. Dropping whole records
from the end gives an older state — as replacing the file with an older copy always could — which
resumes from an older point and reaches the same verdicts.
"""

from __future__ import annotations

import fcntl
import hmac
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

__all__ = [
    "Identity",
    "JournalError",
    "OtherSchema",
    "Record",
    "append_record",
    "encode",
    "read_records",
    "write_records",
]

_MARK = b"R"
_HEAD = len(_MARK) + 8 + 32


@dataclass(frozen=True)
class Record:
    meta: dict[str, Any]
    blobs: dict[str, memoryview]
    size: int  # bytes of the record in the file


@dataclass(frozen=True)
class Identity:
    """The file as this process last wrote or read it: an append goes only to that very file."""

    inode: int
    size: int
    mtime_ns: int
    mac: bytes  # the last record's mac, which the next record chains to


class JournalError(ValueError):
    """A record that does not verify, or is not laid out as this module writes it."""


class OtherSchema(JournalError):
    """The header names another schema (`found`; None: no header at all)."""

    def __init__(self, found: str | None) -> None:
        super().__init__(found)
        self.found = found


def header(schema: str) -> bytes:
    return orjson.dumps({"schema": schema}) + b"\n"


def encode(meta: dict[str, Any], blobs: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> list[Any]:
    """The payload's parts, in order: written out without joining the (large) blobs first."""
    listed = list(blobs)
    meta = {**meta, "blobs": [[name, len(data)] for name, data in listed]}
    raw = orjson.dumps(meta)
    return [len(raw).to_bytes(4, "big"), raw, *(data for _, data in listed)]


def _framed(key: bytes, prev: bytes, parts: list[Any]) -> tuple[list[Any], bytes]:
    mac = hmac.new(key, prev, "sha256")
    length = 0
    for part in parts:
        mac.update(part)
        length += len(part)
    digest = mac.digest()
    return [_MARK, length.to_bytes(8, "big"), digest, *parts], digest


def write_records(path: Path, schema: str, key: bytes, records: list[list[Any]]) -> Identity:
    """A new file holding `records` (each from `encode`), atomically: the old state or the new."""
    head = header(schema)
    prev = hmac.digest(key, head, "sha256")
    chunks: list[Any] = [head]
    for parts in records:
        framed, prev = _framed(key, prev, parts)
        chunks += framed
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        _write_all(fd, chunks)
        os.fsync(fd)
        done = os.fstat(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return Identity(done.st_ino, done.st_size, done.st_mtime_ns, prev)


def append_record(path: Path, key: bytes, parts: list[Any], expect: Identity) -> Identity | None:
    """Append one record to the file `expect` describes; None (nothing written) when the file is not
    that one any more (another process wrote it, a torn record follows): the caller rewrites it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # two audits appending to one state: one after the other
        now = os.fstat(fd)
        if (now.st_ino, now.st_size, now.st_mtime_ns) != (expect.inode, expect.size, expect.mtime_ns):
            return None
        framed, mac = _framed(key, expect.mac, parts)
        _write_all(fd, framed)
        os.fsync(fd)
        done = os.fstat(fd)
    finally:
        os.close(fd)
    return Identity(done.st_ino, done.st_size, done.st_mtime_ns, mac)


def read_records(data: bytes, schema: str, key: bytes) -> tuple[list[Record], bytes, int]:
    """The records of a state file's bytes, each verified; (records, last mac, bytes used)."""
    end = data.find(b"\n", 0, 4096)  # not partition(): that would copy the whole state
    head = data[: max(end, 0)]
    if end < 0 or _schema_of(head) != schema:
        raise OtherSchema(_schema_of(data[:4096].partition(b"\n")[0]))
    prev = hmac.digest(key, head + b"\n", "sha256")
    view = memoryview(data)
    at, records = len(head) + 1, []
    while at < len(data):
        if data[at : at + 1] != _MARK:
            raise JournalError("mac")  # not a record at all: changed, not cut short
        if len(data) - at < _HEAD:
            break  # the last record was cut short while being appended: not part of the state
        length = int.from_bytes(data[at + 1 : at + 9], "big")
        end = at + _HEAD + length
        if end > len(data):
            break  # the last record was cut short while being appended: not part of the state
        mac = data[at + 9 : at + _HEAD]
        payload = view[at + _HEAD : end]
        if not hmac.compare_digest(mac, _mac(key, prev, payload)):
            raise JournalError("mac")
        records.append(_record(payload, end - at))
        prev, at = mac, end
    return records, prev, at


def _write_all(fd: int, chunks: list[Any]) -> None:
    """Every chunk, whole (a plain os.write may write less than it was given)."""
    with open(fd, "wb", closefd=False) as out:
        for chunk in chunks:
            out.write(chunk)


def _mac(key: bytes, prev: bytes, payload: memoryview) -> bytes:
    mac = hmac.new(key, prev, "sha256")
    mac.update(payload)
    return mac.digest()


def _record(payload: memoryview, size: int) -> Record:
    meta_len = int.from_bytes(payload[:4], "big")
    meta = orjson.loads(payload[4 : 4 + meta_len])
    if not isinstance(meta, dict):
        raise JournalError("a record without its meta")
    at, blobs = 4 + meta_len, {}
    for name, length in meta["blobs"]:
        blobs[name] = payload[at : at + length]
        at += length
    if at != len(payload):
        raise JournalError("a record whose blobs do not fill it")
    return Record(meta, blobs, size)


def _schema_of(head: bytes) -> str | None:
    try:
        parsed = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    schema = parsed.get("schema") if isinstance(parsed, dict) else None
    return schema if isinstance(schema, str) else None
