"""stamp() copies a draft without None fields (at C level when there are none) and never edits it."""

from __future__ import annotations

from datetime import UTC, datetime

from receipts import ChainHead, pipeline, uuid7

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_stamp_drops_none_fields_and_leaves_the_draft_alone() -> None:
    draft = {"runId": uuid7(), "reason": None, "boundary": "store"}
    stamped = pipeline.stamp(draft, ChainHead("c"), AT)
    assert "reason" not in stamped and stamped["boundary"] == "store" and stamped["seq"] == 1
    plain = {"runId": draft["runId"], "boundary": "store"}
    assert pipeline.stamp(plain, ChainHead("c"), AT).keys() == stamped.keys()
    assert draft["reason"] is None and "receiptId" not in plain  # neither draft was modified
