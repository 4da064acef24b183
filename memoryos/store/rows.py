"""Plain rows exchanged between the engine and a store backend."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Unit:
    """A stored unit: an STM turn, an MTM page, or an LPM record (one version of it)."""

    memory_id: str
    version: int
    tier: str
    user_scope: str
    assistant_scope: str
    body: str
    created_at: int
    valid_from: int
    last_seen: int
    run_id: str
    session: str | None = None
    role: str | None = None
    segment_id: str | None = None
    list: str | None = None
    key: str | None = None
    kind: str | None = None
    status: str = "active"
    confidence: float | None = None
    proof: str | None = None
    source: str | None = None
    reason: str | None = None
    source_ids: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    content_hash: str | None = None
    valid_until: int | None = None
    reinforced: int = 0
    rowid: int | None = field(default=None, compare=False)

    @property
    def ref(self) -> str:
        return f"{self.memory_id}@{self.version}"

    def but(self, **changes: Any) -> Unit:
        """`dataclasses.replace(self, **changes)` for hot paths (a promotion makes a page of each
        turn): a frozen dataclass's __init__ sets each of its 27 fields through object.__setattr__,
        which costs eight times this copy. No field has a default factory or a __post_init__, so the
        copy is the same value; an unknown name is refused as replace() refuses it."""
        unknown = changes.keys() - _UNIT_FIELDS
        if unknown:
            raise TypeError(f"Unit has no field {sorted(unknown)[0]!r}")
        copy = object.__new__(Unit)
        copy.__dict__.update(self.__dict__, **changes)
        return copy


_UNIT_FIELDS = frozenset(f.name for f in fields(Unit))


@dataclass(frozen=True)
class Segment:
    segment_id: str
    user_scope: str
    assistant_scope: str
    keywords: dict[str, int]
    summary: str
    visits: int
    interactions: int
    last_visit_at: int
    created_at: int
    version: int
    # The summary is derived text, refreshed off the request path: it describes the segment as it
    # was at `summary_version` (0: never summarised), and `summary_degraded` says a fallback wrote it.
    summary_version: int = 0
    summary_degraded: bool = False
    # Distillation is incremental: pages after `distilled_through` (a page's rowid, the store's
    # insertion order) have not been distilled yet; `interactions` counts them. `pages` is how many
    # the segment holds: a full one takes no more (Config.segment_max_pages).
    pages: int = 0
    distilled_through: int = 0

    @property
    def summary_stale(self) -> bool:
        return self.summary_version != self.version


@dataclass(frozen=True)
class SegmentHead:
    """What placement needs to know of a segment before reading its keywords."""

    segment_id: str
    version: int
    created_at: int
    pages: int | None = None  # how many pages it holds (None: not read)


@dataclass(frozen=True)
class PageNote:
    """A page's own summary and, for continuity, the earlier page of its segment it continues."""

    memory_id: str
    segment_id: str
    summary: str
    follows: str | None
    degraded: bool


@dataclass(frozen=True)
class Intent:
    run_id: str
    boundary: str
    subject_id: str
    subject_version: int
    owner: str
    started_at: int


@dataclass(frozen=True)
class Hit:
    unit: Unit
    score: float


@dataclass(frozen=True)
class CandidateRow:
    """A captured candidate record waiting for approval (or decided)."""

    candidate_id: str
    user_scope: str
    assistant_scope: str
    kind: str
    key: str
    body: str
    proof: str | None
    status: str
    created_at: int
    decided_at: int | None = None
    memory_id: str | None = None
