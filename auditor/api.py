"""`audit()`: classify the health of every run in one or more receipt sources."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from auditor.chains import Unordered
from auditor.engine import Engine, collector_paused
from auditor.judge import Times
from auditor.report import Report, build_report
from auditor.sources import AuditInputError, read_source
from auditor.stores import check_heads, choose_key, stores_in

__all__ = ["DEFAULT_GRACE", "AuditInputError", "audit", "parse_duration"]

DEFAULT_GRACE = timedelta(minutes=5)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"([0-9]+)([smhdw])")

Source = str | os.PathLike[str]


def parse_duration(text: str) -> timedelta:
    """`30s`, `5m`, `2h`, `7d`, `1w`, or a combination such as `1d12h`."""
    parts = _DURATION.findall(text.strip())
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ValueError(f"not a duration: {text!r} (use e.g. 30s, 5m, 2h, 7d)")
    try:
        return timedelta(seconds=sum(int(n) * _UNITS[u] for n, u in parts))
    except OverflowError:
        raise ValueError(f"duration too long: {text!r} (at most {timedelta.max.days}d)") from None


def _stamp(moment: datetime) -> str:
    """format_utc's text with the year always in four digits (strftime drops the zeros of year 1),
    so that the audit's cuts compare as strings with receipt times for every year."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _before(now: datetime, span: timedelta) -> str:
    """`now - span`; a span reaching before year 1 cuts at the earliest time, before any receipt."""
    try:
        return _stamp(now - span)
    except OverflowError:
        return _stamp(datetime.min.replace(tzinfo=UTC))


def _times(now: datetime, max_age: timedelta | None, grace: timedelta) -> Times:
    expiry = None if max_age is None else _before(now, max_age)
    return Times(_stamp(now), _before(now, grace), expiry)


def _run_pass(
    sources: list[tuple[Source, bool]], times: Times, key: bytes | None, *, ordered: bool
) -> Engine:
    engine = Engine(times, key, ordered=ordered)

    def last_link() -> str | None:
        return engine.last_link

    feed = engine.feed  # bound once: this loop runs per line
    for path, store in sources:
        count = 0
        for item, where in read_source(path, last_link, store=store):
            count += 1
            if item is None:
                engine.unreadable(where, "")
            else:
                feed(item, where)
        if count == 0:
            engine.unreadable(os.fspath(path), "holds no receipts")
    return engine


def audit(
    sources: Source | Iterable[Source],
    now: datetime | None = None,
    max_age: timedelta | None = None,
    grace: timedelta | None = None,
    key: bytes | None = None,
    *,
    stores: Iterable[Source] = (),
    state: Source | None = None,
) -> Report:
    """Audit receipt files (JSONL, plain or gzip) and stores (SQLite outbox, read-only).

    A store is recognised by its SQLite header wherever it is listed; `stores` insists on it.
    Without `key`, a store's own key file (`<store>.receipt-key`) verifies the MACs when it can be
    read; `report.macs` says whether MACs were verified. Each store's head mark is compared with
    its outbox (auditor.stores). With `state`, the audit resumes from that file when it exists
    (reading only what was appended since) and leaves its own state there: the verdicts are those of
    a full audit (auditor.incremental). Raises AuditInputError only when a source cannot be read at
    all (or the state cannot be trusted: auditor.state.StateError); bad data becomes findings.
    """
    if isinstance(sources, str | os.PathLike):
        sources = [sources]
    if state is not None:
        return _audit_with_state(
            Path(state), list(sources), list(stores), now=now, max_age=max_age, grace=grace, key=key
        )
    listed = [(path, False) for path in sources] + [(path, True) for path in stores]
    moment = datetime.now(UTC) if now is None else now
    if moment.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"now is out of range in UTC: {moment.isoformat()}") from None
    times = _times(moment, max_age, DEFAULT_GRACE if grace is None else grace)
    stores_listed = stores_in(listed)
    key, macs = choose_key(key, stores_listed)
    with collector_paused():
        try:
            engine, mode = _run_pass(listed, times, key, ordered=True), "streaming"
        except Unordered:  # not in a store's export order: sort it on disk, then stream it
            try:
                engine, mode = _sorted_pass(listed, times, key), "sorted"
            except Unordered:  # a chain whose seq and time disagree: decide nothing before the end
                engine, mode = _run_pass(listed, times, key, ordered=False), "exact"
        outcome = engine.finish()
    notes = check_heads(outcome, stores_listed, key)
    return build_report(outcome, times.now, mode, macs=macs, notes=notes)


def _sorted_pass(sources: list[tuple[Source, bool]], times: Times, key: bytes | None) -> Engine:
    from auditor.external import sorted_lines
    from auditor.parse import parse_raw

    engine = Engine(times, key, ordered=True)
    empty: list[str] = []
    for raw, where in sorted_lines(sources, empty):
        if raw is None:
            engine.unreadable(where, "")
        else:
            engine.feed(parse_raw(raw, engine.last_link), where)
    for path in empty:
        engine.unreadable(path, "holds no receipts")
    return engine


def _audit_with_state(
    state: Path,
    sources: list[Source],
    stores: list[Source],
    *,
    now: datetime | None,
    max_age: timedelta | None,
    grace: timedelta | None,
    key: bytes | None,
) -> Report:
    from auditor.incremental import IncrementalAudit

    if max_age is not None:
        raise ValueError(
            "a maximum age (--max-age) re-judges every receipt already read at each audit's clock, "
            "so it cannot be combined with a state (--state): audit in full for a maximum age"
        )
    key, macs = choose_key(key, stores_in([(p, False) for p in sources] + [(p, True) for p in stores]))
    with collector_paused():
        if state.exists():
            incremental = IncrementalAudit.resume(state, sources, stores=stores, key=key, grace=grace)
        else:
            incremental = IncrementalAudit(sources, stores=stores, key=key, grace=grace)
        report = incremental.check(now)
        incremental.save(state)
    return dataclasses.replace(report, macs=macs)
