"""What a store location names: a `postgresql://` (or `postgres://`) URL, else a file path; and a URL
as messages may show it (server and database only: no user, no password)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | os.PathLike[str]) -> bool:
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def store_location(location: str | os.PathLike[str]) -> Path | str:
    """A URL as given (a Path would fold its `//`), anything else as a file path."""
    return location if isinstance(location, str) and is_url(location) else Path(location)


def describe(location: Path | str) -> str:
    """The location for output and messages: a URL without its user or password."""
    if not is_url(str(location)):
        return str(location)
    parts = urlsplit(str(location))
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{parts.hostname or 'localhost'}{port}{parts.path or '/'}"
