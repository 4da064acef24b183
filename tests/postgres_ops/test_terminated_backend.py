"""A connection killed from the server side (`pg_terminate_backend`) in the middle of a transaction:
the caller gets a StoreError, nothing of that call is written, and the next call works."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import memoryos
from memoryos import failpoints
from tests.postgres_ops.inventory import inventory

ALICE = memoryos.Scope(user="alice", assistant="ops")
#: The transaction stays open this long at its failpoint, for the killer to find it.
HOLD_MS = 3000


@pytest.fixture
def mem(pg_url: str) -> Iterator[memoryos.Memory]:
    with memoryos.open(pg_url, heat_threshold=1e12) as opened:
        yield opened
    failpoints.arm("")


def kill_the_open_transaction(url: str, killed: list[int]) -> None:
    """From another connection: terminate the backend that sits in an open transaction."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(200):
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
                " AND state = 'idle in transaction'",
                (name,),
            ).fetchall()
            if rows:
                for (pid,) in rows:
                    conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
                    killed.append(int(pid))
                return
            time.sleep(0.02)


def during(url: str, point: str) -> tuple[threading.Thread, list[int]]:
    failpoints.arm(f"{point}=1*sleep({HOLD_MS})")
    killed: list[int] = []
    killer = threading.Thread(target=kill_the_open_transaction, args=(url, killed))
    killer.start()
    return killer, killed


def test_a_remember_whose_connection_is_killed_fails_cleanly(
    mem: memoryos.Memory, pg_url: str, tmp_path: Path
) -> None:
    kept = mem.remember(ALICE, "the first turn stays")
    killer, killed = during(pg_url, "store.before_commit")
    with pytest.raises(memoryos.StoreError):
        mem.remember(ALICE, "this turn was never committed")
    killer.join()
    failpoints.arm("")
    assert killed, "the transaction was found open and its backend terminated"
    after = mem.remember(ALICE, "the next turn works")
    found = inventory(mem, tmp_path / "e.jsonl")
    assert set(found.copies) == {kept.memory_id, after.memory_id}
    assert mem.check() == []


def test_a_promotion_whose_connection_is_killed_moves_nothing(
    mem: memoryos.Memory, pg_url: str, tmp_path: Path
) -> None:
    for n in range(mem.config.stm_capacity - 1):
        mem.remember(ALICE, f"turn {n} about the deploy")
    killer, killed = during(pg_url, "stm_to_mtm.before_commit")
    # The turn commits; the promotion it starts is killed (raised, or deferred to upkeep).
    with contextlib.suppress(memoryos.StoreError):
        mem.remember(ALICE, "the turn that fills STM")
    killer.join()
    failpoints.arm("")
    assert killed
    found = inventory(mem, tmp_path / "mid.jsonl")
    assert all(count == 1 for count in found.copies.values())
    assert mem.check() == []
    mem.maintain()  # upkeep retries the promotion that was rolled back
    found = inventory(mem, tmp_path / "after.jsonl")
    assert all(count == 1 for count in found.copies.values()) and len(found.copies) >= mem.config.stm_capacity
    assert mem.check() == []
