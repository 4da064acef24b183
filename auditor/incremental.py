"""Incremental auditing: resume from where the last audit stopped, reach the verdicts of a full one.

An `IncrementalAudit` keeps one engine and one cursor per source. Each `check()` reads only what
was appended since the previous one — a JSONL file from its last byte offset, a store's outbox
after its last seq — feeds it, and reports over everything read so far (`Engine.finish()` consumes
nothing). `save()`/`resume()` carry the same across processes through a state file
(auditor.state). Verdicts equal a full audit's because the engine ends in the same state however
the input is cut: sweeps happen at fixed receipt counts, and runs whose verdict depends on the clock
are never frozen (a property test cuts streams at random).

Two rules keep a resume honest:
- a file is read to its last complete line: a final line without its newline may be half written,
  so it is left for the next audit;
- what was read must still be there: a source whose first line, or whose line (row) just before the
  resume point, no longer hashes as it did is refused (`StateError`), as is a state made for other
  sources or options. The caller then audits in full.
If the input turns out not to be in export order, the audit falls back to the exact pass over
every source from the start (and keeps that engine from then on).
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from auditor.chains import Unordered
from auditor.engine import FILE_RUN, Engine, collector_paused
from auditor.judge import Times
from auditor.parse import from_object, parse_raw
from auditor.report import Report, ResultCache, build_report
from auditor.sources import AuditInputError, Item, checked_source, where_of
from auditor.state import (
    Journal,
    Saved,
    StateError,
    closed_results,
    fingerprint,
    read_state,
    save_state,
    state_key,
)
from auditor.states import Finding, finding
from receipts import format_utc
from receipts.head import HeadError, read_head
from receipts.jsonl import parse_line
from receipts.outbox import OUTBOX_TABLE, read_only_uri

__all__ = ["IncrementalAudit", "read_outbox_rows"]

_GZIP_MAGIC = b"\x1f\x8b"
_BATCH = 1 << 20  # bytes of lines read at once
Source = str | os.PathLike[str]


@dataclass
class _Cursor:
    """Where reading one source stopped, and how to recognise the source again."""

    kind: str  # "jsonl" or "store"
    path: str
    position: int = 0  # byte offset after the last complete line, or the last outbox seq read
    lines: int = 0  # lines (rows) read, for "path:line" in findings
    items: int = 0  # non-blank lines (rows) among them: none at all is a finding
    first: str | None = None  # fingerprint of the first line (row)
    last: str | None = None  # fingerprint of the last line (row) read
    last_at: int = 0  # where that line starts (a file), or its seq (a store)
    mark: int | None = None  # a store's high-water mark when last read (receipts.head)

    def dump(self) -> dict[str, Any]:
        return dict(vars(self))


def _open(path: Path) -> BinaryIO:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == _GZIP_MAGIC:
        return gzip.open(path, "rb")  # type: ignore[return-value]  # GzipFile is a BinaryIO
    return open(path, "rb")


def _refuse(cursor: _Cursor, what: str) -> StateError:
    return StateError(
        f"{cursor.path} {what} since the audit state was written: audit it in full without --state "
        "(or delete the state file)"
    )


class _Reader:
    """Reads what is new in one source, checking first that what was read is still there."""

    def __init__(self, cursor: _Cursor, key: bytes | None) -> None:
        self.cursor = cursor
        self.key = key

    def items(self, engine: Engine) -> Iterator[Item]:
        if self.cursor.kind == "store":
            return self._rows(engine)
        return self._lines(engine)

    # ---- JSONL -----------------------------------------------------------------------------
    def _lines(self, engine: Engine) -> Iterator[Item]:
        c = self.cursor
        path = Path(c.path)
        try:
            handle = _open(path)
        except OSError as exc:
            raise AuditInputError(f"cannot read {path}: {exc.strerror or exc}") from None
        with handle:
            self._skip_checked(handle)
            where = str(path)

            def last_link() -> str | None:
                return engine.last_link

            last: bytes | None = None  # the last complete line read: fingerprinted once, at the end
            try:
                while batch := handle.readlines(_BATCH):
                    for raw in batch:
                        if not raw.endswith(b"\n"):
                            return  # half written, perhaps: the next audit reads it whole
                        start, c.position, c.lines = c.position, c.position + len(raw), c.lines + 1
                        if c.first is None:
                            c.first = fingerprint(raw)
                        last, c.last_at = raw, start
                        stripped = raw.strip()
                        if stripped:
                            c.items += 1
                            item = parse_raw(stripped, last_link)
                            yield item, where_of(item, where, c.lines)
            except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt gzip stream
                yield None, f"{path}:{c.lines + 1}: unreadable ({type(exc).__name__})"
            finally:
                if last is not None:
                    c.last = fingerprint(last)

    def _skip_checked(self, handle: BinaryIO) -> None:
        c = self.cursor
        if c.position == 0:
            return
        first = handle.readline()
        if c.first is not None and fingerprint(first) != c.first:
            raise _refuse(c, "starts with another line (another file or another chain)")
        if c.last_at > len(first):
            _skip(handle, c.last_at)
        last = first if c.last_at == 0 else handle.readline()
        if fingerprint(last) != c.last or handle.tell() != c.position:
            raise _refuse(c, "no longer holds the lines already audited")

    # ---- a store's outbox ------------------------------------------------------------------
    def _rows(self, engine: Engine) -> Iterator[Item]:
        c = self.cursor
        path = Path(c.path)
        self._check_rows(path)
        source = str(path)
        try:
            for seq, raw in read_outbox_rows(path, after_seq=c.position):
                c.items += 1
                if c.first is None:
                    c.first = fingerprint(raw)
                c.position, c.lines, c.last_at, c.last = seq, c.lines + 1, seq, fingerprint(raw)
                where = f"{path}#seq={seq}"
                line = parse_line(raw, source, seq)
                if line is None or line.receipt is None:
                    yield None, f"{where}: {'empty outbox row' if line is None else line.error}"
                else:
                    yield from_object(line.receipt, engine.last_link), where
        except OSError as exc:
            raise AuditInputError(str(exc)) from None
        self._read_mark(path)

    def _check_rows(self, path: Path) -> None:
        c = self.cursor
        if c.position == 0:
            return
        try:
            conn = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None)
            try:
                first = conn.execute(f"SELECT body FROM {OUTBOX_TABLE} ORDER BY seq LIMIT 1").fetchone()
                last = conn.execute(f"SELECT body FROM {OUTBOX_TABLE} WHERE seq = ?", (c.last_at,)).fetchone()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise AuditInputError(f"{path} has no readable receipt outbox: {exc}") from None
        if first is None or _body_print(first[0]) != c.first:
            raise _refuse(c, "holds another chain")
        if last is None or _body_print(last[0]) != c.last:
            raise _refuse(c, f"no longer holds outbox seq {c.last_at} as it was audited")

    def _read_mark(self, path: Path) -> None:
        """The store's high-water mark (receipts.head): the highest seq it promised so far."""
        c = self.cursor
        try:
            head = read_head(path, self.key)
        except (HeadError, OSError):
            return  # a damaged mark is the store source's finding to make (auditor.sources)
        if head is not None:
            c.mark = max(c.mark or 0, head.seq)


def read_outbox_rows(path: Path, after_seq: int = 0, batch: int = 1000) -> Iterator[tuple[int, bytes]]:
    """(seq, body) of every outbox row after `after_seq`, the body as stored (its fingerprint is
    what a resumed audit checks), from a read-only connection. OSError when it is not a store."""
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise OSError(f"cannot open {path} read-only: {exc}") from None
    sql = f"SELECT seq, body FROM {OUTBOX_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?"
    try:
        last = after_seq
        while True:
            try:
                rows = conn.execute(sql, (last, batch)).fetchall()
            except sqlite3.Error as exc:
                raise OSError(f"{path} has no readable receipt outbox: {exc}") from None
            for seq, body in rows:
                yield seq, body if isinstance(body, bytes) else str(body).encode()
            if len(rows) < batch:
                return
            last = rows[-1][0]
    finally:
        conn.close()


def _skip(handle: BinaryIO, offset: int) -> None:
    """To `offset` from the start: a seek in a plain file, reading through a gzip stream."""
    if not isinstance(handle, gzip.GzipFile):
        handle.seek(offset)
        return
    count = offset - handle.tell()
    while count > 0:
        chunk = handle.read(min(count, 1 << 20))
        if not chunk:
            return
        count -= len(chunk)


def _body_print(body: bytes | str) -> str:
    return fingerprint(body if isinstance(body, bytes) else str(body).encode())


@dataclass(frozen=True)
class _Last:
    """The last report, and until when it stays true if nothing new arrives."""

    report: Report
    now: str
    next_change: str | None  # when a verdict changes with the clock alone (auditor.engine.Outcome)
    sources: list[Finding]

    def still_true(self, now: str, sources: list[Finding]) -> bool:
        in_time = self.now <= now and (self.next_change is None or now <= self.next_change)
        return in_time and sources == self.sources


def _times(now: datetime, grace: timedelta) -> Times:
    return Times(format_utc(now), format_utc(now - grace), None)


class IncrementalAudit:
    """Audit sources again and again, reading each receipt once (see the module docstring)."""

    def __init__(
        self,
        sources: Iterable[Source] = (),
        *,
        stores: Iterable[Source] = (),
        key: bytes | None = None,
        grace: timedelta | None = None,
        idle: int = 50_000,
        sweep_every: int = 4096,
    ) -> None:
        from auditor.api import DEFAULT_GRACE

        self._key = key
        self._grace = DEFAULT_GRACE if grace is None else grace
        self._idle, self._sweep_every = idle, sweep_every
        self._cursors = [_cursor(path, store=False) for path in sources]
        self._cursors += [_cursor(path, store=True) for path in stores]
        if not self._cursors:
            raise AuditInputError("nothing to audit: give receipt files and/or stores")
        self._engine = self._new_engine(_times(datetime.now(UTC), self._grace), ordered=True)
        self._last: _Last | None = None
        self._results: ResultCache = {}  # the runs' results as last reported (auditor.report)
        self._journal: Journal | None = None  # the state file as last saved or read (auditor.state)

    def _new_engine(self, times: Times, *, ordered: bool) -> Engine:
        return Engine(times, self._key, ordered=ordered, idle=self._idle, sweep_every=self._sweep_every)

    # ---- the audit -------------------------------------------------------------------------
    def check(self, now: datetime | None = None) -> Report:
        """Read what is new in every source and report over everything read so far."""
        with collector_paused():  # the engine's live state is large: no full sweeps over it per call
            return self._check(now)

    def _check(self, now: datetime | None) -> Report:
        moment = datetime.now(UTC) if now is None else now
        if moment.tzinfo is None:
            raise ValueError("now must be timezone-aware")
        times = _times(moment, self._grace)
        self._engine.set_times(times)
        try:
            fed = self._read_all()
        except Unordered:  # not in export order: the exact pass, from the start, from now on
            self._engine = self._new_engine(times, ordered=False)
            for cursor in self._cursors:
                cursor.position = cursor.lines = cursor.items = cursor.last_at = 0
                cursor.first = cursor.last = None
            fed = self._read_all()
            self._last = None
        sources = self._source_findings()
        if not fed and self._last is not None and self._last.still_true(times.now, sources):
            return dataclasses.replace(self._last.report, now=times.now)
        mode = "streaming" if self._engine._ordered else "exact"
        outcome = self._engine.finish()
        if sources:  # a new list: the engine's own list of file findings must not grow per check
            outcome.findings[FILE_RUN] = [*outcome.findings.get(FILE_RUN, ()), *sources]
        report = build_report(outcome, times.now, mode, cache=self._results)
        self._last = _Last(report, times.now, outcome.next_change, sources)
        return report

    def _read_all(self) -> int:
        fed = 0
        for cursor in self._cursors:
            for item, where in _Reader(cursor, self._key).items(self._engine):
                fed += 1
                if item is None:
                    self._engine.unreadable(where, "")
                else:
                    self._engine.feed(item, where)
        return fed

    def _source_findings(self) -> list[Finding]:
        """Findings about the sources as they are now, not kept in the state: they change."""
        found = []
        for c in self._cursors:
            if c.items == 0:
                found.append(finding("evidence.unreadable", (), f"{c.path}: holds no receipts"))
            if c.mark is not None and c.position < c.mark:
                reason = f"{c.path}: the outbox ends at seq {c.position}, its high-water mark is seq {c.mark}"
                found.append(finding("evidence.gap", (), reason + ": committed receipts were lost"))
        return found

    # ---- the state file --------------------------------------------------------------------
    def _settings(self) -> dict[str, Any]:
        return {"grace": self._grace.total_seconds(), "macs": self._key is not None}

    def save(self, path: Source) -> None:
        """Save the audit at `path`: only what changed since it was last saved there or resumed from
        there is appended (auditor.state)."""
        target = Path(path)
        key = state_key(target, self._key, create=True)
        sources = [c.dump() for c in self._cursors]
        self._journal = save_state(target, self._settings(), sources, self._engine, key, self._journal)

    @classmethod
    def resume(
        cls,
        path: Source,
        sources: Iterable[Source] = (),
        *,
        stores: Iterable[Source] = (),
        key: bytes | None = None,
        grace: timedelta | None = None,
    ) -> IncrementalAudit:
        """The audit saved at `path`, for the same sources and options; StateError otherwise."""
        audit = cls(sources, stores=stores, key=key, grace=grace)
        target = Path(path)
        try:
            saved = read_state(target, state_key(target, key, create=False))
            audit._restore(saved, target)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise StateError(f"{target} is a damaged audit state ({type(exc).__name__})") from None
        return audit

    def _restore(self, saved: Saved, path: Path) -> None:
        if saved.settings != self._settings():
            raise StateError(
                f"{path} was written with other options ({saved.settings}); resume with the same "
                "--grace and --key-file, or audit in full without --state"
            )
        cursors = [_Cursor(**c) for c in saved.sources]
        if [(c.kind, c.path) for c in cursors] != [(c.kind, c.path) for c in self._cursors]:
            listed = ", ".join(c.path for c in cursors)
            raise StateError(f"{path} is the state of an audit of other sources ({listed})")
        self._cursors = cursors
        self._engine, self._journal = saved.engine(self._engine._times, self._key)
        self._results = closed_results(self._engine, self._journal)
        self._idle, self._sweep_every = self._engine._idle, self._engine._sweep_every


def _cursor(path: Source, *, store: bool) -> _Cursor:
    source = Path(path)
    sqlite = checked_source(source, store=store)
    return _Cursor("store" if sqlite else "jsonl", str(source.resolve()))
