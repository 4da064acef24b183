"""A writer process of the server-crash test: `python -m tests.postgres_ops.writer --db URL --writer N
--seconds S`. It remembers turns until S seconds have passed, acknowledging each on stdout with one
write(2) after remember() returned; a StoreError (the server is down) is reported and the writer
carries on with the next turn after a short pause. Any other exception escapes: exit 70 (a bug).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from typing import Any

import orjson

import memoryos
from tests.postgres_ops.inventory import sha

EXIT_ESCAPED = 70
#: No distillation (it needs no server crash to be tested) and room for every page in MTM.
CONFIG: dict[str, Any] = {"heat_threshold": 1e12, "mtm_capacity": 100_000}


def emit(record: dict[str, Any]) -> None:
    os.write(1, orjson.dumps(record) + b"\n")


def write(url: str, writer: int, seconds: float, pause: float) -> None:
    scope = memoryos.Scope(user=f"writer-{writer}", assistant="crash")
    with memoryos.open(url, **CONFIG) as mem:
        emit({"op": "open"})
        deadline = time.monotonic() + seconds
        n = 0
        while time.monotonic() < deadline:
            # unique per process without random hex: a random digit run can read as a card or phone
            # number to the no-store rule, which would refuse the turn (Rejected, not a StoreError)
            text = f"writer {writer} turn {n} of process {os.getpid()}"
            n += 1
            try:
                stored = mem.remember(scope, text)
            except memoryos.StoreError as exc:
                emit({"op": "error", "type": type(exc).__name__, "store": True})
                time.sleep(pause)
                continue
            except memoryos.MemoryOSError as exc:
                emit({"op": "error", "type": type(exc).__name__, "store": False})
                continue
            emit({"op": "remember", "id": stored.memory_id, "sha": sha(text)})
        emit({"op": "done"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.postgres_ops.writer", description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--writer", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--pause", type=float, default=0.05)
    args = parser.parse_args(argv)
    try:
        write(args.db, args.writer, args.seconds, args.pause)
    except Exception:
        traceback.print_exc()
        return EXIT_ESCAPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
