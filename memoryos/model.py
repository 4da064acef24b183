"""What the public API returns. Plain frozen dataclasses; no driver types leak out."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Stored:
    memory_id: str
    version: int
    run_id: str

    @property
    def ref(self) -> str:
        return f"{self.memory_id}@{self.version}"


@dataclass(frozen=True)
class Record:
    memory_id: str
    key: str
    body: str
    kind: str
    version: int
    status: str
    confidence: float
    proof: str | None
    valid_from: datetime
    valid_until: datetime | None
    source: str | None = None
    recorded_at: datetime | None = None
    reason: str | None = None  # why this version was written (a correction's reason), if given
    reinforced: int = 0  # restatements this version absorbed (REINFORCE: count +1, no duplicate)

    @property
    def ref(self) -> str:
        return f"{self.memory_id}@{self.version}"


@dataclass(frozen=True)
class Hit:
    memory_id: str
    version: int
    ref: str
    tier: str
    text: str
    score: float
    key: str | None
    kind: str | None
    source_ids: tuple[str, ...]


@dataclass(frozen=True)
class Excluded:
    """A unit that matched the query but was filtered out before ranking, and why."""

    memory_id: str
    version: int
    reason: str  # expired | not_yet_valid | superseded | retired | other_scope


@dataclass(frozen=True)
class Recall:
    run_id: str
    hits: list[Hit]
    excluded: list[Excluded] = field(default_factory=list)

    @property
    def refs(self) -> list[str]:
        return [h.ref for h in self.hits]


@dataclass(frozen=True)
class Maintenance:
    """What one maintain() pass did, as counts (content-free)."""

    promoted_turns: int = 0
    distilled_segments: int = 0
    lpm_records: int = 0
    evicted: int = 0
    expired: int = 0
    decayed: int = 0
    recovered_intents: int = 0
    summarized_segments: int = 0  # segment summaries and page notes refreshed
    erasures_completed: int = 0  # erasures a reader had kept in the -wal, now scrubbed from the file
    reflected_candidates: int = 0  # candidates the idle window's reflection proposed (issue 15)


class Forgotten(int):
    """What forget() returns: the number of unit versions erased (an int), and whether the erased
    bytes are already gone from the file. `erasure_pending` is True when another connection's read
    snapshot kept them in the -wal: maintain() or check() finishes the scrub once that reader ends."""

    erasure_pending: bool

    def __new__(cls, erased: int, *, erasure_pending: bool = False) -> Forgotten:
        value = super().__new__(cls, erased)
        value.erasure_pending = erasure_pending
        return value


@dataclass(frozen=True)
class Finding:
    """One problem `check()` found; checks return findings, they do not raise."""

    code: str
    detail: str


@dataclass(frozen=True)
class Context:
    """A prompt block for one turn, and the refs to pass to `generated(depends_on=...)`."""

    run_id: str
    text: str
    refs: list[str]
    tokens: int


@dataclass(frozen=True)
class Topic:
    """One MTM segment of a scope: a thread of conversation, with the notes maintain() wrote."""

    segment_id: str
    summary: str  # empty until the first maintain() after the segment began
    keywords: list[str]  # its strongest keywords, strongest first
    pages: int
    heat: float
    stale: bool  # pages joined since the summary was written
    degraded: bool  # the extractive fallback wrote the summary (the model failed)


@dataclass(frozen=True)
class Candidate:
    """A record captured from host activity, waiting for a person's approval."""

    candidate_id: str
    kind: str
    key: str
    body: str
    proof: str | None
    status: str  # pending | approved | rejected
    created_at: datetime
    memory_id: str | None = None  # the drawer record it became, once approved


@dataclass(frozen=True)
class Turn:
    """One turn of a session, wherever it is now: still in STM, or an MTM page built from it."""

    memory_id: str
    version: int
    tier: str  # stm | mtm
    role: str
    text: str
    at: datetime
    source: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.memory_id}@{self.version}"
