"""A compact set of decided ids: "no" is certain, "maybe" sends the audit to the exact pass.

The streaming pass forgets runs and units once decided; a later receipt naming one of them must
not be judged without it. Remembering every id exactly would cost ~80 bytes each in Python; this
filter costs 4 bytes each, and a false "maybe" (about 6 in a million) only costs a re-run, never
a verdict. The engine asks it only about ids that are not newer than every decided one.
"""

from __future__ import annotations

import hashlib

__all__ = ["Bloom"]

_BITS_PER_ITEM = 32
_PROBES = 8  # with 32 bits per item: about 6 false positives per million look-ups


class Bloom:
    def __init__(self, capacity: int = 1 << 14) -> None:
        self._filters: list[tuple[bytearray, int]] = []
        self._count = 0
        self._capacity = 0
        self._grow(capacity)

    def _grow(self, capacity: int) -> None:
        bits = capacity * _BITS_PER_ITEM
        self._filters.append((bytearray(bits // 8), bits))
        self._capacity += capacity

    def add(self, key: str) -> None:
        if self._count >= self._capacity:  # keep the false-positive rate: a new, twice larger filter
            self._grow(self._capacity)
        self._count += 1
        array, bits = self._filters[-1]
        h = _hash(key)
        step = (h >> 32) | 1
        for i in range(_PROBES):
            bit = (h + i * step) % bits
            array[bit >> 3] |= 1 << (bit & 7)

    def __contains__(self, key: str) -> bool:
        h = _hash(key)
        step = (h >> 32) | 1
        for array, bits in self._filters:
            for i in range(_PROBES):
                bit = (h + i * step) % bits
                if not array[bit >> 3] & (1 << (bit & 7)):
                    break
            else:
                return True
        return False


def _hash(key: str) -> int:
    """A hash that is the same in every process (str.__hash__ is salted per process), so that a
    filter saved in an audit state (auditor.state) answers alike when an audit resumes."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
