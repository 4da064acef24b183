"""The PostgreSQL server the tests use: MEMORYOS_TEST_POSTGRES (a libpq URL to a database the tests
may create databases from), default the machine's local server. Each test gets a database of its
own, dropped afterwards, so tests never see each other's rows."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def admin_url() -> str:
    return os.environ.get("MEMORYOS_TEST_POSTGRES", DEFAULT_ADMIN)


def fresh_database() -> str:
    """Create an empty database on the test server; return its URL."""
    import psycopg

    name = f"memoryos_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return database_url(name)


def database_url(name: str) -> str:
    """The admin URL with its database replaced by `name`."""
    admin = urlsplit(admin_url())
    if admin.scheme not in ("postgresql", "postgres"):
        raise RuntimeError("MEMORYOS_TEST_POSTGRES must be a postgresql:// URL")
    return urlunsplit(admin._replace(path="/" + name))


def drop_database(url: str) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A libpq connection string to a new, empty database, dropped after the test."""
    url = fresh_database()
    try:
        yield url
    finally:
        drop_database(url)
