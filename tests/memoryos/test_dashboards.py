"""The Grafana dashboard, tested three ways: every query parses with a PromQL parser and names only
series memoryos emits; the dashboard decodes with Grafana's own Python SDK; and an end-to-end run
(memoryos, a model, the auditor, all exporting OTLP/HTTP to a receiver on loopback) gives every panel
the exact series it reads, with data in every rate() it takes."""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import promql_parser
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.metrics.v1.metrics_pb2 import Metric

import memoryos
from memoryos import otel
from memoryos.settings import ENV_LLM_MODEL, ENV_LLM_URL, ENV_TELEMETRY
from memoryos.testing import FakeClock, FakeLLMServer
from tests.memoryos.test_otel import Receiver

DASHBOARDS = Path(__file__).resolve().parents[2] / "dashboards"
DASHBOARD = DASHBOARDS / "memoryos.json"
SERVICE = "agent-under-test"
#: Set to a file name to keep the end-to-end run's series (dashboards/render.py plots them).
ENV_SERIES_OUT = "MEMORYOS_DASHBOARD_SERIES"
#: What Grafana substitutes before Prometheus sees a query.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$job": SERVICE}


def load() -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return dashboard


def panels(dashboard: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p for p in dashboard["panels"] if p["type"] != "row"]


def expressions(dashboard: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for panel in panels(dashboard):
        for target in panel["targets"]:
            yield panel["title"], target["expr"]


def substituted(expr: str) -> str:
    for variable, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(variable, value)
    return expr


# -- what the code emits, in Prometheus' names ------------------------------------------------------
def prometheus_name(name: str, unit: str, kind: str) -> str:
    """The classic OTLP -> Prometheus translation (the Collector exporters' default): dots become
    underscores, a unit in braces is dropped, seconds become a suffix, counters get _total."""
    base = re.sub(r"[^a-zA-Z0-9_]", "_", name)
    if unit == "s" and not base.endswith("_seconds"):
        base += "_seconds"
    return base + "_total" if kind == "counter" else base


def emitted_names() -> set[str]:
    """Every series name the instruments declared in memoryos.otel can produce."""
    names = {prometheus_name(n, "", "counter") for n in otel.COUNTERS}
    histograms = [(n, "s") for n in otel.HISTOGRAMS] + [(otel.GENAI_DURATION, "s"), (otel.GENAI_TOKENS, "")]
    for name, unit in histograms:
        base = prometheus_name(name, unit, "histogram")
        names |= {base + suffix for suffix in ("_bucket", "_sum", "_count")}
    names |= {prometheus_name(spec[0], "", "gauge") for spec in otel.GAUGES.values()}
    return names


@dataclass
class Query:
    """What one parsed query reads: its selectors, the labels it groups by, the selectors it rates."""

    selectors: list[promql_parser.VectorSelector] = field(default_factory=list)
    grouping: list[tuple[list[str], list[promql_parser.VectorSelector]]] = field(default_factory=list)
    rated: list[promql_parser.VectorSelector] = field(default_factory=list)


def selectors_in(expr: promql_parser.Expr) -> list[promql_parser.VectorSelector]:
    found: list[promql_parser.VectorSelector] = []

    def visit(node: promql_parser.Expr) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)

    promql_parser.walk(expr, visit)
    return found


def parse(expr: str) -> Query:
    tree = promql_parser.parse(substituted(expr))
    query = Query(selectors=selectors_in(tree))

    def visit(node: promql_parser.Expr) -> None:
        if isinstance(node, promql_parser.AggregateExpr) and node.modifier is not None:
            query.grouping.append((list(node.modifier.labels), selectors_in(node.expr)))
        if isinstance(node, promql_parser.Call) and node.func.name in ("rate", "increase", "irate"):
            query.rated.extend(selectors_in(node))

    promql_parser.walk(tree, visit)
    return query


class TestQueries:
    def test_every_query_parses_and_reads_only_series_memoryos_emits(self) -> None:
        emitted = emitted_names()
        used: set[str] = set()
        for title, expr in expressions(load()):
            query = parse(expr)
            assert all(s.name for s in query.selectors), (title, expr)  # no {__name__=~...} guessing
            names = {s.name for s in query.selectors if s.name}
            assert names, (title, expr)
            assert names <= emitted, (title, names - emitted)
            used |= names
        wanted = {
            "memoryos_occupancy",
            "memoryos_promotions_total",
            "memoryos_audit_runs",
            "memoryos_summaries_total",
            "gen_ai_client_operation_duration_seconds_bucket",
            "gen_ai_client_token_usage_sum",
        }
        assert wanted <= used

    def test_a_query_naming_an_unknown_series_is_caught(self) -> None:
        query = parse('sum(rate(memoryos_promotion_total{job=~"$job"}[$__rate_interval]))')
        assert {s.name or "" for s in query.selectors} - emitted_names() == {"memoryos_promotion_total"}

    def test_a_malformed_query_does_not_parse(self) -> None:
        with pytest.raises(ValueError):
            parse("sum by (memoryos_tier (memoryos_occupancy)")


class TestGrafanaSdk:
    def test_the_dashboard_decodes_with_grafanas_own_sdk_into_prometheus_timeseries_panels(self) -> None:
        from grafana_foundation_sdk.cog.plugins import register_default_plugins
        from grafana_foundation_sdk.models import dashboard as model
        from grafana_foundation_sdk.models import prometheus, timeseries

        register_default_plugins()
        raw = load()
        decoded = model.Dashboard.from_json(raw)
        assert decoded.uid == raw["uid"] and decoded.schema_version == raw["schemaVersion"]
        assert decoded.panels is not None and len(decoded.panels) == len(raw["panels"])
        for panel, source in zip(decoded.panels, raw["panels"], strict=True):
            if source["type"] == "row":
                assert isinstance(panel, model.RowPanel)
                continue
            assert isinstance(panel, model.Panel)
            assert panel.type_val == "timeseries"
            assert isinstance(panel.options, timeseries.Options), source["title"]
            assert panel.targets, source["title"]
            for query, target in zip(panel.targets, source["targets"], strict=True):
                assert isinstance(query, prometheus.Dataquery), source["title"]
                assert query.expr == target["expr"]
        # What the SDK writes back is what Grafana would import: the same panels and queries.
        again = json.loads(json.dumps(decoded, cls=_Encoder))
        assert [p.get("title") for p in again["panels"]] == [p["title"] for p in raw["panels"]]

    def test_ids_are_unique_and_every_panel_reads_the_dashboards_data_source(self) -> None:
        raw = load()
        ids = [p["id"] for p in raw["panels"]]
        assert len(ids) == len(set(ids))
        assert [i["name"] for i in raw["__inputs"]] == ["DS_PROMETHEUS"]
        for panel in panels(raw):
            assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}"


def _encoder() -> type[json.JSONEncoder]:
    from grafana_foundation_sdk.cog.encoder import JSONEncoder

    encoder: type[json.JSONEncoder] = JSONEncoder
    return encoder


class _Encoder(json.JSONEncoder):
    def default(self, o: object) -> Any:
        return _encoder()(sort_keys=True).default(o)


# -- an end-to-end run ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    name: str
    labels: tuple[tuple[str, str], ...]
    value: float
    export: int  # which OTLP request (0, 1, ...) of the run it came in

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


def _labels(
    attributes: Iterable[Any], target: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> tuple[Any, ...]:
    found = {re.sub(r"[^a-zA-Z0-9_]", "_", a.key): _text(a.value) for a in attributes}
    return tuple(sorted({**found, **target, **(extra or {})}.items()))


def _text(value: Any) -> str:
    kind = value.WhichOneof("value")
    return str(getattr(value, kind)) if kind else ""


def _samples(metric: Metric, job: Mapping[str, str], export: int) -> Iterator[Sample]:
    kind = metric.WhichOneof("data")
    if kind == "sum":
        name = prometheus_name(metric.name, metric.unit, "counter" if metric.sum.is_monotonic else "gauge")
        for point in metric.sum.data_points:
            yield Sample(name, _labels(point.attributes, job), float(point.as_int or point.as_double), export)
    elif kind == "gauge":
        name = prometheus_name(metric.name, metric.unit, "gauge")
        for point in metric.gauge.data_points:
            yield Sample(name, _labels(point.attributes, job), float(point.as_int or point.as_double), export)
    elif kind == "histogram":
        base = prometheus_name(metric.name, metric.unit, "histogram")
        for h in metric.histogram.data_points:
            yield Sample(base + "_sum", _labels(h.attributes, job), h.sum, export)
            yield Sample(base + "_count", _labels(h.attributes, job), float(h.count), export)
            total = 0
            bounds = [*(format(b, "g") for b in h.explicit_bounds), "+Inf"]
            for bound, count in zip(bounds, h.bucket_counts, strict=True):
                total += count
                yield Sample(
                    base + "_bucket", _labels(h.attributes, job, {"le": bound}), float(total), export
                )


def received_samples(bodies: Sequence[bytes]) -> list[Sample]:
    """Every sample of every OTLP/HTTP metrics request, as Prometheus would store it; `export` is
    the request's place in the run."""
    samples: list[Sample] = []
    for export, body in enumerate(bodies):
        request = ExportMetricsServiceRequest.FromString(body)
        for resource in request.resource_metrics:
            attributes = {a.key: _text(a.value) for a in resource.resource.attributes}
            # Prometheus' target labels: job from service.name, instance from service.instance.id.
            job = {"job": attributes.get("service.name", "")}
            if "service.instance.id" in attributes:
                job["instance"] = attributes["service.instance.id"]
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    samples.extend(_samples(metric, job, export))
    return samples


def matches(selector: promql_parser.VectorSelector, sample: Sample) -> bool:
    if sample.name != selector.name:
        return False
    for matcher in selector.matchers.matchers:
        value = sample.label(matcher.name) or ""
        op = matcher.op
        if op == promql_parser.MatchOp.Equal and value != matcher.value:
            return False
        if op == promql_parser.MatchOp.NotEqual and value == matcher.value:
            return False
        if op == promql_parser.MatchOp.Re and not re.fullmatch(matcher.value, value):
            return False
        if op == promql_parser.MatchOp.NotRe and re.fullmatch(matcher.value, value):
            return False
    return True


def increased(series: Sequence[Sample]) -> bool:
    """Some series (same labels) grew from one export to a later one: rate() over it is > 0."""
    by_labels: dict[tuple[Any, ...], list[Sample]] = {}
    for sample in series:
        by_labels.setdefault(sample.labels, []).append(sample)
    for samples in by_labels.values():
        ordered = sorted(samples, key=lambda s: s.export)
        if any(b.value > a.value for a, b in itertools.pairwise(ordered)):
            return True
    return False


def panel_data(dashboard: Mapping[str, Any], samples: Sequence[Sample]) -> dict[str, list[Sample]]:
    """For each panel, the samples its queries read; fails naming the panel that would stay empty."""
    read: dict[str, list[Sample]] = {}
    for title, expr in expressions(dashboard):
        query = parse(expr)
        for selector in query.selectors:
            series = [s for s in samples if matches(selector, s)]
            assert series, f"{title}: no series for {selector}"
            read.setdefault(title, []).extend(series)
        for selector in query.rated:
            series = [s for s in samples if matches(selector, s)]
            assert increased(series), f"{title}: rate({selector}) would be 0 or empty"
        for labels, inner in query.grouping:
            for selector in inner:
                series = [s for s in samples if matches(selector, s)]
                for label in labels:
                    assert any(s.label(label) is not None for s in series), (
                        f"{title}: no {label} on {selector}"
                    )
    return read


SCOPE = memoryos.Scope(user="operator-test", assistant="coder")
PHASES = 3
TURNS = (
    "We deploy blyck with make ship on Fridays after the release review",
    "Deploy blyck: run make ship from the repo root, then tag the release",
    "The release review happens on Thursdays with the whole team",
)


def one_phase(mem: memoryos.Memory, clock: FakeClock, phase: int) -> None:
    """Work that moves every series a panel reads: writes, promotions with a model, evictions,
    rejections, expiry, decay, notes, recall."""
    for turn in range(3):
        for text in TURNS:
            mem.remember(SCOPE, f"{text} (phase {phase}, round {turn})")
        mem.put(SCOPE, f"fact-{phase}-{turn}", f"blyck release train number {phase}.{turn}", kind="fact")
        mem.recall(SCOPE, "deploy blyck release")
        with pytest.raises(memoryos.Rejected):
            mem.remember(SCOPE, "my key is AKIAIOSFODNN7EXAMPLE")
        mem.remember(SCOPE, "a short-lived note about the release", ttl=1.0)
        clock.advance(hours=1)
        mem.maintain()
    clock.advance(days=3)
    mem.maintain()


def audit_the_store(db: Path, tmp_path: Path) -> None:
    from auditor.cli import main

    receipts = tmp_path / "receipts.jsonl"
    with memoryos.open(db) as mem:
        mem.export_receipts(receipts, cursor="audit")
    main(["check", str(receipts), "--format", "json"])


@pytest.fixture(scope="module")
def end_to_end(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Sample]]:
    """One run shared by the tests that read it: three phases cut by explicit exports, so that every
    counter a panel rates has grown between two samples, as Prometheus needs."""
    tmp_path = tmp_path_factory.mktemp("end_to_end")
    db = tmp_path / "memory.db"
    clock = FakeClock()
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with pytest.MonkeyPatch.context() as env, FakeLLMServer("normal") as model:
        env.setenv(ENV_TELEMETRY, "otlp")
        env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", server.endpoint)
        env.setenv("OTEL_SERVICE_NAME", SERVICE)
        env.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id=agent-1")
        env.setenv("OTEL_METRIC_EXPORT_INTERVAL", "3600000")  # only the explicit cuts export
        env.setenv(ENV_LLM_URL, model.url)
        env.setenv(ENV_LLM_MODEL, "fake-model")
        overrides: dict[str, Any] = {
            "stm_capacity": 3,
            "mtm_capacity": 2,
            "lpm_list_capacity": 2,
            "heat_threshold": 2.5,
            "stale_after_days": 1.0,
            "retired_after_days": 2.0,
        }
        with memoryos.open(db, clock=clock, **overrides) as mem:
            for phase in range(PHASES):
                one_phase(mem, clock, phase)
                mem.telemetry.flush()
        env.delenv(ENV_LLM_URL)
        audit_the_store(db, tmp_path)
    server.shutdown()
    server.server_close()
    thread.join()
    samples = received_samples(server.bodies["/v1/metrics"])
    if out := os.environ.get(ENV_SERIES_OUT):
        Path(out).write_text(json.dumps([s.__dict__ for s in samples], indent=0))
    yield samples


class TestEndToEnd:
    def test_every_panel_shows_data_from_a_real_run(self, end_to_end: list[Sample]) -> None:
        read = panel_data(load(), end_to_end)
        assert set(read) == {p["title"] for p in panels(load())}
        audit = {s.label("memoryos_state") for s in read["Audited runs by health state"]}
        assert "healthy" in audit
        tokens = {s.label("gen_ai_token_type") for s in read["Model tokens by type"]}
        assert tokens == {"input", "output"}

    def test_a_panel_reading_a_label_nothing_sets_is_caught(self, end_to_end: list[Sample]) -> None:
        broken = load()
        target = panels(broken)[0]["targets"][0]
        target["expr"] = target["expr"].replace("memoryos_tier", "memoryos_shelf")
        with pytest.raises(AssertionError, match="memoryos_shelf"):
            panel_data(broken, end_to_end)

    def test_no_label_carries_content_or_an_id(self, end_to_end: list[Sample]) -> None:
        labels = {key for s in end_to_end for key, _ in s.labels}
        values = " ".join(value for s in end_to_end for _, value in s.labels)
        assert not {"gen_ai_memory_store_id", "gen_ai_memory_record_id", "memoryos_run_id"} & labels
        for text in (SCOPE.user, "blyck", "AKIAIOSFODNN7EXAMPLE"):
            assert text not in values
