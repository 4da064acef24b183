"""OpenTelemetry behind the telemetry seam: GenAI memory spans, content-free metrics, a real OTLP/HTTP
receiver, and a host that never notices when telemetry breaks."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import structlog
from opentelemetry import metrics, trace
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

import memoryos
from memoryos import otel
from memoryos.otel import OtelTelemetry, add_trace_ids
from memoryos.settings import ENV_TELEMETRY
from memoryos.testing import FakeClock, InMemoryOtel

CANARIES = ("CANARYUSR", "CANARYAST", "CANARYKEY", "CANARYTXT", "CANARYQRY", "CANARYBODY", "CANARYSESS")
SCOPE = memoryos.Scope(user="alice-CANARYUSR", assistant="coder-CANARYAST", session="s-CANARYSESS")


Sdk = InMemoryOtel  # the shared harness (memoryos.testing), under this file's old name


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    providers = Sdk()
    yield providers
    providers.close()


def workload(mem: memoryos.Memory, clock: FakeClock) -> None:
    """Every instrumented path, with a canary in each text, key, query and scope id."""
    for i in range(mem.config.stm_capacity + 2):
        mem.remember(SCOPE, f"CANARYTXT turn {i} about deploying with make release")
    mem.put(SCOPE, "pref-CANARYKEY", "CANARYBODY prefers tabs")
    mem.get(SCOPE, "pref-CANARYKEY")
    mem.recall(SCOPE, "CANARYQRY deploying release")
    with pytest.raises(memoryos.Rejected):
        mem.remember(SCOPE, "CANARYTXT my key is AKIAIOSFODNN7EXAMPLE")
    mem.remember(SCOPE, "CANARYTXT short lived", ttl=1.0)
    clock.advance(hours=2)
    mem.maintain()
    mem.forget(SCOPE, "pref-CANARYKEY")


def assert_no_canary(text: str | bytes) -> None:
    raw = text if isinstance(text, bytes) else text.encode()
    for canary in CANARIES:
        assert canary.encode() not in raw, canary


# -- the conventions, as read ------------------------------------------------------------------------
#: What the GenAI semantic conventions (status: development) define, copied from their own sources:
#: open-telemetry/semantic-conventions-genai model/gen-ai/spans.yaml
#: at 002c8a6ea1c8a42b14a4527db83b3cabcded610a (span types gen_ai.memory.client and
#: gen_ai.inference.client, and the attribute groups they reference),
#: model/gen-ai/metrics.yaml and docs/gen-ai/gen-ai-metrics.md
#: at 004902b8cb70aa5ae6ca4ae07132b7daabcd3e10
#: (the metrics, their attributes, the well-known operation and token type values and the buckets).
MEMORY_OPERATIONS = {
    "create_memory_store",
    "delete_memory_store",
    "create_memory",
    "update_memory",
    "upsert_memory",
    "search_memory",
    "delete_memory",
}
CONVENTIONS: dict[str, dict[str, set[str]]] = {
    "gen_ai.memory.client": {
        "attributes": {
            "gen_ai.operation.name",
            "server.address",
            "server.port",
            "error.type",
            "gen_ai.provider.name",
            "gen_ai.memory.store.id",
            "gen_ai.memory.record.id",
            "gen_ai.memory.record.count",
        },
        "opt_in": {"gen_ai.memory.query.text", "gen_ai.memory.records"},
    },
    "gen_ai.inference.client": {
        "attributes": {
            "gen_ai.operation.name",
            "gen_ai.request.model",
            "server.address",
            "server.port",
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
            "error.type",
            "gen_ai.response.model",
            "gen_ai.provider.name",
        },
        "opt_in": {
            "gen_ai.system_instructions",
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.tool.definitions",
        },
    },
    "gen_ai.client.operation.duration": {
        "attributes": {
            "gen_ai.operation.name",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.model",
            "server.address",
            "server.port",
            "error.type",
        },
        "opt_in": set(),
    },
    "gen_ai.client.token.usage": {
        "attributes": {
            "gen_ai.operation.name",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.model",
            "server.address",
            "server.port",
            "gen_ai.token.type",
        },
        "opt_in": set(),
    },
}
GENAI_BUCKETS = {
    "gen_ai.client.operation.duration": [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24,
                                         20.48, 40.96, 81.92],
    "gen_ai.client.token.usage": [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                                  16777216, 67108864],
}  # fmt: skip


def convention_of(span: ReadableSpan) -> str:
    return "gen_ai.inference.client" if span.kind is SpanKind.CLIENT else "gen_ai.memory.client"


def assert_follows_the_conventions(span: ReadableSpan) -> None:
    """A GenAI span: a defined operation name, and every gen_ai.*/server.*/error.* attribute one its
    convention defines (memoryos.* are ours); never an opt-in content attribute."""
    attributes = dict(span.attributes or {})
    convention = CONVENTIONS[convention_of(span)]
    if span.kind is not SpanKind.CLIENT:
        assert attributes["gen_ai.operation.name"] in MEMORY_OPERATIONS
        assert span.name == attributes["gen_ai.operation.name"]
    ours = {key for key in attributes if key.startswith("memoryos.")}
    assert set(attributes) - ours <= convention["attributes"], span.name
    assert not set(attributes) & convention["opt_in"]


# -- spans ------------------------------------------------------------------------------------------
class Prepared:
    """A store with a record, a turn, a recall run and a pending candidate, and what each call made."""

    def __init__(self, mem: memoryos.Memory, sdk: Sdk) -> None:
        self.mem = mem
        self.sdk = sdk
        self.record = mem.put(SCOPE, "pref-CANARYKEY", "CANARYBODY prefers tabs")
        self.turn = mem.remember(SCOPE, "CANARYTXT we deploy with make release")
        self.run_id = mem.recall(SCOPE, "CANARYQRY deploy").run_id
        candidate = mem.observe(SCOPE, DEPLOY_EVENT)
        assert candidate is not None
        self.candidate = candidate.candidate_id
        self.second = mem.observe(SCOPE, {**DEPLOY_EVENT, "target": "other"})
        sdk.spans.clear()

    def top(self) -> ReadableSpan:
        """The one span without a parent that the call just made."""
        (root,) = [s for s in self.sdk.finished() if s.parent is None]
        return root


DEPLOY_EVENT: dict[str, object] = {
    "type": "deploy",
    "target": "blyck",
    "command": "make release",
    "exit_status": 0,
}
Call = Callable[[Prepared, Path], object]
#: Every public call -> the span name it makes and attributes it must carry ("*": any value; a
#: callable: computed from the prepared store).
PUBLIC_CALLS: list[tuple[str, Call, str, dict[str, object]]] = [
    ("remember", lambda p, _: p.mem.remember(SCOPE, "CANARYTXT again"), "create_memory",
     {"gen_ai.memory.record.id": "*", "gen_ai.memory.record.count": 1}),
    ("put", lambda p, _: p.mem.put(SCOPE, "k2-CANARYKEY", "CANARYBODY x"), "upsert_memory",
     {"gen_ai.memory.record.id": "*", "gen_ai.memory.record.count": 1}),
    ("correct", lambda p, _: p.mem.correct(SCOPE, "pref-CANARYKEY", "CANARYBODY spaces"), "update_memory",
     {"gen_ai.memory.record.id": lambda p: p.record.memory_id}),
    ("get", lambda p, _: p.mem.get(SCOPE, "pref-CANARYKEY"), "search_memory",
     {"gen_ai.memory.record.id": lambda p: p.record.memory_id}),
    ("history", lambda p, _: p.mem.history(SCOPE, "pref-CANARYKEY"), "search_memory",
     {"gen_ai.memory.record.count": 1}),
    ("keys", lambda p, _: p.mem.keys(SCOPE, prefix="pref-CANARYKEY"), "search_memory",
     {"gen_ai.memory.record.count": 1}),
    ("recall", lambda p, _: p.mem.recall(SCOPE, "CANARYQRY deploy"), "search_memory",
     {"gen_ai.memory.record.count": "*"}),
    ("context", lambda p, _: p.mem.context(SCOPE, "CANARYQRY deploy"), "search_memory",
     {"gen_ai.memory.record.count": "*"}),
    ("topics", lambda p, _: p.mem.topics(SCOPE), "search_memory", {"gen_ai.memory.record.count": "*"}),
    ("forget a key", lambda p, _: p.mem.forget(SCOPE, "pref-CANARYKEY"), "delete_memory",
     {"gen_ai.memory.record.id": lambda p: p.record.memory_id, "memoryos.delete.target": "record"}),
    ("forget an id", lambda p, _: p.mem.forget(SCOPE, p.turn.memory_id), "delete_memory",
     {"gen_ai.memory.record.id": lambda p: p.turn.memory_id, "memoryos.delete.target": "record"}),
    ("session_turns", lambda p, _: p.mem.session_turns(SCOPE), "search_memory",
     {"gen_ai.memory.record.count": "*"}),
    ("forget_session", lambda p, _: p.mem.forget_session(SCOPE), "delete_memory",
     {"memoryos.delete.target": "session", "gen_ai.memory.record.count": "*"}),
    ("forget_scope", lambda p, _: p.mem.forget_scope(user=SCOPE.user), "delete_memory",
     {"memoryos.delete.target": "scope", "gen_ai.memory.record.count": "*"}),
    ("observe", lambda p, _: p.mem.observe(SCOPE, {**DEPLOY_EVENT, "target": "third"}),
     "memoryos.observe", {}),
    ("candidates", lambda p, _: p.mem.candidates(SCOPE), "memoryos.candidates", {}),
    ("approve", lambda p, _: p.mem.approve(SCOPE, p.candidate), "memoryos.approve", {}),
    ("reject", lambda p, _: p.mem.reject(SCOPE, p.candidate), "memoryos.reject", {}),
    ("reflect", lambda p, _: p.mem.reflect(SCOPE), "memoryos.reflect", {}),
    ("end_session", lambda p, _: p.mem.end_session(SCOPE), "memoryos.reflect", {}),
    ("generated", lambda p, _: p.mem.generated(SCOPE, p.run_id, depends_on=[p.turn.ref]),
     "memoryos.generated", {}),
    ("maintain", lambda p, _: p.mem.maintain(), "memoryos.maintenance", {}),
    ("check", lambda p, _: p.mem.check(), "memoryos.check", {}),
    ("status", lambda p, _: p.mem.status(), "memoryos.status", {}),
    ("export", lambda p, tmp: p.mem.export(tmp / "export.jsonl"), "memoryos.export", {"memoryos.count": "*"}),
    ("export_receipts", lambda p, tmp: p.mem.export_receipts(tmp / "receipts.jsonl"),
     "memoryos.export_receipts", {"memoryos.count": "*"}),
]  # fmt: skip
UNTRACED = {"close", "reload_scope_key", "start_background"}  # lifecycle of the object, not operations


class TestConventions:
    @pytest.mark.parametrize("call", PUBLIC_CALLS, ids=[row[0] for row in PUBLIC_CALLS])
    def test_each_public_call_makes_the_span_the_table_names(
        self, call: tuple[str, Call, str, dict[str, object]], sdk: Sdk, db: Path, tmp_path: Path
    ) -> None:
        _, run, name, wanted = call
        with memoryos.open(db, telemetry=sdk.telemetry) as mem:
            prepared = Prepared(mem, sdk)
            run(prepared, tmp_path)
            root = prepared.top()
            assert root.name == name
            assert root.kind is SpanKind.INTERNAL  # in the caller's process, as the conventions allow
            attributes = dict(root.attributes or {})
            if name in MEMORY_OPERATIONS:
                assert attributes["gen_ai.memory.store.id"] == mem.store_id
            for key, value in wanted.items():
                expected = value(prepared) if callable(value) else value
                assert key in attributes, key
                assert expected == "*" or attributes[key] == expected, key
            for span in sdk.finished():
                if "gen_ai.operation.name" in (span.attributes or {}):
                    assert_follows_the_conventions(span)
                assert_no_canary(span.to_json())

    def test_a_scope_wide_erase_never_carries_a_record_id(self, sdk: Sdk, db: Path) -> None:
        # Without record.id the conventions read delete_memory as "every record in the store".
        with memoryos.open(db, telemetry=sdk.telemetry) as mem:
            prepared = Prepared(mem, sdk)
            mem.forget_scope(user=SCOPE.user, assistant=SCOPE.assistant)
            attributes = dict(prepared.top().attributes or {})
        assert "gen_ai.memory.record.id" not in attributes
        assert attributes["memoryos.delete.target"] == "scope"

    def test_forgetting_a_key_names_the_memory_id_never_the_key(self, sdk: Sdk, db: Path) -> None:
        with memoryos.open(db, telemetry=sdk.telemetry) as mem:
            prepared = Prepared(mem, sdk)
            mem.forget(SCOPE, "pref-CANARYKEY")
            root = prepared.top()
        assert (root.attributes or {})["gen_ai.memory.record.id"] == prepared.record.memory_id
        assert "CANARYKEY" not in root.to_json()

    def test_approving_writes_through_an_upsert_under_the_approval(self, sdk: Sdk, db: Path) -> None:
        with memoryos.open(db, telemetry=sdk.telemetry) as mem:
            prepared = Prepared(mem, sdk)
            mem.approve(SCOPE, prepared.candidate)
            root = prepared.top()
            (upsert,) = [s for s in sdk.finished() if s.name == "upsert_memory"]
        assert upsert.parent is not None and upsert.parent.span_id == root.context.span_id

    def test_importing_creates_records_in_one_create_memory(self, sdk: Sdk, tmp_path: Path) -> None:
        export = tmp_path / "export.jsonl"
        with memoryos.open(tmp_path / "a.db") as source:
            source.put(SCOPE, "pref-CANARYKEY", "CANARYBODY prefers tabs")
            source.remember(SCOPE, "CANARYTXT a turn")
            source.export(export, redacted=False)  # a migration file: a redacted one carries no key
        with memoryos.open(tmp_path / "b.db", telemetry=sdk.telemetry) as mem:
            sdk.spans.clear()
            imported = mem.import_jsonl(export)
            (root,) = [s for s in sdk.finished() if s.parent is None]
        assert root.name == "create_memory"
        assert (root.attributes or {})["gen_ai.memory.record.count"] == imported
        assert "gen_ai.memory.record.id" not in (root.attributes or {})

    def test_a_new_store_reports_create_memory_store_once(self, sdk: Sdk, db: Path) -> None:
        with memoryos.open(db, telemetry=sdk.telemetry) as mem:
            store_id = mem.store_id
        with memoryos.open(db, telemetry=sdk.telemetry):
            pass
        created = [s for s in sdk.finished() if s.name == "create_memory_store"]
        assert len(created) == 1
        (span,) = created
        assert (span.attributes or {})["gen_ai.memory.store.id"] == store_id
        assert_follows_the_conventions(span)
        recovery = next(s for s in sdk.finished() if s.name == "memoryos.recovery")
        assert span.start_time is not None and recovery.start_time is not None
        assert span.start_time <= recovery.start_time  # the span covers the creation it reports

    def test_every_public_method_is_traced(self) -> None:
        public = {
            name
            for name, member in vars(memoryos.Memory).items()
            if callable(member) and not name.startswith("_")
        }
        untraced = {name for name in public if not hasattr(getattr(memoryos.Memory, name), "__wrapped__")}
        assert untraced == UNTRACED
        assert hasattr(memoryos.open, "__wrapped__")
        table = {row[0].split()[0] for row in PUBLIC_CALLS} | {"import_jsonl"}
        assert public - UNTRACED <= table

    def test_the_table_holds_only_what_the_conventions_define(self) -> None:
        from memoryos import telemetry

        assert set(telemetry.Operation.__args__) <= MEMORY_OPERATIONS  # type: ignore[attr-defined]
        for name, buckets in GENAI_BUCKETS.items():
            assert (
                list(getattr(otel, "GENAI_" + ("DURATION" if "duration" in name else "TOKEN") + "_BUCKETS"))
                == buckets
            )
        assert (
            set(otel.SPAN_KEYS.values()) - {"memoryos.delete.target"}
            <= CONVENTIONS["gen_ai.memory.client"]["attributes"]
        )


class TestSpans:
    def test_public_operations_follow_the_genai_memory_conventions(
        self, sdk: Sdk, db: Path, clock: FakeClock
    ) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            workload(mem, clock)
            store_id = mem.store_id
        operations = [s for s in sdk.finished() if "gen_ai.operation.name" in (s.attributes or {})]
        assert {s.name for s in operations} == {
            "create_memory_store",
            "create_memory",
            "upsert_memory",
            "search_memory",
            "delete_memory",
        }
        for span in operations:
            attributes = dict(span.attributes or {})
            assert span.name == attributes["gen_ai.operation.name"]
            assert span.kind is SpanKind.INTERNAL  # the store runs in the caller's process
            assert attributes["gen_ai.memory.store.id"] == store_id
            assert "gen_ai.memory.query.text" not in attributes
            assert "gen_ai.memory.records" not in attributes
        search = next(s for s in operations if s.name == "search_memory" and s.attributes)
        assert isinstance((search.attributes or {})["gen_ai.memory.record.count"], int)
        writes = [s for s in operations if s.name in ("create_memory", "upsert_memory") and s.status.is_ok]
        assert all("gen_ai.memory.record.id" in (s.attributes or {}) for s in writes)
        for span in operations:
            assert_follows_the_conventions(span)

    def test_background_work_gets_internal_memoryos_spans(self, sdk: Sdk, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            workload(mem, clock)
        names = {s.name for s in sdk.finished()}
        assert {"memoryos.recovery", "memoryos.promotion", "memoryos.expiry", "memoryos.decay"} <= names
        promotion = next(s for s in sdk.finished() if s.name == "memoryos.promotion")
        assert promotion.kind is SpanKind.INTERNAL
        assert (promotion.attributes or {})["memoryos.boundary"] in ("stm_to_mtm", "mtm_to_lpm")
        event = next(e for e in promotion.events if e.name == "memoryos.promotions")
        count = (event.attributes or {})["memoryos.count"]
        assert isinstance(count, int)
        assert count >= 1

    def test_a_promotion_nests_under_the_operation_that_triggered_it(
        self, sdk: Sdk, db: Path, clock: FakeClock
    ) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry, stm_capacity=2) as mem:
            mem.remember(SCOPE, "CANARYTXT one")
            mem.remember(SCOPE, "CANARYTXT two")
        spans = {s.name: s for s in sdk.finished()}
        promotion, create = spans["memoryos.promotion"], spans["create_memory"]
        assert promotion.parent is not None
        assert promotion.parent.span_id == create.context.span_id

    def test_a_failed_operation_records_the_error_type_and_never_the_message(
        self, sdk: Sdk, db: Path, clock: FakeClock
    ) -> None:
        with (
            memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem,
            pytest.raises(memoryos.InvalidInput),
        ):
            mem.remember(SCOPE, "CANARYTXT", role="CANARYBODY")
        failed = next(s for s in sdk.finished() if s.status.status_code is StatusCode.ERROR)
        assert (failed.attributes or {})["error.type"] == "memoryos.errors.InvalidInput"
        assert failed.status.description is None
        assert failed.events == ()  # no exception event: its message would carry the text
        assert_no_canary(failed.to_json())

    def test_recall_span_made_at_its_end_nests_times_and_feeds_the_histogram_alike(
        self, sdk: Sdk, db: Path, clock: FakeClock
    ) -> None:
        host = sdk.tracer_provider.get_tracer("host")
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            mem.remember(SCOPE, "CANARYTXT about the deploy")
            with host.start_as_current_span("agent turn") as turn:
                hits = mem.recall(SCOPE, "deploy").hits
                with pytest.raises(memoryos.InvalidInput):
                    mem.recall(SCOPE, "deploy", k=0)
        recalls = [s for s in sdk.finished() if s.name == "search_memory"]
        ok, failed = recalls
        (host_span,) = [s for s in sdk.finished() if s.name == "agent turn"]
        assert ok.parent is not None and ok.parent.span_id == turn.get_span_context().span_id
        assert (ok.attributes or {})["gen_ai.memory.record.count"] == len(hits) == 1
        assert ok.start_time is not None and ok.end_time is not None
        assert host_span.start_time is not None and host_span.start_time <= ok.start_time < ok.end_time
        assert (failed.attributes or {})["error.type"] == "memoryos.errors.InvalidInput"
        assert failed.status.status_code is StatusCode.ERROR and failed.status.description is None
        (point,) = sdk.points("memoryos.recall.duration")
        assert point.count == 1  # the failed call is not a duration
        assert point.sum == pytest.approx((ok.end_time - ok.start_time) / 1e9, rel=1e-3, abs=1e-6)

    def test_no_canary_reaches_any_span(self, sdk: Sdk, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            workload(mem, clock)
        assert len(sdk.finished()) > 10
        for span in sdk.finished():
            assert_no_canary(span.to_json())


# -- metrics ----------------------------------------------------------------------------------------
class TestMetrics:
    def test_counters_histograms_and_gauges_carry_low_cardinality_attributes(
        self, sdk: Sdk, db: Path, clock: FakeClock
    ) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            workload(mem, clock)
            found = sdk.metrics()
        keys = {name: {k for p in points for k in p.attributes} for name, points in found.items()}
        assert keys["memoryos.promotions"] == {"memoryos.boundary", "memoryos.status"}
        assert keys["memoryos.rejections"] == {"memoryos.reason"}
        assert keys["memoryos.promotion.duration"] == {"memoryos.boundary"}
        assert keys["memoryos.recall.duration"] == set()
        assert keys["memoryos.occupancy"] == {"memoryos.tier"}
        assert keys["memoryos.outbox.lag"] == {"memoryos.outbox"}
        assert {"memoryos.expiries", "memoryos.decays", "memoryos.evictions"} <= set(found)
        tiers = {p.attributes["memoryos.tier"]: p.value for p in found["memoryos.occupancy"]}
        assert set(tiers) == {"stm", "mtm_pages", "mtm_segments", "lpm"}
        assert all(p.count >= 1 for p in found["memoryos.recall.duration"])

    def test_no_canary_reaches_any_metric(self, sdk: Sdk, db: Path, clock: FakeClock) -> None:
        with memoryos.open(db, clock=clock, telemetry=sdk.telemetry) as mem:
            workload(mem, clock)
            dump = sdk.metrics_json()
        assert "memoryos.promotions" in dump
        assert_no_canary(dump)

    def test_ids_never_become_metric_attributes(self, sdk: Sdk) -> None:
        sdk.telemetry.count("promotions", 1, boundary="stm_to_mtm", run_id="r-1", store_id="s-1")
        (point,) = sdk.metrics()["memoryos.promotions"]
        assert dict(point.attributes) == {"memoryos.boundary": "stm_to_mtm"}

    def test_histogram_buckets_are_sized_for_seconds(self, sdk: Sdk) -> None:
        sdk.telemetry.duration("recall.duration", 0.002)
        (point,) = sdk.metrics()["memoryos.recall.duration"]
        assert tuple(point.explicit_bounds) == otel.SECONDS_BUCKETS

    def test_gauges_from_several_sources_add_up_and_a_dropped_memory_stops_reporting(self, sdk: Sdk) -> None:
        class Source:
            def read(self) -> dict[str, dict[str, int]]:
                return {"occupancy": {"stm": 2}}

        kept, dropped = Source(), Source()
        sdk.telemetry.watch(kept.read)
        sdk.telemetry.watch(dropped.read)
        assert [p.value for p in sdk.metrics()["memoryos.occupancy"]] == [4]
        del dropped
        sdk.telemetry._snapshot = (float("-inf"), {})  # skip the one-second snapshot cache
        assert [p.value for p in sdk.metrics()["memoryos.occupancy"]] == [2]

    def test_a_gauge_source_that_raises_reports_nothing_and_raises_nothing(
        self, sdk: Sdk, caplog: pytest.LogCaptureFixture
    ) -> None:
        def broken() -> dict[str, dict[str, int]]:
            raise RuntimeError("CANARYTXT in a message")

        sdk.telemetry.watch(broken)
        with caplog.at_level(logging.WARNING, logger="memoryos"):
            assert "memoryos.occupancy" not in sdk.metrics()
        assert "gauge.source" in caplog.text
        assert "CANARYTXT" not in caplog.text

    def test_an_unknown_metric_is_ignored(self, sdk: Sdk) -> None:
        sdk.telemetry.count("made.up")
        sdk.telemetry.duration("made.up", 1.0)
        assert not any(name.startswith("memoryos.made") for name in sdk.metrics())


# -- never hurts the host ---------------------------------------------------------------------------
class BrokenTracer(trace.NoOpTracer):
    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        raise RuntimeError("exporter exploded")


class BrokenTracerProvider(trace.NoOpTracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return BrokenTracer()


class BrokenMeter(metrics.NoOpMeter):
    def create_counter(self, name: str, unit: str = "", description: str = "") -> metrics.Counter:
        counter = super().create_counter(name, unit, description)

        def add(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("meter exploded")

        counter.add = add  # type: ignore[method-assign]  # a counter that fails on every add
        return counter


class BrokenMeterProvider(metrics.NoOpMeterProvider):
    def get_meter(self, *args: Any, **kwargs: Any) -> metrics.Meter:
        return BrokenMeter("broken")


class TestNeverBreaksTheHost:
    def test_a_failing_sdk_is_logged_once_and_every_operation_still_succeeds(
        self, db: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture
    ) -> None:
        telemetry = OtelTelemetry(
            tracer_provider=BrokenTracerProvider(), meter_provider=BrokenMeterProvider()
        )
        with (
            caplog.at_level(logging.WARNING, logger="memoryos"),
            memoryos.open(db, clock=clock, telemetry=telemetry) as mem,
        ):
            workload(mem, clock)
            assert mem.check() == []
        failures = [r for r in caplog.records if "telemetry failed" in r.getMessage()]
        assert failures
        assert len(failures) == len({r.getMessage() for r in failures})  # once per place and type

    def test_shutdown_leaves_host_supplied_providers_running(self, sdk: Sdk) -> None:
        sdk.telemetry.shutdown()
        with sdk.telemetry.operation("search_memory", store_id="s"):
            pass
        assert [s.name for s in sdk.finished()] == ["search_memory"]

    def test_from_environment_never_sets_the_global_providers(self) -> None:
        before = trace.get_tracer_provider(), metrics.get_meter_provider()
        telemetry = OtelTelemetry.from_environment("s", {"OTEL_METRICS_EXPORTER": "none"})
        telemetry.shutdown()
        assert (trace.get_tracer_provider(), metrics.get_meter_provider()) == before

    def test_unreachable_endpoint_never_breaks_open_remember_or_close(
        self, db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "20")
        monkeypatch.setenv("OTEL_BSP_EXPORT_TIMEOUT", "500")
        monkeypatch.setenv("OTEL_METRIC_EXPORT_TIMEOUT", "500")
        mem = memoryos.open(db, clock=clock)
        assert mem.telemetry.enabled
        workload(mem, clock)
        started = time.monotonic()
        mem.close()
        assert time.monotonic() - started < 5.0

    def test_malformed_otel_values_fall_back_to_defaults_with_a_warning(
        self,
        receiver: Receiver,
        db: Path,
        clock: FakeClock,
        monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        malformed = {
            "OTEL_EXPORTER_OTLP_TIMEOUT": "abc",
            "OTEL_METRIC_EXPORT_INTERVAL": "-5",
            "OTEL_METRIC_EXPORT_TIMEOUT": "nan",
            "OTEL_BSP_SCHEDULE_DELAY": "soon",
            "OTEL_BSP_MAX_QUEUE_SIZE": "0.5",
            "OTEL_EXPORTER_OTLP_COMPRESSION": "zip",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon",
            "OTEL_RESOURCE_ATTRIBUTES": "no-equals-sign",
        }
        for name, value in malformed.items():
            monkeypatch.setenv(name, value)
        with caplog.at_level(logging.WARNING, logger="memoryos"):
            mem = memoryos.open(db, clock=clock)
            assert mem.telemetry.enabled
            mem.remember(SCOPE, "CANARYTXT still works")
            mem.close()
        for name in malformed:
            assert name in caplog.text
        assert "carrier-pigeon" not in caplog.text  # the variable is named, its value never logged
        assert receiver.bodies["/v1/traces"]  # and export still works with the defaults

    def test_close_waits_a_bounded_time_for_an_endpoint_that_never_answers(
        self, db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1.5")
        monkeypatch.setattr(OtelTelemetry, "shutdown_seconds", 0.3)
        mem = memoryos.open(db, clock=clock)
        mem.remember(SCOPE, "CANARYTXT")
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="memoryos"):
            mem.close()
        assert time.monotonic() - started < 2.0
        assert "still flushing" in caplog.text
        for worker in threading.enumerate():  # let the abandoned flush finish before the next test
            if worker.name == "memoryos-otel-shutdown":
                worker.join()

    def test_a_malformed_endpoint_falls_back_to_the_default(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.WARNING, logger="memoryos"):
            endpoint = otel._endpoint({"OTEL_EXPORTER_OTLP_ENDPOINT": "not a url"}, "traces")
        assert endpoint == "http://localhost:4318/v1/traces"
        assert "OTEL_EXPORTER_OTLP_ENDPOINT" in caplog.text

    def test_an_sdk_configuration_error_turns_telemetry_off_instead_of_failing_open(
        self, db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "many")  # read and rejected by the SDK
        with caplog.at_level(logging.WARNING, logger="memoryos"), memoryos.open(db, clock=clock) as mem:
            assert not mem.telemetry.enabled
            mem.remember(SCOPE, "CANARYTXT still works")
        assert "telemetry off" in caplog.text

    def test_without_the_otlp_extra_telemetry_is_off(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(
            __import__("sys").modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None
        )
        assert not OtelTelemetry.from_environment("s", {}).enabled

    def test_otel_sdk_disabled_turns_telemetry_off(self) -> None:
        assert not OtelTelemetry.from_environment("s", {"OTEL_SDK_DISABLED": "true"}).enabled


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# -- a real OTLP/HTTP receiver ----------------------------------------------------------------------
class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP endpoint on 127.0.0.1 that keeps every request body, by path."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: dict[str, list[bytes]] = {}
        self.lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with self.server.lock:
            self.server.bodies.setdefault(self.path, []).append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        del format, args  # keep the test output clean


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


class TestOtlpReceiver:
    def test_spans_and_metrics_arrive_over_otlp_http_without_content(
        self, receiver: Receiver, db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv(ENV_TELEMETRY, "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        monkeypatch.setenv("OTEL_SERVICE_NAME", "agent-under-test")
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
        with memoryos.open(db, clock=clock) as mem:
            workload(mem, clock)
        # close() flushed both signals before it returned.
        traces = [ExportTraceServiceRequest.FromString(b) for b in receiver.bodies["/v1/traces"]]
        sent = receiver.bodies["/v1/metrics"]
        metric_requests = [ExportMetricsServiceRequest.FromString(b) for b in sent]
        span_names = {
            s.name for r in traces for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans
        }
        assert {"create_memory", "upsert_memory", "search_memory", "delete_memory"} <= span_names
        assert {"create_memory_store", "memoryos.promotion", "memoryos.maintenance"} <= span_names
        metric_names = {
            m.name
            for r in metric_requests
            for rm in r.resource_metrics
            for sm in rm.scope_metrics
            for m in sm.metrics
        }
        assert {"memoryos.promotions", "memoryos.recall.duration", "memoryos.occupancy"} <= metric_names
        services = {
            a.value.string_value
            for r in traces
            for rs in r.resource_spans
            for a in rs.resource.attributes
            if a.key == "service.name"
        }
        assert services == {"agent-under-test"}
        for body in receiver.bodies["/v1/traces"] + sent:
            assert_no_canary(body)


# -- logs -------------------------------------------------------------------------------------------
class TestTraceIdsInLogs:
    def test_ids_of_the_current_span_are_added(self, sdk: Sdk) -> None:
        with sdk.telemetry.operation("search_memory", store_id="s"):
            event = add_trace_ids(None, "info", {"event": "recalled"})
            current = trace.get_current_span().get_span_context()
        assert event["trace_id"] == f"{current.trace_id:032x}"
        assert event["span_id"] == f"{current.span_id:016x}"

    def test_no_ids_outside_a_span(self) -> None:
        assert add_trace_ids(None, "info", {"event": "idle"}) == {"event": "idle"}

    def test_it_runs_in_a_structlog_json_chain(self, sdk: Sdk) -> None:
        logger = structlog.wrap_logger(
            structlog.testing.CapturingLogger(),
            processors=[add_trace_ids, structlog.processors.JSONRenderer()],
        )
        with sdk.telemetry.internal("promotion", boundary="stm_to_mtm"):
            logger.info("promoted")
        (call,) = logger._logger.calls
        line = json.loads(call.args[0])
        assert len(line["trace_id"]) == 32
        assert len(line["span_id"]) == 16
