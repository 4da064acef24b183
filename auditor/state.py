"""The audit state file: what the next audit needs to resume, MAC'd and versioned.

It holds the engine's compact state (chain heads and the seq digests that tell a duplicate, the
undecided runs, the lineage heads — units still in the store —, the findings of decided runs, the
filters of decided ids) and, per source, where reading stopped: a JSONL file's byte offset, a
store's last outbox seq and its high-water mark. File format (`memoryos.audit-state/3`; /2 kept
decided runs' findings without their verdicts, /1 another filter of decided ids):

    {"mac":"<64 hex>","schema":"memoryos.audit-state/3"}\\n
    <body: one JSON object>

`mac` is the HMAC-SHA256 of the body bytes under the state key: a key derived from the receipt key
when the audit has one (`HMAC(receipt key, "memoryos.audit-state/3")`), else a key file made beside
the state (`<state>.key`, mode 0600) when the state is first written. A state that does not verify,
has another schema, or was written for other sources or options is refused (`StateError`), never
guessed at: the caller audits in full instead. A decided run's findings are saved with the run's
verdict, so that a resumed audit does not judge again the runs nothing new reached (`closed_results`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from auditor.bloom import Bloom
from auditor.chains import _Chain
from auditor.engine import Engine, _Run, _Unit
from auditor.judge import Promotions, Times, open_intents
from auditor.report import ResultCache, RunResult, finding_order
from auditor.sources import AuditInputError
from auditor.states import RULES, STATES, Finding
from receipts import create_key_file, read_key_file

__all__ = [
    "STATE_SCHEMA",
    "StateError",
    "closed_results",
    "dump_engine",
    "load_engine",
    "read_state",
    "state_key",
    "write_state",
]

STATE_SCHEMA = "memoryos.audit-state/3"
_KEY_SUFFIX = ".key"


class StateError(AuditInputError):
    """A state file that cannot be trusted or does not belong to this audit."""


# ---- keys and the file -----------------------------------------------------------------------
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


def write_state(path: Path, body: dict[str, Any], key: bytes) -> None:
    """Atomically: a crash leaves the old state or the new one, never a torn file."""
    raw = orjson.dumps(body)
    header = orjson.dumps({"mac": hmac.digest(key, raw, "sha256").hex(), "schema": STATE_SCHEMA})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, header + b"\n" + raw)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_state(path: Path, key: bytes) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StateError(f"cannot read the audit state {path}: {exc.strerror or exc}") from None
    head, _, raw = data.partition(b"\n")
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("schema") != STATE_SCHEMA:
        raise StateError(f"{path} is not a {STATE_SCHEMA} audit state (another version, or another file)")
    mac = header.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, hmac.digest(key, raw, "sha256").hex()):
        raise StateError(
            f"the audit state {path} does not verify under its key: it was changed, or written with "
            "another key; audit in full without --state (or delete the state file)"
        )
    body: dict[str, Any] = orjson.loads(raw)
    return body


# ---- the engine ------------------------------------------------------------------------------
def _b64(data: bytes | bytearray) -> str:
    return base64.b64encode(data).decode()


def _unb64(text: str) -> bytes:
    return base64.b64decode(text)


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


def _dump_chain(chain: _Chain) -> list[Any]:
    far = [[seq, _b64(digest)] for seq, digest in chain.far.items()]
    pending = [[seq, list(entry)] for seq, entry in chain.pending.items()]
    return [_b64(chain.seen), far, chain.next_seq, chain.link, pending]


def _load_chain(raw: list[Any]) -> _Chain:
    seen, far, next_seq, link, pending = raw
    return _Chain(
        bytearray(_unb64(seen)),
        {seq: _unb64(digest) for seq, digest in far},
        next_seq,
        link,
        {seq: (e[0], e[1], e[2], e[3]) for seq, e in pending},
    )


def _dump_bloom(bloom: Bloom) -> list[Any]:
    filters, count, capacity = bloom.dump()
    return [[_b64(raw) for raw in filters], count, capacity]


def _load_bloom(raw: list[Any]) -> Bloom:
    filters, count, capacity = raw
    return Bloom.load([_unb64(text) for text in filters], count, capacity)


def dump_engine(engine: Engine) -> dict[str, Any]:
    """Everything the engine needs to go on as if it had never stopped (notes are always empty
    between two receipts; the scope interning table is rebuilt as receipts arrive)."""
    e = engine
    scopes = _ScopeTable()
    dumped = {
        "ordered": e._ordered,
        "idle": e._idle,
        "sweepEvery": e._sweep_every,
        "chains": {cid: _dump_chain(c) for cid, c in e._chains._chains.items()},
        "open": _dump_runs(e._open.values(), scopes),
        "held": _dump_runs(e._held.values(), scopes),
        "closed": {run: _dump_closed(e, run, found) for run, found in e._closed.items()},
        "units": {mid: _dump_unit(u, scopes) for mid, u in e._units.items()},
        "counts": [e._runs, e._n, e._lines, e._duplicates],
        "window": [e._min_at, e._max_at],
        "versions": sorted(v for v in e._versions if v is not None),
        "decided": [_dump_bloom(e._decided_runs), e._max_run, _dump_bloom(e._dropped_units), e._max_unit],
        "lastLink": e.last_link,
    }
    dumped["scopes"] = scopes.scopes
    return dumped


def _dump_closed(engine: Engine, run: str, found: list[Finding]) -> list[Any]:
    return [engine._verdict(run, found), _findings(found)]  # the verdict memoised by the engine


def closed_results(engine: Engine) -> ResultCache:
    """The report's results for the decided runs of a loaded engine (auditor.report's cache), from
    the verdicts saved with them: a resumed audit judges again only the runs something new reached."""
    cache: ResultCache = {}
    for run, found in engine._closed.items():
        hit = engine._verdicts.get(run)
        if hit is not None and hit[0] is found:
            cache[run] = (found, len(found), RunResult(run, hit[2], tuple(sorted(found, key=finding_order))))
    return cache


def load_engine(raw: dict[str, Any], times: Times, key: bytes | None) -> Engine:
    engine = Engine(times, key, ordered=raw["ordered"], idle=raw["idle"], sweep_every=raw["sweepEvery"])
    scopes = _ScopeTable(raw["scopes"])
    engine._scopes = {scope: scope for scope in scopes.scopes}
    engine._chains._chains = {cid: _load_chain(c) for cid, c in raw["chains"].items()}
    engine._open = OrderedDict((run.run_id, run) for run in _load_runs(raw["open"], scopes))
    engine._held = {run.run_id: run for run in _load_runs(raw["held"], scopes)}
    engine._closed = {}
    for run, (state, found) in raw["closed"].items():
        listed = engine._closed[run] = _unfindings(found) or []
        if state not in STATES:
            raise ValueError(f"an unknown verdict {state!r}")
        engine._verdicts[run] = (listed, len(listed), state)  # the memo auditor.engine keeps
    engine._units = {mid: _load_unit(u, scopes) for mid, u in raw["units"].items()}
    engine._runs, engine._n, engine._lines, engine._duplicates = raw["counts"]
    engine._min_at, engine._max_at = raw["window"]
    engine._versions = set(raw["versions"])
    runs, engine._max_run, units, engine._max_unit = raw["decided"]
    engine._decided_runs, engine._dropped_units = _load_bloom(runs), _load_bloom(units)
    engine.last_link = raw["lastLink"]
    return engine


def fingerprint(data: bytes) -> str:
    """How a source is recognised again: the SHA-256 of a line or row, as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
