"""The runs-per-state gauge, read back through the OpenTelemetry SDK's in-memory reader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint

from auditor import STATES, Report, audit
from auditor.metrics import GAUGE, STATE_KEY, UNIT, observe_runs
from tests.auditor.streams import Stream, later


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
