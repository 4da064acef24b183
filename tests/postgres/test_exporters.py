"""Exporters of one outbox cursor never read the same receipts: the cursor row is claimed FOR
UPDATE SKIP LOCKED, so a second exporter skips instead of duplicating (or waiting)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import orjson

import memoryos
from memoryos.store.postgres import PostgresStore
from receipts import uuid7
from tests.memoryos.store_contract import receipt_draft
from tests.pg_server import pg_url

__all__ = ["pg_url"]


def test_a_cursor_held_by_one_exporter_is_skipped_by_another(pg_url: str) -> None:
    store = PostgresStore(pg_url, durability="full", busy_timeout_ms=2000, clock=lambda: datetime.now(UTC))
    store.bind_receipts("chain", b"k" * 32)
    with store.write("store") as tx:
        for _ in range(3):
            tx.emit(receipt_draft(uuid7()))
        tx.set_cursor("default", 0)  # a cursor that exists (its first claim inserts the row)
    held, release = threading.Event(), threading.Event()
    exported: list[list[int]] = []

    def first() -> None:
        with store.write("export") as tx:
            start = tx.claim_cursor("default")
            assert start == 0
            exported.append([seq for seq, _ in tx.outbox_after(start, 10)])
            held.set()
            release.wait(10)
            tx.set_cursor("default", exported[0][-1])

    worker = threading.Thread(target=first)
    worker.start()
    assert held.wait(10)
    with store.write("export") as tx:
        assert tx.claim_cursor("default") is None  # at once, not after the first one's commit
        assert tx.claim_cursor("other") == 0  # another cursor is free
    release.set()
    worker.join(10)
    with store.write("export") as tx:
        assert tx.claim_cursor("default") == 3
    assert exported == [[1, 2, 3]]
    store.close()


def _exported_ids(path: Path) -> list[str]:
    if not path.exists():  # an exporter that found the cursor claimed throughout wrote nothing
        return []
    return [orjson.loads(line)["receiptId"] for line in path.read_bytes().splitlines()]


def test_exporters_of_one_cursor_racing_through_the_api_append_each_receipt_once(
    pg_url: str, tmp_path: Path
) -> None:
    scope = memoryos.Scope(user="exporter", assistant="race")
    with memoryos.open(pg_url) as writer:
        for n in range(1200):  # more than one export batch
            writer.remember(scope, f"turn {n}")
    memories = [memoryos.open(pg_url) for _ in range(3)]
    files = [tmp_path / f"export-{n}.jsonl" for n in range(3)]
    start = threading.Barrier(3)

    def export(n: int) -> None:
        start.wait()
        memories[n].export_receipts(files[n])

    workers = [threading.Thread(target=export, args=(n,)) for n in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    memories[0].export_receipts(files[0])  # what a skipped exporter left: the rest, once
    ids = [rid for path in files for rid in _exported_ids(path)]
    for mem in memories:
        mem.close()
    assert len(ids) == len(set(ids)), "a receipt was exported twice"
    with memoryos.open(pg_url) as mem:
        assert mem.export_receipts(tmp_path / "rest.jsonl") == 0  # nothing was left behind
    assert len(ids) >= 1200
