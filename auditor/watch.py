"""`memoryos-audit watch`: audit the same sources again every interval, reading each receipt once.

One `IncrementalAudit` (auditor.incremental) lives for the whole watch: each pass reads only what
was appended since the previous one and saves the state file, so a restarted watcher resumes where
the last completed pass stopped, with the verdicts of a full audit. A pass that fails — a store
locked by a writer (`busy`), a source that cannot be read — is logged and retried at the next
interval from the state file, the last point known to be consistent.

After each completed pass the watcher

- logs a change of the overall verdict as one JSON line (content-free: states, rule names and
  receipt ids, never a finding's reason, which may name paths);
- writes the verdict file (`memoryos.audit-verdict/1`, atomically): the report, the outbox seq each
  store was audited through, the time, and an HMAC under a key derived from the receipt key, so
  that a reader holding the key (the canary gate) can trust it instead of auditing again;
- leaves the numbers its gauges read at the next metrics collection (see `observe_watch`).

Exporting is the OpenTelemetry SDK's periodic reader on its own thread: a collector that is down
costs a logged export failure, never a pass.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from auditor.incremental import IncrementalAudit
from auditor.metrics import observe_runs
from auditor.report import Macs, Report
from auditor.sources import AuditInputError, checked_source
from auditor.state import StateError
from auditor.states import HEALTHY, STATES
from auditor.stores import choose_key, is_url, stores_in
from receipts import format_utc, parse_utc
from receipts.outbox import OUTBOX_TABLE, read_only_uri

if TYPE_CHECKING:
    from opentelemetry.metrics import CallbackOptions, Meter, Observation

__all__ = [
    "VERDICT_SCHEMA",
    "Pass",
    "Watcher",
    "observe_watch",
    "read_verdict",
    "verdict_key",
    "write_verdict",
]

VERDICT_SCHEMA = "memoryos.audit-verdict/1"
_BUSY_WORDS = ("database is locked", "database is busy", "database table is locked")
_HEAD_TIMEOUT_S = 0.25  # reading a store's head for the lag gauge must never hold up a collection
_PASS_HEAD_TIMEOUT_S = 1.0  # a store locked longer than this makes the pass `busy`, retried next interval
_LOGGED_IDS = 16

_log = logging.getLogger(__name__)
Source = str | os.PathLike[str]


def log_event(event: str, **fields: Any) -> None:
    """One JSON line on the watch's log: machines read it, and it carries no content."""
    _log.info(orjson.dumps({"event": event, **fields}).decode())


def is_busy(error: BaseException) -> bool:
    """A store locked by a writer (SQLite's busy/locked), as the auditor's readers report it."""
    text = str(error).lower()
    return any(word in text for word in _BUSY_WORDS)


# ---- the verdict file ------------------------------------------------------------------------
def verdict_key(receipt_key: bytes) -> bytes:
    return hmac.digest(receipt_key, VERDICT_SCHEMA.encode(), "sha256")


def write_verdict(path: Path, body: Mapping[str, Any], receipt_key: bytes | None) -> None:
    """Atomically (write, fsync, rename): a reader sees the old verdict or the new one."""
    raw = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    mac = None if receipt_key is None else hmac.digest(verdict_key(receipt_key), raw, "sha256").hex()
    header = orjson.dumps({"mac": mac, "schema": VERDICT_SCHEMA})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, header + b"\n" + raw + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_verdict(path: Path, receipt_key: bytes) -> dict[str, Any]:
    """The body of a verdict file whose MAC verifies under `receipt_key`; ValueError otherwise."""
    try:
        head, _, raw = path.read_bytes().partition(b"\n")
        header = orjson.loads(head)
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ValueError(f"cannot read the verdict file {path}: {exc}") from None
    if not isinstance(header, dict) or header.get("schema") != VERDICT_SCHEMA:
        raise ValueError(f"{path} is not a {VERDICT_SCHEMA} file")
    expected = hmac.digest(verdict_key(receipt_key), raw.rstrip(b"\n"), "sha256").hex()
    if not isinstance(header.get("mac"), str) or not hmac.compare_digest(header["mac"], expected):
        raise ValueError(f"{path} does not verify under the receipt key")
    body: dict[str, Any] = orjson.loads(raw)
    return body


# ---- one pass --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pass:
    """What one pass did: `ok`, `busy` (a store was locked: retried next interval) or `failed`."""

    status: str
    report: Report | None = None
    error: str | None = None
    seconds: float = 0.0


@dataclass
class _Latest:
    """What the gauges read: the last completed pass, and when it completed (monotonic)."""

    report: Report | None = None
    completed: float | None = None
    covered: dict[str, int] = field(default_factory=dict)  # store -> outbox seq audited through
    passes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("ok", "busy", "failed"), 0))


def outbox_head(store: Path, timeout: float = 5.0) -> int:
    """The highest seq in a store's outbox (0 when empty), read-only; OSError when unreadable."""
    try:
        conn = sqlite3.connect(read_only_uri(store), uri=True, isolation_level=None, timeout=timeout)
        try:
            row = conn.execute(f"SELECT max(seq) FROM {OUTBOX_TABLE}").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise OSError(f"{store}: cannot read the outbox head: {exc}") from None
    return int(row[0] or 0)


class Watcher:
    """Audit `paths` (receipt files) and `stores` pass after pass, keeping its state in `state`.

    Raises AuditInputError at construction for sources that do not exist and StateError for a state
    file that belongs to another audit (the operator decides; it is never overwritten)."""

    def __init__(
        self,
        paths: Sequence[Source],
        *,
        stores: Sequence[Source] = (),
        state: Source,
        key: bytes | None = None,
        grace: timedelta | None = None,
        verdict: Source | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.paths = [Path(p) for p in paths]
        self.state = Path(state)
        self.verdict_path = None if verdict is None else Path(verdict)
        self._grace = grace
        self._clock = clock
        if any(is_url(p) for p in stores):
            raise AuditInputError(
                "watch follows store and receipt files; audit a PostgreSQL store with "
                "`memoryos-audit check --db URL` on a schedule"
            )
        listed = [(p, False) for p in self.paths] + [(Path(p), True) for p in stores]
        for path, insist in listed:
            checked_source(path, store=insist)
        self.stores = [Path(p).resolve() for p in stores_in(listed)]
        self._store_args = [Path(p) for p in stores]
        self.key, self.macs = choose_key(key, stores_in(listed))
        self.latest = _Latest()
        self._audit: IncrementalAudit | None = self._open()
        self._before = _last_written(self.verdict_path) if self.state.exists() else None

    def _open(self) -> IncrementalAudit:
        if self.state.exists():
            return IncrementalAudit.resume(
                self.state, self.paths, stores=self._store_args, key=self.key, grace=self._grace
            )
        return IncrementalAudit(self.paths, stores=self._store_args, key=self.key, grace=self._grace)

    # ---- a pass ----------------------------------------------------------------------------
    def run_once(self) -> Pass:
        started = time.perf_counter()
        try:
            heads = {str(store): outbox_head(store, _PASS_HEAD_TIMEOUT_S) for store in self.stores}
            audit = self._audit if self._audit is not None else self._open()
            self._audit = audit
            report = audit.check(self._clock())
            audit.save(self.state)
        except StateError:
            raise  # the state file changed under the watcher: the operator must look
        except (AuditInputError, OSError, ValueError) as exc:
            self._audit = None  # resume from the state file: the last point known to be consistent
            return self._failed(exc, time.perf_counter() - started)
        report = _with_macs(report, self.macs)
        self._completed(report, heads)
        return Pass("ok", report, seconds=time.perf_counter() - started)

    def _failed(self, error: BaseException, seconds: float) -> Pass:
        status = "busy" if is_busy(error) else "failed"
        self.latest.passes[status] += 1
        what = "a store is busy: retrying at the next interval" if status == "busy" else str(error)
        log_event("audit " + status, error=type(error).__name__, detail=what)
        return Pass(status, error=what, seconds=seconds)

    def _completed(self, report: Report, heads: dict[str, int]) -> None:
        before, self._before = self._before, report.verdict
        self.latest.report, self.latest.covered = report, heads
        self.latest.completed = time.monotonic()
        self.latest.passes["ok"] += 1
        if before != report.verdict:
            _log_change(before, report)
        if self.verdict_path is not None:
            try:
                write_verdict(self.verdict_path, self._verdict_body(report, heads), self.key)
            except OSError as exc:
                log_event("verdict file not written", error=type(exc).__name__, detail=exc.strerror)

    def _verdict_body(self, report: Report, heads: dict[str, int]) -> dict[str, Any]:
        return {
            "writtenAt": format_utc(self._clock()),
            "covered": heads,
            "report": report.to_dict(),
        }

    # ---- the loop --------------------------------------------------------------------------
    def run(self, stop: threading.Event, interval: float, passes: int = 0) -> int:
        """Pass after pass until `stop` is set (or `passes` passes, when positive); the count run."""
        done = 0
        while not stop.is_set():
            began = time.monotonic()
            self.run_once()
            done += 1
            if passes and done >= passes:
                break
            stop.wait(max(interval - (time.monotonic() - began), 0.0))
        return done

    # ---- what the gauges read --------------------------------------------------------------
    def lag(self) -> int:
        """Receipts committed to the watched outboxes that the last completed pass did not cover."""
        behind = 0
        for store in self.stores:
            covered = self.latest.covered.get(str(store))
            if covered is None:
                continue
            with contextlib.suppress(OSError):  # a busy store: its lag is unknown for this reading
                behind += max(outbox_head(store, _HEAD_TIMEOUT_S) - covered, 0)
        return behind


def _last_written(path: Path | None) -> str | None:
    """The verdict a previous watcher left (for the change log only, so it need not verify): a
    restart that finds the same verdict logs no change."""
    if path is None:
        return None
    try:
        body = orjson.loads(path.read_bytes().partition(b"\n")[2])
        verdict = body["report"]["verdict"]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None
    return verdict if isinstance(verdict, str) else None


def _with_macs(report: Report, macs: Macs) -> Report:
    return dataclasses.replace(report, macs=macs)


def _log_change(before: str | None, report: Report) -> None:
    """The new verdict, with the rules and receipts that make it (its runs of that state)."""
    worst = [run for run in report.runs if run.verdict == report.verdict]
    rules = sorted({f.rule for run in worst for f in run.findings if f.state == report.verdict})
    ids = [rid for run in worst for f in run.findings if f.state == report.verdict for rid in f.receipt_ids]
    log_event(
        "verdict changed",
        before=before,
        verdict=report.verdict,
        runs=len(worst) if report.verdict != HEALTHY else report.counts.get(HEALTHY, 0),
        rules=rules,
        receiptIds=list(dict.fromkeys(ids))[:_LOGGED_IDS],
        at=report.now,
    )


# ---- OpenTelemetry ---------------------------------------------------------------------------
#: Gauge name -> (unit, description); `memoryos.audit.runs` is auditor.metrics' own.
WATCH_GAUGES = {
    "memoryos.audit.verdict": ("1", "1 for the overall verdict of the last audit, 0 for every other state."),
    "memoryos.audit.evidence.age": ("s", "Age of the newest receipt the last audit read."),
    "memoryos.audit.age": ("s", "Time since the last audit pass completed."),
    "memoryos.audit.macs.verified": ("1", "1 when the last audit verified the receipts' MACs."),
    "memoryos.audit.lag": ("{receipt}", "Receipts committed to the outbox that no audit has read yet."),
}
PASSES = "memoryos.audit.passes"


def _evidence_age(report: Report, now: datetime) -> float | None:
    if report.window is None:
        return None
    return max((now - parse_utc(report.window[1])).total_seconds(), 0.0)


def _readings(watcher: Watcher) -> dict[str, list[tuple[float, dict[str, str]]]]:
    latest = watcher.latest
    report = latest.report
    if report is None or latest.completed is None:
        return {}
    found: dict[str, list[tuple[float, dict[str, str]]]] = {
        "memoryos.audit.verdict": [
            (1.0 if state == report.verdict else 0.0, {"memoryos.state": state}) for state in STATES
        ],
        "memoryos.audit.age": [(time.monotonic() - latest.completed, {})],
        "memoryos.audit.macs.verified": [(1.0 if report.macs.verified else 0.0, {})],
        "memoryos.audit.lag": [(float(watcher.lag()), {})],
    }
    age = _evidence_age(report, datetime.now(UTC))
    if age is not None:
        found["memoryos.audit.evidence.age"] = [(age, {})]
    return found


def observe_watch(meter: Meter, watcher: Watcher) -> None:
    """Register the watch's gauges and its pass counter on `meter` (read at each collection)."""
    from opentelemetry.metrics import Observation

    observe_runs(meter, lambda: watcher.latest.report)

    def gauge(name: str) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def observe(options: CallbackOptions) -> Iterable[Observation]:
            del options
            try:
                return [Observation(v, a) for v, a in _readings(watcher).get(name, [])]
            except Exception as exc:  # a callback must never raise into the SDK
                _log.warning("watch gauge %s failed (%s)", name, type(exc).__name__)
                return []

        return observe

    for name, (unit, description) in WATCH_GAUGES.items():
        meter.create_observable_gauge(name, [gauge(name)], unit=unit, description=description)

    def passes(options: CallbackOptions) -> Iterable[Observation]:
        del options
        return [Observation(n, {"memoryos.status": s}) for s, n in sorted(watcher.latest.passes.items())]

    meter.create_observable_counter(
        PASSES, [passes], unit="{pass}", description="Audit passes of the watcher, by status."
    )


def start_export(watcher: Watcher, environ: Mapping[str, str], interval: float) -> Callable[[], None] | None:
    """When the environment asks for OTLP (MEMORYOS_TELEMETRY=otlp, the standard OTEL_* variables),
    export the watch's metrics every interval (OTEL_METRIC_EXPORT_INTERVAL overrides it) on the
    SDK's thread; return the bounded shutdown. None when telemetry is off or cannot be built."""
    from auditor.metrics import ENV_TELEMETRY

    if environ.get(ENV_TELEMETRY, "").strip().lower() != "otlp":
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        millis = float(environ.get("OTEL_METRIC_EXPORT_INTERVAL") or interval * 1000)
        reader = PeriodicExportingMetricReader(OTLPMetricExporter(), export_interval_millis=millis)
        provider = MeterProvider(metric_readers=[reader])
        observe_watch(provider.get_meter("memoryos.auditor"), watcher)
    except Exception as exc:  # a missing extra or a bad OTEL_* value: the watch goes on without export
        log_event("telemetry off", error=type(exc).__name__)
        return None
    return lambda: _bounded(provider.shutdown, SHUTDOWN_SECONDS)


SHUTDOWN_SECONDS = 5.0


def _bounded(work: Callable[[], object], seconds: float) -> None:
    """Run `work` for at most `seconds`: a final export to a collector that is down must not hold
    the watcher's exit for the exporter's whole retry timeout."""
    worker = threading.Thread(target=work, name="memoryos-audit-shutdown", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        log_event("telemetry still flushing at exit: not waiting", seconds=seconds)
