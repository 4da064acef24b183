"""A compact set of decided ids: "no" is certain, "maybe" sends the audit to the exact pass.

The streaming pass forgets runs and units once decided; a later receipt naming one of them must
not be judged without it. Remembering every id exactly would cost ~80 bytes each in Python; this
filter costs about 6 bytes each, and a false "maybe" (about 1 in 100,000 look-ups) only costs a
re-run, never a verdict. The engine asks it only about ids that are not newer than every decided
one.

It is a blocked Bloom filter: each id sets 8 bits inside one 512-bit block, the block a Python int,
so an id costs one hash, two table look-ups and one `|=` instead of eight probes in a loop. It runs
for every decided run and every unit that leaves the store (most receipts decide one or the
other), so `add` only queues the id and the queue is hashed in one tight loop when it fills, or
before a look-up or a dump: the same bits as adding one by one, at a third of the cost. The bit
masks come from a fixed seed and the hash is the same in every process, so a filter saved in an
audit state (auditor.state) answers alike when an audit resumes.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["Bloom"]

_BLOCK_BITS = 512
_ITEMS_PER_BLOCK = 16  # 32 bits per item, 8 of them set per id: about 1e-5 false positives
_TABLE = 4096  # each half of an id's mask: 4 bits of the block, chosen by 12 bits of its hash
_QUEUE = 4096  # ids queued before they are hashed in: bounded memory, a tight loop


def _masks(seed: int) -> tuple[int, ...]:
    rnd = random.Random(seed)
    return tuple(sum(1 << bit for bit in rnd.sample(range(_BLOCK_BITS), 4)) for _ in range(_TABLE))


_LOW, _HIGH = _masks(1), _masks(2)


class Bloom:
    def __init__(self, capacity: int = 1 << 14) -> None:
        self._filters: list[list[int]] = []  # each a list of blocks; a new, twice larger one when full
        self._count = 0  # ids hashed in (the queue not counted)
        self._capacity = 0
        self._queue: list[str] = []
        self._grow(capacity)

    def _grow(self, capacity: int) -> None:
        self._filters.append([0] * max(1, capacity // _ITEMS_PER_BLOCK))
        self._capacity += capacity

    def add(self, key: str) -> None:
        queue = self._queue
        queue.append(key)
        if len(queue) >= _QUEUE:
            self._flush()

    def update(self, keys: list[str]) -> None:
        """`add` for each key, in order (the same bits: the queue keeps the order)."""
        queue = self._queue
        queue.extend(keys)
        if len(queue) >= _QUEUE:
            self._flush()

    def _flush(self) -> None:
        """Hash the queued ids in: what `add` did one id at a time, in one loop per filter."""
        queue, self._queue = self._queue, []
        start = 0
        while start < len(queue):
            if self._count >= self._capacity:  # keep the false-positive rate: a new, twice larger filter
                self._grow(self._capacity)
            end = min(len(queue), start + self._capacity - self._count)
            _set_bits(self._filters[-1], queue[start:end])
            self._count += end - start
            start = end

    def __contains__(self, key: str) -> bool:
        if self._queue:
            self._flush()
        h = _hash(key)
        mask = _LOW[h & 0xFFF] | _HIGH[(h >> 12) & 0xFFF]
        return any(blocks[(h >> 24) % len(blocks)] & mask == mask for blocks in self._filters)

    def dump(self) -> tuple[list[bytes], int, int]:
        """(each filter's blocks as bytes, count, capacity): what auditor.state saves."""
        if self._queue:
            self._flush()
        size = _BLOCK_BITS // 8
        return (
            [b"".join(b.to_bytes(size, "little") for b in f) for f in self._filters],
            self._count,
            self._capacity,
        )

    @classmethod
    def load(cls, filters: list[bytes], count: int, capacity: int) -> Bloom:
        size = _BLOCK_BITS // 8
        bloom = cls.__new__(cls)
        bloom._filters = [
            [int.from_bytes(raw[at : at + size], "little") for at in range(0, len(raw), size)]
            for raw in filters
        ]
        if any(not blocks for blocks in bloom._filters) or not bloom._filters:
            raise ValueError("an empty filter")
        bloom._count, bloom._capacity = count, capacity
        bloom._queue = []
        return bloom


def _set_bits(blocks: list[int], keys: list[str]) -> None:
    """`_hash` and the mask of `Bloom.__contains__`, written out: this loop runs for every id."""
    size, low, high, blake, to_int = len(blocks), _LOW, _HIGH, hashlib.blake2b, int.from_bytes
    for key in keys:
        h = to_int(blake(key.encode(), digest_size=8).digest(), "little")
        blocks[(h >> 24) % size] |= low[h & 0xFFF] | high[(h >> 12) & 0xFFF]


def _hash(key: str) -> int:
    """A hash that is the same in every process (str.__hash__ is salted per process)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
