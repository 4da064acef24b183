"""The receipt wire format `memoryos.receipt/1` (DESIGN §4) as data plus pure checks.

Every field is described once in FIELDS; `problems()` evaluates a receipt against that table and
returns what is wrong instead of raising, so the writer can refuse and the auditor can report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from receipts.ids import is_uuid

SCHEMA = "memoryos.receipt/1"
BOUNDARIES = frozenset(
    {
        "store",
        "stm_to_mtm",
        "mtm_to_lpm",
        "evict",
        "expire",
        "decay",
        "correct",
        "forget",
        "reject",
        "retrieve",
        "generate",
    }
)
TIERS = frozenset({"stm", "mtm", "lpm"})
STATUSES = frozenset({"started", "waiting", "committed", "verified", "failed"})
TERMINAL_STATUSES = frozenset({"committed", "verified", "failed"})
ZERO_HASH = "0" * 64
MAX_REFS = 10_000

_REF_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@[1-9][0-9]{0,9}$")
_SCOPE_RE = re.compile(r"^[0-9a-f]{16,64}$")
_HEX64_RE = re.compile(r"^[0-9a-f]{64}$")
_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
_VERSION_RE = re.compile(r"^[A-Za-z0-9._+/-]{1,128}$")
_CHAIN_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_REASON_RE = re.compile(r"^[a-z0-9_]{1,32}(:[a-z0-9_]{1,64})?$")
_OUTCOME_RE = re.compile(r"^[a-z0-9_]{1,32}:[A-Za-z0-9._:@/=+-]{1,256}$")
_MAX_INT = 2**63 - 1


def format_utc(moment: datetime) -> str:
    """RFC 3339 UTC with microseconds, the only time format receipts carry."""
    if moment.tzinfo is None:
        raise ValueError("receipt times must be timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_utc(text: str) -> datetime:
    """Inverse of format_utc; raises ValueError on anything else."""
    if not _TIME_RE.match(text):
        raise ValueError("not an RFC 3339 UTC time with microseconds")
    return datetime.fromisoformat(text)


def _matches(pattern: re.Pattern[str]) -> Callable[[object], bool]:
    return lambda v: isinstance(v, str) and pattern.match(v) is not None


def _one_of(values: frozenset[str]) -> Callable[[object], bool]:
    return lambda v: isinstance(v, str) and v in values


def _is_int(low: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= _MAX_INT


def _is_refs(v: object) -> bool:
    return (
        isinstance(v, list) and len(v) <= MAX_REFS and all(isinstance(r, str) and _REF_RE.match(r) for r in v)
    )


def _is_time(v: object) -> bool:
    if not isinstance(v, str) or not _TIME_RE.match(v):
        return False
    try:
        datetime.fromisoformat(v)  # the regex fixed the shape; this rejects day 31 of April and the like
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Field:
    """One receipt field: how to recognise a valid value, and which boundaries may carry it."""

    check: Callable[[object], bool]
    expects: str
    required: bool = False
    only_for: frozenset[str] | None = None


FIELDS: Mapping[str, Field] = {
    "schema": Field(lambda v: v == SCHEMA, f"the constant {SCHEMA!r}", required=True),
    "receiptId": Field(is_uuid, "a lowercase UUID", required=True),
    "seq": Field(_is_int(1), "an integer >= 1", required=True),
    "runId": Field(is_uuid, "a lowercase UUID", required=True),
    "boundary": Field(_one_of(BOUNDARIES), "one of " + ", ".join(sorted(BOUNDARIES)), required=True),
    "fromTier": Field(_one_of(TIERS), "stm, mtm or lpm"),
    "toTier": Field(_one_of(TIERS), "stm, mtm or lpm"),
    "memoryId": Field(is_uuid, "a lowercase UUID"),
    "version": Field(_is_int(1), "an integer >= 1"),
    "derivedFrom": Field(_is_refs, "a list of '<uuid>@<version>'"),
    "userScope": Field(_matches(_SCOPE_RE), "a keyed pseudonym (16-64 lowercase hex)"),
    "assistantScope": Field(_matches(_SCOPE_RE), "a keyed pseudonym (16-64 lowercase hex)"),
    "sourceVersion": Field(_matches(_VERSION_RE), "an implementation version and config hash", required=True),
    "status": Field(_one_of(STATUSES), "one of " + ", ".join(sorted(STATUSES)), required=True),
    "sourcePresent": Field(lambda v: isinstance(v, bool), "a boolean"),
    "atUtc": Field(_is_time, "RFC 3339 UTC with microseconds", required=True),
    "waitUntilUtc": Field(_is_time, "RFC 3339 UTC with microseconds"),
    "dependsOnVersion": Field(_is_refs, "a list of '<uuid>@<version>'", only_for=frozenset({"generate"})),
    "outcomeReceipt": Field(
        _matches(_OUTCOME_RE), "a content-free proof such as 'sha256:<hex>'", only_for=frozenset({"generate"})
    ),
    "degraded": Field(lambda v: isinstance(v, bool), "a boolean"),
    "reason": Field(
        _matches(_REASON_RE),
        "a code such as 'secret:aws_access_key'",
        only_for=frozenset({"reject", "forget", "evict", "expire", "decay"}),
    ),
    "chainId": Field(_matches(_CHAIN_RE), "an identifier of 1-64 [A-Za-z0-9._-]", required=True),
    "prev": Field(_matches(_HEX64_RE), "64 lowercase hex", required=True),
    "mac": Field(_matches(_HEX64_RE), "64 lowercase hex"),
}

REQUIRED = frozenset(name for name, spec in FIELDS.items() if spec.required)
# The fields whose values repeat from receipt to receipt (codes, scopes, versions, flags): a receipt's
# "shape" is its key set plus these values, and the verdict on a shape is remembered (bounded).
SHAPE_FIELDS = (
    "schema",
    "boundary",
    "status",
    "fromTier",
    "toTier",
    "userScope",
    "assistantScope",
    "sourceVersion",
    "chainId",
    "reason",
    "outcomeReceipt",
    "sourcePresent",
    "degraded",
)
_UNIQUE_FIELDS = tuple((name, spec.check) for name, spec in FIELDS.items() if name not in SHAPE_FIELDS)
_KNOWN = frozenset(FIELDS)
_SHAPES_MAX = 4096
_shapes: dict[tuple[object, ...], bool] = {}
_last_valid: dict[str, str] = {}


def _shape_ok(receipt: Mapping[str, object]) -> bool:
    """problems() restricted to what the shape decides: the key set, the repeating values, which
    fields apply to the boundary, and the one cross-field rule."""
    keys = receipt.keys()
    if not (keys <= _KNOWN and keys >= REQUIRED):
        return False
    boundary = receipt.get("boundary")
    for name in keys:
        spec = FIELDS[name]
        if spec.only_for is not None and boundary not in spec.only_for:
            return False
        if name in SHAPE_FIELDS and not spec.check(receipt[name]):
            return False
    return "waitUntilUtc" not in receipt or boundary == "store" or receipt.get("status") == "waiting"


def is_valid(receipt: Mapping[str, object]) -> bool:
    """Exactly `not problems(receipt)`, cheaper for streams of similar receipts: the repeating
    fields are judged once per shape, the unique ones (ids, times, refs, hashes) every time."""
    get = receipt.get
    # bools are part of the shape by type as well, so that 1 and True never share a verdict
    shape: tuple[object, ...] = (frozenset(receipt), type(get("sourcePresent")), type(get("degraded")))
    shape += tuple(map(get, SHAPE_FIELDS))
    try:
        verdict = _shapes.get(shape)
    except TypeError:  # an unhashable value (a list where a code belongs)
        return False
    if verdict is None:
        verdict = _shape_ok(receipt)
        if len(_shapes) < _SHAPES_MAX:
            _shapes[shape] = verdict
    if not verdict:
        return False
    for name, check in _UNIQUE_FIELDS:
        if name in receipt:
            value = receipt[name]
            # A batch shares its runId and atUtc: a string just found valid is not checked again.
            # Only strings are remembered: a list could change after it was judged.
            if type(value) is str and value == _last_valid.get(name):
                continue
            if not check(value):
                return False
            if type(value) is str:
                _last_valid[name] = value
    return True


def problems(receipt: object) -> list[tuple[str, str]]:
    """Everything wrong with one receipt, as (field, problem) pairs; empty when it is valid.

    Unknown fields come first, then the others in FIELDS order."""
    if not isinstance(receipt, Mapping):
        return [("<receipt>", "is not a JSON object")]
    unknown: list[tuple[str, str]] = []
    wrong: dict[str, str] = {}
    boundary = receipt.get("boundary")
    if not isinstance(boundary, str):
        boundary = None  # a list or object here is reported as a wrong boundary, never hashed
    for name, value in receipt.items():
        spec = FIELDS.get(name)
        if spec is None:
            unknown.append((str(name)[:64], "is not a field of " + SCHEMA))
        elif not spec.check(value):
            wrong[name] = f"must be {spec.expects}"
        elif spec.only_for is not None and boundary not in spec.only_for:
            wrong[name] = "does not apply to boundary " + str(boundary)[:32]
    for name in REQUIRED - receipt.keys():
        wrong[name] = "is missing"
    found = unknown + [(name, wrong[name]) for name in FIELDS if name in wrong]
    if "waitUntilUtc" in receipt and not (boundary == "store" or receipt.get("status") == "waiting"):
        found.append(("waitUntilUtc", "applies only to store receipts and waiting status"))
    return found
