"""One trial: spawn a child on a fresh store, let it die (or finish), restart the store, check.

The child is always a fresh interpreter (`python -m chaos.child`), never a fork of this process, so
no SQLite connection or lock state crosses into it (DESIGN §3).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

import memoryos
from chaos import stores, verdict
from chaos.checks import Tally, snapshot, verify_state
from chaos.workload import CONFIG
from memoryos.settings import ENV_FAILPOINTS
from receipts import parse_utc

CHILD_TIMEOUT = 120.0
_ROOT = str(Path(__file__).resolve().parent.parent)


@dataclass(frozen=True)
class Spec:
    """What to run. `family` is kill | raise | recovery | soak | naive; `point` and `hit` say where."""

    family: str
    workload: str
    seed: int = 0
    point: str = ""
    hit: int = 0
    recovery_point: str = ""  # recovery: the point that kills the restart
    delay: float = 0.0  # soak: seconds before the external SIGKILL


@dataclass
class Child:
    returncode: int
    acks: list[dict[str, Any]]
    stderr: str


def child_env(failpoints: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_FAILPOINTS}
    if failpoints:
        env[ENV_FAILPOINTS] = failpoints
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (_ROOT, env.get("PYTHONPATH"))))
    return env


def spawn(
    store: str, workdir: Path, spec: Spec, failpoints: str, *extra: str, kill_after: float | None = None
) -> Child:
    """Run the child to its end (or its death) and collect every acknowledgement it wrote."""
    argv = [sys.executable, "-m", "chaos.child", "--store", store, "--workload", spec.workload]
    argv += ["--seed", str(spec.seed), "--workdir", str(workdir), *extra]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(failpoints), cwd=workdir
    )
    first = b""
    if kill_after is not None:
        if proc.stdout is not None:  # always, with stdout=PIPE; the check is for the type checker
            first = proc.stdout.readline()  # the store is open: the workload is under way
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)  # our own child, by its pid
    try:
        out, err = proc.communicate(timeout=CHILD_TIMEOUT)
        out = first + out
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return Child(-999, _acks(out), "timed out\n" + err.decode(errors="replace"))
    return Child(proc.returncode, _acks(out), err.decode(errors="replace"))


def _acks(out: bytes) -> list[dict[str, Any]]:
    # The last line may be cut by the kill only if it was never fully written; os.write makes that rare.
    acks = []
    for line in out.splitlines():
        try:
            acks.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    return acks


class FixedClock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def last_time(store: str) -> datetime:
    """The child's clock at its last commit: the restart continues from there, never earlier."""
    times = [parse_utc(r["atUtc"]) for r in snapshot(store).receipts if "atUtc" in r]
    return max(times, default=datetime(2025, 1, 1, tzinfo=UTC))


def _exists(store: str) -> bool:
    return stores.pg_has_store(store) if stores.is_url(store) else Path(store).exists()


def restart_and_check(store: str, acks: list[dict[str, Any]], result: dict[str, Any]) -> None:
    """Reopen (recovery runs), check; run maintenance, check again; ask the auditor; prove usable."""
    if not _exists(store):
        result.update(verdict="empty")
        return
    now = last_time(store)
    findings: list[str] = []
    _session(store, now, findings, maintain=False)
    tallies = [verify_state(store, acks)]
    _session(store, now, findings, maintain=True)  # upkeep after a crash must not lose anything either
    tallies.append(verify_state(store, acks))
    judged = verdict.classify(store, now, snapshot(store).receipts)  # before _usable() adds receipts
    result.update(verdict=judged.overall)
    result.update(audit=list(judged.reasons), control_caught=judged.released_at_risk)
    findings += _usable(store, now)
    merged = _merge(tallies)
    result.update(lost=merged.lost, duplicated=merged.duplicated, mismatches=merged.mismatches)
    result["findings"] = findings + merged.findings


def _session(store: str, now: datetime, findings: list[str], *, maintain: bool) -> None:
    try:
        with memoryos.open(store, clock=FixedClock(now), **CONFIG) as mem:
            if maintain:
                mem.maintain(now=now)
            findings.extend(f"check: {f.code}: {f.detail}" for f in mem.check())
    except memoryos.MemoryOSError as exc:
        findings.append(f"restart failed: {type(exc).__name__}: {exc}")


def _usable(store: str, now: datetime) -> list[str]:
    """After the crash the store takes new turns and upkeep, and stays clean."""
    try:
        with memoryos.open(store, clock=FixedClock(now), **CONFIG) as mem:
            mem.remember(memoryos.Scope("alice", "coder"), "after the crash the store still works")
            mem.maintain(now=now)
            return [f"after restart: {f.code}: {f.detail}" for f in mem.check()]
    except memoryos.MemoryOSError as exc:
        return [f"store unusable after restart: {type(exc).__name__}: {exc}"]


def _merge(tallies: list[Tally]) -> Tally:
    merged = Tally()
    merged.lost = max(t.lost for t in tallies)
    merged.duplicated = max(t.duplicated for t in tallies)
    merged.mismatches = max(t.mismatches for t in tallies)
    merged.findings = list(dict.fromkeys(f for t in tallies for f in t.findings))
    return merged


# -- the families -------------------------------------------------------------------------------------
def run(spec: Spec, keep: Path | None = None, server: str | None = None) -> dict[str, Any]:
    """Run one trial in a temporary directory (and, with `server`, a database of its own there);
    keep the store under `keep` when something is wrong (a kept database is left on the server)."""
    workdir = Path(tempfile.mkdtemp(prefix="chaos-"))
    result: dict[str, Any] = {**asdict(spec), "killed": False, "lost": 0, "duplicated": 0}
    result.update(mismatches=0, verdict="", audit=[], findings=[], bug="")
    result["control_caught"] = None
    store = ""
    try:
        store = stores.new_store(workdir, server)
        _FAMILIES[spec.family](store, workdir, spec, result)
    except Exception as exc:  # a harness crash is reported as a bug of that trial, not a lost sweep
        result["bug"] = f"harness: {type(exc).__name__}: {exc}"
    result["ok"] = _ok(spec, result)
    kept = keep is not None and not result["ok"]
    if keep is not None and kept:
        target = keep / f"{spec.family}-{spec.point or 'none'}-{spec.hit}-{spec.seed}"
        shutil.copytree(workdir, target, dirs_exist_ok=True)
        result["kept"] = f"{target} {store}" if stores.is_url(store) else str(target)
    if store and not kept:
        stores.drop_store(store, server)
    shutil.rmtree(workdir, ignore_errors=True)
    return result


def _ok(spec: Spec, result: dict[str, Any]) -> bool:
    """Clean, and judged healthy or waiting by the auditor. For the negative control, "ok" means
    the loss was seen and the auditor called it."""
    if spec.family == "naive":
        return not result["bug"] and (result["lost"] == 0 or result["control_caught"] is True)
    clean = not (result["bug"] or result["lost"] or result["duplicated"] or result["mismatches"])
    return clean and not result["findings"] and result["verdict"] in verdict.ACCEPTED


def _expect_kill(child: Child, result: dict[str, Any], what: str) -> None:
    result["killed"] = child.returncode == -signal.SIGKILL
    if not result["killed"]:
        tail = child.stderr.strip().splitlines()[-3:]
        result["bug"] = f"{what}: expected death by SIGKILL, got exit {child.returncode} {tail}"


def _kill(store: str, workdir: Path, spec: Spec, result: dict[str, Any]) -> None:
    child = spawn(store, workdir, spec, f"{spec.point}={spec.hit}*kill")
    _expect_kill(child, result, f"{spec.point} hit {spec.hit}")
    restart_and_check(store, child.acks, result)


def _raise(store: str, workdir: Path, spec: Spec, result: dict[str, Any]) -> None:
    """The caller gets a MemoryOSError (InjectedFault), or, when the fault hit a step that followed
    its committed change, a success and a deferred follow-up; it carries on, the store stays consistent."""
    child = spawn(store, workdir, spec, f"{spec.point}={spec.hit}*raise")
    faults = [a for a in child.acks if a.get("op") == "error" and a.get("type") == "InjectedFault"]
    done = [a for a in child.acks if a.get("op") == "done"]
    deferred = sum(int(d.get("deferred", 0)) for d in done)
    if child.returncode != 0:
        result["bug"] = f"exit {child.returncode}: {child.stderr.strip().splitlines()[-3:]}"
    elif len(faults) + deferred != 1:
        result["bug"] = f"expected one InjectedFault (raised or deferred), saw {len(faults)} + {deferred}"
    elif not done:
        result["bug"] = "the workload did not finish after the fault"
    result["findings"] += [f"in-process check: {f}" for d in done for f in d.get("findings", [])]
    restart_and_check(store, child.acks, result)


def _recovery(store: str, workdir: Path, spec: Spec, result: dict[str, Any]) -> None:
    """Crash with a promotion intent open, then crash again inside the recovery that reconciles it."""
    first = spawn(store, workdir, spec, f"{spec.point}={spec.hit}*kill")
    _expect_kill(first, result, f"{spec.point} hit {spec.hit}")
    second = spawn(store, workdir, spec, f"{spec.recovery_point}=1*kill", "--mode", "reopen")
    if not result["bug"]:
        _expect_kill(second, result, f"recovery at {spec.recovery_point}")
    restart_and_check(store, first.acks, result)


def _soak(store: str, workdir: Path, spec: Spec, result: dict[str, Any]) -> None:
    """No failpoint at all: an outside SIGKILL at a random instant."""
    child = spawn(store, workdir, spec, "", kill_after=spec.delay)
    result["killed"] = child.returncode == -signal.SIGKILL
    if child.returncode not in (0, -signal.SIGKILL):  # 0: the plan finished before the kill came
        result["bug"] = f"exit {child.returncode}: {child.stderr.strip().splitlines()[-3:]}"
    restart_and_check(store, child.acks, result)


def _naive(store: str, workdir: Path, spec: Spec, result: dict[str, Any]) -> None:
    child = spawn(store, workdir, spec, "", "--naive", "--naive-kill", str(spec.hit))
    _expect_kill(child, result, f"naive hook hit {spec.hit}")
    restart_and_check(store, child.acks, result)


_FAMILIES = {"kill": _kill, "raise": _raise, "recovery": _recovery, "soak": _soak, "naive": _naive}
