"""Instructions per full-STM promotion against a raw one-transaction move, under callgrind.

Wall-clock ratios on a shared 2-core machine swing with other processes' fsyncs; instruction counts
do not. Each side runs in its own process under valgrind: a store at durability normal (no fsync in
the count), 100 pages over 20 scopes, 10 warm-up promotions of 7 turns, then 20 measured ones. Only
the measured calls are counted: each runs inside a `functools.reduce` call, the marker that
`--toggle-collect=functools_reduce` switches collection on for (setting up the turns is outside it).
The raw side is bench_core.raw_move, the same raw baseline bench_core.py times.

    python bench/callgrind_promotion.py            # both sides, about a minute; prints the ratio
    python bench/callgrind_promotion.py --keep DIR # also keep the callgrind.out files for callgrind_annotate
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core  # a sibling script, not a package

import memoryos
from receipts import uuid7

WARMUP, MEASURED, STORED, SCOPES = 10, 20, 100, 20


def marked(fn: Callable[[], Any]) -> None:
    """Run fn inside functools.reduce: the one C function callgrind's toggle collects under."""
    functools.reduce(lambda _acc, _item: fn(), [None], None)


def promotion_side(folder: Path) -> None:
    rng = random.Random(7)
    mem = memoryos.open(
        folder / "promotion.db", clock=bench_core.bench_clock(), durability="normal", heat_threshold=1e12
    )
    scopes = [memoryos.Scope(user=f"user-{i}", assistant="bench") for i in range(SCOPES)]
    bench_core.fill(mem, STORED, scopes, rng)
    key = mem._scopes(memoryos.Scope(user="promo-user", assistant="bench"))
    for i in range(WARMUP + MEASURED):
        with mem.store.write("fill") as tx:  # a full STM, written without triggering promotion
            for _ in range(mem.config.stm_capacity):
                now = int(mem._clock().timestamp() * 1e6)
                tx.insert_unit(bench_core.user_turn(key, "stm", bench_core.sentence(rng), now, uuid7()))
        with mem.store.read() as tx:
            turns = tx.stm_turns(key.user, key.assistant)
        move = functools.partial(mem.promoter.promote_turns, turns, int(time.time() * 1e6))
        if i < WARMUP:
            move()
        else:
            marked(move)
    mem.close()


def raw_side(folder: Path, *, sealed: bool = False) -> None:
    rng = random.Random(7)
    mem = memoryos.open(
        folder / "raw.db", clock=bench_core.bench_clock(), durability="normal", heat_threshold=1e12
    )
    scopes = [memoryos.Scope(user=f"user-{i}", assistant="bench") for i in range(SCOPES)]
    bench_core.fill(mem, STORED, scopes, rng)
    path = Path(mem.path)
    mem.close()
    raw = bench_core.raw_connection(path, "normal")
    raw.execute("CREATE TABLE IF NOT EXISTS raw_receipts (seq INTEGER PRIMARY KEY, body BLOB)")
    capacity = memoryos.Config().stm_capacity
    for i in range(WARMUP + MEASURED):
        rows = bench_core.raw_setup(raw, capacity, rng)
        move = functools.partial(bench_core.raw_move, raw, rows, sealed=sealed)
        if i < WARMUP:
            move()
        else:
            marked(move)
    raw.close()


SIDES: dict[str, Callable[[Path], None]] = {
    "promotion": promotion_side,
    "raw": raw_side,
    "raw-sealed": functools.partial(raw_side, sealed=True),  # informative: chained and signed lines
}


def instructions(side: str, out: Path) -> int:
    """Run one side under callgrind; the instructions counted inside the markers."""
    with tempfile.TemporaryDirectory(prefix="memoryos-callgrind-") as tmp:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--toggle-collect=functools_reduce",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--side",
                side,
                "--folder",
                tmp,
            ],
            check=True,
            capture_output=True,
        )
    found = re.search(rb"^(?:summary|totals): (\d+)", out.read_bytes(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"{out}: no instruction total in the callgrind output")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--side", choices=sorted(SIDES), help=argparse.SUPPRESS)  # the child process
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--keep", default=None, help="folder to keep callgrind.out.<side> in")
    parser.add_argument("--only", choices=sorted(SIDES), help="count one side only (while iterating)")
    args = parser.parse_args()
    if args.side:
        SIDES[args.side](Path(args.folder))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    keep = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memoryos-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    sides = [args.only] if args.only else sorted(SIDES)
    counts = {side: instructions(side, keep / f"callgrind.out.{side}") / MEASURED for side in sides}
    python = sys.version.split()[0]
    print(f"SQLite {sqlite3.sqlite_version}, Python {python}, {MEASURED} promotions of 7 turns each")
    names = {
        "promotion": "full-STM promotion",
        "raw": "raw one-transaction move",
        "raw-sealed": "raw move, receipts chained + HMAC",
    }
    for side, count in counts.items():
        print(f"{names[side]}: {count / 1e3:,.0f}k instructions")
    if "promotion" in counts and "raw" in counts:
        print(f"ratio: {counts['promotion'] / counts['raw']:.2f}x (target <= 2x)")
    if "promotion" in counts and "raw-sealed" in counts:
        print(f"ratio to the sealed raw move: {counts['promotion'] / counts['raw-sealed']:.2f}x")
    if not args.keep:
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    main()
