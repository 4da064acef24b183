"""Secrets and phone numbers dictated rather than typed: a voice transcript spells them out in words.

"my pin is two seven eight nine", "le code de la porte c'est neuf quatre six zéro", "password is four,
two, capital romeo, yankee, hash, six", "meine Handynummer ist null eins sieben sechs ...". A run of
four or more number words (English, German, French, Spanish, Dutch, Italian, Portuguese), letters of
the NATO spelling alphabet and spoken symbols is rewritten as the characters it spells, in a copy of
the text, and the copy is judged by the finders of typed values: a PIN or code after its word, a
password after its word, a phone number after a phone word. A detection that overlaps the rewritten
run refuses the run in the original text. Nothing here keeps or logs the value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

_DIGIT_WORDS = {
    "0": "zero oh nought null cero nul zéro",
    "1": "one eins ein uno una un une een één um uma",
    "2": "two zwei zwo dos deux twee due dois duas",
    "3": "three drei tres trois drie tre três",
    "4": "four vier cuatro quatre quattro quatro",
    "5": "five fünf fuenf cinco cinq vijf cinque",
    "6": "six sechs seis zes sei",
    "7": "seven sieben siete sept zeven sette sete",
    "8": "eight acht ocho huit otto oito",
    "9": "nine neun nueve neuf negen nove",
}
WORD_DIGITS = {word: digit for digit, words in _DIGIT_WORDS.items() for word in words.split()}
NATO = {
    word: word[0]
    for word in (
        "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima mike november "
        "oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray x-ray yankee zulu"
    ).split()
}
SYMBOLS = {
    "hash": "#", "hashtag": "#", "pound": "#", "dash": "-", "hyphen": "-", "minus": "-", "underscore": "_",
    "dot": ".", "period": ".", "at": "@", "exclamation": "!", "bang": "!", "star": "*", "asterisk": "*",
    "dollar": "$", "percent": "%", "plus": "+", "slash": "/", "ampersand": "&", "raute": "#",
    "dièse": "#", "tiret": "-", "almohadilla": "#", "guion": "-", "guión": "-", "sterretje": "*",
}  # fmt: skip
UPPER = frozenset({"capital", "uppercase", "upper", "caps", "cap", "großes", "grosses", "großbuchstabe",
                   "majuscule", "mayúscula", "mayuscula", "hoofdletter"})  # fmt: skip
LOWER = frozenset({"small", "lowercase", "lower", "kleines", "minuscule", "minúscula", "minuscula"})
REPEAT = {"double": 2, "triple": 3, "doppel": 2, "doble": 2}
# French tens, so that "quatre-vingt-dix vingt-et-un" reads 90 21 (phone numbers are said in pairs).
_FR_TENS = {
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16,
    "vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
}  # fmt: skip
_FR_UNITS = {"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
             "huit": 8, "neuf": 9}  # fmt: skip

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_GAP = re.compile(r"[\s,]*(?:(?:and|then|und|et|y|en|e) )?[\s,]*")  # what may stand between two spoken words
_BEFORE, _AFTER = 96, 48  # characters of context judged around a run
_MIN_RUN = 4  # words spelling characters: fewer are prose ("one or two", "five six people")
_VOCAB = frozenset(WORD_DIGITS) | frozenset(NATO) | frozenset(SYMBOLS) | frozenset(_FR_TENS)


def french_number(word: str) -> str | None:
    """'quatre-vingt-dix' -> '90', 'vingt-et-un' -> '21', 'dix-sept' -> '17'; None if not a number."""
    parts = [part for part in word.split("-") if part != "et"]
    total, index = 0, 0
    if parts[:2] in (["quatre", "vingt"], ["quatre", "vingts"]):
        total, index = 80, 2
    for part in parts[index:]:
        value = _FR_TENS.get(part, _FR_UNITS.get(part))
        if value is None:
            return None
        total += value
    return str(total) if total < 100 and (index or len(parts) > 1 or parts[0] in _FR_TENS) else None


def _spell(word: str, case: str) -> str | None:
    """The characters one spoken word stands for, or None when it spells none."""
    if word in WORD_DIGITS:
        return WORD_DIGITS[word]
    if word in NATO:
        letter = NATO[word]
        return letter.upper() if case == "upper" else letter
    if word in SYMBOLS:
        return SYMBOLS[word]
    return french_number(word) if "-" in word or word in _FR_TENS else None


def spoken_runs(folded: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, spelled) of each run of at least four spelling words in the lower-cased text.

    "capital"/"small" set the case of the next letter, "double"/"triple" repeat the next character.
    """
    start = end = -1
    spelled: list[str] = []
    case, repeat = "", 1
    for match in _WORD.finditer(folded):
        word = match.group()
        if start >= 0 and _GAP.fullmatch(folded, end, match.start()) is None:
            if len(spelled) >= _MIN_RUN:
                yield start, end, "".join(spelled)
            start, spelled, case, repeat = -1, [], "", 1
        if word in UPPER or word in LOWER or word in REPEAT:
            case = "upper" if word in UPPER else "lower" if word in LOWER else case
            repeat = REPEAT.get(word, repeat)
        elif (chars := _spell(word, case)) is not None:
            spelled.append(chars * repeat)
            case, repeat = "", 1
        else:
            if len(spelled) >= _MIN_RUN:
                yield start, end, "".join(spelled)
            start, spelled, case, repeat = -1, [], "", 1
            continue
        start = match.start() if start < 0 else start
        end = match.end()
    if len(spelled) >= _MIN_RUN:
        yield start, end, "".join(spelled)


def _written(spelled: str) -> str:
    """A long digit string as it would be typed, in groups (a dictated phone number); a code as is."""
    if len(spelled) >= 7 and spelled.isdigit():
        return " ".join(spelled[i : i + 3] for i in range(0, len(spelled), 3))
    return spelled


Finder = Callable[[str], Iterable[tuple[int, int]]]
_PUNCT = str.maketrans(",;:.-", "     ")


@functools.lru_cache(maxsize=4)
def _runs(text: str) -> tuple[tuple[int, int, str], ...]:
    """The runs of a text, computed once for the secret and the phone family alike. One set
    intersection first (in C): a text with fewer than two distinct spelling words holds no run worth
    judging ("one one one one" is no PIN), and most notes hold none."""
    folded = text.lower()
    if len(folded) != len(text) or len(_VOCAB.intersection(folded.translate(_PUNCT).split())) < 2:
        return ()
    return tuple(spoken_runs(folded))


def find_spoken(text: str, judges: tuple[Finder, ...]) -> Iterator[tuple[int, int]]:
    """Runs of spelling words whose typed form one of `judges` refuses, in the text's own offsets."""
    if text.count(" ") < 3:
        return
    for start, end, spelled in _runs(text):
        written = _written(spelled)
        # Only the words around the run are judged: the judges read a few words before a value, and a
        # copy of the whole text per run would make a text of many runs quadratic.
        left = max(0, start - _BEFORE)
        copy = text[left:start] + written + text[end : end + _AFTER]
        first, stop = start - left, start - left + len(written)
        if any(s < stop and first < e for judge in judges for s, e in judge(copy)):
            yield start, end


# Spoken characters of the hostile-input tests: a run, a NATO run, a modifier and a French pair.
TRIGGERS: tuple[str, ...] = (
    "pin is one two three four ", "one ", "capital alpha, ", "double ", "quatre-vingt-dix ", "oh seven ",
    "password: four, two, capital romeo, hash ", "my number is ",
)  # fmt: skip
