"""The receipt wire format `memoryos.receipt/1` (DESIGN §4) as data plus pure checks.

Every field is described once in FIELDS; `problems()` evaluates a receipt against that table and
returns what is wrong instead of raising, so the writer can refuse and the auditor can report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from receipts.grammar import (
    CHAIN,
    HEX64,
    MAX_INT,
    OUTCOME,
    REASON,
    REF,
    SCOPE,
    TIME,
    UUID,
    VERSION,
    Grammar,
    explain_int,
    is_real_day,
    json_type,
)

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

_MAX_INT = MAX_INT
_TIME_RE = TIME.compiled


def format_utc(moment: datetime) -> str:
    """RFC 3339 UTC with microseconds, the only time format receipts carry."""
    if moment.tzinfo is None:
        raise ValueError("receipt times must be timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_utc(text: str) -> datetime:
    """Inverse of format_utc; raises ValueError on anything else."""
    if not _is_time(text):
        raise ValueError("not an RFC 3339 UTC time with microseconds")
    return datetime.fromisoformat(text)


def _one_of(values: frozenset[str]) -> Callable[[object], bool]:
    return lambda v: isinstance(v, str) and v in values


def _is_int(low: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= _MAX_INT


def _is_refs(v: object) -> bool:
    # map over the bound method: the same test as a generator, without a generator frame per list
    return isinstance(v, list) and len(v) <= MAX_REFS and all(map(REF.matches, v))


def _is_time(v: object) -> bool:
    return TIME.matches(v) and is_real_day(str(v))


def _explain_refs(v: object) -> str:
    rule = f"rule: a list of at most {MAX_REFS} '<memoryId>@<version>' strings, ^{REF.pattern}$"
    if not isinstance(v, list):
        return f"is {json_type(v)}, not a list; {rule}"
    if len(v) > MAX_REFS:
        return f"has {len(v)} items; {rule}"
    index = next(i for i, r in enumerate(v) if not REF.matches(r))
    return f"item {index + 1} {REF.what_is_wrong(v[index])}; {rule}"


def _explain_time(v: object) -> str:
    if TIME.matches(v):
        return f"is not a real calendar day; rule: {TIME.rule()}"
    return TIME.explain(v)


def _explain_choice(values: frozenset[str]) -> Callable[[object], str]:
    allowed = ", ".join(sorted(values))
    return lambda v: f"is {json_type(v)} not in the list; rule: one of {allowed}"


def _explain_bool(v: object) -> str:
    return f"is {json_type(v)}; rule: true or false"


@dataclass(frozen=True)
class Field:
    """One receipt field: how to recognise a valid value, which boundaries may carry it, and whether
    the health rules read it.

    A problem with a field the rules read (`blocking`) makes the receipt unusable for the rules; a
    problem with any other field only adds `uncertain` to the receipt's run (docs/receipt-format.md,
    "Usable and uncertain receipts").
    """

    check: Callable[[object], bool]
    expects: str
    explain: Callable[[object], str]
    json: Mapping[str, Any]  # the JSON Schema of one valid value (receipts.schema)
    required: bool = False
    only_for: frozenset[str] | None = None
    blocking: bool = True


def _grammar(grammar: Grammar, expects: str, **options: Any) -> Field:
    json: dict[str, Any] = {"type": "string", "pattern": f"^{grammar.pattern}$"}
    if grammar.max_length is not None:
        json["maxLength"] = grammar.max_length
    return Field(grammar.matches, expects, grammar.explain, json, **options)


def _choice(values: frozenset[str], expects: str, **options: Any) -> Field:
    return Field(_one_of(values), expects, _explain_choice(values), {"enum": sorted(values)}, **options)


def _integer(low: int, expects: str, **options: Any) -> Field:
    json = {"type": "integer", "minimum": low, "maximum": _MAX_INT}
    return Field(_is_int(low), expects, explain_int(low), json, **options)


def _boolean(**options: Any) -> Field:
    return Field(lambda v: isinstance(v, bool), "a boolean", _explain_bool, {"type": "boolean"}, **options)


_REFS_JSON = {
    "type": "array",
    "maxItems": MAX_REFS,
    "items": {"type": "string", "pattern": f"^{REF.pattern}$"},
}
_TIME_JSON = {"type": "string", "pattern": f"^{TIME.pattern}$"}

FIELDS: Mapping[str, Field] = {
    "schema": Field(
        lambda v: v == SCHEMA,
        f"the constant {SCHEMA!r}",
        lambda v: f"is not {SCHEMA!r} (another or no schema); rule: the constant {SCHEMA!r}",
        {"const": SCHEMA},
        required=True,
    ),
    "receiptId": _grammar(UUID, "a lowercase UUID", required=True),
    "seq": _integer(1, "an integer >= 1", required=True),
    "runId": _grammar(UUID, "a lowercase UUID", required=True),
    "boundary": _choice(BOUNDARIES, "one of " + ", ".join(sorted(BOUNDARIES)), required=True),
    "fromTier": _choice(TIERS, "stm, mtm or lpm"),
    "toTier": _choice(TIERS, "stm, mtm or lpm"),
    "memoryId": _grammar(UUID, "a lowercase UUID"),
    "version": _integer(1, "an integer >= 1"),
    "derivedFrom": Field(_is_refs, "a list of '<uuid>@<version>'", _explain_refs, _REFS_JSON),
    "userScope": _grammar(SCOPE, "a keyed pseudonym (16-64 lowercase hex)"),
    "assistantScope": _grammar(SCOPE, "a keyed pseudonym (16-64 lowercase hex)"),
    # Required, but no rule reads it: a missing or malformed version only makes the run uncertain.
    "sourceVersion": _grammar(
        VERSION, "'<name>/<version>' or '<name> <version>'", required=True, blocking=False
    ),
    "status": _choice(STATUSES, "one of " + ", ".join(sorted(STATUSES)), required=True),
    "sourcePresent": _boolean(),
    "atUtc": Field(_is_time, "RFC 3339 UTC with microseconds", _explain_time, _TIME_JSON, required=True),
    "waitUntilUtc": Field(_is_time, "RFC 3339 UTC with microseconds", _explain_time, _TIME_JSON),
    "dependsOnVersion": Field(
        _is_refs, "a list of '<uuid>@<version>'", _explain_refs, _REFS_JSON, only_for=frozenset({"generate"})
    ),
    "outcomeReceipt": _grammar(
        OUTCOME,
        "a content-free proof such as 'sha256:<hex>'",
        only_for=frozenset({"generate"}),
        blocking=False,
    ),
    "degraded": _boolean(blocking=False),
    "reason": _grammar(
        REASON,
        "a code such as 'secret:aws_access_key'",
        only_for=frozenset({"reject", "forget", "evict", "expire", "decay"}),
        blocking=False,
    ),
    "chainId": _grammar(CHAIN, "an identifier of 1-64 [A-Za-z0-9._-]", required=True),
    "prev": _grammar(HEX64, "64 lowercase hex", required=True),
    # The MAC's value is checked against the key by the reader; its shape alone decides nothing.
    "mac": _grammar(HEX64, "64 lowercase hex", blocking=False),
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


class Problem(NamedTuple):
    """One thing wrong with a receipt: the field, what is wrong with its value and the rule, and
    whether it makes the receipt unusable for the health rules (else it only adds `uncertain`)."""

    field: str
    problem: str
    blocking: bool = True


_UNKNOWN = f"is not a field of {SCHEMA} (docs/receipt-format.md lists them)"
_WAIT_RULE = "applies only to store receipts and waiting status; rule: omit it elsewhere"


def problems(receipt: object) -> list[Problem]:
    """Everything wrong with one receipt; empty when it is valid.

    Unknown fields come first, then the others in FIELDS order, then the cross-field rule."""
    if not isinstance(receipt, Mapping):
        return [Problem("<receipt>", "is not a JSON object")]
    unknown: list[Problem] = []
    wrong: dict[str, Problem] = {}
    boundary = receipt.get("boundary")
    if not isinstance(boundary, str):
        boundary = None  # a list or object here is reported as a wrong boundary, never hashed
    for name, value in receipt.items():
        spec = FIELDS.get(name)
        if spec is None:
            unknown.append(Problem(str(name)[:64], _UNKNOWN, blocking=False))
        elif not spec.check(value):
            wrong[name] = Problem(name, spec.explain(value), spec.blocking)
        elif spec.only_for is not None and boundary not in spec.only_for:
            allowed = ", ".join(sorted(spec.only_for))
            problem = f"does not apply to boundary {str(boundary)[:32]!r}; rule: only {allowed} carry it"
            wrong[name] = Problem(name, problem, blocking=False)  # the rules ignore it there
    for name in REQUIRED - receipt.keys():
        wrong[name] = Problem(name, "is missing; rule: every receipt carries it", FIELDS[name].blocking)
    found = unknown + [wrong[name] for name in FIELDS if name in wrong]
    if "waitUntilUtc" in receipt and not (boundary == "store" or receipt.get("status") == "waiting"):
        found.append(Problem("waitUntilUtc", _WAIT_RULE, blocking=False))
    return found


def usable(found: list[Problem]) -> bool:
    """Whether a receipt with these problems still takes part in the health rules."""
    return not any(p.blocking for p in found)
