"""UUIDv7 ids: valid RFC 9562 strings, monotonic within a process, apart across processes."""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receipts import ids


def assert_uuid7(value: str) -> None:
    assert ids.is_uuid(value)
    parsed = uuid.UUID(value)
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == value


@pytest.fixture
def fresh() -> Iterator[ids._Generator]:
    yield ids._Generator()


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 700), steps=st.lists(st.integers(-5, 5), max_size=30))
def test_ids_are_uuid7_strictly_increasing_even_when_the_clock_steps_back(
    count: int, steps: list[int]
) -> None:
    """Whatever the clock does (stand still, step back, jump), ids keep their order and format."""
    gen = ids._Generator()
    now = [1_800_000_000_000 * 1_000_000]
    moves = iter(steps)

    def clock() -> int:
        now[0] += next(moves, 0) * 1_000_000
        return now[0]

    real = time.time_ns
    time.time_ns = clock
    try:
        made = [gen.next_id() for _ in range(count)]
    finally:
        time.time_ns = real
    for value in made:
        assert_uuid7(value)
    assert all(a < b for a, b in itertools.pairwise(made))


def test_the_timestamp_is_the_clock_in_milliseconds(
    fresh: ids._Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    ms = 1_800_000_123_456
    monkeypatch.setattr(time, "time_ns", lambda: ms * 1_000_000 + 999_999)
    first, second = fresh.next_id(), fresh.next_id()
    assert uuid.UUID(first).int >> 80 == ms and uuid.UUID(second).int >> 80 == ms
    assert (uuid.UUID(first).int >> 64) & 0xFFF == 0 and (uuid.UUID(second).int >> 64) & 0xFFF == 1


def test_a_full_counter_borrows_the_next_millisecond(
    fresh: ids._Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: 1_800_000_000_000 * 1_000_000)
    made = [fresh.next_id() for _ in range(0x1000 + 3)]
    assert len(set(made)) == len(made) and made == sorted(made)
    assert uuid.UUID(made[-1]).int >> 80 == 1_800_000_000_001


def test_random_bits_differ_from_id_to_id_and_pool_to_pool(fresh: ids._Generator) -> None:
    tails = [value[19:] for value in (fresh.next_id() for _ in range(3 * ids._POOL))]
    assert len(set(tails)) == len(tails)
    assert {t[0] for t in tails} <= set("89ab") and len({t[0] for t in tails}) > 1


def test_threads_get_unique_ids_each_in_order() -> None:
    gen = ids._Generator()
    out: dict[int, list[str]] = {}

    def work(n: int) -> None:
        out[n] = [gen.next_id() for _ in range(2000)]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for made in out.values() for i in made]
    assert len(set(every)) == len(every)
    assert all(made == sorted(made) for made in out.values())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork only")
def test_a_forked_child_does_not_repeat_the_parents_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the clock held still, parent and child start from the same counter: only fresh random
    bits in the child keep their ids apart (without the at-fork reset they are equal)."""
    monkeypatch.setattr(time, "time_ns", lambda: 1_800_000_000_000 * 1_000_000)
    ids.uuid7()  # a pool exists before the fork
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its ids and leave without running pytest's teardown
        try:
            os.write(write, "\n".join(ids.uuid7() for _ in range(50)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        child = pipe.read().decode().split("\n")
    os.waitpid(pid, 0)
    parent = [ids.uuid7() for _ in range(50)]
    assert len(child) == 50 and not set(child) & set(parent)
