"""What a write costs on the wire, and what the optimistic seal and the per-key lock guarantee.

Round trips are counted from libpq's protocol trace (a client message after a server one is a new
round trip), not from the store's own counter: a load-independent cost that bench/bench_postgres.py
reports beside its timings."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg

import memoryos
from memoryos import failpoints
from memoryos.store.postgres import PostgresStore
from receipts import ZERO_HASH, link_hash, parse_line, uuid7
from tests.memoryos.store_contract import receipt_draft, unit
from tests.pg_server import pg_url

__all__ = ["pg_url"]
SCOPE = memoryos.Scope(user="u", assistant="a")


def _store(url: str) -> PostgresStore:
    store = PostgresStore(url, durability="full", busy_timeout_ms=5000, clock=lambda: datetime.now(UTC))
    store.bind_receipts("chain", b"k" * 32)
    return store


class Trace:
    """Every connection the store's pool hands out is traced into one file while counting."""

    def __init__(self, store: PostgresStore) -> None:
        fd, self.path = tempfile.mkstemp(prefix="memoryos-trace-")
        os.close(fd)
        self.conns: list[psycopg.Connection[Any]] = []
        pool = store._pool
        assert pool is not None
        handed = pool.getconn

        def getconn(*args: Any, **kwargs: Any) -> psycopg.Connection[Any]:
            conn = handed(*args, **kwargs)
            if all(conn is not c for c in self.conns):
                self.conns.append(conn)
                conn.pgconn.trace(os.open(self.path, os.O_WRONLY | os.O_APPEND))
            return conn

        pool.getconn = getconn  # type: ignore[method-assign]

    def round_trips(self) -> int:
        return self.counts()[0]

    def counts(self) -> tuple[int, int]:
        """(round trips, statements executed: Query and Execute messages) of the traced calls."""
        for conn in self.conns:
            if not conn.closed:
                conn.pgconn.untrace()  # flushes the trace file
        self.conns.clear()
        count, statements, previous = 0, 0, "B"
        with open(self.path, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                fields = line.split("\t")
                side, message = (fields[1], fields[3]) if line[:1].isdigit() else (fields[0], fields[2])
                if side in ("F", "B"):
                    count += side == "F" and previous == "B"
                    statements += side == "F" and message in ("Query", "Execute")
                    previous = side
        os.unlink(self.path)
        return count, statements


@contextmanager
def traced(store: PostgresStore) -> Iterator[Trace]:
    pool = store._pool
    assert pool is not None
    handed = pool.getconn
    trace = Trace(store)
    try:
        yield trace
    finally:
        pool.getconn = handed  # type: ignore[method-assign]


def test_remember_costs_two_round_trips(pg_url: str) -> None:
    with memoryos.open(pg_url, heat_threshold=1e12) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        for n in range(3):  # the chain head row made, the statements prepared: the steady state
            mem.remember(memoryos.Scope(user=f"warm-{n}", assistant="a"), "a turn before counting")
        with traced(store) as trace:
            mem.remember(SCOPE, "the second turn: its insert, then its receipt with the COMMIT")
        assert trace.round_trips() == 2


def test_a_full_stm_promotion_costs_three_round_trips(pg_url: str) -> None:
    """The claim with the open segments read ahead (ReadAhead), the segments' lock with their last
    pages, then the pages, the grown segments and the receipts with the COMMIT: five before."""
    with memoryos.open(pg_url, heat_threshold=1e12, stm_capacity=4) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        for n in range(8):  # two promotions: the second one places pages into an existing segment
            mem.remember(SCOPE, f"turn {n} about the kiwi orchard harvest")
        key = mem._scopes(SCOPE)
        for n in range(4):
            with store.write("fill") as tx:
                body = f"kiwi orchard harvest {n}"
                turn = unit(body=body, user_scope=key.user, assistant_scope=key.assistant)
                tx.insert_unit(turn)
        with store.read() as tx:
            turns = tx.stm_turns(key.user, key.assistant)
        with traced(store) as trace:
            outcome = mem.promoter.promote_turns(turns, mem._now())
        assert outcome.promoted == 4
        assert trace.round_trips() == 3


def _promotion_cost(mem: memoryos.Memory, store: PostgresStore, user: str, turns: int) -> tuple[int, int]:
    key = mem._scopes(memoryos.Scope(user=user, assistant="a"))
    with store.write("fill") as tx:
        for n in range(turns):
            tx.insert_unit(
                unit(body=f"kiwi orchard harvest {n}", user_scope=key.user, assistant_scope=key.assistant)
            )
    with store.read() as tx:
        full = tx.stm_turns(key.user, key.assistant)
    with traced(store) as trace:
        assert mem.promoter.promote_turns(full, mem._now()).promoted == turns
    return trace.counts()


def test_a_promotion_sends_as_many_statements_for_seven_turns_as_for_two(pg_url: str) -> None:
    """Pages, lineage and receipts go one statement per kind of row, not one per turn: psycopg's
    work per statement is most of a promotion's client CPU."""
    with memoryos.open(pg_url, heat_threshold=1e12) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        _promotion_cost(mem, store, "warm", 3)  # the statements prepared: the steady state
        assert _promotion_cost(mem, store, "two", 2) == _promotion_cost(mem, store, "seven", 7)


def test_a_read_transaction_costs_its_statements_and_one_more(pg_url: str) -> None:
    store = _store(pg_url)
    with traced(store) as trace, store.read() as tx:
        tx.outbox_head()
    assert trace.round_trips() == 2  # BEGIN goes with the statement; ROLLBACK with the last Sync
    store.close()


def _chain(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT seq, body FROM receipt_outbox ORDER BY seq").fetchall()
        head = conn.execute("SELECT seq, link FROM receipt_chains").fetchall()
    previous = ZERO_HASH
    for number, (seq, body) in enumerate(rows, 1):
        line = parse_line(bytes(body), "t", seq)
        assert line is not None and line.receipt is not None
        assert line.receipt["seq"] == number and line.receipt["prev"] == previous
        previous = link_hash(line.receipt)
    assert head == [(len(rows), previous)]
    return [int(seq) for seq, _ in rows]


def test_a_seal_a_rival_got_ahead_of_is_done_again_on_the_locked_head(pg_url: str) -> None:
    """The writer read the chain head at seq 1 on its first round trip; a rival commits seq 2
    before the writer commits: its optimistic seal (seq 2) is refused by the outbox and sealed
    again on the locked head (seq 3). Nothing fails, nothing is lost, the chain stays whole."""
    store, rival = _store(pg_url), _store(pg_url)
    with store.write("first") as tx:
        tx.insert_unit(unit())
        tx.emit(receipt_draft(uuid7()))
    with store.write("store") as tx:
        tx.insert_unit(unit(body="the writer's turn"))  # its round trip read the head: seq 1
        with rival.write("store") as other:
            other.insert_unit(unit(body="the rival's turn", user_scope="c" * 32))  # not our stats row
            other.emit(receipt_draft(uuid7()))
        tx.emit(receipt_draft(uuid7()))
    assert store.seal_conflicts == 1 and rival.seal_conflicts == 0
    assert _chain(pg_url) == [1, 2, 3]
    with store.read() as tx:
        assert len(tx.stm_turns(unit().user_scope, unit().assistant_scope)) == 2
    store.close()
    rival.close()


def test_a_writer_that_finds_a_rival_in_flight_seals_on_the_locked_head(pg_url: str) -> None:
    """A rival has written and not committed when the writer's first round trip reads the chain
    head: the rival commits first (seq 2), and the writer, which saw it in flight, seals on the
    locked head at once (seq 3) instead of guessing seq 2 and sealing again. No seal had been lost
    before, so an estimate made of lost seals would have guessed."""
    store, rival = _store(pg_url), _store(pg_url)
    with store.write("first") as tx:
        tx.emit(receipt_draft(uuid7()))
    with ExitStack() as rivals:
        other = rivals.enter_context(rival.write("store"))
        other.insert_unit(unit(body="the rival's turn", user_scope="c" * 32))  # in flight: it has written
        with store.write("store") as tx:
            tx.insert_unit(unit(body="the writer's turn"))  # its round trip saw the rival in flight
            other.emit(receipt_draft(uuid7()))
            rivals.close()  # the rival commits first: seq 2
            tx.emit(receipt_draft(uuid7()))
    assert store.seal_conflicts == 0  # sealed on the locked head: seq 3 at once
    assert store.optimistic_seals == 0  # and "first" read no head to guess on
    assert (rival.seal_conflicts, rival.optimistic_seals) == (0, 1)  # nobody was in flight for it
    assert _chain(pg_url) == [1, 2, 3]
    store.close()
    rival.close()


def test_readers_and_other_applications_in_flight_are_no_rivals(pg_url: str) -> None:
    """Only memoryos writers of the same database count: a read transaction holds no xid, and a
    connection of another application writes nothing of the chain."""
    store, reader = _store(pg_url), _store(pg_url)
    with store.write("first") as tx:
        tx.emit(receipt_draft(uuid7()))
    with (
        psycopg.connect(pg_url, application_name="someone-else") as stranger,
        reader.read() as snapshot,
    ):
        snapshot.outbox_head()
        stranger.execute("CREATE TABLE elsewhere (n INT)")  # in a transaction that holds an xid
        with store.write("store") as tx:
            tx.insert_unit(unit(body="the writer's turn"))
            tx.emit(receipt_draft(uuid7()))
        stranger.rollback()
    assert (store.seal_conflicts, store.optimistic_seals) == (0, 1)
    assert _chain(pg_url) == [1, 2]
    store.close()
    reader.close()


def test_a_seal_that_waited_for_the_rival_holding_the_head_is_done_again(pg_url: str) -> None:
    """The rival holds the chain head locked (it sealed on it, FOR UPDATE) and sits at its
    failpoint; the writer's optimistic seal waits for that lock, then finds its seq taken. The
    answer comes after a wait, split over reads: still the taken seq, never a pipeline error."""
    store, rival = _store(pg_url), _store(pg_url)
    with store.write("first") as tx:
        tx.emit(receipt_draft(uuid7()))
    failpoints.arm("store.before_commit=1*sleep(1500)")
    errors: list[BaseException] = []

    def rival_write() -> None:
        try:
            with rival.write("store") as other:
                other.emit(receipt_draft(uuid7()))  # no statement before: sealed on the locked head
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        with store.write("mine") as tx:
            tx.insert_unit(unit(body="the writer's turn"))  # its round trip read the head: seq 1
            thread = threading.Thread(target=rival_write)
            thread.start()
            time.sleep(0.5)  # the rival has locked the head and sleeps at its failpoint
            tx.emit(receipt_draft(uuid7()))
        thread.join()
    finally:
        failpoints.arm("")
    assert errors == []
    assert store.seal_conflicts == 1
    assert _chain(pg_url) == [1, 2, 3]
    store.close()
    rival.close()


def test_writers_of_one_key_at_once_take_turns(pg_url: str) -> None:
    """Four processes' worth of writers put one key at the same moment: each put lands as the next
    version of one record (no unique violation, no second record for the key)."""
    writers, puts = 4, 5
    with memoryos.open(pg_url):
        pass
    start = threading.Barrier(writers)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            with memoryos.open(pg_url) as mem:
                start.wait()
                for i in range(puts):
                    mem.put(SCOPE, "favourite fruit", f"writer {n} likes fruit number {i}")
        except BaseException as exc:  # reported below, with the others
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with memoryos.open(pg_url) as mem:
        versions = mem.history(SCOPE, "favourite fruit")
        assert mem.check() == []
    assert [v.version for v in versions] == list(range(1, writers * puts + 1))
    assert len({v.memory_id for v in versions}) == 1
