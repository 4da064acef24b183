"""The child process of a trial: replays a workload plan on a store and acknowledges each step.

Run as `python -m chaos.child --store PATH|URL --workload W --seed S [--mode run|count|reopen]`, with
MEMORYOS_FAILPOINTS in its environment. Every acknowledgement is written to stdout with one
os.write() on an unbuffered pipe *after* the call returned and *before* the next step starts, so
whatever the parent reads is exactly what the caller was told succeeded, even after a SIGKILL.

Exit codes: 0 the plan ran to the end; 70 an exception that is not a MemoryOSError escaped (a bug).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import traceback
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

import memoryos
from chaos.naive import HOOK, NaiveHook, NaivePromoter
from chaos.workload import CONFIG, USERS, FakeClock, Op, end_time, plan
from memoryos import failpoints

EXIT_ESCAPED = 70


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def emit(record: dict[str, Any]) -> None:
    """One line, one write(2): atomic on a pipe, and in the kernel before the next step begins."""
    os.write(1, orjson.dumps(record) + b"\n")


class Runner:
    """Replays one plan against one open store, acknowledging what the API confirmed."""

    def __init__(self, store: str, workdir: Path, clock: FakeClock, naive: NaiveHook | None) -> None:
        self.store = store
        self.workdir = workdir
        self.clock = clock
        self.naive = naive
        self.turns: dict[int, list[str]] = {i: [] for i in range(len(USERS))}
        self.mem = self._open()
        emit({"op": "open"})  # the soak's parent starts its random delay here, not at spawn

    def _open(self) -> memoryos.Memory:
        # A `raise` armed at a recovery point fires inside open(): report it and open again, as a host would.
        for _ in range(3):
            try:
                mem = memoryos.open(self.store, clock=self.clock, **CONFIG)
            except memoryos.MemoryOSError as exc:
                emit({"op": "error", "step": -1, "kind": "open", "type": type(exc).__name__})
                continue
            if self.naive is not None:
                NaivePromoter(mem, self.naive).install()
            return mem
        raise SystemExit("could not open the store three times")

    def run(self, ops: list[Op]) -> None:
        for step, op in enumerate(ops):
            try:
                self.step(step, op)
            except memoryos.MemoryOSError as exc:
                emit({"op": "error", "step": step, "kind": op.kind, "type": type(exc).__name__})

    def step(self, step: int, op: Op) -> None:
        mem, scope = self.mem, memoryos.Scope(*USERS[op.scope])
        if op.kind == "tick":
            self.clock.advance(op.seconds)
        elif op.kind == "remember":
            ttl = None if op.ttl is None else timedelta(seconds=op.ttl)
            stored = mem.remember(scope, op.text, role=op.role, ttl=ttl)
            self.turns[op.scope].append(stored.memory_id)
            emit(
                {
                    "op": "remember",
                    "step": step,
                    "id": stored.memory_id,
                    "scope": op.scope,
                    "sha": text_sha(op.text),
                }
            )
        elif op.kind in ("put", "correct"):
            call = mem.put if op.kind == "put" else mem.correct
            stored = call(scope, op.key, op.text)
            emit({"op": op.kind, "step": step, "id": stored.memory_id, "version": stored.version})
        else:
            self._upkeep(step, op, mem, scope)

    def _upkeep(self, step: int, op: Op, mem: memoryos.Memory, scope: memoryos.Scope) -> None:
        if op.kind == "recall":
            found = mem.recall(scope, op.text, k=3)
            if found.hits:  # a generation that used no memory declares nothing (auditor: undeclared)
                mem.generated(scope, found.run_id, depends_on=found.refs)
        elif op.kind == "get":
            mem.get(scope, op.key)
        elif op.kind == "forget_key":
            mem.forget(scope, op.key)
        elif op.kind == "forget_turn" and self.turns[op.scope]:
            mem.forget(scope, self.turns[op.scope][-1])
        elif op.kind == "maintain":
            mem.maintain()
        elif op.kind == "export":
            mem.export_receipts(self.workdir / "store.export.jsonl")
        emit({"op": op.kind, "step": step})

    def finish(self) -> None:
        """A host that keeps going: later upkeep works (a fault in it is reported, then retried once)
        and check() stays clean."""
        self.clock.advance(1)
        for attempt in range(2):
            try:
                self.mem.maintain()
                findings = [f"{f.code}: {f.detail}" for f in self.mem.check()]
                break
            except memoryos.MemoryOSError as exc:
                emit({"op": "error", "step": -2, "kind": "finish", "type": type(exc).__name__})
                findings = [f"finish raised {type(exc).__name__} on attempt {attempt + 1}"]
        # Faults in a step that followed a committed change (a promotion after remember()) were
        # deferred rather than raised at the caller: the trial counts them with the raised ones.
        deferred = self.mem.lifecycle.followups.deferred["promotion"]
        emit({"op": "done", "findings": findings, "deferred": deferred})
        self.mem.close()


def _arm_counting() -> None:
    """Count hits of every point: sleep(0) fires (and counts) without changing behaviour."""
    failpoints.arm(",".join(f"{name}=sleep(0)" for name in failpoints.POINTS))


def _counts(naive: NaiveHook | None) -> dict[str, int]:
    counts = {name: armed.hits for name, armed in failpoints._armed.items()}
    if naive is not None:
        counts[HOOK] = naive.hits
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chaos.child", description=__doc__)
    parser.add_argument("--store", required=True, help="a store file, or a postgresql:// URL")
    parser.add_argument("--workdir", type=Path, default=Path.cwd(), help="where receipt exports go")
    parser.add_argument("--workload", default="small")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("run", "count", "reopen"), default="run")
    parser.add_argument("--naive", action="store_true", help="promote STM -> MTM in the naive order")
    parser.add_argument("--naive-kill", type=int, default=0, help="SIGKILL on this hit of the naive hook")
    args = parser.parse_args(argv)
    if args.mode == "count":
        _arm_counting()
    ops = plan(args.workload, args.seed)
    clock = FakeClock()
    naive = NaiveHook(args.naive_kill) if args.naive else None
    try:
        if args.mode == "reopen":  # recovery only: the parent armed a recovery point
            clock.now = end_time(ops) + timedelta(seconds=1)
            memoryos.open(args.store, clock=clock, **CONFIG).close()
            emit({"op": "done", "findings": []})
            return 0
        runner = Runner(args.store, args.workdir, clock, naive)
        runner.run(ops)
        runner.finish()
    except Exception:
        traceback.print_exc()
        return EXIT_ESCAPED
    if args.mode == "count":
        emit({"op": "counts", "counts": _counts(naive)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
