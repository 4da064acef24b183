"""What a write sends, statement by statement: the chain head is read once per transaction (by
remember()'s own insert), grown segments are one statement, and the rival probe leaves no lock
behind. Statements are counted from libpq's protocol trace (test_round_trips.Trace) or, where the
statement itself matters, from what the transaction queues: both load-independent costs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import psycopg
import pytest

import memoryos
from memoryos.errors import StoreError
from memoryos.store import postgres_tx
from memoryos.store.postgres import PostgresStore
from memoryos.store.rows import Segment
from memoryos.store.sql_common import CommonRows
from receipts import uuid7
from tests.memoryos.store_contract import ASSISTANT, USER, receipt_draft, unit
from tests.pg_server import pg_url
from tests.postgres.test_round_trips import SCOPE, _store, traced

__all__ = ["pg_url"]


@contextmanager
def queued() -> Iterator[list[str]]:
    """The SQL of every statement the store's transactions queue while inside."""
    statements: list[str] = []
    original = postgres_tx.Marked._send

    def send(self: postgres_tx.Marked, sent: postgres_tx.Sent) -> postgres_tx.Sent:
        statements.append(sent.sql)
        return original(self, sent)

    postgres_tx.Marked._send = send  # type: ignore[method-assign]
    try:
        yield statements
    finally:
        postgres_tx.Marked._send = original  # type: ignore[method-assign]


def _head_reads(statements: list[str]) -> int:
    """Unlocked reads of the chain head: not the locked one, nor the seal's update, nor the insert
    that makes the chain's row."""
    locked = "FROM receipt_chains WHERE chain_id = %s FOR UPDATE"
    writes = ("WITH head", "INSERT INTO receipt_chains")
    return sum(
        "receipt_chains" in sql and locked not in sql and not sql.startswith(writes) for sql in statements
    )


def test_remember_sends_five_statements(pg_url: str) -> None:
    """BEGIN, the insert (which also counts the scope's STM and reads the chain head and the
    rivals), then SAVEPOINT, the seal and COMMIT: the head read was a sixth statement."""
    with memoryos.open(pg_url, heat_threshold=1e12) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        for n in range(3):  # the chain head row made, the statements prepared: the steady state
            mem.remember(memoryos.Scope(user=f"warm-{n}", assistant="a"), "a turn before counting")
        with traced(store) as trace:
            mem.remember(SCOPE, "a turn: its insert reads the chain head, its receipt goes with COMMIT")
        assert trace.counts() == (2, 5)
        assert store.optimistic_seals >= 1 and store.seal_conflicts == 0  # the head it read was used


def test_a_promotion_reads_the_chain_head_once(pg_url: str) -> None:
    """A promotion emits its receipts early, and every round trip after that read the head again
    (three reads, the last one used): now only its first round trip reads it, in its claim, and
    its pages and their lineage are one statement: 14 statements are 10."""
    with memoryos.open(pg_url, heat_threshold=1e12, stm_capacity=4) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        for n in range(7):  # one promotion before: the next one places pages into its segment
            mem.remember(SCOPE, f"turn {n} about the kiwi orchard harvest")
        guessed = store.optimistic_seals
        with queued() as statements:
            mem.remember(SCOPE, "the turn that fills STM: remember() promotes it")
        promotion = statements[statements.index("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") + 3 :]
        assert promotion[0] == "BEGIN ISOLATION LEVEL READ COMMITTED"
        assert any("UPDATE units SET" in sql for sql in promotion)  # it did promote
        assert _head_reads(statements) == 2  # remember()'s insert, then the promotion's claim
        assert _head_reads(promotion) == 1
        assert len(promotion) == 10
        assert (store.optimistic_seals - guessed, store.seal_conflicts) == (2, 0)  # both reads were used


def test_grown_segments_are_one_statement(pg_url: str) -> None:
    """Three segments grown cost what one does (one UPDATE per segment before), and each grows
    as the shared way grows it."""
    store = _store(pg_url)
    segments = [Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 3, 2, 3, 4, 1, 1) for _ in range(3)]
    with store.write("store") as tx:
        for segment in segments:
            tx.put_segment(segment)

    def grow(chosen: list[Segment]) -> int:
        with traced(store) as trace, store.write("grow") as tx:
            tx.grow_segments([(s.segment_id, {"rust": 3, "cargo": 1}, 2) for s in chosen])
        return trace.counts()[1]

    assert grow(segments[:1]) == grow(segments) == 3  # BEGIN, the update, COMMIT
    with store.read() as tx:
        first, *rest = (tx.segment(s.segment_id) for s in segments)
        assert tx.segment_keywords(segments[1].segment_id) == {"rust": 3, "cargo": 1}
    assert first is not None and (first.interactions, first.version, first.pages) == (6, 5, 4)
    assert [(s.interactions, s.version, s.pages) for s in rest if s] == [(4, 3, 2)] * 2
    store.close()


def test_a_segment_named_twice_grows_twice(pg_url: str) -> None:
    store = _store(pg_url)
    segment = Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 3, 2, 3, 4, 1, 1, True)
    with store.write("store") as tx:
        tx.put_segment(segment)
    with store.write("grow") as tx:
        tx.grow_segments([(segment.segment_id, {"rust": 3}, 2), (segment.segment_id, {"rust": 4}, 1)])
    with store.read() as tx:
        grown = tx.segment(segment.segment_id)
    assert grown is not None and (grown.interactions, grown.version, grown.pages) == (5, 4, 3)
    store.close()


def _advisory_locks(url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT objid, mode, pid FROM pg_locks WHERE locktype = 'advisory'"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        ).fetchall()
    return [tuple(r) for r in rows]


def test_a_writer_is_told_of_a_rival_in_flight_without_any_advisory_lock(pg_url: str) -> None:
    """The rival count takes no lock: a second writer is told of the first one in flight (it
    seals on the locked head), and no advisory lock is held then, after commit, or after a
    transaction that failed."""
    store, rival = _store(pg_url), _store(pg_url)
    with store.write("first") as tx:
        tx.emit(receipt_draft(uuid7()))
    with store.write("store") as tx:
        tx.insert_unit(unit(body="the writer's turn"))
        with rival.write("store") as other:
            other.insert_unit(unit(body="the rival's turn", user_scope="c" * 32))
            assert _advisory_locks(pg_url) == []
            other.emit(receipt_draft(uuid7()))
        tx.emit(receipt_draft(uuid7()))
    assert rival.optimistic_seals == 0  # it was told of the writer in flight
    assert _advisory_locks(pg_url) == []
    try:
        with store.write("store") as tx:
            tx.insert_unit(unit(body="a turn of a transaction that fails"))
            raise RuntimeError("the caller fails mid-transaction")
    except RuntimeError:
        pass
    assert _advisory_locks(pg_url) == []
    store.close()
    rival.close()


def _segment(pages: int) -> Segment:
    return Segment(uuid7(), USER, ASSISTANT, {"rust": 2}, "summary", 3, 2, 3, 4, 1, 1, pages=pages)


def test_the_open_segments_are_read_ahead_with_the_claim(pg_url: str) -> None:
    """A promotion's claim also reads the open segments under the page limit its store's last
    promotion asked with: answered from that read, as the shared statement answers, when nothing
    was sent in between; read again when something was (it may have changed them)."""
    store = _store(pg_url)
    turn = unit(body="a turn to claim")
    with store.write("store") as tx:
        tx.insert_unit(turn)
        for pages in (1, 4, 9):
            tx.put_segment(_segment(pages))
    store._ahead.max_pages = 5
    with store.write("claim") as tx:
        assert list(tx.stm_rowids(USER, ASSISTANT, [turn.memory_id])) == [turn.memory_id]
        trips = tx._conn.round_trips
        heads = tx.open_segment_heads(USER, ASSISTANT, 5)
        assert tx._conn.round_trips == trips  # answered by the read sent with the claim
        assert sorted(heads, key=str) == sorted(
            CommonRows.open_segment_heads(tx, USER, ASSISTANT, 5), key=str
        )
        assert sorted(h.pages or 0 for h in heads) == [1, 4]
        tx.stm_rowids(USER, ASSISTANT, [turn.memory_id])
        tx.put_segment(_segment(2))  # a statement after the claim: the read ahead is stale
        assert sorted(h.pages or 0 for h in tx.open_segment_heads(USER, ASSISTANT, 5)) == [1, 2, 4]
    store.close()


def test_a_turn_gone_from_stm_fails_the_promotion_at_its_commit(pg_url: str) -> None:
    """The pages go with the COMMIT, and the server counts the turns they moved: a promotion that
    moved fewer than it claimed fails as a StoreError saying so, and nothing of it is written."""
    store = _store(pg_url)
    turn = unit(body="a turn to promote")
    with store.write("store") as tx:
        rowid = tx.insert_unit(turn)
    page = replace(turn, memory_id=uuid7(), tier="mtm", segment_id="s", derived_from=(f"{turn.memory_id}@1",))
    gone = replace(page, memory_id=uuid7())
    moved_fewer = pytest.raises(StoreError, match="a turn left STM during its own promotion")
    with moved_fewer, store.write("promote") as tx:
        tx.turn_into_pages([(rowid, page), (rowid + 1000, gone)])  # no STM turn has that rowid
        tx.emit(receipt_draft(uuid7()))
    with store.read() as tx:
        assert [u.memory_id for u in tx.stm_turns(USER, ASSISTANT)] == [turn.memory_id]
        assert tx.units_by_ids([page.memory_id]) == []
    store.close()
