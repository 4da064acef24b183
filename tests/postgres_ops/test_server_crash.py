"""The server itself crashes (`pg_ctl restart -m immediate`, then the same crash with the server held
down for a moment) while 4 writer processes run: every acknowledged turn is there exactly once
afterwards; while the server is down the writers get a StoreError (never a psycopg exception), and
they carry on when it is back. The cluster is the
module's own, on a port of its own: the machine's shared server is never touched."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import orjson

import memoryos
from tests.pg_server import Cluster, database_url
from tests.postgres_ops.inventory import inventory, problems
from tests.postgres_ops.writer import CONFIG

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 4
SECONDS = 12.0
#: Long enough for every writer to try (and fail) while the server is down.
DOWN_SECONDS = 1.5


class Reader(threading.Thread):
    """Collects one writer's acknowledgements as they arrive (so the test can wait for progress)."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.records: list[dict[str, Any]] = []

    def run(self) -> None:
        for line in self.stream:
            self.records.append(orjson.loads(line))

    def count(self, op: str) -> int:
        return sum(1 for r in self.records if r.get("op") == op)


def spawn_writer(url: str, n: int) -> subprocess.Popen[bytes]:
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "PYTHONPATH": path}
    argv = [sys.executable, "-m", "tests.postgres_ops.writer", "--db", url, "--writer", str(n)]
    return subprocess.Popen(
        [*argv, "--seconds", str(SECONDS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT
    )


def wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_server_crash_loses_no_acknowledged_turn(own_cluster: Cluster, tmp_path: Path) -> None:
    import psycopg

    with psycopg.connect(own_cluster.url, autocommit=True) as conn:
        conn.execute('CREATE DATABASE "crash"')
    url = database_url("crash", own_cluster.url)
    memoryos.open(url, **CONFIG).close()  # the schema exists before the writers race to open it
    procs = [spawn_writer(url, n) for n in range(WRITERS)]
    readers = [Reader(p.stdout) for p in procs if p.stdout is not None]
    for reader in readers:
        reader.start()
    try:
        wait_for(lambda: all(r.count("remember") >= 5 for r in readers), 60, "every writer to write")
        own_cluster.restart_immediate()  # a crash: no checkpoint, every backend killed, back at once
        progress = [r.count("remember") for r in readers]
        wait_for(lambda: all(r.count("remember") > n for r, n in zip(readers, progress, strict=True)), 30, "")
        own_cluster.stop_immediate()  # the same crash, and the server stays down a while
        time.sleep(DOWN_SECONDS)
        before = [r.count("remember") for r in readers]
        own_cluster.start()
        for proc in procs:
            proc.wait(timeout=SECONDS + 60)
    finally:
        for proc in procs:
            proc.kill()  # our own children, by pid; a no-op for those that ended
    for reader in readers:
        reader.join(timeout=10)
    stderr = [p.stderr.read().decode(errors="replace") if p.stderr else "" for p in procs]
    assert [p.returncode for p in procs] == [0] * WRITERS, stderr  # EXIT_ESCAPED: an exception escaped
    errors = [[r for r in reader.records if r["op"] == "error"] for reader in readers]
    assert all(e["store"] for each in errors for e in each), errors  # StoreError, nothing else
    assert all(each for each in errors), "every writer saw the server down"
    after = [r.count("remember") for r in readers]
    assert all(a > b for a, b in zip(after, before, strict=True)), "every writer carried on after the crash"
    acks = [r for reader in readers for r in reader.records if r["op"] == "remember"]
    with memoryos.open(url, **CONFIG) as mem:
        assert problems(inventory(mem, tmp_path / "after.jsonl"), acks) == []
        assert mem.check() == []
