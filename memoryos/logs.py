"""Content-free structured logs: structlog JSON events on the stdlib logger "memoryos".

Silent until the host enables that logger, so a library never prints into its host's stdout; the
level check comes first, so a disabled event costs one isEnabledFor() call. Events carry ids, codes
and counts only, never memory text, keys, queries or raw user ids, plus trace_id and span_id when a
span is active.
"""

from __future__ import annotations

import logging
from typing import Any

import structlog

LOGGER_NAME = "memoryos"


class _Logger:
    """The level check before anything else: structlog builds the event dict before its first
    processor runs, which costs microseconds per event even when the level filters it out."""

    def __init__(self, std: logging.Logger, bound: Any) -> None:
        self._std = std
        self._bound = bound

    def info(self, event: str, **fields: Any) -> None:
        if self._std.isEnabledFor(logging.INFO):
            self._bound.info(event, **fields)

    def warning(self, event: str, **fields: Any) -> None:
        if self._std.isEnabledFor(logging.WARNING):
            self._bound.warning(event, **fields)

    def exception(self, event: str, **fields: Any) -> None:
        if self._std.isEnabledFor(logging.ERROR):
            self._bound.exception(event, **fields)


def get_logger() -> Any:
    from memoryos.otel import add_trace_ids

    std = logging.getLogger(LOGGER_NAME)
    bound = structlog.wrap_logger(
        std,
        processors=[
            structlog.stdlib.filter_by_level,
            structlog.processors.add_log_level,
            add_trace_ids,  # trace_id / span_id when a span is current
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
    )
    return _Logger(std, bound)
