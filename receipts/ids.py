"""Time-ordered identifiers (UUIDv7, RFC 9562) for memories, runs and receipts."""

from __future__ import annotations

import os
import re
import threading
import time

_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class _Clock:
    """Millisecond timestamp plus a 12-bit counter, so ids made in one process sort in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = 0
        self._counter = 0

    def tick(self) -> tuple[int, int]:
        with self._lock:
            ms = time.time_ns() // 1_000_000
            if ms <= self._last_ms:  # same or a stepped-back millisecond: count within it
                ms = self._last_ms
                self._counter += 1
                if self._counter > 0xFFF:
                    ms += 1
                    self._counter = 0
            else:
                self._counter = 0
            self._last_ms = ms
            return ms, self._counter


_clock = _Clock()


def uuid7() -> str:
    """Return a new UUIDv7 string (RFC 9562)."""
    ms, counter = _clock.tick()
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (counter << 64) | (0b10 << 62) | rand
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def is_uuid(value: object) -> bool:
    """True for a lowercase canonical UUID string."""
    return isinstance(value, str) and _UUID_RE.fullmatch(value) is not None
