"""MemoryOSSession against the OpenAI Agents SDK's own Session protocol, types and Runner."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.items import TResponseInputItem
from agents.memory import Session
from agents.testing.model import ScriptedModel, assistant_message, function_call

import memoryos
from memoryos.integrations.openai_agents import MemoryOSSession
from receipts import read_outbox
from tests.integrations.conftest import file_bytes

CANARY = "zqxagentcanaryrt"


def session(mem: memoryos.Memory, session_id: str = "thread-1") -> MemoryOSSession:
    return MemoryOSSession(session_id, mem, user="alice", assistant="helper")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


MESSAGE: TResponseInputItem = {"role": "user", "content": "I deploy blyck with make release"}
FUNCTION_CALL: TResponseInputItem = {
    "type": "function_call",
    "call_id": "call_1",
    "name": "lookup",
    "arguments": '{"city": "Oslo"}',
}
FUNCTION_OUTPUT: TResponseInputItem = {"type": "function_call_output", "call_id": "call_1", "output": "12 C"}
IMAGE: TResponseInputItem = {
    "role": "user",
    "content": [{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}],
}


class TestProtocol:
    def test_it_is_an_sdk_session(self, mem: memoryos.Memory) -> None:
        assert isinstance(session(mem), Session)

    def test_a_message_round_trips_as_text(self, mem: memoryos.Memory) -> None:
        s = session(mem)
        run(s.add_items([MESSAGE, {"type": "message", "role": "assistant", "content": "Noted."}]))
        assert run(s.get_items()) == [MESSAGE, {"type": "message", "role": "assistant", "content": "Noted."}]
        # Stored as words, so memoryos's own recall finds it.
        assert mem.recall(s.scope, "deploy blyck").hits[0].text == MESSAGE["content"]  # type: ignore[typeddict-item]

    def test_a_function_call_and_other_items_round_trip_as_json(self, mem: memoryos.Memory) -> None:
        s = session(mem)
        run(s.add_items([FUNCTION_CALL, FUNCTION_OUTPUT, IMAGE]))
        assert run(s.get_items()) == [FUNCTION_CALL, FUNCTION_OUTPUT, IMAGE]
        assert [t.role for t in mem.session_turns(s.scope)] == ["assistant", "tool", "user"]

    def test_get_items_limit_is_the_newest_in_order(self, mem: memoryos.Memory) -> None:
        s = session(mem)
        items: list[TResponseInputItem] = [{"role": "user", "content": f"line {i}"} for i in range(10)]
        run(s.add_items(items))
        assert run(s.get_items(limit=3)) == items[-3:]
        assert run(s.get_items(limit=0)) == []
        assert run(s.get_items()) == items  # ten items: some already promoted to MTM

    def test_pop_item_erases_and_returns_the_newest(self, mem: memoryos.Memory, db: Path) -> None:
        s = session(mem)
        run(s.add_items([MESSAGE, {"role": "assistant", "content": f"{CANARY} reply"}]))
        assert run(s.pop_item()) == {"role": "assistant", "content": f"{CANARY} reply"}
        assert run(s.get_items()) == [MESSAGE]
        assert CANARY.encode() not in file_bytes(db)
        assert run(s.pop_item()) == MESSAGE
        assert run(s.pop_item()) is None

    def test_clear_session_is_a_real_erasure_of_this_session_only(
        self, mem: memoryos.Memory, db: Path
    ) -> None:
        mine, other = session(mem, "t-1"), session(mem, "t-2")
        run(mine.add_items([{"role": "user", "content": f"{CANARY} {i}"} for i in range(9)]))
        run(other.add_items([MESSAGE]))
        run(mine.clear_session())
        assert run(mine.get_items()) == []
        assert run(other.get_items()) == [MESSAGE]
        assert CANARY.encode() not in file_bytes(db)
        forgets = [ln.receipt for ln in read_outbox(db) if ln.receipt and ln.receipt["boundary"] == "forget"]
        assert len(forgets) >= 9 and all(CANARY not in str(r) for r in forgets)
        run(mine.clear_session())  # clearing an empty session is fine


class TestBadItems:
    def test_a_non_dict_item_is_refused_and_nothing_is_written(self, mem: memoryos.Memory) -> None:
        s = session(mem)
        with pytest.raises(memoryos.InvalidInput, match="must be a dict"):
            run(s.add_items([MESSAGE, "just a string"]))  # type: ignore[list-item]
        assert run(s.get_items()) == []

    def test_a_secret_refuses_the_whole_batch_with_a_reject_receipt(
        self, mem: memoryos.Memory, db: Path
    ) -> None:
        s = session(mem)
        secret = {"role": "user", "content": "my key is AKIAIOSFODNN7EXAMPLE"}
        with pytest.raises(memoryos.Rejected):
            run(s.add_items([MESSAGE, secret]))  # type: ignore[list-item]
        assert run(s.get_items()) == []
        assert any(ln.receipt and ln.receipt["boundary"] == "reject" for ln in read_outbox(db))

    def test_an_unserializable_item_is_refused(self, mem: memoryos.Memory) -> None:
        with pytest.raises(memoryos.InvalidInput, match="JSON"):
            bad: Any = {"type": "function_call", "arguments": object()}
            run(session(mem).add_items([bad]))


@function_tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"12 C in {city}"


class TestRunner:
    def test_a_runner_remembers_across_runs_of_one_session(self, mem: memoryos.Memory) -> None:
        model = ScriptedModel(
            [
                [function_call("lookup", {"city": "Oslo"}, call_id="call_1")],
                [assistant_message("It is 12 C in Oslo.")],
                [assistant_message("You asked about Oslo.")],
            ]
        )
        agent = Agent(name="helper", model=model, tools=[lookup])
        s = session(mem)
        offline = RunConfig(tracing_disabled=True)  # no network: traces would go to OpenAI
        first = run(Runner.run(agent, "Weather in Oslo?", session=s, run_config=offline))
        assert first.final_output == "It is 12 C in Oslo."
        second = run(Runner.run(agent, "What did I ask?", session=s, run_config=offline))
        assert second.final_output == "You asked about Oslo."
        # The second model call saw the whole first run, tool call included, from memoryos.
        seen = model.last_call.input if model.last_call else []
        assert isinstance(seen, list)
        kinds = [item.get("type", "message") for item in seen]
        assert "function_call" in kinds and "function_call_output" in kinds
        assert seen[0] == {"role": "user", "content": "Weather in Oslo?"}
        stored = run(s.get_items())
        assert dict(stored[-1]).get("role") == "assistant"
        assert len(stored) == len(seen) + 1
