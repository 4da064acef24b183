"""MemoryOSStore against LangGraph's own BaseStore expectations.

Each test in TestUpstreamExpectations names the upstream test it mirrors, from
langchain-ai/langgraph `libs/checkpoint/tests/test_store.py` (run there against InMemoryStore);
the vector-search ones run here on memoryos's lexical recall instead of embeddings.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp

import memoryos
from memoryos.integrations.langgraph import MemoryOSStore, ScopeRule, drawer_key
from memoryos.integrations.openai_agents import MemoryOSSession
from memoryos.testing import FakeClock
from receipts import read_outbox
from tests.integrations.conftest import file_bytes

SCOPE = memoryos.Scope(user="alice", assistant="coder")


@pytest.fixture
def store(mem: memoryos.Memory) -> Iterator[MemoryOSStore]:
    yield MemoryOSStore(mem, SCOPE)


def put_all(store: MemoryOSStore, namespaces: list[tuple[str, ...]]) -> None:
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})


class TestUpstreamExpectations:
    def test_list_namespaces_basic(self, store: MemoryOSStore) -> None:  # mirrors test_list_namespaces_basic
        put_all(
            store,
            [
                ("a", "b", "c"),
                ("a", "b", "d", "e"),
                ("a", "b", "d", "i"),
                ("a", "b", "f"),
                ("a", "c", "f"),
                ("b", "a", "f"),
                ("users", "123"),
                ("users", "456", "settings"),
                ("admin", "users", "789"),
            ],
        )
        abd = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
        assert sorted(store.list_namespaces(prefix=("a", "b"))) == abd
        assert sorted(store.list_namespaces(suffix=("f",))) == [
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("b", "a", "f"),
        ]
        assert sorted(store.list_namespaces(prefix=("a",), suffix=("f",))) == [
            ("a", "b", "f"),
            ("a", "c", "f"),
        ]
        assert sorted(store.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
            ("a", "b", "c"),
            ("a", "b", "d"),
            ("a", "b", "f"),
        ]
        assert store.list_namespaces(prefix=("a", "b"), limit=2) == abd[:2]
        assert store.list_namespaces(prefix=("a", "b"), offset=2) == abd[2:]
        assert sorted(store.list_namespaces(prefix=("a", "*", "f"))) == [("a", "b", "f"), ("a", "c", "f")]
        assert sorted(store.list_namespaces(suffix=("*", "f"))) == [
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("b", "a", "f"),
        ]
        assert store.list_namespaces(prefix=("nonexistent",)) == []
        assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]

    def test_list_namespaces_with_wildcards(self, store: MemoryOSStore) -> None:  # mirrors the same name
        put_all(
            store,
            [
                ("users", "123"),
                ("users", "456"),
                ("users", "789", "settings"),
                ("admin", "users", "789"),
                ("guests", "123"),
                ("guests", "456", "preferences"),
            ],
        )
        assert sorted(store.list_namespaces(prefix=("users", "*"))) == [
            ("users", "123"),
            ("users", "456"),
            ("users", "789", "settings"),
        ]
        assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
        assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []

    def test_list_namespaces_pagination(self, store: MemoryOSStore) -> None:  # mirrors the same name
        for i in range(20):
            store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": f"value_{i:02d}"})
        for offset in (0, 5, 15):
            expected = [("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]
            assert store.list_namespaces(prefix=("namespace",), limit=5, offset=offset) == expected

    def test_list_namespaces_max_depth(self, store: MemoryOSStore) -> None:  # mirrors the same name
        put_all(
            store,
            [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")],
        )
        assert sorted(store.list_namespaces(max_depth=2)) == [("a", "b"), ("a", "g"), ("h", "i")]

    def test_list_namespaces_no_conditions(self, store: MemoryOSStore) -> None:  # mirrors the same name
        namespaces = [("a", "b"), ("c", "d"), ("e", "f", "g")]
        put_all(store, namespaces)
        assert sorted(store.list_namespaces()) == namespaces

    def test_list_namespaces_empty_store(self, store: MemoryOSStore) -> None:  # mirrors the same name
        assert store.list_namespaces() == []

    def test_cannot_put_empty_namespace(self, store: MemoryOSStore) -> None:  # mirrors the same name
        doc = {"foo": "bar"}
        for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
            with pytest.raises(InvalidNamespaceError):
                store.put(bad, "foo", doc)
            with pytest.raises(InvalidNamespaceError):
                asyncio.run(store.aput(bad, "foo", doc))
        ns = ("foo", "langgraph", "foo")
        store.put(ns, "bar", doc)
        assert store.get(ns, "bar").value == doc  # type: ignore[union-attr]
        assert store.search(ns)[0].value == doc
        store.delete(ns, "bar")
        assert store.get(ns, "bar") is None
        # past the public put API, as upstream does
        store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
        assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
        assert store.search(("langgraph", "foo"))[0].value == doc
        store.delete(("langgraph", "foo"), "bar")
        assert store.get(("langgraph", "foo"), "bar") is None

    def test_async_batch_store_deduplication(self, store: MemoryOSStore) -> None:  # its results, not its spy
        async def scenario() -> None:
            await asyncio.gather(
                store.aput(("test",), "same", {"value": "same"}),
                store.aput(("test",), "different", {"value": "different"}),
            )
            results = await asyncio.gather(
                store.aget(("test",), "same"),
                store.aget(("test",), "same"),
                store.aget(("test",), "different"),
            )
            assert results[0] == results[1] and results[0] != results[2]
            assert results[0].value == {"value": "same"}  # type: ignore[union-attr]
            await store.aput(("test",), "key", {"value": 1})
            await store.aput(("test",), "key", {"value": 2})
            assert (await store.aget(("test",), "key")).value == {"value": 2}  # type: ignore[union-attr]
            found = await store.asearch(("test",), filter={"value": 2})
            assert [i.value for i in found] == [{"value": 2}]

        asyncio.run(scenario())

    def test_vector_search_with_filters(self, store: MemoryOSStore) -> None:  # mirrors the same name
        docs = [
            ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
            ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
            ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
            ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
        ]
        for key, value in docs:
            store.put(("test",), key, value)
        results = store.search(("test",), query="apple", filter={"color": "red"})
        assert [r.key for r in results] == ["doc1"]  # lexical: doc2 (a red car) does not mention apples
        results = store.search(("test",), query="car", filter={"color": "red"})
        assert [r.key for r in results] == ["doc2"]
        results = store.search(("test",), filter={"score": {"$gt": 3.2}})
        assert sorted(r.key for r in results) == ["doc1", "doc3", "doc4"]
        results = store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
        assert [r.key for r in results] == ["doc3"]
        assert all(r.score is not None and r.score > 0 for r in results)

    def test_vector_search_pagination(self, store: MemoryOSStore) -> None:  # mirrors the same name
        for i in range(5):
            store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
        page1 = store.search(("test",), query="test", limit=2)
        page2 = store.search(("test",), query="test", limit=2, offset=2)
        assert len(page1) == 2 and len(page2) == 2 and page1[0].key != page2[0].key
        assert len(store.search(("test",), query="test", limit=10)) == 5

    def test_vector_search_edge_cases(self, store: MemoryOSStore) -> None:  # mirrors the same name
        store.put(("test",), "doc1", {"text": "test document"})
        assert len(store.search(("test",), query="")) == 1
        assert len(store.search(("test",), query=None)) == 1
        assert len(store.search(("test",), query="test " * 100)) == 1
        assert len(store.search(("test",), query="test!@#$%^&*()")) == 1

    def test_vector_update_with_embedding(self, store: MemoryOSStore) -> None:  # mirrors the same name
        store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
        store.put(("test",), "doc2", {"text": "something about dogs"})
        store.put(("test",), "doc3", {"text": "text about birds"})
        assert store.search(("test",), query="Zany Xerxes")[0].key == "doc1"
        store.put(("test",), "doc1", {"text": "new text about dogs"})
        assert all(r.key != "doc1" for r in store.search(("test",), query="Zany Xerxes"))
        assert "doc1" in [r.key for r in store.search(("test",), query="new text about dogs")]


class TestItems:
    def test_put_get_update_keep_created_and_move_updated(
        self, store: MemoryOSStore, clock: FakeClock
    ) -> None:
        store.put(("users", "1"), "prefs", {"food": "pizza"})
        first = store.get(("users", "1"), "prefs")
        clock.advance(seconds=5)
        store.put(("users", "1"), "prefs", {"food": "sushi"})
        second = store.get(("users", "1"), "prefs")
        assert first is not None and second is not None
        assert second.value == {"food": "sushi"} and second.namespace == ("users", "1")
        assert second.created_at == first.created_at and second.updated_at > first.updated_at

    def test_delete_is_a_real_forget(self, store: MemoryOSStore, mem: memoryos.Memory, db: Path) -> None:
        store.put(("notes",), "k", {"text": "zqxlgerasecanary"})
        store.put(("notes",), "k", {"text": "zqxlgerasecanary again"})
        store.delete(("notes",), "k")
        store.delete(("notes",), "never-there")  # a no-op, as in LangGraph's stores
        assert store.get(("notes",), "k") is None and store.search(("notes",)) == []
        assert any(ln.receipt and ln.receipt["boundary"] == "forget" for ln in read_outbox(db))
        assert b"zqxlgerasecanary" not in file_bytes(db)
        store.put(("notes",), "k", {"text": "back"})  # a forgotten key can be written again
        assert store.get(("notes",), "k").value == {"text": "back"}  # type: ignore[union-attr]
        assert mem.check() == []

    def test_get_op_for_a_missing_key_is_none(self, store: MemoryOSStore) -> None:
        assert store.batch([GetOp(("x",), "missing")]) == [None]

    def test_a_secret_in_a_value_is_refused_and_nothing_is_stored(
        self, store: MemoryOSStore, db: Path
    ) -> None:
        with pytest.raises(memoryos.Rejected):
            store.put(("x",), "k", {"aws": "AKIAIOSFODNN7EXAMPLE"})
        assert store.get(("x",), "k") is None
        assert any(ln.receipt and ln.receipt["boundary"] == "reject" for ln in read_outbox(db))

    def test_a_value_that_is_not_json_is_refused(self, store: MemoryOSStore) -> None:
        with pytest.raises(memoryos.InvalidInput, match="JSON"):
            store.put(("x",), "k", {"when": object()})


class TestTTL:
    def test_an_expired_item_is_gone_before_and_after_maintain(
        self, mem: memoryos.Memory, clock: FakeClock, db: Path
    ) -> None:
        store = MemoryOSStore(mem, SCOPE, ttl={"refresh_on_read": False})
        store.put(("t",), "k", {"v": 1}, ttl=10.0)
        clock.advance(minutes=9)
        assert store.get(("t",), "k") is not None
        clock.advance(minutes=2)
        assert store.get(("t",), "k") is None and store.search(("t",)) == []
        assert mem.maintain().expired >= 1
        assert any(ln.receipt and ln.receipt["boundary"] == "expire" for ln in read_outbox(db))

    def test_a_refreshing_read_extends_the_window(self, mem: memoryos.Memory, clock: FakeClock) -> None:
        store = MemoryOSStore(mem, SCOPE)  # LangGraph's default: reads refresh
        store.put(("t",), "k", {"v": 1}, ttl=10.0)
        for _ in range(3):
            clock.advance(minutes=6)
            assert store.get(("t",), "k") is not None  # 18 minutes in: alive, thanks to the reads
        assert store.get(("t",), "k", refresh_ttl=False).value == {"v": 1}  # type: ignore[union-attr]
        clock.advance(minutes=11)
        assert store.get(("t",), "k") is None

    def test_a_read_soon_after_a_write_does_not_add_a_version(
        self, mem: memoryos.Memory, clock: FakeClock
    ) -> None:
        store = MemoryOSStore(mem, SCOPE)
        store.put(("t",), "k", {"v": 1}, ttl=10.0)
        for _ in range(5):
            store.get(("t",), "k")
        assert len(mem.history(SCOPE, drawer_key(("t",), "k"))) == 1


class TestScopes:
    def test_per_user_namespaces_are_separate_scopes(self, mem: memoryos.Memory) -> None:
        store = MemoryOSStore(mem, ScopeRule.per_user("coder"))
        store.put(("alice", "memories"), "m1", {"text": "alice likes rust"})
        store.put(("bob", "memories"), "m1", {"text": "bob likes rust"})
        assert [i.value["text"] for i in store.search(("alice",), query="rust")] == ["alice likes rust"]
        assert store.list_namespaces(prefix=("bob",)) == [("bob", "memories")]
        assert mem.get(memoryos.Scope(user="alice", assistant="coder"), 'lg:["memories","m1"]') is not None

    def test_an_operation_that_would_span_scopes_is_refused(self, mem: memoryos.Memory) -> None:
        store = MemoryOSStore(mem, ScopeRule.per_user("coder"))
        with pytest.raises(memoryos.InvalidInput, match="scope"):
            store.search(())
        with pytest.raises(memoryos.InvalidInput, match="scope"):
            store.list_namespaces()
        with pytest.raises(memoryos.InvalidInput, match="scope"):
            store.list_namespaces(prefix=("*", "memories"))


def test_both_adapters_are_content_free_in_receipts_logs_and_spans(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from memoryos.otel import OtelTelemetry

    caplog.set_level(logging.DEBUG, logger="memoryos")
    canary = "zqxlgcanaryjv"
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = OtelTelemetry(tracer_provider=provider)
    with memoryos.open(db, telemetry=telemetry) as mem:
        store = MemoryOSStore(mem, ScopeRule.per_user(f"{canary}assistant"))
        ns = (f"{canary}user", f"{canary}ns")
        store.put(ns, f"{canary}key", {"text": f"{canary} value", "n": 1}, ttl=5.0)
        store.get(ns, f"{canary}key")
        store.search(ns, query=f"{canary} value")
        store.list_namespaces(prefix=(f"{canary}user",))
        store.delete(ns, f"{canary}key")
        # The OpenAI Agents session on the same memory: its items and ids stay out of them too.
        session = MemoryOSSession(f"{canary}session", mem, user=f"{canary}user", assistant="helper")
        session.add(
            [{"role": "user", "content": f"{canary} hello"}, {"type": "function_call", "name": canary}]
        )
        session.items()
        session.pop()
        session.clear()
        outbox = repr([ln.receipt for ln in read_outbox(db)])
    spans: Any = exporter.get_finished_spans()
    provider.shutdown()
    assert spans, "the store's operations should have made spans"
    haystacks = {
        "receipts": outbox,
        "logs": caplog.text,
        "spans": repr([dict(s.attributes or {}) for s in spans]),
    }
    for where, text in haystacks.items():
        assert canary not in text, f"content leaked into {where}"
    assert "boundary" in outbox


def test_a_compiled_graph_writes_in_one_thread_and_reads_in_another(mem: memoryos.Memory, db: Path) -> None:
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore

    class State(TypedDict):
        text: str
        found: list[str]

    def node(state: State, *, store: BaseStore) -> dict[str, Any]:
        if state["text"].startswith("remember "):
            store.put(("alice", "memories"), state["text"][9:12], {"text": state["text"][9:]})
            return {"found": []}
        return {"found": [i.value["text"] for i in store.search(("alice", "memories"), query=state["text"])]}

    graph = StateGraph(State)
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    graph.add_edge("node", END)
    app = graph.compile(checkpointer=InMemorySaver(), store=MemoryOSStore(mem, ScopeRule.per_user("coder")))
    app.invoke({"text": "remember kiwis are green", "found": []}, {"configurable": {"thread_id": "t1"}})
    out = app.invoke({"text": "what colour are kiwis", "found": []}, {"configurable": {"thread_id": "t2"}})
    assert out["found"] == ["kiwis are green"]
    stores = [ln.receipt for ln in read_outbox(db) if ln.receipt and ln.receipt["boundary"] == "store"]
    assert [r["toTier"] for r in stores] == ["lpm"]
