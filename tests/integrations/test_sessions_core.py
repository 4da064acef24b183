"""Memory.session_turns and Memory.forget_session: one session's turns across STM and MTM."""

from __future__ import annotations

from pathlib import Path

import pytest

import memoryos
from receipts import read_outbox
from tests.integrations.conftest import file_bytes

CANARY = "zqxsessioncanaryvw"


def scope(session: str | None = "s-1") -> memoryos.Scope:
    return memoryos.Scope(user="alice", assistant="coder", session=session)


class TestSessionTurns:
    def test_turns_come_back_in_order_across_stm_and_mtm(self, mem: memoryos.Memory) -> None:
        texts = [f"turn number {i} about kiwis" for i in range(12)]  # STM holds 7: some get promoted
        for i, text in enumerate(texts):
            mem.remember(scope(), text, role="user" if i % 2 == 0 else "assistant")
        turns = mem.session_turns(scope())
        assert [t.text for t in turns] == texts
        assert {t.tier for t in turns} == {"stm", "mtm"}
        assert [t.role for t in turns[:2]] == ["user", "assistant"]

    def test_limit_keeps_the_newest_in_order(self, mem: memoryos.Memory) -> None:
        for i in range(10):
            mem.remember(scope(), f"note {i}")
        assert [t.text for t in mem.session_turns(scope(), limit=3)] == ["note 7", "note 8", "note 9"]

    def test_other_sessions_and_scopes_stay_out(self, mem: memoryos.Memory) -> None:
        mem.remember(scope("s-1"), "mine")
        mem.remember(scope("s-2"), "another session")
        mem.remember(scope(None), "no session")
        mem.remember(memoryos.Scope(user="bob", assistant="coder", session="s-1"), "bob's")
        assert [t.text for t in mem.session_turns(scope("s-1"))] == ["mine"]

    def test_a_scope_without_session_is_refused(self, mem: memoryos.Memory) -> None:
        with pytest.raises(memoryos.InvalidInput, match="session="):
            mem.session_turns(scope(None))


class TestForgetSession:
    def test_erases_the_session_everywhere_with_receipts(self, mem: memoryos.Memory, db: Path) -> None:
        for i in range(12):
            mem.remember(scope(), f"{CANARY} turn {i} about blyck deploys")
        mem.remember(scope("s-2"), f"{CANARY} kept in another session")
        assert mem.maintain().promoted_turns >= 0
        erased = mem.forget_session(scope())
        forgets = [ln.receipt for ln in read_outbox(db) if ln.receipt and ln.receipt["boundary"] == "forget"]
        assert erased >= 12 and len(forgets) == erased
        assert mem.session_turns(scope()) == []
        assert [t.text for t in mem.session_turns(scope("s-2"))] == [f"{CANARY} kept in another session"]
        assert mem.forget_session(scope()) == 0  # again: a no-op
        assert mem.check() == []
        mem.forget_session(scope("s-2"))
        assert CANARY.encode() not in file_bytes(db)

    def test_a_scope_without_session_is_refused(self, mem: memoryos.Memory) -> None:
        with pytest.raises(memoryos.InvalidInput, match="forget_scope"):
            mem.forget_session(scope(None))
