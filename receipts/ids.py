"""Time-ordered identifiers (UUIDv7, RFC 9562) for memories, runs and receipts.

Layout (RFC 9562 §6.2 method 1, a fixed-length dedicated counter): 48 bits of Unix milliseconds,
the version, a 12-bit counter in `rand_a` that orders ids made in the same millisecond, the variant,
and 62 random bits in `rand_b` that keep ids of different processes apart.

The random bits are cheap: one os.urandom call fills a pool for _POOL ids, whose `rand_b` groups are
formatted in a few C-level passes (the variant bits are set by one bytes.translate over every
eighth byte), and an id then only concatenates strings. A fork empties the pool in the child, or
parent and child would hand out the same random bits (and, within a millisecond, the same ids).
"""

from __future__ import annotations

import os
import re
import threading
import time

_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_POOL = 128  # ids per os.urandom call
# byte -> the same byte with its top two bits set to the RFC 9562 variant 0b10
_VARIANT = bytes((b & 0x3F) | 0x80 for b in range(256))
_COUNTER_HEX = tuple(f"{c:03x}" for c in range(0x1000))  # a lookup is cheaper than formatting


def _random_tails(count: int) -> list[str]:
    """`count` random '-vxxx-xxxxxxxxxxxx' groups (the last two of a UUID, variant set)."""
    raw = bytearray(os.urandom(8 * count))
    raw[::8] = raw[::8].translate(_VARIANT)
    h = raw.hex()
    return ["-" + h[i : i + 4] + "-" + h[i + 4 : i + 16] for i in range(0, 16 * count, 16)]


class _Generator:
    """Millisecond timestamp plus a 12-bit counter, so ids made in one process sort in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = 0
        self._counter = 0
        self._prefix = "00000000-0000-7"  # of _last_ms
        self._tails: list[str] = []

    def after_fork(self) -> None:
        """In a forked child: forget the parent's pool of random bits (the clock and counter stay,
        so the child's ids still sort after those made before the fork), and take a fresh lock in
        case another thread of the parent held it at the fork."""
        self._lock = threading.Lock()
        self._tails = []

    def next_id(self) -> str:
        """Return a new UUIDv7 string (RFC 9562): monotonic within a process, random across them."""
        with self._lock:
            ms = time.time_ns() // 1_000_000
            if ms > self._last_ms:
                self._last_ms = ms
                self._counter = counter = 0
                h = f"{ms:012x}"
                self._prefix = h[:8] + "-" + h[8:] + "-7"
            else:  # the same or a stepped-back millisecond: count within the last one
                self._counter = counter = self._counter + 1
                if counter > 0xFFF:  # full: borrow the next millisecond
                    self._last_ms = ms = self._last_ms + 1
                    self._counter = counter = 0
                    h = f"{ms:012x}"
                    self._prefix = h[:8] + "-" + h[8:] + "-7"
            tails = self._tails
            if not tails:
                tails = self._tails = _random_tails(_POOL)
            return self._prefix + _COUNTER_HEX[counter] + tails.pop()


_generator = _Generator()
if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_generator.after_fork)


# The bound method itself, not a wrapper around it: a Python call level is a fifth of an id's cost.
uuid7 = _generator.next_id


def is_uuid(value: object) -> bool:
    """True for a lowercase canonical UUID string."""
    return isinstance(value, str) and _UUID_RE.fullmatch(value) is not None
