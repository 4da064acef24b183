"""Turn one input line into facts the rules read, or into the reason it cannot be used.

Validation is `receipts.problems()`, made cheap: `_valid` caches the verdict for the fields whose
values repeat (schema, boundary, status, tiers, scopes, sourceVersion, chainId, ...) and checks only
the unique ones (ids, times, refs) every time. `_valid` is sound, never lenient: when it says no,
`problems()` runs and words the finding; a property test holds `_valid(r)` to `problems(r) == []`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import date
from functools import lru_cache
from typing import Any, NamedTuple

import orjson

from auditor.facts import FACT_KEYS as KEYS
from auditor.facts import Facts, Parsed
from auditor.fastline import parse_canonical
from receipts import FIELDS, Problem, canonical_bytes, problems
from receipts.canonical import canonical_from_line
from receipts.jsonl import MAX_LINE_BYTES
from receipts.model import MAX_REFS, REQUIRED, SHAPE_FIELDS

__all__ = ["Bad", "Facts", "Parsed", "from_object", "link_of", "parse_raw", "parse_reference"]


class Bad(NamedTuple):
    """A line that is not usable evidence, with what can be salvaged for attribution and chaining."""

    reason: str
    run_id: str | None
    receipt_id: str | None
    chain: tuple[str, int, str, bytes] | None  # (chainId, seq, prev, canonical) when well-typed


_KNOWN = frozenset(FIELDS)
# Fields whose values repeat across a stream: their (boundary-dependent) verdicts are cached.
_REPEATING = SHAPE_FIELDS
_SHAPE_CACHE_MAX = 65_536
_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_REF_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@[1-9][0-9]{0,9}")
_HEX64_RE = re.compile(r"[0-9a-f]{64}")
_TIME_RE = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z"
)
_MAX_INT = 2**63 - 1
_shapes: dict[tuple[Any, ...], bool] = {}


@lru_cache(maxsize=4096)
def _real_day(day: str) -> bool:
    """The pattern admits days 29-31 in every month and year 0; the calendar decides."""
    try:
        date(int(day[:4]), int(day[5:7]), int(day[8:10]))
    except ValueError:
        return False
    return True


def _is_time(value: object) -> bool:
    return isinstance(value, str) and _TIME_RE.fullmatch(value) is not None and _real_day(value[:10])


def _is_uuid(value: object) -> bool:
    return isinstance(value, str) and _UUID_RE.fullmatch(value) is not None


def _is_int(value: object) -> bool:
    return type(value) is int and 1 <= value <= _MAX_INT


def _is_refs(value: object) -> bool:
    if type(value) is not list or len(value) > MAX_REFS:
        return False
    return all(isinstance(r, str) and _REF_RE.fullmatch(r) is not None for r in value)


def _shape_verdict(obj: Mapping[str, Any]) -> bool:
    boundary = obj.get("boundary")
    for name in _REPEATING:
        if name in obj:
            spec = FIELDS[name]
            if not spec.check(obj[name]) or (spec.only_for is not None and boundary not in spec.only_for):
                return False
    deps_only = FIELDS["dependsOnVersion"].only_for
    if "dependsOnVersion" in obj and deps_only is not None and boundary not in deps_only:
        return False
    # mirrors the one cross-field rule of receipts.model.problems()
    return "waitUntilUtc" not in obj or boundary == "store" or obj.get("status") == "waiting"


def _shape_ok(shape: tuple[Any, ...], obj: Mapping[str, Any]) -> bool:
    try:
        return _shapes[shape]
    except KeyError:
        pass
    except TypeError:  # an unhashable value (a list where a string belongs): not valid
        return False
    ok = _shape_verdict(obj)
    if len(_shapes) < _SHAPE_CACHE_MAX:
        _shapes[shape] = ok
    return ok


_SHAPE_KEYS = (
    "schema",
    "boundary",
    "status",
    "sourceVersion",
    "chainId",
    "userScope",
    "assistantScope",
    "fromTier",
    "toTier",
    "sourcePresent",
    "degraded",
    "reason",
    "outcomeReceipt",
)
# The required ids and time of every receipt in one match (a space never matches inside a part, so
# each part must match its own pattern); with and without prev, which is usually the known link.
_IDS_AT = re.compile(_UUID_RE.pattern + " " + _UUID_RE.pattern + " " + _TIME_RE.pattern).fullmatch
_IDS_AT_PREV = re.compile(
    _UUID_RE.pattern + " " + _UUID_RE.pattern + " " + _TIME_RE.pattern + " " + _HEX64_RE.pattern
).fullmatch


def _valid(obj: dict[str, Any], expected_prev: str | None = None) -> bool:
    """True only if `problems(obj)` is empty; cheap for streams of similar receipts."""
    keys = obj.keys()
    if not (keys <= _KNOWN and keys >= REQUIRED):
        return False
    get = obj.get
    # bools are part of the shape by type too, so that 1 and True do not share a cached verdict
    shape = (
        *map(get, _SHAPE_KEYS),
        type(get("sourcePresent")),
        type(get("degraded")),
        "dependsOnVersion" in obj,
        "waitUntilUtc" in obj,
    )
    if not _shape_ok(shape, obj):
        return False
    return _unique_ok(obj, expected_prev)


def _unique_ok(obj: dict[str, Any], expected_prev: str | None) -> bool:
    """The fields whose values differ in every receipt (their keys are known to be present)."""
    rid, run, at, prev = obj["receiptId"], obj["runId"], obj["atUtc"], obj["prev"]
    if not (isinstance(rid, str) and isinstance(run, str) and isinstance(at, str)):
        return False
    if prev == expected_prev and prev is not None:
        if _IDS_AT(f"{rid} {run} {at}") is None:
            return False
    elif not isinstance(prev, str) or _IDS_AT_PREV(f"{rid} {run} {at} {prev}") is None:
        return False
    if not (_is_int(obj["seq"]) and _real_day(at[:10])):
        return False
    for name, check in _UNIQUE_OPTIONAL:  # noqa: SIM110  # a plain loop: no generator per receipt
        if name in obj and not check(obj[name]):
            return False
    return True


_UNIQUE_OPTIONAL = (
    ("memoryId", _is_uuid),
    ("version", _is_int),
    ("derivedFrom", _is_refs),
    ("dependsOnVersion", _is_refs),
    ("waitUntilUtc", _is_time),
    ("mac", lambda v: isinstance(v, str) and _HEX64_RE.fullmatch(v) is not None),
)
_new_facts = tuple.__new__


def _salvage(obj: dict[str, Any], reason: str) -> Bad:
    run, rid = obj.get("runId"), obj.get("receiptId")
    chain_id, seq, prev = obj.get("chainId"), obj.get("seq"), obj.get("prev")
    chain = None
    if (
        isinstance(chain_id, str)
        and 0 < len(chain_id) <= 64
        and isinstance(seq, int)
        and _is_int(seq)
        and isinstance(prev, str)
    ):
        try:
            chain = (chain_id, seq, prev[:64], canonical_bytes(obj))
        except (TypeError, orjson.JSONEncodeError):  # e.g. integers beyond 64 bits
            chain = None
    return Bad(
        reason,
        run if _is_uuid(run) else None,
        rid if isinstance(rid, str) and len(rid) <= 64 else None,
        chain,
    )


def _worded(found: list[Problem]) -> str:
    detail = "; ".join(f"{p.field} {p.problem}" for p in found[:3])
    return detail + (f" (+{len(found) - 3} more)" if len(found) > 3 else "")


def _canonical(obj: dict[str, Any], raw: bytes | None = None) -> bytes:
    if raw is not None:
        return canonical_from_line(raw, obj)  # the line's own bytes when they are canonical
    if "mac" in obj:
        return canonical_bytes(obj)
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)  # the same bytes, one copy fewer


def _usable_despite(obj: dict[str, Any], found: list[Problem]) -> Parsed:
    """A receipt whose problems are all non-blocking: the rules read it without the fields concerned."""
    values = dict(zip(KEYS, map(obj.get, KEYS), strict=True))
    for p in found:
        if p.field in values:
            values[p.field] = None
    facts = _new_facts(Facts, (values[name] for name in KEYS))
    return Parsed(facts, _canonical(obj), "receipt usable, but " + _worded(found))


def from_object(obj: object, expected_prev: str | None = None, raw: bytes | None = None) -> Parsed | Bad:
    """Facts from a decoded object (a JSONL line, or a row of a store's outbox); `raw`: the line."""
    if not isinstance(obj, dict):
        return Bad("not a JSON object", None, None, None)
    if not _valid(obj, expected_prev):
        found = problems(obj)
        if any(p.blocking for p in found):
            return _salvage(obj, "invalid receipt: " + _worded(found))
        if found:
            return _usable_despite(obj, found)
    return Parsed(_new_facts(Facts, map(obj.get, KEYS)), _canonical(obj, raw))


def parse_raw(raw: bytes, expected_prev: str | Callable[[], str | None] | None = None) -> Parsed | Bad:
    """One stripped, non-empty line: a canonical, valid line by the fast path (auditor.fastline),
    anything else by the reference path, which the fast path only ever agrees with.
    `expected_prev` (or a function that tells it, asked only when the reference path runs): the
    link the line's `prev` probably holds, which the reference path then need not re-check."""
    if len(raw) > MAX_LINE_BYTES:
        return Bad(f"line longer than {MAX_LINE_BYTES} bytes", None, None, None)
    parsed = parse_canonical(raw)
    if parsed is not None:
        return parsed
    return _decoded(raw, expected_prev() if callable(expected_prev) else expected_prev)


def parse_reference(raw: bytes, expected_prev: str | None = None) -> Parsed | Bad:
    """parse_raw without its fast path: decode, validate, canonicalise (the differential tests)."""
    if len(raw) > MAX_LINE_BYTES:
        return Bad(f"line longer than {MAX_LINE_BYTES} bytes", None, None, None)
    return _decoded(raw, expected_prev)


def _decoded(raw: bytes, expected_prev: str | None) -> Parsed | Bad:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return Bad("not valid JSON", None, None, None)
    return from_object(obj, expected_prev, raw)


def link_of(canonical: bytes) -> str:
    """What the next receipt of the chain carries as `prev` (receipts.canonical.link_hash)."""
    return hashlib.sha256(canonical).hexdigest()
