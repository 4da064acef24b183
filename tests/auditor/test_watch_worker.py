"""`memoryos worker --audit`: the maintain loop with a watcher beside it, stopped together."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

import memoryos
from auditor import audit
from auditor.watch import read_verdict
from receipts import read_key_file

ALICE = memoryos.Scope(user="alice", assistant="coder")


def test_a_worker_with_audit_leaves_a_verified_verdict_and_stops_its_watcher(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    with memoryos.open(db) as mem:
        for i in range(4):
            mem.remember(ALICE, f"note {i}")
    command = [sys.executable, "-m", "memoryos", "worker", "--db", str(db), "--interval", "0.2"]
    command += ["--audit", "--audit-interval", "0.2"]
    worker = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    verdict = Path(f"{db}.audit-verdict")
    deadline = time.monotonic() + 30
    while not verdict.exists() and time.monotonic() < deadline and worker.poll() is None:
        time.sleep(0.05)
    worker.send_signal(signal.SIGINT)
    out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    totals = orjson.loads(out)
    assert totals["audit"] == {"state": f"{db}.audit-state", "verdict": str(verdict), "exit": 0}
    body = read_verdict(verdict, read_key_file(db.with_name(db.name + ".receipt-key")))
    assert body["report"]["verdict"] == audit([], stores=[db]).verdict
    assert b'"event":"watch stopped"' in err  # the watcher's log reaches the worker's stderr


def test_audit_is_refused_for_a_url(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memoryos", "worker", "--db", "postgresql://x/y", "--audit", "--once"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2 and b"give a store file" in done.stderr
