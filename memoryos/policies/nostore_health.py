"""Health and insurance numbers of a person: an NHS number, a German KVNR, a US Medicare MBI, a Swiss
AHV number, a European health insurance card, a hospital record or an insurer's member id.

Each kind is its published layout, its check where it has one (NHS mod 11, the KVNR's Luhn-like
digit over the letter's number and eight digits, the AHV's EAN-13 digit, the MBI's position
alphabet) and the words that name it just before the number, in the languages such notes are written
in. A record or member number has no check at all, so only its label makes it one ("MRN 52839754",
"member ID W749821635"). The finder returns the span of the number; nothing here keeps or logs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memoryos.policies.nostore_checks import luhn_ok
from memoryos.policies.nostore_keywords import fold

_WINDOW = 64  # characters before a number in which its label must appear


def nhs_ok(compact: str) -> bool:
    """NHS (England, Wales) number: ten digits, the last a mod-11 check over weights 10 to 2."""
    if len(compact) != 10 or not compact.isdigit() or len(set(compact)) == 1:
        return False
    check = 11 - sum(int(d) * w for d, w in zip(compact[:9], range(10, 1, -1), strict=True)) % 11
    return (0 if check == 11 else check) == int(compact[9])


def kvnr_ok(compact: str) -> bool:
    """German KVNR: a letter and nine digits; the last is a Luhn-like check over the letter's number
    (A = 01) and the next eight digits, weights 1 and 2, products reduced to their digit sum."""
    if len(compact) != 10 or not compact[0].isalpha() or not compact[1:].isdigit():
        return False
    digits = f"{ord(compact[0]) - 64:02d}" + compact[1:9]
    total = 0
    for index, digit in enumerate(digits):
        product = int(digit) * (1 if index % 2 == 0 else 2)
        total += product // 10 + product % 10
    return total % 10 == int(compact[9])


_MBI_LETTER = "ACDEFGHJKMNPQRTUVWXY"  # no S, L, O, I, B, Z
_MBI_LAYOUT = "NALNALNAANN"  # N: a digit (the first 1-9), A: a letter, L: a letter or a digit


def mbi_ok(compact: str) -> bool:
    """US Medicare Beneficiary Identifier: eleven characters in the CMS position layout."""
    if len(compact) != 11 or compact[0] == "0":
        return False
    for char, slot in zip(compact, _MBI_LAYOUT, strict=True):
        if slot == "N" and not char.isdigit():
            return False
        if slot == "A" and char not in _MBI_LETTER:
            return False
        if slot == "L" and not (char.isdigit() or char in _MBI_LETTER):
            return False
    return any(char.isalpha() for char in compact)


def medicare_au_ok(compact: str) -> bool:
    """Australian Medicare card: first digit 2-6, a check digit over weights 1,3,7,9 (9th), an issue
    number (10th) and optionally the person's position on the card."""
    if len(compact) not in (10, 11) or not compact.isdigit() or compact[0] not in "23456":
        return False
    return sum(int(d) * w for d, w in zip(compact[:8], (1, 3, 7, 9, 1, 3, 7, 9), strict=True)) % 10 == int(
        compact[8]
    )


def ontario_card_ok(compact: str) -> bool:
    """Ontario health card: ten digits passing Luhn, then an optional two-letter version code."""
    digits, version = compact[:10], compact[10:]
    if not digits.isdigit() or len(set(digits)) <= 2:
        return False
    return luhn_ok(digits) and (version == "" or version.isalpha())


def ean13_ok(compact: str) -> bool:
    """The Swiss AHV/AVS number: 756 and ten digits, the last an EAN-13 check digit."""
    if len(compact) != 13 or not compact.isdigit() or not compact.startswith("756"):
        return False
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(compact[:12]))
    return (10 - total % 10) % 10 == int(compact[12])


def labelled_number(compact: str) -> bool:
    """A record or member number: six to twelve characters, mostly digits, not one digit repeated."""
    digits = sum(char.isdigit() for char in compact)
    if compact in "01234567890123" or compact in "98765432109876":
        return False  # a run counted up or down is an example, not someone's number
    return 6 <= len(compact) <= 12 and digits >= 6 and len(set(compact)) > 2


@dataclass(frozen=True)
class HealthKind:
    name: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool]  # on the number without separators, upper case
    label: re.Pattern[str] | None  # matched on the lower-cased window before the number
    hints: tuple[str, ...]  # one must occur in the lower-cased text for the kind to run


_DIGIT = re.compile(r"\d")
_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
_INSURANCE = (
    r"versichert|krankenkasse|krankenversicherung|gesundheitskarte|\begk\b|\bkvnr\b|\btk\b|\baok\b|barmer|"
    r"insurance|insurer|health ?card|assurance maladie|mutuelle|seguro|tarjeta sanitaria|tessera sanitaria"
)
KINDS: tuple[HealthKind, ...] = (
    HealthKind(
        "nhs_number",
        re.compile(rf"{_B}\d{{3}}([ \-]?)\d{{3}}\1\d{{4}}{_E}"),
        nhs_ok,
        re.compile(r"\bnhs\b|\bchi\b|health service|nhs-nummer"),
        ("nhs", "chi", "health service"),
    ),
    HealthKind(
        "kvnr",
        re.compile(rf"{_B}[A-Z]\d{{9}}{_E}"),
        kvnr_ok,
        re.compile(_INSURANCE),
        ("versich", "kranken", "gesundheit", "egk", "kvnr", "tk", "aok", "barmer", "insur", "card", "seguro"),
    ),
    HealthKind(
        "medicare_mbi",
        re.compile(rf"{_B}[1-9][A-Z][A-Z0-9]\d-?[A-Z][A-Z0-9]\d-?[A-Z]{{2}}\d{{2}}{_E}"),
        mbi_ok,
        re.compile(r"medicare|\bmbi\b|beneficiary"),
        ("medicare", "mbi", "beneficiary"),
    ),
    HealthKind(
        "medicare_au",
        re.compile(rf"{_B}[2-6]\d{{3}} ?\d{{5}} ?\d(?: ?\d)?{_E}"),
        medicare_au_ok,
        re.compile(r"medicare"),
        ("medicare",),
    ),
    HealthKind(
        "ontario_health_card",
        re.compile(rf"{_B}\d{{4}}([ \-]?)\d{{3}}\1\d{{3}}(?:\1?[A-Z]{{2}})?{_E}"),
        ontario_card_ok,
        re.compile(r"health ?card|health number|\bohip\b|carte santé|carte d'assurance maladie"),
        ("health", "ohip", "carte"),
    ),
    HealthKind(
        "ahv_number",
        re.compile(rf"{_B}756\.\d{{4}}\.\d{{4}}\.\d{{2}}{_E}"),
        ean13_ok,
        None,
        ("756.",),
    ),
    HealthKind(
        "ahv_number_label",
        re.compile(rf"{_B}756\d{{10}}{_E}"),
        ean13_ok,
        re.compile(r"\bahv\b|\bavs\b|sozialversicherungsnummer|assurance vieillesse|\bavs\b"),
        ("ahv", "avs", "sozialversicherung", "vieillesse"),
    ),
    HealthKind(
        "ehic_card",
        re.compile(rf"{_B}\d{{20}}{_E}"),
        lambda compact: len(set(compact)) > 2,
        re.compile(
            r"\behic\b|\bekuz\b|\bteam\b card|european health|europäische krankenversicherung|"
            r"carte européenne d'assurance|tarjeta sanitaria europea|tessera europea|"
            r"europejsk\w* karty? ubezpieczenia|zdrowotn"
        ),
        ("ehic", "ekuz", "european health", "europäische", "européenne", "europea", "europejsk", "zdrowotn"),
    ),
    # Numbers with no check: the label must stand right before, joined by a colon, "no." or a space.
    HealthKind(
        "record_number",
        re.compile(rf"{_B}[A-Z]{{0,3}}\d[A-Z0-9]{{5,11}}{_E}"),
        labelled_number,
        re.compile(
            r"(?:\bmrn\b|medical record(?: number| no\.?)?|patient (?:id|number|no\.?)|hospital number|"
            r"member (?:id|number|no\.?)|subscriber (?:id|number)|policy (?:number|no\.?)|"
            r"insurance (?:id|number|no\.?)|health insurance (?:id|number)|versichertennummer|"
            r"patientennummer|numéro (?:d'assuré|de patient)|numéro de sécurité sociale|"
            r"número de (?:afiliado|paciente|historia clínica)|numer (?:pacjenta|ubezpieczenia))"
            r"[^\n.;]{0,40}?[:#]?\s{0,2}(?:no\.?\s?|nr\.?\s?)?$"
        ),
        ("mrn", "medical record", "patient", "hospital number", "member", "subscriber", "policy",
         "insurance", "versichertennummer", "numéro", "número", "numer"),
    ),
)  # fmt: skip


# One compiled search per kind for its hints: a C-level scan, not a Python loop of `in` tests.
_HINTED: tuple[tuple[HealthKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile("|".join(re.escape(hint) for hint in kind.hints))) for kind in KINDS
)


def _compact(value: str) -> str:
    return re.sub(r"[\s.\-]", "", value).upper()


def find_health_ids(text: str) -> Iterator[tuple[int, int]]:
    """Health and insurance numbers with their check and, where the check is weak or absent, a label."""
    if _DIGIT.search(text) is None:
        return
    folded = fold(text)
    for kind, hinted in _HINTED:
        if hinted.search(folded) is None:
            continue
        for match in kind.pattern.finditer(text):
            if not kind.check(_compact(match.group())):
                continue
            start = match.start()
            if kind.label is None or kind.label.search(folded, max(0, start - _WINDOW), start):
                yield match.span()


# What sets each kind off, for the hostile-input tests.
TRIGGERS: tuple[str, ...] = (
    "NHS no. ", "KVNR ", "Versichertennummer: ", "Medicare MBI ", "756.", "AHV ", "EKUZ ", "MRN ",
    "member ID ", "patient number: ", "insurance", "Medicare card ", "health card: ",
    "A123456789 ", "1AB2-C34-DE56 ",
)  # fmt: skip
