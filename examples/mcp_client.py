"""An MCP client for `memoryos mcp`: start the server over stdio, write a record, correct it, and
build the prompt block an agent would send with its next turn.

    python examples/mcp_client.py [STORE]      (default: a temporary store)

The server is the one an agent host launches (`memoryos mcp --db ... --user ... --assistant ...`):
the scope is fixed on its command line, and no tool argument can reach another user's memory.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    if result.is_error or not isinstance(result.structured_content, dict):
        raise SystemExit(f"{name} failed: {result.content}")
    return result.structured_content


async def main(db: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryos", "mcp", "--db", str(db), "--user", "alice", "--assistant", "example-agent"],
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(sorted(tool.name for tool in tools.tools)))
        await call(session, "memory_write", {"key": "deploy:blyck", "body": "blyck deploys with make ship"})
        await call(
            session,
            "memory_correct",
            {"key_or_id": "deploy:blyck", "body": "blyck deploys with make release", "reason": "renamed"},
        )
        history = await call(session, "memory_history", {"key": "deploy:blyck"})
        print("versions:", [version["body"] for version in history["versions"]])
        block = await call(
            session, "memory_context", {"query": "how do I deploy blyck? deploy:blyck", "budget_tokens": 200}
        )
        print("context:", block["text"].replace("\n", " | "))
        print("cite:", len(block["refs"]), "ref(s) under run", block["run_id"][:8])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp) / "memory.db"))
