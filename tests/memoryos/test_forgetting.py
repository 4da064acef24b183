"""Forgetting on purpose: validity instants, corrections, decay, erasure that leaves the file."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import memoryos
from memoryos.testing import FakeClock
from receipts import read_outbox

CANARY = "zqxerasecanaryjv"


def file_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))


class TestErasure:
    def test_forgotten_content_leaves_every_tier_the_index_and_the_file(
        self, db: Path, clock: FakeClock, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(db, clock=clock) as mem:
            turns = [mem.remember(alice, f"{CANARY} I prefer rust for blyck, note {i}.") for i in range(7)]
            mem.put(alice, "secret-ish", f"{CANARY} in a record")
            mem.maintain()
            assert CANARY.encode() in file_bytes(db)
            assert mem.status()["tiers"]["lpm"] > 1  # the canary reached LPM through distillation
            for stored in turns:
                mem.forget(alice, stored.memory_id)
            mem.forget(alice, "secret-ish")
            assert mem.recall(alice, CANARY, k=50).hits == []
            assert mem.check() == []
        assert CANARY.encode() not in file_bytes(db)

    def test_forget_scope_erases_one_user_and_leaves_the_others(
        self, mem: memoryos.Memory, alice: memoryos.Scope, bob: memoryos.Scope, db: Path
    ) -> None:
        other_assistant = memoryos.Scope(user="alice", assistant="writer")
        for scope in (alice, bob, other_assistant):
            for i in range(9):
                mem.remember(scope, f"{CANARY} {scope.assistant} note {i} about kiwis")
            mem.put(scope, "fruit", "kiwi")
        erased = mem.forget_scope(user="alice", assistant="coder")
        forgets = [
            line.receipt for line in read_outbox(db) if line.receipt and line.receipt["boundary"] == "forget"
        ]
        assert erased > 0 and len(forgets) == erased
        assert {r["assistantScope"] for r in forgets} == {forgets[0]["assistantScope"]}
        assert mem.recall(alice, "kiwis").hits == [] and mem.get(alice, "fruit") is None
        assert len(mem.recall(bob, "kiwis", k=20).hits) >= 9 and mem.get(bob, "fruit") is not None
        assert len(mem.recall(other_assistant, "kiwis", k=20).hits) >= 9
        assert mem.forget_scope(user="alice") > 0
        assert mem.recall(other_assistant, "kiwis").hits == []
        assert len(mem.recall(bob, "kiwis", k=20).hits) >= 9
        assert mem.forget_scope(user="nobody-at-all") == 0
        assert mem.check() == []

    def test_forget_scope_needs_a_scope(self, mem: memoryos.Memory) -> None:
        with pytest.raises(memoryos.InvalidInput):
            mem.forget_scope()


class TestValidity:
    def test_the_window_is_half_open(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        start = clock.advance(hours=1)
        end = start + timedelta(hours=1)
        mem.put(alice, "window", "inside", valid_from=start, valid_until=end)
        assert mem.get(alice, "window", as_of=start - timedelta(microseconds=1)) is None
        assert (inside := mem.get(alice, "window", as_of=start)) is not None and inside.body == "inside"
        assert mem.get(alice, "window", as_of=end - timedelta(microseconds=1)) is not None
        assert mem.get(alice, "window", as_of=end) is None
        assert mem.recall(alice, "inside", as_of=start).hits
        assert mem.recall(alice, "inside", as_of=end).hits == []

    def test_not_yet_valid_is_excluded_and_explained(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.put(alice, "future", "the launch day plan", valid_from=clock.now + timedelta(days=1))
        result = mem.recall(alice, "launch plan", explain=True)
        assert result.hits == []
        assert [e.reason for e in result.excluded] == ["not_yet_valid"]


class TestCorrections:
    def test_a_correction_chain_keeps_every_version_with_reason_and_source(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock
    ) -> None:
        mem.put(alice, "db:host", "db-1", source="runbook")
        moments = []
        for host in ("db-2", "db-3"):
            moments.append(clock.advance(hours=1))
            mem.correct(alice, "db:host", host, reason="migrated", source="ticket")
        history = mem.history(alice, "db:host")
        assert [(r.version, r.body, r.status) for r in history] == [
            (1, "db-1", "superseded"),
            (2, "db-2", "superseded"),
            (3, "db-3", "active"),
        ]
        assert [r.reason for r in history] == [None, "migrated", "migrated"]
        assert history[0].source == "runbook" and history[2].source == "ticket"
        assert history[0].valid_until == history[1].valid_from
        before_second = moments[1] - timedelta(minutes=1)
        assert (old := mem.get(alice, "db:host", as_of=before_second)) is not None and old.body == "db-2"
        result = mem.recall(alice, "db", explain=True)
        assert [h.text for h in result.hits] == ["db-3"]
        assert sorted(e.reason for e in result.excluded) == ["superseded", "superseded"]


class TestDecay:
    def test_facts_go_stale_then_retired_and_a_get_revives(
        self, mem: memoryos.Memory, alice: memoryos.Scope, clock: FakeClock, db: Path
    ) -> None:
        mem.put(alice, "cafe", "the team lunch cafe is Mimi", kind="fact")
        mem.put(alice, "deploy", "make release", kind="procedure")
        clock.advance(days=91)
        assert mem.maintain().decayed == 1
        assert mem.recall(alice, "cafe Mimi").hits  # stale is still recalled, and recall does not revive
        record = mem.get(alice, "cafe")
        assert record is not None and record.status == "active"  # an explicit get revives
        clock.advance(days=181)
        mem.maintain()
        assert mem.recall(alice, "cafe Mimi").hits == []
        assert (retired := mem.get(alice, "cafe")) is not None and retired.status == "retired"
        assert (procedure := mem.get(alice, "deploy")) is not None and procedure.status == "active"
        reasons = [
            line.receipt["reason"]
            for line in read_outbox(db)
            if line.receipt and line.receipt["boundary"] == "decay"
        ]
        assert reasons == ["stale", "revived", "retired"]


class TestNoStoreConfiguration:
    def test_families_are_configuration(self, tmp_path: Path, alice: memoryos.Scope) -> None:
        with memoryos.open(tmp_path / "a.db", no_store_families=frozenset({"aws_access_key"})) as mem:
            mem.remember(alice, "write to me at alice@mailbox.org")  # email is not an enabled family
            with pytest.raises(memoryos.Rejected, match="aws_access_key"):
                mem.remember(alice, "the key is AKIAIOSFODNN7EXAMPLE")

    def test_redact_mode_stores_the_text_with_the_span_masked(
        self, tmp_path: Path, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(tmp_path / "a.db", no_store_mode="redact") as mem:
            mem.remember(alice, "mail alice@mailbox.org about the invoice")
            (hit,) = mem.recall(alice, "invoice").hits
            assert "alice@mailbox.org" not in hit.text and "[REDACTED:pii:email]" in hit.text

    def test_unknown_families_are_a_config_error(self) -> None:
        with pytest.raises(memoryos.ConfigError):
            memoryos.Config(no_store_families=frozenset({"horoscopes"}))
