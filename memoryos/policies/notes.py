"""Segment summaries and page notes (a page's own summary, and whether it continues the page
before it): derived text that maintain() refreshes off the request path.

A `NoteWriter` is the seam where a model plugs in (memoryos.llm.LLMSummarizer); the extractive one
below is the default, and the fallback whenever the model fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memoryos.policies.distill import PageView
from memoryos.policies.text import coverage, keywords, summarize

PAGE_SUMMARY_CHARS = 160
SEGMENT_SUMMARY_CHARS = 400
# A page continues the one before it when this share of its keywords already appeared there.
CONTINUITY = 0.3


@dataclass(frozen=True)
class PageNoteText:
    summary: str
    continues: bool  # it carries on the conversation of the page just before it


@dataclass(frozen=True)
class Notes:
    """What a note writer says about a segment's pages (oldest first), one note per page."""

    summary: str
    pages: tuple[PageNoteText, ...]
    degraded: bool = False  # a fallback wrote them (the model was unreachable or answered garbage)


class NoteWriter(Protocol):
    def notes(self, pages: Sequence[PageView]) -> Notes: ...


def continues(page: str, previous: str | None) -> bool:
    if previous is None:
        return False
    return coverage(keywords(page), keywords(previous)) >= CONTINUITY


class ExtractiveNotes:
    """Keyword-ranked extracts: deterministic, and cheap enough to run on every maintain()."""

    def notes(self, pages: Sequence[PageView]) -> Notes:
        texts = [p.text for p in pages]
        return Notes(
            summarize(texts, SEGMENT_SUMMARY_CHARS),
            tuple(
                PageNoteText(summarize([text], PAGE_SUMMARY_CHARS), continues(text, previous))
                for text, previous in zip(texts, [None, *texts[:-1]], strict=True)
            ),
        )


__all__ = ["CONTINUITY", "ExtractiveNotes", "NoteWriter", "Notes", "PageNoteText", "continues"]
