"""An OpenAI Agents SDK agent whose conversation history lives in memoryos. The model is the
SDK's own ScriptedModel, so this runs offline; swap in a real model to use it for real.

    python examples/openai_agents_session.py [store.db]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from agents import Agent, RunConfig, Runner, function_tool
from agents.testing.model import ScriptedModel, assistant_message, function_call

import memoryos
from memoryos.integrations.openai_agents import MemoryOSSession


@function_tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"12 C and clear in {city}"


async def main(path: Path) -> None:
    model = ScriptedModel(
        [
            [function_call("weather", {"city": "Oslo"}, call_id="call_1")],
            [assistant_message("It is 12 C and clear in Oslo.")],
            [assistant_message("You asked about the weather in Oslo.")],
        ]
    )
    agent = Agent(name="helper", instructions="Be brief.", model=model, tools=[weather])
    offline = RunConfig(tracing_disabled=True)
    with memoryos.open(path) as mem:
        session = MemoryOSSession("conversation-1", mem, user="alice", assistant="helper")
        first = await Runner.run(agent, "What's the weather in Oslo?", session=session, run_config=offline)
        print(f"run 1: {first.final_output}")
        second = await Runner.run(agent, "What did I just ask you?", session=session, run_config=offline)
        print(f"run 2: {second.final_output}")
        items = await session.get_items()
        print(f"session items: {len(items)}, kinds: {sorted({str(i.get('type', 'message')) for i in items})}")
        await session.clear_session()
        print(f"after clear_session: {len(await session.get_items())} items")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp) / "agent-memory.db"))
