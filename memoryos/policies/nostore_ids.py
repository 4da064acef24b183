"""National identity numbers: personal data as much as a card number, and as easy to paste into a chat.

Each kind pairs its published format with its own check: a check digit or letter where the number has
one (Spanish DNI/NIE, French NIR, Chinese resident ID, Japanese My Number, Dutch BSN), the issuing
rules otherwise (US SSN area and group numbers, UK National Insurance prefixes). `MORE_KINDS` add the
Italian codice fiscale, Portuguese NIF, Polish PESEL, Indian Aadhaar and PAN, Brazilian CPF, Canadian
SIN, Australian TFN and South African ID number, with the checks of `nostore_id_checks`. Where the check
is weak (one number in ten or eleven passes) or absent (passport numbers, PAN), a context word within a
few words before the number is required as well: "BSN: 123456782", "passport no. X1234567", "PESEL ...".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memoryos.policies.nostore_id_checks import (
    aadhaar_ok,
    codice_fiscale_ok,
    cpf_ok,
    fi_hetu_ok,
    mrz_ok,
    pan_ok,
    pesel_ok,
    pt_nif_ok,
    se_personnummer_ok,
    sin_ok,
    tfn_ok,
    za_id_ok,
)
from memoryos.policies.nostore_ids_world import find_world_ids
from memoryos.policies.nostore_keywords import fold

_CONTEXT_WINDOW = 48  # characters before a number in which its context word must appear


@dataclass(frozen=True)
class IdKind:
    """One kind of national number: a candidate regex, its check and the context it needs (if any)."""

    name: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool]  # on the number with separators removed, upper case
    context: re.Pattern[str] | None = None  # required before the number when set
    # Whether the context is matched on the text as written: "SIN" is the Canadian number, "sin" the
    # sine and the Spanish "without".
    cased: bool = False


def _digits(value: str) -> str:
    return re.sub(r"[\s.\-/]", "", value).upper()


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_ok(compact: str) -> bool:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter): the letter is the mod-23 check."""
    if compact[0] in "XYZ":
        compact = str("XYZ".index(compact[0])) + compact[1:]
    return len(compact) == 9 and compact[:8].isdigit() and _DNI_LETTERS[int(compact[:8]) % 23] == compact[8]


def nir_ok(compact: str) -> bool:
    """French NIR: sex, year, month, department, commune, order, then a key of 97 - (number mod 97)."""
    if len(compact) != 15 or compact[0] not in "12":
        return False
    body = compact[:13].replace("2A", "19").replace("2B", "18")
    if not body.isdigit() or not compact[13:].isdigit():
        return False
    month = int(compact[3:5])
    return (1 <= month <= 12 or month >= 20) and 97 - int(body) % 97 == int(compact[13:])


_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_resident_ok(compact: str) -> bool:
    """Chinese resident ID: region, birth date YYYYMMDD, order, and an ISO 7064 MOD 11-2 check."""
    if len(compact) != 18 or not compact[:17].isdigit():
        return False
    year, month, day = int(compact[6:10]), int(compact[10:12]), int(compact[12:14])
    if not (1900 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31):
        return False
    total = sum(int(digit) * weight for digit, weight in zip(compact[:17], _CN_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == compact[17]


def my_number_ok(compact: str) -> bool:
    """Japanese individual number: 11 digits and a mod-11 check digit (Cabinet Office order)."""
    if len(compact) != 12 or not compact.isdigit():
        return False
    body = [int(d) for d in reversed(compact[:11])]
    total = sum(p * (n + 1 if n <= 6 else n - 5) for n, p in enumerate(body, start=1))
    remainder = total % 11
    return int(compact[11]) == (0 if remainder <= 1 else 11 - remainder)


def bsn_ok(compact: str) -> bool:
    """Dutch BSN: the "eleven test", weights 9..2 and -1."""
    if len(compact) != 9 or not compact.isdigit() or compact == "000000000":
        return False
    total = sum(int(d) * w for d, w in zip(compact[:8], range(9, 1, -1), strict=True)) - int(compact[8])
    return total % 11 == 0


def ssn_ok(compact: str) -> bool:
    """US SSN: area not 000, 666 or 9xx, group not 00, serial not 0000 (SSA's issuing rules)."""
    if len(compact) != 9 or not compact.isdigit():
        return False
    area, group, serial = compact[:3], compact[3:5], compact[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_NINO_BAD_PREFIXES = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})


def nino_ok(compact: str) -> bool:
    """UK National Insurance number: two letters (D, F, I, Q, U, V never; O never second), six digits,
    a suffix A-D; some prefixes are never issued."""
    return bool(re.fullmatch(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D]", compact)) and (
        compact[:2] not in _NINO_BAD_PREFIXES
    )


def passport_ok(compact: str) -> bool:
    """Passport numbers have no public check digit: 6-9 capitals and digits, with at least one digit."""
    return 6 <= len(compact) <= 9 and any(c.isdigit() for c in compact)


def _context(words: str) -> re.Pattern[str]:
    """Context words, matched against a lower-cased copy: case-sensitive regexes run several times
    faster than IGNORECASE ones, and these run on every note that holds a number."""
    return re.compile(words)


# Every number is bounded by any ASCII letter or digit, not by digits alone: inside a hex token
# ("...c5484982ebce...", a uuid4().hex) a digit run between two letters is no number of its own, yet it
# passes a NIR's mod-97 key once in 97 and the SSN's issuing rules nine times in ten. Scripts without
# spaces still touch the number ("マイナンバーは1234 5678 9018です"): only ASCII bounds it.
_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
_SSN_CONTEXT = _context(r"\bssn\b|social security|seguro social|\bsocial\b|\bsocial-security")
KINDS: tuple[IdKind, ...] = (
    IdKind("es_dni", re.compile(rf"{_B}(?:[XYZ]-?\d{{7}}|\d{{8}})[ \-]?[A-Z]{_E}"), dni_ok),
    IdKind(
        "fr_nir",
        re.compile(rf"{_B}[12] ?\d{{2}} ?\d{{2}} ?(?:\d{{2}}|2[AB]) ?\d{{3}} ?\d{{3}} ?\d{{2}}{_E}"),
        nir_ok,
    ),
    IdKind("cn_resident_id", re.compile(rf"{_B}\d{{17}}[0-9Xx]{_E}"), cn_resident_ok),
    IdKind(
        "jp_my_number",
        re.compile(rf"{_B}\d{{4}}[ \-]?\d{{4}}[ \-]?\d{{4}}{_E}"),
        my_number_ok,
        _context(r"マイナンバー|個人番号|\bmy ?number\b"),
    ),
    IdKind(
        "nl_bsn",
        re.compile(rf"{_B}(?:\d{{9}}|\d{{3}}\.\d{{3}}\.\d{{3}}){_E}"),
        bsn_ok,
        _context(r"\bbsn\b|burgerservicenummer|sofi-?nummer"),
    ),
    # A dash before or after is part of a longer dashed number (a phone, a part number), not an SSN.
    IdKind("us_ssn", re.compile(r"(?<![A-Za-z0-9\-])\d{3}-\d{2}-\d{4}(?![A-Za-z0-9\-])"), ssn_ok),
    IdKind(
        "us_ssn_context",
        re.compile(r"(?<![A-Za-z0-9\-])\d{3}[ ]?\d{2}[ ]?\d{4}(?![A-Za-z0-9\-])"),
        ssn_ok,
        _SSN_CONTEXT,
    ),
    IdKind(
        "uk_nino",
        re.compile(rf"{_B}[A-Z]{{2}} \d{{2}} \d{{2}} \d{{2}} [A-D]{_E}"),
        nino_ok,
    ),
    IdKind(
        "uk_nino_context",
        re.compile(rf"{_B}[A-Z]{{2}} ?\d{{2}} ?\d{{2}} ?\d{{2}} ?[A-D]{_E}"),
        nino_ok,
        _context(r"national insurance|\bnino\b|\bni\b ?(?:number|no)"),
    ),
    IdKind(
        "passport",
        re.compile(rf"{_B}[A-Z0-9]{{6,9}}{_E}"),
        passport_ok,
        _context(
            r"passport|passeport|pasaporte|passaporto|passaporte|reisepass|paspoort|paszport|"
            r"护照|護照|旅券|パスポート|паспорт|여권|पासपोर्ट|جواز السفر|דרכון|pasaport|passi|διαβατήριο|"
            r"hộ chiếu|หนังสือเดินทาง"
        ),
    ),
)
# Numbers of more countries, each with its published check (`nostore_id_checks`). The dashed and
# spaced forms keep one separator throughout (the backreference), as the numbers are printed.
_SPACED9 = r"(?<![A-Za-z0-9\-])\d{3}([ \-]?)\d{3}\1\d{3}(?![A-Za-z0-9\-])"
MORE_KINDS: tuple[IdKind, ...] = (
    # A check letter over a fixed layout of letters and digits: no context needed, as for the DNI.
    IdKind(
        "it_codice_fiscale",
        re.compile(rf"{_B}[A-Z]{{6}}[0-9L-V]{{2}}[ABCDEHLMPRST][0-9L-V]{{2}}[A-Z][0-9L-V]{{3}}[A-Z]{_E}"),
        codice_fiscale_ok,
    ),
    IdKind(
        "pt_nif",
        re.compile(rf"{_B}\d{{3}} ?\d{{3}} ?\d{{3}}{_E}"),
        pt_nif_ok,
        _context(r"\bnif\b|\bnipc\b|contribuinte|identifica[çc][ãa]o fiscal|n[úu]mero fiscal"),
    ),
    IdKind("pl_pesel", re.compile(rf"{_B}\d{{11}}{_E}"), pesel_ok, _context(r"pesel")),
    IdKind(
        "in_aadhaar",
        re.compile(rf"{_B}[2-9]\d{{3}}([ \-]?)\d{{4}}\1\d{{4}}{_E}"),
        aadhaar_ok,
        _context(r"aadhaa?r|आधार|\buid\b|uidai"),
    ),
    IdKind(
        "in_pan",
        re.compile(rf"{_B}[A-Z]{{3}}[ABCFGHJLPT][A-Z]\d{{4}}[A-Z]{_E}"),
        pan_ok,
        _context(r"\bpan\b|permanent account number|पैन"),
    ),
    # The dotted form is the CPF's own ("123.456.789-09"); eleven bare digits need the word.
    IdKind(
        "br_cpf", re.compile(r"(?<![A-Za-z0-9.\-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![A-Za-z0-9]|[.\-]\d)"), cpf_ok
    ),
    IdKind(
        "br_cpf_context",
        re.compile(rf"{_B}\d{{11}}{_E}"),
        cpf_ok,
        _context(r"\bcpf\b|cadastro de pessoas? f[íi]sicas?"),
    ),
    IdKind(
        "ca_sin",
        re.compile(_SPACED9),
        sin_ok,
        re.compile(r"\bSIN\b|(?i:social insurance|assurance sociale)"),
        cased=True,
    ),
    IdKind(
        "au_tfn",
        re.compile(r"(?<![A-Za-z0-9\-])\d{3}([ \-]?)\d{3}\1\d{2,3}(?![A-Za-z0-9\-])"),
        tfn_ok,
        _context(r"\btfn\b|tax file (?:number|no)"),
    ),
    IdKind(
        "se_personnummer",
        re.compile(r"(?<![A-Za-z0-9\-])(?:18|19|20)?\d{6}[-+]?\d{4}(?![A-Za-z0-9\-])"),
        se_personnummer_ok,
        _context(r"personnummer|personnr|person-?nr|samordningsnummer|personal identity number"),
    ),
    # The century sign is a letter for births from 2000 (A-F) or a variant (U-Y): distinctive alone.
    IdKind("fi_hetu", re.compile(rf"{_B}\d{{6}}[A-FU-Y]\d{{3}}[0-9A-Y]{_E}"), fi_hetu_ok),
    IdKind(
        "fi_hetu_context",
        re.compile(r"(?<![A-Za-z0-9\-])\d{6}[-+]\d{3}[0-9A-Y](?![A-Za-z0-9\-])"),
        fi_hetu_ok,
        _context(r"henkilötunnu|\bhetu\b|sosiaaliturvatunnu|personbeteckning|identity code"),
    ),
    # The machine-readable line of a passport page: 44 characters with its check digits.
    IdKind(
        "passport_mrz",
        re.compile(r"(?<![A-Z0-9<])[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7}[A-Z0-9<]{14}\d\d"),
        mrz_ok,
    ),
    IdKind(
        "za_id",
        re.compile(rf"{_B}\d{{6}}( ?)\d{{4}}\1\d{{3}}{_E}"),
        za_id_ok,
        _context(r"\bid\b|identity|identiteit|south africa|suid-afrika|\brsa\b"),
    ),
)
ALL_KINDS: tuple[IdKind, ...] = KINDS + MORE_KINDS
# Substrings of which every context match holds one (in the text as the kind matches it): testing
# them with `in` is a fraction of the cost of a context regex over the whole text, and most notes hold
# none. The context regex still decides, in the window before each number.
CONTEXT_HINTS: dict[str, tuple[str, ...]] = {
    "jp_my_number": ("マイナンバー", "個人番号", "my number", "mynumber"),
    "nl_bsn": ("bsn", "burgerservicenummer", "sofi"),
    "us_ssn_context": ("ssn", "social"),
    "uk_nino_context": ("national insurance", "nino", "ni number", "ninumber", "ni no"),
    "passport": (
        "passport", "passeport", "pasaporte", "passaporto", "passaporte", "reisepass", "paspoort", "paszport",
        "护照", "護照", "旅券", "パスポート", "паспорт", "여권", "पासपोर्ट", "جواز السفر", "דרכון", "pasaport",
        "passi", "διαβατήριο", "hộ chiếu", "หนังสือเดินทาง",
    ),
    "pt_nif": ("nif", "nipc", "contribuinte", "fiscal"),
    "pl_pesel": ("pesel",),
    "in_aadhaar": ("aadhar", "aadhaar", "आधार", "uid"),
    "in_pan": ("pan", "permanent account number", "पैन"),
    "br_cpf_context": ("cpf", "cadastro de pessoa"),
    "ca_sin": ("SIN", "surance", "SURANCE"),  # matched on the text as written
    "au_tfn": ("tfn", "tax file"),
    "se_personnummer": ("personnummer", "personnr", "person-nr", "personnr", "samordning", "identity number"),
    "fi_hetu_context": ("henkilötunnu", "hetu", "sosiaaliturva", "personbeteckning", "identity code"),
    "za_id": ("id", "identit", "south africa", "suid-afrika", "rsa"),
}  # fmt: skip
# Kinds whose numbers need not hold two digit pairs in a row (letters may stand for digits).
_UNGATED = frozenset({"passport", "it_codice_fiscale", "passport_mrz"})
# Every other kind holds two digit pairs with at most one separator between them: a cheap gate.
_HINT = re.compile(r"\d{2}[ .\-]?\d{2}")
_DIGIT = re.compile(r"\d")


def _has_context(kind: IdKind, haystack: str, start: int) -> bool:
    if kind.context is None:
        return True
    return kind.context.search(haystack, max(0, start - _CONTEXT_WINDOW), start) is not None


def _may_apply(kind: IdKind, haystack: str, pairs: bool) -> bool:
    if not (pairs or kind.name in _UNGATED):
        return False
    return kind.context is None or any(hint in haystack for hint in CONTEXT_HINTS[kind.name])


def find_national_ids(text: str) -> Iterator[tuple[int, int]]:
    if _DIGIT.search(text) is None:
        return
    pairs = _HINT.search(text) is not None
    folded = fold(text)
    for kind in ALL_KINDS:
        haystack = text if kind.cased else folded
        if not _may_apply(kind, haystack, pairs):
            continue
        for match in kind.pattern.finditer(text):
            if kind.check(_digits(match.group())) and _has_context(kind, haystack, match.start()):
                yield match.span()
    yield from find_world_ids(text, folded)
