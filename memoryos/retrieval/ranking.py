"""BM25 over one scope's own statistics, and the choice of a long query's terms (pure).

Every number here comes from the caller's scope: its document count, its average document length
and each term's document frequency among its documents. Nothing another scope writes can move a
score, an order or a choice of terms. A backend only aggregates `weight * saturation(tf, length)`
per document (SQL can: see memoryos/store/search_sqlite.py); the weights are computed here once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memoryos.store.base import ScopeStats, SearchPlan

K1 = 1.2
B = 0.75
MAX_QUERY_WORDS = 32
# A derived unit names a turn as evidence only if it matches at least this share of its best turn's
# score: a weak match would take a turn slot from better evidence.
EVIDENCE_SHARE = 0.5


def idf(documents: int, frequency: int) -> float:
    """Okapi BM25's idf, kept positive (Lucene's form): a term in every document still counts a little."""
    return math.log(1.0 + (documents - frequency + 0.5) / (frequency + 0.5))


def informative(
    words: Sequence[tuple[str, ...]], frequencies: Mapping[str, int], limit: int = MAX_QUERY_WORDS
) -> list[tuple[str, ...]]:
    """The `limit` query words this scope knows that are rarest in it (the most informative), in
    query order. A word's frequency is that of its commonest indexed form; unknown words add nothing."""
    known = [w for w in words if any(frequencies.get(t, 0) for t in w)]
    rarity = {w: max(frequencies.get(t, 0) for t in w) for w in known}
    order = {w: i for i, w in enumerate(known)}
    kept = set(sorted(known, key=lambda w: (rarity[w], order[w]))[:limit])
    return [w for w in known if w in kept]


def plan(words: Sequence[tuple[str, ...]], stats: ScopeStats) -> SearchPlan | None:
    """The weights of the query's chosen terms in this scope; None when no term occurs in it."""
    chosen = informative(words, stats.frequencies)
    weights = {
        term: idf(stats.documents, stats.frequencies[term])
        for word in chosen
        for term in word
        if stats.frequencies.get(term, 0)
    }
    return SearchPlan(weights, stats.average_length, K1, B) if weights else None


def score(plan: SearchPlan, frequencies: Mapping[str, int], length: int) -> float:
    """The BM25 score of one document given its term frequencies (the same sum the SQL computes)."""
    norm = plan.k1 * (1.0 - plan.b + plan.b * length / plan.average_length)
    return sum(
        weight * frequencies[term] * (plan.k1 + 1.0) / (frequencies[term] + norm)
        for term, weight in plan.weights.items()
        if frequencies.get(term)
    )


def evidence(
    sources: Sequence[str], scores: Mapping[str, float], limit: int, share: float = EVIDENCE_SHARE
) -> tuple[str, ...]:
    """A derived unit's evidence: its source turns that match the query about as well as its best
    one (at least `share` of that score), best first (ties keep the stored order), at most `limit`;
    its first source alone when none matches (a model's summary in other words)."""
    order = {turn: i for i, turn in enumerate(sources)}
    best = max((scores.get(t, 0.0) for t in sources), default=0.0)
    if best <= 0:
        return tuple(sources[:1])
    strong = [t for t in sources if scores.get(t, 0.0) >= max(share * best, 1e-12)]
    return tuple(sorted(strong, key=lambda t: (-scores[t], order[t]))[:limit])


@dataclass(frozen=True)
class Candidate:
    """A ranked unit before the budget is spent: its BM25 score and the turns it stands for."""

    ref: str
    score: float
    turns: tuple[str, ...]


def spend(candidates: Sequence[Candidate], k: int) -> list[Candidate]:
    """The k candidates to hand out, best first (ties keep the store's order: the newer first).
    One whose turns the better ones already cover brings no new evidence: it goes after all that
    do, so it fills a slot only when nothing new is left."""
    order = sorted(range(len(candidates)), key=lambda i: (-candidates[i].score, i))
    covered: set[str] = set()
    fresh: list[Candidate] = []
    repeats: list[Candidate] = []
    for i in order:
        candidate = candidates[i]
        (repeats if covered.issuperset(candidate.turns) else fresh).append(candidate)
        covered.update(candidate.turns)
    return [*fresh, *repeats][:k]
