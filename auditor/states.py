"""The eight health states, their precedence (DESIGN §5) and the named rules, as data.

A finding names one rule; the rule decides the state. A run's verdict is the highest-precedence
state among its findings, `healthy` when it has none; the overall verdict is the highest over runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["HEALTHY", "RULES", "STATES", "Finding", "Rule", "finding", "rank", "verdict", "worst"]

# Highest precedence first: a later success never hides an earlier conflict.
STATES: tuple[str, ...] = (
    "scope_conflict",
    "source_at_risk",
    "promotion_missing",
    "stale_retrieval",
    "generation_unverified",
    "uncertain",
    "waiting",
    "healthy",
)
HEALTHY = "healthy"
_RANK: Mapping[str, int] = {state: index for index, state in enumerate(STATES)}


@dataclass(frozen=True)
class Rule:
    state: str
    meaning: str


RULES: Mapping[str, Rule] = {
    "scope.run": Rule("scope_conflict", "receipts of one run carry different scopes"),
    "scope.lineage": Rule("scope_conflict", "a receipt about a unit carries another scope than the unit"),
    "source.released": Rule(
        "source_at_risk", "a promotion released a source without a committed destination"
    ),
    "promotion.unterminated": Rule(
        "promotion_missing", "a started promotion has no terminal status past its grace period"
    ),
    "promotion.overdue": Rule("promotion_missing", "a unit is retained past its declared wait window"),
    "retrieval.stale": Rule("stale_retrieval", "a retrieval returned a version older than a committed one"),
    "generation.undeclared": Rule("generation_unverified", "a generation declares no dependsOnVersion"),
    "generation.unretrieved": Rule(
        "generation_unverified", "a generation depends on a version its run never retrieved"
    ),
    "evidence.unreadable": Rule("uncertain", "a line or source that cannot be read as a receipt"),
    "evidence.invalid": Rule("uncertain", "a receipt that breaks the memoryos.receipt/1 schema"),
    "evidence.duplicate": Rule("uncertain", "two different receipts claim one place in a chain"),
    "evidence.gap": Rule("uncertain", "a seq gap in a chain"),
    "evidence.chain": Rule("uncertain", "a receipt whose prev does not link to its predecessor"),
    "evidence.mac": Rule("uncertain", "a receipt whose MAC is missing or wrong under the given key"),
    "evidence.expired": Rule("uncertain", "evidence older than the maximum age"),
    "evidence.no_window": Rule("uncertain", "a store into STM that declares no waitUntilUtc"),
    "evidence.none": Rule("uncertain", "no receipts at all: nothing is proven"),
    "evidence.truncated": Rule("uncertain", "receipts the store's head mark vouches for are missing"),
    "evidence.head_mismatch": Rule("uncertain", "the receipt at the head mark's seq is another one"),
    "evidence.head_invalid": Rule("uncertain", "the store's head mark is damaged or its MAC is wrong"),
    "waiting.window": Rule("waiting", "a unit inside its declared wait window"),
    "waiting.grace": Rule("waiting", "a started promotion still inside its grace period"),
}
assert all(rule.state in _RANK for rule in RULES.values())

_MAX_IDS = 8  # a finding names a few receipts, not thousands; the count is in the reason


@dataclass(frozen=True)
class Finding:
    """One broken expectation: the rule, the state it implies, the receipts involved, and why."""

    rule: str
    state: str
    receipt_ids: tuple[str, ...]
    reason: str


def finding(rule: str, receipt_ids: Iterable[str | None], reason: str) -> Finding:
    ids = tuple(dict.fromkeys(rid for rid in receipt_ids if rid))[:_MAX_IDS]
    return Finding(rule, RULES[rule].state, ids, reason)


def rank(state: str) -> int:
    """0 for the highest-precedence state; `healthy` ranks last."""
    return _RANK[state]


def worst(states: Iterable[str]) -> str:
    return min(states, key=_RANK.__getitem__, default=HEALTHY)


def verdict(findings: Iterable[Finding]) -> str:
    return worst(f.state for f in findings)
