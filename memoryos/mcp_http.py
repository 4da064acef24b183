"""The streamable HTTP transport of `memoryos mcp --http HOST:PORT`: one store, many tenants.

Over stdio the host fixes one scope at launch. Over HTTP each request carries a bearer token, which
the SDK's `BearerAuthBackend` hands to `FileTokenVerifier`; the token file (memoryos.mcp_tokens)
maps the token's hash to one user with one assistant, and that grant is the scope of every tool
call on the request. A request without a token, or with one the file does not grant, is answered
401 by the SDK's `RequireAuthMiddleware` before any MCP message is read. The scope is read from the
request the tool call arrived on (`ctx.request`), not from a context variable, so a session can
never act for a token other than the one on the request in hand.

Loopback only unless `allow_remote`: a token crosses the network in clear text unless a TLS proxy
fronts the server, so binding elsewhere is a deliberate choice that is warned about.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import logging
import socket
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import ServerRequestContext
from pydantic import AnyHttpUrl
from starlette.applications import Starlette

import memoryos
from memoryos.errors import InvalidInput
from memoryos.mcp_server import MemoryTools, build_server
from memoryos.mcp_server import _launch_scope as launch_scope
from memoryos.mcp_tokens import TokenFile, TokenTable

__all__ = [
    "FileTokenVerifier",
    "build_http_app",
    "is_loopback",
    "parse_address",
    "scope_of_request",
    "serve_http",
]

MCP_PATH = "/mcp"
log = logging.getLogger("memoryos.mcp")


class FileTokenVerifier:
    """The SDK's TokenVerifier over an operator's token file (memoryos.mcp_tokens)."""

    def __init__(self, table: TokenTable | TokenFile) -> None:
        self.table = table  # a TokenFile is read again when it changes; a TokenTable is fixed

    async def verify_token(self, token: str) -> AccessToken | None:
        grant = self.table.lookup(token)
        if grant is None:
            return None
        return AccessToken(
            token=grant.digest,  # the hash, not the token: nothing downstream needs the secret
            client_id=grant.label,
            scopes=[],
            subject=f"{grant.user}/{grant.assistant}",  # the SDK binds a session to its principal
            claims={"user": grant.user, "assistant": grant.assistant},
        )


def scope_of_request(ctx: ServerRequestContext[dict[str, Any]]) -> memoryos.Scope | None:
    """The scope granted to the verified token of the HTTP request this call came on, or None."""
    request: Any = ctx.request
    user = request.scope.get("user") if request is not None else None
    if not isinstance(user, AuthenticatedUser):
        return None
    claims = user.access_token.claims or {}
    return memoryos.Scope(user=str(claims["user"]), assistant=str(claims["assistant"]))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 in brackets, port 0 for any free one) -> (host, port); InvalidInput otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise InvalidInput(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765, not {text!r}")
    return host.strip("[]"), int(port)


def build_http_app(tools: MemoryTools, table: TokenTable | TokenFile, host: str, port: int) -> Starlette:
    rule = "The memory scope (user, assistant) is the one your bearer token was granted by the operator."
    # No list-changed over HTTP: JSON responses leave no stream to carry one (mcp_resources).
    server = build_server(tools, scope_of=scope_of_request, scope_rule=rule, list_changed=False)
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,  # one JSON answer a call: no tool streams, and it is the cheaper path
        host=host,  # loopback: the SDK's DNS-rebinding protection (Host and Origin checked)
        auth=AuthSettings(issuer_url=AnyHttpUrl(f"http://{host}:{port}"), resource_server_url=None),
        token_verifier=FileTokenVerifier(table),
    )


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every response pays Nagle against the client's delayed ACK (~40 ms a call).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)  # listening before the URL is printed: a client may connect at once
    except OSError as exc:
        sock.close()
        raise InvalidInput(
            f"cannot listen on {host}:{port} ({exc.strerror}): choose another --http port"
        ) from None
    return sock


def serve_http(
    db: str,
    address: str,
    token_file: str,
    *,
    allow_remote: bool = False,
    config: memoryos.Config | None = None,
) -> None:
    """Serve the store over streamable HTTP at `address` until interrupted; each request's scope is
    its bearer token's grant in `token_file`. Prints the URL on stderr once listening."""
    host, port = parse_address(address)
    if not is_loopback(host):
        if not allow_remote:
            raise InvalidInput(
                f"{host} is not a loopback address: pass --allow-remote to serve other machines"
                " (and front the server with TLS: bearer tokens travel in clear text over HTTP)"
            )
        print(
            f"memoryos mcp: WARNING: serving {host}, reachable from other machines; bearer tokens travel in"
            " clear text unless a TLS proxy fronts this server",
            file=sys.stderr,
        )

    def check(table: TokenTable) -> None:  # every granted id checked, as stdio checks its one scope
        for grant in table.grants:
            launch_scope(grant.user, grant.assistant, None, config)

    table = TokenFile(token_file, check)  # refused before the store is opened or the port bound
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    with memoryos.open(db, config=config) as memory:
        app = build_http_app(MemoryTools(memory, None), table, host, bound)
        # access_log off: a line a request would be a cost on every call and says nothing a metric
        # does not; the SDK's own warnings and errors still reach stderr.
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
        shown = f"[{host}]" if ":" in host else host
        print(f"memoryos mcp: listening on http://{shown}:{bound}{MCP_PATH}", file=sys.stderr, flush=True)
        anyio.run(lambda: server.serve(sockets=[sock]), backend_options=_loop_options())


def _loop_options() -> dict[str, Any]:
    """uvloop when it is installed (the `mcp` extra installs it off Windows): its event loop is the
    cheaper one per request; the stock asyncio loop otherwise."""
    return {"use_uvloop": importlib.util.find_spec("uvloop") is not None}
