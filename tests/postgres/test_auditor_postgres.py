"""The auditor reads a PostgreSQL store: in a read-only transaction, under a role of its own that
may only read the outbox, and it tells deleted newest receipts by the chain head row."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

import memoryos
from auditor import audit
from tests.pg_server import pg_url

__all__ = ["pg_url"]
SCOPE = memoryos.Scope(user="u", assistant="a")


def _filled(url: str) -> bytes:
    with memoryos.open(url, stm_capacity=4) as mem:
        for i in range(6):
            mem.remember(SCOPE, f"turn {i} about kiwi orchards")
        return mem.key


@pytest.fixture
def auditor_url(pg_url: str) -> Iterator[str]:
    """A login role that may read the outbox and the chain head, nothing else."""
    role = f"memoryos_auditor_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        parts = urlsplit(pg_url)
        yield urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname}:{parts.port or 5432}"))
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
        with psycopg.connect(make_conninfo(pg_url, dbname="postgres"), autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_the_auditor_verifies_a_postgres_store_with_the_key_it_holds(pg_url: str) -> None:
    _filled(pg_url)
    report = audit([], stores=[pg_url])
    assert report.receipts > 6 and report.macs.verified
    assert any("matches the outbox" in note for note in report.notes)
    assert report.verdict in ("healthy", "waiting")


def test_deleted_newest_receipts_are_found_by_the_chain_head(pg_url: str) -> None:
    key = _filled(pg_url)
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM receipt_outbox WHERE seq = (SELECT max(seq) FROM receipt_outbox)")
    report = audit([], stores=[pg_url], key=key)
    assert report.verdict == "uncertain"


def test_the_auditors_own_role_reads_in_a_read_only_transaction(pg_url: str, auditor_url: str) -> None:
    key = _filled(pg_url)
    role = urlsplit(auditor_url).username
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'GRANT SELECT ON receipt_outbox, receipt_chains TO "{role}"')
    without_key = audit([], stores=[auditor_url])
    assert not without_key.macs.verified and "cannot read the receipt key" in str(without_key.macs.reason)
    given = audit([], stores=[auditor_url], key=key)
    assert given.macs.verified and given.receipts == without_key.receipts > 6


def test_a_store_whose_receipt_times_run_backwards_is_audited_not_refused(pg_url: str) -> None:
    """Two writers with skewed clocks leave receipts whose times disagree with their seq: the
    auditor leaves the streaming pass for the sorted one, which once read the URL as a file path
    ('no such file: postgresql:/...') and exited 2 instead of auditing."""
    from datetime import UTC, datetime

    from memoryos.testing import FakeClock

    for start in (datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 5, 1, tzinfo=UTC)):
        with memoryos.open(pg_url, stm_capacity=4, clock=FakeClock(start)) as mem:
            for i in range(3):
                mem.remember(SCOPE, f"turn {i} about kiwi orchards")
    report = audit([], stores=[pg_url], now=datetime(2026, 6, 2, tzinfo=UTC))
    assert report.mode in ("sorted", "exact") and report.macs.verified
    assert report.receipts >= 6
