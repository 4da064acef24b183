"""The fast path of the parser: one regular expression over a canonical line, no JSON decoding.

memoryos writes every receipt as its canonical bytes with `mac` in its sorted place (orjson, sorted
keys, no spaces). `_LINE` is the grammar of exactly such a line: every field of receipts.model.FIELDS
in sorted order, each at most once, each value in its own pattern from receipts.grammar (strings
without escapes, integers without leading zeros or a 19th digit, `true`/`false`, lists of refs).
A line it matches is therefore (1) the canonical serialisation of what it decodes to — the chain
hash and the MAC are computed over the line with the `mac` member cut out, no re-serialising — and
(2) free of every per-value problem; the few rules the pattern cannot say (which boundary carries
which field, the wait-window rule, a real calendar day, the length of a version, the number of
refs) are checked here on the matched groups. Whatever the fast path is not sure of — another
spelling, a problem of any kind, a 19-digit number, a non-ASCII byte — returns None and the
reference path (`auditor.parse.parse_reference`) decides, words the finding and salvages the
chain: the fast path may only agree with it. tests/auditor/test_fastline.py holds the two paths to
the same results on generated faulty lines.
"""

from __future__ import annotations

import re

from auditor.facts import FACT_KEYS, Facts, Parsed
from receipts import FIELDS
from receipts import grammar as g
from receipts.model import BOUNDARIES, MAX_REFS, SCHEMA, STATUSES, TIERS

_new_facts = _new_parsed = tuple.__new__

__all__ = ["SORTED", "parse_canonical", "parse_canonical_regex"]

SORTED = FACT_KEYS  # sorted: orjson's OPT_SORT_KEYS order (all keys are ASCII), and Facts's


def _plain(pattern: str) -> str:
    """A grammar pattern with its groups made non-capturing (one capture per field) and its counted
    repeats possessive (no backtracking bookkeeping: a possessive repeat can only match less, and
    less only sends a line to the reference path)."""
    assert "(?" not in pattern and "\\(" not in pattern, pattern
    return re.sub(r"(\{[0-9]+(?:,[0-9]+)?\})", r"\1+", pattern.replace("(", "(?:"))


def _string(grammar: g.Grammar) -> str:
    return '"(' + _plain(grammar.pattern) + ')"'


def _enum(values: frozenset[str]) -> str:
    return '"(' + "|".join(sorted(values, key=lambda v: (-len(v), v))) + ')"'


_INT = "([1-9][0-9]{0,17}+)"  # 18 digits are always below 2**63 - 1; a 19th goes the slow way
_BOOL = "(true|false)"
_REF = _plain(g.REF.pattern)
_REFS = r'\[((?:"' + _REF + '"(?:,"' + _REF + r'")*)?)\]'
_VALUES = {
    "assistantScope": _string(g.SCOPE),
    "atUtc": _string(g.TIME),
    "boundary": _enum(BOUNDARIES),
    "chainId": _string(g.CHAIN),
    "degraded": _BOOL,
    "dependsOnVersion": _REFS,
    "derivedFrom": _REFS,
    "fromTier": _enum(TIERS),
    "mac": _string(g.HEX64),
    "memoryId": _string(g.UUID),
    "outcomeReceipt": _string(g.OUTCOME),
    "prev": _string(g.HEX64),
    "reason": _string(g.REASON),
    "receiptId": _string(g.UUID),
    "runId": _string(g.UUID),
    "schema": '"(' + re.escape(SCHEMA) + ')"',
    "seq": _INT,
    "sourcePresent": _BOOL,
    "sourceVersion": _string(g.VERSION),
    "status": _enum(STATUSES),
    "toTier": _enum(TIERS),
    "userScope": _string(g.SCOPE),
    "version": _INT,
    "waitUntilUtc": _string(g.TIME),
}
assert set(_VALUES) == set(FIELDS), "the fast path must know every field"


def _line_pattern() -> str:
    parts = []
    for index, name in enumerate(SORTED):
        member = f'"{name}":{_VALUES[name]}'
        comma = "" if index <= 1 else ","  # SORTED[0]'s own comma follows it, when present
        if FIELDS[name].required:
            parts.append(comma + member)
        elif index == 0:  # before the first required field (atUtc): its comma follows it
            parts.append(f"(?:{member},)?")
        else:
            parts.append(f"(?:{comma}{member})?")
    assert FIELDS[SORTED[1]].required and not FIELDS[SORTED[0]].required
    return r"\{" + "".join(parts) + r"\}"


_LINE = re.compile(_line_pattern()).fullmatch
assert re.compile(_line_pattern()).groups == len(SORTED)

_at = SORTED.index
_MAC_GROUP = _at("mac") + 1
_MAC_LEAD = len(',"mac":"')


def _only_for(name: str) -> frozenset[str]:
    allowed = FIELDS[name].only_for
    assert allowed is not None
    return allowed


assert _only_for("dependsOnVersion") | _only_for("outcomeReceipt") == {"generate"}
_REASON_FOR = _only_for("reason")
assert {name for name in SORTED if FIELDS[name].only_for is not None} == {
    "dependsOnVersion",
    "outcomeReceipt",
    "reason",
}, "a new boundary-bound field needs its check in parse_canonical()"


_DAYS: dict[str, bool] = {}  # day -> a real calendar day? Days repeat: one calendar check per day
_DAYS_MAX = 4096


def _real_day(day: str) -> bool:
    known = _DAYS.get(day)
    if known is None:
        known = g.is_real_day(day)
        if len(_DAYS) < _DAYS_MAX:
            _DAYS[day] = known
    return known


def _refs(inner: str) -> list[str] | None:
    """The items of a matched list (no item holds a quote or a comma); None beyond MAX_REFS."""
    if not inner:
        return []
    items = inner[1:-1].split('","')
    return items if len(items) <= MAX_REFS else None


# parse_canonical unpacks the groups by name, in this order (that of Facts and of a canonical line)
assert SORTED == (
    "assistantScope", "atUtc", "boundary", "chainId", "degraded", "dependsOnVersion", "derivedFrom",
    "fromTier", "mac", "memoryId", "outcomeReceipt", "prev", "reason", "receiptId", "runId", "schema",
    "seq", "sourcePresent", "sourceVersion", "status", "toTier", "userScope", "version", "waitUntilUtc",
)  # fmt: skip
_BOOLS = {None: None, "true": True, "false": False}
_VERSION_MAX = g.VERSION_MAX


def parse_canonical_regex(raw: bytes) -> Parsed | None:
    """The receipt of a canonical, valid line; None for anything the reference path must judge.
    Once per line: the groups are unpacked once, and only the few that need it are converted."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    match = _LINE(text)
    if match is None:
        return None
    (
        assistant, at, boundary, chain, degraded, depends, derived, from_tier, mac, memory, outcome,
        prev, reason, rid, run, schema, seq, present, source_version, status, to_tier, user, version,
        wait,
    ) = match.groups()  # fmt: skip
    # The rules the pattern cannot say — which boundary carries which field, the wait window, a real
    # calendar day, the length of a version — in one test.
    if (
        ((depends is not None or outcome is not None) and boundary != "generate")
        or (reason is not None and boundary not in _REASON_FOR)
        or (wait is not None and boundary != "store" and status != "waiting")
        or not (_DAYS.get(at[:10]) or _real_day(at[:10]))  # the cache's answer, else the calendar's
        or (wait is not None and not (_DAYS.get(wait[:10]) or _real_day(wait[:10])))
        or len(source_version) > _VERSION_MAX
    ):
        return None
    depends_on = None if depends is None else _refs(depends)
    derived_from = None if derived is None else _refs(derived)
    if (depends_on is None and depends is not None) or (derived_from is None and derived is not None):
        return None  # more refs than MAX_REFS
    if mac is None:
        canonical = raw
    else:  # never the first member: atUtc always precedes it (an ASCII line: bytes are characters)
        start, end = match.span(_MAC_GROUP)
        canonical = raw[: start - _MAC_LEAD] + raw[end + 1 :]
    facts = _new_facts(
        Facts,
        (
            assistant, at, boundary, chain, _BOOLS[degraded], depends_on, derived_from, from_tier,
            mac, memory, outcome, prev, reason, rid, run, schema, int(seq), _BOOLS[present],
            source_version, status, to_tier, user, None if version is None else int(version), wait,
        ),
    )  # fmt: skip
    return _new_parsed(Parsed, (facts, canonical, None))


# The fast path in use: msgspec's typed decode (auditor.fastdecode) when msgspec is installed (the
# `fast` extra), about a fifth fewer instructions per line than the regular expression; else the
# regular expression. Both only ever agree with the reference path (tests/auditor/test_fastline.py).
try:
    from auditor.fastdecode import parse_canonical
except ImportError:  # pragma: no cover - msgspec not installed
    parse_canonical = parse_canonical_regex
