"""End to end: receipts written by the real memoryos store, audited through the command line.

The auditor package never imports memoryos; only this test does, to produce real evidence.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memoryos
from auditor import audit
from auditor.cli import main
from memoryos.testing import FakeClock
from receipts import format_utc

START = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
TURNS = [
    "we deploy blyck with make release",
    "staging needs the database migration first",
    "the release train leaves on thursdays",
    "rollbacks use make rollback with the previous tag",
    "the on-call rota is in the ops wiki",
    "feature flags live in flags.yaml",
    "integration tests run nightly",
    "blyck uses postgres 16 in production",
    "cache warmup takes about five minutes",
    "release notes go into CHANGELOG.md",
]


def workload(db: Path, clock: FakeClock, *, maintain: bool) -> None:
    """Two sessions of a coding assistant: remember, recall, generate, and (optionally) upkeep."""
    alice = memoryos.Scope(user="alice", assistant="coder")
    bob = memoryos.Scope(user="bob", assistant="coder")
    mem = memoryos.open(db, clock=clock)
    try:
        for index, text in enumerate(TURNS):
            mem.remember(alice if index % 4 else bob, text, role="user")
            clock.advance(seconds=20)
            if index % 3 == 2:
                res = mem.recall(alice, "how do we release blyck", k=5)
                mem.generated(alice, res.run_id, depends_on=[h.ref for h in res.hits])
                clock.advance(seconds=5)
        clock.advance(hours=1)  # past the 30-minute idle window
        if maintain:
            mem.maintain()
        for text in TURNS[:3]:
            mem.remember(alice, text + " (again)", role="user")
            clock.advance(seconds=10)
        res = mem.recall(alice, "release", k=5)
        mem.generated(alice, res.run_id, depends_on=[h.ref for h in res.hits])
        if maintain:
            mem.maintain()
    finally:
        mem.close()


def test_a_maintained_store_audits_healthy_or_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = FakeClock(start=START, tick=timedelta(0))
    db = tmp_path / "agent.db"
    workload(db, clock, maintain=True)
    code = main(["check", "--db", str(db), "--now", format_utc(clock.now), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] in {"healthy", "waiting"}, report["runs"]
    assert code in {0, 1}
    assert report["receipts"] > len(TURNS)
    assert report["sourceVersions"]


def test_an_unmaintained_store_past_its_wait_windows_is_promotion_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = FakeClock(start=START, tick=timedelta(0))
    db = tmp_path / "agent.db"
    workload(db, clock, maintain=False)
    later = format_utc(clock.now + timedelta(hours=2))
    assert main(["check", "--db", str(db), "--now", later, "--format", "json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "promotion_missing", report["runs"]
    rules = {f["rule"] for run in report["runs"] for f in run["findings"]}
    assert "promotion.overdue" in rules


def test_exported_receipts_audit_like_the_outbox(tmp_path: Path) -> None:
    clock = FakeClock(start=START, tick=timedelta(0))
    db = tmp_path / "agent.db"
    workload(db, clock, maintain=True)
    with memoryos.open(db, clock=clock) as mem:
        mem.export_receipts(tmp_path / "receipts.jsonl")
    from_file = audit(tmp_path / "receipts.jsonl", now=clock.now)
    from_store = audit([], now=clock.now, stores=[db])
    assert from_file.verdict == from_store.verdict
    assert from_file.counts == from_store.counts
