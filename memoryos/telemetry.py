"""Telemetry seam: spans, counters, histograms and gauges, content-free.

Off (the default) every call returns after one attribute check, so an instrumented call costs well
under a microsecond. On, the OpenTelemetry implementation in `memoryos.otel` records spans that follow
the GenAI memory conventions (`gen_ai.operation.name` = upsert_memory / search_memory /
delete_memory) and INTERNAL spans for promotions, evictions, expiry and recovery. Attribute values
are ids, codes and counts only: never memory text, keys, queries or raw user ids.

Callers pass short attribute keys; the implementation maps them to their convention names:
`store_id` -> gen_ai.memory.store.id, `record_id` -> gen_ai.memory.record.id, `record_count` ->
gen_ai.memory.record.count; `boundary`, `status`, `tier`, `count`, `run_id`, `reason` -> memoryos.*.
Metric attributes are low-cardinality only (boundary, status, tier, reason, state): never ids.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

AttributeValue = str | int | float | bool
Operation = Literal["upsert_memory", "search_memory", "delete_memory"]


class Recorder(AbstractContextManager["Recorder"]):
    """What a span hands back: attributes known only at the end (hit counts, ids) are set on it."""

    def set(self, **attributes: AttributeValue) -> None:
        del attributes

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None


NOOP = Recorder()


class Telemetry:
    """The disabled implementation; `memoryos.otel.OtelTelemetry` overrides every method."""

    enabled = False

    def operation(self, name: Operation, **attributes: AttributeValue) -> Recorder:
        """A span for one public operation (GenAI memory conventions)."""
        return NOOP

    def internal(self, name: str, **attributes: AttributeValue) -> Recorder:
        """An INTERNAL span for background work: promotions, evictions, expiry, recovery."""
        return NOOP

    def annotate(self, **attributes: AttributeValue) -> None:
        """Set attributes on the current span (a run id, counts known only at the end)."""

    def count(self, metric: str, value: int = 1, **attributes: AttributeValue) -> None:
        """Add to a counter: memoryos.promotions, .evictions, .rejections, .expiries, .decays."""

    def duration(self, metric: str, seconds: float, **attributes: AttributeValue) -> None:
        """Record into a histogram: memoryos.promotion.duration, memoryos.recall.duration."""

    def watch(self, gauges: Callable[[], Mapping[str, Mapping[str, int]]]) -> None:
        """Register the source of observable gauges: {metric: {tier or state: value}}."""

    def shutdown(self) -> None:
        """Flush and stop exporters (called by Memory.close())."""


DISABLED = Telemetry()


class _Instrumented(Protocol):
    telemetry: Telemetry


Method = TypeVar("Method", bound=Callable[..., Any])


def spanned(name: str, *, metric: str | None = None, **fixed: AttributeValue) -> Callable[[Method], Method]:
    """Run a method inside an INTERNAL span (and time it into `metric`) when telemetry is on; when
    off, the wrapper costs one attribute check."""

    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        def run(self: _Instrumented, *args: Any, **kwargs: Any) -> Any:
            telemetry = self.telemetry
            if not telemetry.enabled:
                return method(self, *args, **kwargs)
            started = time.perf_counter()
            with telemetry.internal(name, **fixed):
                result = method(self, *args, **kwargs)
            if metric is not None:
                telemetry.duration(metric, time.perf_counter() - started, **fixed)
            return result

        return run  # type: ignore[return-value]  # functools.wraps keeps the signature

    return wrap


class _Operated(Protocol):
    telemetry: Telemetry
    store_id: str


def traced(
    operation: Operation, describe: Callable[[Any], dict[str, AttributeValue]], *, metric: str | None = None
) -> Callable[[Method], Method]:
    """Run a public method inside an operation span; `describe` turns its result into attributes
    (a record id, a record count). Off, the wrapper costs one attribute check."""

    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        def run(self: _Operated, *args: Any, **kwargs: Any) -> Any:
            telemetry = self.telemetry
            if not telemetry.enabled:
                return method(self, *args, **kwargs)
            started = time.perf_counter()
            with telemetry.operation(operation, store_id=self.store_id) as span:
                result = method(self, *args, **kwargs)
                span.set(**describe(result))
            if metric is not None:
                telemetry.duration(metric, time.perf_counter() - started)
            return result

        return run  # type: ignore[return-value]  # functools.wraps keeps the signature

    return wrap
