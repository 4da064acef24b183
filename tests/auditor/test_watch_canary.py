"""The canary gate judges by a running watcher's verdict file when it covers the canary and verifies,
and audits by itself when it does not."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import memoryos
from memoryos import canary
from memoryos.canary import Canary

ALICE = memoryos.Scope(user="alice", assistant="coder")


def no_auditor(*args: Any) -> dict[str, Any]:
    raise AssertionError("the canary audited again instead of reading the watcher's verdict")


def a_store(tmp_path: Path) -> Path:
    db = tmp_path / "agent.db"
    with memoryos.open(db) as mem:
        mem.remember(ALICE, "an existing memory")
    return db


def test_a_running_watchers_verdict_stands_for_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, verdict = a_store(tmp_path), tmp_path / "verdict"
    command = [sys.executable, "-m", "auditor", "watch", "--db", str(db), "--interval", "0.3"]
    command += ["--state", str(tmp_path / "state"), "--verdict", str(verdict)]
    watcher = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    monkeypatch.setattr(canary, "_run_auditor", no_auditor)
    try:
        result = Canary(db, watch_verdict=verdict, watch_wait=60).run()
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=30)
    assert result.passed, result.reason
    assert result.auditor["source"] == "watch" and result.auditor["verdict"] == "healthy"


def test_a_verdict_that_does_not_verify_is_not_used(tmp_path: Path) -> None:
    db, verdict = a_store(tmp_path), tmp_path / "verdict"
    forged = b'{"mac":"00","schema":"memoryos.audit-verdict/1"}\n'
    verdict.write_bytes(forged + b'{"covered":{},"report":{"verdict":"healthy","runs":[]},"writtenAt":"x"}\n')
    result = Canary(db, watch_verdict=verdict, watch_wait=0.5).run()
    assert result.passed, result.reason
    assert result.auditor["source"] == "audit"
    assert "does not verify" in result.auditor["watch"]
