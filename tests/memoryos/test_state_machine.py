"""A hypothesis state machine against a simple model of the store.

Invariants after every step: every acknowledged turn is in exactly one place (STM, or one MTM page)
or accounted for by an `evict` receipt; nothing is duplicated; recall never returns another scope's
unit; and the receipts match the transitions one to one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import memoryos
from memoryos.testing import FakeClock
from receipts import read_outbox
from tests.memoryos.store_contract import sqlite_of

SCOPES = [memoryos.Scope(user=u, assistant="coder") for u in ("ann", "ben", "cat")]
WORDS = ["rust", "garden", "piano", "tax", "deploy", "kiwi", "river", "stone"]


class MemoryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp())
        self.db = self.dir / "m.db"
        self.clock = FakeClock(start=datetime(2026, 3, 1, tzinfo=UTC))
        self.mem = self._open()
        self.turns: dict[str, int] = {}  # acknowledged turn id -> scope index
        self.keys: dict[tuple[int, str], str] = {}  # model of the drawer: (scope, key) -> body

    def _open(self) -> memoryos.Memory:
        return memoryos.open(
            self.db, clock=self.clock, stm_capacity=3, mtm_capacity=3, lpm_list_capacity=4, heat_threshold=4
        )

    def teardown(self) -> None:
        self.mem.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @rule(scope=st.integers(0, 2), words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    def remember(self, scope: int, words: list[str]) -> None:
        text = f"{' '.join(words)} {SCOPES[scope].user}"
        stored = self.mem.remember(SCOPES[scope], text, role="user" if len(words) % 2 else "assistant")
        self.turns[stored.memory_id] = scope

    @rule(scope=st.integers(0, 2), key=st.sampled_from(["a", "b"]), body=st.sampled_from(["x", "y"]))
    def put(self, scope: int, key: str, body: str) -> None:
        self.mem.put(SCOPES[scope], key, f"value {body}", kind="decision")
        self.keys[(scope, key)] = f"value {body}"

    @rule(scope=st.integers(0, 2))
    def put_short_lived(self, scope: int) -> None:
        self.mem.put(SCOPES[scope], "short", "short lived note", ttl=60)

    @rule(scope=st.integers(0, 2), word=st.sampled_from(WORDS))
    def recall(self, scope: int, word: str) -> None:
        result = self.mem.recall(SCOPES[scope], word, k=10)
        for hit in result.hits:
            owners = {self.turns.get(s) for s in hit.source_ids} - {None}
            assert owners <= {scope}, "recall returned another scope's unit"

    @rule(scope=st.integers(0, 2), key=st.sampled_from(["a", "b"]))
    def get(self, scope: int, key: str) -> None:
        record = self.mem.get(SCOPES[scope], key)
        assert (record.body if record else None) == self.keys.get((scope, key))

    @rule(minutes=st.integers(0, 120), days=st.sampled_from([0, 0, 100, 200]))
    def maintain(self, minutes: int, days: int) -> None:
        self.clock.now += timedelta(minutes=minutes, days=days)
        self.mem.maintain()

    @precondition(lambda self: True)
    @rule()
    def reopen(self) -> None:
        self.mem.close()
        self.mem = self._open()

    def _receipts(self) -> list[dict[str, Any]]:
        return [line.receipt for line in read_outbox(self.db) if line.receipt is not None]

    @invariant()
    def every_turn_is_in_exactly_one_place_or_accounted_for(self) -> None:
        conn = sqlite_of(self.mem)._live()
        stm = Counter(r[0] for r in conn.execute("SELECT memory_id FROM units WHERE tier = 'stm'"))
        pages = Counter(
            r[0]
            for r in conn.execute(
                "SELECT us.source_id FROM unit_sources us JOIN units p ON p.memory_id = us.memory_id"
                " WHERE p.tier = 'mtm'"
            )
        )
        receipts = self._receipts()
        evicted = Counter(
            str(ref).split("@")[0]
            for r in receipts
            if r["boundary"] == "evict"
            for ref in r.get("derivedFrom", [])
        )
        for turn in self.turns:
            places = stm[turn] + pages[turn]
            assert places == 1 or (places == 0 and evicted[turn] == 1), (turn, places, evicted[turn])
        assert all(n == 1 for n in stm.values()) and all(n == 1 for n in pages.values())

    @invariant()
    def receipts_match_transitions_one_to_one(self) -> None:
        receipts = self._receipts()
        stored = [r["memoryId"] for r in receipts if r["boundary"] == "store" and r.get("toTier") == "stm"]
        assert sorted(stored) == sorted(self.turns)
        promoted = Counter(r["derivedFrom"][0] for r in receipts if r["boundary"] == "stm_to_mtm")
        assert all(n == 1 for n in promoted.values())
        assert [r["seq"] for r in receipts] == list(range(1, len(receipts) + 1))

    @invariant()
    def no_run_mixes_scopes(self) -> None:
        scopes: dict[str, set[tuple[object, object]]] = {}
        for receipt in self._receipts():
            scopes.setdefault(receipt["runId"], set()).add((receipt["userScope"], receipt["assistantScope"]))
        assert all(len(s) == 1 for s in scopes.values())

    @invariant()
    def check_is_clean(self) -> None:
        assert self.mem.check() == []


MemoryMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestMemoryMachine = MemoryMachine.TestCase
