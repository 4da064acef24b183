"""Agent-host integration on the library side: context(), background maintenance, workers."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import memoryos
from receipts import read_outbox
from tests.memoryos.conftest import FakeClock


class TestContext:
    def test_named_keys_come_first_then_recall_within_the_budget(
        self, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
    ) -> None:
        mem.put(alice, "deploy:blyck", "make release after migrating staging", kind="procedure")
        for i in range(5):
            mem.remember(alice, f"the blyck staging database note {i} is long enough to cost tokens")
        block = mem.context(alice, "how do I run deploy:blyck for staging?", budget_tokens=40)
        assert block.text.splitlines()[0] == "[deploy:blyck] make release after migrating staging"
        assert block.tokens <= 40 and len(block.refs) >= 2
        mem.generated(alice, block.run_id, depends_on=block.refs)
        retrieved = {
            f"{r['memoryId']}@{r['version']}"
            for line in read_outbox(db)
            if (r := line.receipt) and r["boundary"] == "retrieve" and r["runId"] == block.run_id
        }
        assert retrieved == set(block.refs)

    def test_another_scope_contributes_nothing(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        mem.put(bob, "deploy:blyck", "bob's way")
        mem.remember(bob, "bob deploys blyck on fridays")
        block = mem.context(alice, "deploy:blyck on fridays")
        assert block.text == "" and block.refs == []


class TestOffTheRequestPath:
    def test_background_maintenance_promotes_idle_turns(self, db: Path, alice: memoryos.Scope) -> None:
        clock = FakeClock()
        with memoryos.open(db, clock=clock, background=True, background_interval_seconds=0.05) as mem:
            mem.remember(alice, "an idle turn")
            clock.advance(hours=1)
            deadline = time.monotonic() + 10
            while mem.status()["tiers"]["stm"] and time.monotonic() < deadline:
                time.sleep(0.05)
            assert mem.status()["tiers"]["stm"] == 0

    def test_two_workers_promote_a_backlog_once(self, tmp_path: Path) -> None:
        db = tmp_path / "m.db"
        config = tmp_path / "config.json"
        config.write_text('{"stm_capacity": 50, "stm_idle_seconds": 0.001, "heat_threshold": 3}')
        scopes = [memoryos.Scope(user=f"user-{i}", assistant="coder") for i in range(4)]
        with memoryos.open(db, stm_capacity=50, stm_idle_seconds=0.001, heat_threshold=3) as mem:
            stored = [
                mem.remember(s, f"{s.user} likes rust and kiwis, note {n}.")
                for s in scopes
                for n in range(12)
            ]
        command = [
            sys.executable,
            "-m",
            "memoryos",
            "worker",
            "--db",
            str(db),
            "--config",
            str(config),
            "--passes",
            "3",
            "--interval",
            "0.05",
        ]
        workers = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)
        ]
        for worker in workers:
            _, err = worker.communicate(timeout=120)
            assert worker.returncode == 0, err.decode()
        receipts = [line.receipt for line in read_outbox(db) if line.receipt]
        promoted = [r["derivedFrom"][0].split("@")[0] for r in receipts if r["boundary"] == "stm_to_mtm"]
        assert sorted(promoted) == sorted(s.memory_id for s in stored)  # every turn once, none twice
        started = {r["runId"] for r in receipts if r["boundary"] == "mtm_to_lpm" and r["status"] == "started"}
        ended = {r["runId"] for r in receipts if r["boundary"] == "mtm_to_lpm" and r["status"] != "started"}
        assert started and started == ended  # every claimed intent ended, none lost
        with memoryos.open(db) as mem:
            assert mem.check() == [] and mem.status()["open_intents"] == 0
