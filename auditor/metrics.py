"""The auditor's runs per health state as an OpenTelemetry observable gauge.

`memoryos.audit.runs` with the attribute `memoryos.state`, one point per state (zeros included, so a
dashboard sees a state fall back to 0), the same name, attribute and unit as memoryos.otel's table.
OpenTelemetry is optional for the auditor: the API is imported when a gauge is registered, and the
caller brings the meter (and so the SDK, readers and exporters).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from auditor.report import Report
from auditor.states import STATES

if TYPE_CHECKING:
    from opentelemetry.metrics import CallbackOptions, Meter, ObservableGauge

__all__ = ["DESCRIPTION", "ENV_TELEMETRY", "GAUGE", "STATE_KEY", "UNIT", "export_runs", "observe_runs"]

#: "otlp": every `memoryos-audit check` / `report` exports the gauge over OTLP/HTTP, configured by the
#: standard OTEL_* variables (the same switch memoryos reads; the auditor cannot import memoryos).
ENV_TELEMETRY = "MEMORYOS_TELEMETRY"

GAUGE = "memoryos.audit.runs"
STATE_KEY = "memoryos.state"
UNIT = "{run}"
DESCRIPTION = "Audited runs per health state."

_log = logging.getLogger(__name__)

ReportSource = Report | Callable[[], Report | None]


def observe_runs(meter: Meter, report: ReportSource) -> ObservableGauge:
    """Register the gauge on `meter`. `report` is a Report, or a callable returning the latest one
    (None: nothing to report yet), read at each collection."""
    from opentelemetry.metrics import Observation  # lazy: the auditor runs without OpenTelemetry

    read = (lambda: report) if isinstance(report, Report) else report

    def observe(options: CallbackOptions) -> Iterable[Observation]:
        del options
        try:
            current = read()
        except Exception as exc:  # a callback must never raise into the SDK: skip this collection
            _log.warning("audit gauge: the report source failed (%s)", type(exc).__name__)
            return []
        if current is None:
            return []
        return [Observation(current.counts.get(state, 0), {STATE_KEY: state}) for state in STATES]

    return meter.create_observable_gauge(GAUGE, [observe], unit=UNIT, description=DESCRIPTION)


def export_runs(report: Report, environ: Mapping[str, str]) -> bool:
    """When the environment asks for OTLP, export this audit's runs per state once, then stop.
    Never raises: telemetry must not change the auditor's answer or its exit code."""
    if environ.get(ENV_TELEMETRY, "").strip().lower() != "otlp":
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        reader = PeriodicExportingMetricReader(OTLPMetricExporter(), export_interval_millis=3_600_000)
        provider = MeterProvider(metric_readers=[reader])
        observe_runs(provider.get_meter("memoryos.auditor"), report)
        provider.shutdown()  # collects and exports once
    except Exception as exc:  # a missing extra, a bad OTEL_* value, an unreachable collector
        _log.warning("audit gauge: export failed (%s)", type(exc).__name__)
        return False
    return True
