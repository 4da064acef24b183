"""What the rules read of one valid receipt: `Facts`, and `Parsed` (facts plus canonical bytes)."""

from __future__ import annotations

from typing import NamedTuple

from receipts import FIELDS

__all__ = ["FACT_KEYS", "Facts", "Parsed"]


class Facts(NamedTuple):
    """A valid receipt, one slot per field of receipts.model.FIELDS (None where absent), in the
    sorted order of the fields' names: the order of a canonical line (auditor.fastline)."""

    assistant_scope: str | None
    at: str
    boundary: str
    chain_id: str
    degraded: bool | None
    depends_on: list[str] | None
    derived_from: list[str] | None
    from_tier: str | None
    mac: str | None
    memory_id: str | None
    outcome: str | None
    prev: str
    reason: str | None
    receipt_id: str
    run_id: str
    schema: str
    seq: int
    source_present: bool | None
    source_version: str | None
    status: str
    to_tier: str | None
    user_scope: str | None
    version: int | None
    wait_until: str | None


FACT_KEYS = tuple(sorted(FIELDS))  # the receipt field behind each slot of Facts
assert len(FACT_KEYS) == len(Facts._fields), "Facts must mirror receipts.model.FIELDS"


class Parsed(NamedTuple):
    facts: Facts
    canonical: bytes  # the bytes the chain hash and the MAC are computed over
    # Problems that leave the receipt usable for the rules but make its run uncertain (a missing
    # sourceVersion, an unknown field, ...): the fields concerned are None in `facts`.
    uncertain: str | None = None
