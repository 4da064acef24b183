"""Which MCP SDK `memoryos mcp` runs on, checked before the SDK is imported.

The server is written against the 2.x SDK (`mcp.server.context`, `on_call_tool` callbacks,
snake_case types); 1.x lacks those modules, so importing the server on 1.x fails with an
ImportError that says nothing useful. The check reads the installed version from its metadata and
says what to install.
"""

from __future__ import annotations

import importlib.metadata
import re

from memoryos.errors import InvalidInput

#: What the server needs; pyproject.toml's `mcp` extra pins the same range (a test compares them).
SUPPORTED = "mcp>=2.0,<3"
SUPPORTED_MAJOR = 2


def sdk_problem(installed: str | None) -> str | None:
    """Why an installed SDK version cannot run the server, or None when it can (pure)."""
    if installed is None:
        return f"the MCP server needs the MCP SDK, which is not installed: pip install '{SUPPORTED}'"
    major = re.match(r"\d+", installed)
    if major is None or int(major.group()) != SUPPORTED_MAJOR:
        return (
            f"the MCP server needs the MCP SDK 2.x ({SUPPORTED}) but mcp {installed} is installed:"
            f" pip install '{SUPPORTED}'"
        )
    return None


def installed_version() -> str | None:
    try:
        return importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return None


def require_sdk() -> None:
    """Raise InvalidInput, saying what to install, unless the installed SDK can run the server."""
    installed = installed_version()
    problem = sdk_problem(installed)
    if problem is not None:
        raise InvalidInput(problem)
    try:
        import mcp.server.context  # noqa: F401  (the module 1.x lacks: the server needs it)
    except ImportError as exc:
        raise InvalidInput(
            f"the MCP SDK (mcp {installed}) cannot be imported ({exc}):"
            f" pip install --force-reinstall '{SUPPORTED}'"
        ) from None
