"""MCP over streamable HTTP (issue 16): a tool call's p50 through the SDK's HTTP client against a
real `memoryos mcp --http` process on loopback, beside the same call in process (`MemoryTools.call`),
interleaved call by call in one run (the machine is noisy).

Each side has its own copy of the same seeded store: every read writes (a receipt, an access), so
two processes on one file would throw away each other's SQLite page cache on every call, a cost
neither a server nor an in-process user has, and one that would be charged to both sides unevenly.

Reported per tool call: p50 over HTTP, p50 in process, and the median of the per-pair overheads
(HTTP minus in process) and ratios. Goal (issue 16): overhead <= 5 ms on loopback.

    python bench/bench_mcp.py                  # 400 interleaved pairs per call, 3 runs
    python bench/bench_mcp.py --pairs 50 --runs 1   # a quick smoke run
    python bench/bench_mcp.py --durability normal   # both sides without the fsync of each receipt
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import memoryos
from memoryos.mcp_server import MemoryTools
from memoryos.mcp_tokens import add_token

ALICE = memoryos.Scope(user="alice", assistant="coder")
CALLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("memory_read key", "memory_read", {"key": "deploy:blyck"}),
    ("memory_read query", "memory_read", {"query": "how is blyck deployed", "k": 5}),
    ("memory_context", "memory_context", {"query": "blyck deploy", "budget_tokens": 200}),
)
GOAL_MS = 5.0


def seed(db: Path) -> None:
    with memoryos.open(db) as mem:
        mem.put(ALICE, "deploy:blyck", "blyck deploys with make release")
        for i in range(200):
            mem.remember(ALICE, f"note {i}: the blyck release train moved to friday, ticket {i * 7}")
        mem.maintain()


def copy_store(db: Path, folder: Path) -> Path:
    """A byte-identical copy of a closed store (its file, receipt key and head) in `folder`."""
    folder.mkdir()
    for source in db.parent.glob(db.name + "*"):
        shutil.copy2(source, folder / source.name)
    return folder / db.name


def start_server(db: Path, tokens: Path) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-m",
        "memoryos",
        "mcp",
        "--db",
        str(db),
        "--tokens",
        str(tokens),
        "--http",
        "127.0.0.1:0",
    ]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if "listening on " not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line}{proc.stderr.read()}")
    return proc, line.split("listening on ", 1)[1].strip()


def process_cpu_ms(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc; a tick is 10 ms, so sum many calls)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def measure(
    url: str, token: str, local_db: Path, pairs: int, server: int
) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    headers = {"Authorization": f"Bearer {token}"}
    with memoryos.open(local_db) as mem:
        tools = MemoryTools(mem, ALICE)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for label, name, arguments in CALLS:
                over_http: list[float] = []
                in_process: list[float] = []
                client_cpu: list[float] = []
                local_cpu: list[float] = []
                for i in range(pairs + 10):  # the first 10 pairs warm both paths and are dropped
                    if i == 10:
                        server_before = process_cpu_ms(server)
                    c0, t0 = time.thread_time(), time.perf_counter()
                    remote = await session.call_tool(name, arguments)
                    c1, t1 = time.thread_time(), time.perf_counter()
                    local = await tools.call(name, arguments)
                    c2, t2 = time.thread_time(), time.perf_counter()
                    assert not remote.is_error and not local.is_error
                    if i >= 10:
                        over_http.append((t1 - t0) * 1000)
                        in_process.append((t2 - t1) * 1000)
                        client_cpu.append((c1 - c0) * 1000)
                        local_cpu.append((c2 - c1) * 1000)
                server_cpu = (process_cpu_ms(server) - server_before) / pairs
                results[label] = {
                    "http_p50": statistics.median(over_http),
                    "inproc_p50": statistics.median(in_process),
                    "overhead_p50": statistics.median(
                        h - p for h, p in zip(over_http, in_process, strict=True)
                    ),
                    "ratio_p50": statistics.median(h / p for h, p in zip(over_http, in_process, strict=True)),
                    # CPU is what a busy machine does not inflate: client + server per call over HTTP,
                    # beside the in-process call's CPU (means: the server's is only known in sum).
                    "http_cpu": statistics.fmean(client_cpu) + server_cpu,
                    "inproc_cpu": statistics.fmean(local_cpu),
                }
    return results


def one_run(pairs: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db, tokens = root / "team.db", root / "tokens.jsonl"
        seed(db)
        local_db = copy_store(db, root / "local")
        token = add_token(tokens, "alice", "coder", "bench")
        proc, url = start_server(db, tokens)
        try:
            return anyio.run(measure, url, token, local_db, pairs, proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            assert proc.stderr is not None
            proc.stderr.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--durability",
        choices=("full", "normal"),
        default="full",
        help="both sides' store durability (every call writes a receipt: `normal` takes the fsync, and"
        " its noise on a shared disk, out of both)",
    )
    args = parser.parse_args()
    os.environ["MEMORYOS_DURABILITY"] = args.durability  # the server inherits it; open() reads it
    load_before = os.getloadavg()[0]
    runs = [one_run(args.pairs) for _ in range(args.runs)]
    print(
        f"python {platform.python_version()}, {args.runs} run(s) of {args.pairs} interleaved pairs per call;"
        f" durability {args.durability}; 1-minute load average {load_before:.1f} before,"
        f" {os.getloadavg()[0]:.1f} after on {os.cpu_count()} CPUs"
        " (two processes take turns per call: a busy machine adds to HTTP only)"
    )
    print(
        "| call | HTTP p50 (ms) | in process p50 (ms) | overhead p50 (ms) | ratio p50 | goal <= 5 ms |"
        " CPU a call over HTTP, client + server (ms) | CPU in process (ms) | CPU overhead (ms) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    for label, _, _ in CALLS:
        med = {field: statistics.median(run[label][field] for run in runs) for field in runs[0][label]}
        verdict = "met" if med["overhead_p50"] <= GOAL_MS else "NOT met"
        print(
            f"| {label} | {med['http_p50']:.2f} | {med['inproc_p50']:.2f} | {med['overhead_p50']:.2f} |"
            f" {med['ratio_p50']:.1f}x | {verdict} | {med['http_cpu']:.2f} | {med['inproc_cpu']:.2f} |"
            f" {med['http_cpu'] - med['inproc_cpu']:.2f} |"
        )


if __name__ == "__main__":
    main()
