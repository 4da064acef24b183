"""Deterministic, extractive text handling: tokens, keywords, similarity, summaries.

Search terms (stemming, CJK, query words) live in memoryos.retrieval.terms."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his how i
    if in into is it its me my no not of on or our she so than that the their them then there these
    they this to too up us was we were what when where which who why will with would you your yes ok
    okay just also about please thanks thank let lets i'm it's don't""".split()
)


def tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


# ASCII text's words without the regex: \w is [A-Za-z0-9_] there, so every other byte becomes a
# space and letters are lowered in the same pass (a promotion splits every turn it places). A bytes
# table: str.translate looks each character up in a dict, bytes.translate indexes a 256-byte table.
_ASCII_WORDS = bytes(
    ord(chr(c).lower()) if chr(c).isalnum() or chr(c) == "_" else ord(" ") for c in range(128)
) + bytes(128)  # never indexed: only ASCII text takes this path


def _ascii_words(text: str) -> list[str]:
    """tokens(text) for ASCII text (tests/memoryos/test_text_keywords.py holds the two equal)."""
    return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()


def keywords(text: str) -> dict[str, int]:
    """Counts of the words that carry meaning, in order of first occurrence. Outside ASCII the
    regex decides (and each token is lowered alone: lowering can change what \\w matches, "İ")."""
    # A plain dict counted in a loop: Counter(list) runs its Python __init__ and update() (an
    # abstract-class isinstance check) per call, and a dict subclass's item stores are not
    # specialised; for a turn's dozen words either costs more than the counting itself.
    counts: dict[str, int] = {}
    get = counts.get
    for word in _ascii_words(text) if text.isascii() else tokens(text):
        if len(word) > 1 and word not in STOPWORDS and not word.isdigit():
            counts[word] = get(word, 0) + 1
    return counts


def top_keywords(counts: Mapping[str, int], limit: int = 32) -> list[str]:
    """The `limit` strongest words, strongest first, ties alphabetical."""
    # Two C-level sorts instead of one with a Python key: alphabetical, then a stable sort by count
    # (reverse=True keeps equal counts in their alphabetical order).
    return sorted(sorted(counts), key=counts.__getitem__, reverse=True)[:limit]


def coverage(page: Iterable[str], segment: Iterable[str]) -> float:
    """Share of the page's keywords the segment already has (Jaccard would fall as segments grow)."""
    words = set(page)
    if not words:
        return 0.0
    return len(words.intersection(segment)) / len(words)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def summarize(texts: Iterable[str], limit_chars: int = 400, weights: Mapping[str, int] | None = None) -> str:
    """The sentences that carry the most keyword weight, in their original order. `weights` are the
    keyword counts of the whole text when the caller already has them (a segment does)."""
    ordered = [s for t in texts for s in sentences(t)]
    if not ordered:
        return ""
    if weights is None:
        weights = keywords(" ".join(ordered))
    scores = [sum(weights.get(w, 0) for w in set(tokens(sentence))) for sentence in ordered]
    ranked = sorted(range(len(ordered)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    size = 0
    for index in ranked:
        if size and size + len(ordered[index]) > limit_chars:
            continue
        chosen.append(index)
        size += len(ordered[index]) + 1
    return " ".join(ordered[i] for i in sorted(chosen))[: limit_chars * 2]


def ranked(counts: Mapping[str, int], limit: int = 64) -> dict[str, int]:
    """The `limit` strongest keywords, strongest first (ties alphabetical): stored in this order,
    the first n keys are the top n with no further sorting."""
    return {w: counts[w] for w in top_keywords(counts, limit)}
