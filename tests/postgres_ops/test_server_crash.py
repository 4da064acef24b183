"""The server itself crashes (`pg_ctl restart -m immediate`) while 4 writer processes run: every
acknowledged turn is there exactly once afterwards, the writers never see anything but a StoreError,
and they carry on. While the server stays down, a caller gets a StoreError within a bounded time
(never a psycopg exception, never a hang), and the next call works soon after the server is back.
The cluster is the module's own, on a port of its own: the machine's shared server is never touched."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import orjson
import pytest

import memoryos
from tests.pg_server import Cluster, database_url
from tests.postgres_ops.inventory import inventory, problems
from tests.postgres_ops.writer import CONFIG

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 4
SECONDS = 10.0


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


def drain(proc: subprocess.Popen[bytes]) -> str:
    """The tail of a finished writer's stderr; its pipes closed."""
    text = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return text


def wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def crash_database(cluster: Cluster, name: str) -> str:
    import psycopg

    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = database_url(name, cluster.url)
    memoryos.open(url, **CONFIG).close()  # the schema exists before the writers race to open it
    return url


def test_a_server_crash_under_four_writers_loses_no_acknowledged_turn(
    own_cluster: Cluster, tmp_path: Path
) -> None:
    url = crash_database(own_cluster, "crash")
    procs = [spawn_writer(url, n) for n in range(WRITERS)]
    readers = [Reader(p.stdout) for p in procs if p.stdout is not None]
    for reader in readers:
        reader.start()
    try:
        wait_for(lambda: all(r.count("remember") >= 5 for r in readers), 60, "every writer to write")
        before = [r.count("remember") for r in readers]
        own_cluster.restart_immediate()  # a crash: no checkpoint, every backend killed
        for proc in procs:
            proc.wait(timeout=SECONDS + 120)
    finally:
        for proc in procs:
            proc.kill()  # our own children, by pid; a no-op for those that ended
    for reader in readers:
        reader.join(timeout=10)
    stderr = [drain(p) for p in procs]
    assert [p.returncode for p in procs] == [0] * WRITERS, stderr  # EXIT_ESCAPED: an exception escaped
    errors = [r for reader in readers for r in reader.records if r["op"] == "error"]
    assert all(e["store"] for e in errors), errors  # a StoreError when anything, never another kind
    after = [r.count("remember") for r in readers]
    assert all(a > b for a, b in zip(after, before, strict=True)), "every writer carried on after the crash"
    acks = [r for reader in readers for r in reader.records if r["op"] == "remember"]
    with memoryos.open(url, **CONFIG) as mem:
        assert problems(inventory(mem, tmp_path / "after.jsonl"), acks) == []
        assert mem.check() == []


#: How long a call may take to tell its caller that the server is down, and to work once it is back.
DOWN_ANSWER_SECONDS = 10.0
BACK_ANSWER_SECONDS = 5.0


def test_while_the_server_is_down_a_caller_gets_a_store_error_and_carries_on_after(
    own_cluster: Cluster,
) -> None:
    url = crash_database(own_cluster, "down")
    scope = memoryos.Scope(user="writer", assistant="crash")
    with memoryos.open(url, **CONFIG) as mem:
        kept = mem.remember(scope, "before the crash")
        own_cluster.stop_immediate()
        try:
            started = time.monotonic()
            with pytest.raises(memoryos.StoreError):
                mem.remember(scope, "while the server is down")
            assert time.monotonic() - started < DOWN_ANSWER_SECONDS, "a bounded wait, not a hang"
        finally:
            own_cluster.start()
        started = time.monotonic()
        after = mem.remember(scope, "after the server is back")
        assert time.monotonic() - started < BACK_ANSWER_SECONDS, "the store reconnects promptly"
        assert after.memory_id != kept.memory_id and mem.check() == []
