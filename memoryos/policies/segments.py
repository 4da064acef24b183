"""Where a promoted page goes in MTM, and which segment leaves when MTM is full."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoryos.policies.text import coverage


@dataclass(frozen=True)
class SegmentView:
    segment_id: str
    keywords: tuple[str, ...]
    heat: float
    created_at: int


def choose_segment(
    page_keywords: Sequence[str], segments: Sequence[SegmentView], threshold: float
) -> str | None:
    """The most similar segment at or above the threshold; ties go to the newest. None: start one."""
    best: tuple[float, int, str] | None = None
    for segment in segments:
        score = coverage(page_keywords, segment.keywords)
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
