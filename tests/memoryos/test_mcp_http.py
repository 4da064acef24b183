"""`memoryos mcp --http`: a real server process on a free loopback port, driven by the SDK's own
streamable HTTP client; the scope of every call is the bearer token's grant in the token file."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextResourceContents

import memoryos
from memoryos.mcp_http import _bind, is_loopback, parse_address
from memoryos.mcp_tokens import TokenFileError, add_token, hash_token, load_tokens

ALICE = memoryos.Scope(user="alice", assistant="coder")
BOB = memoryos.Scope(user="bob", assistant="coder")
START_SECONDS = 30.0


@dataclass
class HttpServer:
    url: str
    alice: str
    bob: str
    db: Path


def start(db: Path, tokens: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "memoryos", "mcp", "--db", str(db), "--tokens", str(tokens), *extra]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the server prints its URL once it listens
    if "listening on " not in line:
        proc.kill()
        raise AssertionError(f"the server did not start: {line}{proc.stderr.read()}")
    return proc, line.split("listening on ", 1)[1].strip()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("http")
    tokens = root / "tokens.jsonl"
    alice = add_token(tokens, "alice", "coder", "alice-laptop")
    bob = add_token(tokens, "bob", "coder")
    db = root / "memory.db"
    with memoryos.open(db) as mem:
        mem.put(ALICE, "deploy:blyck", "alice deploys blyck with make ship")
        mem.put(ALICE, "editor:alice", "alice edits in helix")
    proc, url = start(db, tokens, "--http", "127.0.0.1:0")
    try:
        yield HttpServer(url=url, alice=alice, bob=bob, db=db)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        assert proc.stderr is not None
        proc.stderr.close()


@asynccontextmanager
async def session(url: str, token: str | None, statuses: list[int] | None = None) -> Any:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}

    async def seen(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"response": [seen]}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def call(url: str, token: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def run() -> CallToolResult:
        async with session(url, token) as client:
            result = await client.call_tool(name, arguments)
            assert isinstance(result, CallToolResult)  # call_tool is overloaded: mypy sees Any
            return result

    return anyio.run(run)


def ok(url: str, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = call(url, token, name, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_the_right_token_reads_its_own_scope(server: HttpServer) -> None:
    found = ok(server.url, server.alice, "memory_read", {"key": "deploy:blyck"})
    assert found["found"] and found["record"]["body"] == "alice deploys blyck with make ship"


def test_a_second_tenant_cannot_see_the_first_tenants_memory(server: HttpServer) -> None:
    assert ok(server.url, server.bob, "memory_read", {"key": "deploy:blyck"}) == {"found": False}
    hits = ok(server.url, server.bob, "memory_read", {"query": "deploy blyck make ship"})["hits"]
    assert hits == []
    ok(server.url, server.bob, "memory_write", {"key": "deploy:blyck", "body": "bob ships by hand"})
    alice = ok(server.url, server.alice, "memory_read", {"key": "deploy:blyck"})["record"]["body"]
    assert alice == "alice deploys blyck with make ship"  # bob's write landed in bob's scope only
    with memoryos.open(server.db) as mem:
        record = mem.get(BOB, "deploy:blyck")
        assert record is not None and record.body == "bob ships by hand"


def test_a_scope_argument_is_refused_over_http_too(server: HttpServer) -> None:
    result = call(server.url, server.bob, "memory_read", {"key": "deploy:blyck", "user": "alice"})
    assert result.is_error and "fixed" in json.dumps([c.model_dump() for c in result.content])


def read_resource(url: str, token: str, uri: str) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with session(url, token) as client:
            (content,) = (await client.read_resource(uri)).contents
            assert isinstance(content, TextResourceContents)
            value = json.loads(content.text)
            assert isinstance(value, dict)
            return value

    return anyio.run(run)


def test_resources_are_read_in_the_tokens_scope(server: HttpServer) -> None:
    mine = read_resource(server.url, server.alice, "memory://drawer/editor:alice")
    assert mine["found"] and mine["record"]["body"] == "alice edits in helix"
    assert read_resource(server.url, server.bob, "memory://drawer/editor:alice") == {"found": False}


def listed(url: str, token: str) -> list[str]:
    async def run() -> list[str]:
        async with session(url, token) as client:
            return [r.name for r in (await client.list_resources()).resources]

    return anyio.run(run)


def test_http_announces_no_list_changed_it_could_not_deliver(server: HttpServer) -> None:
    async def run() -> Any:
        headers = {"Authorization": f"Bearer {server.alice}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(server.url, http_client=http) as (read, write),
            ClientSession(read, write) as client,
        ):
            return (await client.initialize()).capabilities.resources

    resources = anyio.run(run)
    assert resources is not None and not resources.list_changed


def test_resources_are_listed_in_the_tokens_scope(server: HttpServer) -> None:
    assert listed(server.url, server.alice)[:3] == ["topics", "deploy:blyck", "editor:alice"]
    assert "editor:alice" not in listed(server.url, server.bob)


@pytest.mark.parametrize("token", [None, "wrong-token", "Bearer"])
def test_no_token_or_a_wrong_one_gets_401_and_no_data(server: HttpServer, token: str | None) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "memory_read", "arguments": {"key": "deploy:blyck"}},
    }
    response = httpx2.post(server.url, headers=headers, json=body, timeout=30)
    assert response.status_code == 401
    assert "blyck" not in response.text and "alice" not in response.text
    assert response.json()["error"] == "invalid_token"


@pytest.mark.parametrize("token", [None, "not-a-granted-token"])
def test_the_sdk_client_without_a_granted_token_cannot_initialize(
    server: HttpServer, token: str | None
) -> None:
    statuses: list[int] = []

    async def run() -> None:
        async with session(server.url, token, statuses):
            raise AssertionError("initialized without a granted token")

    with pytest.raises(BaseExceptionGroup, match="TaskGroup") as caught:
        anyio.run(run)
    assert caught.group_contains(MCPError)
    assert statuses == [401]


def test_a_token_file_open_to_others_is_refused_before_listening(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.jsonl"
    add_token(tokens, "alice", "coder")
    os.chmod(tokens, 0o644)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memoryos",
            "mcp",
            "--db",
            str(tmp_path / "m.db"),
            "--tokens",
            str(tokens),
            "--http",
            "127.0.0.1:0",
        ],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "chmod 600" in done.stderr and "listening" not in done.stderr
    assert not (tmp_path / "m.db").exists()


def test_a_non_loopback_address_needs_allow_remote(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.jsonl"
    add_token(tokens, "alice", "coder")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memoryos",
            "mcp",
            "--db",
            str(tmp_path / "m.db"),
            "--tokens",
            str(tokens),
            "--http",
            "0.0.0.0:0",
        ],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "--allow-remote" in done.stderr and "listening" not in done.stderr


@pytest.mark.parametrize(
    "options",
    [
        ["--http", "127.0.0.1:0"],  # no token file
        ["--http", "127.0.0.1:0", "--tokens", "t.jsonl", "--user", "alice"],  # a scope beside tokens
        ["--user", "alice", "--assistant", "coder", "--tokens", "t.jsonl"],  # tokens without --http
        ["--assistant", "coder"],  # stdio without --user
    ],
)
def test_mcp_options_that_do_not_go_together_are_refused(tmp_path: Path, options: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memoryos", "mcp", "--db", str(tmp_path / "m.db"), *options],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode != 0 and "memoryos mcp" in done.stderr and "Traceback" not in done.stderr


def test_tokens_are_stored_hashed_and_looked_up_by_hash(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.jsonl"
    token = add_token(tokens, "alice", "coder", "laptop")
    assert token not in tokens.read_text() and hash_token(token) in tokens.read_text()
    assert oct(tokens.stat().st_mode & 0o777) == "0o600"
    table = load_tokens(tokens)
    grant = table.lookup(token)
    assert grant is not None and (grant.user, grant.assistant, grant.label) == ("alice", "coder", "laptop")
    assert table.lookup(token + "x") is None and table.lookup("") is None


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        '["a"]',
        '{"sha256": "abc", "user": "alice", "assistant": "coder"}',
        '{"sha256": "' + "0" * 64 + '", "user": "", "assistant": "coder"}',
    ],
)
def test_a_bad_token_line_is_refused_with_its_line_number(tmp_path: Path, line: str) -> None:
    tokens = tmp_path / "tokens.jsonl"
    tokens.write_text("# comment\n" + line + "\n")
    tokens.chmod(0o600)
    with pytest.raises(TokenFileError, match="line 2"):
        load_tokens(tokens)


def test_an_empty_or_missing_token_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TokenFileError, match="no token file"):
        load_tokens(tmp_path / "absent.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    empty.chmod(0o600)
    with pytest.raises(TokenFileError, match="grants no token"):
        load_tokens(empty)


def test_the_socket_listens_before_the_url_is_printed_and_is_tcp_for_nodelay() -> None:
    sock = _bind("127.0.0.1", 0)
    try:
        # a client may connect the moment it reads the URL (before uvicorn starts): it must not be refused
        socket.create_connection(sock.getsockname(), timeout=5).close()
        # asyncio sets TCP_NODELAY only on sockets whose proto is TCP; with 0, each call paid ~40 ms
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_addresses() -> None:
    assert parse_address("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_address("[::1]:0") == ("::1", 0)
    for bad in ("8765", "127.0.0.1:", "host:99999", ":80"):
        with pytest.raises(memoryos.InvalidInput):
            parse_address(bad)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.1") and not is_loopback("example.com")


def test_a_granted_id_the_store_would_refuse_stops_the_server_before_listening(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.jsonl"
    add_token(tokens, "u" * 100_000, "coder")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memoryos",
            "mcp",
            "--db",
            str(tmp_path / "m.db"),
            "--tokens",
            str(tokens),
            "--http",
            "127.0.0.1:0",
        ],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "user" in done.stderr and "listening" not in done.stderr
    assert "Traceback" not in done.stderr and "u" * 100 not in done.stderr  # the id is not echoed


def test_another_tenants_session_id_does_not_carry_its_scope(server: HttpServer) -> None:
    base = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    alice = httpx2.post(
        server.url, headers={**base, "authorization": f"Bearer {server.alice}"}, json=hello, timeout=30
    )
    session_id = alice.headers["mcp-session-id"]
    read = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "memory_read", "arguments": {"key": "editor:alice"}},
    }
    headers = {
        **base,
        "authorization": f"Bearer {server.bob}",
        "mcp-session-id": session_id,
        "mcp-protocol-version": "2025-06-18",
    }
    stolen = httpx2.post(server.url, headers=headers, json=read, timeout=30)
    assert "helix" not in stolen.text  # refused, or answered in bob's scope: never alice's record
