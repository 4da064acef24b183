"""The scale-out half of bench/bench_pg_scale.py (`--scaleout`): what one remember() sends on the
wire, and for 1/2/4/8 writer processes the throughput of remember() beside raw psycopg writers on
the same server, with the machine's CPU, each writer's and its backend's CPU, and WAL syncs.

The writer processes are bench_pg_scale.py's hidden `--child` mode; see that file's docstring.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from bench_core import sentence
from bench_postgres import database, raw_insert

import memoryos
from receipts import uuid7

SCRIPT = Path(__file__).with_name("bench_pg_scale.py")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- scale-out: what one remember() sends, and the machine's ceiling ---------------------------------
def round_trips(trace: str) -> tuple[int, int]:
    """(round trips, statements) in a libpq trace: a round trip is a run of frontend messages
    followed by the backend's answer; a statement is a Query or an Execute message."""
    trips, statements, last = 0, 0, ""
    for line in trace.splitlines():
        side = line[:1]
        if side == "B" and last == "F":
            trips += 1
        if side == "F" and ("\tQuery\t" in line or "\tExecute\t" in line):
            statements += 1
        if side in ("F", "B"):
            last = side
    return trips, statements


def traced(conn: psycopg.Connection[Any], action: Callable[[], object]) -> tuple[int, int]:
    with tempfile.TemporaryFile("w+") as out:
        conn.pgconn.trace(out.fileno())
        conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            action()
        finally:
            conn.pgconn.untrace()
        out.seek(0)
        return round_trips(out.read())


def remember_wire(url: str) -> tuple[int, int]:
    """One remember() (its scope warmed up, statements prepared, no promotion due), on the wire."""
    scope = memoryos.Scope(user="wire", assistant="bench")
    with memoryos.open(url, heat_threshold=1e12) as mem:
        for i in range(3):
            mem.remember(scope, f"warm up {i}")
        pool = mem.store._pool  # type: ignore[attr-defined]
        conn = pool.getconn()  # the pool's one connection: remember() takes it next
        pool.putconn(conn)
        return traced(conn, lambda: mem.remember(scope, "one turn on the wire"))


RAW_SETUP = (
    "CREATE TABLE IF NOT EXISTS raw_units (LIKE units INCLUDING ALL);"
    "CREATE TABLE IF NOT EXISTS raw_chains (chain_id TEXT PRIMARY KEY, seq BIGINT NOT NULL,"
    " link TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS raw_outbox (chain_id TEXT, seq BIGINT, body BYTEA NOT NULL,"
    " PRIMARY KEY (chain_id, seq))"
)
RECEIPT_BODY = b"x" * 600  # a sealed store receipt is about this size


def raw_like_remember(conn: psycopg.Connection[Any], chain: str, writer: int, rng: random.Random) -> None:
    """remember()'s round trips on an autocommit connection: BEGIN; the row (RETURNING rowid); the
    STM count; the chain head locked FOR UPDATE; the receipt, the head and COMMIT in one pipeline.
    No trigger, no index statistics, no sealing: what the wire and the head lock cost alone."""
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO raw_units (memory_id, version, tier, user_scope, assistant_scope, body, created_at,"
        " valid_from, last_seen, run_id) VALUES (%s, 1, 'stm', %s, 'raw', %s, 0, 0, 0, %s) RETURNING rowid",
        (uuid7(), f"w{writer}", sentence(rng), uuid7()),
    ).fetchone()
    conn.execute(
        "SELECT count(*) FROM raw_units WHERE tier = 'stm' AND user_scope = %s AND assistant_scope = 'raw'",
        (f"w{writer}",),
    ).fetchone()
    row = conn.execute("SELECT seq FROM raw_chains WHERE chain_id = %s FOR UPDATE", (chain,)).fetchone()
    seq = int(row[0]) + 1 if row else 1
    with conn.pipeline():
        conn.execute(
            "WITH added AS (INSERT INTO raw_outbox VALUES (%s, %s, %s)) UPDATE raw_chains SET seq = %s"
            " WHERE chain_id = %s",
            (chain, seq, RECEIPT_BODY, seq, chain),
        )
        conn.execute("COMMIT")


KINDS = ("remember", "raw_insert", "raw_like_remember", "raw_like_remember_unshared")


def child(kind: str, url: str, writer: int, seconds: float, start_at: float) -> None:
    """One writer process: set up, wait for the common start, run `kind` for `seconds`; print the
    count and this process's CPU seconds over the timed loop."""
    rng = random.Random(writer)
    step: Callable[[], object]
    closer: Callable[[], None]
    if kind == "remember":
        mem = memoryos.open(url, heat_threshold=1e12)
        scope = memoryos.Scope(user=f"writer-{writer}", assistant="bench")
        mem.remember(scope, "warm up the connection")
        step, closer = (lambda: mem.remember(scope, sentence(rng))), mem.close
    elif kind == "raw_insert":
        conn = psycopg.connect(url)
        step, closer = (lambda: raw_insert(conn, rng)), conn.close
    else:
        conn = psycopg.connect(url, autocommit=True)
        chain = "shared" if kind == "raw_like_remember" else f"writer-{writer}"
        conn.execute("INSERT INTO raw_chains VALUES (%s, 0, '') ON CONFLICT DO NOTHING", (chain,))
        step, closer = (lambda: raw_like_remember(conn, chain, writer, rng)), conn.close
    step()
    time.sleep(max(0.0, start_at - time.time()))
    cpu, deadline, done = time.process_time(), time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        step()
        done += 1
    print(done, time.process_time() - cpu, flush=True)
    time.sleep(1.0)  # the connection outlives the round: its backend's CPU is read at the end
    closer()


def proc_stat() -> tuple[int, int, int]:
    """(busy, iowait, total) jiffies of the whole machine."""
    with open("/proc/stat", encoding="ascii") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle, iowait = values[3], values[4]
    return sum(values) - idle - iowait, iowait, sum(values)


def backend_cpu(url: str) -> dict[int, float]:
    """CPU seconds so far of each server backend serving this database (the server runs on this
    machine), by pid; the monitoring connection itself excluded."""
    with psycopg.connect(url, autocommit=True) as conn:
        pids = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid()"
        ).fetchall()
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for (pid,) in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        found[int(pid)] = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return found


def server_counters(url: str) -> tuple[int, int, int]:
    """(commits of this database, WAL syncs and WAL writes of the whole server)."""
    with psycopg.connect(url, autocommit=True) as conn:
        commits = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        wal = conn.execute("SELECT wal_sync, wal_write FROM pg_stat_wal").fetchone()
        c = commits.fetchone()
        assert c is not None and wal is not None
        return int(c[0]), int(wal[0]), int(wal[1])


def one_round(url: str, kind: str, writers: int, seconds: float) -> dict[str, float]:
    start_at = time.time() + 3.0 + 0.5 * writers  # after every process has opened its store
    argv = [
        sys.executable,
        str(SCRIPT),
        "--child",
        kind,
        "--db",
        url,
        "--seconds",
        str(seconds),
        "--start-at",
    ]
    procs = [
        subprocess.Popen([*argv, str(start_at), "--writer-id", str(n)], stdout=subprocess.PIPE)
        for n in range(writers)
    ]
    time.sleep(max(0.0, start_at - time.time()))
    cpu0, server0, backends0 = proc_stat(), server_counters(url), backend_cpu(url)
    time.sleep(seconds)
    cpu1, server1, backends1 = proc_stat(), server_counters(url), backend_cpu(url)
    server_cpu = sum(t - backends0.get(pid, t) for pid, t in backends1.items())
    done, client_cpu = 0, 0.0
    for proc in procs:
        out, _ = proc.communicate(timeout=seconds + 300)
        if proc.returncode != 0:
            raise RuntimeError(f"a {kind} writer failed with exit {proc.returncode}")
        count, cpu = out.split()[-2:]
        done, client_cpu = done + int(count), client_cpu + float(cpu)
    total = cpu1[2] - cpu0[2]
    commits, syncs = server1[0] - server0[0], server1[1] - server0[1]
    return {
        "per_s": done / seconds,
        "busy": (cpu1[0] - cpu0[0]) / total,
        "iowait": (cpu1[1] - cpu0[1]) / total,
        "clients": client_cpu / (seconds * (os.cpu_count() or 1)),
        "backends": server_cpu / (seconds * (os.cpu_count() or 1)),
        # CPU one operation costs (writer + its backend), and what all cores could do at that cost
        "cpu_ms": 1000 * (client_cpu + server_cpu) / done if done else 0.0,
        "cpu_bound_per_s": done * (os.cpu_count() or 1) / (client_cpu + server_cpu) if done else 0.0,
        "commits": commits,
        "syncs": syncs,
        "commits_per_sync": commits / syncs if syncs else 0.0,
    }


def run_scaleout(args: argparse.Namespace, results: dict[str, Any]) -> None:
    with database(args.db) as url:
        memoryos.open(url).close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(RAW_SETUP)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO raw_chains VALUES ('wire', 0, '')")
            mimic = traced(conn, lambda: raw_like_remember(conn, "wire", 0, random.Random(0)))
        wire = remember_wire(url)
        results["wire"] = {"remember": wire, "raw_like_remember": mimic}
        print(f"round trips, statements: {results['wire']}", flush=True)
        rounds: dict[str, dict[int, dict[str, float]]] = {kind: {} for kind in KINDS}
        for writers in args.writers:
            for kind in KINDS:
                rounds[kind][writers] = one_round(url, kind, writers, args.seconds)
                print(f"{kind} x{writers}: {rounds[kind][writers]} load {load()}", flush=True)
        results["scaleout"] = rounds


def scaleout_lines(results: dict[str, Any]) -> list[str]:
    wire = results["wire"]
    lines = [
        "## Writer processes: remember() and the machine's ceiling",
        "",
        f"One remember() on the wire (libpq trace): {wire['remember'][0]} round trips,"
        f" {wire['remember'][1]} statements; the raw transaction built like it:"
        f" {wire['raw_like_remember'][0]} round trips, {wire['raw_like_remember'][1]} statements.",
        "",
        "| kind | writers | per s | x one writer | machine busy | iowait | writers' CPU | their backends' CPU"
        " | CPU per op | all cores at that cost | commits / WAL sync |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, rounds in results["scaleout"].items():
        one = rounds[min(rounds)]["per_s"]
        for writers, r in rounds.items():
            lines.append(
                f"| {kind} | {writers} | {r['per_s']:.0f} | {r['per_s'] / one:.2f}x | {r['busy']:.0%}"
                f" | {r['iowait']:.0%} | {r['clients']:.0%} | {r['backends']:.0%} | {r['cpu_ms']:.2f} ms"
                f" | {r['cpu_bound_per_s']:.0f}/s ({r['cpu_bound_per_s'] / one:.2f}x)"
                f" | {r['commits_per_sync']:.2f} |"
            )
    return lines
