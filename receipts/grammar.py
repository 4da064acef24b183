"""The value grammar of `memoryos.receipt/1`: one pattern per kind of value, and the words for what is wrong.

The patterns are written once, in the dialect that Python's `re` and JSON Schema's ECMA-262 share
(character classes, counted repetition, no look-around), so that `receipts.schema` can ship the same
strings in the JSON Schema that `receipts.model` checks with. A checker uses `fullmatch`: a JSON
Schema `pattern` is anchored with `^...$` instead (and ECMA's `$` does not match before a newline).

Explanations never quote the value back: a producer that put content where an id belongs must not
see it copied into findings and logs. They name a position, a length, a type, or one character.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

__all__ = [
    "CHAIN",
    "HEX64",
    "MAX_INT",
    "OUTCOME",
    "REASON",
    "REF",
    "SCOPE",
    "TIME",
    "UUID",
    "VERSION",
    "VERSION_MAX",
    "Grammar",
    "explain_int",
    "json_type",
]

MAX_INT = 2**63 - 1
VERSION_MAX = 128


class Grammar:
    """A pattern for one kind of string value, with a length limit and the characters it may hold."""

    def __init__(self, pattern: str, allowed: str, max_length: int | None = None, hint: str = "") -> None:
        self.pattern = pattern
        self.compiled = re.compile(pattern)
        self.allowed = re.compile(f"[{allowed}]")  # one character that may appear somewhere
        self.max_length = max_length
        self.hint = hint

    def matches(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        if self.max_length is not None and len(value) > self.max_length:
            return False
        return self.compiled.fullmatch(value) is not None

    def explain(self, value: object) -> str:
        """What is wrong with `value`, then the rule, e.g. "contains a tab at position 8; rule: ..."."""
        return f"{self.what_is_wrong(value)}; rule: {self.rule()}"

    def rule(self) -> str:
        limit = f", at most {self.max_length} characters" if self.max_length is not None else ""
        return f"^{self.pattern}${limit}" + (f" ({self.hint})" if self.hint else "")

    def what_is_wrong(self, value: object) -> str:
        if not isinstance(value, str):
            return f"is {json_type(value)}, not a string"
        if not value:
            return "is empty"
        if self.max_length is not None and len(value) > self.max_length:
            return f"is {len(value)} characters long"
        for index, char in enumerate(value):
            if self.allowed.fullmatch(char) is None:
                return f"contains {_char(char)} at position {index + 1}"
        return "has the wrong shape"


def _char(char: str) -> str:
    names = {" ": "a space", "\t": "a tab", "\n": "a newline", "\r": "a carriage return"}
    if char in names:
        return names[char]
    if char.isascii() and char.isprintable():
        return f"'{char}'"
    return f"U+{ord(char):04X}"


class _VersionGrammar(Grammar):
    """`<name>/<version>` or `<name> <version>`: the only value with a space in it, and only one."""

    def what_is_wrong(self, value: object) -> str:
        if isinstance(value, str) and value and len(value) <= VERSION_MAX:
            found = self._first_char_outside(value) or _version_structure(value)
            if found is not None:
                return found
        return super().what_is_wrong(value)

    def _first_char_outside(self, value: str) -> str | None:
        bad = next((i for i, char in enumerate(value) if self.allowed.fullmatch(char) is None), None)
        return None if bad is None else f"contains {_char(value[bad])} at position {bad + 1}"


def _version_structure(value: str) -> str | None:
    if value.count(" ") > 1:
        second = value.index(" ", value.index(" ") + 1)
        return f"contains a second space at position {second + 1} (one separates name and version)"
    name, sep, version = _split_version(value)
    if not sep:
        return "has no '<name>/' or '<name> ' before the version"
    if not name or not version:
        return "has an empty name or version around the separator"
    for part, text in (("name", name), ("version", version)):
        if not (text[0].isascii() and text[0].isalnum()):
            return f"has a {part} that starts with {_char(text[0])}, not a letter or digit"
    return _first_outside(name, _NAME_CHAR, 0, "name") or _first_outside(
        version, _VERSION_CHAR, len(name) + 1, "version"
    )


def _first_outside(text: str, allowed: re.Pattern[str], start: int, part: str) -> str | None:
    for offset, char in enumerate(text):
        if allowed.fullmatch(char) is None:
            return f"contains {_char(char)} at position {start + offset + 1} (in the {part})"
    return None


_NAME_CHAR = re.compile("[A-Za-z0-9._-]")
_VERSION_CHAR = re.compile("[A-Za-z0-9._+:~-]")


def _split_version(value: str) -> tuple[str, str, str]:
    """Split at the first space, else at the first slash (a version may not hold either)."""
    for sep in (" ", "/"):
        if sep in value:
            return value.partition(sep)
    return value, "", ""


_HEX = "0-9a-f"
UUID = Grammar(
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    _HEX + "-",
    hint="a lowercase UUID; memoryos writes UUIDv7",
)
REF = Grammar(
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@[1-9][0-9]{0,9}",
    _HEX + "@-",
    hint="'<memoryId>@<version>'",
)
SCOPE = Grammar("[0-9a-f]{16,64}", _HEX, hint="a keyed pseudonym: 16-64 lowercase hex")
HEX64 = Grammar("[0-9a-f]{64}", _HEX, hint="64 lowercase hex")
TIME = Grammar(
    "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{6}Z",
    "0-9TZ:.-",
    hint="RFC 3339 UTC with microseconds, e.g. 2026-01-31T12:00:00.000000Z, a real calendar day",
)
VERSION = _VersionGrammar(
    "[A-Za-z0-9][A-Za-z0-9._-]{0,63}[ /][A-Za-z0-9][A-Za-z0-9._+:~-]{0,95}",
    "A-Za-z0-9._+:~/ -",
    VERSION_MAX,
    hint="'<name>/<version>' or '<name> <version>', e.g. 'memoryos/0.1.0+3f2a9c' or 'acme 2.1.0+cfg.3f2a'",
)
CHAIN = Grammar("[A-Za-z0-9._-]{1,64}", "A-Za-z0-9._-", hint="1-64 of [A-Za-z0-9._-]")
REASON = Grammar(
    "[a-z0-9_]{1,32}(:[a-z0-9_]{1,64})?",
    "a-z0-9_:",
    hint="a code such as 'capacity' or 'secret:aws_access_key'",
)
OUTCOME = Grammar(
    "[a-z0-9_]{1,32}:[A-Za-z0-9._:@/=+-]{1,256}",
    "A-Za-z0-9._:@/=+-",
    hint="'<kind>:<proof>', a content-free proof such as 'sha256:<hex>'",
)


def is_real_day(text: str) -> bool:
    """The TIME pattern admits day 31 of every month and Feb 29 of every year; the calendar decides."""
    try:
        date(int(text[:4]), int(text[5:7]), int(text[8:10]))
    except ValueError:
        return False
    return True


_JSON_TYPES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number with a fraction"),
    (str, "a string"),
    (list, "a list"),
    (dict, "an object"),
)


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, with an article."""
    if value is None:
        return "null"
    # bool before int: True is an int to Python, a boolean to JSON
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "a " + type(value).__name__)


def explain_int(low: int) -> Callable[[object], str]:
    def explain(value: object) -> str:
        rule = f"rule: an integer in {low}..{MAX_INT}"
        if type(value) is not int:
            return f"is {json_type(value)}; {rule}"
        return f"is {value}, out of range; {rule}"

    return explain
