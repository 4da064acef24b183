"""The store port: what the engine needs from a backend. SQL lives only in the adapters.

Backends translate their driver's errors into memoryos.errors.StoreError subclasses, and pass the
shared contract suite (tests/memoryos/store_contract.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from memoryos.store.rows import CandidateRow, Hit, Intent, PageNote, Segment, SegmentHead, Unit


@dataclass(frozen=True)
class ScopeStats:
    """What one scope's index knows about some terms: its documents, their total length in terms,
    and each term's document frequency among them (absent terms are left out)."""

    documents: int
    length: int
    frequencies: Mapping[str, int]

    @property
    def average_length(self) -> float:
        return self.length / self.documents if self.documents else 1.0


@dataclass(frozen=True)
class SearchPlan:
    """A query ready to run: each term's BM25 weight (its idf in the scope), the scope's average
    document length and the BM25 constants. memoryos.retrieval.ranking makes it."""

    weights: Mapping[str, float]
    average_length: float
    k1: float
    b: float


@dataclass(frozen=True)
class Postings:
    """One document's frequencies of some query terms, and its length in terms."""

    frequencies: Mapping[str, int]
    length: int


class SearchIndex(ABC):
    """The retrieval port: per-scope term statistics and BM25 aggregation (DESIGN §9).

    Every answer depends only on the given scope's units: a backend keeps document frequencies and
    lengths per scope, in the transaction that writes a unit, and never reads another scope's."""

    @abstractmethod
    def scope_stats(self, user: str, assistant: str, terms: Sequence[str]) -> ScopeStats: ...

    @abstractmethod
    def search(self, plan: SearchPlan, user: str, assistant: str, as_of: int, limit: int) -> list[Hit]:
        """The exact top-`limit` by BM25 (then the more recently stored) of this scope's units that
        are valid at `as_of`, active or stale."""

    @abstractmethod
    def matches(self, terms: Sequence[str], user: str, assistant: str, limit: int) -> list[Unit]:
        """Units of this scope (any state or validity) holding any of the terms, oldest first."""

    @abstractmethod
    def turn_postings(
        self, terms: Sequence[str], user: str, assistant: str, turn_ids: Sequence[str]
    ) -> dict[str, Postings]:
        """The terms' frequencies in the text of each of this scope's turns: the STM turn itself,
        or the MTM page that holds it. Turns no longer stored, or holding none of the terms, are
        left out."""

    @abstractmethod
    def next_turns(
        self, user: str, assistant: str, after: Sequence[int], known: Mapping[int, Unit]
    ) -> dict[int, Unit]:
        """For each of the rowids, the turn (an STM turn or the MTM page holding it, in any state)
        that this scope stored next after it; a rowid after which the scope stored no turn is left
        out. A turn found in `known` (by rowid) is handed back from there, not read again. Read
        from an index of the scope's turns: the work does not grow with the rows other scopes
        stored in between, and none of them is read."""


class UnitRecorder(ABC):
    """Units of every tier: STM turns, MTM pages and LPM versions, by scope, id or rowid."""

    @abstractmethod
    def insert_unit(self, unit: Unit) -> int: ...

    @abstractmethod
    def insert_units(self, units: Sequence[Unit]) -> None: ...

    @abstractmethod
    def delete_units(self, rowids: Sequence[int]) -> None: ...

    @abstractmethod
    def update_unit(self, rowid: int, **changes: Any) -> None: ...

    @abstractmethod
    def units_by_ids(self, memory_ids: Sequence[str]) -> list[Unit]: ...

    @abstractmethod
    def id_versions(self, user: str, assistant: str, memory_id: str) -> list[Unit]: ...

    @abstractmethod
    def scope_units(self, user: str | None, assistant: str | None, limit: int) -> list[Unit]: ...

    @abstractmethod
    def units_page(
        self, after_rowid: int, limit: int, user: str | None, assistant: str | None
    ) -> list[Unit]: ...

    def session_units(self, user: str, assistant: str, session: str) -> list[Unit]:
        """Every unit of one session of a scope, in no particular order. This default pages
        through the scope; a backend overrides it with one query."""
        found: list[Unit] = []
        after = 0
        while page := self.units_page(after, 1000, user, assistant):
            found.extend(u for u in page if u.session == session)
            after = page[-1].rowid or after + 1
        return found

    @abstractmethod
    def expired(self, now: int, limit: int) -> list[Unit]: ...

    @abstractmethod
    def decay_candidates(self, seen_before: int, limit: int) -> list[Unit]: ...

    @abstractmethod
    def dependents(self, source_ids: Sequence[str]) -> list[str]: ...

    @abstractmethod
    def drop_sources(self, memory_ids: Sequence[str]) -> None: ...


class ShortTermRecorder(ABC):
    """The STM tier and its promotion into MTM pages (one transaction per promotion)."""

    @abstractmethod
    def count_stm(self, user: str, assistant: str) -> int: ...

    @abstractmethod
    def stm_turns(self, user: str, assistant: str) -> list[Unit]: ...

    @abstractmethod
    def stm_rowids(self, user: str, assistant: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """The rowid of each of these turns still in the scope's STM (a promotion's claim)."""

    @abstractmethod
    def release_stm(self, user: str, assistant: str, memory_ids: Sequence[str]) -> set[str]:
        """Delete these turns from the scope's STM; returns the ids that were there to delete."""

    @abstractmethod
    def turn_into_pages(self, moves: Sequence[tuple[int, Unit]]) -> None:
        """Rewrite each STM turn's row (by rowid) as its page, in place: same body, key and kind,
        so the same index terms, and the search postings stay as they are."""

    @abstractmethod
    def stm_scopes_due(self, created_before: int) -> list[tuple[str, str]]: ...


class DrawerRecorder(ABC):
    """The LPM drawer: keyed records, capped lists, and the candidates awaiting approval."""

    @abstractmethod
    def drawer_keys(self, user: str, assistant: str, limit: int) -> list[str]: ...

    @abstractmethod
    def key_versions(self, user: str, assistant: str, key: str) -> list[Unit]: ...

    @abstractmethod
    def list_records(self, user: str, assistant: str, list_name: str) -> list[Unit]: ...

    @abstractmethod
    def list_standing(self, user: str, assistant: str, list_name: str) -> list[tuple[str, int, int]]:
        """(memory id, reinforced, last seen) of each record of the list: what eviction ranks by,
        without reading the records themselves."""

    @abstractmethod
    def list_record(self, user: str, assistant: str, list_name: str, digest: str) -> Unit | None: ...

    @abstractmethod
    def insert_candidate(self, row: CandidateRow) -> None: ...

    @abstractmethod
    def candidates(self, user: str, assistant: str, status: str | None) -> list[CandidateRow]: ...

    @abstractmethod
    def decide_candidate(self, candidate_id: str, status: str, at: int, memory_id: str | None) -> None: ...


class SegmentRecorder(ABC):
    """MTM segments: placement, heat, growth, distillation marks and their summaries."""

    @abstractmethod
    def segments(self, user: str, assistant: str) -> list[Segment]: ...

    @abstractmethod
    def all_segments(self) -> list[Segment]: ...

    @abstractmethod
    def segments_heated(self, alpha: float, beta: float, floor: float) -> list[Segment]:
        """Segments with alpha·visits + beta·interactions >= floor (candidates for being hot)."""

    @abstractmethod
    def segment(self, segment_id: str) -> Segment | None: ...

    @abstractmethod
    def put_segment(self, segment: Segment) -> None: ...

    @abstractmethod
    def delete_segment(self, segment_id: str) -> None: ...

    @abstractmethod
    def segment_heads(self, user: str, assistant: str) -> list[SegmentHead]: ...

    @abstractmethod
    def open_segment_heads(self, user: str, assistant: str, max_pages: int) -> list[SegmentHead]:
        """Heads (with their page counts) of the scope's segments holding fewer than `max_pages`."""

    @abstractmethod
    def segment_count(self, user: str, assistant: str) -> int: ...

    @abstractmethod
    def segment_keywords(self, segment_id: str) -> dict[str, int]:
        """The segment's ranked keywords ({} if it is gone)."""

    @abstractmethod
    def grow_segments(self, grown: Sequence[tuple[str, dict[str, int], int]]) -> None:
        """(segment id, keywords, pages) each: pages joined it, so it gets these keywords and its
        interactions, version and page count go up by `pages` (visits untouched)."""

    @abstractmethod
    def stale_summaries(self, limit: int) -> list[Segment]:
        """Segments whose summary describes an older version of them, least recently visited first."""

    @abstractmethod
    def visit_segments(self, segment_ids: Sequence[str], now: int) -> None: ...


class PageRecorder(ABC):
    """The pages of a segment and their notes (summary and continuity)."""

    @abstractmethod
    def pages(self, segment_id: str) -> list[Unit]: ...

    @abstractmethod
    def pages_after(self, segment_id: str, after_rowid: int, limit: int) -> list[Unit]:
        """At most `limit` pages of the segment stored after the page `after_rowid`, in the order
        they were stored (the pages a distillation has not read yet)."""

    @abstractmethod
    def newest_pages(self, segment_id: str, limit: int) -> list[Unit]:
        """The segment's newest `limit` pages, oldest of them first (as pages() orders them)."""

    @abstractmethod
    def last_pages(self, segment_ids: Sequence[str]) -> dict[str, int]:
        """The highest page rowid of each of these segments that holds a page."""

    @abstractmethod
    def page_count(self, segment_id: str) -> int: ...

    @abstractmethod
    def put_page_notes(self, notes: Sequence[PageNote]) -> None: ...

    @abstractmethod
    def drop_page_notes(self, segment_id: str) -> None: ...

    @abstractmethod
    def notes_of(self, memory_ids: Sequence[str]) -> dict[str, PageNote]:
        """The notes of these pages, by memory id (pages without notes are absent)."""


class OutboxRecorder(ABC):
    """Receipts, sealed in the transaction of their change, and the exporters' cursors."""

    @abstractmethod
    def emit(self, draft: Mapping[str, Any]) -> None: ...

    @abstractmethod
    def outbox_after(self, seq: int, limit: int) -> list[tuple[int, bytes]]: ...

    @abstractmethod
    def outbox_head(self) -> int: ...

    @abstractmethod
    def outbox_link(self, seq: int) -> str | None:
        """The link (hash) of the receipt at `seq`, or None when there is none."""

    @abstractmethod
    def run_scope(self, run_id: str) -> list[bytes]: ...

    @abstractmethod
    def run_committed(self, run_id: str) -> bool: ...

    @abstractmethod
    def cursor(self, name: str) -> int: ...

    @abstractmethod
    def set_cursor(self, name: str, seq: int) -> None: ...

    @abstractmethod
    def claim_cursor(self, name: str) -> int | None:
        """In a write: the cursor's seq, held by this transaction until it ends so that no other
        exporter reads from it meanwhile; None when another transaction holds it (skipped, not
        waited for)."""


class IntentRecorder(ABC):
    """Intents of slow promotions: claimed once per subject, reconciled by recovery."""

    @abstractmethod
    def insert_intent(self, intent: Intent) -> bool: ...

    @abstractmethod
    def delete_intent(self, run_id: str) -> bool: ...

    @abstractmethod
    def intents(self) -> list[Intent]: ...


class ErasureRecorder(ABC):
    """Tombstones of forgotten units, and the index cleanup an erasure needs."""

    @abstractmethod
    def tombstone(self, unit: Unit, key_hash: str | None, reason: str, at: int) -> None: ...

    @abstractmethod
    def insert_tombstone(self, row: Mapping[str, Any]) -> None: ...

    @abstractmethod
    def tombstones(self, user: str | None, assistant: str | None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def tombstoned(self, user: str, assistant: str, memory_id: str | None, key_hash: str | None) -> bool: ...

    @abstractmethod
    def merge_index(self) -> None: ...


class MaintenanceRecorder(ABC):
    """Store metadata and the self-checks: meta values, occupancy, lineage invariants."""

    @abstractmethod
    def is_empty(self) -> bool: ...

    @abstractmethod
    def set_meta(self, name: str, value: str) -> None: ...

    @abstractmethod
    def meta_get(self, name: str) -> str | None: ...

    @abstractmethod
    def meta_setdefault(self, name: str, value: str) -> str: ...

    @abstractmethod
    def lineage_problems(self) -> list[str]: ...

    @abstractmethod
    def occupancy(self) -> dict[str, int]: ...


class Transaction(
    UnitRecorder,
    ShortTermRecorder,
    DrawerRecorder,
    SegmentRecorder,
    PageRecorder,
    OutboxRecorder,
    IntentRecorder,
    ErasureRecorder,
    MaintenanceRecorder,
):
    """Domain operations inside one transaction (the union of the roles above); receipts emitted
    in a write commit with it."""


class Store(SearchIndex):
    """A backend holding every tier and the receipt outbox, with atomic write transactions."""

    commits: int

    @abstractmethod
    def scrub(self) -> bool: ...

    @abstractmethod
    def bind_receipts(self, chain_id: str, key: bytes) -> None: ...

    @abstractmethod
    def receipt_key(self) -> bytes | None:
        """The receipt key the store keeps itself (made on first open), or None when the key is a
        file beside the store (SQLite: `<store>.receipt-key`)."""

    @abstractmethod
    def marked_chain(self, key: bytes) -> str | None:
        """The chain id the store's own record of its chain head names, if it can be trusted."""

    @abstractmethod
    def mark_findings(self) -> list[str]:
        """Receipts the chain's high-water mark says were committed and the outbox lacks."""

    @property
    @abstractmethod
    def mark_failures(self) -> int:
        """Marks that could not be written after a commit (counted, never raised)."""

    @abstractmethod
    def meta(self, name: str) -> str | None: ...

    @abstractmethod
    def set_meta_if_absent(self, name: str, value: str) -> str: ...

    @abstractmethod
    def write(self, label: str, *, durable: bool = True) -> AbstractContextManager[Transaction]: ...

    @abstractmethod
    def read(self) -> AbstractContextManager[Transaction]: ...

    @abstractmethod
    def integrity(self) -> list[str]: ...

    @abstractmethod
    def close(self) -> None: ...

    @property
    @abstractmethod
    def closed(self) -> bool: ...
