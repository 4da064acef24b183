"""A LangGraph graph with memoryos as its long-term store: what it learns in one thread, it
recalls in another. No model is called; a node plays the agent, so this runs offline.

    python examples/langgraph_agent.py [store.db]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

import memoryos
from memoryos.integrations.langgraph import MemoryOSStore, ScopeRule


class State(TypedDict):
    message: str
    reply: str


class Context(TypedDict):
    user_id: str


def respond(state: State, runtime: Runtime[Context]) -> dict[str, str]:
    """Remember what the user says about themselves; answer questions from what was remembered."""
    assert runtime.store is not None
    namespace = (runtime.context["user_id"], "memories")
    text = state["message"]
    if text.endswith("?"):
        found = runtime.store.search(namespace, query=text, limit=1)
        return {"reply": found[0].value["text"] if found else "I don't know yet."}
    runtime.store.put(namespace, f"m{len(runtime.store.search(namespace, limit=1000))}", {"text": text})
    return {"reply": "Noted."}


def build(store: MemoryOSStore) -> object:
    graph = StateGraph(State, context_schema=Context)
    graph.add_node("respond", respond)
    graph.add_edge(START, "respond")
    graph.add_edge("respond", END)
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def main(path: Path) -> None:
    with memoryos.open(path) as mem:
        store = MemoryOSStore(mem, ScopeRule.per_user(assistant="example-agent"))
        app = build(store)
        say = app.invoke  # type: ignore[attr-defined]
        alice = Context(user_id="alice")
        say(
            {"message": "I deploy blyck with make release"},
            {"configurable": {"thread_id": "1"}},
            context=alice,
        )
        answer = say(
            {"message": "How do I deploy blyck?"}, {"configurable": {"thread_id": "2"}}, context=alice
        )
        print(f"thread 2 recalls: {answer['reply']}")
        other = say(
            {"message": "How do I deploy blyck?"},
            {"configurable": {"thread_id": "3"}},
            context=Context(user_id="bob"),
        )
        print(f"another user gets: {other['reply']}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp) / "agent-memory.db")
