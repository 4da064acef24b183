"""The canary gate (issue 7): a canary memory driven through the real path of a store, then audited.

A canary is random, content-free text in scopes of its own (two users x two assistants, plus one
scope for the degraded path). It is stored until STM is full (STM -> MTM), recalled until its
segment is hot and distilled (MTM -> LPM), read back and marked `verified`, and used by a
`generated()` that depends on exactly the refs read back. Each batch runs in a fresh child process,
so every reopen runs recovery. Queries crossed between the canary scopes must return nothing. The
canary's scopes are then erased with forget_scope(), leaving tombstones and receipts only, and the
auditor, a separate process, judges the canary's runs. See docs/canary.md.

The store under test is the one given (a temporary one without it): canary scopes inside a real
file exercise its migrations, its durability and its outbox, which a copy would not.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import secrets
import string
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

import memoryos
from memoryos.errors import MemoryOSError
from memoryos.llm import LLMExtractor, LLMSettings, ModelClient
from memoryos.memory import Memory, key_path_for
from memoryos.promotion import content_hash
from memoryos.settings import Config, config_from_file, from_environment
from memoryos.store.base import Transaction
from memoryos.store.factory import store_location
from memoryos.store.rows import Segment, Unit
from memoryos.testing import FakeLLMServer
from memoryos.timeutil import system_clock, to_micros
from receipts import format_utc

__all__ = [
    "EXIT_CANNOT_RUN",
    "EXIT_HEALTHY",
    "EXIT_UNHEALTHY",
    "SCHEMA",
    "Canary",
    "CanaryScope",
    "CanaryVerdict",
    "load_config",
    "run_canary",
]

SCHEMA = "memoryos.canary/1"
EXIT_HEALTHY, EXIT_UNHEALTHY, EXIT_CANNOT_RUN = 0, 1, 2
BATCHES = ("write", "promote", "readback")
#: Evidence older than this is `uncertain` to the auditor: the canary's own runs must all be fresh.
MAX_AGE = "1h"
BATCH_TIMEOUT = 300.0
AUDITOR_TIMEOUT = 600.0
#: Visits are what heat a segment; a configuration that no number of visits can heat fails the canary.
MAX_HEAT_RECALLS = 1000
# The auditor's states, highest precedence first (auditor/README.md). memoryos may not import the
# auditor (DESIGN §2), so the documented order is repeated here.
STATES = (
    "scope_conflict",
    "source_at_risk",
    "promotion_missing",
    "stale_retrieval",
    "generation_unverified",
    "uncertain",
    "waiting",
    "healthy",
)
_AUDITOR_REPORTED = (0, 1, 3)  # the auditor's exit codes that come with a report
_FILE_RUN = "-"  # the auditor's pseudo-run for lines that name no run


class CannotRun(Exception):
    """The canary cannot run or finish (store unreadable or unwritable, auditor missing): exit 2.
    Control flow inside this module: run() turns it into a verdict, it never reaches the caller."""


class Shortfall(Exception):
    """A batch failed, or a step could not be forced under the configuration under test: exit 1."""


# -- the canary's scopes --------------------------------------------------------------------------
@dataclass(frozen=True)
class CanaryScope:
    """One canary scope: random ids and a random token that only this scope's texts contain."""

    name: str  # a label in results ("u1a1", "degraded"), never a host id
    user: str
    assistant: str
    token: str
    degraded: bool = False

    @property
    def scope(self) -> memoryos.Scope:
        return memoryos.Scope(user=self.user, assistant=self.assistant)

    def text(self, index: int) -> str:
        return f"canary {self.token} checks the memory path, turn {index}"

    def digest(self, count: int) -> str:
        """sha256 of every canary text of this scope: the generation's content-free outcome."""
        return hashlib.sha256("\n".join(self.text(i) for i in range(count)).encode()).hexdigest()


def _token() -> str:
    # Letters only and under 20 characters: a hex or digit run could read as a phone number or an
    # entropy secret to the no-store rule, which would refuse the canary instead of testing the path.
    return "cnry" + "".join(secrets.choice(string.ascii_lowercase) for _ in range(12))


def canary_scopes(run: str) -> tuple[CanaryScope, ...]:
    users = (f"canary-{run}-u1", f"canary-{run}-u2")
    assistants = (f"canary-{run}-a1", f"canary-{run}-a2")
    scopes = [
        CanaryScope(f"u{i}a{j}", user, assistant, _token())
        for i, user in enumerate(users, 1)
        for j, assistant in enumerate(assistants, 1)
    ]
    scopes.append(CanaryScope("degraded", users[0], f"canary-{run}-a3", _token(), degraded=True))
    return tuple(scopes)


# -- configuration ----------------------------------------------------------------------------------
def load_config(path: str | None) -> Config:
    """The configuration under test: --config FILE over the environment and the defaults."""
    return config_from_file(path) or from_environment()


def _config_fields(config: Config) -> dict[str, Any]:
    fields = asdict(config)
    families = config.no_store_families
    fields["no_store_families"] = None if families is None else sorted(families)
    return fields


def _config_from(fields: Mapping[str, Any]) -> Config:
    families = fields.get("no_store_families")
    return Config(**{**fields, "no_store_families": None if families is None else frozenset(families)})


def _now() -> int:
    return to_micros(system_clock())


# -- the batches, each run in a child process ----------------------------------------------------
@dataclass
class _Batch:
    """What one child process works with: the store twice (normal and degraded path) and the plan."""

    normal: Memory
    degraded: Memory
    config: Config
    scopes: tuple[CanaryScope, ...]
    plan: Mapping[str, Any]

    def mem(self, scope: CanaryScope) -> Memory:
        return self.degraded if scope.degraded else self.normal

    @property
    def k(self) -> int:  # room for every page and every record of one scope
        return 2 * self.config.stm_capacity + 20


def _write(batch: _Batch) -> dict[str, Any]:
    """Fill each canary STM to capacity: the real STM -> MTM trigger (and, when a segment is then hot
    and distillation is inline, the real MTM -> LPM one)."""
    written: dict[str, list[str]] = {}
    pseudonyms: dict[str, list[str]] = {}
    for scope in batch.scopes:
        mem = batch.mem(scope)
        stored = [mem.remember(scope.scope, scope.text(i)) for i in range(batch.config.stm_capacity)]
        written[scope.name] = [s.memory_id for s in stored]
        pseudonyms[scope.name] = _pseudonyms(mem, stored[0].run_id)
        if scope.degraded:
            # At once: a worker running maintain() on this store would otherwise distil the segment
            # with the host's own summarizer first, and the degraded path would go unexercised.
            _heat_and_distil(batch, scope, pseudonyms[scope.name])
    return {"written": written, "pseudonyms": pseudonyms}


def _pseudonyms(mem: Memory, run_id: str) -> list[str]:
    """The scope's pseudonyms as its own store receipt states them (the parent finds its receipts by them)."""
    with mem.store.read() as tx:
        receipt = orjson.loads(tx.run_scope(run_id)[0])
    return [receipt["userScope"], receipt["assistantScope"]]


def _promote(batch: _Batch) -> dict[str, Any]:
    recalls = {s.name: _heat_and_distil(batch, s, batch.plan["pseudonyms"][s.name]) for s in batch.scopes}
    return {"heatRecalls": recalls}


def _heat_and_distil(batch: _Batch, scope: CanaryScope, pseudonyms: Sequence[str]) -> int:
    """Recall the canary until each undistilled canary segment is hot, then distil exactly those.

    Only the canary's segments are touched: a store-wide maintain() would do other scopes' upkeep,
    and on the degraded path would distil them with a model that is down."""
    mem = batch.mem(scope)
    pending = _undistilled(mem, pseudonyms)
    recalls = 0
    while pending:
        hot = mem.promoter.hot_segments(_now(), [s.segment_id for s in pending])
        for segment in hot:
            mem.promoter.distill(segment, _now())
        done = {s.segment_id for s in hot}
        pending = [s for s in pending if s.segment_id not in done]
        if pending and recalls >= MAX_HEAT_RECALLS:
            raise Shortfall(
                f"{len(pending)} canary segment(s) still below the heat threshold after {recalls} recalls"
            )
        if pending:
            mem.recall(scope.scope, scope.token, k=batch.k)  # a recall that hits a segment visits it
            recalls += 1
    return recalls


def _undistilled(mem: Memory, pseudonyms: Sequence[str]) -> list[Segment]:
    # A distillation resets `interactions`; pages added since then count again.
    with mem.store.read() as tx:
        return [s for s in tx.segments(pseudonyms[0], pseudonyms[1]) if s.interactions > 0]


def _readback(batch: _Batch) -> dict[str, Any]:
    verified = {s.name: _verify(batch, s) for s in batch.scopes}
    return {"readback": verified, "crossed": _crossed(batch)}


def _verify(batch: _Batch, scope: CanaryScope) -> dict[str, int]:
    """Recall the canary, read each hit back and, in the same transaction, receipt the ones that match
    what the canary wrote as `verified` under the recall's run; then generate from exactly those."""
    mem = batch.mem(scope)
    turns = {mid: content_hash(scope.text(i)) for i, mid in enumerate(batch.plan["written"][scope.name])}
    found = mem.recall(scope.scope, scope.token, k=batch.k)
    wanted = {h.ref for h in found.hits}
    with mem.store.write("canary_verify") as tx:
        units = [u for u in tx.units_by_ids(sorted({h.memory_id for h in found.hits})) if u.ref in wanted]
        good = [u for u in units if _matches(u, scope.token, turns)]
        for unit in good:
            tx.emit(mem.drafts.about(found.run_id, "retrieve", unit, fromTier=unit.tier, status="verified"))
    if good:
        outcome = "canary:" + scope.digest(len(turns))
        mem.generated(scope.scope, found.run_id, depends_on=[u.ref for u in good], outcome=outcome)
    return {"hits": len(found.hits), "mismatched": len(found.hits) - len(good)}


def _matches(unit: Unit, token: str, turns: Mapping[str, str]) -> bool:
    """The canary's own unit: built only from this scope's canary turns and carrying its token; a page
    (a moved turn) must also be, after normalisation, exactly the turn it came from."""
    if not unit.source_ids or not set(unit.source_ids) <= turns.keys() or token not in unit.body:
        return False
    return unit.tier != "mtm" or content_hash(unit.body) == turns[unit.source_ids[0]]


def _crossed(batch: _Batch) -> dict[str, int]:
    """Every canary scope asks for every other scope's token: any hit at all is a leak."""
    checked = leaks = 0
    for asker in batch.scopes:
        for owner in (s for s in batch.scopes if s is not asker):
            leaks += len(batch.mem(asker).recall(asker.scope, owner.token, k=batch.k).hits)
            checked += 1
    return {"checked": checked, "leaks": leaks}


_STEPS: dict[str, Callable[[_Batch], dict[str, Any]]] = {
    "write": _write,
    "promote": _promote,
    "readback": _readback,
}


def run_batch(name: str, plan: Mapping[str, Any]) -> dict[str, Any]:
    """One batch, in this process: the store opened twice, once with a model that refuses connections
    (the degraded path: distillation falls back and says so in its receipts)."""
    config = _config_from(plan["config"])
    scopes = tuple(CanaryScope(**s) for s in plan["scopes"])
    with FakeLLMServer("refused") as refused:
        client = ModelClient(LLMSettings(refused.url, "canary", attempts=1, timeout=2.0))
        extractor = LLMExtractor(client, no_store_families=config.no_store_families)
        with (
            memoryos.open(plan["db"], config=config) as normal,
            memoryos.open(plan["db"], config=config, summarizer=extractor) as degraded,
        ):
            return _STEPS[name](_Batch(normal, degraded, config, scopes, plan))


# -- the verdict ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CanaryVerdict:
    """The canary's content-free result: counts, codes and versions only (schema memoryos.canary/1)."""

    verdict: str  # healthy, unhealthy or cannot_run
    reason: str  # one line; empty when healthy
    source_version: str | None = None
    config_hash: str | None = None
    durability: str | None = None
    steps: Mapping[str, int] = field(default_factory=dict)
    crossed: Mapping[str, int] = field(default_factory=dict)
    degraded: Mapping[str, Any] = field(default_factory=dict)
    auditor: Mapping[str, Any] = field(default_factory=dict)
    restarts: int = 0
    at: str = field(default_factory=lambda: format_utc(system_clock()))

    @property
    def passed(self) -> bool:
        return self.verdict == "healthy"

    @property
    def exit_code(self) -> int:
        if self.passed:
            return EXIT_HEALTHY
        return EXIT_CANNOT_RUN if self.verdict == "cannot_run" else EXIT_UNHEALTHY

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "verdict": self.verdict,
            "passed": self.passed,
            "reason": _one_line(self.reason) or None,
            "sourceVersion": self.source_version,
            "configHash": self.config_hash,
            "durability": self.durability,
            "steps": dict(self.steps),
            "crossedQueries": dict(self.crossed),
            "degradedPath": dict(self.degraded),
            "restarts": self.restarts,
            "auditor": dict(self.auditor),
            "at": self.at,
        }

    def summary(self) -> str:
        if self.passed:
            shown = ", ".join(f"{k} {v}" for k, v in self.steps.items())
            return f"canary: healthy ({self.source_version}; {shown})"
        return f"canary: {self.verdict}: {_one_line(self.reason)}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- evidence: the canary's receipts in the store's outbox ----------------------------------------
@dataclass
class _Evidence:
    steps: dict[str, Counter[str]]  # scope name -> step -> count
    runs: set[str]  # every run that carries a canary scope or names a canary unit


_STEP_OF = {
    "stm_to_mtm": "stm_to_mtm",
    "mtm_to_lpm": "mtm_to_lpm",
    "retrieve": "recall",
    "generate": "generated",
    "forget": "erased",
}


def _step(receipt: Mapping[str, Any]) -> list[str]:
    """The steps one receipt evidences; a degraded record or a verification also counts on its own."""
    boundary, status = receipt.get("boundary"), receipt.get("status")
    if status == "verified":
        return ["verified", f"verified_{receipt.get('fromTier')}"]
    if status != "committed":
        return [str(status)]  # started, failed
    if boundary == "store":
        return ["store"] if receipt.get("toTier") == "stm" else []
    if boundary in ("mtm_to_lpm", "retrieve") and "memoryId" not in receipt:
        return []  # a distillation that yielded nothing, a recall that found nothing
    step = _STEP_OF.get(str(boundary))
    if step is None:
        return []
    return [step, "degraded"] if receipt.get("degraded") else [step]


def _evidence(receipts: Sequence[Mapping[str, Any]], pseudonyms: Mapping[str, Sequence[str]]) -> _Evidence:
    names: dict[tuple[Any, Any], str] = {(pair[0], pair[1]): name for name, pair in pseudonyms.items()}
    steps: dict[str, Counter[str]] = {name: Counter() for name in pseudonyms}
    units: set[str] = set()
    for receipt in receipts:
        name = names.get(_scope_of(receipt))
        if name is not None:
            steps[name].update(_step(receipt))
            units.update(_named_units(receipt))
    runs = {str(r["runId"]) for r in receipts if _named_units(r) & units or _scope_of(r) in names}
    return _Evidence(steps, runs)


def _scope_of(receipt: Mapping[str, Any]) -> tuple[Any, Any]:
    return receipt.get("userScope"), receipt.get("assistantScope")


def _named_units(receipt: Mapping[str, Any]) -> set[str]:
    refs = [*receipt.get("derivedFrom", ()), *receipt.get("dependsOnVersion", ())]
    named = {ref.partition("@")[0] for ref in refs}
    return named | ({receipt["memoryId"]} if "memoryId" in receipt else set())


# -- judging ----------------------------------------------------------------------------------------
def _shortfalls(evidence: _Evidence, capacity: int) -> Iterable[str]:
    """Every transition the canary forced must show in the receipts of every canary scope."""
    needed = {
        "store": capacity,
        "stm_to_mtm": capacity,
        "mtm_to_lpm": 1,
        "recall": 1,
        "verified_mtm": 1,
        "verified_lpm": 1,
        "generated": 1,
        "erased": 1,
    }
    for name, counts in evidence.steps.items():
        for step, least in needed.items():
            if counts[step] < least:
                yield f"scope {name}: {counts[step]} {step} receipt(s), expected at least {least}"
        if counts["failed"]:
            yield f"scope {name}: {counts['failed']} failed receipt(s)"


def _degraded_path(evidence: _Evidence) -> dict[str, Any]:
    counts = evidence.steps.get("degraded", Counter())
    normal = sum(c["degraded"] for name, c in evidence.steps.items() if name != "degraded")
    return {
        "exercised": counts["mtm_to_lpm"] > 0,
        "degradedReceipts": counts["degraded"],
        "labelled": counts["mtm_to_lpm"] > 0 and counts["degraded"] == counts["mtm_to_lpm"],
        "normalPathDegradedReceipts": normal,
    }


def _degraded_problem(path: Mapping[str, Any]) -> str | None:
    if not path["labelled"]:
        return "the degraded path was not exercised, or its records are not all labelled degraded"
    if path["normalPathDegradedReceipts"]:
        return "the normal path fell back to the degraded one"
    return None


def _problems(
    evidence: _Evidence, results: Mapping[str, Any], audit: Mapping[str, Any], capacity: int
) -> list[str]:
    """Every reason the canary is not healthy, most basic first (the first one is the summary)."""
    problems = list(_shortfalls(evidence, capacity))
    leaks = results.get("crossed", {}).get("leaks", 0)
    if leaks:
        problems.append(f"{leaks} hit(s) for queries crossed between canary scopes")
    mismatched = sum(r["mismatched"] for r in results.get("readback", {}).values())
    if mismatched:
        problems.append(f"{mismatched} unit(s) read back do not match what the canary wrote")
    degraded = _degraded_problem(_degraded_path(evidence))
    if degraded:
        problems.append(degraded)
    if audit["verdict"] != "healthy":
        problems.append(f"auditor: {audit['verdict']} ({', '.join(audit['rules']) or 'no rule named'})")
    return problems


def _audit_summary(report: Mapping[str, Any], runs: set[str]) -> dict[str, Any]:
    """The auditor judged the whole store; only the canary's runs (and lines that name no run, which
    make the outbox itself suspect) decide the canary. Older evidence shows in storeVerdict."""
    mine = [r for r in report.get("runs", []) if r.get("runId") in runs or r.get("runId") == _FILE_RUN]
    counts = Counter(str(r.get("verdict")) for r in mine)
    counts["healthy"] = len(runs) - sum(1 for r in mine if r.get("runId") != _FILE_RUN)
    verdict = min(counts.elements(), key=_rank, default="healthy")
    rules = list(dict.fromkeys(f.get("rule") for r in mine for f in r.get("findings", [])))
    return {
        "verdict": verdict,
        "counts": {state: counts[state] for state in STATES},
        "rules": [str(rule) for rule in rules[:5]],
        "storeVerdict": report.get("verdict"),
    }


def _rank(state: str) -> int:
    return STATES.index(state) if state in STATES else 0  # an unknown state is never taken as healthy


def _run_auditor(path: Path | str, now: str) -> dict[str, Any]:
    if importlib.util.find_spec("auditor") is None:
        raise CannotRun("the auditor is not installed: pip install memoryos with its auditor package")
    command = [sys.executable, "-m", "auditor", "check", "--db", str(path), "--format", "json"]
    command += ["--max-age", MAX_AGE, "--now", now]
    if isinstance(path, Path):  # a PostgreSQL store's key is in it (auditor.stores)
        command += ["--key-file", str(key_path_for(path))]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=AUDITOR_TIMEOUT, stdin=subprocess.DEVNULL, check=False
        )
    except subprocess.TimeoutExpired:
        raise CannotRun(f"the auditor took longer than {AUDITOR_TIMEOUT:g} s") from None
    if done.returncode not in _AUDITOR_REPORTED:
        raise CannotRun(f"the auditor could not read the store's receipts (exit {done.returncode})")
    try:
        report = orjson.loads(done.stdout)
    except orjson.JSONDecodeError:
        raise CannotRun("the auditor's report is not JSON") from None
    if not isinstance(report, dict) or not isinstance(report.get("runs"), list):
        raise CannotRun("the auditor's report has no runs")
    return report


# -- the canary -------------------------------------------------------------------------------------
@dataclass
class _Identity:
    source_version: str
    config_hash: str
    durability: str
    head: int  # the outbox's last seq before the canary: its evidence comes after


class Canary:
    """Drive the canary through the store at `db` (a temporary store when None) under `config`
    (defaults < environment when None). `run()` never raises for a failing store: it says why."""

    def __init__(
        self,
        db: str | os.PathLike[str] | None,
        config: Config | None = None,
        *,
        timeout: float = BATCH_TIMEOUT,
    ) -> None:
        self.db = None if db is None else store_location(db)  # a file, or a postgresql:// URL
        self.config = from_environment() if config is None else config
        self.timeout = timeout

    def run(self) -> CanaryVerdict:
        with tempfile.TemporaryDirectory(prefix="memoryos-canary-") as work:
            path: Path | str = self.db if self.db is not None else Path(work) / "canary.db"
            try:
                return self._run(path)
            except CannotRun as exc:
                return CanaryVerdict("cannot_run", str(exc))

    def _run(self, path: Path | str) -> CanaryVerdict:
        identity = self._preflight(path)
        scopes = canary_scopes(secrets.token_hex(4))
        plan: dict[str, Any] = {
            "db": str(path),
            "config": _config_fields(self.config),
            "scopes": [asdict(s) for s in scopes],
            "pseudonyms": {},
        }
        results, problems = self._drive(plan)
        erased, receipts, left = self._clean_up(path, scopes, plan["pseudonyms"], identity.head)
        if left:
            problems.append(f"{left} canary unit(s) remain after forget_scope")
        evidence = _evidence(receipts, plan["pseudonyms"])
        audit = _audit_summary(_run_auditor(path, format_utc(system_clock())), evidence.runs)
        problems.extend(_problems(evidence, results, audit, self.config.stm_capacity))
        return CanaryVerdict(
            "unhealthy" if problems else "healthy",
            problems[0] if problems else "",
            identity.source_version,
            identity.config_hash,
            identity.durability,
            steps=_totals(evidence, erased),
            crossed=results.get("crossed", {"checked": 0, "leaks": 0}),
            degraded=_degraded_path(evidence),
            auditor=audit,
            restarts=results["restarts"],
        )

    def _preflight(self, path: Path | str) -> _Identity:
        """Open the store and prove it writable with an empty write transaction, before any canary
        memory exists: a store that fails here cannot run the canary (exit 2)."""
        if self.db is not None and isinstance(path, Path) and not path.is_file():
            raise CannotRun(f"no store at {path} (without --db the canary uses a temporary store)")
        try:
            with memoryos.open(path, config=self.config) as mem:
                with mem.store.write("canary_probe"):
                    pass
                with mem.store.read() as tx:
                    head = tx.outbox_head()
                return _Identity(mem.source_version, mem.config.fingerprint(), mem.config.durability, head)
        except MemoryOSError as exc:
            raise CannotRun(f"cannot open {path} for writing: {exc}") from None

    def _drive(self, plan: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Each batch in a fresh process: the store is reopened (and recovered) between batches."""
        results: dict[str, Any] = {"restarts": 0}
        for name in BATCHES:
            results["restarts"] += 1
            try:
                result = self._child(name, plan)
            except Shortfall as exc:
                return results, [f"batch {name}: {exc}"]
            results.update(result)
            plan.update({k: v for k, v in result.items() if k in ("written", "pseudonyms")})
        return results, []

    def _child(self, name: str, plan: Mapping[str, Any]) -> dict[str, Any]:
        command = [sys.executable, "-m", "memoryos.canary", "--batch", name]
        try:
            done = subprocess.run(
                command, input=orjson.dumps(plan), capture_output=True, timeout=self.timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise Shortfall(f"took longer than {self.timeout:g} s") from None
        if done.returncode < 0:
            raise Shortfall(f"the process died (signal {-done.returncode})")
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
            raise Shortfall(lines[-1][:300])
        try:
            result = orjson.loads(done.stdout)
        except orjson.JSONDecodeError:
            raise Shortfall("the process wrote no result") from None
        if not isinstance(result, dict):
            raise Shortfall("the process wrote no result")
        return result

    def _clean_up(
        self,
        path: Path | str,
        scopes: Sequence[CanaryScope],
        pseudonyms: Mapping[str, Sequence[str]],
        head: int,
    ) -> tuple[int, list[dict[str, Any]], int]:
        """Erase the canary's users (tombstones and receipts stay), check that nothing of them is left,
        and read the canary's window of the outbox. Runs whatever happened before, so that a failed
        canary leaves no memories behind either."""
        users = sorted({s.user for s in scopes})
        try:
            with memoryos.open(path, config=self.config) as mem:
                erased = sum(mem.forget_scope(user=u, reason="canary") for u in users)
                with mem.store.read() as tx:
                    left = sum(len(tx.scope_units(p[0], None, 1)) for p in pseudonyms.values())
                    return erased, _receipts_after(tx, head), left
        except MemoryOSError as exc:
            raise CannotRun(f"cannot erase the canary's scopes from {path}: {exc}") from None


def _receipts_after(tx: Transaction, head: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    seq = head
    while rows := tx.outbox_after(seq, 1000):
        found.extend(orjson.loads(body) for _, body in rows)
        seq = rows[-1][0]
    return found


def _totals(evidence: _Evidence, erased: int) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counts in evidence.steps.values():
        total.update(counts)
    steps = ("store", "stm_to_mtm", "mtm_to_lpm", "recall", "verified", "generated")
    return {**{step: total[step] for step in steps}, "erased": erased}


# -- entry points -----------------------------------------------------------------------------------
def run_canary(db: str | None, config_path: str | None, json_out: str | None) -> int:
    """`memoryos canary`: run the canary, print a one-line summary, write the JSON verdict to
    `json_out` when given, and return the exit code (0 healthy, 1 unhealthy, 2 cannot run)."""
    try:
        verdict = Canary(db, load_config(config_path)).run()
    except MemoryOSError as exc:  # a bad --config: the canary cannot say anything about the store
        verdict = CanaryVerdict("cannot_run", f"bad configuration: {exc}")
    if json_out is not None:
        try:
            Path(json_out).write_bytes(orjson.dumps(verdict.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            print(f"canary: cannot write {json_out}: {exc.strerror}", file=sys.stderr)
            return EXIT_CANNOT_RUN
    print(verdict.summary(), file=sys.stdout if verdict.passed else sys.stderr)
    return verdict.exit_code


def _batch_main(name: str) -> int:
    try:
        result = run_batch(name, orjson.loads(sys.stdin.buffer.read()))
    except (MemoryOSError, Shortfall) as exc:
        print(f"{type(exc).__name__}: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(orjson.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m memoryos.canary [--db PATH] [--config FILE] [--json OUT]`; `--batch NAME` is the
    child process the canary itself starts."""
    parser = argparse.ArgumentParser(prog="python -m memoryos.canary", description="Run the canary gate.")
    parser.add_argument("--db", help="the store to test (default: a temporary store)")
    parser.add_argument("--config", help="a JSON file of memoryos.Config fields")
    parser.add_argument("--json", dest="json_out", help="write the JSON verdict here")
    parser.add_argument("--batch", choices=BATCHES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.batch is not None:
        return _batch_main(args.batch)
    return run_canary(args.db, args.config, args.json_out)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
