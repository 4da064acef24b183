"""Every tool's `outputSchema`, and the new tools (context, topics, history, correct), through a real
client session over stdio: each `structuredContent` is validated with jsonschema against the schema
the server declares for that tool."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test extra
import pytest
from anyio.from_thread import start_blocking_portal

import memoryos
from tests.memoryos.test_mcp import ALICE, BOB, Client, connect, text

SCHEMA_CHECKER = jsonschema.Draft202012Validator


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    root = tmp_path_factory.mktemp("schemas")
    db = root / "memory.db"
    with memoryos.open(db) as memory:
        memory.put(BOB, "deploy:blyck", "bob deploys blyck by hand")
        memory.remember(BOB, "bob likes the quokka release train")
        for i in range(6):
            memory.remember(ALICE, f"alice talked about the blyck release, note {i}")
        memory.maintain()
    with (
        (root / "server.stderr").open("w+", encoding="utf-8") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(db, errlog)) as session,
    ):
        yield Client(portal, session, db)
    assert "Traceback" not in (root / "server.stderr").read_text(encoding="utf-8")


def checked(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's structured result, validated against the outputSchema the server lists for it."""
    schema = next(tool.output_schema for tool in client.tools() if tool.name == name)
    assert schema is not None, f"{name} declares no outputSchema"
    SCHEMA_CHECKER.check_schema(schema)
    result = client.ok(name, arguments)
    SCHEMA_CHECKER(schema).validate(result)
    return result


def test_every_tool_declares_a_valid_object_output_schema(client: Client) -> None:
    for tool in client.tools():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
        SCHEMA_CHECKER.check_schema(tool.output_schema)
        assert tool.output_schema.get("additionalProperties") is False, tool.name


def test_every_tools_structured_content_validates_against_its_schema(client: Client) -> None:
    written = checked(client, "memory_write", {"key": "deploy:blyck", "body": "alice ships with make ship"})
    checked(client, "memory_remember", {"text": "we moved the blyck deploy to friday"})
    checked(client, "memory_read", {"key": "deploy:blyck"})
    checked(client, "memory_read", {"key": "no:such"})
    checked(client, "memory_read", {"query": "blyck deploy"})
    checked(client, "memory_context", {"query": "how does alice deploy blyck?"})
    checked(client, "memory_topics", {})
    corrected = checked(client, "memory_correct", {"key_or_id": "deploy:blyck", "body": "make ship-all"})
    assert corrected["memory_id"] == written["memory_id"] and corrected["version"] == written["version"] + 1
    checked(client, "memory_history", {"key": "deploy:blyck"})
    checked(client, "memory_health", {})
    checked(client, "memory_write", {"key": "tmp:x", "body": "scratch"})
    checked(client, "memory_forget", {"key_or_id": "tmp:x"})


def test_a_schema_that_drifted_from_the_output_would_be_caught(client: Client) -> None:
    schema = next(tool.output_schema for tool in client.tools() if tool.name == "memory_write")
    assert schema is not None
    with pytest.raises(jsonschema.ValidationError):
        SCHEMA_CHECKER(schema).validate({"memory_id": "m", "version": 1, "extra": True})
    with pytest.raises(jsonschema.ValidationError):
        SCHEMA_CHECKER(schema).validate({"memory_id": "m", "version": "1"})


def test_context_is_the_prompt_block_of_this_scope_only(client: Client) -> None:
    client.ok("memory_write", {"key": "editor:alice", "body": "alice edits in helix"})
    block = client.ok("memory_context", {"query": "which editor does alice use? editor:alice"})
    assert "helix" in block["text"] and block["refs"] and block["tokens"] > 0
    assert "bob deploys blyck by hand" not in block["text"] and "quokka" not in block["text"]
    small = client.ok("memory_context", {"query": "blyck release", "budget_tokens": 1})
    assert small["tokens"] <= 1


def test_topics_are_this_scopes_segments(client: Client) -> None:
    topics = client.ok("memory_topics", {"limit": 5})["topics"]
    assert topics and len(topics) <= 5
    assert all("quokka" not in " ".join(t["keywords"]) for t in topics)  # bob's topic is not here


def test_history_lists_every_version_with_the_correction_reason(client: Client) -> None:
    client.ok("memory_write", {"key": "plan:q3", "body": "ship in july"})
    client.ok("memory_correct", {"key_or_id": "plan:q3", "body": "ship in august", "reason": "slipped"})
    versions = client.ok("memory_history", {"key": "plan:q3"})["versions"]
    assert [v["body"] for v in versions] == ["ship in july", "ship in august"]
    assert [v["version"] for v in versions] == [1, 2] and versions[1]["reason"] == "slipped"
    assert client.ok("memory_history", {"key": "never:written"}) == {"versions": []}


def test_correct_reaches_only_this_scopes_record(client: Client) -> None:
    with memoryos.open(client.db) as memory:
        bob_id = memory.get(BOB, "deploy:blyck")
    assert bob_id is not None
    result = client.call("memory_correct", {"key_or_id": bob_id.memory_id, "body": "hijacked"})
    assert result.is_error
    with memoryos.open(client.db) as memory:
        bob = memory.get(BOB, "deploy:blyck")
        assert bob is not None and bob.body == "bob deploys blyck by hand" and bob.version == 1


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        ("memory_context", {"query": "x", "budget_tokens": "5"}, "budget_tokens"),
        ("memory_context", {"query": "x", "k": 0}, "k"),
        ("memory_context", {"query": "   "}, "empty"),
        ("memory_context", {"query": "x", "user": "bob"}, "fixed"),
        ("memory_topics", {"limit": True}, "limit"),
        ("memory_topics", {"limit": 1001}, "limit"),
        ("memory_history", {}, "key"),
        ("memory_history", {"key": "a", "assistant": "writer"}, "fixed"),
        ("memory_correct", {"key_or_id": "plan:q3"}, "body"),
        ("memory_correct", {"key_or_id": "plan:q3", "body": "x", "version": 3}, "unexpected argument"),
    ],
)
def test_new_tools_take_strict_arguments(
    client: Client, name: str, arguments: dict[str, Any], problem: str
) -> None:
    result = client.call(name, arguments)
    assert result.is_error and problem in text(result)
    assert result.structured_content is None


def test_correcting_a_missing_record_is_a_readable_error(client: Client) -> None:
    result = client.call("memory_correct", {"key_or_id": "no:such:key", "body": "x"})
    assert result.is_error and "internal error" not in text(result)


def _record(**changes: Any) -> dict[str, Any]:
    record = {
        "memory_id": "m",
        "ref": "r",
        "key": "k",
        "body": "b",
        "kind": "fact",
        "version": 1,
        "status": "active",
        "confidence": 0.5,
        "proof": None,
        "valid_from": "2026-01-01T00:00:00+00:00",
        "valid_until": None,
    }
    return record | changes


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ({"found": False}, True),
        ({"found": True, "record": _record()}, True),
        ({"found": None, "record": None, "run_id": None, "hits": None}, True),
        ({"found": True, "record": _record(proof="seen", valid_until="2027-01-01")}, True),
        ({"found": "yes"}, False),
        ({"found": True, "record": _record(proof=3)}, False),
        ({"found": True, "record": _record(extra=1)}, False),
        ({"found": True, "record": {"key": "k"}}, False),
        ({"hits": [{"ref": "r", "tier": "mtm", "text": "t", "score": 1.0, "key": None, "kind": None}]}, True),
        ({"hits": [{"ref": "r"}]}, False),
        ({"hits": "none"}, False),
    ],
)
def test_the_compact_output_schema_means_what_pydantics_does(value: dict[str, Any], valid: bool) -> None:
    from memoryos.mcp_schemas import ReadOutput, output_schema

    compact, full = output_schema(ReadOutput), ReadOutput.model_json_schema()
    assert "$defs" not in compact and "anyOf" not in repr(compact) and "$ref" not in repr(compact)
    for schema in (compact, full):
        assert SCHEMA_CHECKER(schema).is_valid(value) is valid
