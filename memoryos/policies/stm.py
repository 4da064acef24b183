"""Which short-term turns leave STM, and when they are due to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class StmTurn:
    memory_id: str
    created_at: int  # microseconds


def overflow(turns: Sequence[StmTurn], capacity: int) -> list[StmTurn]:
    """A full STM is promoted whole, oldest first (FIFO); below capacity nothing moves."""
    if len(turns) < capacity:
        return []
    return sorted(turns, key=lambda t: (t.created_at, t.memory_id))


def idle(turns: Sequence[StmTurn], now: int, idle_micros: int) -> list[StmTurn]:
    """Turns that waited in STM for the whole idle window, oldest first."""
    due = [t for t in turns if t.created_at + idle_micros <= now]
    return sorted(due, key=lambda t: (t.created_at, t.memory_id))


def wait_until(created_at: int, idle_micros: int) -> int:
    """The latest time a turn is due to have left STM: the end of its idle window."""
    return created_at + idle_micros
