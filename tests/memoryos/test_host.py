"""Agent-host integration on the library side: context(), background maintenance, workers."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import orjson
import pytest

import memoryos
from memoryos.cli import main
from memoryos.testing import FakeClock
from receipts import read_outbox


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


class TestCapture:
    DEPLOY: ClassVar[dict[str, object]] = {
        "type": "deploy",
        "target": "blyck",
        "command": "make release",
        "exit_status": 0,
    }

    def test_a_successful_deploy_waits_for_approval_then_enters_the_drawer(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        candidate = mem.observe(alice, self.DEPLOY)
        assert candidate is not None and candidate.kind == "capability" and candidate.key == "deploy:blyck"
        assert mem.get(alice, "deploy:blyck") is None  # nothing enters the drawer before approval
        stored = mem.approve(alice, candidate.candidate_id)
        record = mem.get(alice, "deploy:blyck")
        assert record is not None and record.memory_id == stored.memory_id and record.proof
        assert mem.candidates(alice) == []
        assert [c.status for c in mem.candidates(alice, status=None)] == ["approved"]

    def test_failures_trivia_and_secrets_make_no_candidate(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        assert mem.observe(alice, {**self.DEPLOY, "exit_status": 1}) is None
        assert mem.observe(alice, {"type": "file_read", "target": "README.md", "exit_status": 0}) is None
        secret = {"type": "command", "command": "PGPASSWORD=hunter2 psql -h db", "exit_status": 0}
        assert mem.observe(alice, secret) is None
        assert mem.candidates(alice, status=None) == []

    def test_rejecting_erases_the_candidate_and_other_scopes_cannot_decide(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope
    ) -> None:
        rule = mem.observe(alice, {"type": "instruction", "text": "never touch the PROD database"})
        assert rule is not None and rule.kind == "rule"
        with pytest.raises(memoryos.NotFound):
            mem.approve(bob, rule.candidate_id)
        mem.reject(alice, rule.candidate_id)
        (decided,) = mem.candidates(alice, status=None)
        assert decided.status == "rejected" and decided.body == "" and decided.key == ""

    def test_a_bad_event_is_invalid_input(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        with pytest.raises(memoryos.InvalidInput):
            mem.observe(alice, {"type": "deploy", "exit_status": "zero"})

    def test_the_cli_lists_and_approves(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        db = str(tmp_path / "c.db")
        scope = ["--user", "u", "--assistant", "a"]
        assert main(["observe", "--db", db, *scope, "--event", orjson.dumps(self.DEPLOY).decode()]) == 0
        candidate_id = orjson.loads(capsys.readouterr().out)["candidate"]["candidate_id"]
        assert main(["candidates", "approve", candidate_id, "--db", db, *scope]) == 0
        capsys.readouterr()
        assert main(["candidates", "list", "--db", db, *scope]) == 0
        assert orjson.loads(capsys.readouterr().out) == []
