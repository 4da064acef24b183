"""What `memoryos` prints: JSON by default (orjson, indented), a table for people with --table, and
a quiet end when the reader closes the pipe."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TextIO

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


# -- progress on a terminal ---------------------------------------------------------------------------
PROGRESS_DELAY_SECONDS = 0.5  # a quick command shows nothing
PROGRESS_EVERY_SECONDS = 0.2


def _proc_io(field: str) -> int | None:
    """A counter of this process's I/O (Linux /proc/self/io); None where the kernel does not say."""
    try:
        with open("/proc/self/io", encoding="ascii") as io:
            for line in io:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def bytes_read() -> int | None:
    return _proc_io("rchar")


def bytes_written() -> int | None:
    return _proc_io("wchar")


def file_size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


class Progress:
    """One line on stderr, redrawn while a long command runs: only on a terminal, never with --quiet.

    `measure()` says how far the work is (bytes, items: `unit`), against `total` when it is known.
    Long library calls have no progress hook, so a daemon thread reads `measure` — the size of the
    file being written, or the bytes this process has read — and redraws; `advance()` serves callers
    that count for themselves (chaos trials, benchmark runs). The line is cleared at the end.
    The auditor keeps its own copy (auditor.progress): it imports nothing of memoryos.
    """

    def __init__(
        self,
        label: str,
        *,
        total: int | None = None,
        unit: str = "",
        measure: Callable[[], int | None] | None = None,
        quiet: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.stream = sys.stderr if stream is None else stream
        self.on = not quiet and _is_terminal(self.stream)
        self._measure = measure
        self._base = (measure() or 0) if (measure is not None and self.on) else 0
        self.done = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0
        self._started = time.monotonic()

    def __enter__(self) -> Progress:
        if self.on:
            self._thread = threading.Thread(target=self._run, name="memoryos-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r")

    def advance(self, count: int = 1) -> None:
        self.done += count

    def _run(self) -> None:
        if PROGRESS_DELAY_SECONDS > 0 and self._stop.wait(PROGRESS_DELAY_SECONDS):
            return  # done before the first draw was due
        while True:
            self.draw()
            if self._stop.wait(PROGRESS_EVERY_SECONDS):
                return

    def line(self) -> str:
        done = self.done
        if self._measure is not None:
            now = self._measure()
            done = max((now or 0) - self._base, 0) if now is not None else done
        amount = _amount(done, self.unit)
        if self.total:
            share = min(done / self.total, 1.0 if self._measure is None else 0.99)
            return f"{self.label} {amount} of {_amount(self.total, self.unit)} ({share:.0%})"
        return f"{self.label} {amount} ({time.monotonic() - self._started:.0f} s)"

    def draw(self) -> None:
        text = self.line()
        self._write("\r" + text.ljust(self._drawn))
        self._drawn = max(self._drawn, len(text))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal: progress is never worth an error
            self.on = False


def _amount(count: int, unit: str) -> str:
    if unit == "bytes":
        return f"{count / 1e6:,.1f} MB"
    return f"{count:,} {unit}".rstrip()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
