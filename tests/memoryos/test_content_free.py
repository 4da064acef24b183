"""Content-free means content-free: canaries in texts, keys, queries and scope ids never reach
receipts, the outbox, exported JSONL or log output."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import memoryos

CANARIES = {
    "text": "zqxcanarytextjv",
    "key": "zqxcanarykeyjv",
    "query": "zqxcanaryqueryjv",
    "user": "zqxcanaryuserjv",
    "assistant": "zqxcanaryassistantjv",
    "session": "zqxcanarysessionjv",
    "proof": "zqxcanaryproofjv",
    "source": "zqxcanarysourcejv",
}


def test_no_canary_reaches_receipts_outbox_or_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="memoryos")
    db = tmp_path / "m.db"
    scope = memoryos.Scope(
        user=CANARIES["user"], assistant=CANARIES["assistant"], session=CANARIES["session"]
    )
    with memoryos.open(db, stm_capacity=3, heat_threshold=2) as mem:
        for i in range(10):
            mem.remember(scope, f"{CANARIES['text']} I like rust note {i}.", source=CANARIES["source"])
        mem.put(scope, CANARIES["key"], f"{CANARIES['text']} body", proof=CANARIES["proof"])
        mem.correct(scope, CANARIES["key"], f"{CANARIES['text']} corrected")
        result = mem.recall(scope, f"{CANARIES['query']} {CANARIES['text']}", explain=True)
        mem.generated(scope, result.run_id, depends_on=result.refs)
        mem.maintain()
        mem.forget(scope, CANARIES["key"])
        exported = tmp_path / "receipts.jsonl"
        mem.export_receipts(exported)
        from receipts import read_outbox

        outbox = b"\n".join((line.receipt and repr(line.receipt).encode()) or b"" for line in read_outbox(db))
    assert caplog.records, "the operations above should have logged something"
    haystacks = {"outbox": outbox, "export": exported.read_bytes(), "logs": caplog.text.encode()}
    for where, data in haystacks.items():
        for what, canary in CANARIES.items():
            assert canary.encode() not in data, f"{what} leaked into {where}"
