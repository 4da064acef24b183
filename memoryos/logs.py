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
from opentelemetry import trace

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


def add_trace_ids(logger: object, method_name: str, event_dict: Any) -> Any:
    """structlog processor: add `trace_id` / `span_id` (lowercase hex) while a span is current."""
    del logger, method_name
    try:
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            event_dict["trace_id"] = format(context.trace_id, "032x")
            event_dict["span_id"] = format(context.span_id, "016x")
    except Exception:  # a log line without ids beats a log call that raises
        return event_dict
    return event_dict


def get_logger() -> Any:
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
