"""The MCP resources of `memoryos mcp`: what a host can attach to a conversation without a tool call.

- `memory://topics`: the scope's topics, hottest first (as the memory_topics tool returns them).
- `memory://drawer/{key}`: the drawer record stored under `key` (percent-encoded), as memory_read.

Both are read in the scope of the request (the launch scope over stdio, the bearer token's grant over
HTTP), like the tools. `resources/list` lists the topics, then every drawer record the scope holds
now (`Memory.keys()`), `PAGE` a page, in key order; the cursor is the last key of the page (the
caller's own key, handed back to it only). The template stays for hosts that build a URI.

List-changed: when a tool call adds or removes a key (memory_write of a new key, memory_forget),
the server sends `notifications/resources/list_changed` to the connection that made the call, and
to no other: a notification to another session would tell it that some scope wrote, so one
scope's output would depend on another's. Keys that lapse by their ttl change the list silently
(a client re-lists when it needs a fresh one). Delivery is the SDK's: over stdio it arrives; over
streamable HTTP in JSON-response mode there is no stream for it, and at protocol 2026-07-28 change
notifications travel only on `subscriptions/listen`, whose bus is server-wide, so this server
does not serve it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, unquote

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextResourceContents,
)

import memoryos

__all__ = ["DRAWER_PREFIX", "PAGE", "TOPICS_URI", "MemoryResources", "drawer_uri"]

TOPICS_URI = "memory://topics"
DRAWER_PREFIX = "memory://drawer/"
_JSON = "application/json"
_NO_TOKEN = "no verified bearer token: this server serves no memory without one"
TOPICS_LIMIT = 50
PAGE = 200


def drawer_uri(key: str) -> str:
    return DRAWER_PREFIX + quote(key, safe="")


class MemoryResources:
    """Resource handlers over one store; `scope_of` gives each request's scope (None: refuse)."""

    def __init__(self, memory: memoryos.Memory, scope_of: Any, topic: Any, record: Any) -> None:
        self.memory = memory
        self.scope_of = scope_of
        self.topic = topic  # the tools' serialisers: a resource reads as the matching tool answers
        self.record = record

    async def list_resources(
        self, ctx: ServerRequestContext[dict[str, Any]], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        scope = self.scope_of(ctx)
        if scope is None:
            raise MCPError(INVALID_PARAMS, _NO_TOKEN)
        cursor = params.cursor if params is not None else None
        topics = Resource(
            name="topics",
            title="Memory topics",
            uri=TOPICS_URI,
            description="What this scope's conversations have been about, hottest first (JSON).",
            mime_type=_JSON,
        )
        try:
            keys = self.memory.keys(scope, after=cursor, limit=PAGE)
        except memoryos.MemoryOSError as exc:
            raise MCPError(INVALID_PARAMS, f"bad cursor: pass the next_cursor of a listing ({exc})") from None
        drawer = [
            Resource(name=key, title=f"Drawer record {key}", uri=drawer_uri(key), mime_type=_JSON)
            for key in keys
        ]
        return ListResourcesResult(
            resources=([] if cursor else [topics]) + drawer,
            next_cursor=keys[-1] if len(keys) == PAGE else None,
        )

    async def list_templates(
        self, ctx: ServerRequestContext[dict[str, Any]], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        drawer = ResourceTemplate(
            name="drawer-record",
            title="Drawer record",
            uri_template=DRAWER_PREFIX + "{key}",
            description="The keyed record stored under key (percent-encoded), or found=false (JSON).",
            mime_type=_JSON,
        )
        return ListResourceTemplatesResult(resource_templates=[drawer])

    async def read(
        self, ctx: ServerRequestContext[dict[str, Any]], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        scope = self.scope_of(ctx)
        if scope is None:
            raise MCPError(INVALID_PARAMS, _NO_TOKEN)
        uri = str(params.uri)
        try:
            content = self._content(scope, uri)
        except memoryos.MemoryOSError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        text = json.dumps(content, sort_keys=True)
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type=_JSON, text=text)])

    def _content(self, scope: memoryos.Scope, uri: str) -> dict[str, Any]:
        if uri == TOPICS_URI:
            return {"topics": [self.topic(t) for t in self.memory.topics(scope, limit=TOPICS_LIMIT)]}
        if uri.startswith(DRAWER_PREFIX) and len(uri) > len(DRAWER_PREFIX):
            found = self.memory.get(scope, unquote(uri.removeprefix(DRAWER_PREFIX)))
            return {"found": False} if found is None else {"found": True, "record": self.record(found)}
        raise MCPError(
            INVALID_PARAMS, f"unknown resource: the resources are {TOPICS_URI} and {DRAWER_PREFIX}{{key}}"
        )
