"""National identity numbers of more countries: each its printed layout, its published check
(`nostore_id_world_checks`) and its own name in the local language before it.

The checks of most of these pass one number in ten or eleven, and eleven digits are also an order
number or a phone, so a kind needs its name within a few words before the number: "TC kimlik no",
"Fødselsnummer", "rodné číslo", "ΑΜΚΑ", "ЕГН", "身分證字號", "주민등록번호", "CNP", "OIB". A Mexican
CURP holds its own birth date and sex letter in a fixed layout of 18 characters, so it needs no word.
All words are tested on the lower-cased text with one combined search first: most notes hold none,
and then no kind runs at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memoryos.policies import nostore_id_world_checks as checks

_WINDOW = 56  # characters before the number in which its name must appear


@dataclass(frozen=True)
class WorldKind:
    name: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool]  # on the number with separators removed, upper case
    context: re.Pattern[str] | None  # on the lower-cased window before the number; None: not needed
    hints: tuple[str, ...]  # one occurs in the lower-cased text whenever the context can match


# Bounded by any ASCII letter or digit (a digit run inside a hex token is no number), and by a dash on
# the dashed kinds (a longer dashed number is a part or a phone number).
_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
_BD = r"(?<![A-Za-z0-9\-])"
_ED = r"(?![A-Za-z0-9\-])"
_NATIONAL = r"national id|identity (?:number|card|no)|id (?:number|no)|id-nummer"


def _kind(
    name: str, pattern: str, check: Callable[[str], bool], context: str | None, *hints: str
) -> WorldKind:
    return WorldKind(name, re.compile(pattern), check, re.compile(context) if context else None, hints)


KINDS: tuple[WorldKind, ...] = (
    _kind("kr_rrn", rf"{_BD}\d{{6}}-?\d{{7}}{_ED}", checks.kr_rrn_ok,
          r"주민등록|주민번호|resident registration|\brrn\b", "주민", "resident registration", "rrn"),
    _kind("tr_tckn", rf"{_B}[1-9]\d{{10}}{_E}", checks.tr_tckn_ok,
          r"kimlik|\btckn\b|\btc ?no\b|t\.c\.", "kimlik", "tckn", "tc", "t.c."),
    _kind("no_fodselsnummer", rf"{_B}\d{{6}} ?\d{{5}}{_E}", checks.no_fnr_ok,
          r"fødselsnummer|fodselsnummer|personnummer|d-nummer", "fødselsn", "fodselsn", "personnummer",
          "d-nummer"),
    _kind("cl_rut", rf"{_BD}\d{{1,2}}(\.?)\d{{3}}\1\d{{3}}-?[0-9Kk]{_ED}", checks.cl_rut_ok,
          r"\brut\b|\brun\b|rol [úu]nico", "rut", "run", "rol "),
    _kind("ar_cuil", rf"{_BD}\d{{2}}(-?)\d{{8}}\1\d{_ED}", checks.ar_cuil_ok, r"\bcui[lt]\b", "cuil", "cuit"),
    _kind("mx_curp", rf"{_B}[A-Z]{{4}}\d{{6}}[HMX][A-Z]{{5}}[0-9A-Z]\d{_E}", checks.mx_curp_ok, None),
    _kind("il_teudat_zehut", rf"{_BD}\d{{9}}{_ED}", checks.il_id_ok,
          r"זהות|ת\.ז|ת\"ז|teudat|zehut|israeli id", "זהות", "ת.ז", 'ת"ז', "teudat", "zehut", "israeli"),
    _kind("ro_cnp", rf"{_B}[1-8]\d{{12}}{_E}", checks.ro_cnp_ok, r"\bcnp|cod numeric personal", "cnp",
          "cod numeric"),
    _kind("bg_egn", rf"{_B}\d{{10}}{_E}", checks.bg_egn_ok, r"егн|\begn\b|единен граждански", "егн",
          "egn", "граждански"),
    _kind("cz_rodne_cislo", rf"{_BD}\d{{6}}/?\d{{4}}{_ED}", checks.cz_rc_ok,
          r"rodn[éeého]+ čísl|rodne cisl|\brč\b|birth number", "rodn", "rč", "birth number"),
    _kind("gr_amka", rf"{_B}\d{{11}}{_E}", checks.gr_amka_ok, r"αμκα|\bamka\b", "αμκα", "amka"),
    _kind("sg_nric", rf"{_B}[STFGM]\d{{7}}[A-Z]{_E}", checks.sg_nric_ok,
          rf"\bnric\b|\bfin\b|\bic\b|{_NATIONAL}", "nric", "fin", "ic", "identity", "national id", "id "),
    _kind("hk_hkid", rf"{_B}[A-Z]{{1,2}}\d{{6}} ?\(?[0-9A]\)?(?![A-Za-z0-9])", checks.hkid_ok,
          rf"hkid|身份證|身份证|{_NATIONAL}", "hkid", "身份", "identity", "national id", "id "),
    _kind("tw_national_id", rf"{_B}[A-Z][12]\d{{8}}{_E}", checks.tw_id_ok,
          rf"身分證|身份證|身分证|身份证|{_NATIONAL}", "身分", "身份", "identity", "national id", "id "),
    _kind("ee_isikukood", rf"{_B}[1-6]\d{{10}}{_E}", checks.ee_ik_ok,
          r"isikukood|asmens kodas|personal code", "isikukood", "asmens kod", "personal code"),
    _kind("hr_oib", rf"{_B}\d{{11}}{_E}", checks.iso7064_11_10_ok, r"\boib\b|osobni identifikacijski", "oib",
          "osobni"),
    _kind("de_steuer_id", rf"{_B}[1-9]\d( ?)\d{{3}}\1\d{{3}}\1\d{{3}}{_E}", checks.de_steuer_id_ok,
          r"steuer-?id|identifikationsnummer|\bidnr\b|\btin\b|tax id", "steuer", "identifikationsn", "idnr",
          "tin", "tax id"),
    _kind("is_kennitala", rf"{_BD}\d{{6}}-?\d{{4}}{_ED}", checks.is_kt_ok, r"kennit[aö]l", "kennit"),
    _kind("ie_ppsn", rf"{_B}\d{{7}}[A-W][A-IW]?{_E}", checks.ie_ppsn_ok,
          r"\bppsn?\b|personal public service", "pps", "personal public"),
    _kind("at_svnr", rf"{_B}\d{{4}} ?\d{{6}}{_E}", checks.at_svnr_ok,
          r"sozialversicherungsn|\bsvnr\b|sv-nummer|versicherungsnummer|e-card", "sozialversicherung", "svnr",
          "sv-nummer", "versicherungsnummer", "e-card"),
    _kind("dk_cpr", rf"{_BD}\d{{6}}-?\d{{4}}{_ED}", checks.dk_cpr_ok, r"\bcpr\b|cpr-n|personnummer", "cpr",
          "personnummer"),
    _kind("th_national_id", rf"{_BD}\d(-?)\d{{4}}\1\d{{5}}\1\d{{2}}\1\d{_ED}", checks.th_id_ok,
          r"ประชาชน|เลขประจำตัว|thai (?:national )?id", "ประชาชน", "เลขประจำตัว", "thai"),
    _kind("sa_national_id", rf"{_B}[12]\d{{9}}{_E}", checks.sa_id_ok,
          r"هوية|إقامة|اقامة|السجل المدني|iqama|saudi (?:national )?id", "هوية", "إقامة", "اقامة", "المدني",
          "iqama", "saudi"),
    # A driving licence: its word, a colon, "no.", "#" or "number", then the number.
    _kind("driving_licence", rf"{_B}[A-Z0-9]{{6,18}}{_E}", checks.licence_ok,
          r"(?:driv(?:ing|er'?s?) licen[cs]e|\bdl\b|führerschein|permis de conduire|carnet de conducir|"
          r"licencia de conduc\w+|patente(?: di guida)?|carta de condução|carteira de motorista|\bcnh\b|"
          r"rijbewijs|prawo jazdy|körkort|kørekort|førerkort|ehliyet|водительск\w* удостоверени\w*|"
          r"운전면허|運転免許|驾驶证|駕照|駕駛執照)"
          r"[^\n.;]{0,24}?(?:#|:|no\.?|nr\.?|number|nummer|numéro|número|numer|番号|번호|号码|номер)?\s{0,2}$",
          "licen", "dl", "führerschein", "permis", "conduc", "patente", "condução", "motorista", "cnh",
          "rijbewijs", "prawo jazdy", "körkort", "kørekort", "førerkort", "ehliyet", "водительск", "운전면허",
          "運転免許", "驾驶证", "駕照", "駕駛執照"),
)  # fmt: skip

# `in` tests of each word: an alternation of them all searched over the text cost ten times as much.
_NUMERIC_HINTS = tuple(dict.fromkeys(hint for kind in KINDS[:-1] for hint in kind.hints))
# Every kind but the licence holds seven digits or more with single separators between them: a note
# without such a run skips them all, and their words are not even looked for.
_LONG_NUMBER = re.compile(r"\d(?:[ .\-/()]{0,2}\d){6}")
_DIGITS = re.compile(r"\d\D{0,4}\d\D{0,4}\d")
_LICENCE = KINDS[-1]


def _compact(value: str) -> str:
    return re.sub(r"[\s.\-/()]", "", value).upper()


def _named(kind: WorldKind, folded: str, start: int) -> bool:
    return kind.context is None or kind.context.search(folded, max(0, start - _WINDOW), start) is not None


def find_world_ids(text: str, folded: str) -> Iterator[tuple[int, int]]:
    """Spans of national numbers of the kinds above: the check holds and the name stands before."""
    if _DIGITS.search(text) is None:
        return
    # The words are looked for only in the windows before the long numbers, not in the whole text.
    windows = " ".join(folded[max(0, m.start() - _WINDOW) : m.start()] for m in _LONG_NUMBER.finditer(text))
    hinted = {hint for hint in _NUMERIC_HINTS if hint in windows} if windows else set()
    for kind in KINDS:
        if kind is _LICENCE:
            if not any(hint in folded for hint in kind.hints):
                continue
        elif kind.context is not None and not hinted.intersection(kind.hints):
            continue  # a shaped kind (the CURP) holds its letters between its digits: always tried
        for match in kind.pattern.finditer(text):
            if kind.check(_compact(match.group())) and _named(kind, folded, match.start()):
                yield match.span()


# What sets each kind off, for the hostile-input tests.
TRIGGERS: tuple[str, ...] = (*(f"{kind.hints[0]} " for kind in KINDS if kind.hints), "ABCD")
