"""Published check algorithms of more national numbers, as pure tests on the compact number.

Each function takes the number with its separators removed (upper case) and says whether it is
well formed and its check digit or letter holds; none keeps, logs or returns the number. Where the
check is weak (one number in ten or eleven passes), `nostore_ids` also asks for a context word.
"""

from __future__ import annotations

import datetime as dt
import re

from memoryos.policies.nostore_checks import luhn_ok

# Italian codice fiscale: the check letter weighs characters in odd positions (1st, 3rd, ...) by
# this table and those in even positions by their plain value (0-9, A=0 .. Z=25), sum mod 26.
_CF_ODD = dict(
    zip(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3,
         6, 8, 12, 14, 16, 10, 22, 25, 24, 23),
        strict=True,
    )
)  # fmt: skip
# Omocodia: when two people would get the same code, digits are replaced by these letters, in order.
_CF_OMOCODE = str.maketrans("LMNPQRSTUV", "0123456789")
_CF_SHAPE = re.compile(r"[A-Z]{6}[0-9L-V]{2}[ABCDEHLMPRST][0-9L-V]{2}[A-Z][0-9L-V]{3}[A-Z]")


def _cf_even(char: str) -> int:
    return int(char) if char.isdigit() else ord(char) - 65


def codice_fiscale_ok(compact: str) -> bool:
    """Italian tax code: surname and name letters, birth year, month letter, day (+40 for women),
    municipality, then the check letter."""
    if len(compact) != 16 or not _CF_SHAPE.fullmatch(compact):
        return False
    day = int(compact[9:11].translate(_CF_OMOCODE))
    if not (1 <= day <= 31 or 41 <= day <= 71):
        return False
    total = sum(_CF_ODD[c] if i % 2 == 0 else _cf_even(c) for i, c in enumerate(compact[:15]))
    return chr(65 + total % 26) == compact[15]


def pt_nif_ok(compact: str) -> bool:
    """Portuguese NIF: nine digits, weights 9..2 on the first eight, check 11 - (sum mod 11), 0 for 10 or 11.
    The first digit says who holds it (1-3 people, 5 companies, 6 public bodies, 7-9 others); never 0 or 4."""
    if len(compact) != 9 or not compact.isdigit() or compact[0] in "04":
        return False
    remainder = sum(int(d) * w for d, w in zip(compact[:8], range(9, 1, -1), strict=True)) % 11
    return int(compact[8]) == (0 if remainder < 2 else 11 - remainder)


_PESEL_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)


def _date_ok(year: int, month: int, day: int) -> bool:
    try:
        dt.date(year, month, day)
    except ValueError:
        return False
    return True


def pesel_ok(compact: str) -> bool:
    """Polish PESEL: birth date YYMMDD (the century added to the month: +80 1800s, +20 2000s, ...),
    serial, sex, and a check digit of weights 1 3 7 9."""
    if len(compact) != 11 or not compact.isdigit():
        return False
    month = int(compact[2:4])
    century = {0: 1900, 1: 1900, 2: 2000, 3: 2000, 4: 2100, 5: 2100, 6: 2200, 7: 2200, 8: 1800, 9: 1800}
    year = century[month // 10] + int(compact[:2])
    if not _date_ok(year, month % 20, int(compact[4:6])):
        return False
    total = sum(int(d) * w for d, w in zip(compact[:10], _PESEL_WEIGHTS, strict=True))
    return (10 - total % 10) % 10 == int(compact[10])


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def verhoeff_ok(digits: str) -> bool:
    """The Verhoeff dihedral-group check digit holds (it catches every transposition, unlike Luhn)."""
    check = 0
    for index, char in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[index % 8][int(char)]]
    return check == 0


def aadhaar_ok(compact: str) -> bool:
    """Indian Aadhaar: twelve digits, never starting with 0 or 1, the last a Verhoeff check digit."""
    return len(compact) == 12 and compact.isdigit() and compact[0] not in "01" and verhoeff_ok(compact)


# The fourth letter is the holder's type: P a person, C company, H Hindu undivided family, F firm,
# A association, T trust, B body of individuals, L local authority, J juridical person, G government.
_PAN_SHAPE = re.compile(r"[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]")


def pan_ok(compact: str) -> bool:
    """Indian PAN: AAAPA9999A. Its last letter is a check whose algorithm is not published, so the
    shape is all there is to test; `nostore_ids` asks for the word "PAN" before it."""
    return _PAN_SHAPE.fullmatch(compact) is not None


def _cpf_digit(digits: str) -> int:
    total = sum(int(d) * w for d, w in zip(digits, range(len(digits) + 1, 1, -1), strict=True))
    return total * 10 % 11 % 10


def cpf_ok(compact: str) -> bool:
    """Brazilian CPF: nine digits and two mod-11 check digits; eleven equal digits pass the checks
    but are never issued."""
    if len(compact) != 11 or not compact.isdigit() or len(set(compact)) == 1:
        return False
    return _cpf_digit(compact[:9]) == int(compact[9]) and _cpf_digit(compact[:10]) == int(compact[10])


def sin_ok(compact: str) -> bool:
    """Canadian SIN: nine digits passing Luhn; 0 and 8 are never a first digit of a person's number."""
    return len(compact) == 9 and compact.isdigit() and compact[0] not in "08" and luhn_ok(compact)


_TFN_WEIGHTS = {9: (1, 4, 3, 7, 5, 8, 6, 9, 10), 8: (10, 7, 8, 4, 6, 3, 5, 1)}


def tfn_ok(compact: str) -> bool:
    """Australian tax file number: nine digits (eight for old ones) whose weighted sum is 0 mod 11."""
    weights = _TFN_WEIGHTS.get(len(compact))
    if weights is None or not compact.isdigit() or len(set(compact)) == 1:
        return False
    return sum(int(d) * w for d, w in zip(compact, weights, strict=True)) % 11 == 0


def za_id_ok(compact: str) -> bool:
    """South African ID number: birth date YYMMDD, four serial digits (sex), citizenship 0-2, a digit
    (8 or 9 today) and a Luhn check digit."""
    if len(compact) != 13 or not compact.isdigit() or compact[10] not in "012":
        return False
    year, month, day = int(compact[:2]), int(compact[2:4]), int(compact[4:6])
    if not (_date_ok(1900 + year, month, day) or _date_ok(2000 + year, month, day)):
        return False
    return luhn_ok(compact)


def se_personnummer_ok(compact: str) -> bool:
    """Swedish personnummer (YYMMDD-NNNC, or with the century): a birth date (day + 60 for a
    samordningsnummer) and a Luhn check over the ten digits."""
    compact = compact.replace("+", "")
    if len(compact) == 12 and compact[:2] in ("18", "19", "20"):
        compact = compact[2:]
    if len(compact) != 10 or not compact.isdigit():
        return False
    day = int(compact[4:6])
    if not _date_ok(2000, int(compact[2:4]), day - 60 if day > 60 else day):
        return False
    return luhn_ok(compact)


_HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"
_HETU_CENTURY = {"+": 1800, "-": 1900, "A": 2000, "B": 2000, "C": 2000, "D": 2000, "E": 2000, "F": 2000}
_HETU_CENTURY.update(dict.fromkeys("UVWXY", 1900))


def fi_hetu_ok(compact: str) -> bool:
    """Finnish henkilötunnus DDMMYYCNNNX: a birth date, the century sign, and the check character of
    the nine digits mod 31. The "-" sign may have been dropped with the other separators."""
    if len(compact) == 10:
        compact = compact[:6] + "-" + compact[6:]
    if len(compact) != 11 or not (compact[:6] + compact[7:10]).isdigit() or compact[6] not in _HETU_CENTURY:
        return False
    year = _HETU_CENTURY[compact[6]] + int(compact[4:6])
    if not _date_ok(year, int(compact[2:4]), int(compact[:2])):
        return False
    return _HETU_CHECK[int(compact[:6] + compact[7:10]) % 31] == compact[10]


def _mrz_digit(field: str) -> int:
    weights = (7, 3, 1)
    total = 0
    for index, char in enumerate(field):
        value = int(char) if char.isdigit() else (ord(char) - 55 if char.isalpha() else 0)
        total += value * weights[index % 3]
    return total % 10


def mrz_ok(line: str) -> bool:
    """The second line of an ICAO 9303 TD3 passport page (44 characters): the document number, birth
    date and expiry each carry a check digit; two of the three right make it a passport's, not chance."""
    if len(line) != 44 or not line[13:19].isdigit():
        return False
    fields = ((line[0:9], line[9]), (line[13:19], line[19]), (line[21:27], line[27]))
    right = sum(digit.isdigit() and _mrz_digit(field) == int(digit) for field, digit in fields)
    return right >= 2 and _date_ok(2000, int(line[15:17]), int(line[17:19]))
