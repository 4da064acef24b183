"""Benchmark: the auditor against the floor of any verifier, incrementally, in memory, over MCP.

    python bench/bench_auditor.py                    # 1,000,000 receipts, medians of 3
    python bench/bench_auditor.py --receipts 200000 --repeat 3

Generates a realistic chained, MAC'd stream (remember -> STM -> MTM promotion -> recall/generate,
MTM capacity evictions, LPM distillation, corrections) with about 10% of receipts touched by seeded
faults, then measures, each side interleaved with its baseline in the same run:
- full verification (chain, MAC, every rule) against the floor: an orjson parse, a SHA-256 and an
  HMAC-SHA256 from a precomputed key state of every line;
- a resumed audit (--state) after appending 1% new receipts, against a full audit of the same file;
- the peak RSS growth of one audit, in order and shuffled, each in a fresh subprocess;
- memory_health over a real MCP stdio session on a store of --health-receipts receipts.
Results go to bench/results/auditor.md (and .json beside it; --out moves both).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from auditor import audit  # noqa: E402  # after the path tweak so the checkout is benchmarked

ALICE = ("a1" * 16, "c0" * 16)
BOB = ("b2" * 16, "c0" * 16)
VERSION = "memoryos/0.1.0+cafe1234"
T0 = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
KEY = bytes(range(32))  # the receipt key of the generated chain
FAULTS = ("scope", "unpromoted", "undeclared", "stale", "garbage", "gap", "duplicate", "at_risk")


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Generator:
    """A chain written the way receipts.pipeline.seal() writes it, without its per-call overhead:
    canonical lines, each MAC'd under `key` with `mac` in its sorted place."""

    def __init__(self, seed: int, key: bytes = KEY, chain: str = "store-bench") -> None:
        self.mac_state = hmac.new(key, digestmod=hashlib.sha256)
        self.chain = chain
        self.rnd = random.Random(seed)
        self.clock = T0
        self.seq = 0
        self.link = "0" * 64
        self.counter = 0
        self.faulty = 0
        self.lines: list[bytes] = []

    def uid(self) -> str:
        self.counter += 1
        ms = int(self.clock.timestamp() * 1000)
        value = (ms << 80) | (0x7 << 76) | (0b10 << 62) | self.counter
        h = f"{value:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def emit(self, scope: tuple[str, str] = ALICE, **fields: Any) -> bytes:
        self.clock += timedelta(milliseconds=self.rnd.randint(50, 400))
        self.seq += 1
        receipt = {
            "schema": "memoryos.receipt/1",
            "receiptId": self.uid(),
            "seq": self.seq,
            "userScope": scope[0],
            "assistantScope": scope[1],
            "sourceVersion": VERSION,
            "status": "committed",
            "atUtc": _utc(self.clock),
            "chainId": self.chain,
            "prev": self.link,
            **fields,
        }
        canonical = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
        self.link = hashlib.sha256(canonical).hexdigest()
        mac = self.mac_state.copy()
        mac.update(canonical)
        receipt["mac"] = mac.hexdigest()
        line = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
        self.lines.append(line)
        return line


def generate(
    path: Path, total: int, seed: int = 7, *, tail: Path | None = None, more: int = 0
) -> dict[str, Any]:
    """`total` receipts into `path`; then, when asked, `more` receipts of the same chain into `tail`
    (what is appended before an incremental audit resumes)."""
    g = Generator(seed)
    live_pages: deque[str] = deque()
    records: list[tuple[str, int]] = []
    cycle = 0
    for target, count in ((path, total), (tail, total + more)):
        if target is None:
            continue
        with target.open("wb") as out:
            while g.seq < count:
                cycle += 1
                fault = g.rnd.choice(FAULTS)  # one fault per cycle: about 10% of receipts
                _cycle(g, live_pages, records, fault)
                for line in g.lines:
                    out.write(line + b"\n")
                g.lines.clear()
    return {"receipts": g.seq - more, "cycles": cycle, "faulty_receipts": g.faulty}


def _cycle(g: Generator, live: deque[str], records: list[tuple[str, int]], fault: str | None) -> None:
    turns = []
    for _ in range(7):
        turn = g.uid()
        wait = _utc(g.clock + timedelta(minutes=30))
        g.emit(
            runId=g.uid(),
            boundary="store",
            toTier="stm",
            memoryId=turn,
            version=1,
            sourcePresent=True,
            waitUntilUtc=wait,
        )
        turns.append(turn)
    run = g.uid()
    for index, turn in enumerate(turns):
        if fault == "unpromoted" and index == 0:
            g.faulty += 1
            continue  # this turn is never promoted: promotion_missing
        page = g.uid()
        present: dict[str, Any] = (
            {"status": "failed", "sourcePresent": False} if fault == "at_risk" and index == 0 else {}
        )
        g.emit(
            runId=run,
            boundary="stm_to_mtm",
            fromTier="stm",
            toTier="mtm",
            memoryId=page,
            version=1,
            derivedFrom=[f"{turn}@1"],
            **({"sourcePresent": False} | present),
        )
        live.append(page)
    g.faulty += 7 if fault == "at_risk" else 0
    _recalls(g, live, records, fault)
    while len(live) > 1400:  # MTM capacity: the coldest pages leave with an evict receipt
        page = live.popleft()
        g.emit(
            runId=g.uid(),
            boundary="evict",
            fromTier="mtm",
            memoryId=page,
            version=1,
            reason="capacity",
            sourcePresent=False,
        )
    if g.rnd.random() < 0.1 and len(live) > 3:
        record = g.uid()
        g.emit(
            runId=g.uid(),
            boundary="mtm_to_lpm",
            fromTier="mtm",
            toTier="lpm",
            memoryId=record,
            version=1,
            derivedFrom=[f"{p}@1" for p in list(live)[-3:]],
            sourcePresent=True,
        )
        records.append((record, 1))
    _mangle(g, fault)


def _recalls(g: Generator, live: deque[str], records: list[tuple[str, int]], fault: str | None) -> None:
    for index in range(2):
        run = g.uid()
        hits = [(p, 1) for p in g.rnd.sample(list(live)[-200:], min(5, len(live)))]
        if fault == "stale" and index == 0 and records:
            record, version = records[-1]
            g.emit(
                runId=g.uid(),
                boundary="correct",
                toTier="lpm",
                memoryId=record,
                version=version + 1,
                derivedFrom=[f"{record}@{version}"],
            )
            records[-1] = (record, version + 1)
            hits[0] = (record, version)  # the recall still returns the superseded version
            g.faulty += 6
        scope = BOB if fault == "scope" and index == 0 else ALICE
        g.faulty += 6 if scope == BOB else 0
        for memory_id, version in hits:
            g.emit(scope, runId=run, boundary="retrieve", fromTier="mtm", memoryId=memory_id, version=version)
        depends = None if fault == "undeclared" and index == 0 else [f"{m}@{v}" for m, v in hits]
        g.faulty += 1 if depends is None else 0
        g.emit(
            scope,
            runId=run,
            boundary="generate",
            **({} if depends is None else {"dependsOnVersion": depends}),
        )


def _mangle(g: Generator, fault: str | None) -> None:
    """Faults of the file rather than of the store: garbage, a missing line, a re-exported line."""
    if fault == "garbage":
        g.lines[-1] = g.lines[-1][: len(g.lines[-1]) // 2]
        g.faulty += 1
    elif fault == "gap":
        del g.lines[len(g.lines) // 2]
        g.faulty += 1
    elif fault == "duplicate":
        g.lines.append(g.lines[len(g.lines) // 2])
        g.faulty += 1


def floor(path: Path) -> int:
    """The least any verifier does per line: an orjson parse, a SHA-256 (the chain link) and an
    HMAC-SHA256 from a precomputed key state (the MAC), of every line of the file."""
    count = 0
    base = hmac.new(KEY, digestmod=hashlib.sha256)
    with path.open("rb") as handle:
        for line in handle:
            try:  # noqa: SIM105  # contextlib.suppress costs more per line: the floor must stay a floor
                orjson.loads(line)
            except orjson.JSONDecodeError:  # the seeded garbage lines
                pass
            hashlib.sha256(line).digest()
            mac = base.copy()
            mac.update(line)
            mac.digest()
            count += 1
    return count


def timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def timed_both(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds): on a shared machine the CPU time is the steadier."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu


def memory_growth(path: Path, now: datetime) -> dict[str, Any]:
    """Peak RSS growth of one audit (MACs verified), in a fresh interpreter so that earlier runs do
    not mask it. VmHWM (Linux), not ru_maxrss: ru_maxrss survives fork+exec (the parent's peak)."""
    code = (
        "import sys, json, datetime\n"
        f"sys.path.insert(0, {str(HERE.parent)!r})\n"
        "import auditor, orjson\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) / 1024\n"
        "before = hwm()\n"
        f"r = auditor.audit({str(path)!r}, key={KEY!r}, "
        f"now=datetime.datetime.fromisoformat({now.isoformat()!r}))\n"
        "print(json.dumps({'before_mb': before, 'after_mb': hwm(), 'mode': r.mode}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    result["growth_mb"] = round(result["after_mb"] - result["before_mb"], 1)
    return result


def shuffled_copy(path: Path, target: Path, seed: int = 11) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    target.write_bytes(b"".join(lines))


def full_verification(path: Path, now: datetime, repeat: int) -> dict[str, Any]:
    """Floor and full audit, interleaved; the median of the per-round ratios."""
    floors, audits, ratios = [], [], []
    for _ in range(repeat):
        floors.append(timed(floor, path))
        audits.append(timed(audit, path, now=now, key=KEY))
        ratios.append(audits[-1] / floors[-1])
    report = audit(path, now=now, key=KEY)
    return {
        "floor_s": statistics.median(floors),
        "audit_s": statistics.median(audits),
        "ratio": statistics.median(ratios),
        "mode": report.mode,
        "verdict": report.verdict,
        "counts": dict(report.counts),
    }


def incremental(base: Path, tail: Path, work: Path, now: datetime, repeat: int) -> dict[str, Any]:
    """A resumed audit after appending `tail` to `base`, against a full audit of the same file."""
    state = work / "audit.state"
    seeded = work / "seed.state"
    current = work / "current.jsonl"
    shutil.copyfile(base, current)
    audit(current, now=now, key=KEY, state=seeded)  # the audit before the append (not timed)
    full_file = work / "full.jsonl"
    with full_file.open("wb") as out:
        out.write(base.read_bytes())
        out.write(tail.read_bytes())
    resumed, full, ratios, cpu_resumed, cpu_full, cpu_ratios = [], [], [], [], [], []
    appended = 0
    for _ in range(repeat):
        shutil.copyfile(base, current)
        shutil.copyfile(seeded, state)
        with current.open("ab") as out:
            out.write(tail.read_bytes())
        wall, cpu = timed_both(audit, current, now=now, key=KEY, state=state)
        resumed.append(wall)
        cpu_resumed.append(cpu)
        appended = state.stat().st_size - seeded.stat().st_size  # by the resumed audit's save
        wall, cpu = timed_both(audit, full_file, now=now, key=KEY)
        full.append(wall)
        cpu_full.append(cpu)
        ratios.append(resumed[-1] / full[-1])
        cpu_ratios.append(cpu_resumed[-1] / cpu_full[-1])
    same = _verdicts(audit(current, now=now, key=KEY, state=state)) == _verdicts(
        audit(full_file, now=now, key=KEY)
    )
    return {
        "resumed_s": statistics.median(resumed),
        "full_s": statistics.median(full),
        "ratio": statistics.median(ratios),
        "resumed_cpu_s": statistics.median(cpu_resumed),
        "full_cpu_s": statistics.median(cpu_full),
        "ratio_cpu": statistics.median(cpu_ratios),
        "state_mb": round(seeded.stat().st_size / 2**20, 1),
        "appended_mb": round(appended / 2**20, 1),
        "same_verdicts": same,
    }


def _verdicts(report: Any) -> tuple[dict[str, str], dict[str, int]]:
    return {r.run_id: r.verdict for r in report.runs}, dict(report.counts)


def health_latency(work: Path, receipts: int, calls: int) -> dict[str, Any]:
    """memory_health over a real MCP stdio session on a store holding `receipts` receipts."""
    import anyio

    db = work / "health.db"
    _synthetic_store(db, receipts)
    return anyio.run(_health_session, db, calls)


def _synthetic_store(db: Path, receipts: int) -> None:
    """A real memoryos store whose outbox holds a generated chain under its own id and key."""
    import sqlite3

    import memoryos
    from receipts import read_key_file

    with memoryos.open(db) as mem:
        chain = mem.store_id
    key = read_key_file(db.with_name(db.name + ".receipt-key"))
    g = Generator(5, key=key, chain=chain)
    live: deque[str] = deque()
    records: list[tuple[str, int]] = []
    rows: list[tuple[int, str, str, str, str, bytes]] = []
    while g.seq < receipts:
        _cycle(g, live, records, None)  # a healthy store: no seeded faults
        for line in g.lines:
            r = orjson.loads(line)
            canonical = orjson.dumps({k: v for k, v in r.items() if k != "mac"}, option=orjson.OPT_SORT_KEYS)
            link = hashlib.sha256(canonical).hexdigest()
            rows.append((r["seq"], r["chainId"], r["receiptId"], r["runId"], link, line))
        g.lines.clear()
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO receipt_outbox (seq, chain_id, receipt_id, run_id, link, body) VALUES (?,?,?,?,?,?)",
            rows,
        )
    conn.close()


async def _health_session(db: Path, calls: int) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryos", "mcp", "--db", str(db), "--user", "alice", "--assistant", "coder"],
        cwd=str(HERE.parent),
    )
    latencies: list[float] = []
    after_write: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        start = time.perf_counter()
        first = await session.call_tool("memory_health", {})
        first_s = time.perf_counter() - start
        for index in range(calls):
            if index % 2:
                await session.call_tool("memory_remember", {"text": f"health probe {index}"})
            start = time.perf_counter()
            result = await session.call_tool("memory_health", {})
            (after_write if index % 2 else latencies).append(time.perf_counter() - start)
            assert not result.is_error, result
    assert not first.is_error, first
    return {
        "first_call_ms": round(first_s * 1000, 1),
        "call_ms": round(statistics.median(latencies) * 1000, 2),
        "call_after_a_write_ms": round(statistics.median(after_write) * 1000, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--receipts", type=int, default=1_000_000, help="size of the generated file")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds of each side (medians reported)")
    parser.add_argument(
        "--health-receipts", type=int, default=None, help="receipts in the memory_health store (100,000)"
    )
    parser.add_argument("--health-calls", type=int, default=20, help="memory_health calls timed")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "auditor.md", help="markdown results")
    parser.add_argument(
        "--memory-only",
        action="store_true",
        help="measure only the peak RSS (in order, shuffled) and print it",
    )
    parser.add_argument(
        "--incremental-only", action="store_true", help="measure only the resumed audit and print it"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="with --incremental-only: generate the file into this directory once and reuse it "
        "(the states are made afresh each time)",
    )
    args = parser.parse_args(argv)
    if args.memory_only:
        return _memory_only(args.receipts)
    if args.incremental_only:
        return _incremental_only(args.receipts, args.repeat, args.keep)
    health_receipts = args.health_receipts or min(100_000, args.receipts)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path, tail = work / "bench.jsonl", work / "tail.jsonl"
        start = time.perf_counter()
        info = generate(path, args.receipts, tail=tail, more=max(1, args.receipts // 100))
        info["generate_s"] = time.perf_counter() - start
        now = T0 + timedelta(days=30)
        full = full_verification(path, now, args.repeat)
        resumed = incremental(path, tail, work, now, args.repeat)
        memory = memory_growth(path, now)
        shuffled_copy(path, work / "shuffled.jsonl")
        unordered = memory_growth(work / "shuffled.jsonl", now)
        size_mb = path.stat().st_size / 2**20
        health = health_latency(work, health_receipts, args.health_calls)
    results = {
        **info,
        "file_mb": round(size_mb, 1),
        "full": full,
        "incremental": resumed,
        "memory": {"streaming": memory, "out_of_order": unordered},
        "health": {"receipts": health_receipts, **health},
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f}",
    }
    _write(results, args.out, args)
    return 0


def _incremental_only(receipts: int, repeat: int, keep: Path | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) if keep is None else keep
        info = _generated(work, receipts)
        path, tail = work / "bench.jsonl", work / "tail.jsonl"
        result = incremental(path, tail, work, T0 + timedelta(days=30), repeat)
    print(f"| receipts | {info['receipts']:,} + 1% appended |")
    print(f"| resumed audit | {result['resumed_s']:.2f} s |")
    print(f"| full audit of the same file | {result['full_s']:.2f} s |")
    print(f"| ratio resumed / full | {result['ratio']:.1%} |")
    print(f"| resumed / full, process CPU | {result['resumed_cpu_s']:.2f} s / {result['full_cpu_s']:.2f} s |")
    print(f"| ratio resumed / full, process CPU | {result['ratio_cpu']:.1%} |")
    print(
        f"| state file | {result['state_mb']} MB, {result['appended_mb']} MB appended by the resumed "
        f"audit; same verdicts: {result['same_verdicts']} |"
    )
    print(f"| load average | {os.getloadavg()[0]:.1f} |")
    return 0


def _generated(work: Path, receipts: int) -> dict[str, Any]:
    """The generated file and its tail in `work`, made once per size: the generator is seeded, so a
    kept file is the one it would make again. The states are always made afresh (their format and
    content depend on the code measured)."""
    work.mkdir(parents=True, exist_ok=True)
    path, tail, made = work / "bench.jsonl", work / "tail.jsonl", work / "generated.json"
    for stale in ("seed.state", "seed.state.key", "audit.state", "audit.state.key"):
        (work / stale).unlink(missing_ok=True)
    if made.exists() and path.exists() and tail.exists():
        info: dict[str, Any] = json.loads(made.read_text())
        if info.get("asked") == receipts:
            return info
    info = {"asked": receipts, **generate(path, receipts, tail=tail, more=max(1, receipts // 100))}
    made.write_text(json.dumps(info))
    return info


def _memory_only(receipts: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        info = generate(path, receipts)
        now = T0 + timedelta(days=30)
        streaming = memory_growth(path, now)
        shuffled_copy(path, Path(tmp) / "shuffled.jsonl")
        path.unlink()
        unordered = memory_growth(Path(tmp) / "shuffled.jsonl", now)
    print(f"| receipts | {info['receipts']:,} |")
    print(f"| peak RSS growth, streaming pass | {streaming['growth_mb']} MB ({streaming['mode']} pass) |")
    print(f"| peak RSS growth, shuffled input | {unordered['growth_mb']} MB ({unordered['mode']} pass) |")
    return 0


def _write(results: dict[str, Any], out: Path, args: argparse.Namespace) -> None:
    full, inc, mem, health = results["full"], results["incremental"], results["memory"], results["health"]
    rows = [
        (
            "receipts",
            f"{results['receipts']:,} ({results['faulty_receipts'] / results['receipts']:.1%} faulty), "
            f"{results['file_mb']} MB, every one MAC'd",
        ),
        (
            "floor: orjson parse + SHA-256 + HMAC-SHA256 (precomputed key state) per line",
            f"{full['floor_s']:.2f} s",
        ),
        (
            "full verification: audit() with the key (chain, MAC, all rules)",
            f"{full['audit_s']:.2f} s ({full['mode']} pass)",
        ),
        ("**ratio full verification / floor** (median of rounds; target <= 2.5x)", f"{full['ratio']:.2f}x"),
        ("incremental: resumed audit after appending 1%", f"{inc['resumed_s']:.3f} s"),
        ("incremental: full audit of the same file", f"{inc['full_s']:.2f} s"),
        ("**ratio resumed / full** (median of rounds; target <= 5%)", f"{inc['ratio']:.1%}"),
        ("ratio resumed / full, process CPU (median of rounds)", f"{inc['ratio_cpu']:.1%}"),
        ("state file", f"{inc['state_mb']} MB; same verdicts as the full audit: {inc['same_verdicts']}"),
        (
            "peak RSS growth, streaming pass (target <= 100 MB)",
            f"{mem['streaming']['growth_mb']} MB ({mem['streaming']['mode']} pass)",
        ),
        (
            "peak RSS growth, shuffled input (target <= 200 MB)",
            f"{mem['out_of_order']['growth_mb']} MB ({mem['out_of_order']['mode']} pass)",
        ),
        (
            f"memory_health over MCP, store of {health['receipts']:,} receipts: first call (full audit)",
            f"{health['first_call_ms']} ms",
        ),
        ("**memory_health, later calls** (median; target <= 20 ms)", f"{health['call_ms']} ms"),
        ("memory_health, a call after a memory_remember (median)", f"{health['call_after_a_write_ms']} ms"),
        ("verdict of the generated file", full["verdict"]),
    ]
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    text = (
        f"# auditor benchmark\n\n{results['date']} on {results['machine']};\n"
        f"`python bench/bench_auditor.py --receipts {args.receipts} --repeat {args.repeat}`\n\n"
        "| measure | value |\n|---|---|\n" + table + "\n"
    )
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    out.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
