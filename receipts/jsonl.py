"""Streaming JSONL readers and writers (plain or gzip). Readers yield, never hold a whole file."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

MAX_LINE_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Line:
    """One input line: either a parsed JSON object or the reason it could not be read."""

    source: str
    number: int
    receipt: dict[str, Any] | None
    error: str | None = None


def _open(path: Path) -> BinaryIO:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == _GZIP_MAGIC:
        return gzip.open(path, "rb")  # type: ignore[return-value]  # GzipFile is a BinaryIO
    return open(path, "rb")


def parse_line(raw: bytes, source: str, number: int) -> Line | None:
    """Parse one line; None for a blank line. Bad data becomes an error, never an exception."""
    stripped = raw.strip()
    if not stripped:
        return None
    if len(stripped) > MAX_LINE_BYTES:
        return Line(source, number, None, f"line longer than {MAX_LINE_BYTES} bytes")
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return Line(source, number, None, "not valid JSON")
    if not isinstance(value, dict):
        return Line(source, number, None, "not a JSON object")
    return Line(source, number, value)


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[Line]:
    """Yield every non-blank line of a receipt file. Raises OSError only if it cannot be opened."""
    source = os.fspath(path)
    with _open(Path(path)) as handle:
        number = 0
        try:
            for raw in handle:
                number += 1
                line = parse_line(raw, source, number)
                if line is not None:
                    yield line
        except (OSError, EOFError) as exc:  # truncated gzip stream
            yield Line(source, number + 1, None, f"unreadable: {type(exc).__name__}")


def append_jsonl(path: str | os.PathLike[str], lines: Iterable[bytes], *, fsync: bool = True) -> int:
    """Append rendered receipts, one per line; fsync before returning so a cursor may advance."""
    count = 0
    with open(path, "ab") as handle:
        for line in lines:
            handle.write(line + b"\n")
            count += 1
        handle.flush()
        if fsync:
            os.fsync(handle.fileno())
    return count
