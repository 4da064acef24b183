"""PostgreSQL benchmark (issue 14): memoryos on PostgreSQL against raw psycopg baselines on the same
server, interleaved in one run; medians over --runs.

- remember() p50 vs a raw INSERT+COMMIT of the same row into a table shaped like `units` (its
  columns, defaults and indexes: `LIKE units INCLUDING ALL`), at each --sizes stored turns; the p50 at
  the largest size over the smallest is the flatness figure;
- full-STM promotion vs a raw one-transaction move (insert the pages, delete the turns, append one
  receipt of the same size per page);
- recall() p95 vs the raw SQL ranking query (a tsvector GIN index, `@@` and `ts_rank`, top 10) over
  the same --recall-size pages of one scope;
- scale-out: aggregate remember() throughput of --writers processes on one store over one writer's,
  PostgreSQL and SQLite side by side;
- seal (not run by default): the receipt seal policy, one writer and --writers writers of this
  code, of this code sealing only on the locked chain head, and of another checkout (--seal-base
  FOLDER, e.g. `git archive main | tar -x -C FOLDER`), interleaved round by round;
- LangGraph's PostgresStore (langgraph-checkpoint-postgres) on the same server beside memoryos's
  LangGraph store on PostgreSQL: put and search p50 for the same records and queries.

Every store is a new database on --db (a URL of a database the benchmark may create databases
from; default $MEMORYOS_TEST_POSTGRES, else the local server), dropped afterwards; except the
recall corpus with --recall-db URL, which is kept and filled only when empty (a later run reuses
it; the fill is most of the recall section's time).

    python bench/bench_postgres.py                                     # 10k/100k, recall at 100k
    python bench/bench_postgres.py --sizes 10000,1000000 --only remember   # flatness at 1M
    python bench/bench_postgres.py --sizes 2000,5000 --recall-size 5000 --runs 1 --samples 50 \\
        --seconds 2 --records 100 --out ''                                 # a quick smoke run
    python bench/bench_postgres.py --only seal --runs 5 --out '' --seal-base /tmp/main  # seal policies
    python bench/bench_postgres.py --only recall --out '' \
        --recall-db postgresql://postgres@127.0.0.1:5432/recall_corpus    # fill once, rerun cheaply
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson
import psycopg
from bench_core import RECEIPT_BYTES, TOPICS, WORDS, bench_clock, fill, percentile, sentence, timed, user_turn

import memoryos
from receipts import uuid7

SECTIONS = ("remember", "promotion", "recall", "scaleout", "seal", "langgraph")
DEFAULT_SECTIONS = tuple(s for s in SECTIONS if s != "seal")  # seal compares policies: asked for by name
DEFAULT_SERVER = os.environ.get("MEMORYOS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


# -- databases ------------------------------------------------------------------------------------------
@contextmanager
def database(server: str) -> Iterator[str]:
    """A new database on the server for one measurement; dropped afterwards."""
    name = f"memoryos_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server)._replace(path="/" + name))
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def open_store(url: str, **overrides: Any) -> memoryos.Memory:
    return memoryos.open(url, clock=bench_clock(), heat_threshold=1e12, **overrides)


def raw_connection(url: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(url)
    conn.execute("CREATE TABLE IF NOT EXISTS raw_units (LIKE units INCLUDING ALL)")
    conn.execute("CREATE TABLE IF NOT EXISTS raw_receipts (seq bigint PRIMARY KEY, body bytea NOT NULL)")
    conn.commit()
    return conn


# -- remember() and the raw INSERT+COMMIT ---------------------------------------------------------------
RAW_INSERT = (
    "INSERT INTO raw_units (memory_id, version, tier, user_scope, assistant_scope, body, created_at,"
    " valid_from, last_seen, run_id) VALUES (%s, 1, 'stm', 'raw', 'raw', %s, 0, 0, 0, %s)"
)


def raw_insert(conn: psycopg.Connection[Any], rng: random.Random) -> None:
    conn.execute(RAW_INSERT, (uuid7(), sentence(rng), uuid7()))
    conn.commit()


def round_trips(mem: memoryos.Memory) -> int:
    """The store's round trips to the server so far (PostgresStore counts them per transaction)."""
    return int(getattr(mem.store, "round_trips", 0))


def measure_remember(
    mem: memoryos.Memory, raw: psycopg.Connection[Any], samples: int, rng: random.Random
) -> tuple[float, float, float]:
    """Interleaved one by one, so machine noise hits both sides alike; p50 of each, and the round
    trips of the median remember() (one in stm_capacity also promotes: the scope's STM fills up)."""
    scope = memoryos.Scope(user="bench-user", assistant="bench")
    ours, base, trips = [], [], []
    for _ in range(samples):
        text = sentence(rng)
        before = round_trips(mem)
        ours.append(timed(lambda t=text: mem.remember(scope, t)))  # type: ignore[misc]
        trips.append(round_trips(mem) - before)
        base.append(timed(lambda: raw_insert(raw, rng)))
    raw.execute("DELETE FROM raw_units")
    raw.commit()
    return statistics.median(ours), statistics.median(base), statistics.median(trips)


# -- full-STM promotion and the raw move ----------------------------------------------------------------
def raw_setup(conn: psycopg.Connection[Any], count: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """Untimed: `count` turns in STM for the raw move to take."""
    rows = [(uuid7(), sentence(rng), uuid7()) for _ in range(count)]
    with conn.cursor() as cur:
        cur.executemany(RAW_INSERT, rows)
    conn.commit()
    return rows


def raw_move(conn: psycopg.Connection[Any], rows: list[tuple[str, str, str]]) -> None:
    """Timed: one transaction inserting the pages (segment, role, lineage filled), deleting the turns
    and appending one pre-rendered receipt of a sealed receipt's size per page; no placement, no
    sealing: the floor for moving these rows durably."""
    body = b"x" * RECEIPT_BYTES
    segment, run_id = uuid7(), uuid7()
    pages = [(uuid7(), segment, text, f'["{turn}"]', f'["{turn}@1"]', run_id) for turn, text, _ in rows]
    with conn.cursor() as cur:
        start = cur.execute("SELECT coalesce(max(seq), 0) FROM raw_receipts").fetchone()
        first = int(start[0]) if start else 0
        cur.executemany(
            "INSERT INTO raw_units (memory_id, version, tier, user_scope, assistant_scope, role, segment_id,"
            " body, source_ids, derived_from, created_at, valid_from, last_seen, run_id)"
            " VALUES (%s, 1, 'mtm', 'raw', 'raw', 'user', %s, %s, %s, %s, 0, 0, 0, %s)",
            pages,
        )
        cur.execute("DELETE FROM raw_units WHERE memory_id = ANY(%s)", ([m for m, _, _ in rows],))
        cur.executemany(
            "INSERT INTO raw_receipts VALUES (%s, %s)", [(first + i + 1, body) for i in range(len(rows))]
        )
    conn.commit()


def measure_promotion(
    mem: memoryos.Memory, raw: psycopg.Connection[Any], samples: int, rng: random.Random
) -> tuple[float, float, float]:
    """A full STM moved by the library (one transaction) vs the raw move of the same rows; and
    the round trips of one promotion."""
    scope = memoryos.Scope(user="promo-user", assistant="bench")
    key = mem._scopes(scope)
    ours, base, trips = [], [], 0
    for _ in range(samples):
        with mem.store.write("fill") as tx:  # a full STM, written without triggering the promotion
            for _ in range(mem.config.stm_capacity):
                now = int(mem._clock().timestamp() * 1e6)
                tx.insert_unit(user_turn(key, "stm", sentence(rng), now, uuid7()))
        with mem.store.read() as tx:
            turns = tx.stm_turns(key.user, key.assistant)
        before = round_trips(mem)
        ours.append(timed(lambda t=turns: mem.promoter.promote_turns(t, int(time.time() * 1e6))))  # type: ignore[misc]
        trips += round_trips(mem) - before
        rows = raw_setup(raw, mem.config.stm_capacity, rng)
        base.append(timed(lambda r=rows: raw_move(raw, r)))  # type: ignore[misc]
    return statistics.median(ours), statistics.median(base), trips / samples


# -- recall() and the raw ranking query -----------------------------------------------------------------
def raw_search_table(conn: psycopg.Connection[Any]) -> None:
    """The raw baseline's index: the same pages' bodies as a tsvector, under a GIN index."""
    conn.execute("DROP TABLE IF EXISTS raw_fts")
    conn.execute(
        "CREATE TABLE raw_fts AS SELECT memory_id, to_tsvector('simple', body) AS tsv FROM units"
        " WHERE tier = 'mtm'"
    )
    conn.execute("CREATE INDEX raw_fts_tsv ON raw_fts USING gin (tsv)")
    conn.execute("ANALYZE raw_fts")
    conn.commit()


RAW_RANKING = (
    "SELECT memory_id, ts_rank(tsv, q) AS rank FROM raw_fts, to_tsquery('simple', %s) AS q"
    " WHERE tsv @@ q ORDER BY rank DESC LIMIT 10"
)


def measure_recall(
    mem: memoryos.Memory, raw: psycopg.Connection[Any], samples: int, rng: random.Random
) -> tuple[float, float]:
    """recall(k=10) against the raw ranking query for the same words; p95 of each, interleaved."""
    scope = memoryos.Scope(user="recall-user", assistant="bench")
    ours, base = [], []
    for _ in range(samples):
        words = [rng.choice(TOPICS), rng.choice(WORDS[:300])]
        query = " ".join(words)
        ours.append(timed(lambda q=query: mem.recall(scope, q, k=10)))  # type: ignore[misc]
        match = " | ".join(words)
        base.append(timed(lambda m=match: raw.execute(RAW_RANKING, (m,)).fetchall()))  # type: ignore[misc]
        raw.rollback()  # a read: end its transaction as an autocommit reader would
    return percentile(ours, 0.95), percentile(base, 0.95)


# -- scale-out: writer processes ------------------------------------------------------------------------
def child_writer(store: str, writer: int, seconds: float, start_at: float, seal: str) -> None:
    """One writer process: open, wait for the common start, remember() for `seconds`; print the
    count, the seals done again and the seals guessed. `seal="locked"` never guesses the head."""
    if seal == "locked":
        from memoryos.store import postgres_tx

        setattr(postgres_tx, "seal_optimistically", lambda rivals: False)  # noqa: B010 (mypy: a function)
    rng = random.Random(writer)
    scope = memoryos.Scope(user=f"writer-{writer}", assistant="bench")
    with memoryos.open(store, heat_threshold=1e12) as mem:
        mem.remember(scope, "warm up the connection")
        time.sleep(max(0.0, start_at - time.time()))
        deadline, done = time.monotonic() + seconds, 0
        conflicts = int(getattr(mem.store, "seal_conflicts", 0))
        guessed = int(getattr(mem.store, "optimistic_seals", 0))
        while time.monotonic() < deadline:
            mem.remember(scope, sentence(rng))
            done += 1
        conflicts = int(getattr(mem.store, "seal_conflicts", 0)) - conflicts
        guessed = int(getattr(mem.store, "optimistic_seals", 0)) - guessed
    print(done, conflicts, guessed, flush=True)


def throughput(store: str, writers: int, seconds: float, variant: str = "") -> tuple[float, float, float]:
    """Aggregate remember() per second of `writers` processes writing together for `seconds`, the
    share of their receipts sealed again because a rival's commit got in first, and the share
    sealed on a guessed head (PostgreSQL). `variant` is a seal variant (see child_argv)."""
    start_at = time.time() + 3.0 + 0.3 * writers  # after every process has opened the store
    argv, env = child_argv(variant, store, seconds)
    procs = [
        subprocess.Popen(
            [*argv, "--writer-id", str(n), "--start-at", str(start_at)], stdout=subprocess.PIPE, env=env
        )
        for n in range(writers)
    ]
    counts, conflicts, guessed = [], [], []
    for proc in procs:
        out, _ = proc.communicate(timeout=seconds + 120)
        if proc.returncode != 0:
            raise RuntimeError(f"a writer process failed with exit {proc.returncode}")
        numbers = [int(n) for n in out.split()[:3]]  # an older version's writer prints two
        counts.append(numbers[0])
        conflicts.append(numbers[1])
        guessed.append(numbers[2] if len(numbers) > 2 else -1)
    done = max(1, sum(counts))
    return sum(counts) / seconds, sum(conflicts) / done, sum(guessed) / done if min(guessed) >= 0 else -1


def child_argv(variant: str, store: str, seconds: float) -> tuple[list[str], dict[str, str] | None]:
    """A writer process of this code (`""`), of this code sealing only on the locked head
    (`"locked"`), or of the memoryos checked out in another folder (`"base=FOLDER"`)."""
    tail = ["--child-writer", store, "--seconds", str(seconds)]
    if variant.startswith("base="):
        folder = Path(variant.removeprefix("base="))
        env = {**os.environ, "PYTHONPATH": str(folder)}  # its memoryos before this one's
        return [sys.executable, str(folder / "bench" / "bench_postgres.py"), *tail], env
    return [sys.executable, __file__, *tail, *(["--seal", variant] if variant else [])], None


def measure_scaleout(url: str, folder: Path, writers: int, seconds: float) -> dict[str, float]:
    """One writer, then `writers` together, on PostgreSQL and on a SQLite file: one round."""
    sqlite = str(folder / f"scale-{uuid.uuid4().hex[:8]}.db")
    memoryos.open(sqlite).close()
    pg_one = throughput(url, 1, seconds)[0]
    pg_many, resealed, _ = throughput(url, writers, seconds)
    return {
        "pg_one": pg_one,
        "pg_many": pg_many,
        "pg_resealed": resealed,
        "sqlite_one": throughput(sqlite, 1, seconds)[0],
        "sqlite_many": throughput(sqlite, writers, seconds)[0],
    }


# -- LangGraph's PostgresStore beside memoryos's LangGraph store ------------------------------------------
def measure_langgraph(server: str, count: int, seed: int) -> dict[str, Any]:
    from bench_integrations import NAMESPACE, TARGETS, K, records
    from langgraph.store.postgres import PostgresStore

    from memoryos.integrations.langgraph import MemoryOSStore, ScopeRule

    with database(server) as ours_url, database(server) as theirs_url:
        mem = memoryos.open(ours_url)
        ours = MemoryOSStore(mem, ScopeRule.per_user("bench"))
        with PostgresStore.from_conn_string(theirs_url) as theirs:
            theirs.setup()
            stores: dict[str, Any] = {"memoryos": ours, "langgraph": theirs}
            puts: dict[str, list[float]] = {name: [] for name in stores}
            for i, (key, value) in enumerate(records(count, seed)):
                for name, store in list(stores.items())[:: 1 if i % 2 == 0 else -1]:
                    puts[name].append(timed(lambda s=store, k=key, v=value: s.put(NAMESPACE, k, v)))  # type: ignore[misc]
            searches: dict[str, list[float]] = {name: [] for name in stores}
            hits = dict.fromkeys(stores, 0)
            for i, (_, question) in enumerate(TARGETS):
                for name, store in list(stores.items())[:: 1 if i % 2 == 0 else -1]:
                    started = time.perf_counter()
                    found = store.search(NAMESPACE, query=question, limit=K)
                    searches[name].append(time.perf_counter() - started)
                    hits[name] += f"t{i}" in [item.key for item in found]
        mem.close()
    return {"puts": puts, "searches": searches, "hits": hits, "queries": len(TARGETS)}


# -- the run ----------------------------------------------------------------------------------------------
def medians(runs: list[tuple[float, ...]]) -> dict[str, float]:
    found = {
        "ours_us": statistics.median(r[0] for r in runs) * 1e6,
        "raw_us": statistics.median(r[1] for r in runs) * 1e6,
        "ratio": statistics.median(r[0] / r[1] for r in runs),
    }
    if all(len(r) > 2 for r in runs):
        found["round_trips"] = statistics.median(r[2] for r in runs)
    return found


def run_remember(args: argparse.Namespace, results: dict[str, Any]) -> None:
    """remember() at every size (and the promotion at the first), or only the promotion."""
    many = [memoryos.Scope(user=f"user-{i}", assistant="bench") for i in range(1000)]
    rng = random.Random(7)
    sizes = args.sizes if "remember" in args.only else args.sizes[:1]
    results["remember"] = {}
    for size in sizes:
        with database(args.db) as url:
            mem = open_store(url)
            fill(mem, size, many, random.Random(size))
            raw = raw_connection(url)
            results["remember"][size] = medians(
                [measure_remember(mem, raw, args.samples, rng) for _ in range(args.runs)]
            )
            if "promotion" in args.only and size == args.sizes[0]:
                samples = max(10, args.samples // 10)
                results["promotion"] = medians(
                    [measure_promotion(mem, raw, samples, rng) for _ in range(args.runs)]
                )
            raw.close()
            mem.close()
        print(f"remember at {size:,}: {results['remember'][size]}", flush=True)
    if "remember" not in args.only:
        del results["remember"]
        return
    smallest, largest = min(args.sizes), max(args.sizes)
    results["flatness"] = results["remember"][largest]["ours_us"] / results["remember"][smallest]["ours_us"]


@contextmanager
def recall_database(args: argparse.Namespace) -> Iterator[str]:
    """A new database for the recall corpus, or --recall-db: kept, and filled only when empty (the
    fill of 100k pages takes minutes; a database filled by an older memoryos gets its migrations)."""
    if not args.recall_db:
        with database(args.db) as url:
            yield url
        return
    with psycopg.connect(args.db, autocommit=True) as conn:
        name = urlsplit(args.recall_db).path.lstrip("/")
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
    yield args.recall_db


def recall_pages(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM units WHERE tier = 'mtm'").fetchone()
        return int(row[0]) if row else 0


def vacuum_analyze(url: str) -> None:
    """Both sides' tables as autovacuum keeps them on a store in use: planner statistics, and the
    visibility map that lets an index-only scan skip the heap (a fill of minutes outruns autovacuum)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def run_recall(args: argparse.Namespace, results: dict[str, Any]) -> None:
    rng = random.Random(11)
    with recall_database(args) as url:
        mem = open_store(url)
        stored = recall_pages(url)
        if stored not in (0, args.recall_size):
            raise SystemExit(f"--recall-db holds {stored:,} pages, not --recall-size {args.recall_size:,}")
        if stored == 0:
            scopes = [memoryos.Scope(user="recall-user", assistant="bench")]
            fill(mem, args.recall_size, scopes, random.Random(3))
        raw = raw_connection(url)
        raw_search_table(raw)
        vacuum_analyze(url)
        results["recall"] = {
            "size": args.recall_size,
            **medians([measure_recall(mem, raw, args.samples, rng) for _ in range(args.runs)]),
        }
        raw.close()
        mem.close()
    print(f"recall at {args.recall_size:,}: {results['recall']}", flush=True)


def run_scaleout(args: argparse.Namespace, results: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as folder, database(args.db) as url:
        memoryos.open(url).close()  # the schema exists before the writers race to open it
        rounds = [measure_scaleout(url, Path(folder), args.writers, args.seconds) for _ in range(args.runs)]
    results["scaleout"] = {
        "writers": args.writers,
        **{k: statistics.median(r[k] for r in rounds) for k in rounds[0]},
        "pg_ratio": statistics.median(r["pg_many"] / r["pg_one"] for r in rounds),
        "sqlite_ratio": statistics.median(r["sqlite_many"] / r["sqlite_one"] for r in rounds),
    }
    print(f"scale-out: {results['scaleout']}", flush=True)


def run_seal(args: argparse.Namespace, results: dict[str, Any]) -> None:
    """The seal policy: one writer and --writers writers of this code, of this code sealing only on
    the locked head, and of --seal-base (another checkout) when given, interleaved round by round
    (ABC, CBA, ...) on one store; per round each variant's throughput over the locked one's."""
    variants = {"this code": "", "locked only": "locked"}
    if args.seal_base:
        variants = {"base": f"base={args.seal_base}", **variants}
    rounds: dict[tuple[int, str], list[tuple[float, float, float, float]]] = {}
    with database(args.db) as url:
        memoryos.open(url).close()
        for r in range(args.runs):
            for writers in (1, args.writers):
                order = list(variants.items())[:: 1 if r % 2 == 0 else -1]
                for name, variant in order:
                    measured = throughput(url, writers, args.seconds, variant)
                    rounds.setdefault((writers, name), []).append((*measured, os.getloadavg()[0]))
                    print(f"seal round {r}, {writers} writers, {name}: {measured}", flush=True)
    results["seal"] = {
        f"{writers} {name}": {
            "rate": statistics.median(m[0] for m in runs),
            "vs_locked": statistics.median(
                m[0] / locked[0] for m, locked in zip(runs, rounds[(writers, "locked only")], strict=True)
            ),
            "resealed": statistics.median(m[1] for m in runs),
            "guessed": statistics.median(m[2] for m in runs),
            "load": (min(m[3] for m in runs), max(m[3] for m in runs)),
        }
        for (writers, name), runs in rounds.items()
    }
    print(f"seal: {results['seal']}", flush=True)


def seal_lines(found: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "| writers, seal | remember()/s | / locked only, same round (median) | resealed"
        " | seals guessed per remember() | load |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in found.items():
        guessed = f"{s['guessed']:.0%}" if s["guessed"] >= 0 else "—"
        lines.append(
            f"| {name} | {s['rate']:.0f} | {s['vs_locked']:.2f}x | {s['resealed']:.0%} | {guessed} |"
            f" {s['load'][0]:.1f}-{s['load'][1]:.1f} |"
        )
    return lines


def run_langgraph(args: argparse.Namespace, results: dict[str, Any]) -> None:
    runs = [measure_langgraph(args.db, args.records, seed) for seed in range(args.runs)]
    summary: dict[str, Any] = {"records": args.records}
    for op in ("puts", "searches"):
        for name in ("memoryos", "langgraph"):
            summary[f"{op}_{name}_ms"] = statistics.median(statistics.median(r[op][name]) for r in runs) * 1e3
        summary[f"{op}_ratio"] = statistics.median(
            statistics.median(a / b for a, b in zip(r[op]["memoryos"], r[op]["langgraph"], strict=True))
            for r in runs
        )
    for name in ("memoryos", "langgraph"):
        summary[f"hit_{name}"] = sum(r["hits"][name] for r in runs) / sum(r["queries"] for r in runs)
    results["langgraph"] = summary
    print(f"langgraph: {summary}", flush=True)


RUNNERS: dict[str, Callable[[argparse.Namespace, dict[str, Any]], None]] = {
    "recall": run_recall,
    "scaleout": run_scaleout,
    "seal": run_seal,
    "langgraph": run_langgraph,
}


def server_version(server: str) -> str:
    with psycopg.connect(server) as conn:
        shown = {
            name: str((conn.execute(f"SHOW {name}").fetchone() or ("?",))[0])
            for name in ("server_version", "fsync", "synchronous_commit")
        }
    return (
        f"PostgreSQL {shown['server_version']} (fsync={shown['fsync']},"
        f" synchronous_commit={shown['synchronous_commit']})"
    )


def command(args: argparse.Namespace) -> str:
    return (
        f"python bench/bench_postgres.py --sizes {','.join(map(str, args.sizes))}"
        f" --recall-size {args.recall_size} --runs {args.runs} --samples {args.samples}"
        f" --writers {args.writers} --seconds {args.seconds} --records {args.records}"
        f" --only {','.join(args.only)}" + (f" --seal-base {args.seal_base}" if args.seal_base else "")
    )


def report(results: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"# PostgreSQL benchmark — {datetime.now(UTC):%Y-%m-%d}",
        "",
        f"Machine: {os.cpu_count()} cores (shared), Python {platform.python_version()},"
        f" {server_version(args.db)} on the same machine; {args.runs} runs (medians).",
        f"Command: `{command(args)}`",
        "",
        "| measure | memoryos | raw baseline | ratio | target |",
        "|---|---|---|---|---|",
    ]
    for size, r in results.get("remember", {}).items():
        lines.append(
            f"| remember() p50 at {size:,} stored | {r['ours_us']:.0f} µs | {r['raw_us']:.0f} µs"
            f" (psycopg INSERT+COMMIT) | {r['ratio']:.2f}x | <= 2x |"
        )
    if "promotion" in results:
        p = results["promotion"]
        lines.append(
            f"| full-STM promotion p50 | {p['ours_us']:.0f} µs | {p['raw_us']:.0f} µs (one-transaction"
            f" move + receipts) | {p['ratio']:.2f}x | <= 2x |"
        )
    if "recall" in results:
        r = results["recall"]
        lines.append(
            f"| recall() p95 over {r['size']:,} | {r['ours_us']:.0f} µs | {r['raw_us']:.0f} µs (GIN"
            f" tsvector, ts_rank top 10) | {r['ratio']:.2f}x | <= 2x at 100k |"
        )
    trips = {name: results[name].get("round_trips") for name in ("promotion",) if name in results}
    for size, r in results.get("remember", {}).items():
        trips[f"remember at {size:,}"] = r.get("round_trips")
    if any(v is not None for v in trips.values()):
        shown = ", ".join(f"{name} {v:g}" for name, v in trips.items() if v is not None)
        lines.append(
            f"| round trips to the server per call ({shown}) | | 3 (raw INSERT+COMMIT: psycopg sends"
            " BEGIN, INSERT, COMMIT) | | load-independent |"
        )
    if "flatness" in results:
        sizes = f"{max(args.sizes):,} / {min(args.sizes):,}"
        lines.append(f"| remember() p50 at {sizes} | | | {results['flatness']:.2f}x | <= 1.5x (1M / 10k) |")
    if "scaleout" in results:
        s = results["scaleout"]
        lines += [
            f"| {s['writers']} writer processes / 1, PostgreSQL | {s['pg_many']:.0f}/s |"
            f" {s['pg_one']:.0f}/s (one writer) | {s['pg_ratio']:.2f}x | >= 3x |",
            f"| receipts sealed again (a rival committed first), {s['writers']} writers |"
            f" {s.get('pg_resealed', 0):.0%} | | | |",
            f"| {s['writers']} writer processes / 1, SQLite | {s['sqlite_many']:.0f}/s |"
            f" {s['sqlite_one']:.0f}/s (one writer) | {s['sqlite_ratio']:.2f}x | (one writer at a time) |",
        ]
    if "seal" in results:
        lines += seal_lines(results["seal"])
    if "langgraph" in results:
        g = results["langgraph"]
        lines += [
            "",
            f"LangGraph's `PostgresStore` beside memoryos's `MemoryOSStore` on PostgreSQL, same server, the"
            f" same {g['records']:,} records and queries (PostgresStore without an embedding index, as a"
            " user sets it up out of the box: its search ignores the query).",
            "",
            "| measure | MemoryOSStore (PostgreSQL) | PostgresStore | ratio (median of pairs) |",
            "|---|---|---|---|",
            f"| put p50 | {g['puts_memoryos_ms']:.2f} ms | {g['puts_langgraph_ms']:.2f} ms |"
            f" {g['puts_ratio']:.2f}x |",
            f"| search p50 | {g['searches_memoryos_ms']:.2f} ms | {g['searches_langgraph_ms']:.2f} ms |"
            f" {g['searches_ratio']:.2f}x |",
            f"| hit@5 (paraphrased questions) | {g['hit_memoryos']:.0%} | {g['hit_langgraph']:.0%} | |",
        ]
    return "\n".join(lines) + "\n"


def publish(text: str, results: dict[str, Any], args: argparse.Namespace) -> None:
    """Print the report; write it to --out and every figure to --json when given ('' skips)."""
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).write_bytes(
            orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--db", default=DEFAULT_SERVER, help="PostgreSQL server URL (databases are made there)"
    )
    parser.add_argument("--sizes", default="10000,100000", help="stored-turn counts for remember()")
    parser.add_argument("--recall-size", type=int, default=100_000, help="pages of the recall corpus")
    parser.add_argument(
        "--recall-db", default="", help="a database URL for the recall corpus, kept and reused (filled once)"
    )
    parser.add_argument("--runs", type=int, default=3, help="repetitions (medians are reported)")
    parser.add_argument("--samples", type=int, default=200, help="operations timed per run")
    parser.add_argument("--writers", type=int, default=8, help="writer processes of the scale-out")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one scale-out round")
    parser.add_argument("--records", type=int, default=500, help="records of the LangGraph comparison")
    parser.add_argument(
        "--only", default=",".join(DEFAULT_SECTIONS), help=f"comma-separated subset of {SECTIONS}"
    )
    parser.add_argument("--out", default="bench/results/postgres.md", help="markdown results ('' to skip)")
    parser.add_argument("--json", default="", help="also write every figure here as JSON")
    parser.add_argument(
        "--seal-base", default="", help="a memoryos checkout the seal section compares against"
    )
    parser.add_argument("--child-writer", help=argparse.SUPPRESS)
    parser.add_argument("--seal", default="", help=argparse.SUPPRESS)
    parser.add_argument("--writer-id", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_writer:
        child_writer(args.child_writer, args.writer_id, args.seconds, args.start_at, args.seal)
        return
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.only = [s for s in args.only.split(",") if s]
    results: dict[str, Any] = {}
    if "remember" in args.only or "promotion" in args.only:
        run_remember(args, results)
    for section, runner in RUNNERS.items():
        if section in args.only:
            runner(args, results)
    publish(report(results, args), results, args)


if __name__ == "__main__":
    main()
