"""The schemas of the MCP tools: each tool's arguments (enforced as published) and its output.

Arguments are pydantic models with `extra="forbid"` and `strict=True`: the JSON Schema a model sees
is the one that is enforced, `additionalProperties: false` included. Outputs are models too; their
JSON Schema is each tool's `outputSchema`, and every `structuredContent` the server returns is
validated against it by the tests (tests/memoryos/test_mcp_schemas.py), so the two cannot drift.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from memoryos import validation
from memoryos.memory import MAX_K

MAX_CONTEXT_TOKENS = 100_000
MAX_TOPICS = 1000


# -- arguments: one model per tool; the schema the model sees is the one that is enforced ---------
class _Arguments(BaseModel):
    # strict: "5" is not an int and true is not a number, as in the Python API (no coercion)
    model_config = ConfigDict(extra="forbid", strict=True)


class RememberArguments(_Arguments):
    text: str = Field(description="the turn to remember, verbatim")
    role: str = Field("user", description=f"who said it: {', '.join(sorted(validation.ROLES))}")


class WriteArguments(_Arguments):
    key: str = Field(description="the record's key, e.g. 'deploy:blyck'")
    body: str = Field(description="the record's content")
    kind: str = Field("fact", description=f"one of {', '.join(sorted(validation.DRAWER_KINDS))}")
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="how sure, from 0 to 1")
    proof: str | None = Field(None, description="evidence for the record, e.g. 'exit 0'")


class ReadArguments(_Arguments):
    key: str | None = Field(None, description="an exact key; give this or query, not both")
    query: str | None = Field(None, description="a search over every tier; give this or key, not both")
    k: int = Field(5, ge=1, le=MAX_K, description="how many hits a query returns at most")


class ForgetArguments(_Arguments):
    key_or_id: str = Field(description="the key or memory id to erase")
    reason: str = Field("user request", description="a short code kept in receipts, e.g. 'user request'")


class HealthArguments(_Arguments):
    pass


class ContextArguments(_Arguments):
    query: str = Field(description="what the next turn is about: the block holds what memory knows of it")
    budget_tokens: int = Field(
        1000, ge=1, le=MAX_CONTEXT_TOKENS, description="the block's size, ~4 chars a token"
    )
    k: int = Field(20, ge=1, le=MAX_K, description="how many recalled memories are considered at most")


class TopicsArguments(_Arguments):
    limit: int = Field(10, ge=1, le=MAX_TOPICS, description="how many topics, hottest first")


class HistoryArguments(_Arguments):
    key: str = Field(description="the record's key: every version of it, oldest first")


class CorrectArguments(_Arguments):
    key_or_id: str = Field(description="the key or memory id of the record to correct")
    body: str = Field(description="the corrected content: a new version; the old one stays in history")
    reason: str | None = Field(None, description="why, kept with the version, e.g. 'user correction'")


# -- outputs: the outputSchema of each tool ---------------------------------------------------------
class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StoredOutput(_Output):
    memory_id: str
    version: int
    ref: str


class WrittenOutput(_Output):
    memory_id: str
    version: int


class RecordOutput(_Output):
    memory_id: str
    ref: str
    key: str
    body: str
    kind: str
    version: int
    status: str
    confidence: float
    proof: str | None
    valid_from: str = Field(description="ISO 8601")
    valid_until: str | None = Field(description="ISO 8601, or null while it holds")


class VersionOutput(RecordOutput):
    reason: str | None = Field(description="why this version was written, if given")


class HitOutput(_Output):
    ref: str
    tier: str
    text: str
    score: float
    key: str | None
    kind: str | None


class ReadOutput(_Output):
    """By key: `found`, and `record` when found. By query: `run_id` and `hits`."""

    found: bool | None = None
    record: RecordOutput | None = None
    run_id: str | None = None
    hits: list[HitOutput] | None = None


class ForgetOutput(_Output):
    erased_versions: int


class HealthOutput(_Output):
    verdict: str
    counts: dict[str, int]
    receipts: int


class ContextOutput(_Output):
    run_id: str = Field(description="cite it with the refs when the answer used the block")
    text: str = Field(description="the prompt block: whole memories only, within the budget")
    refs: list[str]
    tokens: int


class TopicOutput(_Output):
    segment_id: str
    summary: str = Field(description="empty until the first maintain() after the topic began")
    keywords: list[str]
    pages: int
    heat: float
    stale: bool
    degraded: bool


class TopicsOutput(_Output):
    topics: list[TopicOutput]


class HistoryOutput(_Output):
    versions: list[VersionOutput]


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in the form a client validates fastest, meaning the same: `$ref`s
    inlined and `X | None` written `"type": [X, "null"]` rather than `anyOf` (the MCP SDK's client
    validates every result; with `anyOf` and `$ref`, that took about 0.4 ms of a 5-hit read)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    return cast(dict[str, Any], _compact(schema, definitions))


def _compact(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_compact(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions[node["$ref"].removeprefix("#/$defs/")]
        return _compact({**target, **{k: v for k, v in node.items() if k != "$ref"}}, definitions)
    node = {key: _compact(value, definitions) for key, value in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        (kept,) = [b for b in branches if b != {"type": "null"}]
        if isinstance(kept.get("type"), str):  # null satisfies every other keyword of `kept`
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return {**kept, **rest, "type": [kept["type"], "null"]}
    return node
