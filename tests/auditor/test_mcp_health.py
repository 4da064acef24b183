"""memory_health answers from an incremental audit held in the MCP server process (issue 13)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent

import memoryos
from auditor import audit
from memoryos.mcp_server import MemoryTools
from receipts import read_key_file

ALICE = memoryos.Scope(user="alice", assistant="coder")


def full_audit(db: Path) -> dict[str, Any]:
    report = audit([], stores=[db], key=read_key_file(db.with_name(db.name + ".receipt-key")))
    return {"verdict": report.verdict, "counts": dict(report.counts), "receipts": report.receipts}


def test_health_reads_only_new_receipts_and_starts_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("memory_health started a process")

    monkeypatch.setattr(anyio, "run_process", no_process)
    db = tmp_path / "memory.db"
    with memoryos.open(db) as mem:
        tools = MemoryTools(mem, ALICE)
        for i in range(9):
            mem.remember(ALICE, f"note {i} about the blyck release")

        async def health() -> dict[str, Any]:
            result = await tools.call("memory_health", {})
            assert not result.is_error
            assert isinstance(result.structured_content, dict)
            return result.structured_content

        first = anyio.run(health)
        assert first == full_audit(db)
        lines_read = tools.auditor._audit._engine._lines
        mem.remember(ALICE, "one more note")
        second = anyio.run(health)
        assert second == full_audit(db) and second["receipts"] == first["receipts"] + 1
        assert tools.auditor._audit._engine._lines == lines_read + 1  # only the new receipt was read


def test_health_over_a_real_session_agrees_with_a_full_audit(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with memoryos.open(db) as mem:
        for i in range(5):
            mem.remember(ALICE, f"note {i} about the blyck release")

    async def session() -> list[dict[str, Any]]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memoryos", "mcp", "--db", str(db), "--user", "alice", "--assistant", "coder"],
        )
        answers = []
        with (tmp_path / "server.stderr").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                for text in ("a sixth note", "a seventh note"):
                    await s.call_tool("memory_remember", {"text": text})
                    result = await s.call_tool("memory_health", {})
                    (block,) = result.content
                    assert isinstance(block, TextContent)
                    answers.append(json.loads(block.text))
        return answers

    answers = anyio.run(session)
    assert answers[0]["receipts"] < answers[1]["receipts"]
    assert answers[1] == full_audit(db)
