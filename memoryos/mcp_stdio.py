"""The stdio transport of `memoryos mcp`: the SDK's, plus an answer to every line it cannot read.

The SDK's stdio transport (`mcp.server.stdio.stdio_server`, 2.0 to 2.3) parses each line with
pydantic; when that fails it hands the exception to the session, which logs it at debug level and
answers nothing (`JSONRPCDispatcher._dispatch`). A line that is not JSON, or that pydantic refuses
although Python's json reads it (an integer of thousands of digits, a lone surrogate escape such as
`\\ud800`, nesting deeper than its recursion limit, a batch), therefore gets no reply, and a client
that sent a request on it waits forever. JSON-RPC 2.0 says such a request gets an error: -32700
(parse error) when the line is not JSON, -32600 (invalid request) otherwise, with the request's id
when it can be read and null when not.

So the server hands the SDK a filtered stdin: lines the SDK can read pass through unchanged, in
order; for any other line the error is written through the SDK's own write stream (one writer, so
frames never interleave) and the line goes no further. The messages are fixed texts: the line is
the caller's data and may hold a secret. Blank lines carry no request and are skipped.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter

__all__ = ["MAX_ID_DIGITS", "reply_for", "stdio_transport"]

#: Integers longer than this are not read as an id (Python refuses ints over 4300 digits anyway).
MAX_ID_DIGITS = 30
_PARSE = "Parse error: the line is not JSON this server can read"
_INVALID = (
    "Invalid Request: not a JSON-RPC 2.0 message this server accepts (one object per line; integers"
    " within 64 bits, strings of valid Unicode, nesting within limits)"
)


def _bounded_int(digits: str) -> int | None:
    return int(digits) if len(digits.lstrip("-")) <= MAX_ID_DIGITS else None


def _request_id(value: Any) -> str | int | None:
    request_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return request_id


def reply_for(line: str) -> JSONRPCError | None:
    """None when the SDK reads `line` as a message (or it is blank); else the error that answers it."""
    if not line.strip():
        return None
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except Exception:  # whatever the SDK's parser refuses, it would drop: answer it here instead
        pass
    try:
        value = json.loads(line, parse_int=_bounded_int)
    except (ValueError, RecursionError):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=_PARSE))
    error = ErrorData(code=INVALID_REQUEST, message=_INVALID)
    return JSONRPCError(jsonrpc="2.0", id=_request_id(value), error=error)


async def _checked_lines(
    lines: AsyncIterator[str], replies: ObjectSendStream[JSONRPCError]
) -> AsyncIterator[str]:
    async with replies:
        async for line in lines:
            reply = reply_for(line)
            if reply is not None:
                await replies.send(reply)
            elif line.strip():
                yield line


async def _forward(
    replies: ObjectReceiveStream[JSONRPCError], write: Callable[[Any], Awaitable[None]]
) -> None:
    async with replies:
        async for reply in replies:
            await write(SessionMessage(reply))


@asynccontextmanager
async def stdio_transport() -> AsyncIterator[tuple[Any, Any]]:
    """`stdio_server()`'s (read, write) streams over this process's stdin and stdout, with every
    line the SDK would drop answered by a JSON-RPC error."""
    # As the SDK does: UTF-8 whatever the locale, undecodable bytes replaced (then refused as JSON).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    send_replies, receive_replies = anyio.create_memory_object_stream[JSONRPCError](16)
    lines = _checked_lines(cast(AsyncIterator[str], anyio.wrap_file(stdin)), send_replies)
    try:
        async with (
            stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream),
            anyio.create_task_group() as replies,
        ):
            replies.start_soon(_forward, receive_replies, write_stream.send)
            yield read_stream, write_stream
            replies.cancel_scope.cancel()
    finally:
        stdin.detach()  # the buffer is sys.stdin's: leave it open for the rest of the process
