"""The MCP server, driven through the SDK's own client over stdio against a real subprocess.

One server (alice with coder) serves the module; bob's memory, and alice's with another assistant,
are seeded through the library first, so every test can check that no tool argument reaches them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import INVALID_REQUEST, PARSE_ERROR, CallToolResult, TextContent, Tool

import memoryos
from auditor.states import STATES as AUDIT_STATES
from memoryos.mcp_sdk import SUPPORTED, installed_version, sdk_problem
from memoryos.mcp_server import ToolFailure, build_parser, main, run_auditor
from memoryos.mcp_stdio import reply_for

ALICE = memoryos.Scope(user="alice", assistant="coder")
BOB = memoryos.Scope(user="bob", assistant="coder")
ALICE_WRITER = memoryos.Scope(user="alice", assistant="writer")
TOOL_NAMES = {
    "memory_remember",
    "memory_write",
    "memory_read",
    "memory_forget",
    "memory_health",
    "memory_context",
    "memory_topics",
    "memory_history",
    "memory_correct",
}
STATES = set(AUDIT_STATES)


@dataclass
class Client:
    """A sync face on an MCP client session that lives in a portal's event loop thread."""

    portal: BlockingPortal
    session: ClientSession
    db: Path

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        result = self.portal.call(self.session.call_tool, name, arguments or {})
        assert isinstance(result, CallToolResult)  # call_tool is overloaded: the portal sees Any
        return result

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, arguments)
        assert not result.is_error, text(result)
        assert isinstance(result.structured_content, dict)
        assert json.loads(text(result)) == result.structured_content
        return result.structured_content

    def tools(self) -> list[Tool]:
        return self.portal.call(self.session.list_tools).tools


def text(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def server_command(db: Path, *extra: str) -> list[str]:
    return ["-m", "memoryos", "mcp", "--db", str(db), "--user", "alice", "--assistant", "coder", *extra]


@asynccontextmanager
async def connect(db: Path, errlog: TextIO, *extra: str) -> Any:
    params = StdioServerParameters(command=sys.executable, args=server_command(db, *extra))
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def seed(db: Path) -> None:
    with memoryos.open(db) as memory:
        memory.put(BOB, "bank:bob", "bob banks with zephyrbank", kind="fact")
        memory.remember(BOB, "bob deploys quokka with make quokka")
        memory.put(ALICE_WRITER, "style:alice", "alice writes with marmalade prose")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    root = tmp_path_factory.mktemp("mcp")
    db = root / "memory.db"
    seed(db)
    with (
        (root / "server.stderr").open("w+", encoding="utf-8") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(db, errlog)) as session,
    ):
        yield Client(portal, session, db)
    # Failures reach the model as results; the server itself never logged a crash.
    assert "Traceback" not in (root / "server.stderr").read_text(encoding="utf-8")
    # SQLite removes the WAL when the last connection closes: the server closed its store on disconnect.
    assert not db.with_name(db.name + "-wal").exists()


def others_untouched(db: Path) -> None:
    with memoryos.open(db) as memory:
        bank = memory.get(BOB, "bank:bob")
        assert bank is not None and bank.body == "bob banks with zephyrbank" and bank.version == 1
        assert [h.text for h in memory.recall(BOB, "quokka").hits] == ["bob deploys quokka with make quokka"]
        style = memory.get(ALICE_WRITER, "style:alice")
        assert style is not None and style.version == 1


# -- listing -------------------------------------------------------------------------------------
def test_the_server_lists_exactly_the_memory_tools(client: Client) -> None:
    assert {tool.name for tool in client.tools()} == TOOL_NAMES


def test_annotations_mark_which_tools_write_and_which_destroy(client: Client) -> None:
    hints = {tool.name: tool.annotations for tool in client.tools()}
    for name in ("memory_remember", "memory_write"):
        annotations = hints[name]
        assert annotations is not None
        assert annotations.read_only_hint is False and annotations.destructive_hint is False
    for name in ("memory_read", "memory_health"):
        annotations = hints[name]
        assert annotations is not None and annotations.read_only_hint is True
    forget = hints["memory_forget"]
    assert forget is not None
    assert (
        forget.read_only_hint is False and forget.destructive_hint is True and forget.idempotent_hint is True
    )
    assert all(a is not None and a.open_world_hint is False for a in hints.values())


def test_descriptions_say_which_tools_write_and_which_destroy(client: Client) -> None:
    described = {tool.name: tool.description or "" for tool in client.tools()}
    assert described["memory_remember"].startswith("WRITES")
    assert described["memory_write"].startswith("WRITES")
    assert described["memory_forget"].startswith("DESTROYS")
    assert described["memory_read"].startswith("Read only")
    assert described["memory_health"].startswith("Read only")


def test_no_input_schema_offers_a_scope_and_every_one_forbids_extra_arguments(client: Client) -> None:
    for tool in client.tools():
        fields = set(tool.input_schema.get("properties", {}))
        assert not fields & {"user", "assistant", "session", "scope", "user_id", "assistant_id"}, tool.name
        assert tool.input_schema["additionalProperties"] is False, tool.name


# -- the tools -----------------------------------------------------------------------------------
def test_remember_stores_a_turn_that_a_query_then_finds(client: Client) -> None:
    stored = client.ok("memory_remember", {"text": "I deploy blyck with make release"})
    assert stored["version"] == 1 and stored["ref"] == f"{stored['memory_id']}@1"
    found = client.ok("memory_read", {"query": "how do I deploy blyck", "k": 3})
    assert found["run_id"]
    assert stored["ref"] in [hit["ref"] for hit in found["hits"]]
    hit = next(hit for hit in found["hits"] if hit["ref"] == stored["ref"])
    assert set(hit) == {"ref", "tier", "text", "score", "key", "kind"}
    assert hit["text"] == "I deploy blyck with make release"


def test_write_then_read_by_key_returns_the_record(client: Client) -> None:
    written = client.ok(
        "memory_write",
        {
            "key": "deploy:blyck",
            "body": "make release",
            "kind": "procedure",
            "confidence": 0.9,
            "proof": "exit 0",
        },
    )
    assert written["version"] == 1
    read = client.ok("memory_read", {"key": "deploy:blyck"})
    assert read["found"] is True
    record = read["record"]
    assert record["memory_id"] == written["memory_id"]
    assert (record["body"], record["kind"], record["version"], record["status"]) == (
        "make release",
        "procedure",
        1,
        "active",
    )
    assert (record["confidence"], record["proof"]) == (0.9, "exit 0")
    assert record["valid_from"]


def test_reading_a_missing_key_says_not_found(client: Client) -> None:
    assert client.ok("memory_read", {"key": "never:written"}) == {"found": False}


def test_read_needs_exactly_one_of_key_or_query(client: Client) -> None:
    for arguments in ({}, {"key": "deploy:blyck", "query": "blyck"}):
        result = client.call("memory_read", arguments)
        assert result.is_error and "exactly one of key" in text(result)


def test_bad_arguments_are_an_error_result_naming_the_field_not_the_value(client: Client) -> None:
    result = client.call("memory_write", {"key": "k:1", "body": "b", "confidence": "very-sure-xyzzy"})
    assert result.is_error
    assert "confidence" in text(result) and "xyzzy" not in text(result)


def test_an_unknown_tool_is_an_error_result(client: Client) -> None:
    result = client.call("memory_dump_everything")
    assert result.is_error and "unknown tool" in text(result)


# -- the fixed scope -----------------------------------------------------------------------------
def test_a_model_supplied_scope_argument_is_refused_and_reaches_nothing(client: Client) -> None:
    attempts: list[dict[str, Any]] = [
        {"query": "zephyrbank quokka", "user": "bob"},
        {"key": "bank:bob", "user": "bob", "assistant": "coder"},
        {"query": "marmalade", "assistant": "writer"},
        {"key": "bank:bob", "scope": {"user": "bob", "assistant": "coder"}},
        {"query": "quokka", "session": "bob-session"},
    ]
    for arguments in attempts:
        result = client.call("memory_read", arguments)
        assert result.is_error, arguments
        assert "fixed by the host" in text(result) and result.structured_content is None
        assert not any(word in text(result) for word in ("zephyrbank", "quokka", "marmalade"))
    others_untouched(client.db)


def test_alice_with_coder_sees_nothing_of_bob_or_of_her_other_assistant(client: Client) -> None:
    assert client.ok("memory_read", {"key": "bank:bob"}) == {"found": False}
    assert client.ok("memory_read", {"key": "style:alice"}) == {"found": False}
    for query in ("zephyrbank", "quokka", "marmalade prose"):
        assert client.ok("memory_read", {"query": query})["hits"] == []


def test_a_model_cannot_write_or_forget_in_another_scope(client: Client) -> None:
    write = client.call("memory_write", {"key": "bank:bob", "body": "hijacked", "user": "bob"})
    assert write.is_error and "fixed by the host" in text(write)
    forget = client.call("memory_forget", {"key_or_id": "bank:bob", "user": "bob"})
    assert forget.is_error and "fixed by the host" in text(forget)
    # Without the extra argument the key names alice's own record, which does not exist.
    absent = client.call("memory_forget", {"key_or_id": "bank:bob"})
    assert absent.is_error and "no such key or memory id in this scope" in text(absent)
    others_untouched(client.db)


# -- refusals and forgetting ---------------------------------------------------------------------
def test_a_secret_is_refused_by_the_no_store_rule_and_nothing_is_stored(client: Client) -> None:
    result = client.call("memory_remember", {"text": "my password is hunter2-Secret!"})
    assert result.is_error
    assert "no-store rule" in text(result) and "hunter2" not in text(result)
    assert "Traceback" not in text(result)
    for query in ("password", "hunter2"):
        hits = client.ok("memory_read", {"query": query})["hits"]
        assert not any("hunter2" in hit["text"] for hit in hits)


def test_forget_erases_a_record_and_forgetting_again_is_a_no_op(client: Client) -> None:
    client.ok("memory_write", {"key": "pet:alice", "body": "alice has a cat named pixel"})
    assert client.ok("memory_forget", {"key_or_id": "pet:alice", "reason": "user request"}) == {
        "erased_versions": 1
    }
    assert client.ok("memory_read", {"key": "pet:alice"}) == {"found": False}
    assert client.ok("memory_read", {"query": "pixel"})["hits"] == []
    assert client.ok("memory_forget", {"key_or_id": "pet:alice"}) == {"erased_versions": 0}


# -- health --------------------------------------------------------------------------------------
def test_health_returns_a_content_free_verdict(client: Client) -> None:
    client.ok("memory_write", {"key": "health:probe", "body": "the canary word is periwinkle"})
    health = client.ok("memory_health")
    assert set(health) == {"verdict", "counts", "receipts"}
    assert health["verdict"] in STATES
    assert set(health["counts"]) <= STATES and health["receipts"] > 0
    assert "periwinkle" not in text(client.call("memory_health"))


def test_health_without_the_auditor_is_an_error_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "auditor" else real(name, *a)
    )
    with pytest.raises(ToolFailure, match="auditor is not installed"):
        anyio.run(run_auditor, tmp_path / "memory.db", 5.0)


def test_health_reports_an_unreadable_store_as_an_error(tmp_path: Path) -> None:
    not_a_store = tmp_path / "memory.db"
    not_a_store.write_bytes(b"this is not sqlite")
    with pytest.raises(ToolFailure, match="could not read"):
        anyio.run(run_auditor, not_a_store, 30.0)


# -- launching -----------------------------------------------------------------------------------
def test_every_argument_has_help() -> None:
    parser = build_parser()
    assert parser.description
    for action in parser._actions:
        if not isinstance(action, argparse._HelpAction):
            assert action.help, action.dest


def test_an_invalid_scope_fails_at_launch_with_the_cli_exit_code_and_creates_no_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "memory.db"
    assert main(["--db", str(db), "--user", " ", "--assistant", "coder"]) == 2
    assert "user must not be empty" in capsys.readouterr().err
    assert not db.exists()


# -- strict arguments (issue 11, 22) ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("memory_read", {"query": "blyck", "k": "5"}, "k"),
        ("memory_read", {"query": "blyck", "k": True}, "k"),
        ("memory_read", {"query": "blyck", "k": 2.0}, "k"),
        ("memory_write", {"key": "k:1", "body": "b", "confidence": True}, "confidence"),
        ("memory_write", {"key": "k:1", "body": "b", "confidence": "1"}, "confidence"),
        ("memory_remember", {"text": 5}, "text"),
    ],
)
def test_arguments_are_not_coerced_as_the_python_api_does_not_coerce_them(
    client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    result = client.call(tool, arguments)
    assert result.is_error and f"{field}:" in text(result), text(result)


def test_an_empty_query_says_to_give_words_to_look_for(client: Client) -> None:
    result = client.call("memory_read", {"query": "   "})
    assert result.is_error and "query is empty: give the words to look for" in text(result)
    assert "remember" not in text(result)


def test_an_unknown_argument_to_health_is_named_without_blaming_the_scope(client: Client) -> None:
    result = client.call("memory_health", {"verbose": True})
    assert result.is_error
    assert "unexpected argument 'verbose': memory_health takes no arguments" in text(result)
    assert "scope" not in text(result)
    result = client.call("memory_read", {"query": "blyck", "limit": 3})
    assert "unexpected argument 'limit': memory_read takes key, query, k" in text(result)


# -- launching with a configuration (issue 11, 20) --------------------------------------------------
def test_the_config_file_given_at_launch_configures_the_store(tmp_path: Path) -> None:
    db, config = tmp_path / "memory.db", tmp_path / "config.json"
    config.write_text('{"stm_capacity": 2}')

    async def three_turns() -> None:
        with (tmp_path / "server.stderr").open("w", encoding="utf-8") as errlog:
            async with connect(db, errlog, "--config", str(config)) as session:
                for n in range(3):
                    result = await session.call_tool("memory_remember", {"text": f"turn {n} about kiwis"})
                    assert not result.is_error, text(result)

    anyio.run(three_turns)
    with memoryos.open(db) as memory:
        assert memory.status()["tiers"]["stm"] == 1  # capacity 2: the first two moved to MTM


def test_a_bad_config_file_fails_at_launch_with_the_cli_exit_code(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"stm_capacity": -1}')
    done = subprocess.run(
        [sys.executable, *server_command(tmp_path / "memory.db", "--config", str(config))],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "stm_capacity" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "memory.db").exists()


# -- every line gets an answer (issue 11, 21) -------------------------------------------------------
MALFORMED: dict[str, tuple[str, str | int | None, int]] = {
    # name: (line, the id the answer must carry, JSON-RPC error code)
    "not json": ("{nope", None, PARSE_ERROR),
    "a 5,000-digit id": (
        '{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"tools/list"}',
        None,
        INVALID_REQUEST,
    ),
    "a 5,000-digit argument": (
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_read",'
        '"arguments":{"query":"x","k":' + "9" * 5000 + "}}}",
        3,
        INVALID_REQUEST,
    ),
    "a lone surrogate": (
        '{"jsonrpc":"2.0","id":"s-4","method":"tools/call","params":{"name":"memory_remember",'
        '"arguments":{"text":"\\ud800"}}}',
        "s-4",
        INVALID_REQUEST,
    ),
    "deep nesting": (
        '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":' + "[" * 20000 + "]" * 20000 + "}",
        None,
        PARSE_ERROR,
    ),
    "an array": ("[]", None, INVALID_REQUEST),
    "a string": ('"tools/list"', None, INVALID_REQUEST),
    "no method": ('{"jsonrpc":"2.0","id":8}', 8, INVALID_REQUEST),
    "JSON-RPC 1.0": ('{"jsonrpc":"1.0","id":9,"method":"tools/list"}', 9, INVALID_REQUEST),
}


class RawSession:
    """JSON-RPC over a server's real stdin/stdout, one line at a time, with a timeout per reply."""

    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *server_command(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float = 30.0) -> dict[str, Any]:
        try:
            reply = json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            pytest.fail("no reply: the client would hang")
        assert isinstance(reply, dict)
        return reply

    def close(self) -> str:
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)
        self.process.stdout.close()
        with self.process.stderr:
            return self.process.stderr.read().decode(errors="replace")


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawSession]:
    session = RawSession(tmp_path_factory.mktemp("raw") / "memory.db")
    session.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
    )
    assert "result" in session.reply()
    session.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield session
    assert "Traceback" not in session.close()


@pytest.mark.parametrize("name", MALFORMED)
def test_every_malformed_line_gets_a_json_rpc_error_and_the_session_goes_on(
    raw: RawSession, name: str
) -> None:
    line, request_id, code = MALFORMED[name]
    raw.send(line)
    reply = raw.reply()
    assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id and reply["error"]["code"] == code
    assert "9999" not in reply["error"]["message"]  # fixed texts: nothing of the line comes back
    raw.send('{"jsonrpc":"2.0","id":"after","method":"tools/list"}')
    after = raw.reply()
    assert after["id"] == "after" and {tool["name"] for tool in after["result"]["tools"]} == TOOL_NAMES


def test_all_the_malformed_lines_in_one_burst_get_one_answer_each_in_order(raw: RawSession) -> None:
    for line, _, _ in MALFORMED.values():
        raw.send(line)
    assert [raw.reply()["id"] for _ in MALFORMED] == [request_id for _, request_id, _ in MALFORMED.values()]


def test_the_transport_answers_exactly_the_lines_the_sdk_would_drop() -> None:
    assert reply_for('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') is None
    assert reply_for("   ") is None  # a blank line is no request
    for line, request_id, code in MALFORMED.values():
        reply = reply_for(line)
        assert reply is not None and reply.id == request_id and reply.error.code == code


# -- the SDK it runs on (issue 11, 2) ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("installed", "problem"),
    [
        ("2.0.0", None),
        ("2.3.0", None),
        ("2.10.1rc1", None),
        ("1.30.0", "needs the MCP SDK 2.x (mcp>=2.0,<3) but mcp 1.30.0 is installed"),
        ("1.2.0", "but mcp 1.2.0 is installed: pip install 'mcp>=2.0,<3'"),
        ("3.0.0", "but mcp 3.0.0 is installed"),
        (None, "which is not installed: pip install 'mcp>=2.0,<3'"),
    ],
)
def test_the_sdk_version_check(installed: str | None, problem: str | None) -> None:
    found = sdk_problem(installed)
    assert found == problem if problem is None else (found is not None and problem in found)


def test_the_extra_pins_the_range_the_check_accepts_and_the_installed_sdk_is_in_it() -> None:
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["mcp"][0] == SUPPORTED
    assert SUPPORTED in project["optional-dependencies"]["test"]
    assert sdk_problem(installed_version()) is None


def test_with_the_1x_sdk_installed_memoryos_mcp_says_which_version_it_needs(tmp_path: Path) -> None:
    """A 1.x distribution first on the path (as after `pip install mcp==1.30.0`): its `mcp` package
    has no `mcp.server.context`, and its metadata says 1.30.0."""
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text("")
    info = tmp_path / "mcp-1.30.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp\nVersion: 1.30.0\n")
    done = subprocess.run(
        [sys.executable, *server_command(tmp_path / "memory.db")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=os.environ | {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "needs the MCP SDK 2.x (mcp>=2.0,<3) but mcp 1.30.0 is installed" in done.stderr
    assert "memoryos[mcp]" not in done.stderr and not (tmp_path / "memory.db").exists()
