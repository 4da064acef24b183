"""What the shared SQL needs of a connection: the DB-API `execute`/`executemany` of sqlite3 with
`?` markers. sqlite3.Connection is one; the PostgreSQL backend wraps psycopg to be one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Connection(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...
