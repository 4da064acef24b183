"""Where a promoted page goes in MTM, and which segment leaves when MTM is full."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple


class SegmentView(NamedTuple):
    """A segment as placement and eviction see it. (A named tuple: placement makes one per open
    segment and per joined page, at a quarter of a frozen dataclass's cost.)"""

    segment_id: str
    keywords: Collection[str]  # a set is best: similarity tests membership
    heat: float
    created_at: int


def choose_segment(
    page_keywords: Collection[str], segments: Iterable[SegmentView], threshold: float
) -> str | None:
    """The most similar segment at or above the threshold; ties go to the newest. None: start one."""
    words = set(page_keywords)
    if not words:
        return None
    best: tuple[float, int, str] | None = None
    for segment in segments:
        # coverage (policies.text), with the page's set built once for all segments
        score = len(words.intersection(segment.keywords)) / len(words)
        if score >= threshold and score > 0:
            candidate = (score, segment.created_at, segment.segment_id)
            if best is None or candidate > best:
                best = candidate
    return None if best is None else best[2]


def coldest(segments: Sequence[SegmentView], capacity: int) -> list[str]:
    """Segments to evict so that at most `capacity` remain: lowest heat first, then oldest."""
    excess = len(segments) - capacity
    if excess <= 0:
        return []
    ranked = sorted(segments, key=lambda s: (s.heat, s.created_at, s.segment_id))
    return [s.segment_id for s in ranked[:excess]]
