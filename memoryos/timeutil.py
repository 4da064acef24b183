"""Time as the store keeps it: integer microseconds since the epoch, UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from memoryos.errors import InvalidInput

Clock = Callable[[], datetime]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def system_clock() -> datetime:
    return datetime.now(UTC)


#: The range of times a store keeps: every stored time, and every time derived from one (an end of
#: validity, a wait-until), must stay a datetime, so the far end leaves room for a long idle window.
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
_RANGE = f"between {EARLIEST.date()} and {LATEST.date()} (UTC)"


def to_micros(moment: datetime, name: str = "time") -> int:
    if not isinstance(moment, datetime):
        raise InvalidInput(f"{name} must be a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInput(f"{name} must be timezone-aware: pass e.g. datetime.now(timezone.utc)")
    try:
        micros = (moment - _EPOCH) // timedelta(microseconds=1)
    except OverflowError:
        raise InvalidInput(f"{name} must be {_RANGE}") from None
    return in_range(micros, name)


def in_range(micros: int, name: str) -> int:
    """`micros` if it is a time the store can keep, else InvalidInput (raised before any write)."""
    if not _MIN_MICROS <= micros <= _MAX_MICROS:
        raise InvalidInput(f"{name} must be {_RANGE}: a ttl or time that far away cannot be stored")
    return micros


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def seconds_to_micros(seconds: float) -> int:
    return round(seconds * 1_000_000)


_MIN_MICROS = (EARLIEST - _EPOCH) // timedelta(microseconds=1)
_MAX_MICROS = (LATEST - _EPOCH) // timedelta(microseconds=1)
