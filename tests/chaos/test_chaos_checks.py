"""The harness's own checks see each kind of damage they claim to see (a check that cannot fail
proves nothing)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memoryos
from chaos.checks import chain_problems, run_problems, snapshot, verify_state
from chaos.workload import CONFIG, FakeClock

SCOPE = memoryos.Scope("alice", "coder")


def ack(stored: memoryos.Stored, text: str) -> dict[str, Any]:
    return {"op": "remember", "id": stored.memory_id, "sha": hashlib.sha256(text.encode()).hexdigest()}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def acks(store: Path) -> Iterator[list[dict[str, Any]]]:
    """Five turns: with STM capacity 3, three are pages in MTM and two wait in STM."""
    clock = FakeClock()
    found = []
    with memoryos.open(store, clock=clock, **CONFIG) as mem:
        for n in range(5):
            text = f"espresso grinder beans number {n}"
            found.append(ack(mem.remember(SCOPE, text), text))
            clock.advance(5)
    yield found


def execute(store: Path, sql: str) -> None:
    conn = sqlite3.connect(store, isolation_level=None)
    try:
        conn.execute(sql)
    finally:
        conn.close()


def test_an_undamaged_store_passes_every_check(store: Path, acks: list[dict[str, Any]]) -> None:
    tally = verify_state(store, acks)
    assert (tally.lost, tally.duplicated, tally.mismatches, tally.findings) == (0, 0, 0, [])


def test_a_turn_deleted_from_stm_behind_the_receipts_back_is_lost(
    store: Path, acks: list[dict[str, Any]]
) -> None:
    execute(store, f"DELETE FROM units WHERE memory_id = '{acks[-1]['id']}'")
    assert verify_state(store, acks).lost == 1


def test_a_page_deleted_from_mtm_loses_its_turn(store: Path, acks: list[dict[str, Any]]) -> None:
    execute(store, f"DELETE FROM units WHERE tier = 'mtm' AND source_ids LIKE '%{acks[0]['id']}%'")
    assert verify_state(store, acks).lost >= 1


def test_a_turn_both_in_stm_and_in_a_page_is_duplicated(store: Path, acks: list[dict[str, Any]]) -> None:
    execute(
        store,
        "INSERT INTO units (memory_id, version, tier, user_scope, assistant_scope, body, created_at,"
        f" valid_from, last_seen, run_id, source_ids) SELECT '{acks[0]['id']}', 1, 'stm', u.user_scope,"
        " u.assistant_scope, u.body, u.created_at, u.valid_from, u.last_seen, u.run_id, '[]'"
        f" FROM units u WHERE u.tier = 'mtm' AND u.source_ids LIKE '%{acks[0]['id']}%'",
    )
    assert verify_state(store, acks).duplicated >= 1


def test_changed_text_is_a_mismatch(store: Path, acks: list[dict[str, Any]]) -> None:
    execute(store, f"UPDATE units SET body = 'other' WHERE memory_id = '{acks[-1]['id']}'")
    assert verify_state(store, acks).mismatches >= 1


def test_a_removed_receipt_is_a_chain_gap(store: Path, acks: list[dict[str, Any]]) -> None:
    execute(store, "DELETE FROM receipt_outbox WHERE seq = 2")
    receipts = snapshot(store).receipts
    assert any("seq gap" in p for p in chain_problems(receipts, None))


def test_a_started_run_without_an_end_is_reported() -> None:
    started = {"runId": "r", "boundary": "mtm_to_lpm", "status": "started"}
    assert run_problems([started]) == ["run r started and never ended"]
    assert run_problems([started, {**started, "status": "failed"}]) == []
    both = [started, {**started, "status": "committed"}, {**started, "status": "failed"}]
    assert run_problems(both) == ["run r both committed and failed"]
