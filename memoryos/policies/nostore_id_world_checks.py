"""Published check algorithms of national numbers of more countries, as pure tests on the compact number.

Each function takes the number with its separators removed (upper case) and says whether it is well
formed and its check digit or letter holds; none keeps, logs or returns the number. Most of these
checks pass one number in ten or eleven, so `nostore_ids_world` also asks for the number's own name in
the local language before it.
"""

from __future__ import annotations

from memoryos.policies.nostore_checks import luhn_ok
from memoryos.policies.nostore_id_checks import _date_ok


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights, strict=False))


def _born(yy: str, mm: str, dd: str) -> bool:
    """A birth date YYMMDD of some century (the century digit varies by country)."""
    year, month, day = int(yy), int(mm), int(dd)
    return _date_ok(2000 + year, month, day) or _date_ok(1900 + year, month, day)


def kr_rrn_ok(c: str) -> bool:
    """Korean resident registration number YYMMDD-SBBBBNC: weights 2-9,2-5, check (11 - sum mod 11) mod 10."""
    if len(c) != 13 or not c.isdigit() or not _born(c[0:2], c[2:4], c[4:6]):
        return False
    return (11 - _weighted(c, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)) % 11) % 10 == int(c[12])


def tr_tckn_ok(c: str) -> bool:
    """Turkish T.C. kimlik no: 11 digits, never a leading 0, the 10th and 11th digits are sums."""
    if len(c) != 11 or not c.isdigit() or c[0] == "0":
        return False
    d = [int(x) for x in c]
    odd, even = sum(d[0:9:2]), sum(d[1:8:2])
    return (odd * 7 - even) % 10 == d[9] and sum(d[:10]) % 10 == d[10]


def no_fnr_ok(c: str) -> bool:
    """Norwegian fødselsnummer DDMMYYIIIKK: a birth date (day + 40 for a D-number) and two mod-11 digits."""
    if len(c) != 11 or not c.isdigit():
        return False
    day = int(c[0:2])
    if not _born(c[4:6], c[2:4], f"{day - 40 if day > 40 else day:02d}"):
        return False
    for weights, at in (((3, 7, 6, 1, 8, 9, 4, 5, 2), 9), ((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), 10)):
        check = 11 - _weighted(c, weights) % 11
        if (0 if check == 11 else check) != int(c[at]):
            return False
    return True


def cl_rut_ok(c: str) -> bool:
    """Chilean RUT/RUN: digits, then a mod-11 verifier (weights 2-7 from the right; 10 is K, 11 is 0)."""
    body, check = c[:-1], c[-1]
    if not 7 <= len(body) <= 8 or not body.isdigit():
        return False
    total = sum(int(d) * (2 + i % 6) for i, d in enumerate(reversed(body)))
    value = 11 - total % 11
    return {11: "0", 10: "K"}.get(value, str(value)) == check


def ar_cuil_ok(c: str) -> bool:
    """Argentine CUIL/CUIT: type (20, 23, 24, 27, 30, 33, 34), DNI, and a mod-11 digit."""
    if len(c) != 11 or not c.isdigit() or c[:2] not in {"20", "23", "24", "27", "30", "33", "34"}:
        return False
    value = 11 - _weighted(c, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if value == 11 else value) == int(c[10])


_CURP_CHARS = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def mx_curp_ok(c: str) -> bool:
    """Mexican CURP: 18 characters, a birth date, and a base-37 weighted check digit."""
    if len(c) != 18 or not c[17].isdigit() or not _born(c[4:6], c[6:8], c[8:10]):
        return False
    total = sum(_CURP_CHARS.index(ch) * (18 - i) for i, ch in enumerate(c[:17]) if ch in _CURP_CHARS)
    return (10 - total % 10) % 10 == int(c[17])


def luhn_digits_ok(c: str, length: int) -> bool:
    """Luhn over exactly `length` digits, not all one digit (Israeli ID, Greek AMKA, Saudi ID)."""
    return len(c) == length and c.isdigit() and len(set(c)) > 2 and luhn_ok(c)


def il_id_ok(c: str) -> bool:
    """Israeli Teudat Zehut: nine digits (shorter ones padded with zeros) and a Luhn check digit."""
    return c.isdigit() and 5 <= len(c) <= 9 and luhn_digits_ok(c.zfill(9), 9)


def gr_amka_ok(c: str) -> bool:
    """Greek AMKA: the birth date DDMMYY, five more digits, Luhn over all eleven."""
    return luhn_digits_ok(c, 11) and _born(c[4:6], c[2:4], c[0:2])


def sa_id_ok(c: str) -> bool:
    """Saudi national id (1…) or iqama (2…): ten digits with a Luhn check digit."""
    return luhn_digits_ok(c, 10) and c[0] in "12"


def ro_cnp_ok(c: str) -> bool:
    """Romanian CNP: sex/century 1-8, YYMMDD, county, serial, and a check over 279146358279 (10 is 1)."""
    if len(c) != 13 or not c.isdigit() or c[0] not in "12345678" or not _born(c[1:3], c[3:5], c[5:7]):
        return False
    value = _weighted(c, (2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9)) % 11
    return (1 if value == 10 else value) == int(c[12])


def bg_egn_ok(c: str) -> bool:
    """Bulgarian EGN: YYMMDD (month + 20 before 1900, + 40 from 2000), serial, a mod-11 digit (10 is 0)."""
    if len(c) != 10 or not c.isdigit():
        return False
    month = int(c[2:4]) % 20
    if not _born(c[0:2], f"{month:02d}", c[4:6]):
        return False
    value = _weighted(c, (2, 4, 8, 5, 10, 9, 7, 3, 6)) % 11
    return (0 if value == 10 else value) == int(c[9])


def cz_rc_ok(c: str) -> bool:
    """Czech/Slovak rodné číslo YYMMDD/SSSC: month + 50 for women (+ 20 for late ones), the ten-digit
    number divisible by 11 (or the first nine mod 11 being 10 and the last 0)."""
    if len(c) != 10 or not c.isdigit():
        return False
    month = int(c[2:4])
    for offset in (70, 50, 20, 0):
        if month > offset:
            month -= offset
            break
    if not _born(c[0:2], f"{month:02d}", c[4:6]):
        return False
    return int(c) % 11 == 0 or (int(c[:9]) % 11 == 10 and c[9] == "0")


_NRIC_LETTERS = {"ST": "JZIHGFEDCBA", "FG": "XWUTRQPNMLK", "M": "KLJNPQRTUWX"}


def sg_nric_ok(c: str) -> bool:
    """Singapore NRIC/FIN: S, T, F, G or M, seven digits, a check letter over weights 2,7,6,5,4,3,2."""
    if len(c) != 9 or c[0] not in "STFGM" or not c[1:8].isdigit():
        return False
    total = _weighted(c[1:8], (2, 7, 6, 5, 4, 3, 2)) + {"T": 4, "G": 4, "M": 3}.get(c[0], 0)
    table = next(letters for prefixes, letters in _NRIC_LETTERS.items() if c[0] in prefixes)
    return table[total % 11] == c[8]


def hkid_ok(c: str) -> bool:
    """Hong Kong HKID: one or two letters, six digits, a check (0-9 or A) making the sum 0 mod 11."""
    c = c.replace("(", "").replace(")", "")
    letters = c[:-7]
    if not 1 <= len(letters) <= 2 or not letters.isalpha() or not c[-7:-1].isdigit():
        return False
    values = [36] * (2 - len(letters)) + [ord(x) - 55 for x in letters] + [int(x) for x in c[-7:-1]]
    check = 10 if c[-1] == "A" else int(c[-1]) if c[-1].isdigit() else -1
    return check >= 0 and (sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True)) + check) % 11 == 0


_TW_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"  # A = 10 in this order


def tw_id_ok(c: str) -> bool:
    """Taiwan national id: a letter (its two-digit area code), sex 1 or 2, eight digits; sum 0 mod 10."""
    if len(c) != 10 or c[0] not in _TW_LETTERS or c[1] not in "12" or not c[1:].isdigit():
        return False
    code = _TW_LETTERS.index(c[0]) + 10
    total = code // 10 + (code % 10) * 9 + _weighted(c[1:9], (8, 7, 6, 5, 4, 3, 2, 1)) + int(c[9])
    return total % 10 == 0


def ee_ik_ok(c: str) -> bool:
    """Estonian (and Lithuanian) isikukood GYYMMDDSSSC: sex/century 1-6 and a two-pass mod-11 digit."""
    if len(c) != 11 or not c.isdigit() or c[0] not in "123456" or not _born(c[1:3], c[3:5], c[5:7]):
        return False
    value = _weighted(c, (1, 2, 3, 4, 5, 6, 7, 8, 9, 1)) % 11
    if value == 10:
        value = _weighted(c, (3, 4, 5, 6, 7, 8, 9, 1, 2, 3)) % 11 % 10
    return value == int(c[10])


def iso7064_11_10_ok(c: str) -> bool:
    """ISO 7064 MOD 11,10 over eleven digits: the Croatian OIB and the German Steuer-ID."""
    if len(c) != 11 or not c.isdigit():
        return False
    product = 10
    for digit in c[:10]:
        total = (int(digit) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(c[10])


def de_steuer_id_ok(c: str) -> bool:
    """German Steuer-ID: no leading 0, in the first ten digits one digit twice or thrice and no other
    repeated (the issuing rule), then the MOD 11,10 check."""
    if not iso7064_11_10_ok(c) or c[0] == "0":
        return False
    counts = sorted((c[:10].count(d) for d in set(c[:10])), reverse=True)
    return counts[0] in (2, 3) and (len(counts) < 2 or counts[1] == 1)


def is_kt_ok(c: str) -> bool:
    """Icelandic kennitala DDMMYY-RRCK: a date (day + 40 for companies), a mod-11 digit, a century 8/9/0."""
    if len(c) != 10 or not c.isdigit() or c[9] not in "890":
        return False
    if not _born(c[4:6], c[2:4], c[0:2]):
        return False
    value = 11 - _weighted(c, (3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if value == 11 else value) == int(c[8])


def ie_ppsn_ok(c: str) -> bool:
    """Irish PPSN: seven digits, a check letter (mod 23 over weights 8-2, the second letter weighing 9)."""
    if len(c) not in (8, 9) or not c[:7].isdigit() or not c[7:].isalpha():
        return False
    extra = 9 * (ord(c[8]) - 64) if len(c) == 9 and c[8] != "W" else 0
    value = (_weighted(c[:7], (8, 7, 6, 5, 4, 3, 2)) + extra) % 23
    return ("W" if value == 0 else chr(64 + value)) == c[7]


def at_svnr_ok(c: str) -> bool:
    """Austrian Sozialversicherungsnummer NNNC DDMMYY: the 4th digit a mod-11 check over the others."""
    if len(c) != 10 or not c.isdigit() or c[0] == "0":
        return False
    value = _weighted(c, (3, 7, 9, 0, 5, 8, 4, 2, 1, 6)) % 11
    return value == int(c[3]) and 1 <= int(c[4:6]) <= 31 and 1 <= int(c[6:8]) <= 14  # 13, 14: date unknown


def dk_cpr_ok(c: str) -> bool:
    """Danish CPR DDMMYY-SSSS: a birth date (numbers since 2007 need not pass the old mod-11 test, so the
    date and the CPR word before it decide)."""
    return len(c) == 10 and c.isdigit() and _born(c[4:6], c[2:4], c[0:2]) and len(set(c[6:])) > 1


def th_id_ok(c: str) -> bool:
    """Thai national id: 13 digits, type 1-8, and a check (11 - weighted sum mod 11) mod 10, weights 13-2."""
    if len(c) != 13 or not c.isdigit() or c[0] in "09":
        return False
    return (11 - _weighted(c, tuple(range(13, 1, -1))) % 11) % 10 == int(c[12])


def licence_ok(c: str) -> bool:
    """A driving-licence number has no common check: 6 to 18 capitals and digits, at least three digits
    and not one digit repeated (the licence word before it is what makes it one)."""
    digits = sum(ch.isdigit() for ch in c)
    return 6 <= len(c) <= 18 and c.isalnum() and digits >= 3 and len(set(c)) > 3
