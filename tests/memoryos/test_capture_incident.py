"""The incident the typed drawer exists for: an agent that deployed yesterday must not decide today
that it "cannot deploy without credentials". Session 1 sees the deploy in a raw activity log and
the capability is approved; session 2, in a new process, asks "deploy it" and gets it first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

import memoryos

RAW_LOG_LINE = {
    "type": "command",
    "command": "aws s3 cp dist/ s3://blyck-releases --recursive",
    "exit_status": 0,
}
SESSION_2 = """
import sys, orjson, memoryos
with memoryos.open(sys.argv[1]) as mem:
    scope = memoryos.Scope(user="alice", assistant="coder", session="s-2")
    block = mem.context(scope, "deploy it")
    print(orjson.dumps({"text": block.text, "refs": block.refs}).decode())
"""


def _session_1(db: Path) -> memoryos.Stored:
    scope = memoryos.Scope(user="alice", assistant="coder", session="s-1")
    with memoryos.open(db) as mem:
        mem.remember(scope, "ship the new build of blyck to the release bucket")
        for i in range(8):  # a busy session: the deploy is one line among many
            mem.remember(scope, f"we talked about deploy timing and the deploy checklist, item {i}")
        candidate = mem.observe(scope, RAW_LOG_LINE)
        assert candidate is not None
        assert (candidate.kind, candidate.key) == ("capability", "deploy:blyck-releases")
        assert "aws s3 cp dist/ s3://blyck-releases --recursive" in candidate.body
        assert mem.get(scope, candidate.key) is None  # nothing enters the drawer before approval
        stored = mem.approve(scope, candidate.candidate_id)
        mem.end_session(scope)
        return stored


def test_a_deploy_seen_in_a_raw_log_is_the_first_thing_a_new_process_recalls_for_deploy_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "agent.db"
    stored = _session_1(db)
    done = subprocess.run(
        [sys.executable, "-c", SESSION_2, str(db)], capture_output=True, check=True, timeout=120
    )
    block = orjson.loads(done.stdout)
    assert block["refs"][0] == f"{stored.memory_id}@{stored.version}"
    first = block["text"].splitlines()[0]
    assert first.startswith("[deploy:blyck-releases] ") and "s3://blyck-releases" in first


def test_without_the_approval_the_new_process_gets_no_capability(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    scope = memoryos.Scope(user="alice", assistant="coder", session="s-1")
    with memoryos.open(db) as mem:
        assert mem.observe(scope, RAW_LOG_LINE) is not None  # pending, never approved
    done = subprocess.run(
        [sys.executable, "-c", SESSION_2, str(db)], capture_output=True, check=True, timeout=120
    )
    assert "deploy:blyck-releases" not in orjson.loads(done.stdout)["text"]


def test_the_mcp_server_tells_the_agent_to_check_memory_before_giving_up() -> None:
    from memoryos.mcp_server import CHECK_BEFORE_IMPOSSIBLE, TOOLS

    (context,) = [tool for tool in TOOLS if tool.name == "memory_context"]
    assert CHECK_BEFORE_IMPOSSIBLE in context.description
    assert "impossible" in CHECK_BEFORE_IMPOSSIBLE and "memory_context" in CHECK_BEFORE_IMPOSSIBLE
