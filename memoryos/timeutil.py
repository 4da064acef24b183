"""Time as the store keeps it: integer microseconds since the epoch, UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from memoryos.errors import InvalidInput

Clock = Callable[[], datetime]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def system_clock() -> datetime:
    return datetime.now(UTC)


def to_micros(moment: datetime, name: str = "time") -> int:
    if not isinstance(moment, datetime):
        raise InvalidInput(f"{name} must be a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInput(f"{name} must be timezone-aware: pass e.g. datetime.now(timezone.utc)")
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def seconds_to_micros(seconds: float) -> int:
    return round(seconds * 1_000_000)
