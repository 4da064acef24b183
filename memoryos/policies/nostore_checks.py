"""Pure validators behind the no-store rule: checksums, entropy and "looks like words" scores.

They take the candidate text and answer yes or no; none of them keeps, logs or returns the text.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

# IBAN lengths per country (ISO 13616 registry); a wrong length is rejected before the mod-97 check,
# which alone would accept one random string in 97.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
    "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip

# Issuer prefixes of payment networks: (low, high) inclusive, compared on the same number of leading
# digits, with the card lengths that network issues. Luhn alone accepts one random number in ten.
_IIN_RANGES: tuple[tuple[str, str, frozenset[int]], ...] = (
    ("4", "4", frozenset({13, 16, 19})),  # Visa
    ("51", "55", frozenset({16})),  # Mastercard
    ("2221", "2720", frozenset({16})),  # Mastercard 2-series
    ("34", "34", frozenset({15})),  # American Express
    ("37", "37", frozenset({15})),
    ("300", "305", frozenset({14, 16, 17, 18, 19})),  # Diners Club
    ("36", "36", frozenset({14, 16, 17, 18, 19})),
    ("38", "39", frozenset({14, 16, 17, 18, 19})),
    ("6011", "6011", frozenset({16, 17, 18, 19})),  # Discover
    ("644", "649", frozenset({16, 17, 18, 19})),
    ("65", "65", frozenset({16, 17, 18, 19})),
    ("3528", "3589", frozenset({16, 17, 18, 19})),  # JCB
    ("62", "62", frozenset({16, 17, 18, 19})),  # UnionPay
    ("2200", "2204", frozenset({16, 17, 18, 19})),  # Mir
    ("50", "50", frozenset({12, 13, 14, 15, 16, 17, 18, 19})),  # Maestro
    ("56", "58", frozenset({12, 13, 14, 15, 16, 17, 18, 19})),
    ("6304", "6304", frozenset({12, 13, 14, 15, 16, 17, 18, 19})),
    ("6759", "6759", frozenset({12, 13, 14, 15, 16, 17, 18, 19})),
    ("6761", "6763", frozenset({12, 13, 14, 15, 16, 17, 18, 19})),
)


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) check digit is valid; `digits` holds only ASCII digits."""
    if not digits.isascii() or not digits.isdigit():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def known_card_prefix(digits: str) -> bool:
    """The number starts with a payment network's issuer prefix and has a length that network uses."""
    for low, high, lengths in _IIN_RANGES:
        if len(digits) in lengths and low <= digits[: len(low)] <= high:
            return True
    return False


def card_number_ok(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and known_card_prefix(digits) and luhn_ok(digits)


def iban_ok(compact: str) -> bool:
    """A compact (no spaces, upper case) IBAN has its country's length and a valid mod-97 checksum."""
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isascii() or not compact.isalnum():
        return False
    if not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def shannon_entropy(token: str) -> float:
    """Bits per character of the token's own character distribution."""
    if not token:
        return 0.0
    size = len(token)
    return -sum(n / size * math.log2(n / size) for n in Counter(token).values())


# Pieces of an identifier: an optional capital followed by lower-case letters, or an all-caps run.
_WORD_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VOWELS = frozenset("aeiouyAEIOUY")
_VOWEL_SPLIT = re.compile(r"[aeiouyAEIOUY]")


def _pronounceable(piece: str) -> bool:
    """Three or more letters, a third of them vowels and no run of five consonants, as in words.

    Random letters are about a quarter vowels (Y counted), words over a third: with these bounds 99 %
    of random base62 tokens score under 0.5 while identifiers such as getUserProfileById score over it.
    """
    if len(piece) < 3:
        return False
    vowels = sum(map(_VOWELS.__contains__, piece))  # map over a C method: this is the hot loop
    if vowels * 3 < len(piece):
        return False
    return max(len(run) for run in _VOWEL_SPLIT.split(piece)) <= 4


def wordiness(token: str) -> float:
    """Share of the token's characters that belong to word-like pieces (0.0 random .. 1.0 prose-like).

    Identifiers such as `getUserProfileById2` and file names score high; random key material scores low,
    because random letters rarely form runs of three or more with natural vowel spacing.
    """
    if not token:
        return 0.0
    covered = sum(len(piece) for piece in _WORD_PIECE.findall(token) if _pronounceable(piece))
    return covered / len(token)


def char_classes(token: str) -> int:
    """How many of lower case, upper case, digit and symbol the token mixes."""
    # Case-mapping round trips answer "any upper / any lower" in C, which matters in the hot loop.
    return (
        (token.upper() != token)
        + (token.lower() != token)
        + any(map(str.isdigit, token))
        + (not token.isalnum())
    )


# Six or more of one filler character: "sk_live_XXXXXXXX", "ghp_xxxx...", "T00000000", "********".
_FILLER_RUN = re.compile(r"([Xx0*•#.])\1{5,}")


# An elided value: "sk-ant-api03-...", "hf_…NEeF". What is left beside the ellipsis is a prefix or a
# few characters, shown so a reader knows which key is meant; a run of eight is already key material.
_ELLIPSIS = re.compile(r"\.{3}|…")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{8,}")


def _elided(value: str) -> bool:
    return _ELLIPSIS.search(value) is not None and _RANDOM_RUN.search(value) is None


def placeholder_secret(value: str) -> bool:
    """A template value in a secret's shape ("glpat-XXXXXXXXXXXX", "hooks.slack.com/.../T00000000/...").

    Templates fill the random part with one repeated character, or elide it ("sk-ant-api03-...");
    random keys practically never hold a run of six. Vendors' documented example keys (AWS's "...EXAMPLE")
    are still refused: they are in the exact format of a live key, and refusing one costs nothing.
    """
    return _FILLER_RUN.search(value) is not None or _elided(value)


_B64_BODY = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")


_SECRET_FIELD = re.compile(r"(?i)private[_ ]?key|secret|passw|api[_-]?key|access[_-]?token|credential")


def _utf8_text(decoded: bytes) -> bool:
    """UTF-8 of readable text in any script ("Rechnung März" in a MIME encoded word): every character
    printable but for line breaks and tabs."""
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return sum(char.isprintable() or char in "\t\n\r" for char in text) >= 0.95 * len(text)


def decodes_to_text(token: str) -> bool:
    """Base64 of readable text ("next_page_token: eyJwYWdlIjoyfQ==") is an encoded note, not a key.

    Key material decodes to random bytes; a decoding that is at least 95 % printable ASCII is text
    or JSON. A decoded "user:password" pair stays a credential: that is what HTTP Basic sends.
    """
    if not _B64_BODY.fullmatch(token):
        return False
    body = token.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(decoded) < 8:
        return False
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in decoded)
    if printable < 0.95 * len(decoded) and not _utf8_text(decoded):
        return False
    text = decoded.decode("utf-8", errors="replace")
    if _SECRET_FIELD.search(text):
        return False  # base64 of a service account's JSON or a config: the credential is inside
    return not re.fullmatch(r"[A-Za-z0-9._@+\-]{1,64}:\S{1,128}", text)
