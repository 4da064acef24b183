"""`memoryos-audit watch`: incremental passes, the verdict log and file, busy stores, OTLP gauges,
a collector that is down, and a watcher killed and restarted (real child processes)."""

from __future__ import annotations

import io
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

import memoryos
from auditor import audit
from auditor.cli import main
from auditor.watch import Watcher, read_verdict
from memoryos.testing import FakeClock
from receipts import read_key_file

ALICE = memoryos.Scope(user="alice", assistant="coder")
SECRET_WORD = "zebracorn"  # memory text: must never reach a log line or a metric


def fill(db: Path, count: int, clock: FakeClock | None = None) -> None:
    with memoryos.open(db, clock=clock) as mem:
        for i in range(count):
            mem.remember(ALICE, f"note {i} about the {SECRET_WORD} release")
        res = mem.recall(ALICE, f"{SECRET_WORD} release", k=3)
        mem.generated(ALICE, res.run_id, depends_on=[h.ref for h in res.hits])


def key_of(db: Path) -> bytes:
    return read_key_file(db.with_name(db.name + ".receipt-key"))


@pytest.fixture
def events() -> Iterator[list[dict[str, Any]]]:
    """The watch's log lines, parsed."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("auditor.watch")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    found: list[dict[str, Any]] = []

    class View(list[dict[str, Any]]):
        def __iter__(self) -> Iterator[dict[str, Any]]:
            found[:] = [orjson.loads(line) for line in stream.getvalue().splitlines()]
            return iter(found)

    yield View()
    logger.removeHandler(handler)


def logged(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == name]


class TestPasses:
    def test_each_pass_reads_only_new_receipts_and_matches_a_full_audit(self, tmp_path: Path) -> None:
        db, state = tmp_path / "memory.db", tmp_path / "audit.state"
        fill(db, 5)
        watcher = Watcher([], stores=[db], state=state, verdict=tmp_path / "verdict")
        first = watcher.run_once()
        fill(db, 5)
        second = watcher.run_once()
        assert first.status == second.status == "ok"
        assert first.report is not None and second.report is not None
        assert second.report.receipts > first.report.receipts
        full = audit([], stores=[db], key=key_of(db))
        assert (second.report.verdict, dict(second.report.counts)) == (full.verdict, dict(full.counts))
        assert second.report.macs.verified

    def test_the_verdict_file_verifies_under_the_receipt_key_and_says_how_far_it_read(
        self, tmp_path: Path
    ) -> None:
        db, verdict = tmp_path / "memory.db", tmp_path / "verdict"
        fill(db, 4)
        Watcher([], stores=[db], state=tmp_path / "st", verdict=verdict).run_once()
        body = read_verdict(verdict, key_of(db))
        with memoryos.open(db) as mem, mem.store.read() as tx:
            head = tx.outbox_head()
        assert body["covered"] == {str(db.resolve()): head}
        assert body["report"]["verdict"] == audit([], stores=[db]).verdict
        tampered = verdict.read_bytes().replace(b'"verdict":"', b'"verdict":"x', 1)
        verdict.write_bytes(tampered)
        with pytest.raises(ValueError, match="does not verify"):
            read_verdict(verdict, key_of(db))

    def test_a_change_of_verdict_is_logged_once_with_rules_and_receipt_ids_and_no_content(
        self, tmp_path: Path, events: list[dict[str, Any]]
    ) -> None:
        db, receipts = tmp_path / "memory.db", tmp_path / "receipts.jsonl"
        fill(db, 3)
        with memoryos.open(db) as mem:
            mem.export_receipts(receipts, cursor="watch")
        watcher = Watcher([receipts], state=tmp_path / "st", key=key_of(db))
        watcher.run_once()
        watcher.run_once()  # same verdict: nothing more logged
        with receipts.open("ab") as handle:
            handle.write(b'{"not": "a receipt"}\n')
        watcher.run_once()
        changes = logged(events, "verdict changed")
        assert [c["verdict"] for c in changes][-1] == "uncertain"
        assert len(changes) == 2 and changes[1]["before"] == changes[0]["verdict"]
        assert changes[0]["verdict"] == "waiting" and changes[0]["rules"] == ["waiting.window"]
        assert len(changes[0]["receiptIds"]) == 3  # the three turns still inside their window
        assert changes[1]["rules"] == ["evidence.invalid"]  # a line with no receipt id to name
        text = orjson.dumps(list(events)).decode()
        assert SECRET_WORD not in text and "alice" not in text

    def test_a_busy_store_is_retried_at_the_next_pass_and_logged(
        self, tmp_path: Path, events: list[dict[str, Any]]
    ) -> None:
        db = tmp_path / "memory.db"
        fill(db, 3)
        watcher = Watcher([], stores=[db], state=tmp_path / "st")
        assert watcher.run_once().status == "ok"
        fill(db, 3)
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # readers are refused until it closes
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("COMMIT")
        try:
            busy = watcher.run_once()
        finally:
            holder.close()
        assert busy.status == "busy"
        assert logged(events, "audit busy")
        after = watcher.run_once()
        assert after.status == "ok" and after.report is not None
        assert after.report.receipts == audit([], stores=[db]).receipts
        assert watcher.latest.passes == {"ok": 2, "busy": 1, "failed": 0}

    def test_a_state_for_other_sources_is_refused_not_overwritten(self, tmp_path: Path) -> None:
        one, two, state = tmp_path / "one.db", tmp_path / "two.db", tmp_path / "st"
        fill(one, 2)
        fill(two, 2)
        Watcher([], stores=[one], state=state).run_once()
        before = state.read_bytes()
        code = main(["watch", "--db", str(two), "--state", str(state), "--passes", "1"])
        assert code == 2 and state.read_bytes() == before


# -- real processes ---------------------------------------------------------------------------------
class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP endpoint on loopback that keeps every metrics request body."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.bodies: list[bytes] = []
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join()

    def gauges(self) -> dict[str, list[tuple[dict[str, str], float]]]:
        found: dict[str, list[tuple[dict[str, str], float]]] = {}
        for body in list(self.bodies):
            request = ExportMetricsServiceRequest.FromString(body)
            for rm in request.resource_metrics:
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        points = m.gauge.data_points if m.WhichOneof("data") == "gauge" else m.sum.data_points
                        for p in points:
                            labels = {a.key: a.value.string_value for a in p.attributes}
                            found.setdefault(m.name, []).append((labels, p.as_int or p.as_double))
        return found


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/v1/metrics":
            self.server.bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def watch_process(tmp_path: Path, db: Path, endpoint: str, *extra: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MEMORYOS_TELEMETRY": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
        "OTEL_SERVICE_NAME": "audit-watch-test",
    }
    command = [sys.executable, "-m", "auditor", "watch", "--db", str(db), "--interval", "0.3"]
    command += ["--state", str(tmp_path / "audit.state"), "--verdict", str(tmp_path / "verdict"), *extra]
    with (tmp_path / "watch.log").open("ab") as log:  # the child holds its own descriptor
        return subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL
        )


def wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def covered(tmp_path: Path, db: Path) -> int:
    try:
        body = read_verdict(tmp_path / "verdict", key_of(db))
    except ValueError:
        return -1
    seq: int = body["covered"][str(db.resolve())]
    return seq


def head_of(db: Path) -> int:
    with memoryos.open(db) as mem, mem.store.read() as tx:
        return tx.outbox_head()


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)


class TestProcesses:
    def test_the_gauges_arrive_over_otlp_at_a_real_receiver(self, tmp_path: Path) -> None:
        db = tmp_path / "memory.db"
        fill(db, 4)
        receiver = Receiver()
        watcher = watch_process(tmp_path, db, receiver.endpoint)
        try:
            names = {"memoryos.audit.runs", "memoryos.audit.verdict", "memoryos.audit.macs.verified"}
            names |= {"memoryos.audit.lag", "memoryos.audit.evidence.age", "memoryos.audit.age"}
            wait_for(lambda: names <= set(receiver.gauges()))
        finally:
            stop(watcher)
            receiver.close()
        gauges = receiver.gauges()
        expected = audit([], stores=[db])
        verdict_on = {labels["memoryos.state"] for labels, v in gauges["memoryos.audit.verdict"] if v == 1}
        assert verdict_on == {expected.verdict}
        runs = {labels["memoryos.state"]: v for labels, v in gauges["memoryos.audit.runs"]}
        assert runs == dict(expected.counts)
        assert {v for _, v in gauges["memoryos.audit.macs.verified"]} == {1}
        assert watcher.returncode == 0
        for body in receiver.bodies:
            assert SECRET_WORD.encode() not in body and b"alice" not in body

    def test_a_collector_that_is_down_costs_no_pass_and_export_resumes_when_it_is_up(
        self, tmp_path: Path
    ) -> None:
        db = tmp_path / "memory.db"
        fill(db, 3)
        port = free_port()
        watcher = watch_process(tmp_path, db, f"http://127.0.0.1:{port}")
        receiver = None
        try:
            wait_for(lambda: covered(tmp_path, db) == head_of(db))
            fill(db, 3)  # passes go on while every export fails
            wait_for(lambda: covered(tmp_path, db) == head_of(db))
            assert watcher.poll() is None
            receiver = Receiver(port)
            wait_for(lambda: "memoryos.audit.runs" in receiver.gauges())
        finally:
            stop(watcher)
            if receiver is not None:
                receiver.close()
        assert watcher.returncode == 0

    def test_a_watcher_killed_and_restarted_resumes_from_its_state(self, tmp_path: Path) -> None:
        db = tmp_path / "memory.db"
        fill(db, 5)
        receiver = Receiver()
        first = watch_process(tmp_path, db, receiver.endpoint)
        try:
            wait_for(lambda: covered(tmp_path, db) == head_of(db))
        finally:
            first.kill()  # no clean exit: the state file is what carries over
            first.wait(timeout=20)
        fill(db, 5)
        second = watch_process(tmp_path, db, receiver.endpoint)
        try:
            wait_for(lambda: covered(tmp_path, db) == head_of(db))
        finally:
            stop(second)
            receiver.close()
        body = read_verdict(tmp_path / "verdict", key_of(db))
        full = audit([], stores=[db])
        assert (body["report"]["verdict"], body["report"]["counts"]) == (full.verdict, dict(full.counts))
        log = [orjson.loads(line) for line in (tmp_path / "watch.log").read_bytes().splitlines()]
        assert len([e for e in log if e["event"] == "watch started"]) == 2
        changes = [e for e in log if e["event"] == "verdict changed"]
        assert len(changes) == 1  # the restart found the verdict it had left: no change to log
