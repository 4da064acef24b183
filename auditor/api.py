"""`audit()`: classify the health of every run in one or more receipt sources."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from auditor.chains import Unordered
from auditor.engine import Engine
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

    for path, store in sources:
        count = 0
        for item, where in read_source(path, last_link, store=store):
            count += 1
            if item is None:
                engine.unreadable(where, "")
            else:
                engine.feed(item, where)
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
) -> Report:
    """Audit receipt files (JSONL, plain or gzip) and stores (SQLite outbox, read-only).

    A store is recognised by its SQLite header wherever it is listed; `stores` insists on it.
    Raises AuditInputError only when a source cannot be read at all; bad data becomes findings.
    Without `key`, a store's own key file (`<store>.receipt-key`) verifies the MACs when it can be
    read; `report.macs` says whether MACs were verified. Each store's head mark is compared with
    its outbox (auditor.stores).
    """
    if isinstance(sources, str | os.PathLike):
        sources = [sources]
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
    try:
        engine, mode = _run_pass(listed, times, key, ordered=True), "streaming"
    except Unordered:  # the input is not in a store's export order: decide nothing before the end
        engine, mode = _run_pass(listed, times, key, ordered=False), "exact"
    outcome = engine.finish()
    notes = check_heads(outcome, stores_listed, key)
    return build_report(outcome, times.now, mode, macs=macs, notes=notes)
