"""`Memory.keys()`: the keys `get()` would find now, sorted, per scope, by prefix and page; content-free."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memoryos
from memoryos.testing import InMemoryOtel

ALICE = memoryos.Scope(user="alice", assistant="coder")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_keys_are_sorted_filtered_by_prefix_and_paged(tmp_path: Path) -> None:
    with memoryos.open(tmp_path / "m.db") as mem:
        for key in ["deploy:web", "editor", "deploy:api", "deploy:db", "zeta"]:
            mem.put(ALICE, key, f"about {key}")
        assert mem.keys(ALICE) == ["deploy:api", "deploy:db", "deploy:web", "editor", "zeta"]
        assert mem.keys(ALICE, prefix="deploy:") == ["deploy:api", "deploy:db", "deploy:web"]
        first = mem.keys(ALICE, prefix="deploy:", limit=2)
        assert first == ["deploy:api", "deploy:db"]
        assert mem.keys(ALICE, prefix="deploy:", after=first[-1], limit=2) == ["deploy:web"]
        assert mem.keys(ALICE, prefix="nothing") == []


def test_only_keys_get_would_find_now_are_listed(tmp_path: Path) -> None:
    clock = Clock()
    with memoryos.open(tmp_path / "m.db", clock=clock) as mem:
        mem.put(ALICE, "kept", "stays")
        mem.put(ALICE, "corrected", "v1")
        clock.now += timedelta(seconds=1)
        mem.correct(ALICE, "corrected", "v2")
        mem.put(ALICE, "forgotten", "erased")
        mem.forget(ALICE, "forgotten")
        mem.put(ALICE, "brief", "expires", ttl=timedelta(minutes=5))
        assert mem.keys(ALICE) == ["brief", "corrected", "kept"]
        assert mem.now == clock.now  # the clock keys() and the ttl are judged by
        clock.now += timedelta(minutes=6)
        assert mem.keys(ALICE) == ["corrected", "kept"]
        assert mem.get(ALICE, "brief") is None


def test_another_scope_lists_only_its_own_keys(tmp_path: Path) -> None:
    with memoryos.open(tmp_path / "m.db") as mem:
        mem.put(ALICE, "alice:secret-plan", "x")
        mem.put(memoryos.Scope(user="alice", assistant="writer"), "writer:draft", "y")
        mem.put(memoryos.Scope(user="bob", assistant="coder"), "bob:note", "z")
        assert mem.keys(ALICE) == ["alice:secret-plan"]
        assert mem.keys(memoryos.Scope(user="bob", assistant="coder")) == ["bob:note"]
        assert mem.keys(memoryos.Scope(user="carol", assistant="coder")) == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"prefix": 3}, "prefix must be a str"),
        ({"after": "k" * 600}, "after must be a str of at most 512"),
        ({"limit": 0}, "limit"),
        ({"limit": 10**9}, "limit"),
        ({"limit": True}, "limit"),
    ],
)
def test_bad_arguments_say_what_to_pass(tmp_path: Path, arguments: dict[str, object], message: str) -> None:
    with memoryos.open(tmp_path / "m.db") as mem:
        with pytest.raises(memoryos.InvalidInput, match=message):
            mem.keys(ALICE, **arguments)  # type: ignore[arg-type]
        with pytest.raises(memoryos.InvalidInput):
            mem.keys("alice")  # type: ignore[arg-type]


def test_a_closed_store_refuses_to_list(tmp_path: Path) -> None:
    mem = memoryos.open(tmp_path / "m.db")
    mem.close()
    with pytest.raises(memoryos.StoreClosed):
        mem.keys(ALICE)


def test_listing_keeps_keys_out_of_spans_receipts_and_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    canary = "zqxcanarykeyjv"
    otel = InMemoryOtel()
    caplog.set_level(logging.DEBUG, logger="memoryos")
    db = tmp_path / "m.db"
    with memoryos.open(db, telemetry=otel.telemetry) as mem:
        mem.put(ALICE, canary, "body")
        before = db.read_bytes()
        assert mem.keys(ALICE, prefix=canary[:6]) == [canary]
        assert db.read_bytes() == before  # a listing writes nothing: no receipt to carry a key
    counted = [s.attributes.get("gen_ai.memory.record.count") for s in otel.finished() if s.attributes]
    assert 1 in counted, "keys() is traced with its count"
    for span in otel.finished():
        assert canary not in repr(dict(span.attributes or {})) and canary not in span.name
    assert canary not in caplog.text
