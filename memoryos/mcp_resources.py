"""The MCP resources of `memoryos mcp`: what a host can attach to a conversation without a tool call.

- `memory://topics`: the scope's topics, hottest first (as the memory_topics tool returns them).
- `memory://drawer/{key}`: the drawer record stored under `key` (percent-encoded), as memory_read.

Both are read in the scope of the request (the launch scope over stdio, the bearer token's grant over
HTTP), like the tools. Drawer records are offered as a template, not listed one by one: the library
has no call that lists a scope's keys, and a listing would be the one resource whose contents change,
so the server announces no list-changed notifications (the SDK supports them; there is nothing to
announce while the list holds one fixed resource).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

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

__all__ = ["DRAWER_PREFIX", "TOPICS_URI", "MemoryResources"]

TOPICS_URI = "memory://topics"
DRAWER_PREFIX = "memory://drawer/"
_JSON = "application/json"
TOPICS_LIMIT = 50


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
        topics = Resource(
            name="topics",
            title="Memory topics",
            uri=TOPICS_URI,
            description="What this scope's conversations have been about, hottest first (JSON).",
            mime_type=_JSON,
        )
        return ListResourcesResult(resources=[topics])

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
            raise MCPError(
                INVALID_PARAMS, "no verified bearer token: this server serves no memory without one"
            )
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
