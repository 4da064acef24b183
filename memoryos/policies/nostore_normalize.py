"""The text the no-store finders see: compatibility forms folded, invisible characters gone, spaces unified.

A zero-width space inside a card number or a non-breaking space between its groups is invisible to a
reader and to a copy-paste, but it breaks every regex that expects digits and ASCII spaces. So the finders
run on a normalised copy: NFKC per character (full-width digits and letters become ASCII), format
characters (Unicode category Cf: ZWSP, ZWJ, soft hyphen, BOM, bidi marks...) and other default-ignorable
code points removed, every space kind turned into an ASCII space, and hyphen look-alikes into "-".

Only detection uses the copy: `Normalized.span()` maps a span of the copy back onto the original text,
so redaction masks the original characters, the invisible ones inside the span included.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Not all of these are category Cf (variation selectors are Mn, the Hangul fillers Lo), but all are
# default-ignorable: rendered as nothing, so they can hide inside a secret without showing.
_IGNORABLE_EXTRA = frozenset(
    chr(code) for code in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10))
)
# Hyphen look-alikes that NFKC leaves alone; en and em dashes stay, prose uses them as connectors.
_HYPHENS = frozenset("\u2010\u2011\u2012\u2043\u2212\ufe63\uff0d")
# Characters that may need folding: everything outside ASCII.
_NEEDS_WORK = re.compile(r"[^\x00-\x7f]")


def _replacement(char: str) -> str:
    """What one original character becomes in the copy ("" when it is dropped)."""
    if char in _IGNORABLE_EXTRA:
        return ""
    category = unicodedata.category(char)
    if category == "Cf":
        return ""
    if category == "Zs":
        return " "
    if char in _HYPHENS:
        return "-"
    folded = unicodedata.normalize("NFKC", char)
    # NFKC can itself produce spaces or format characters (U+FE4D, U+2474 ...): fold those too.
    return "".join(
        " " if unicodedata.category(c) == "Zs" else c for c in folded if unicodedata.category(c) != "Cf"
    )


@dataclass(frozen=True)
class Normalized:
    """The copy the finders scan and, unless it equals the original, where each of its characters came from.

    `starts[i]` and `ends[i]` are the original span of the copy's character i; a character that NFKC
    expanded into several (U+FB01 "ﬁ" into "fi") maps each piece onto the whole original character.
    """

    text: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the copy's characters start..end (end exclusive, end > start)."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def _identity(text: str) -> bool:
    if text.isascii():  # ASCII is NFKC-stable and holds no format or exotic space character
        return True
    if not unicodedata.is_normalized("NFKC", text):
        return False
    return all(_replacement(char) == char for char in set(_NEEDS_WORK.findall(text)))


def normalize(text: str) -> Normalized:
    """The detection copy of `text` (pure; the common ASCII case costs one `isascii()` call)."""
    if _identity(text):
        return Normalized(text)
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for index, char in enumerate(text):
        out = char if char.isascii() else _replacement(char)
        pieces.append(out)
        starts.extend([index] * len(out))
        ends.extend([index + 1] * len(out))
    return Normalized("".join(pieces), tuple(starts), tuple(ends))
