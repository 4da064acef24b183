"""The MCP resources (memory://topics, memory://drawer/{key}) through a real client session over
stdio: read in the server's scope only, and unknown or bad URIs refused with a readable error."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import PaginatedRequestParams, ServerNotification, TextResourceContents

import memoryos
from memoryos.mcp_resources import PAGE
from tests.memoryos.test_mcp import ALICE, BOB, Client, connect, server_command


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    root = tmp_path_factory.mktemp("resources")
    db = root / "memory.db"
    with memoryos.open(db) as memory:
        memory.put(ALICE, "deploy:blyck", "alice ships blyck with make ship")
        memory.put(BOB, "bank:bob", "bob banks with zephyrbank")
        for i in range(12):  # past STM's capacity, so maintain() pages them into MTM topics
            memory.remember(BOB, f"bob planned the quokka migration, note {i}")
        for i in range(12):
            memory.remember(ALICE, f"alice planned the blyck release, note {i}")
        memory.maintain()
    with (
        (root / "server.stderr").open("w+", encoding="utf-8") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(db, errlog)) as session,
    ):
        yield Client(portal, session, db)


def read(client: Client, uri: str) -> dict[str, Any]:
    result = client.portal.call(client.session.read_resource, uri)
    (content,) = result.contents
    assert isinstance(content, TextResourceContents) and content.mime_type == "application/json"
    value = json.loads(content.text)
    assert isinstance(value, dict)
    return value


def test_the_server_lists_the_topics_resource_and_the_drawer_template(client: Client) -> None:
    resources = client.portal.call(client.session.list_resources).resources
    # alice's topics and her one drawer record; bob's bank:bob is not listed
    assert [str(r.uri) for r in resources] == ["memory://topics", "memory://drawer/deploy%3Ablyck"]
    assert resources[1].name == "deploy:blyck"
    templates = client.portal.call(client.session.list_resource_templates).resource_templates
    assert [t.uri_template for t in templates] == ["memory://drawer/{key}"]


def test_topics_resource_holds_this_scopes_topics_as_the_tool_does(client: Client) -> None:
    topics = read(client, "memory://topics")["topics"]
    assert topics and all("quokka" not in " ".join(t["keywords"]) for t in topics)
    tool = client.ok("memory_topics", {"limit": 50})["topics"]
    assert [t["segment_id"] for t in topics] == [t["segment_id"] for t in tool]


def test_drawer_resource_reads_a_record_of_this_scope_only(client: Client) -> None:
    record = read(client, "memory://drawer/" + quote("deploy:blyck"))
    assert record["found"] and record["record"]["body"] == "alice ships blyck with make ship"
    assert read(client, "memory://drawer/bank:bob") == {"found": False}  # bob's key, not alice's


@pytest.mark.parametrize("uri", ["memory://elsewhere", "memory://drawer/", "file:///etc/passwd"])
def test_an_unknown_resource_is_a_readable_error(client: Client, uri: str) -> None:
    with pytest.raises(MCPError, match="unknown resource"):
        client.portal.call(client.session.read_resource, uri)


def test_drawer_records_are_listed_page_by_page_and_announced_when_the_list_changes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "memory.db"
    with memoryos.open(db) as memory:
        for i in range(PAGE + 5):
            memory.put(ALICE, f"note:{i:04d}", f"note {i}")
        memory.put(BOB, "bank:bob", "bob banks with zephyrbank")
    seen: list[str] = []
    errlog = tmp_path / "server.stderr"

    async def heard(message: object) -> None:
        if isinstance(message, ServerNotification):
            seen.append(message.method)

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=server_command(db))
        async with (
            AsyncExitStack() as stack,
            stdio_client(params, errlog=stack.enter_context(errlog.open("w"))) as (read, write),
            ClientSession(read, write, message_handler=heard) as session,
        ):
            init = await session.initialize()
            assert init.capabilities.resources is not None and init.capabilities.resources.list_changed
            first = await session.list_resources()
            assert first.next_cursor is not None
            rest = await session.list_resources(params=PaginatedRequestParams(cursor=first.next_cursor))
            assert rest.next_cursor is None
            listed = [r.name for r in first.resources + rest.resources]
            assert listed == ["topics"] + [f"note:{i:04d}" for i in range(PAGE + 5)]
            assert seen == []
            await session.call_tool("memory_read", {"key": "note:0001"})
            await session.call_tool("memory_write", {"key": "new:key", "body": "x"})
            await session.call_tool("memory_forget", {"key_or_id": "note:0000"})
            with anyio.fail_after(10):
                while len(seen) < 2:
                    await anyio.sleep(0.01)
            assert seen == ["notifications/resources/list_changed"] * 2  # the read announced nothing
            names = [r.name for r in (await session.list_resources()).resources]
            assert "new:key" in names and "note:0000" not in names and "bank:bob" not in names
            with pytest.raises(MCPError, match="bad cursor"):
                await session.list_resources(params=PaginatedRequestParams(cursor="k" * 600))

    anyio.run(run)
    assert "Traceback" not in errlog.read_text()
