"""Benchmark: auditor.audit() against a raw orjson line-by-line parse of the same file.

    python bench/bench_auditor.py                    # 1,000,000 receipts, medians of 3
    python bench/bench_auditor.py --receipts 100000 --repeat 3

Generates a realistic chained stream (remember -> STM -> MTM promotion -> recall/generate, MTM
capacity evictions, LPM distillation, corrections) with about 10% of receipts touched by seeded
faults, then reports wall-time medians, their ratio, and the peak RSS growth of one audit measured
in a fresh subprocess. Results go to bench/results/auditor.md (and .json beside it; --out moves both).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
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
FAULTS = ("scope", "unpromoted", "undeclared", "stale", "garbage", "gap", "duplicate", "at_risk")


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Generator:
    """A chain written the way receipts.pipeline.seal() writes it, without its per-call overhead."""

    def __init__(self, seed: int) -> None:
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
            "chainId": "store-bench",
            "prev": self.link,
            **fields,
        }
        line = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
        self.link = hashlib.sha256(line).hexdigest()
        self.lines.append(line)
        return line


def generate(path: Path, total: int, seed: int = 7) -> dict[str, Any]:
    g = Generator(seed)
    live_pages: deque[str] = deque()
    records: list[tuple[str, int]] = []
    cycle = 0
    with path.open("wb") as out:
        while g.seq < total:
            cycle += 1
            fault = g.rnd.choice(FAULTS)  # one fault per cycle: about 10% of receipts
            _cycle(g, live_pages, records, fault)
            for line in g.lines:
                out.write(line + b"\n")
            g.lines.clear()
    return {"receipts": g.seq, "cycles": cycle, "faulty_receipts": g.faulty}


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


def raw_parse(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:  # the seeded garbage lines
                continue
            count += 1
    return count


def timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def memory_growth(path: Path, now: datetime) -> dict[str, Any]:
    """Peak RSS growth of one audit, in a fresh interpreter so earlier runs do not mask it.

    VmHWM (Linux), not ru_maxrss: ru_maxrss survives fork+exec and would report the parent's peak.
    """
    code = (
        "import sys, json, datetime\n"
        f"sys.path.insert(0, {str(HERE.parent)!r})\n"
        "import auditor, orjson, networkx\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) / 1024\n"
        "before = hwm()\n"
        f"r = auditor.audit({str(path)!r}, now=datetime.datetime.fromisoformat({now.isoformat()!r}))\n"
        "print(json.dumps({'before_mb': before, 'after_mb': hwm(), 'mode': r.mode}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    result["growth_mb"] = result["after_mb"] - result["before_mb"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--receipts", type=int, default=1_000_000, help="size of the generated file")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each side (medians reported)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "auditor.md", help="markdown results")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        start = time.perf_counter()
        info = generate(path, args.receipts)
        info["generate_s"] = time.perf_counter() - start
        now = T0 + timedelta(days=30)
        report = audit(path, now=now)
        raw = [timed(raw_parse, path) for _ in range(args.repeat)]
        audited = [timed(audit, path, now=now) for _ in range(args.repeat)]
        memory = memory_growth(path, now)
        size_mb = path.stat().st_size / 2**20
    results = {
        **info,
        "file_mb": round(size_mb, 1),
        "raw_parse_s": statistics.median(raw),
        "audit_s": statistics.median(audited),
        "ratio": statistics.median(audited) / statistics.median(raw),
        "peak_rss_growth_mb": round(memory["growth_mb"], 1),
        "memory_run_mode": memory["mode"],
        "mode": report.mode,
        "verdict": report.verdict,
        "counts": dict(report.counts),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }
    _write(results, args.out, args)
    return 0


def _write(results: dict[str, Any], out: Path, args: argparse.Namespace) -> None:
    rows = [
        (
            "receipts",
            f"{results['receipts']:,} ({results['faulty_receipts'] / results['receipts']:.1%} faulty)",
        ),
        ("file size", f"{results['file_mb']} MB"),
        ("generation (not timed below)", f"{results['generate_s']:.1f} s"),
        ("raw orjson line-by-line parse (median)", f"{results['raw_parse_s']:.2f} s"),
        ("auditor.audit() (median)", f"{results['audit_s']:.2f} s ({results['mode']} pass)"),
        ("ratio audit / raw parse", f"{results['ratio']:.2f}x"),
        (
            "peak RSS growth of one audit",
            f"{results['peak_rss_growth_mb']} MB ({results['memory_run_mode']} pass)",
        ),
        ("verdict", results["verdict"]),
    ]
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    text = (
        f"# auditor benchmark\n\n{results['date']} on {results['machine']}; "
        f"`python bench/bench_auditor.py --receipts {args.receipts} --repeat {args.repeat}`\n\n"
        "| measure | value |\n|---|---|\n" + table + "\n"
    )
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    out.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
