"""The fast path of the parser on msgspec: a typed decode, one re-encode, a few cached checks.

The same contract as auditor.fastline's regular expression (which stays, the fallback when msgspec
is not installed): a line it accepts is (1) the canonical serialisation of what it decodes to and
(2) free of every per-value problem; anything else returns None and the reference path decides.

- `_Receipt` is a msgspec Struct with one field per receipts.model.FIELDS in sorted order: the decode
  checks in C the types, the enumerations (Literal), the integer ranges and the number of refs, and
  refuses an unknown field. The grammars of strings are not given to msgspec (its `pattern` runs a
  Python regular expression per field, slower than the whole-line one): they are checked here.
- Canonical: the Struct encodes its fields in sorted order, absent ones left out, with no spaces, so
  `encode(decoded) == line` proves the line is canonical — a space, another order, an escape, a
  duplicate key, an explicit null or a non-canonical number all make the bytes differ. The strings
  that pass the grammars hold no character that orjson and msgspec would write differently (no
  quote, backslash, control or non-ASCII character), so the bytes are those of receipts.canonical.
- Values that repeat across a stream (scopes, chainId, sourceVersion, reason) are matched once and
  remembered; the ids and hashes of every receipt (receiptId, runId, prev, mac, memoryId) are
  checked together by byte class in one call, atUtc by its minute (cached) and its seconds.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

from auditor.facts import FACT_KEYS, Facts, Parsed
from receipts import FIELDS
from receipts import grammar as g
from receipts.model import BOUNDARIES, MAX_REFS, SCHEMA, STATUSES, TIERS

__all__ = ["parse_canonical"]

_new_facts = _new_parsed = tuple.__new__
_INT = Annotated[int, msgspec.Meta(ge=1, le=g.MAX_INT)]
_REF_LIST = Annotated[list[str], msgspec.Meta(max_length=MAX_REFS)]


def _choice(values: frozenset[str]) -> Any:
    return Literal[tuple(sorted(values))]


_TYPES: dict[str, Any] = {
    "assistantScope": str,
    "atUtc": str,
    "boundary": _choice(BOUNDARIES),
    "chainId": str,
    "degraded": bool,
    "dependsOnVersion": _REF_LIST,
    "derivedFrom": _REF_LIST,
    "fromTier": _choice(TIERS),
    "mac": str,
    "memoryId": str,
    "outcomeReceipt": str,
    "prev": str,
    "reason": str,
    "receiptId": str,
    "runId": str,
    "schema": Literal[SCHEMA],
    "seq": _INT,
    "sourcePresent": bool,
    "sourceVersion": str,
    "status": _choice(STATUSES),
    "toTier": _choice(TIERS),
    "userScope": str,
    "version": _INT,
    "waitUntilUtc": str,
}
assert set(_TYPES) == set(FIELDS), "the fast path must know every field"
_Receipt = msgspec.defstruct(
    "_Receipt",
    [
        (name, _TYPES[name]) if FIELDS[name].required else (name, _TYPES[name] | None, None)
        for name in FACT_KEYS
    ],
    kw_only=True,  # required and optional fields interleaved, in sorted order
    omit_defaults=True,  # an absent field is written absent (an explicit null then differs)
    forbid_unknown_fields=True,
)
_decode = msgspec.json.Decoder(_Receipt).decode
_encode_into = msgspec.json.Encoder().encode_into
_BUFFER = bytearray(1024)  # encode_into reuses it: no new bytes object (nor its growth) per line
_astuple = msgspec.structs.astuple
_Error = msgspec.DecodeError  # ValidationError is one

# The ids and hashes of every receipt, checked together in C: "receiptId runId prev mac memoryId"
# (an absent one written "None") mapped byte by byte to its character classes — lowercase hex to
# "h", "-" and the separating spaces to themselves, anything else to "?" — is one of four shapes.
# No part may hold a space, so the spaces keep each part in its place and length.
_CLASSES = bytearray(b"?" * 256)
for _byte in b"0123456789abcdef":
    _CLASSES[_byte] = ord("h")
_CLASSES[ord("-")], _CLASSES[ord(" ")] = ord("-"), ord(" ")
_CLASS_TABLE = bytes(_CLASSES)
_UUID_SHAPE = b"hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
_ABSENT = b"None".translate(_CLASS_TABLE)
_IDS_SHAPE = {
    (has_mac, has_memory): b" ".join(
        (
            _UUID_SHAPE,
            _UUID_SHAPE,
            b"h" * 64,
            b"h" * 64 if has_mac else _ABSENT,
            _UUID_SHAPE if has_memory else _ABSENT,
        )
    )
    for has_mac in (False, True)
    for has_memory in (False, True)
}
assert (
    re.fullmatch(g.UUID.pattern, "0" * 8 + "-0000" * 3 + "-" + "0" * 12) and g.HEX64.pattern == "[0-9a-f]{64}"
)
# atUtc: its first 16 characters (to the minute, shared by the receipts of a minute) matched once and
# remembered with the calendar's verdict on the day; the seconds each time.
_TIME_HEAD = re.compile(g.TIME.pattern[: g.TIME.pattern.index(":[0-5][0-9]\\.")]).fullmatch
_TIME_TAIL = re.compile(":[0-5][0-9]\\.[0-9]{6}Z").fullmatch
assert g.TIME.pattern == _TIME_HEAD.__self__.pattern + _TIME_TAIL.__self__.pattern  # type: ignore[attr-defined]
_MINUTES: dict[str, bool] = {}


def _minute(at: str) -> bool:
    head = at[:16]
    ok = _TIME_HEAD(head) is not None and g.is_real_day(head)
    if len(_MINUTES) < 65_536:
        _MINUTES[head] = ok
    return ok


def _time_fits(value: str) -> bool:
    return bool(_MINUTES.get(value[:16]) or _minute(value)) and _TIME_TAIL(value, 16) is not None


_REFS = re.compile(f"{g.REF.pattern}(?: {g.REF.pattern})*").fullmatch
assert " " not in g.REF.pattern
_OUTCOME = g.OUTCOME.compiled.fullmatch

# Values that repeat, each matched against its grammar once: the set of those known to fit.
_KNOWN_MAX = 65_536
_known: dict[g.Grammar, set[str]] = {g.SCOPE: set(), g.CHAIN: set(), g.VERSION: set(), g.REASON: set()}


def _fits(grammar: g.Grammar, value: str) -> bool:
    """The grammar's verdict (length limit included), remembered when it is yes."""
    if not grammar.matches(value):
        return False
    known = _known[grammar]
    if len(known) < _KNOWN_MAX:
        known.add(value)
    return True


_SCOPES, _CHAINS, _VERSIONS, _REASONS = (_known[k] for k in (g.SCOPE, g.CHAIN, g.VERSION, g.REASON))


def _refs_fit(refs: list[str]) -> bool:
    """Every item a ref, in one match over the items joined by spaces (a ref holds no space)."""
    return _REFS(" ".join(refs)) is not None


_REASON_FOR = FIELDS["reason"].only_for or frozenset()
_GENERATE_ONLY = (FIELDS["dependsOnVersion"].only_for, FIELDS["outcomeReceipt"].only_for)
assert (frozenset({"generate"}),) * 2 == _GENERATE_ONLY
_MAC_MEMBER = b',"mac":"'
_MAC_SPAN = len(_MAC_MEMBER) + 64 + 1  # the member with its 64 hex digits and closing quote


def parse_canonical(raw: bytes) -> Parsed | None:
    """The receipt of a canonical, valid line; None for anything the reference path must judge."""
    try:
        decoded = _decode(raw)
    except _Error:
        return None
    _encode_into(decoded, _BUFFER)
    if raw != _BUFFER:  # not canonical (or an explicit null, which decodes as absent)
        return None
    values = _astuple(decoded)
    (
        assistant, at, boundary, chain, _, depends, derived, _, mac, memory, outcome, prev, reason, rid,
        run, _, _, _, version, status, _, user, _, wait,
    ) = values  # fmt: skip
    try:
        ids = f"{rid} {run} {prev} {mac} {memory}".encode()
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if (
        ids.translate(_CLASS_TABLE) != _IDS_SHAPE[mac is not None, memory is not None]
        or not (_MINUTES.get(at[:16]) or _minute(at))
        or _TIME_TAIL(at, 16) is None
        or (chain not in _CHAINS and not _fits(g.CHAIN, chain))
        or (version not in _VERSIONS and not _fits(g.VERSION, version))
        or (user is not None and user not in _SCOPES and not _fits(g.SCOPE, user))
        or (assistant is not None and assistant not in _SCOPES and not _fits(g.SCOPE, assistant))
    ):
        return None
    if (  # the rare fields, and the rules between fields: which boundary carries which, the window
        (
            reason is not None
            and (boundary not in _REASON_FOR or (reason not in _REASONS and not _fits(g.REASON, reason)))
        )
        or ((depends is not None or outcome is not None) and boundary != "generate")
        or (outcome is not None and _OUTCOME(outcome) is None)
        or (wait is not None and ((boundary != "store" and status != "waiting") or not _time_fits(wait)))
        or (depends and not _refs_fit(depends))
        or (derived and not _refs_fit(derived))
    ):
        return None
    if mac is None:
        canonical = raw
    else:  # the member once, in its sorted place (no value before it holds a quote)
        start = raw.find(_MAC_MEMBER)
        canonical = raw[:start] + raw[start + _MAC_SPAN :]
    return _new_parsed(Parsed, (_new_facts(Facts, values), canonical, None))
