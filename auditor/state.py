"""The audit state file: what the next audit needs to resume, MAC'd, versioned, saved by appending.

It holds the engine's compact state (chain heads and the seq digests that tell a duplicate, the
undecided runs, the lineage heads — units still in the store —, the findings and verdicts of
decided runs, the filters of decided ids) and, per source, where reading stopped: a JSONL file's
byte offset, a store's last outbox seq and its high-water mark.

Format `memoryos.audit-state/4` (auditor.journal frames it): a header line, then MAC-chained
records. The first record is a whole state (`"kind": "base"`); each later save appends a `delta`
holding only what grew since the record before — the decided runs whose findings are new or grew,
the new seq digests of each chain, the Bloom filters of decided ids from the last one that changed
— and, whole, what is bounded by the streaming window (open and held runs, units, counters and
cursors). A reader replays the records in order. The seq digests and filters are raw bytes, not
JSON. When the file has grown to twice its last base record, the next save rewrites it as one base
record (atomically). /3 (one JSON body, rewritten whole at every save) is refused by name.

The state key: a key derived from the receipt key when the audit has one
(`HMAC(receipt key, "memoryos.audit-state/4")`), else a key file made beside the state
(`<state>.key`, mode 0600) when the state is first written. A state that does not verify, has
another schema, or was written for other sources or options is refused (`StateError`), never
guessed at: the caller audits in full instead. A decided run's findings are saved with its
verdict, so that a resumed audit does not judge again the runs nothing new reached
(`closed_results`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.bloom import Bloom
from auditor.chains import _Chain
from auditor.engine import Engine, _Run, _Unit
from auditor.journal import (
    Identity,
    JournalError,
    OtherSchema,
    Record,
    append_record,
    encode,
    read_records,
    write_records,
)
from auditor.judge import Promotions, Times, open_intents
from auditor.report import ResultCache, RunResult, finding_order
from auditor.sources import AuditInputError
from auditor.states import RULES, STATES, Finding
from receipts import create_key_file, read_key_file

__all__ = [
    "STATE_SCHEMA",
    "Journal",
    "Saved",
    "StateError",
    "closed_results",
    "read_state",
    "save_state",
    "state_key",
]

STATE_SCHEMA = "memoryos.audit-state/4"
_KEY_SUFFIX = ".key"
_OLDER = frozenset(f"memoryos.audit-state/{n}" for n in (1, 2, 3))  # refused by name, with the fix
_COMPACT_AT = 2  # rewrite the file as one base record when it is this many times the last one


class StateError(AuditInputError):
    """A state file that cannot be trusted or does not belong to this audit."""


# ---- keys ------------------------------------------------------------------------------------
def state_key(path: Path, receipt_key: bytes | None, *, create: bool) -> bytes:
    """The key that MACs the state at `path` (see the module docstring)."""
    if receipt_key is not None:
        return hmac.digest(receipt_key, STATE_SCHEMA.encode(), "sha256")
    key_file = path.with_name(path.name + _KEY_SUFFIX)
    if key_file.exists():
        try:
            return read_key_file(key_file)
        except (OSError, ValueError) as exc:
            raise StateError(f"cannot read the state key {key_file}: {exc}") from None
    if not create:
        raise StateError(
            f"{path} has no key beside it ({key_file}) and no --key-file was given: "
            "give the receipt key it was written with, or audit in full without --state"
        )
    return create_key_file(key_file)


# ---- the engine ------------------------------------------------------------------------------
def _findings(found: list[Finding] | None) -> list[Any] | None:
    return None if found is None else [[f.rule, list(f.receipt_ids), f.reason] for f in found]


def _unfindings(raw: list[Any] | None) -> list[Finding] | None:
    if raw is None:
        return None
    return [Finding(rule, RULES[rule].state, tuple(ids), reason) for rule, ids, reason in raw]


Scope = tuple[str | None, str | None]


class _ScopeTable:
    """Scopes saved once each, referred to by their index: tens of thousands of open runs share a
    handful of scopes, and the loaded engine shares one tuple per scope as a fresh one does."""

    def __init__(self, scopes: list[Any] | None = None) -> None:
        self.scopes: list[Scope] = [(s[0], s[1]) for s in scopes or ()]
        self._index: dict[Scope, int] = {}

    def ref(self, scope: Scope | None) -> int | None:
        if scope is None:
            return None
        index = self._index.get(scope)
        if index is None:
            index = self._index[scope] = len(self.scopes)
            self.scopes.append(scope)
        return index

    def get(self, ref: int | None) -> Scope | None:
        return None if ref is None else self.scopes[ref]


def _dump_runs(runs: Iterable[_Run], scopes: _ScopeTable) -> dict[str, list[Any]]:
    """Column by column, and the rare parts (findings, promotions, retrievals, generations) only for
    the runs that have them: most open runs are one or two receipts with nothing to say yet. One
    comprehension per column: tens of thousands of open runs are dumped at every save."""
    listed = list(runs)
    ref = scopes.ref
    extra = [
        [index, *_run_extra(run)]
        for index, run in enumerate(listed)
        if run.findings or run.flags or run.retrieved or run.generates or run.promo is not None
    ]
    return {
        "ids": [run.run_id for run in listed],
        "born": [run.born for run in listed],
        "touched": [run.touched for run in listed],
        "scope": [ref(run.scope) for run in listed],
        "rid": [run.scope_rid for run in listed],
        "extra": extra,
    }


def _run_extra(run: _Run) -> list[Any]:
    promo = run.promo
    promo_raw = None
    if promo is not None:
        # Compacted to what can still matter: covered only grows, so a released source already
        # covered never counts again, and an intent once terminated or released stays closed.
        released = {key: rid for key, rid in promo.released.items() if key not in promo.covered}
        promo_raw = [released, sorted(promo.covered), open_intents(promo), list(promo.terminal)]
    retrieved = None if run.retrieved is None else sorted(run.retrieved)
    return [_findings(run.findings), run.flags, retrieved, run.generates, promo_raw]


def _load_runs(raw: dict[str, list[Any]], scopes: _ScopeTable) -> list[_Run]:
    table = scopes.scopes
    columns = zip(raw["ids"], raw["born"], raw["touched"], raw["scope"], raw["rid"], strict=True)
    runs = [
        _run(run_id, born, touched, None if s is None else table[s], rid)
        for run_id, born, touched, s, rid in columns
    ]
    for index, found, flags, retrieved, generates, promo in raw["extra"]:
        run = runs[index]
        run.findings, run.flags = _unfindings(found), flags
        run.retrieved = None if retrieved is None else set(retrieved)
        run.generates = None if generates is None else [(rid, deps) for rid, deps in generates]
        if promo is not None:
            released, covered, opened, terminal = promo
            run.promo = Promotions(released, set(covered), [tuple(o) for o in opened], set(terminal))
    return runs


def _run(run_id: str, born: int, touched: int, scope: Scope | None, scope_rid: str | None) -> _Run:
    run = _Run(run_id, born)
    run.touched, run.scope, run.scope_rid = touched, scope, scope_rid
    return run


def _dump_unit(unit: _Unit, scopes: _ScopeTable) -> list[Any]:
    suspects = None if unit.suspects is None else [[scopes.ref(s), run, rid] for s, run, rid in unit.suspects]
    return [
        scopes.ref(unit.scope),
        unit.ckey,
        unit.crid,
        suspects,
        None if unit.newer is None else [[v, at] for v, at in unit.newer.items()],
        unit.retrieves,
        unit.pending,
        unit.resolved,
    ]


def _load_unit(raw: list[Any], scopes: _ScopeTable) -> _Unit:
    scope, ckey, crid, suspects, newer, retrieves, pending, resolved = raw
    unit = _Unit()
    unit.scope, unit.crid, unit.resolved = scopes.get(scope), crid, resolved
    unit.ckey = None if ckey is None else (ckey[0], ckey[1])
    unit.suspects = None if suspects is None else [(_scope(scopes, s), run, rid) for s, run, rid in suspects]
    unit.newer = None if newer is None else dict(newer)
    unit.retrieves = None if retrieves is None else [(r[0], r[1], r[2], r[3]) for r in retrieves]
    unit.pending = None if pending is None else (pending[0], pending[1], pending[2])
    return unit


def _scope(scopes: _ScopeTable, ref: int) -> Scope:
    scope = scopes.get(ref)
    if scope is None:
        raise ValueError("a suspect without a scope")
    return scope


# ---- saving: a base record, or a delta over the file this process last wrote or read -------
@dataclass
class Journal:
    """What the state file holds, as this process last wrote or read it: a save appends only what
    changed since (see the module docstring)."""

    path: Path
    engine: Engine  # the engine the file describes (a fallback to the exact pass makes a new one)
    identity: Identity
    closed: dict[str, int]  # decided run -> findings saved
    seen: dict[str, bytes]  # chain -> its seq digests as saved
    commit: list[Callable[[], None]]  # what to note once the record is written (see _SavedBloom)
    base: int  # bytes of the file when its last base record was written
    settings: dict[str, Any] = field(default_factory=dict)
    unsorted: set[str] = field(default_factory=set)  # decided runs whose findings are not in report order


def _blooms(engine: Engine) -> dict[str, Bloom]:
    return {"runs": engine._decided_runs, "units": engine._dropped_units}


def save_state(  # noqa: PLR0917  # the parts of one save, each named at the single call site
    path: Path,
    settings: dict[str, Any],
    sources: list[dict[str, Any]],
    engine: Engine,
    key: bytes,
    journal: Journal | None,
) -> Journal:
    """Save the audit at `path`: a delta appended to `journal`'s file when it is still that file and
    has not grown past `_COMPACT_AT` times its base, else a new file of one base record."""
    same = journal is not None and journal.path == path and journal.engine is engine
    if same and journal is not None and journal.settings == settings:
        parts, after = _record(path, engine, settings, sources, journal)
        if journal.identity.size + sum(len(part) for part in parts) <= _COMPACT_AT * journal.base:
            identity = append_record(path, key, parts, journal.identity)
            if identity is not None:
                after.identity, after.base = identity, journal.base
                return _committed(after)
    parts, after = _record(path, engine, settings, sources, None)
    after.identity = write_records(path, STATE_SCHEMA, key, [parts])
    after.base = after.identity.size
    return _committed(after)


def _committed(journal: Journal) -> Journal:
    for note in journal.commit:
        note()
    journal.commit.clear()
    return journal


def _record(
    path: Path, engine: Engine, settings: dict[str, Any], sources: list[dict[str, Any]], since: Journal | None
) -> tuple[list[Any], Journal]:
    """The record that brings the file from `since` (None: nothing) to `engine`'s state, and the
    journal it leaves (its identity and base set by the caller)."""
    blobs: list[tuple[str, bytes | bytearray | memoryview]] = []
    after = Journal(path, engine, Identity(0, 0, 0, b""), {}, {}, [], 0, settings)
    chains = _chain_parts(engine, since, blobs, after)
    blooms = _bloom_parts(engine, since, blobs, after)
    closed = _closed_delta(engine, since, after)
    blobs.append(("closed", orjson.dumps(closed)))
    blobs.append(("live", orjson.dumps(_live(engine))))
    meta = {
        "kind": "delta" if since is not None else "base",
        "settings": settings,
        "sources": sources,
        "engine": _scalars(engine),
        "chains": chains,
        "blooms": blooms,
    }
    return encode(meta, blobs), after


def _chain_parts(engine: Engine, since: Journal | None, blobs: list[Any], after: Journal) -> list[list[Any]]:
    """Per chain: its small parts whole, and its seq digests from where the saved ones end (from
    the start when a saved digest changed, which the streaming pass never does)."""
    listed = []
    for index, (cid, chain) in enumerate(engine._chains._chains.items()):
        seen = bytes(chain.seen)
        saved = None if since is None else since.seen.get(cid)
        start = 0
        if saved is not None and len(saved) <= len(seen) and seen.startswith(saved):
            start = len(saved)
        name = f"seen{index}"
        blobs.append((name, memoryview(seen)[start:]))
        far = [[seq, base64.b64encode(digest).decode()] for seq, digest in chain.far.items()]
        pending = [[seq, list(entry)] for seq, entry in chain.pending.items()]
        listed.append([cid, name, start, far, chain.next_seq, chain.link, pending])
        after.seen[cid] = seen
    return listed


class _SavedBloom(Bloom):
    """A filter of decided ids as saved in the state file, and the ids added since. It becomes a
    Bloom only when asked about an id (rare: ids grow with time, and only an id not newer than
    every decided one is asked about) or dumped whole, so that a resumed audit neither converts the
    saved filters nor saves them again: a delta record holds the ids added since the last record."""

    def __init__(self, filters: list[bytes], count: int, capacity: int, real: Bloom | None = None) -> None:
        # Bloom.__init__ is not called: nothing of a Bloom's own is used until it is materialised.
        self._saved_filters = (filters, count, capacity)
        self.added: list[str] = []  # in order, since the saved filters
        self.saved = 0  # how many of `added` the file holds
        self._real = real

    def add(self, key: str) -> None:
        self.added.append(key)
        if self._real is not None:
            self._real.add(key)

    def update(self, keys: list[str]) -> None:
        self.added.extend(keys)
        if self._real is not None:
            self._real.update(keys)

    def __contains__(self, key: str) -> bool:
        return key in self._materialised()

    def dump(self) -> tuple[list[bytes], int, int]:
        return self._materialised().dump()

    def _materialised(self) -> Bloom:
        if self._real is None:
            real = Bloom.load(*self._saved_filters)
            for key in self.added:  # the same bits in the same order: the filters a full pass makes
                real.add(key)
            self._real = real
        return self._real


def _bloom_parts(
    engine: Engine, since: Journal | None, blobs: list[Any], after: Journal
) -> dict[str, list[Any]]:
    """Per filter of decided ids: in a delta the ids added since the last record, in a base the
    filters as bytes (and from then on the filter is a _SavedBloom of those)."""
    parts: dict[str, list[Any]] = {}
    for name, bloom in _blooms(engine).items():
        if since is not None and isinstance(bloom, _SavedBloom):
            blobs.append((f"{name}.ids", orjson.dumps(bloom.added[bloom.saved :])))
            parts[name] = ["ids"]
            after.commit.append(_noting(bloom, len(bloom.added)))
            continue
        filters, count, capacity = bloom.dump()
        blobs += [(f"{name}{index}", raw) for index, raw in enumerate(filters)]
        parts[name] = ["filters", len(filters), count, capacity]
        saved = _SavedBloom(filters, count, capacity, real=bloom)
        after.commit.append(_replacing(engine, name, saved))
    return parts


def _noting(bloom: _SavedBloom, saved: int) -> Callable[[], None]:
    def note() -> None:
        bloom.saved = saved

    return note


def _replacing(engine: Engine, name: str, bloom: _SavedBloom) -> Callable[[], None]:
    def replace() -> None:
        bloom.saved = len(bloom.added)
        _set_bloom(engine, name, bloom)

    return replace


def _set_bloom(engine: Engine, name: str, bloom: Bloom) -> None:
    if name == "runs":
        engine._decided_runs = bloom
    else:
        engine._dropped_units = bloom


def _closed_delta(engine: Engine, since: Journal | None, after: Journal) -> dict[str, list[Any]]:
    """The decided runs whose findings are new or grew (findings lists only grow by appending):
    per run its verdict, the findings saved before and how many follow, column by column, and the
    findings that follow as three flat columns (tens of thousands of small lists load slowly)."""
    saved = {} if since is None else since.closed
    columns: dict[str, list[Any]] = {k: [] for k in ("runs", "states", "before", "counts")}
    rules: list[str] = []
    ids: list[list[str]] = []
    reasons: list[str] = []
    for run, found in engine._closed.items():
        before = saved.get(run, 0)
        if before == len(found):
            continue
        if before > len(found):
            before = 0  # not a list that grew: saved again whole
        columns["runs"].append(run)
        columns["states"].append(engine._verdict(run, found))
        columns["before"].append(before)
        columns["counts"].append(len(found) - before)
        # A base record holds each run's findings in report order, so that a resumed audit need
        # not sort them (a stable sort of them with findings appended later is the same order).
        listed = found[before:] if before or len(found) == 1 else sorted(found, key=finding_order)
        for f in listed:
            rules.append(f.rule)
            ids.append(list(f.receipt_ids))
            reasons.append(f.reason)
    after.closed = {run: len(found) for run, found in engine._closed.items()}
    return {**columns, "rules": rules, "ids": ids, "reasons": reasons}


def _scalars(engine: Engine) -> dict[str, Any]:
    e = engine
    return {
        "ordered": e._ordered,
        "idle": e._idle,
        "sweepEvery": e._sweep_every,
        "counts": [e._runs, e._n, e._lines, e._duplicates],
        "window": [e._min_at, e._max_at],
        "versions": sorted(v for v in e._versions if v is not None),
        "maxIds": [e._max_run, e._max_unit],
        "lastLink": e.last_link,
    }


def _live(engine: Engine) -> dict[str, Any]:
    """What the streaming window bounds, saved whole in every record (notes are always empty
    between two receipts; the scope interning table is rebuilt from the scopes saved)."""
    scopes = _ScopeTable()
    live = {
        "open": _dump_runs(engine._open.values(), scopes),
        "held": _dump_runs(engine._held.values(), scopes),
        "units": {mid: _dump_unit(u, scopes) for mid, u in engine._units.items()},
    }
    live["scopes"] = scopes.scopes  # type: ignore[assignment]  # a list beside the columns
    return live


# ---- reading ---------------------------------------------------------------------------------
@dataclass
class Saved:
    """A state file read and verified: its last settings and cursors, and the records to replay."""

    path: Path
    settings: dict[str, Any]
    sources: list[dict[str, Any]]
    records: list[Record]
    identity: Identity

    def engine(self, times: Times, key: bytes | None) -> tuple[Engine, Journal]:
        """The engine the records replay to, and the journal of the file it was read from."""
        last = self.records[-1].meta
        scalars = last["engine"]
        engine = Engine(
            times, key, ordered=scalars["ordered"], idle=scalars["idle"], sweep_every=scalars["sweepEvery"]
        )
        journal = Journal(
            self.path, engine, self.identity, {}, {}, [], _base_size(self.records), self.settings
        )
        _replay_closed(engine, self.records, journal)
        _replay_chains(engine, self.records, journal)
        _replay_blooms(engine, self.records, journal)
        _load_live(engine, orjson.loads(self.records[-1].blobs["live"]))
        engine._runs, engine._n, engine._lines, engine._duplicates = scalars["counts"]
        engine._min_at, engine._max_at = scalars["window"]
        engine._versions = set(scalars["versions"])
        engine._max_run, engine._max_unit = scalars["maxIds"]
        engine.last_link = scalars["lastLink"]
        return engine, journal


def read_state(path: Path, key: bytes) -> Saved:
    try:
        with path.open("rb") as handle:
            stat = os.fstat(handle.fileno())
            data = handle.read()
    except OSError as exc:
        raise StateError(f"cannot read the audit state {path}: {exc.strerror or exc}") from None
    try:
        records, mac, used = read_records(data, STATE_SCHEMA, key)
    except OtherSchema as exc:
        raise _other_schema(path, exc.found) from None
    except (JournalError, KeyError, TypeError, ValueError):
        raise _not_verified(path) from None
    if not records or records[0].meta.get("kind") != "base":
        raise _not_verified(path)
    # The next save appends only to the very bytes read: a record cut short at the end (a crash
    # while appending), or bytes written while this one read, make it rewrite the file instead.
    size = stat.st_size if used == len(data) == stat.st_size else -1
    identity = Identity(stat.st_ino, size, stat.st_mtime_ns, mac)
    last = records[-1].meta
    return Saved(path, last["settings"], last["sources"], records, identity)


def _other_schema(path: Path, found: str | None) -> StateError:
    fix = f"audit in full without --state once (or delete {path}); that audit writes a {STATE_SCHEMA} state"
    if found in _OLDER:
        return StateError(f"{path} is a {found} audit state, which this auditor no longer reads: {fix}")
    return StateError(f"{path} is not a {STATE_SCHEMA} audit state (another version, or another file): {fix}")


def _not_verified(path: Path) -> StateError:
    return StateError(
        f"the audit state {path} does not verify under its key: it was changed, or written with "
        "another key; audit in full without --state (or delete the state file)"
    )


def _base_size(records: list[Record]) -> int:
    return 0 if not records else records[0].size


def _since_base(records: list[Record]) -> Iterator[Record]:
    """The records that make the state: from the last base record on (a base replaces all)."""
    start = max(index for index, r in enumerate(records) if r.meta["kind"] == "base")
    return iter(records[start:])


def _replay_closed(engine: Engine, records: list[Record], journal: Journal) -> None:
    closed: dict[str, list[Finding]] = {}
    verdicts: dict[str, str] = {}
    journal.unsorted = set()
    for record in _since_base(records):
        c = orjson.loads(record.blobs["closed"])
        found = _flat_findings(c["rules"], c["ids"], c["reasons"])
        at = 0
        for run, state, before, count in zip(c["runs"], c["states"], c["before"], c["counts"], strict=True):
            piece, at = found[at : at + count], at + count
            listed = closed.get(run)
            if listed is None:
                closed[run] = piece
            else:
                del listed[before:]
                listed += piece
            if before or record.meta["kind"] != "base":
                journal.unsorted.add(run)
            verdicts[run] = state
    if not set(verdicts.values()) <= set(STATES):
        raise ValueError("an unknown verdict")
    engine._closed = closed
    memo = engine._verdicts  # the memo auditor.engine keeps of each run's verdict
    for run, listed in closed.items():
        memo[run] = (listed, len(listed), verdicts[run])
    journal.closed = {run: len(listed) for run, listed in closed.items()}


def _flat_findings(rules: list[str], ids: list[list[str]], reasons: list[str]) -> list[Finding]:
    states = {rule: RULES[rule].state for rule in set(rules)}
    return [
        Finding(rule, states[rule], tuple(rids), reason)
        for rule, rids, reason in zip(rules, ids, reasons, strict=True)
    ]


def _replay_chains(engine: Engine, records: list[Record], journal: Journal) -> None:
    seen: dict[str, bytearray] = {}
    chains: dict[str, _Chain] = {}
    for record in _since_base(records):
        for cid, name, start, far, next_seq, link, pending in record.meta["chains"]:
            digests = seen.setdefault(cid, bytearray())
            if start > len(digests):
                raise ValueError("seq digests that do not follow the saved ones")
            del digests[start:]
            digests += record.blobs[name]
            chains[cid] = _Chain(
                digests,
                {seq: base64.b64decode(digest) for seq, digest in far},
                next_seq,
                link,
                {seq: (e[0], e[1], e[2], e[3]) for seq, e in pending},
            )
    last = {entry[0] for entry in records[-1].meta["chains"]}
    engine._chains._chains = {cid: chain for cid, chain in chains.items() if cid in last}
    journal.seen = {cid: bytes(chain.seen) for cid, chain in engine._chains._chains.items()}


def _replay_blooms(engine: Engine, records: list[Record], journal: Journal) -> None:
    """The base record's filters, and the ids each later record added, left to a _SavedBloom."""
    for name in ("runs", "units"):
        bloom: _SavedBloom | None = None
        for record in _since_base(records):
            part = record.meta["blooms"][name]
            if part[0] == "filters":
                _, count_filters, count, capacity = part
                filters = [bytes(record.blobs[f"{name}{i}"]) for i in range(count_filters)]
                bloom = _SavedBloom(filters, count, capacity)
            elif part[0] == "ids" and bloom is not None:
                bloom.added += orjson.loads(record.blobs[f"{name}.ids"])
            else:
                raise ValueError(f"a filter record of an unknown kind {part[0]!r}")
        if bloom is None:
            raise ValueError("no filter of decided ids")
        bloom.saved = len(bloom.added)
        _set_bloom(engine, name, bloom)


def _load_live(engine: Engine, live: dict[str, Any]) -> None:
    scopes = _ScopeTable(live["scopes"])
    engine._scopes = {scope: scope for scope in scopes.scopes}
    engine._open = OrderedDict((run.run_id, run) for run in _load_runs(live["open"], scopes))
    engine._held = {run.run_id: run for run in _load_runs(live["held"], scopes)}
    engine._units = {mid: _load_unit(u, scopes) for mid, u in live["units"].items()}


def closed_results(engine: Engine, journal: Journal) -> ResultCache:
    """The report's results for the decided runs of a loaded engine (auditor.report's cache), from
    the verdicts saved with them: a resumed audit judges again only the runs something new reached.
    Findings saved in report order (`journal.unsorted` names the runs whose are not) are not sorted."""
    cache: ResultCache = {}
    unsorted = journal.unsorted
    for run, found in engine._closed.items():
        hit = engine._verdicts.get(run)
        if hit is not None and hit[0] is found:
            ordered = tuple(sorted(found, key=finding_order)) if run in unsorted else tuple(found)
            cache[run] = (found, len(found), RunResult(run, hit[2], ordered))
    return cache


def fingerprint(data: bytes) -> str:
    """How a source is recognised again: the SHA-256 of a line or row, as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
