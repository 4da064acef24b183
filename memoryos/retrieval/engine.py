"""Recall, context and topics of one scope, over the search port of its store (DESIGN §6, §9).

A query becomes words (memoryos.retrieval.terms), the scope's own statistics turn its most
informative words into BM25 weights (memoryos.retrieval.ranking), the store ranks and filters,
the reply to each matching question among the best hits joins them (memoryos.retrieval.replies),
and every unit handed out is receipted as retrieved. Nothing here reads another scope's units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryos.model import Context, Excluded, Hit, Recall, Topic
from memoryos.promotion import segment_heat
from memoryos.receipting import Drafts
from memoryos.retrieval import ranking, replies
from memoryos.retrieval.terms import query_words
from memoryos.scope import ScopeKey
from memoryos.settings import Config
from memoryos.store.base import SearchPlan, Store
from memoryos.store.rows import Unit
from receipts import uuid7

MAX_EVIDENCE = 5  # the turns a hit names as its evidence, most relevant to the query first
EXPLAIN_LIMIT = 200
NAMED_KEYS_LIMIT = 10_000
RELATED_LIMIT = 20  # guiding records a context block reads at most, before the budget chooses
#: What an agent must see before it declares a task impossible, or does what it was told not to.
GUIDING_KINDS = frozenset({"capability", "rule", "procedure"})


class Retriever:
    """Recall, context and topics for the scopes of one store."""

    def __init__(self, store: Store, config: Config, drafts: Drafts) -> None:
        self.store = store
        self.config = config
        self.drafts = drafts

    def plan(self, sk: ScopeKey, query: str) -> SearchPlan | None:
        words = query_words(query)
        terms = [t for word in words for t in word]
        if not terms:
            return None
        return ranking.plan(words, self.store.scope_stats(sk.user, sk.assistant, terms))

    def recall(self, sk: ScopeKey, query: str, k: int, moment: int, now: int, *, explain: bool) -> Recall:
        plan = self.plan(sk, query)
        found = [] if plan is None else self.store.search(plan, sk.user, sk.assistant, moment, _fetch(k))
        answered = replies.replies(self.store, sk.user, sk.assistant, found[:k], moment)
        units, scores = replies.with_replies([h.unit for h in found], [h.score for h in found], answered)
        chosen = self.spend(sk, plan, units, scores, k)
        run_id = self.retrieved(sk, [unit for unit, _ in chosen], now)
        hits = [_hit(unit, candidate) for unit, candidate in chosen]
        excluded = (
            [] if not explain or plan is None else self.explain(sk, plan, moment, {h.ref for h in hits})
        )
        return Recall(run_id, hits, excluded)

    def spend(
        self, sk: ScopeKey, plan: SearchPlan | None, units: Sequence[Unit], scores: Sequence[float], k: int
    ) -> list[tuple[Unit, ranking.Candidate]]:
        """Rank fairly and spend k hits on distinct evidence (README "Recall").

        A unit built from several turns (a distilled record) stands for the turns of it that match
        the query, best first, and scores as its best such turn: it cannot outrank real evidence by
        pooling words of unrelated turns. A hit whose turns the better hits already cover goes after
        every hit that brings new evidence."""
        if plan is None:
            return []
        derived = [u for u in units if len(u.source_ids) > 1]
        turn_scores = self.turn_scores(sk, plan, derived)
        candidates = []
        for unit, score in zip(units, scores, strict=True):
            if len(unit.source_ids) > 1:
                turns = ranking.evidence(unit.source_ids, turn_scores, MAX_EVIDENCE)
                best = max((turn_scores.get(t, 0.0) for t in turns), default=0.0)
                candidates.append(ranking.Candidate(unit.ref, min(score, best) if best > 0 else score, turns))
            else:
                candidates.append(ranking.Candidate(unit.ref, score, unit.source_ids or (unit.memory_id,)))
        by_ref = {u.ref: u for u in units}
        return [(by_ref[c.ref], c) for c in ranking.spend(candidates, k)]

    def turn_scores(self, sk: ScopeKey, plan: SearchPlan, derived: Sequence[Unit]) -> dict[str, float]:
        """BM25 of each source turn's own text under the query's plan (turns of derived units only)."""
        turns = sorted({t for u in derived for t in u.source_ids})
        if not turns:
            return {}
        postings = self.store.turn_postings(list(plan.weights), sk.user, sk.assistant, turns)
        return {t: ranking.score(plan, p.frequencies, p.length) for t, p in postings.items()}

    def explain(self, sk: ScopeKey, plan: SearchPlan, moment: int, returned: set[str]) -> list[Excluded]:
        """Why this scope's other matches were left out; other scopes' units are never looked at."""
        excluded = []
        for unit in self.store.matches(list(plan.weights), sk.user, sk.assistant, EXPLAIN_LIMIT):
            why = None if unit.ref in returned else exclusion(unit, moment)
            if why is not None:
                excluded.append(Excluded(unit.memory_id, unit.version, why))
        return excluded

    def retrieved(self, sk: ScopeKey, units: Sequence[Unit], now: int) -> str:
        """One retrieve run: receipts for every unit handed out, and visits for their segments."""
        run_id = uuid7()
        with self.store.write("retrieve", durable=False) as tx:
            tx.visit_segments(sorted({u.segment_id for u in units if u.segment_id}), now)
            for unit in units:
                tx.emit(self.drafts.about(run_id, "retrieve", unit, fromTier=unit.tier))
            if not units:
                tx.emit(self.drafts.base(run_id, "retrieve", "committed", sk.user, sk.assistant))
        return run_id

    # -- context -------------------------------------------------------------------------------
    def context(self, sk: ScopeKey, query: str, budget: int, k: int, now: int) -> Context:
        """Drawer records whose key the query names; then the capability, rule and procedure
        records relevant to the query (what the agent can do here and must not do: "check memory
        before declaring a task impossible"); then the best recalled units (each with the page it
        continues, when both fit); whole items only, within `budget` tokens."""
        with self.store.read() as tx:
            keys = tx.drawer_keys(sk.user, sk.assistant, NAMED_KEYS_LIMIT)
            named_keys = [key for key in keys if key.lower() in query.lower()]
            named = [valid_at(tx.key_versions(sk.user, sk.assistant, key), now) for key in named_keys]
            related = [
                valid_at(tx.key_versions(sk.user, sk.assistant, key), now)
                for key in related_keys(query, [key for key in keys if key not in named_keys])
            ]
        plan = self.plan(sk, query)
        found = [] if plan is None else self.store.search(plan, sk.user, sk.assistant, now, _fetch(k))
        units = [h.unit for h in found]
        guiding = [u for u in related if u is not None and u.kind in GUIDING_KINDS]
        guiding += [u for u in units if u.tier == "lpm" and u.kind in GUIDING_KINDS and u.key]
        pairs: list[tuple[Unit | None, Unit]] = [
            (None, u) for u in [*named, *guiding] if u is not None and u.status != "retired"
        ]
        pairs += self.threads(sk, units[:k], now)
        chosen = _fit(pairs, budget)
        run_id = self.retrieved(sk, chosen, now)
        lines = [context_line(u) for u in chosen]
        return Context(run_id, "\n".join(lines), [u.ref for u in chosen], sum(tokens(x) for x in lines))

    def threads(self, sk: ScopeKey, recalled: list[Unit], now: int) -> list[tuple[Unit | None, Unit]]:
        """Continuity: each recalled unit with the page it continues (its page note says which),
        so that an answer out of the middle of a conversation can come with its question."""
        with self.store.read() as tx:
            notes = tx.notes_of([u.memory_id for u in recalled if u.tier == "mtm"])
            earlier = {n.follows for n in notes.values() if n.follows is not None}
            before = {
                u.memory_id: u
                for u in tx.units_by_ids(sorted(earlier))
                if (u.user_scope, u.assistant_scope) == (sk.user, sk.assistant) and valid_at([u], now)
            }
        pairs: list[tuple[Unit | None, Unit]] = []
        for unit in recalled:
            note = notes.get(unit.memory_id)
            pairs.append((before.get(note.follows) if note and note.follows else None, unit))
        return pairs

    # -- topics --------------------------------------------------------------------------------
    def topics(self, sk: ScopeKey, limit: int, now: int) -> list[Topic]:
        """This scope's MTM segments, hottest first, with the summaries maintain() wrote."""
        with self.store.read() as tx:
            segments = tx.segments(sk.user, sk.assistant)
            heats = {s.segment_id: segment_heat(self.config, s, now) for s in segments}
            hottest = sorted(segments, key=lambda s: (-heats[s.segment_id], s.segment_id))[:limit]
            pages = {s.segment_id: tx.page_count(s.segment_id) for s in hottest}
        return [
            Topic(
                s.segment_id,
                s.summary,
                list(s.keywords)[:8],
                pages[s.segment_id],
                round(heats[s.segment_id], 3),
                s.summary_stale,
                s.summary_degraded,
            )
            for s in hottest
        ]


def _key_terms(text: str) -> set[str]:
    return {term for variants in query_words(re.sub(r"[:_./-]+", " ", text)) for term in variants}


def related_keys(query: str, keys: Sequence[str], limit: int = RELATED_LIMIT) -> list[str]:
    """Keys that share a meaningful word with the query ("deploy it" and `deploy:blyck`), most
    shared words first, then in key order; at most `limit`."""
    wanted = _key_terms(query)
    if not wanted:
        return []
    shared = [(len(_key_terms(key) & wanted), key) for key in keys]
    return [key for count, key in sorted(shared, key=lambda s: (-s[0], s[1])) if count][:limit]


def _fit(pairs: Sequence[tuple[Unit | None, Unit]], budget: int) -> list[Unit]:
    """Whole items in order while they fit; the page an item continues goes just before it, and
    only when both fit."""
    chosen: list[Unit] = []
    used = 0
    for earlier, unit in pairs:
        taken = {c.ref for c in chosen}
        size = tokens(context_line(unit))
        if unit.ref in taken or used + size > budget:
            continue
        if earlier is not None and earlier.ref not in taken:
            before = tokens(context_line(earlier))
            if used + before + size <= budget:
                chosen.append(earlier)
                used += before
        chosen.append(unit)
        used += size
    return chosen


def exclusion(unit: Unit, moment: int) -> str | None:
    """Why a unit of the caller's own scope that matched was not returned at `moment`, if it was not."""
    if unit.status == "retired":
        return "retired"
    if unit.status == "superseded" and unit.valid_until is not None and unit.valid_until <= moment:
        return "superseded"
    if unit.valid_from > moment:
        return "not_yet_valid"
    if unit.valid_until is not None and unit.valid_until <= moment:
        return "expired"
    return None


def valid_at(versions: Sequence[Unit], moment: int) -> Unit | None:
    valid = [
        u for u in versions if u.valid_from <= moment and (u.valid_until is None or moment < u.valid_until)
    ]
    return valid[-1] if valid else None


def context_line(unit: Unit) -> str:
    return f"[{unit.key}] {unit.body}" if unit.key else f"- {unit.body}"


def tokens(line: str) -> int:
    return -(-len(line) // 4)  # about 4 characters a token, rounded up


def _fetch(k: int) -> int:
    """How many ranked units to read for k hits: room for the ones spend() puts last."""
    return 2 * k + 8


def _hit(unit: Unit, candidate: ranking.Candidate) -> Hit:
    return Hit(
        unit.memory_id,
        unit.version,
        unit.ref,
        unit.tier,
        unit.body,
        candidate.score,
        unit.key,
        unit.kind,
        candidate.turns,
    )
