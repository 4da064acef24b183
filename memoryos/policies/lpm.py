"""LPM rules: reconciliation of a keyed write, list eviction, and drawer decay (DESIGN §7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class Reconcile(Enum):
    ADD = "add"
    UPDATE = "update"
    REINFORCE = "reinforce"


def reconcile(current_body: str | None, new_body: str) -> Reconcile:
    if current_body is None:
        return Reconcile.ADD
    return Reconcile.REINFORCE if current_body == new_body else Reconcile.UPDATE


@dataclass(frozen=True)
class RecordView:
    memory_id: str
    reinforced: int
    last_seen: int


def evict_from_list(records: Sequence[RecordView], capacity: int) -> list[str]:
    """Least reinforced, then least recently seen, leave first."""
    excess = len(records) - capacity
    if excess <= 0:
        return []
    ranked = sorted(records, key=lambda r: (r.reinforced, r.last_seen, r.memory_id))
    return [r.memory_id for r in ranked[:excess]]


DECAYING_KINDS = frozenset({"decision", "fact", "semantic", "episodic"})
STATUS_ORDER = ("active", "stale", "retired")


def decayed_status(
    *, kind: str, status: str, last_seen: int, now: int, stale_after: int, retired_after: int
) -> str:
    """The status a record should have now; exempt kinds and superseded versions never change."""
    if kind not in DECAYING_KINDS or status not in STATUS_ORDER:
        return status
    age = now - last_seen
    target = "retired" if age >= retired_after else "stale" if age >= stale_after else "active"
    # Decay only moves forward; only an explicit get() revives.
    return max(status, target, key=STATUS_ORDER.index)
