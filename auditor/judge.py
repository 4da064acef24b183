"""Pure rule functions over the compact state the engine keeps; each returns findings.

They never see a whole stream: the engine hands them one run's or one unit's evidence when that
run or unit is decided, so they are cheap to test on their own (tests/auditor/test_judge.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from auditor.states import Finding, finding
from receipts import format_utc, parse_utc

__all__ = [
    "Promotions",
    "Times",
    "generation_findings",
    "intent_deadline",
    "open_intents",
    "promotion_findings",
    "stale_against",
]

Scope = tuple[str | None, str | None]


@dataclass(frozen=True)
class Times:
    """The audit's clock, as receipt-format strings (RFC 3339 UTC sorts as it reads)."""

    now: str
    grace_cut: str  # a started promotion older than this is past its grace period
    expiry_cut: str | None  # evidence older than this has expired (None: no maximum age)


@dataclass
class Promotions:
    """One run's promotion receipts, reduced to what the source and intent rules need."""

    released: dict[str, str] = field(default_factory=dict)  # source key -> releasing receiptId
    covered: set[str] = field(default_factory=set)  # source keys with a committed destination
    opened: list[tuple[str | None, str, str | None, str, bool | None]] = field(default_factory=list)
    terminal: set[str | None] = field(default_factory=set)  # destinations with a terminal status


def promotion_findings(promo: Promotions, times: Times) -> list[Finding]:
    found: list[Finding] = []
    at_risk = [(key, rid) for key, rid in promo.released.items() if key not in promo.covered]
    if at_risk:
        keys = ", ".join(key for key, _ in at_risk[:3]) + (" ..." if len(at_risk) > 3 else "")
        found.append(
            finding(
                "source.released",
                (rid for _, rid in at_risk),
                f"{len(at_risk)} source(s) released with no committed destination: {keys}",
            )
        )
    for memory_id, at, wait_until, rid, _ in open_intents(promo):
        overdue = wait_until < times.now if wait_until is not None else at < times.grace_cut
        if overdue:
            found.append(
                finding(
                    "promotion.unterminated", (rid,), f"promotion of {memory_id} started {at}, never ended"
                )
            )
        else:
            rule = "waiting.grace" if wait_until is None else "waiting.window"
            found.append(finding(rule, (rid,), f"promotion of {memory_id} started {at}, still in its window"))
    return found


def open_intents(promo: Promotions) -> list[tuple[str | None, str, str | None, str, bool | None]]:
    """The started or waiting steps with no terminal status: the clock decides what they mean.
    (Skipped: terminated ones, and released ones, for which source.released already speaks.)"""
    return [
        opened
        for opened in promo.opened
        if not (opened[0] in promo.terminal or (opened[0] is None and promo.terminal) or opened[4] is False)
    ]


def intent_deadline(
    intents: Iterable[tuple[str | None, str, str | None, str, bool | None]], times: Times
) -> str | None:
    """When the earliest of these open intents turns from waiting into missing (None: none will)."""
    intents = list(intents)
    if not intents:
        return None
    grace = parse_utc(times.now) - parse_utc(times.grace_cut)
    due = []
    for _, at, wait_until, _, _ in intents:
        limit = wait_until if wait_until is not None else format_utc(parse_utc(at) + grace)
        if limit >= times.now:
            due.append(limit)
    return min(due, default=None)


def generation_findings(
    generates: Iterable[tuple[str, list[str] | None]], retrieved: set[str] | None
) -> list[Finding]:
    found: list[Finding] = []
    for rid, depends_on in generates:
        if not depends_on:
            found.append(finding("generation.undeclared", (rid,), "generation declares no dependsOnVersion"))
            continue
        missing = [ref for ref in depends_on if retrieved is None or ref not in retrieved]
        if missing:
            more = f" (+{len(missing) - 1} more)" if len(missing) > 1 else ""
            found.append(
                finding(
                    "generation.unretrieved",
                    (rid,),
                    f"depends on {missing[0]}{more}, never retrieved in the run",
                )
            )
    return found


def stale_against(newer: Mapping[int, str] | None, version: int, at: str) -> tuple[int, str] | None:
    """The newer committed version (and when) that makes a retrieval of `version` at `at` stale."""
    if not newer:
        return None
    for later, committed_at in newer.items():
        if later > version and committed_at < at:
            return later, committed_at
    return None


def scope_suspects(
    creator: Scope | None, suspects: Iterable[tuple[Scope, str, str]]
) -> list[tuple[str, str, Scope]]:
    """(run, receiptId, scope) of the receipts that disagree with the unit's scope.

    With a known creator the creator's scope is the unit's; without one (created before the
    evidence window) receipts can only disagree with each other, so all of them are named.
    """
    items = list(suspects)
    if creator is not None:
        return [(run, rid, scope) for scope, run, rid in items if scope != creator]
    if len({scope for scope, _, _ in items}) > 1:
        return [(run, rid, scope) for scope, run, rid in items]
    return []
