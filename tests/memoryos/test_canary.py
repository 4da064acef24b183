"""The canary gate (issue 7): a canary driven through the real path of a store, then audited.

Each run starts three child processes and the auditor, so the end-to-end tests share runs where
they can; the judging rules are pure functions, tested on their own below.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

import memoryos
from memoryos import canary
from memoryos.canary import Canary, CanaryVerdict, run_canary
from memoryos.promotion import content_hash
from memoryos.settings import ENV_FAILPOINTS, Config
from memoryos.store.rows import Unit
from memoryos.testing import FakeClock

PINNED = {"schema", "verdict", "passed", "sourceVersion", "configHash", "durability", "steps", "at"}
STEPS = {"store", "stm_to_mtm", "mtm_to_lpm", "recall", "verified", "generated", "erased"}
ALICE = memoryos.Scope(user="alice", assistant="coder")
BOB = memoryos.Scope(user="bob", assistant="writer")


@pytest.fixture(autouse=True)
def _no_fault_or_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children inherit the environment: keep a developer's failpoints or model out of them."""
    for name in (ENV_FAILPOINTS, "MEMORYOS_LLM_URL", "MEMORYOS_DURABILITY"):
        monkeypatch.delenv(name, raising=False)


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    return data


def _existing_store(path: Path) -> dict[str, list[tuple[str, str]]]:
    """A store with other users' memories, written a while ago; returns what each user recalls."""
    with memoryos.open(path, clock=FakeClock()) as mem:
        for i in range(3):  # below STM capacity: these turns stay in STM
            mem.remember(ALICE, f"alice deploys blyck with make ship, note {i}")
        mem.put(BOB, "style:titles", "titles in sentence case", kind="rule")
        return _recalled(mem)


def _recalled(mem: memoryos.Memory) -> dict[str, list[tuple[str, str]]]:
    return {
        "alice": [(h.ref, h.text) for h in mem.recall(ALICE, "blyck ship").hits],
        "bob": [(h.ref, h.text) for h in mem.recall(BOB, "titles sentence case").hits],
    }


# -- end to end ---------------------------------------------------------------------------------
class TestHealthyPath:
    def test_a_fresh_temporary_store_passes_and_the_verdict_pins_versions_without_canary_text(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        out = tmp_path / "verdict.json"
        assert run_canary(None, None, str(out)) == 0
        printed = capsys.readouterr()
        assert printed.out.startswith("canary: healthy") and printed.out.count("\n") == 1
        verdict = _read(out)
        assert verdict.keys() >= PINNED and verdict["schema"] == "memoryos.canary/1"
        fingerprint = Config().fingerprint()
        assert verdict["configHash"] == fingerprint
        assert verdict["sourceVersion"] == f"memoryos/{memoryos.__version__}+{fingerprint}"
        assert verdict["passed"] is True and verdict["verdict"] == "healthy"
        assert set(verdict["steps"]) == STEPS and all(verdict["steps"].values())
        assert verdict["crossedQueries"] == {"checked": 20, "leaks": 0}
        assert verdict["degradedPath"]["exercised"] and verdict["degradedPath"]["labelled"]
        assert verdict["restarts"] == 3 and verdict["auditor"]["verdict"] == "healthy"
        text = out.read_text()
        assert "cnry" not in text and "canary-" not in text and "memory path" not in text

    def test_an_existing_store_passes_and_other_users_memories_are_untouched(self, tmp_path: Path) -> None:
        db = tmp_path / "agent.db"
        before = _existing_store(db)
        verdict = Canary(db).run()
        assert verdict.passed, verdict.reason
        # The other users' evidence is older than the canary's max age: the store as a whole is not
        # healthy, yet only the canary's own runs decide the canary.
        assert verdict.auditor["storeVerdict"] != "healthy"
        with memoryos.open(db) as mem:
            assert _recalled(mem) == before
            assert mem.status()["tiers"]["stm"] == 3  # nothing of theirs was promoted by the canary
            assert mem.status()["tiers"]["lpm"] == 1
            assert mem.status()["tiers"]["mtm_pages"] == 0  # and nothing of the canary remains

    def test_the_configuration_under_test_drives_the_real_triggers(self, tmp_path: Path) -> None:
        config = tmp_path / "memoryos.json"
        config.write_bytes(orjson.dumps({"stm_capacity": 3, "heat_threshold": 12}))
        out = tmp_path / "verdict.json"
        assert run_canary(None, str(config), str(out)) == 0
        verdict = _read(out)
        assert verdict["configHash"] == Config(stm_capacity=3, heat_threshold=12).fingerprint()
        assert verdict["steps"]["store"] == 5 * 3  # five canary scopes filled to capacity
        # 3 pages + 1 heat is not hot at 12: only recalls (visits) could make it so
        assert verdict["steps"]["recall"] > 5 * 8 * 3


class TestCannotRun:
    def test_a_corrupted_store_exits_2_with_one_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = tmp_path / "agent.db"
        db.write_bytes(os.urandom(8192))
        out = tmp_path / "verdict.json"
        assert run_canary(str(db), None, str(out)) == 2
        err = capsys.readouterr().err
        assert err.startswith("canary: cannot_run: cannot open") and err.count("\n") == 1
        assert _read(out)["verdict"] == "cannot_run" and db.stat().st_size == 8192

    def test_a_missing_store_is_not_created(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        db = tmp_path / "nowhere" / "agent.db"
        assert run_canary(str(db), None, None) == 2
        assert "no store at" in capsys.readouterr().err and not db.parent.exists()

    def test_a_read_only_store_exits_2_and_stays_as_it_was(self, tmp_path: Path) -> None:
        folder = tmp_path / "ro"
        folder.mkdir()
        before = _existing_store(folder / "agent.db")
        command = [sys.executable, "-m", "memoryos.canary", "--db", str(folder / "agent.db")]
        done = _run_read_only(folder, command)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("canary: cannot_run: cannot open")
        with memoryos.open(folder / "agent.db") as mem:
            assert _recalled(mem) == before

    def test_a_missing_auditor_exits_2(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = importlib.util.find_spec

        def without_auditor(name: str, package: str | None = None) -> Any:
            return None if name == "auditor" else real(name, package)

        monkeypatch.setattr(importlib.util, "find_spec", without_auditor)
        verdict = Canary(None).run()
        assert verdict.exit_code == 2 and "auditor is not installed" in verdict.reason


def _run_read_only(folder: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run `command` where `folder` is truly read-only. Root ignores file modes, so as root the
    folder is bind-mounted read-only in a private mount namespace; otherwise its modes suffice."""
    if os.geteuid() != 0:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        try:
            return subprocess.run(command, capture_output=True, text=True, check=False)
        finally:
            folder.chmod(0o755)
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without unshare(1): no way to make a store read-only")
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    done = subprocess.run(
        [unshare, "-m", "sh", "-c", script, "sh", str(folder), *command],
        capture_output=True,
        text=True,
        check=False,
    )
    if "mount" in done.stderr and done.returncode != 2:
        pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()[:200]}")
    return done


class TestBrokenMemoryos:
    def test_an_injected_fault_fails_the_canary_and_leaves_no_canary_memory(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        db = tmp_path / "agent.db"
        before = _existing_store(db)
        monkeypatch.setenv(ENV_FAILPOINTS, "store.before_commit=4*raise")
        verdict = Canary(db).run()
        assert verdict.exit_code == 1 and verdict.reason.startswith("batch write: InjectedFault")
        with memoryos.open(db) as mem:
            assert _recalled(mem) == before
            assert mem.status()["tiers"]["stm"] == 3 and mem.status()["tiers"]["mtm_pages"] == 0

    def test_a_process_killed_mid_promotion_fails_the_canary(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(ENV_FAILPOINTS, "mtm_to_lpm.after_intent=kill")
        verdict = Canary(None).run()
        assert verdict.exit_code == 1 and "died (signal 9)" in verdict.reason


# -- the judging rules ----------------------------------------------------------------------------
def _unit(tier: str, body: str, source_ids: tuple[str, ...]) -> Unit:
    return Unit("m1", 1, tier, "u", "a", body, 0, 0, 0, "r", source_ids=source_ids)


class TestReadBack:
    TURNS: ClassVar[dict[str, str]] = {
        "t1": content_hash("canary cnrytoken turn 0"),
        "t2": content_hash("canary cnrytoken turn 1"),
    }

    def test_a_page_matches_only_the_turn_it_moved(self) -> None:
        assert canary._matches(_unit("mtm", "canary cnrytoken turn 0", ("t1",)), "cnrytoken", self.TURNS)
        assert not canary._matches(_unit("mtm", "canary cnrytoken turn 9", ("t1",)), "cnrytoken", self.TURNS)

    def test_a_record_must_descend_only_from_canary_turns_and_carry_the_token(self) -> None:
        assert canary._matches(_unit("lpm", "cnrytoken turn", ("t1", "t2")), "cnrytoken", self.TURNS)
        assert not canary._matches(_unit("lpm", "cnrytoken turn", ("t1", "x")), "cnrytoken", self.TURNS)
        assert not canary._matches(_unit("lpm", "other text", ("t1",)), "cnrytoken", self.TURNS)


class TestJudging:
    RUNS: ClassVar[set[str]] = {"r1", "r2"}

    def test_only_the_canarys_runs_and_unattributed_lines_decide(self) -> None:
        runs: list[dict[str, Any]] = [{"runId": "old", "verdict": "uncertain", "findings": []}]
        report = {"verdict": "uncertain", "runs": runs}
        assert canary._audit_summary(report, self.RUNS)["verdict"] == "healthy"
        runs.append({"runId": "-", "verdict": "uncertain", "findings": [{"rule": "evidence.gap"}]})
        summary = canary._audit_summary(report, self.RUNS)
        assert summary["verdict"] == "uncertain" and summary["rules"] == ["evidence.gap"]

    def test_the_worst_canary_run_is_the_verdict(self) -> None:
        runs = [
            {"runId": "r1", "verdict": "waiting", "findings": [{"rule": "waiting.window"}]},
            {"runId": "r2", "verdict": "scope_conflict", "findings": [{"rule": "scope.lineage"}]},
        ]
        summary = canary._audit_summary({"verdict": "scope_conflict", "runs": runs}, self.RUNS)
        assert summary["verdict"] == "scope_conflict" and summary["counts"]["healthy"] == 0

    def test_a_leak_a_mismatch_or_a_missing_transition_is_a_problem(self) -> None:
        steps = {"u1a1": Counter(store=3, stm_to_mtm=3, recall=1, verified_mtm=1, generated=1, erased=1)}
        evidence = canary._Evidence(steps, set())
        results = {"crossed": {"checked": 20, "leaks": 2}, "readback": {"u1a1": {"mismatched": 1}}}
        healthy = {"verdict": "healthy", "rules": []}
        problems = canary._problems(evidence, results, healthy, 3)
        assert problems[0] == "scope u1a1: 0 mtm_to_lpm receipt(s), expected at least 1"
        assert any("crossed" in p for p in problems) and any("do not match" in p for p in problems)
        assert any("degraded path was not exercised" in p for p in problems)

    def test_a_verdict_maps_to_its_exit_code(self) -> None:
        healthy = CanaryVerdict("healthy", "")
        assert healthy.exit_code == 0 and replace(healthy, verdict="unhealthy").exit_code == 1
        assert replace(healthy, verdict="cannot_run").exit_code == 2
