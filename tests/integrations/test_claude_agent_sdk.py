"""The Claude Agent SDK in process: the README's snippet (`McpSdkServerConfig(type="sdk",
instance=build_server(...))`), run as written, then served by the SDK's own in-process MCP bridge.

A real session needs the Claude Code CLI and a model, neither reachable here. The SDK's public
`Transport` stands in for the CLI: it answers the SDK's `initialize` control request, then sends the
`mcp_message` control requests the CLI sends an SDK server (MCP initialize, tools/list, tools/call,
resources/list) and reads the SDK's answers, then ends the turn with a `result` message. Everything
between the transport and our `Server` is the SDK's code: `query()`, its control protocol, and the
bridge that runs `Server.run` over an in-memory transport. What stays untested: the CLI's own side
(how Claude Code names the tools to the model, `mcp__memoryos__memory_read`, and its permission
prompts), and a model choosing to call them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, Transport, query
from mcp.server.lowlevel import Server

import memoryos
from tests.memoryos.test_mcp_snippets import snippet

ALICE = memoryos.Scope(user="alice", assistant="coder")


class FakeCli(Transport):
    """Plays Claude Code's side of the control protocol for one turn, with a fixed MCP script."""

    def __init__(self, server_name: str, script: list[dict[str, Any]]) -> None:
        self.server_name = server_name
        self.script = script
        self.answers: list[dict[str, Any]] = []
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        self._answered = anyio.Event()
        self._ready = False
        self._turn: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        self._ready = True

    def is_ready(self) -> bool:
        return self._ready

    async def write(self, data: str) -> None:
        message = json.loads(data)
        if message["type"] == "control_request" and message["request"]["subtype"] == "initialize":
            await self._send.send(_success(message["request_id"], {"commands": []}))
        elif message["type"] == "user":  # the prompt: the CLI would now ask the model, which calls tools
            self._turn = asyncio.get_running_loop().create_task(self._run_script())
        elif message["type"] == "control_response":
            self.answers.append(message["response"])
            self._answered.set()

    async def _run_script(self) -> None:
        for number, mcp in enumerate(self.script):
            self._answered = anyio.Event()
            request = {"subtype": "mcp_message", "server_name": self.server_name, "message": mcp}
            await self._send.send(
                {"type": "control_request", "request_id": f"cli_{number}", "request": request}
            )
            with anyio.fail_after(30):
                await self._answered.wait()
        await self._send.send(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": 1,
                "duration_api_ms": 0,
                "is_error": False,
                "num_turns": 1,
                "session_id": "fake",
                "result": "done",
            }
        )
        await self._send.aclose()  # the CLI exits after its turn: the SDK's reader sees the end

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        async with self._receive:
            async for message in self._receive:
                yield message

    async def end_input(self) -> None:
        pass

    async def close(self) -> None:
        self._ready = False
        await self._send.aclose()


def _success(request_id: str, response: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


def _rpc(number: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params or {}}


def test_the_readme_snippet_serves_build_servers_object_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [
        _rpc(
            0,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cli", "version": "0"},
            },
        ),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _rpc(1, "tools/list"),
        _rpc(
            2,
            "tools/call",
            {"name": "memory_write", "arguments": {"key": "deploy:blyck", "body": "make ship"}},
        ),
        _rpc(3, "tools/call", {"name": "memory_read", "arguments": {"key": "deploy:blyck"}}),
        _rpc(4, "tools/call", {"name": "memory_read", "arguments": {"key": "x", "user": "bob"}}),
        _rpc(5, "resources/list"),
    ]
    # The README's snippet, run as written (it opens agent-memory.db in the working directory).
    monkeypatch.chdir(tmp_path)
    names: dict[str, Any] = {}
    exec(compile(snippet("claude-agent-sdk"), "README.md", "exec"), names)
    options, mem = names["options"], names["mem"]
    assert isinstance(options, ClaudeAgentOptions) and isinstance(mem, memoryos.Memory)
    servers: Any = options.mcp_servers  # a dict of server configs, or a path to a JSON file
    config = servers["memoryos"]
    assert config["type"] == "sdk" and isinstance(config["instance"], Server)
    cli = FakeCli("memoryos", script)

    async def run() -> list[Any]:
        return [m async for m in query(prompt="where does blyck deploy?", options=options, transport=cli)]

    try:
        messages = anyio.run(run)
        stored = mem.get(ALICE, "deploy:blyck")
    finally:
        mem.close()
    assert any(isinstance(m, ResultMessage) for m in messages)
    # keyed by the JSON-RPC id of the script's request
    replies = {r["id"]: r for r in (a["response"]["mcp_response"] for a in cli.answers) if "id" in r}
    assert replies[0]["result"]["serverInfo"]["name"] == "memoryos"
    assert replies[0]["result"]["capabilities"]["resources"]["listChanged"] is True
    tools = {t["name"]: t for t in replies[1]["result"]["tools"]}
    assert {"memory_read", "memory_write", "memory_context"} <= set(tools)
    assert all("outputSchema" in t for t in tools.values())
    read = replies[3]["result"]["structuredContent"]
    assert read["found"] and read["record"]["body"] == "make ship"
    refused = replies[4]["result"]
    assert refused["isError"] and "fixed" in refused["content"][0]["text"]  # no scope argument
    listed = [r["name"] for r in replies[5]["result"]["resources"]]
    assert listed == ["topics", "deploy:blyck"]
    assert stored is not None and stored.body == "make ship"  # the write went to the host's store
