"""`audit()`: classify the health of every run in one or more receipt sources."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from auditor.chains import Unordered
from auditor.engine import Engine
from auditor.judge import Times
from auditor.report import Report, build_report
from auditor.sources import AuditInputError, read_source
from receipts import format_utc

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
    return timedelta(seconds=sum(int(n) * _UNITS[u] for n, u in parts))


def _times(now: datetime, max_age: timedelta | None, grace: timedelta) -> Times:
    expiry = None if max_age is None else format_utc(now - max_age)
    return Times(format_utc(now), format_utc(now - grace), expiry)


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
    state: Source | None = None,
) -> Report:
    """Audit receipt files (JSONL, plain or gzip) and stores (SQLite outbox, read-only).

    A store is recognised by its SQLite header wherever it is listed; `stores` insists on it.
    With `state`, the audit resumes from that file when it exists (reading only what was appended
    since) and leaves its own state there: the verdicts are those of a full audit
    (auditor.incremental). Raises AuditInputError only when a source cannot be read at all (or the
    state cannot be trusted: auditor.state.StateError); bad data becomes findings.
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
    times = _times(moment, max_age, DEFAULT_GRACE if grace is None else grace)
    try:
        engine, mode = _run_pass(listed, times, key, ordered=True), "streaming"
    except Unordered:  # not in a store's export order: sort it on disk, then stream it
        try:
            engine, mode = _sorted_pass(listed, times, key), "sorted"
        except Unordered:  # a chain whose seq and time disagree: decide nothing before the end
            engine, mode = _run_pass(listed, times, key, ordered=False), "exact"
    return build_report(engine.finish(), times.now, mode)


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
    if state.exists():
        incremental = IncrementalAudit.resume(state, sources, stores=stores, key=key, grace=grace)
    else:
        incremental = IncrementalAudit(sources, stores=stores, key=key, grace=grace)
    report = incremental.check(now)
    incremental.save(state)
    return report
