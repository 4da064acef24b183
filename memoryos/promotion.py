"""STM -> MTM (FIFO, one transaction) and MTM -> LPM (heat, intent + out-of-transaction distillation).

Each promotion is one commit that inserts the destination, releases the source and writes the
receipts. An STM turn's page is its own row rewritten in place (new memory id, tier, segment and
lineage; same body, key and kind, hence the same search postings), so a move costs the search
index nothing; see Promoter._move for the one case where the page is inserted anew.
Distillation may be slow (a model, later), so it runs between a committed `started` intent and
that commit; recovery reconciles an intent left open by its run id and segment version.

The work of one promotion is bounded whatever the size of the conversation (issue 12): placement
reads only the scope's open segments (a full one takes no more pages), and a distillation reads
only the next batch of pages its segment has not distilled yet, and lists exactly those.
"""

from __future__ import annotations

import bisect
import operator
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from memoryos.extraction.propose import propose_actions
from memoryos.extraction.write import TypedWriter, distilled_unit, write_all
from memoryos.failpoints import failpoint
from memoryos.logs import get_logger
from memoryos.policies import segments as segment_policy
from memoryos.policies.distill import Distilled, PageView, Summarizer, content_hash, undistilled_after
from memoryos.policies.heat import HeatParams, heat
from memoryos.policies.lpm import Reconcile, RecordView, evict_from_list
from memoryos.policies.text import keywords, top_keywords
from memoryos.receipting import Drafts
from memoryos.settings import Config
from memoryos.store.base import Store, Transaction
from memoryos.store.rows import Intent, Segment, SegmentHead, Unit
from memoryos.telemetry import Telemetry, spanned
from receipts import uuid7

log = get_logger()
OWNER = f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class StmOutcome:
    promoted: int
    segments: tuple[str, ...]
    evicted: int


def heat_params(config: Config) -> HeatParams:
    return HeatParams(
        config.heat_alpha, config.heat_beta, config.heat_gamma, config.heat_mu_seconds, config.heat_threshold
    )


def segment_heat(config: Config, segment: Segment, now: int) -> float:
    return heat(
        heat_params(config), segment.visits, segment.interactions, (now - segment.last_visit_at) / 1e6
    )


@dataclass(frozen=True)
class _Known:
    """A segment as placement sees it: its head and its ranked keywords at that version."""

    head: SegmentHead
    keywords: dict[str, int]
    top: frozenset[str]  # the first 32 of the ranked keywords: what similarity reads
    order: list[tuple[int, str]]  # (-count, word), sorted: what _Growing starts from (copied)


class _KeywordCache:
    """Ranked keywords of segments by id and version. A segment's keywords change only with its
    version, so an entry is right while the version it was read at is current; a promotion then
    parses only the segments that changed since the last one (bounded: cleared when full)."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.entries: dict[str, _Known] = {}

    def known(self, tx: Transaction, heads: Sequence[SegmentHead]) -> list[_Known]:
        found = []
        for head in heads:
            entry = self.entries.get(head.segment_id)
            if entry is None or entry.head.version != head.version:
                entry = self.remember(head, tx.segment_keywords(head.segment_id))
            found.append(entry)
        return found

    def remember(self, head: SegmentHead, ranked_keywords: dict[str, int]) -> _Known:
        if len(self.entries) >= self.limit:
            self.entries.clear()
        entry = _known(head, ranked_keywords)
        self.entries[head.segment_id] = entry
        return entry

    def grown(self, grown: Grown) -> None:
        """A segment this promotion grew, at its new version, with the order its keywords ended in:
        the next promotion starts from it instead of sorting the segment's keywords again."""
        if len(self.entries) >= self.limit:
            self.entries.clear()
        top = frozenset(map(_WORD_OF, grown.order[:32]))  # = the ranked dict's first 32 keys
        self.entries[grown.head.segment_id] = _Known(grown.new_head, grown.keywords, top, grown.order)

    def forget(self, segment_id: str) -> None:
        self.entries.pop(segment_id, None)


def _known(head: SegmentHead, ranked_keywords: dict[str, int]) -> _Known:
    # stored keywords are ranked already; sorting keeps this right for any dict (a cheap check)
    order = sorted(zip(map(operator.neg, ranked_keywords.values()), ranked_keywords, strict=True))
    return _Known(head, ranked_keywords, frozenset(list(ranked_keywords)[:32]), order)


@dataclass(frozen=True)
class Grown:
    """What a promotion does to one segment: its re-ranked keywords and how many pages joined."""

    head: SegmentHead  # as it was before the promotion
    keywords: dict[str, int]
    joined: int
    order: list[tuple[int, str]]  # the keywords as (-count, word), sorted (_Growing.order)

    @property
    def new_head(self) -> SegmentHead:
        head = self.head
        return SegmentHead(head.segment_id, head.version + self.joined, head.created_at, self.pages)

    @property
    def pages(self) -> int:
        return (self.head.pages or 0) + self.joined


class _Growing:
    """A segment's keywords while one promotion's pages join it: the counts of its strongest 64
    and their ranked order, kept as a sorted list of (-count, word) (count descending, ties
    alphabetical: `ranked(counts)`'s order). A join moves only the words the page has, by
    bisection, where re-sorting every count per page was most of placement's cost; finished()
    builds the ranked dict once per segment."""

    __slots__ = ("counts", "order")

    def __init__(self, known: _Known) -> None:
        self.counts = dict(known.keywords)
        self.order = list(known.order)  # a copy: the cached one stays as it was read

    def join(self, words: Mapping[str, int]) -> None:
        """Add a page's keyword counts and keep the strongest 64, as ranked() would."""
        counts, order = self.counts, self.order
        # A new word ranked below the 64th at the start is cut at the end: the words above it now
        # only move up. Most of a page's new words are such words; they are never filed.
        floor = order[KEPT - 1] if len(order) >= KEPT else None
        for word, added in words.items():
            old = counts.get(word)
            if old is None:
                if floor is not None and (-added, word) > floor:
                    continue
                count = added
            else:
                del order[bisect.bisect_left(order, (-old, word))]
                count = old + added
            counts[word] = count
            bisect.insort(order, (-count, word))
        if len(order) > KEPT:
            for _, word in order[KEPT:]:
                del counts[word]
            del order[KEPT:]

    def top(self) -> frozenset[str]:
        """The first 32 ranked words: what the next page's similarity reads."""
        return frozenset(map(_WORD_OF, self.order[:32]))

    def ranked(self) -> dict[str, int]:
        return {word: -negated for negated, word in self.order}


_WORD_OF = operator.itemgetter(1)
KEPT = 64  # keywords a segment keeps (policies.text.ranked's limit); similarity reads the first 32


class _Placer:
    """Places one promotion's pages into segments.

    Similarity reads each segment's 32 strongest keywords, re-ranked as each page joins; a segment
    that pages join is written back only once, when the promotion is finished.
    """

    def __init__(self, known: Sequence[_Known], threshold: float, max_pages: int) -> None:
        self.known = {k.head.segment_id: k for k in known}
        self.threshold = threshold
        self.max_pages = max_pages
        self.views = {sid: _view(sid, k.top, k.head.created_at) for sid, k in self.known.items()}
        self.growing: dict[str, _Growing] = {}
        self.joined: dict[str, int] = {}  # pages per segment joined, in the order first joined

    def place(self, turn: Unit, now: int) -> str:
        """The id of the segment this turn's page joins (a new one if none is similar enough)."""
        words = keywords(turn.body)
        page = words if len(words) <= 32 else top_keywords(words)  # the page's top 32, as for segments
        chosen = segment_policy.choose_segment(page, self.views.values(), self.threshold)
        if chosen is None:
            chosen = uuid7()
            self.known[chosen] = _Known(SegmentHead(chosen, 0, now), {}, frozenset(), [])
            self.views[chosen] = _view(chosen, frozenset(), now)
        growing = self.growing.get(chosen)
        if growing is None:
            self.growing[chosen] = growing = _Growing(self.known[chosen])
        growing.join(words)
        joined = self.joined[chosen] = self.joined.get(chosen, 0) + 1
        if (self.known[chosen].head.pages or 0) + joined >= self.max_pages:
            del self.views[chosen]  # full: the topic goes on in a new segment
        else:  # the next page is compared with the first 32 of the strongest 64
            self.views[chosen] = _view(chosen, growing.top(), self.views[chosen].created_at)
        return chosen

    def finished(self) -> list[Grown]:
        """Every segment pages joined (new ones have version 0), with its re-ranked keywords."""
        growing = self.growing
        return [
            Grown(self.known[sid].head, growing[sid].ranked(), n, growing[sid].order)
            for sid, n in self.joined.items()
        ]


def _view(segment_id: str, keywords: frozenset[str], created_at: int) -> segment_policy.SegmentView:
    return segment_policy.SegmentView(segment_id, keywords, 0.0, created_at)


def _in_place(
    turns: Sequence[Unit], pages: Sequence[Unit], last_pages: dict[str, int]
) -> tuple[list[tuple[int, Unit]], list[tuple[Unit, Unit]]]:
    """Split a promotion's moves: (rowid, page) rewritten in place, (turn, page) deleted and
    inserted. A page keeps its turn's rowid only if that comes after every page its segment holds,
    so each segment's pages stay in rowid order of joining (see Promoter._move)."""
    last = dict(last_pages)
    in_place: list[tuple[int, Unit]] = []
    reinserted: list[tuple[Unit, Unit]] = []
    for turn, page in zip(turns, pages, strict=True):
        segment, rowid = page.segment_id or "", turn.rowid or 0
        if rowid > last.get(segment, 0):
            in_place.append((rowid, page))
            last[segment] = rowid
        else:  # inserted after every row there is: later pages of this segment must follow it
            reinserted.append((turn, page))
            last[segment] = sys.maxsize
    return in_place, reinserted


def _at(turn: Unit, rowid: int) -> Unit:
    """The turn with the rowid it holds now (a turn read from the store has it already)."""
    return turn if turn.rowid == rowid else turn.but(rowid=rowid)


class Promoter:
    def __init__(
        self, store: Store, config: Config, drafts: Drafts, summarizer: Summarizer, telemetry: Telemetry
    ) -> None:
        self.store = store
        self.telemetry = telemetry
        self.config = config
        self.drafts = drafts
        self.summarizer = summarizer
        self._keywords = _KeywordCache()

    # -- STM -> MTM -----------------------------------------------------------------------------
    @spanned("promotion", metric="promotion.duration", boundary="stm_to_mtm")
    def promote_turns(self, turns: Sequence[Unit], now: int) -> StmOutcome:
        """Move these STM turns (one scope, oldest first) into MTM pages in a single transaction."""
        if not turns:
            return StmOutcome(0, (), 0)
        run_id = uuid7()
        user, assistant = turns[0].user_scope, turns[0].assistant_scope
        failpoint("stm_to_mtm.begin")
        with self.store.write("stm_to_mtm") as tx:
            held = tx.stm_rowids(user, assistant, [t.memory_id for t in turns])
            # another process may have moved some; the write lock keeps the rest ours until commit
            turns = [_at(t, held[t.memory_id]) for t in turns if t.memory_id in held]
            failpoint("stm_to_mtm.after_release")
            heads = tx.open_segment_heads(user, assistant, self.config.segment_max_pages)
            placer = _Placer(
                self._keywords.known(tx, heads), self.config.segment_similarity, self.config.segment_max_pages
            )
            pages = [self._page_for(turn, placer.place(turn, now), run_id, now) for turn in turns]
            for turn, page in zip(turns, pages, strict=True):
                tx.emit(self.drafts.promoted(run_id, turn, page))
            grown = placer.finished()
            existing = {g.head.segment_id for g in grown if g.head.version}  # a new one has no pages
            self._move(tx, user, assistant, turns, pages, existing=existing)
            failpoint("stm_to_mtm.after_pages")
            self.write_segments(tx, grown, user, assistant, now)
            evicted = 0
            created = any(g.head.version == 0 for g in grown)
            if created and tx.segment_count(user, assistant) > self.config.mtm_capacity:
                evicted = self._evict_cold_segments(tx, tx.segments(user, assistant), run_id, now)
            failpoint("stm_to_mtm.after_receipts")
        for g in grown:  # only now, committed: the cache never holds a version the store lacks
            if g.pages >= self.config.segment_max_pages:
                self._keywords.forget(g.head.segment_id)  # full: never placed into again
            else:
                self._keywords.grown(g)
        failpoint("stm_to_mtm.after_commit")
        log.info("promoted", boundary="stm_to_mtm", run_id=run_id, turns=len(turns), evicted=evicted)
        self.telemetry.annotate(run_id=run_id, count=len(turns), status="committed")
        self.telemetry.count("promotions", len(turns), boundary="stm_to_mtm", status="committed")
        self.telemetry.count("evictions", evicted, tier="mtm")
        return StmOutcome(len(turns), tuple(g.head.segment_id for g in grown), evicted)

    @staticmethod
    def _move(
        tx: Transaction,
        user: str,
        assistant: str,
        turns: Sequence[Unit],
        pages: Sequence[Unit],
        *,
        existing: set[str],
    ) -> None:
        """Each turn's row becomes its page in place (no index work: same words, same scope), unless
        that would put the page before a page its segment already holds: distillation reads a
        segment's pages by rowid, so such a turn is deleted and its page inserted anew (at the end).
        Only the `existing` segments (not those this promotion creates) can hold pages already."""
        in_place, reinserted = _in_place(turns, pages, tx.last_pages(sorted(existing)))
        if reinserted:
            tx.release_stm(user, assistant, [turn.memory_id for turn, _ in reinserted])
            tx.insert_units([page for _, page in reinserted])
        tx.turn_into_pages(in_place)

    @staticmethod
    def write_segments(tx: Transaction, grown: Sequence[Grown], user: str, assistant: str, now: int) -> None:
        """Existing segments grow in place (keywords, interactions, version); new ones are inserted.
        Their summaries are left stale for maintain() to refresh (Segment.summary_stale)."""
        for g in grown:
            if g.head.version == 0:
                tx.put_segment(
                    Segment(
                        g.head.segment_id,
                        user,
                        assistant,
                        g.keywords,
                        "",
                        0,
                        g.joined,
                        now,
                        now,
                        g.joined,
                        pages=g.joined,
                    )
                )
        tx.grow_segments([(g.head.segment_id, g.keywords, g.joined) for g in grown if g.head.version])

    def _page_for(self, turn: Unit, segment_id: str, run_id: str, now: int) -> Unit:
        return turn.but(
            memory_id=uuid7(),
            version=1,
            tier="mtm",
            segment_id=segment_id,
            source_ids=(turn.memory_id,),
            derived_from=(turn.ref,),
            run_id=run_id,
            rowid=None,
            last_seen=now,
        )

    def _evict_cold_segments(self, tx: Transaction, segments: list[Segment], run_id: str, now: int) -> int:
        if len(segments) <= self.config.mtm_capacity:
            return 0
        views = [
            segment_policy.SegmentView(s.segment_id, (), segment_heat(self.config, s, now), s.created_at)
            for s in segments
        ]
        evicted = 0
        for segment_id in segment_policy.coldest(views, self.config.mtm_capacity):
            pages = tx.pages(segment_id)
            tx.delete_units([p.rowid for p in pages if p.rowid is not None])
            tx.delete_segment(segment_id)
            for page in pages:
                tx.emit(self.drafts.removal(run_id, "evict", page, "capacity"))
            evicted += len(pages)
            failpoint("mtm_evict.after_delete")
        return evicted

    # -- MTM -> LPM -----------------------------------------------------------------------------
    def hot_segments(self, now: int, only: Sequence[str] | None = None) -> list[Segment]:
        config = self.config
        with self.store.read() as tx:
            if only is not None:
                candidates = [tx.segment(s) for s in only]
            else:  # recency adds at most γ: segments below τ − γ by visits and pages cannot be hot
                floor = config.heat_threshold - config.heat_gamma
                candidates = list(tx.segments_heated(config.heat_alpha, config.heat_beta, floor))
        threshold = config.heat_threshold
        return [s for s in candidates if s is not None and segment_heat(config, s, now) >= threshold]

    @spanned("promotion", metric="promotion.duration", boundary="mtm_to_lpm")
    def distill(self, segment: Segment, now: int) -> int:
        """Distil the next batch of a hot segment's undistilled pages into LPM records; returns the
        number of records written. Pages already distilled are never read again."""
        run_id = uuid7()
        with self.store.write("mtm_to_lpm_intent") as tx:
            current = tx.segment(segment.segment_id)
            if current is None or segment_heat(self.config, current, now) < self.config.heat_threshold:
                return 0  # cooled down or evicted since it was chosen: nothing to do
            pages = tx.pages_after(
                current.segment_id, current.distilled_through, self.config.distill_batch_pages
            )
            if not pages:
                return 0  # hot by visits alone: everything it holds is distilled already
            if not tx.insert_intent(
                Intent(run_id, "mtm_to_lpm", current.segment_id, current.version, OWNER, now)
            ):
                return 0  # another worker claimed this segment first
            tx.emit(
                self.drafts.base(
                    run_id,
                    "mtm_to_lpm",
                    "started",
                    current.user_scope,
                    current.assistant_scope,
                    fromTier="mtm",
                    toTier="lpm",
                    derivedFrom=[p.ref for p in pages],
                    sourcePresent=True,
                )
            )
        failpoint("mtm_to_lpm.after_intent")
        distilled = self.summarizer.distill(
            [PageView(p.ref, p.role or "user", p.body, p.source_ids) for p in pages]
        )
        failpoint("mtm_to_lpm.after_distill")
        # a model, if the extractor has one, proposes each typed item's action (checked at write)
        distilled = propose_actions(
            self.summarizer, self.store, current.user_scope, current.assistant_scope, distilled
        )
        return self._commit_distilled(run_id, current, pages, distilled, now)

    def _still_there(self, tx: Transaction, expected: Segment, pages: Sequence[Unit]) -> Segment | None:
        """The segment, if the pages this run read are still its next undistilled ones. Pages that
        joined it meanwhile come after them and do not matter; a forgotten or expired one does."""
        current = tx.segment(expected.segment_id)
        if current is None or current.distilled_through != expected.distilled_through:
            return None
        now_there = tx.pages_after(current.segment_id, current.distilled_through, len(pages))
        return current if [p.ref for p in now_there] == [p.ref for p in pages] else None

    def _commit_distilled(
        self, run_id: str, expected: Segment, pages: Sequence[Unit], distilled: list[Distilled], now: int
    ) -> int:
        user, assistant = expected.user_scope, expected.assistant_scope
        with self.store.write("mtm_to_lpm") as tx:
            if not tx.delete_intent(run_id):
                return 0  # recovery reconciled this run while the work was slow: its verdict stands
            current = self._still_there(tx, expected, pages)
            if current is None:
                # What it read changed under the slow work: reconcile, never blindly apply.
                present = tx.segment(expected.segment_id) is not None
                tx.emit(self.drafts.rollback(run_id, "mtm_to_lpm", user, assistant, source_present=present))
                return 0
            typed = TypedWriter(tx, run_id, user, assistant, now)  # reads what the scope knows once
            # a typed item may write several units (a restatement of two facts) or none
            written = write_all(
                typed,
                distilled,
                lambda d: self._write_record(tx, run_id, d, user=user, assistant=assistant, now=now),
            )
            for (unit, derived), item in written:
                tx.emit(
                    self.drafts.about(
                        run_id,
                        "mtm_to_lpm",
                        unit,
                        fromTier="mtm",
                        toTier="lpm",
                        derivedFrom=list(derived),
                        sourcePresent=True,
                        degraded=True if item.degraded else None,
                    )
                )
            failpoint("mtm_to_lpm.after_records")
            for list_name in sorted({d.list_name for d in distilled}):
                self._evict_list(tx, run_id, user, assistant, list_name)
            tx.put_segment(self._distilled(expected, current, pages, now))
            if not written:
                tx.emit(
                    self.drafts.base(
                        run_id,
                        "mtm_to_lpm",
                        "committed",
                        user,
                        assistant,
                        fromTier="mtm",
                        toTier="lpm",
                        sourcePresent=True,
                    )
                )
        failpoint("mtm_to_lpm.after_commit")
        log.info("promoted", boundary="mtm_to_lpm", run_id=run_id, records=len(written))
        self.telemetry.annotate(run_id=run_id, count=len(written), status="committed")
        self.telemetry.count("promotions", len(written), boundary="mtm_to_lpm", status="committed")
        return len(written)

    def _distilled(self, expected: Segment, current: Segment, pages: Sequence[Unit], now: int) -> Segment:
        """The segment after this run: heat reset, read up to its last page. What is left to distil
        is what the batch did not reach plus the pages that joined meanwhile."""
        joined = max(0, current.interactions - expected.interactions)
        left = undistilled_after(expected.interactions, len(pages), self.config.distill_batch_pages)
        return replace(
            current,
            visits=0,
            interactions=left + joined,
            last_visit_at=now,
            distilled_through=max(p.rowid or 0 for p in pages),
        )

    def _write_record(
        self, tx: Transaction, run_id: str, item: Distilled, *, user: str, assistant: str, now: int
    ) -> tuple[Unit, tuple[str, ...]]:
        digest = content_hash(item.body)
        existing = tx.list_record(user, assistant, item.list_name, digest)
        if existing is not None:  # REINFORCE: the same knowledge again is not a duplicate
            tx.update_unit(existing.rowid or 0, reinforced=existing.reinforced + 1, last_seen=now)
            return existing, item.derived_from
        kind = item.kind or ("fact" if item.list_name == "profile" else "semantic")
        unit = distilled_unit(item, run_id, kind, None, user=user, assistant=assistant, now=now)
        tx.insert_unit(unit)
        return unit, item.derived_from

    def _evict_list(self, tx: Transaction, run_id: str, user: str, assistant: str, list_name: str) -> None:
        views = [RecordView(*standing) for standing in tx.list_standing(user, assistant, list_name)]
        doomed = evict_from_list(views, self.config.lpm_list_capacity)
        for record in tx.units_by_ids(doomed) if doomed else ():  # only the leaving ones are read
            tx.delete_units([record.rowid or 0])
            tx.emit(self.drafts.removal(run_id, "evict", record, "capacity"))
            failpoint("lpm_evict.after_delete")
            self.telemetry.count("evictions", 1, tier="lpm")


__all__ = ["Promoter", "Reconcile", "StmOutcome", "content_hash", "segment_heat"]
