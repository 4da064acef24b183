"""Dates of birth: a full date that the text says is someone's birth date.

The rule: a calendar date with its year ("10/17/1995", "1962-10-28", "18.07.1966", "12 mars 1980",
"May 3, 1990", "1990年5月3日") within a few words after a birth word ("born", "DOB", "date of birth",
"né le", "geboren am", "fecha de nacimiento", "data di nascita", "生年月日", "дата рождения"...), on the
same line. A name alone beside a date is not enough: "Olga Carvalho, 18.07.2026" is how a meeting or a
deadline is written too; the birth word is what makes the date a birth date. A year alone ("born in
1962") or a day and month without a year identify far less and are accepted. Epoch and zero dates
(1970-01-01, 1900-01-01) are the defaults of forms and fixtures, not anyone's birthday.

The span returned is the date; nothing here keeps or logs it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

from memoryos.policies.nostore_keywords import fold

_BIRTH_WORDS = (
    r"(?<![a-zà-ÿ])(?:born|date of birth|birth ?date|birthday|d\.?o\.?b\.?|"
    r"née?|naissance|geboren|geb\.|geburtsdatum|geburtstag|"
    r"nacid[oa]|nacimiento|fecha de nac\.?|cumpleaños|"
    r"nat[oa] (?:il|a|nel)|data di nascita|nascit[ao]|"
    r"nascid[oa]|nascimento|"
    r"geboortedatum|urodzon[ya]|data urodzenia|född|födelsedatum|fødselsdato|født|"
    r"дата рождения|родил(?:ся|ась)|рождения|дата народження|народився|народилася|"
    r"doğum tarih\w*|dogum tarih\w*|doğdum|datum narození|narozen[aá]?|datum rođenja|rođen[a]?|"
    r"születési (?:idő|dátum)|született|data nașterii|data nasterii|născut[ăa]?|syntymäaika|"
    r"ημερομηνία γέννησης|γεννήθηκα|tanggal lahir|ngày sinh|"
    r"תאריך (?:ה)?לידה|נולדתי|נולד|تاريخ (?:ال)?ميلاد|تاريخ الولادة|ولدت|जन्म ?तिथि|जन्मतिथि)(?![a-zà-ÿ])"
    r"|生年月日|出生日期|出生于|出生於|誕生日|생년월일|วันเกิด"
)
_MONTHS = (
    r"jan(?:uary|vier|uar|eiro)?|feb(?:ruary|ruar)?|févr(?:ier)?|fevr(?:ier)?|fevereiro|mar(?:ch|s|z|zo|ço)?|"
    r"märz|apr(?:il|ile)?|avr(?:il)?|abr(?:il)?|may|mai|mayo|maggio|maio|jun(?:e|i|io|ho)?|juin|giugno|"
    r"jul(?:y|i|io|ho)?|juil(?:let)?|luglio|aug(?:ust)?|ao[uû]t|agosto|sep(?:t(?:ember|embre)?)?|"
    r"settembre|setembro|oct(?:ober|obre|ubre)?|okt(?:ober)?|ottobre|outubro|nov(?:ember|embre|iembre)?|"
    r"dec(?:ember)?|déc(?:embre)?|dez(?:ember|embro)?|dic(?:iembre|embre)?|enero|gennaio|febrero|"
    r"febbraio|marzo|aprile|junio|julio|ene"
)
_DATE = re.compile(
    r"(?<![0-9])(?:"
    r"(?P<ymd>(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01]))"
    r"|(?P<dmy>\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2}))"
    rf"|(?P<dmony>\d{{1,2}}(?:st|nd|rd|th|er|\.)?(?: de| of)? (?:{_MONTHS})\.?,?(?: de)? (?:19|20)\d\d)"
    rf"|(?P<mondy>(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?,? (?:19|20)\d\d)"
    r"|(?P<cjk>(?:19|20)\d\d\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?日)"
    r")(?![0-9])"
)
_BIRTH = re.compile(_BIRTH_WORDS)
# The date starts within 40 characters of the same sentence after the birth word (a name, "am", "le",
# ":" may stand between): where a date may start, a digit or a word's first letter.
_WINDOW = 40
_SENTENCE_END = re.compile(r"[\n.!?;]")
_DATE_START = re.compile(r"(?<![0-9])[0-9]|(?<![a-zà-ÿ])[a-zà-ÿ]")
_HINTS = (
    "born", "birth", "dob", "d.o.b", "né", "naissance", "geb", "nacid", "nacimiento", "fecha de nac",
    "cumpleaños", "nato", "nata", "nascit", "nascid", "nascimento", "geboorte", "urodz", "född", "föd", "fød",
    "рожд", "родил", "生年月日", "出生", "誕生日", "생년월일", "народ", "doğ", "dogum", "naroz", "rođ",
    "szület",
    "naște", "naste", "născut", "syntymä", "γέννη", "lahir", "ngày sinh", "לידה", "נולד", "ميلاد", "الولادة",
    "ولدت", "जन्म", "วันเกิด",
)  # fmt: skip
_PLACEHOLDER_DATES = frozenset({(1970, 1, 1), (1900, 1, 1), (2000, 1, 1)})


def _valid(year: int, month: int, day: int) -> bool:
    if (year, month, day) in _PLACEHOLDER_DATES:
        return False
    try:
        dt.date(year, month, day)
    except ValueError:
        return False
    return True


def _full_year(year: str) -> int:
    return int(year) if len(year) == 4 else 1900 + int(year)


def _numeric_ok(match: re.Match[str]) -> bool:
    """A numeric date in any of the orders people write: D-M-Y, M-D-Y (US) or Y-M-D."""
    if match.group("ymd"):
        year, month, day = (int(part) for part in re.split(r"[-/.]", match.group("ymd")))
        return _valid(year, month, day)
    first, second, written_year = re.split(r"[-/.]", match.group("dmy"))
    full = _full_year(written_year)
    return _valid(full, int(second), int(first)) or _valid(full, int(first), int(second))


def _dates_after(folded: str) -> Iterator[re.Match[str]]:
    """The dates that start in the window after a birth word. Each start position is tried once,
    however many birth words' windows hold it: "DOB DOB DOB ..." stays linear."""
    tried_to = 0
    for birth in _BIRTH.finditer(folded):
        end = _SENTENCE_END.search(folded, birth.end(), birth.end() + _WINDOW + 1)
        stop = end.start() if end else min(len(folded), birth.end() + _WINDOW + 1)
        for start in _DATE_START.finditer(folded, max(birth.end(), tried_to), stop):
            date = _DATE.match(folded, start.start())
            if date is not None:
                yield date
                break
        tried_to = max(tried_to, stop)


def find_birth_dates(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    if not any(hint in folded for hint in _HINTS):
        return
    for date in _dates_after(folded):
        if (date.group("ymd") or date.group("dmy")) and not _numeric_ok(date):
            continue
        yield date.span()
