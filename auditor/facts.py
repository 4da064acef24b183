"""What the rules read of one valid receipt: `Facts`, and `Parsed` (facts plus canonical bytes)."""

from __future__ import annotations

from typing import NamedTuple

from receipts import FIELDS

__all__ = ["FACT_KEYS", "Facts", "Parsed"]


class Facts(NamedTuple):
    """A valid receipt, one slot per field of receipts.model.FIELDS (None where absent)."""

    receipt_id: str
    run_id: str
    chain_id: str
    seq: int
    prev: str
    at: str
    boundary: str
    status: str
    source_version: str | None
    memory_id: str | None
    version: int | None
    derived_from: list[str] | None
    user_scope: str | None
    assistant_scope: str | None
    from_tier: str | None
    to_tier: str | None
    source_present: bool | None
    wait_until: str | None
    depends_on: list[str] | None
    outcome: str | None
    degraded: bool | None
    reason: str | None
    mac: str | None
    schema: str


FACT_KEYS = (
    "receiptId",
    "runId",
    "chainId",
    "seq",
    "prev",
    "atUtc",
    "boundary",
    "status",
    "sourceVersion",
    "memoryId",
    "version",
    "derivedFrom",
    "userScope",
    "assistantScope",
    "fromTier",
    "toTier",
    "sourcePresent",
    "waitUntilUtc",
    "dependsOnVersion",
    "outcomeReceipt",
    "degraded",
    "reason",
    "mac",
    "schema",
)
assert set(FACT_KEYS) == set(FIELDS), "Facts must mirror receipts.model.FIELDS"


class Parsed(NamedTuple):
    facts: Facts
    canonical: bytes  # the bytes the chain hash and the MAC are computed over
    # Problems that leave the receipt usable for the rules but make its run uncertain (a missing
    # sourceVersion, an unknown field, ...): the fields concerned are None in `facts`.
    uncertain: str | None = None
