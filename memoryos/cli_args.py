"""Argument types of `memoryos` options: argparse turns a refusal into a usage error (exit 2) that
names the option, in the command's words, before any store is opened."""

from __future__ import annotations

import argparse
import math

DAY_SECONDS = 86_400.0


def _seconds(text: str, *, what: str, highest: float) -> float:
    """A finite number of seconds in (0, highest]: argparse turns the refusal into a usage error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number: give {what}") from None
    if not (math.isfinite(value) and 0 < value <= highest):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give {what}")
    return value


def seconds_between_passes(text: str) -> float:
    return _seconds(text, what="a positive number of seconds up to a day, e.g. 5", highest=DAY_SECONDS)


def ttl_seconds(text: str) -> float:
    what = "a positive number of seconds under 1e11 (to drop a memory now, use `memoryos forget`)"
    return _seconds(text, what=what, highest=1e11)


def pass_count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: give 0 (run until ^C) or more")
    return int(text)


#: The options of `memoryos mcp`: the scope over stdio, or HTTP with the scope from bearer tokens.
MCP_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, object]], ...] = (
    (("--user",), {"help": "stdio: the user whose memory this server serves (fixed; required)"}),
    (("--assistant",), {"help": "stdio: the assistant whose memory this is (fixed; required)"}),
    (("--session",), {"help": "stdio: the session id recorded with what this server stores (optional)"}),
    (
        ("--http",),
        {
            "metavar": "HOST:PORT",
            "help": "serve streamable HTTP here instead of stdio (e.g. 127.0.0.1:8765; port 0: any free one);"
            " each request's scope is its bearer token's grant in --tokens",
        },
    ),
    (("--tokens",), {"help": "HTTP: the owner-only token file (JSON lines; see memoryos.mcp_tokens)"}),
    (
        ("--allow-remote",),
        {"action": "store_true", "help": "HTTP: allow a non-loopback address (put TLS in front of it)"},
    ),
)
