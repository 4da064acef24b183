"""A plain progress counter on stderr for long audits: only on a terminal, never with --quiet.

The audit has no progress hook (it streams through the engine in one call), so a daemon thread
reads how far the process has read its inputs — the bytes this process has read (Linux
`/proc/self/io`, `rchar`) against the inputs' total size — and redraws one line every 0.2 s,
after a first half second (a quick audit shows nothing). Where `/proc` is missing, it counts
seconds. The line is cleared at the end, so the report that follows stands alone.

memoryos has its own copy (memoryos.cli_output.Progress): the auditor imports nothing of memoryos.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import TextIO

__all__ = ["DELAY_SECONDS", "EVERY_SECONDS", "Progress", "bytes_read", "input_size"]

DELAY_SECONDS = 0.5
EVERY_SECONDS = 0.2
_PROC_IO = Path("/proc/self/io")


def bytes_read() -> int | None:
    """Bytes this process has read so far (rchar), or None where the kernel does not say."""
    try:
        for line in _PROC_IO.read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def input_size(paths: Iterable[str | os.PathLike[str]]) -> int:
    """Bytes in the inputs: files, and a store with its write-ahead log."""
    total = 0
    for path in paths:
        for part in (Path(path), Path(f"{path}-wal")):
            try:
                total += part.stat().st_size
            except OSError:
                continue
    return total


def _megabytes(count: int) -> str:
    return f"{count / 1e6:,.1f} MB"


class Progress:
    """`with Progress("memoryos-audit: read", total):` draws while the block runs (see module doc)."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        measure: Callable[[], int | None] = bytes_read,
    ) -> None:
        self.label, self.total, self.measure = label, total, measure
        self.stream = sys.stderr if stream is None else stream
        self.on = not quiet and _is_terminal(self.stream)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0
        self._base = measure() if self.on else None
        self._started = time.monotonic()

    def __enter__(self) -> Progress:
        if self.on:
            self._thread = threading.Thread(target=self._run, name="audit-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r")

    def _run(self) -> None:
        if DELAY_SECONDS > 0 and self._stop.wait(DELAY_SECONDS):
            return  # done before the first draw was due
        while True:
            self.draw()
            if self._stop.wait(EVERY_SECONDS):
                return

    def line(self) -> str:
        seconds = time.monotonic() - self._started
        now = self.measure()
        if now is None or self._base is None:
            return f"{self.label} ... {seconds:.0f} s"
        done = max(now - self._base, 0)
        if self.total <= 0:
            return f"{self.label} {_megabytes(done)} in {seconds:.0f} s"
        share = min(done / self.total, 0.99)  # reads beyond the inputs (imports, indexes) cap it
        return f"{self.label} {_megabytes(min(done, self.total))} of {_megabytes(self.total)} ({share:.0%})"

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


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
