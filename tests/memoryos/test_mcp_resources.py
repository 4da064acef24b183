"""The MCP resources (memory://topics, memory://drawer/{key}) through a real client session over
stdio: read in the server's scope only, and unknown or bad URIs refused with a readable error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from anyio.from_thread import start_blocking_portal
from mcp.shared.exceptions import MCPError
from mcp.types import TextResourceContents

import memoryos
from tests.memoryos.test_mcp import ALICE, BOB, Client, connect


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
    assert [str(r.uri) for r in resources] == ["memory://topics"]
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
