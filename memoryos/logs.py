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


def get_logger() -> Any:
    from memoryos.otel import add_trace_ids

    return structlog.wrap_logger(
        logging.getLogger(LOGGER_NAME),
        processors=[
            structlog.stdlib.filter_by_level,  # first: a disabled event costs one level check
            structlog.processors.add_log_level,
            add_trace_ids,  # trace_id / span_id when a span is current
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
    )
