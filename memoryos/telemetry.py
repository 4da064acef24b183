"""Telemetry seam: spans, counters, histograms and gauges, content-free.

Off (the default) every call returns after one attribute check, so an instrumented call costs well
under a microsecond. On, the OpenTelemetry implementation in `memoryos.otel` records spans that follow
the GenAI memory conventions (`gen_ai.operation.name` = create_memory_store / create_memory /
update_memory / upsert_memory / search_memory / delete_memory), INTERNAL spans for promotions,
evictions, expiry, recovery and the public calls no convention names, and a GenAI client span and
metrics per model call. Attribute values are ids, codes and counts only: never memory text, keys,
queries, prompts, completions or raw user ids.

Callers pass short attribute keys; the implementation maps them to their convention names:
`store_id` -> gen_ai.memory.store.id, `record_id` -> gen_ai.memory.record.id, `record_count` ->
gen_ai.memory.record.count, `delete_target` (record, session or scope) -> memoryos.delete.target; `boundary`,
`status`, `tier`, `count`, `run_id`, `reason` -> memoryos.*.
Metric attributes are low-cardinality only (boundary, status, tier, reason, state): never ids.
"""

from __future__ import annotations

import contextvars
import functools
import os
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

AttributeValue = str | int | float | bool
#: The `gen_ai.memory.client` operations (GenAI semantic conventions, status development).
Operation = Literal[
    "create_memory_store",
    "create_memory",
    "update_memory",
    "upsert_memory",
    "search_memory",
    "delete_memory",
]


class Recorder(AbstractContextManager["Recorder"]):
    """What a span hands back: attributes known only at the end (hit counts, ids) are set on it."""

    def set(self, **attributes: AttributeValue) -> None:
        del attributes

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None


NOOP = Recorder()


@dataclass(frozen=True)
class ModelCall:
    """What a GenAI client span is opened with: the model asked for and where it runs (no content)."""

    model: str
    provider: str
    server_address: str
    server_port: int


class ModelRecorder(Recorder):
    """The recorder of one model call: the response's model and token usage are set at its end."""

    def __enter__(self) -> ModelRecorder:
        return self

    def usage(self, response_model: str | None, input_tokens: int | None, output_tokens: int | None) -> None:
        del response_model, input_tokens, output_tokens

    def fail(self, code: str) -> None:
        """The call failed with this low-cardinality code (`error.type`), e.g. http_503 or timeout."""
        del code


MODEL_NOOP = ModelRecorder()


class Telemetry:
    """The disabled implementation; `memoryos.otel.OtelTelemetry` overrides every method."""

    enabled = False

    def operation(self, name: Operation, **attributes: AttributeValue) -> Recorder:
        """A span for one public operation (GenAI memory conventions)."""
        return NOOP

    def finished(self, name: Operation, started_ns: int, **attributes: AttributeValue) -> None:
        """A span for an operation that ended just now, begun at `started_ns` (time.time_ns()):
        what open() reports once the store, and with it the telemetry, exists."""

    def completed(
        self,
        name: Operation,
        started_ns: int,
        seconds: float,
        error: type[BaseException] | None = None,
        metric: str | None = None,
        /,
        **attributes: AttributeValue,
    ) -> None:
        """The span of an operation that ran `seconds` from `started_ns` (time.time_ns()), made in
        one step once its attributes are known (and its duration recorded into `metric` when it
        succeeded): the cheap form for a leaf operation, which opens no child span."""

    def model_call(self, call: ModelCall) -> ModelRecorder:
        """A GenAI client span (`chat {model}`) and the gen_ai.client.* metrics of one model call."""
        return MODEL_NOOP

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

    def flush(self) -> None:
        """Export what is recorded now, without stopping (a host's checkpoint, a test's cut)."""

    def shutdown(self) -> None:
        """Flush and stop exporters (called by Memory.close())."""


DISABLED = Telemetry()
#: The telemetry whose span is current in this context: how a model client, built before the store
#: that uses it, finds the telemetry of the distillation it runs in. Set only while telemetry is on.
CURRENT: contextvars.ContextVar[Telemetry] = contextvars.ContextVar("memoryos_telemetry", default=DISABLED)


def current() -> Telemetry:
    return CURRENT.get()


class _Instrumented(Protocol):
    telemetry: Telemetry


Method = TypeVar("Method", bound=Callable[..., Any])


Describe = Callable[[Any], dict[str, AttributeValue]]


def spanned(
    name: str, *, metric: str | None = None, describe: Describe | None = None, **fixed: AttributeValue
) -> Callable[[Method], Method]:
    """Run a method inside an INTERNAL span (and time it into `metric`) when telemetry is on; when
    off, the wrapper costs one attribute check. `describe` turns the result into attributes."""

    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        def run(self: _Instrumented, *args: Any, **kwargs: Any) -> Any:
            telemetry = self.telemetry
            if not telemetry.enabled:
                return method(self, *args, **kwargs)
            started = time.perf_counter()
            with telemetry.internal(name, **fixed) as span:
                result = method(self, *args, **kwargs)
                if describe is not None:
                    span.set(**describe(result))
            if metric is not None:
                telemetry.duration(metric, time.perf_counter() - started, **fixed)
            return result

        return run  # type: ignore[return-value]  # functools.wraps keeps the signature

    return wrap


class _Operated(Protocol):
    telemetry: Telemetry
    store_id: str


def traced(
    operation: Operation,
    describe: Describe,
    *,
    metric: str | None = None,
    leaf: bool = False,
    **fixed: AttributeValue,
) -> Callable[[Method], Method]:
    """Run a public method inside an operation span; `describe` turns its result into attributes
    (a record id, a record count), `fixed` are codes known in advance (a delete's target). Off, the
    wrapper costs one attribute check. A `leaf` operation (one that never opens a child span, such
    as recall()) gets its span made in one step at its end (`Telemetry.completed`): no context to
    attach, no attributes set twice, and the histogram fed from the same clock readings."""

    def wrap(method: Method) -> Method:
        if leaf:
            return _traced_leaf(method, operation, describe, metric, fixed)

        @functools.wraps(method)
        def run(self: _Operated, *args: Any, **kwargs: Any) -> Any:
            telemetry = self.telemetry
            if not telemetry.enabled:
                return method(self, *args, **kwargs)
            started = time.perf_counter()
            with telemetry.operation(operation, store_id=self.store_id, **fixed) as span:
                result = method(self, *args, **kwargs)
                span.set(**describe(result))
            if metric is not None:
                telemetry.duration(metric, time.perf_counter() - started)
            return result

        return run  # type: ignore[return-value]  # functools.wraps keeps the signature

    return wrap


def _traced_leaf(
    method: Method,
    operation: Operation,
    describe: Describe,
    metric: str | None,
    fixed: dict[str, AttributeValue],
) -> Method:
    @functools.wraps(method)
    def run(self: _Operated, *args: Any, **kwargs: Any) -> Any:
        telemetry = self.telemetry
        if not telemetry.enabled:
            return method(self, *args, **kwargs)
        started_ns, started = time.time_ns(), time.perf_counter()
        try:
            result = method(self, *args, **kwargs)
        except BaseException as exc:
            seconds = time.perf_counter() - started
            telemetry.completed(
                operation, started_ns, seconds, type(exc), None, store_id=self.store_id, **fixed
            )
            raise
        seconds = time.perf_counter() - started
        telemetry.completed(
            operation, started_ns, seconds, None, metric, store_id=self.store_id, **fixed, **describe(result)
        )
        return result

    return run  # type: ignore[return-value]  # functools.wraps keeps the signature


def announced(operation: Operation, is_new: Callable[..., bool]) -> Callable[[Method], Method]:
    """For a function that returns an instrumented store: report `operation` once, when `is_new`
    (asked with the call's arguments before it runs) said the store did not exist yet."""

    def wrap(function: Method) -> Method:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.time_ns()
            new = is_new(*args, **kwargs)
            store = function(*args, **kwargs)
            if new and store.telemetry.enabled:
                store.telemetry.finished(operation, started, store_id=store.store_id)
            return store

        return run  # type: ignore[return-value]  # functools.wraps keeps the signature

    return wrap


def new_file(path: object, *args: Any, **kwargs: Any) -> bool:
    """Whether `path` names no store yet: no file, or an empty one (SQLite writes its header at once)."""
    del args, kwargs
    try:
        return not os.path.exists(path) or os.path.getsize(path) == 0  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, OSError):  # OverflowError: an int too big for an fd
        return False  # open() itself reports the bad path
