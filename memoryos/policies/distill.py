"""Extractive distillation of a hot MTM segment into LPM records (no model needed).

A `Summarizer` is the seam where a model-backed distiller plugs in later; the deterministic one
below is what runs when none is configured, or when the model is unreachable.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memoryos.policies.text import keywords, sentences, tokens

LISTS = ("profile", "user_knowledge", "assistant_knowledge")
KNOWLEDGE_CHARS = 400
PROFILE = re.compile(
    r"\b(i am|i'm|my name is|i work|i live|i like|i love|i prefer|i hate|i use|i need|my favou?rite)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PageView:
    ref: str  # "<page id>@<version>"
    role: str
    text: str
    source_ids: tuple[str, ...]


@dataclass(frozen=True)
class Distilled:
    list_name: str
    body: str
    derived_from: tuple[str, ...]  # page refs
    source_ids: tuple[str, ...]  # turn ids
    kind: str | None = None  # an extraction kind (semantic, episodic, procedural, taxonomic) if known
    degraded: bool = False  # produced by a fallback path (e.g. no model reachable)
    # A typed item is reconciled with the scope's records (memoryos.extraction.reconcile) under the
    # subject key its sentence names, if any; an untyped digest is only deduplicated by content.
    subject: str | None = None
    keyed: bool = False


class Summarizer(Protocol):
    """Distils a segment's pages into LPM records. `inline` says whether it is cheap enough to run
    on the request path; a model-backed summarizer is not, and runs only in maintain() or a worker."""

    inline: bool

    def distill(self, pages: Sequence[PageView]) -> list[Distilled]: ...


def content_hash(text: str) -> str:
    """The digest two bodies share when they say the same, whitespace and case aside."""
    return hashlib.sha256(" ".join(text.split()).casefold().encode()).hexdigest()


def _record(list_name: str, body: str, pages: Sequence[PageView]) -> Distilled:
    return Distilled(
        list_name,
        body,
        tuple(p.ref for p in pages),
        tuple(dict.fromkeys(s for p in pages for s in p.source_ids)),
    )


def extract(pages: Sequence[PageView], limit_chars: int = KNOWLEDGE_CHARS) -> tuple[str, list[PageView]]:
    """The sentences that carry the most keyword weight, in their original order, and the pages
    they came from: a record lists only the pages whose words it holds (as policies.text.summarize
    ranks them, with the page of each sentence kept)."""
    found = [(index, s) for index, page in enumerate(pages) for s in sentences(page.text)]
    if not found:
        return "", []
    weights = keywords(" ".join(s for _, s in found))
    scores = [sum(weights.get(w, 0) for w in set(tokens(s))) for _, s in found]
    chosen: list[int] = []
    size = 0
    for i in sorted(range(len(found)), key=lambda i: (-scores[i], i)):
        if size and size + len(found[i][1]) > limit_chars:
            continue
        chosen.append(i)
        size += len(found[i][1]) + 1
    chosen.sort()
    body = " ".join(found[i][1] for i in chosen)[: limit_chars * 2]
    return body, [pages[index] for index in sorted({found[i][0] for i in chosen})]


def undistilled_after(undistilled: int, read: int, batch: int) -> int:
    """Pages a segment still has to distil after one distillation read `read` of them (at most
    `batch`): fewer than a batch means it read them all."""
    return 0 if read < batch else max(0, undistilled - read)


class ExtractiveSummarizer:
    """Profile facts are first-person sentences; knowledge is a keyword-ranked extract per role."""

    inline = True

    def distill(self, pages: Sequence[PageView]) -> list[Distilled]:
        out: list[Distilled] = []
        user_pages = [p for p in pages if p.role == "user"]
        for page in user_pages:
            for sentence in sentences(page.text):
                if PROFILE.search(sentence):
                    out.append(_record("profile", sentence[:1000], [page]))
        for list_name, role_pages in (
            ("user_knowledge", user_pages),
            ("assistant_knowledge", [p for p in pages if p.role == "assistant"]),
        ):
            body, used = extract(role_pages)
            if body:
                out.append(_record(list_name, body, used))
        return out
