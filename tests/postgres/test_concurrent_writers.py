"""Several writer processes on one PostgreSQL store: every acknowledged turn is stored once, and
the receipts form one chain whose seq is gapless and in commit order (DESIGN §3)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import psycopg

import memoryos
from receipts import ZERO_HASH, link_hash, parse_line
from tests.pg_server import pg_url

__all__ = ["pg_url"]

WRITERS, TURNS = 4, 25

WRITER = textwrap.dedent(
    """
    import sys, memoryos
    url, name, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with memoryos.open(url, stm_capacity=8) as mem:
        for i in range(turns):
            scope = memoryos.Scope(user=f"u{i % 2}", assistant="a")  # writers share scopes
            mem.remember(scope, f"{name} says turn {i} about kiwi orchards")
            print(f"{name}:{i}", flush=True)
    """
)


def test_concurrent_writer_processes_get_one_gapless_chain(pg_url: str) -> None:
    with memoryos.open(pg_url):  # made once, so the writers race on writes, not on creation
        pass
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, pg_url, f"w{n}", str(TURNS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    acknowledged = []
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err[-2000:]
        acknowledged.extend(out.split())
    assert len(acknowledged) == WRITERS * TURNS

    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT seq, body FROM receipt_outbox ORDER BY seq").fetchall()
        head = conn.execute("SELECT seq, link FROM receipt_chains").fetchall()
    receipts = [line.receipt for seq, body in rows if (line := parse_line(bytes(body), "t", seq))]
    assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1))  # gapless
    assert all(r is not None for r in receipts)
    previous = ZERO_HASH
    for number, receipt in enumerate(receipts, 1):
        assert receipt is not None and receipt["seq"] == number and receipt["prev"] == previous
        previous = link_hash(receipt)
    assert head == [(len(rows), previous)]  # the chain head row is the last receipt's link

    stored = [r for r in receipts if r and (r["boundary"], r["status"]) == ("store", "committed")]
    assert len(stored) == len({r["memoryId"] for r in stored}) == WRITERS * TURNS  # each turn once
    with memoryos.open(pg_url) as mem:
        assert mem.check() == []
