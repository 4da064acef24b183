"""Pure checks on caller input. Each raises InvalidInput with a message that says what to do."""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Iterable
from datetime import timedelta

from memoryos.errors import ConfigError, InvalidInput, StorePathError
from memoryos.settings import Config

ROLES = frozenset({"user", "assistant", "system", "tool"})
DRAWER_KINDS = frozenset(
    {"capability", "decision", "rule", "procedure", "fact", "semantic", "episodic", "procedural", "taxonomic"}
)
MAX_KEY_CHARS = 512
_REF = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@[1-9][0-9]{0,9}$")


def _encodable(value: str, name: str) -> None:
    if "\x00" in value:
        raise InvalidInput(f"{name} contains a NUL byte: remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{name} contains a lone surrogate: pass valid Unicode text") from None


def text(value: object, name: str, max_bytes: int) -> str:
    """Non-empty, valid Unicode, within the byte limit."""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a str, got {type(value).__name__}")
    _encodable(value, name)
    if not value.strip():
        raise InvalidInput(f"{name} is empty or whitespace only: pass the text to remember")
    size = len(value.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(
            f"{name} is {size} bytes, over the {max_bytes}-byte limit: split it or raise max_text_bytes"
        )
    return value


def identifier(value: object, name: str, max_chars: int) -> str:
    """A scope id or key: non-empty, printable, within the length limit."""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a str, got {type(value).__name__}")
    _encodable(value, name)
    if not value.strip():
        raise InvalidInput(f"{name} must not be empty")
    if len(value) > max_chars:
        raise InvalidInput(f"{name} is {len(value)} characters, over the limit of {max_chars}")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        raise InvalidInput(f"{name} contains control characters: use printable ids")
    return value


def key(value: object) -> str:
    return identifier(value, "key", MAX_KEY_CHARS)


def role(value: object) -> str:
    if not isinstance(value, str) or value not in ROLES:
        raise InvalidInput(f"role must be one of {', '.join(sorted(ROLES))}, got {value!r}"[:200])
    return str(value)


def kind(value: object) -> str:
    if not isinstance(value, str) or value not in DRAWER_KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(sorted(DRAWER_KINDS))}, got {value!r}"[:300])
    return str(value)


def confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"confidence must be a number between 0 and 1, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InvalidInput(f"confidence must be a finite number between 0 and 1, got {value!r}")
    return number


def positive_int(value: object, name: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{name} must be an int, got {type(value).__name__}")
    if not 1 <= value <= maximum:
        raise InvalidInput(f"{name} must be between 1 and {maximum}, got {value}")
    return value


def ttl(value: object) -> timedelta | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, timedelta | int | float):
        raise InvalidInput(f"ttl must be a timedelta or seconds, got {type(value).__name__}")
    if isinstance(value, int | float):
        if not math.isfinite(value) or value > 1e11:
            raise InvalidInput("ttl must be a finite number of seconds under 1e11")
        value = timedelta(seconds=value)
    if value <= timedelta(0):
        raise InvalidInput("ttl must be positive: to drop a memory use forget()")
    return value


def optional_text(value: object, name: str, max_bytes: int) -> str | None:
    return None if value is None else text(value, name, max_bytes)


def flag(value: object, name: str) -> bool:
    """A switch is True or False: `redacted=None` must not quietly mean "write the key material"."""
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be True or False, got {type(value).__name__}")
    return value


def optional_flag(value: object, name: str) -> bool | None:
    return None if value is None else flag(value, name)


def file_path(value: object, what: str) -> str:
    """A file name the OS and SQLite can take: a str (or os.PathLike of one), not blank, no NUL,
    valid Unicode (SQLite encodes the name as UTF-8). Returns it as a str."""
    example = "e.g. 'agent-memory.db'" if what == "store" else "e.g. 'memories.jsonl'"
    raw = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(raw, str) or not raw.strip():
        raise StorePathError(f"pass the {what}'s file name as a str or Path, {example}")
    if "\x00" in raw:
        raise StorePathError(f"the {what} path contains a NUL character: pass a plain file name, {example}")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise StorePathError(f"the {what} path has a lone surrogate: pass valid Unicode, {example}") from None
    return raw


def refs(depends_on: object) -> list[str]:
    """The refs as a list, taken once: a generator checked by one pass would be empty by the next."""
    message = "depends_on must be a list of refs like Hit.ref ('<memory_id>@<version>')"
    if not isinstance(depends_on, Iterable) or isinstance(depends_on, str | bytes):
        raise InvalidInput(message)
    refs = list(depends_on)
    checked = [r for r in refs if isinstance(r, str) and _REF.match(r)]
    if len(checked) != len(refs):
        raise InvalidInput(message)
    return checked


def hooks(config: object, clock: object) -> None:
    """A wrong object passed as config or clock fails here, not as an AttributeError deep inside."""
    if config is not None and not isinstance(config, Config):
        got = type(config).__name__
        raise ConfigError(f"config must be a memoryos Config (Config.from_file, ...), got {got}")
    if clock is not None and not callable(clock):
        got = type(clock).__name__
        raise InvalidInput(f"clock must be a callable returning an aware UTC datetime, got {got}")
