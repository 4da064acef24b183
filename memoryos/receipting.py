"""Receipt drafts for each boundary (docs/receipts.md). The store seals them in its transaction."""

from __future__ import annotations

from typing import Any

from memoryos.store.rows import Unit


class Drafts:
    """Builds content-free drafts: ids, versions, pseudonymous scopes and codes only."""

    def __init__(self, source_version: str) -> None:
        self.source_version = source_version

    def base(
        self, run_id: str, boundary: str, status: str, user: str, assistant: str, **extra: Any
    ) -> dict[str, Any]:
        return {
            "runId": run_id,
            "boundary": boundary,
            "status": status,
            "userScope": user,
            "assistantScope": assistant,
            "sourceVersion": self.source_version,
            **extra,
        }

    def about(self, run_id: str, boundary: str, unit: Unit, **extra: Any) -> dict[str, Any]:
        """A committed receipt about one unit."""
        return self.base(
            run_id,
            boundary,
            extra.pop("status", "committed"),
            unit.user_scope,
            unit.assistant_scope,
            memoryId=unit.memory_id,
            version=unit.version,
            **extra,
        )

    def promoted(self, run_id: str, turn: Unit, page: Unit) -> dict[str, Any]:
        """A turn that became an MTM page; the turn left STM in the same transaction. The same draft
        as `about(run_id, "stm_to_mtm", page, ...)`, built in one literal: a promotion writes one
        per page (tests/memoryos/test_promotion_cost.py holds the two equal)."""
        return {
            "runId": run_id,
            "boundary": "stm_to_mtm",
            "status": "committed",
            "userScope": page.user_scope,
            "assistantScope": page.assistant_scope,
            "sourceVersion": self.source_version,
            "memoryId": page.memory_id,
            "version": page.version,
            "fromTier": "stm",
            "toTier": "mtm",
            "derivedFrom": [f"{turn.memory_id}@{turn.version}"],
            "sourcePresent": False,
        }

    def removal(self, run_id: str, boundary: str, unit: Unit, reason: str) -> dict[str, Any]:
        """An intentional removal (evict, expire, forget): accounted for, not at risk."""
        return self.about(
            run_id,
            boundary,
            unit,
            fromTier=unit.tier,
            reason=reason,
            sourcePresent=False,
            derivedFrom=list(unit.derived_from) or None,
        )

    def rollback(
        self, run_id: str, boundary: str, user: str, assistant: str, *, source_present: bool
    ) -> dict[str, Any]:
        """A run that applied nothing ends `failed`. It released nothing either: `sourcePresent` is
        stated only while the source still exists; a source gone meanwhile left its own receipts
        (evict, forget), so claiming its absence here would read as a release."""
        return self.base(
            run_id,
            boundary,
            "failed",
            user,
            assistant,
            fromTier="mtm",
            toTier="lpm",
            sourcePresent=True if source_present else None,
        )
