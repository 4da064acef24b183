"""The examples run as real programs, offline (the models are fakes), and say what they did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import memoryos

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, db: Path) -> str:
    env = {**os.environ, "OPENAI_API_KEY": "", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_langgraph_agent_recalls_across_threads_and_not_across_users(tmp_path: Path) -> None:
    db = tmp_path / "lg.db"
    out = run_example("langgraph_agent.py", db)
    assert "thread 2 recalls: I deploy blyck with make release" in out
    assert "another user gets: I don't know yet." in out
    with memoryos.open(db) as mem:  # the memory is memoryos's, with its receipts and checks
        assert mem.check() == []
        alice = memoryos.Scope(user="alice", assistant="example-agent")
        assert mem.get(alice, 'lg:["memories","m0"]') is not None


@pytest.mark.parametrize("name", ["openai_agents_session.py"])
def test_openai_agents_session_keeps_the_conversation_then_clears_it(tmp_path: Path, name: str) -> None:
    out = run_example(name, tmp_path / "oa.db")
    assert "run 2: You asked about the weather in Oslo." in out
    assert "kinds: ['function_call', 'function_call_output', 'message']" in out
    assert "after clear_session: 0 items" in out


def test_mcp_client_writes_corrects_and_builds_a_prompt_block(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    out = run_example("mcp_client.py", db)
    assert "versions: ['blyck deploys with make ship', 'blyck deploys with make release']" in out
    assert "context: [deploy:blyck] blyck deploys with make release" in out
    with memoryos.open(db) as mem:  # written through the server, in the scope its command line fixed
        record = mem.get(memoryos.Scope(user="alice", assistant="example-agent"), "deploy:blyck")
        assert record is not None and record.version == 2
        assert mem.check() == []
