"""What `memoryos` prints: JSON by default (orjson, indented), a table for people with --table, and
a quiet end when the reader closes the pipe."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from typing import Any

import orjson

SIGPIPE_EXIT = 141  # what a shell reports for a writer killed by SIGPIPE: the reader went away


def _jsonable(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _table(value: Any) -> str:
    rows = value if isinstance(value, list) else [value]
    rows = [_jsonable(r) if not isinstance(r, dict) else r for r in rows]
    if not rows or not all(isinstance(r, dict) for r in rows):
        return str(value)
    columns = list(dict.fromkeys(k for r in rows for k in r))
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."


def emit(value: Any, table: bool) -> None:
    if table:
        print(_table(value))
    else:
        sys.stdout.write(orjson.dumps(_jsonable(value), option=orjson.OPT_INDENT_2).decode() + "\n")


def flatten(value: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, inner in value.items():
        if isinstance(inner, dict):
            items.extend(flatten(inner, f"{prefix}{key}."))
        else:
            items.append((prefix + key, inner))
    return items


def reader_went_away() -> int:
    """`memoryos status --table | head -1`: the reader has all it wanted. Point stdout at the null
    device so that the interpreter's final flush does not raise again, and exit as SIGPIPE would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (a test's capture): nothing to flush
        pass
    finally:
        os.close(devnull)
    return SIGPIPE_EXIT
