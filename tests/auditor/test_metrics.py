"""The runs-per-state gauge, read back through the OpenTelemetry SDK's in-memory reader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint

from auditor import STATES, Report, audit
from auditor.metrics import ENV_TELEMETRY, GAUGE, STATE_KEY, UNIT, export_runs, observe_runs
from tests.auditor.streams import Stream, later
from tests.memoryos.test_otel import Receiver, receiver  # noqa: F401 - the fixture is used by name


class Sdk:
    def __init__(self) -> None:
        self.reader = InMemoryMetricReader()
        self.provider = MeterProvider(metric_readers=[self.reader])
        self.meter = self.provider.get_meter("auditor-test")

    def points(self) -> dict[str, int]:
        """state -> value of the gauge at one collection."""
        data = self.reader.get_metrics_data()
        found: dict[str, int] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == GAUGE:
                        assert metric.unit == UNIT
                        for point in metric.data.data_points:
                            assert isinstance(point, NumberDataPoint) and point.attributes is not None
                            found[str(point.attributes[STATE_KEY])] = int(point.value)
        return found


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    wired = Sdk()
    yield wired
    wired.provider.shutdown()


def mixed_report(tmp_path: Path) -> Report:
    s = Stream()
    s.healthy_cycle()
    s.store()  # never promoted: promotion_missing once the wait window is over
    return audit(s.write(tmp_path / "r.jsonl"), now=later(s))


class TestRunsGauge:
    def test_one_point_per_state_with_the_report_counts(self, sdk: Sdk, tmp_path: Path) -> None:
        report = mixed_report(tmp_path)
        observe_runs(sdk.meter, report)
        points = sdk.points()
        assert set(points) == set(STATES)
        assert points == dict(report.counts)
        assert points["healthy"] == 4
        assert points["promotion_missing"] == 1

    def test_a_source_is_read_at_every_collection(self, sdk: Sdk, tmp_path: Path) -> None:
        latest: list[Report] = []
        observe_runs(sdk.meter, lambda: latest[-1] if latest else None)
        assert sdk.points() == {}  # nothing audited yet: no points rather than made-up zeros
        latest.append(mixed_report(tmp_path))
        assert sdk.points()["promotion_missing"] == 1

    def test_a_failing_source_reports_nothing_and_never_raises(
        self, sdk: Sdk, caplog: pytest.LogCaptureFixture
    ) -> None:
        def broken() -> Report:
            raise RuntimeError("disk gone")

        observe_runs(sdk.meter, broken)
        assert sdk.points() == {}
        assert "RuntimeError" in caplog.text
        assert "disk gone" not in caplog.text  # the type only: messages may quote paths

    def test_the_name_and_attribute_match_memoryos_telemetry(self) -> None:
        from memoryos.otel import GAUGES  # only the test looks at memoryos, to keep the names in step

        name, attribute, unit, _ = GAUGES["audit_runs"]
        assert (name, attribute, unit) == (GAUGE, STATE_KEY, UNIT)


class TestExportWhenTheAuditorRuns:
    def test_memoryos_audit_check_exports_the_gauge_over_otlp(
        self,
        tmp_path: Path,
        receiver: Receiver,  # noqa: F811 - the fixture imported above, requested by name
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

        from auditor.cli import main

        s = Stream()
        s.healthy_cycle()
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        assert main(["check", str(path), "--now", later(s).isoformat(), "--format", "json"]) == 3
        (body,) = receiver.bodies["/v1/metrics"]
        request = ExportMetricsServiceRequest.FromString(body)
        points = {
            point.attributes[0].value.string_value: point.as_int
            for rm in request.resource_metrics
            for sm in rm.scope_metrics
            for metric in sm.metrics
            if metric.name == GAUGE
            for point in metric.gauge.data_points
        }
        assert set(points) == set(STATES) and points["promotion_missing"] == 1

    def test_without_the_switch_nothing_is_exported(self, sdk: Sdk, tmp_path: Path) -> None:
        assert export_runs(mixed_report(tmp_path), {}) is False

    def test_an_unreachable_collector_never_changes_the_answer(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
    ) -> None:
        import orjson

        from auditor.cli import main

        s = Stream()
        s.healthy_cycle()
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
        assert main(["check", str(path), "--now", later(s).isoformat(), "--format", "json"]) == 3
        assert orjson.loads(capsysbinary.readouterr().out)["verdict"] == "promotion_missing"
