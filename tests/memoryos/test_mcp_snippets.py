"""The README's MCP snippets, run as written: the Claude Code command's server argv, the Claude
Desktop / Cursor JSON config, the OpenAI Agents `MCPServerStdio` program, and the token command.
Each runs in a temporary directory, with `memoryos` on PATH as an installed package puts it."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

import memoryos
from memoryos.mcp_tokens import load_tokens

ROOT = Path(__file__).resolve().parents[2]
ALICE = memoryos.Scope(user="alice", assistant="coder")


def snippet(name: str) -> str:
    """The fenced block that follows `<!-- snippet: name -->` in the README, dedented."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- snippet: {name} -->\n\s*```\w*\n(.*?)\n\s*```", readme, re.DOTALL)
    assert found is not None, f"README has no snippet {name}"
    return textwrap.dedent(found.group(1))


def environment() -> dict[str, str]:
    """PATH with this interpreter's bin first: where `pip install memoryos` puts the `memoryos` script."""
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}


def tools_of(command: str, args: list[str], cwd: Path) -> set[str]:
    async def run() -> set[str]:
        params = StdioServerParameters(command=command, args=args, env=environment(), cwd=cwd)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("memory_write", {"key": "snippet:ran", "body": "yes"})
            return {tool.name for tool in (await session.list_tools()).tools}

    return anyio.run(run)


def assert_server_ran(cwd: Path, names: set[str]) -> None:
    assert {"memory_context", "memory_read", "memory_write"} <= names
    with memoryos.open(cwd / "agent-memory.db") as mem:
        assert mem.get(ALICE, "snippet:ran") is not None  # in the scope the snippet fixed


def test_claude_code_command_launches_a_working_server(tmp_path: Path) -> None:
    words = shlex.split(snippet("claude-code"))
    assert words[:4] == ["claude", "mcp", "add", "memoryos"] and words[4] == "--"
    command, *args = words[5:]
    assert_server_ran(tmp_path, tools_of(command, args, tmp_path))


def test_desktop_and_cursor_json_config_launches_a_working_server(tmp_path: Path) -> None:
    config = json.loads(snippet("json-config"))["mcpServers"]["memoryos"]
    assert_server_ran(tmp_path, tools_of(config["command"], config["args"], tmp_path))


def test_openai_agents_snippet_runs_against_the_stdio_server(tmp_path: Path) -> None:
    program = tmp_path / "agent.py"
    program.write_text(snippet("openai-agents"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(program)],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "coder make ship"
    with memoryos.open(tmp_path / "agent-memory.db") as mem:
        record = mem.get(ALICE, "deploy:blyck")
        assert record is not None and record.body == "make ship"


def test_the_add_token_command_writes_a_grant_the_server_accepts(tmp_path: Path) -> None:
    words = shlex.split(snippet("add-token"))
    assert words[0] == "python"
    done = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    grant = load_tokens(tmp_path / "tokens.jsonl").lookup(token)
    assert grant is not None and (grant.user, grant.assistant, grant.label) == ("alice", "coder", "laptop")
