"""OpenTelemetry behind the `memoryos.telemetry` seam: spans, metrics and trace ids for logs.

Spans follow the GenAI memory conventions (`gen_ai.memory.client`, status development): one
INTERNAL span per public operation (memoryos runs in the host's process, which the convention
allows), named after `gen_ai.operation.name` (create_memory_store, create_memory, update_memory,
upsert_memory, search_memory, delete_memory) and carrying gen_ai.memory.store.id / record.id /
record.count; a scope-wide erase is a delete_memory without record.id and with
memoryos.delete.target=scope. Public calls no convention names, and background work, get INTERNAL
spans named `memoryos.<name>` with memoryos.* attributes. A failed operation records `error.type`
(the exception's class) and status ERROR, never the message: messages may quote input. The opt-in
content attributes (gen_ai.memory.query.text, gen_ai.memory.records, gen_ai.input.messages,
gen_ai.output.messages, gen_ai.system_instructions) are never emitted, whatever
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says.

A model call is a CLIENT span `chat {gen_ai.request.model}` (GenAI inference conventions) with the
provider, the request and response model, the server and the token usage, and it records
gen_ai.client.operation.duration and gen_ai.client.token.usage with the conventions' buckets.

Metric names (Prometheus names after the usual translation in parentheses):

    memoryos.promotions           counter   memoryos.boundary, memoryos.status  (memoryos_promotions_total)
    memoryos.evictions            counter   memoryos.tier                       (memoryos_evictions_total)
    memoryos.rejections           counter   memoryos.reason                     (memoryos_rejections_total)
    memoryos.expiries             counter   -                                   (memoryos_expiries_total)
    memoryos.decays               counter   -                                   (memoryos_decays_total)
    memoryos.promotion.duration   histogram memoryos.boundary, unit s (memoryos_promotion_duration_seconds)
    memoryos.recall.duration      histogram -, unit s                 (memoryos_recall_duration_seconds)
    memoryos.occupancy            gauge     memoryos.tier                       (memoryos_occupancy)
    memoryos.outbox.lag           gauge     memoryos.outbox                     (memoryos_outbox_lag)
    memoryos.audit.runs           gauge     memoryos.state                      (memoryos_audit_runs)
    memoryos.summaries            counter   memoryos.status                     (memoryos_summaries_total)
    gen_ai.client.operation.duration  histogram, s  gen_ai.*, error.type  (..._duration_seconds)
    gen_ai.client.token.usage     histogram gen_ai.*, gen_ai.token.type    (gen_ai_client_token_usage)

Telemetry never hurts the host: every call into the SDK is guarded, a failure is logged once per
place and error type (content-free), and exporting happens on the SDK's background threads.

Only the OpenTelemetry API is imported here at module level; the SDK and the OTLP exporter
(`memoryos[otlp]`) load in `OtelTelemetry.from_environment`.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import math
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from memoryos._version import __version__
from memoryos.logs import add_trace_ids as add_trace_ids  # noqa: PLC0414  (re-export: moved to logs)
from memoryos.logs import get_logger
from memoryos.telemetry import (
    CURRENT,
    DISABLED,
    AttributeValue,
    ModelCall,
    ModelRecorder,
    Operation,
    Recorder,
    Telemetry,
)

SCOPE = "memoryos"
#: Short keys from the seam that have a GenAI convention name; every other key becomes memoryos.<key>.
SPAN_KEYS = {
    "store_id": "gen_ai.memory.store.id",
    "record_id": "gen_ai.memory.record.id",
    "record_count": "gen_ai.memory.record.count",
    "delete_target": "memoryos.delete.target",
}
#: The only metric attribute keys let through: low-cardinality codes, never ids.
METRIC_KEYS = {key: f"memoryos.{key}" for key in ("boundary", "status", "tier", "reason", "state")}
#: Counter name -> (unit, description).
COUNTERS = {
    "memoryos.promotions": ("{record}", "Units moved across a tier boundary, by boundary and status."),
    "memoryos.evictions": ("{record}", "Units evicted from a tier to keep it within capacity."),
    "memoryos.rejections": ("{write}", "Writes refused by the no-store rule, by reason."),
    "memoryos.expiries": ("{record}", "Units erased because their validity window ended."),
    "memoryos.decays": ("{record}", "LPM records whose status decayed (stale, retired)."),
    "memoryos.summaries": (
        "{segment}",
        "Segments whose notes maintain() refreshed, by status (ok, degraded).",
    ),
}
HISTOGRAMS = {
    "memoryos.promotion.duration": "Duration of one promotion run, by boundary.",
    "memoryos.recall.duration": "Duration of one recall() call.",
}
#: Bucket bounds in seconds: the SDK's defaults are sized for milliseconds.
SECONDS_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Key in the watch() source -> (gauge name, attribute key, unit, description).
GAUGES = {
    "occupancy": ("memoryos.occupancy", "memoryos.tier", "{record}", "Units held in each tier."),
    "outbox_lag": ("memoryos.outbox.lag", "memoryos.outbox", "{receipt}", "Receipts not yet exported."),
    "audit_runs": ("memoryos.audit.runs", "memoryos.state", "{run}", "Audited runs per health state."),
}
#: GenAI client metrics and their ExplicitBucketBoundaries, as docs/gen-ai/gen-ai-metrics.md gives them.
GENAI_DURATION = "gen_ai.client.operation.duration"
GENAI_TOKENS = "gen_ai.client.token.usage"
GENAI_DURATION_BUCKETS = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
GENAI_TOKEN_BUCKETS = (
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
)  # fmt: skip
SNAPSHOT_SECONDS = 1.0  # one read of the gauge source serves every gauge of one collection

GaugeSource = Callable[[], Mapping[str, Mapping[str, int]]]


def _log() -> Any:
    return get_logger()


def metric_name(metric: str) -> str:
    return metric if metric.startswith("memoryos.") else f"memoryos.{metric}"


def span_attributes(attributes: Mapping[str, AttributeValue]) -> dict[str, AttributeValue]:
    return {SPAN_KEYS.get(key) or f"memoryos.{key}": value for key, value in attributes.items()}


def metric_attributes(attributes: Mapping[str, AttributeValue]) -> dict[str, AttributeValue]:
    return {METRIC_KEYS[key]: value for key, value in attributes.items() if key in METRIC_KEYS}


def error_type(kind: type[BaseException]) -> str:
    """The canonical, content-free name of an exception class (`error.type`)."""
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


class _Failures:
    """Log each (place, error type) once: a broken exporter must not flood the host's logs."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()

    def __call__(self, where: str, error: BaseException) -> None:
        key = (where, error_type(type(error)))
        if key in self._seen:
            return
        self._seen.add(key)
        with contextlib.suppress(Exception):  # logging that fails must not reach the host either
            _log().warning("telemetry failed", where=where, error=key[1])


class _Span(Recorder):
    """A started span made current for the duration of the `with` block."""

    __slots__ = ("_current", "_failed", "_owner", "_span", "_token")

    def __init__(self, span: trace.Span, failed: _Failures, owner: Telemetry) -> None:
        self._span = span
        self._failed = failed
        self._owner = owner
        self._token: object | None = None
        self._current: contextvars.Token[Telemetry] | None = None

    def __enter__(self) -> Recorder:
        try:
            self._token = otel_context.attach(trace.set_span_in_context(self._span))
            self._current = CURRENT.set(self._owner)
        except Exception as exc:
            self._failed("span.enter", exc)
        return self

    def set(self, **attributes: AttributeValue) -> None:
        try:
            self._span.set_attributes(span_attributes(attributes))
        except Exception as exc:
            self._failed("span.set", exc)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace_: TracebackType | None
    ) -> None:
        try:
            if kind is not None:
                self._span.set_attribute("error.type", error_type(kind))
                self._span.set_status(Status(StatusCode.ERROR))  # no description: it could quote input
            self._span.end()
        except Exception as exc:
            self._failed("span.end", exc)
        finally:
            self._detach()
        # Returning None never swallows the host's exception.

    def _detach(self) -> None:
        try:
            if self._current is not None:
                CURRENT.reset(self._current)
            if self._token is not None:
                otel_context.detach(self._token)  # type: ignore[arg-type]  # the token attach() gave
        except Exception as exc:
            self._failed("span.detach", exc)


class _ModelSpan(ModelRecorder):
    """The CLIENT span of one model call; its end records the two gen_ai.client.* histograms."""

    def __init__(self, span: trace.Span, telemetry: OtelTelemetry, labels: dict[str, AttributeValue]) -> None:
        self._span = span
        self._telemetry = telemetry
        self._labels = labels
        self._tokens: dict[str, int] = {}
        self._code: str | None = None
        self._started = time.perf_counter()
        self._token: object | None = None

    def __enter__(self) -> ModelRecorder:
        try:
            self._token = otel_context.attach(trace.set_span_in_context(self._span))
        except Exception as exc:
            self._telemetry._failed("model.enter", exc)
        return self

    def usage(self, response_model: str | None, input_tokens: int | None, output_tokens: int | None) -> None:
        try:
            if response_model:
                self._labels["gen_ai.response.model"] = response_model
            for kind, value in (("input", input_tokens), ("output", output_tokens)):
                if value is not None:
                    self._tokens[kind] = value
                    self._span.set_attribute(f"gen_ai.usage.{kind}_tokens", value)
        except Exception as exc:
            self._telemetry._failed("model.usage", exc)

    def fail(self, code: str) -> None:
        self._code = code

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace_: TracebackType | None
    ) -> None:
        try:
            if kind is not None and self._code is None:
                self._code = error_type(kind)
            labels = dict(self._labels)
            if self._code is not None:
                labels["error.type"] = self._code
                self._span.set_status(Status(StatusCode.ERROR))  # no description: it could quote input
            self._span.set_attributes(labels)
            self._span.end()
            self._telemetry._record_model_call(time.perf_counter() - self._started, labels, self._tokens)
        except Exception as exc:
            self._telemetry._failed("model.end", exc)
        finally:
            if self._token is not None:
                try:
                    otel_context.detach(self._token)  # type: ignore[arg-type]  # the token attach() gave
                except Exception as exc:
                    self._telemetry._failed("model.detach", exc)


class _Shutdown(Protocol):
    def shutdown(self) -> Any: ...

    def force_flush(self, timeout_millis: int = ...) -> Any: ...


class OtelTelemetry(Telemetry):
    """Telemetry through OpenTelemetry providers.

    `OtelTelemetry()` uses the host's global providers; pass `tracer_provider` / `meter_provider`
    (SDK providers with, e.g., InMemorySpanExporter and InMemoryMetricReader in tests) to use others.
    `shutdown()` shuts down only providers that `from_environment` created; the host owns the rest.
    """

    enabled = True
    #: How long shutdown() waits for the final export of providers it owns.
    shutdown_seconds = 5.0

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self._failed = _Failures()
        self._owned: tuple[_Shutdown, ...] = ()
        self._sources: list[Callable[[], GaugeSource | None]] = []
        self._lock = threading.Lock()
        self._snapshot: tuple[float, dict[str, dict[str, int]]] = (-math.inf, {})
        tracers = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
        meters = meter_provider if meter_provider is not None else metrics.get_meter_provider()
        self._tracer = tracers.get_tracer(SCOPE, __version__)
        meter = meters.get_meter(SCOPE, __version__)
        self._counters = {
            name: meter.create_counter(name, unit=unit, description=text)
            for name, (unit, text) in COUNTERS.items()
        }
        self._histograms = {
            name: meter.create_histogram(
                name, unit="s", description=text, explicit_bucket_boundaries_advisory=SECONDS_BUCKETS
            )
            for name, text in HISTOGRAMS.items()
        }
        for key, (name, _, unit, text) in GAUGES.items():
            meter.create_observable_gauge(name, [self._observer(key)], unit=unit, description=text)
        self._model_duration = meter.create_histogram(
            GENAI_DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=GENAI_DURATION_BUCKETS,
        )
        self._model_tokens = meter.create_histogram(
            GENAI_TOKENS,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=GENAI_TOKEN_BUCKETS,
        )

    # -- the seam ------------------------------------------------------------------------------------
    def operation(self, name: Operation, **attributes: AttributeValue) -> Recorder:
        try:
            span = self._tracer.start_span(
                name,
                kind=SpanKind.INTERNAL,
                attributes={"gen_ai.operation.name": name, **span_attributes(attributes)},
            )
            return _Span(span, self._failed, self)
        except Exception as exc:
            self._failed("operation", exc)
            return Recorder()

    def finished(self, name: Operation, started_ns: int, **attributes: AttributeValue) -> None:
        try:
            self._tracer.start_span(
                name,
                kind=SpanKind.INTERNAL,
                attributes={"gen_ai.operation.name": name, **span_attributes(attributes)},
                start_time=started_ns,
            ).end()
        except Exception as exc:
            self._failed("finished", exc)

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
        try:
            span = self._tracer.start_span(
                name,
                kind=SpanKind.INTERNAL,
                attributes={"gen_ai.operation.name": name, **span_attributes(attributes)},
                start_time=started_ns,
            )
            if error is not None:
                span.set_attribute("error.type", error_type(error))
                span.set_status(Status(StatusCode.ERROR))  # no description: it could quote input
            span.end(end_time=started_ns + int(seconds * 1e9))
            if metric is not None and error is None:
                self._histograms[metric_name(metric)].record(seconds)
        except Exception as exc:
            self._failed("completed", exc)

    def model_call(self, call: ModelCall) -> ModelRecorder:
        try:
            labels: dict[str, AttributeValue] = {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": call.provider,
                "gen_ai.request.model": call.model,
                "server.address": call.server_address,
                "server.port": call.server_port,
            }
            span = self._tracer.start_span(f"chat {call.model}", kind=SpanKind.CLIENT, attributes=labels)
            return _ModelSpan(span, self, labels)
        except Exception as exc:
            self._failed("model_call", exc)
            return ModelRecorder()

    def _record_model_call(
        self, seconds: float, labels: Mapping[str, AttributeValue], tokens: Mapping[str, int]
    ) -> None:
        self._model_duration.record(seconds, labels)
        for kind, value in tokens.items():
            self._model_tokens.record(value, {**labels, "gen_ai.token.type": kind})

    def internal(self, name: str, **attributes: AttributeValue) -> Recorder:
        try:
            span = self._tracer.start_span(
                f"memoryos.{name}", kind=SpanKind.INTERNAL, attributes=span_attributes(attributes)
            )
            return _Span(span, self._failed, self)
        except Exception as exc:
            self._failed("internal", exc)
            return Recorder()

    def count(self, metric: str, value: int = 1, **attributes: AttributeValue) -> None:
        """Add to a counter and, inside a recording span, note the count there as an event."""
        try:
            name = metric_name(metric)
            counter = self._counters.get(name)
            if counter is None:
                self._failed(f"count.unknown.{name}", LookupError())
                return
            labels = metric_attributes(attributes)
            counter.add(value, labels)
            span = trace.get_current_span()
            if value and span.is_recording():
                span.add_event(name, {"memoryos.count": value, **labels})
        except Exception as exc:
            self._failed("count", exc)

    def duration(self, metric: str, seconds: float, **attributes: AttributeValue) -> None:
        try:
            histogram = self._histograms.get(metric_name(metric))
            if histogram is None:
                self._failed(f"duration.unknown.{metric_name(metric)}", LookupError())
                return
            histogram.record(seconds, metric_attributes(attributes))
        except Exception as exc:
            self._failed("duration", exc)

    def watch(self, gauges: GaugeSource) -> None:
        """Add a gauge source; a bound method is held weakly, so a dropped Memory stops reporting.
        Values of several sources add up (one process, several stores)."""
        try:
            ref: Callable[[], GaugeSource | None] = (
                weakref.WeakMethod(gauges) if inspect.ismethod(gauges) else (lambda: gauges)
            )
            with self._lock:
                self._sources.append(ref)
                self._snapshot = (-math.inf, {})
        except Exception as exc:
            self._failed("watch", exc)

    def annotate(self, **attributes: AttributeValue) -> None:
        """Set attributes (ids, codes, counts) on the current span, e.g. a run id known mid-call."""
        try:
            span = trace.get_current_span()
            if span.is_recording():
                span.set_attributes(span_attributes(attributes))
        except Exception as exc:
            self._failed("annotate", exc)

    def flush(self) -> None:
        """Export now through the providers this object created (bounded like shutdown())."""
        for provider in self._owned:
            try:
                provider.force_flush(int(self.shutdown_seconds * 1000))
            except Exception as exc:
                self._failed("flush", exc)

    def shutdown(self) -> None:
        """Flush and shut down the providers this object created; leave the host's alone.

        Waits at most `shutdown_seconds`: against an unreachable endpoint the exporters retry for
        their whole timeout, and Memory.close() must not hang on that. A flush still running then
        carries on in its daemon thread."""
        owned, self._owned = self._owned, ()
        if not owned:
            return
        deadline = time.monotonic() + self.shutdown_seconds
        workers = [
            threading.Thread(target=self._shutdown_one, args=(p,), name="memoryos-otel-shutdown", daemon=True)
            for p in owned
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(max(deadline - time.monotonic(), 0.0))
        if any(worker.is_alive() for worker in workers):
            _log().warning("telemetry still flushing at close: not waiting", seconds=self.shutdown_seconds)

    def _shutdown_one(self, provider: _Shutdown) -> None:
        try:
            provider.shutdown()
        except Exception as exc:
            self._failed("shutdown", exc)

    # -- gauges --------------------------------------------------------------------------------------
    def _observer(self, key: str) -> Callable[[metrics.CallbackOptions], Iterable[metrics.Observation]]:
        attribute = GAUGES[key][1]

        def observe(options: metrics.CallbackOptions) -> Iterable[metrics.Observation]:
            del options
            try:
                values = self._read_sources().get(key, {})
                return [metrics.Observation(n, {attribute: label}) for label, n in sorted(values.items())]
            except Exception as exc:  # an observable callback must never raise into the SDK
                self._failed(f"gauge.{key}", exc)
                return []

        return observe

    def _read_sources(self) -> dict[str, dict[str, int]]:
        with self._lock:
            taken, cached = self._snapshot
            if time.monotonic() - taken < SNAPSHOT_SECONDS:
                return cached
            live = [source for source in (ref() for ref in self._sources) if source is not None]
            self._sources = [ref for ref in self._sources if ref() is not None]
            total: dict[str, dict[str, int]] = {}
            for source in live:
                try:
                    reading = source()
                except Exception as exc:
                    self._failed("gauge.source", exc)
                    continue
                for key, values in reading.items():
                    into = total.setdefault(key, {})
                    for label, n in values.items():
                        into[label] = into.get(label, 0) + int(n)
            self._snapshot = (time.monotonic(), total)
            return total

    # -- configuration from OTEL_* -------------------------------------------------------------------
    @classmethod
    def from_environment(cls, store_id: str, environ: Mapping[str, str]) -> OtelTelemetry:
        """Providers with OTLP/HTTP exporters configured by the standard OTEL_* variables in `environ`.

        Never sets the global providers. A malformed value falls back to its default with a warning;
        a missing `memoryos[otlp]` extra or a failure to build the SDK turns telemetry off with a
        warning. Nothing here raises into `memoryos.open()`.
        """
        del store_id  # on every span already; as a resource attribute it would split every series
        try:
            if _flag(environ, "OTEL_SDK_DISABLED"):
                return cls.off()
            return _build(cls, environ)
        except ImportError:
            _log().warning("telemetry off: install memoryos[otlp] for OTLP export")
        except Exception as exc:
            _log().warning("telemetry off: cannot configure OpenTelemetry", error=error_type(type(exc)))
        return cls.off()

    @classmethod
    def off(cls) -> OtelTelemetry:
        """An instance that records nothing: what a configuration failure falls back to."""
        telemetry = cls(
            tracer_provider=trace.NoOpTracerProvider(), meter_provider=metrics.NoOpMeterProvider()
        )
        telemetry.enabled = False
        return telemetry


# -- OTEL_* parsing: every value checked, a bad one replaced by its default with a warning ------------
DEFAULT_ENDPOINT = "http://localhost:4318"


def _warn(variable: str) -> None:
    # The value is not logged: headers and URLs can carry credentials.
    _log().warning("telemetry setting ignored: malformed value, using the default", variable=variable)


def _flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() == "true"


def _number(environ: Mapping[str, str], names: Sequence[str], default: float, *, zero: bool = False) -> float:
    """The first set variable of `names` as a finite positive number (or zero when allowed)."""
    for name in names:
        raw = environ.get(name, "").strip()
        if not raw:
            continue
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and (value > 0 or (zero and value == 0)):
            return value
        _warn(name)
        return default
    return default


def _size(environ: Mapping[str, str], name: str, default: int) -> int:
    value = _number(environ, (name,), float(default))
    if value < 1 or value != int(value):
        _warn(name)
        return default
    return int(value)


def _endpoint(environ: Mapping[str, str], signal: str) -> str:
    specific = f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT"
    if raw := environ.get(specific, "").strip():
        if _url_ok(raw):
            return raw
        _warn(specific)
    base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if base and not _url_ok(base):
        _warn("OTEL_EXPORTER_OTLP_ENDPOINT")
        base = ""
    return f"{(base or DEFAULT_ENDPOINT).rstrip('/')}/v1/{signal}"


def _url_ok(raw: str) -> bool:
    try:
        parts = urlsplit(raw)
        return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.port != 0
    except ValueError:
        return False


def _choice(environ: Mapping[str, str], names: Sequence[str], choices: Sequence[str], default: str) -> str:
    for name in names:
        raw = environ.get(name, "").strip().lower()
        if not raw:
            continue
        if raw in choices:
            return raw
        _warn(name)
        return default
    return default


def _headers(environ: Mapping[str, str], signal: str) -> dict[str, str]:
    from opentelemetry.util.re import parse_env_headers

    name = f"OTEL_EXPORTER_OTLP_{signal.upper()}_HEADERS"
    raw = environ.get(name) or environ.get("OTEL_EXPORTER_OTLP_HEADERS", "")
    return dict(parse_env_headers(raw, liberal=True))


def _resource_attributes(environ: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in environ.get("OTEL_RESOURCE_ATTRIBUTES", "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            _warn("OTEL_RESOURCE_ATTRIBUTES")
            continue
        found[unquote(key.strip())] = unquote(value.strip())
    service = environ.get("OTEL_SERVICE_NAME", "").strip()
    found["service.name"] = service or found.get("service.name") or SCOPE
    return found


def _signal(environ: Mapping[str, str], signal: str) -> dict[str, Any]:
    """Keyword arguments of an OTLP/HTTP exporter for `signal` ("traces" or "metrics")."""
    from opentelemetry.exporter.otlp.proto.http import Compression

    upper = signal.upper()
    compression = _choice(
        environ,
        (f"OTEL_EXPORTER_OTLP_{upper}_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"),
        ("none", "gzip", "deflate"),
        "none",
    )
    return {
        "endpoint": _endpoint(environ, signal),
        "headers": _headers(environ, signal),
        # Seconds, as opentelemetry-python reads this variable.
        "timeout": _number(
            environ, (f"OTEL_EXPORTER_OTLP_{upper}_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"), 10.0
        ),
        "compression": Compression(compression),
    }


def _build(cls: type[OtelTelemetry], environ: Mapping[str, str]) -> OtelTelemetry:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    protocol = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
    _choice(environ, protocol, ("http/protobuf",), "http/protobuf")  # only OTLP/HTTP is shipped
    resource = Resource(_resource_attributes(environ))
    tracer_provider = TracerProvider(resource=resource)
    readers: list[MetricReader] = []
    if _choice(environ, ("OTEL_METRICS_EXPORTER",), ("otlp", "none"), "otlp") == "otlp":
        readers.append(
            PeriodicExportingMetricReader(
                OTLPMetricExporter(**_signal(environ, "metrics")),
                export_interval_millis=_number(environ, ("OTEL_METRIC_EXPORT_INTERVAL",), 60_000.0),
                export_timeout_millis=_number(environ, ("OTEL_METRIC_EXPORT_TIMEOUT",), 30_000.0),
            )
        )
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    if _choice(environ, ("OTEL_TRACES_EXPORTER",), ("otlp", "none"), "otlp") == "otlp":
        queue = _size(environ, "OTEL_BSP_MAX_QUEUE_SIZE", 2048)
        batch = _size(environ, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512)
        if batch > queue:
            _warn("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")
            batch = min(512, queue)
        tracer_provider.add_span_processor(
            BatchSpanProcessor(
                OTLPSpanExporter(**_signal(environ, "traces")),
                max_queue_size=queue,
                schedule_delay_millis=_number(environ, ("OTEL_BSP_SCHEDULE_DELAY",), 5000.0),
                max_export_batch_size=batch,
                export_timeout_millis=_number(environ, ("OTEL_BSP_EXPORT_TIMEOUT",), 30_000.0),
                meter_provider=meter_provider,  # never the host's global provider
            )
        )
    telemetry = cls(tracer_provider=tracer_provider, meter_provider=meter_provider)
    telemetry._owned = (tracer_provider, meter_provider)
    return telemetry


def from_environment(store_id: str, environ: Mapping[str, str]) -> Telemetry:
    """MEMORYOS_TELEMETRY=otlp turns on OpenTelemetry export configured by the standard OTEL_*
    variables; anything else (or unset) keeps telemetry off."""
    from memoryos.settings import ENV_TELEMETRY

    if environ.get(ENV_TELEMETRY, "").strip().lower() != "otlp":
        return DISABLED
    return OtelTelemetry.from_environment(store_id, environ)
