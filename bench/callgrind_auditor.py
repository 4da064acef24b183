"""Instructions of a full audit (chain, MAC, every rule) against the floor, under callgrind.

The full-verification goal of bench_auditor.py is a ratio of two Python passes over the same file: an
audit with the key, and the floor (an orjson parse, a SHA-256 and an HMAC-SHA256 from a precomputed
key state of every line). On a shared 2-core machine their CPU times swing with the load; their
instruction counts do not, and both are interpreted Python, so the count ratio tracks the CPU ratio.
The file is bench_auditor's seeded generator (about 10% of receipts touched by faults), written once
in the parent; each side then runs in its own process under valgrind, and only the pass itself is
counted: it runs inside a `functools.reduce` call, the marker that `--toggle-collect` switches
collection on for (imports and start-up are outside it). Valgrind runs OpenSSL's portable SHA-256
(no SHA extensions), so the hashing is overcounted on both sides: the ratio of the counts outside
libcrypto is the one that tracks the CPU ratio (3.7x both on main, 2026-12-01).

    python bench/callgrind_auditor.py                       # 100,000 receipts, a few minutes
    python bench/callgrind_auditor.py --receipts 20000      # quicker, while iterating
    python bench/callgrind_auditor.py --checkout /work/main # the same file against another checkout
    python bench/callgrind_auditor.py --keep DIR            # keep callgrind.out.<side> for callgrind_annotate
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def marked(fn: Callable[[], Any]) -> None:
    """Run fn inside functools.reduce: the one C function callgrind's toggle collects under."""
    functools.reduce(lambda _acc, _item: fn(), [None], None)


def run_side(side: str, path: Path, checkout: Path) -> None:
    """The child process: import the checkout's auditor, then count one pass over `path`."""
    sys.path[:0] = [str(checkout / "bench")]  # its bench_auditor puts its own checkout first
    import bench_auditor  # a sibling script, not a package

    if side == "floor":
        marked(functools.partial(bench_auditor.floor, path))
        return
    from auditor import audit

    if Path(audit.__code__.co_filename).resolve().parents[1] != checkout.resolve():
        raise SystemExit(f"imported {audit.__code__.co_filename}, not the checkout {checkout}")
    now = bench_auditor.T0 + timedelta(days=30)
    marked(functools.partial(audit, path, now=now, key=bench_auditor.KEY))


def crypto_instructions(out: Path) -> int:
    """The instructions spent in OpenSSL (libcrypto). Valgrind does not offer the CPU's SHA
    extensions, so OpenSSL runs its portable SHA-256 under it, at many times the instructions of the
    real run: two thirds of the floor's count. The count without it is the one that tracks the CPU
    ratio (hashing is the same work on both sides, and cheap on the real CPU)."""
    done = subprocess.run(
        ["callgrind_annotate", "--threshold=100", str(out)], capture_output=True, text=True, check=True
    )
    total = 0
    for line in done.stdout.splitlines():
        found = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S.*libcrypto", line)
        if found:
            total += int(found.group(1).replace(",", ""))
    return total


def instructions(side: str, path: Path, checkout: Path, out: Path) -> int:
    """Run one side under callgrind; the instructions counted inside the marker."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=functools_reduce",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--side",
            side,
            "--file",
            str(path),
            "--checkout",
            str(checkout),
        ],
        capture_output=True,
        check=False,  # a failure is reported with the child's stderr below
        env={**os.environ, "PYTHONHASHSEED": "0"},  # the same set and dict layouts in every run
    )
    if done.returncode != 0:
        raise SystemExit(f"the {side} side failed:\n{done.stderr.decode(errors='replace')[-3000:]}")
    found = re.search(rb"^(?:summary|totals): (\d+)", out.read_bytes(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"{out}: no instruction total in the callgrind output")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--side", choices=("floor", "audit"), help=argparse.SUPPRESS)  # the child
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--receipts", type=int, default=100_000, help="size of the generated file")
    parser.add_argument(
        "--checkout", type=Path, default=HERE.parent, help="the repository whose auditor is counted"
    )
    parser.add_argument("--keep", type=Path, default=None, help="folder to keep the file and outputs in")
    parser.add_argument("--only", choices=("floor", "audit"), help="count one side only (while iterating)")
    args = parser.parse_args()
    if args.side:
        run_side(args.side, args.file, args.checkout)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    keep = args.keep or Path(tempfile.mkdtemp(prefix="memoryos-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    path = keep / f"bench-{args.receipts}.jsonl"
    if not path.exists():  # the generator is seeded: a kept file is the one it would write again
        sys.path.insert(0, str(HERE))
        import bench_auditor

        bench_auditor.generate(path, args.receipts)
    counts = {
        side: instructions(side, path, args.checkout, keep / f"callgrind.out.{side}")
        for side in ([args.only] if args.only else ["floor", "audit"])
    }
    crypto = {side: crypto_instructions(keep / f"callgrind.out.{side}") for side in counts}
    print(f"{args.receipts:,} receipts, checkout {args.checkout}, Python {sys.version.split()[0]}")
    for side, count in counts.items():
        print(
            f"{side}: {count / 1e6:,.1f}M instructions ({count / args.receipts:,.0f} per receipt), "
            f"{(count - crypto[side]) / 1e6:,.1f}M outside libcrypto"
        )
    if len(counts) == 2:
        print(f"ratio audit / floor: {counts['audit'] / counts['floor']:.2f}x")
        outside = (counts["audit"] - crypto["audit"]) / (counts["floor"] - crypto["floor"])
        print(f"ratio outside libcrypto (tracks the CPU ratio; target <= 2.5x): {outside:.2f}x")
    if args.keep is None:
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    main()
