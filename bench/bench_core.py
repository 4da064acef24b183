"""Core benchmark (issue 2): remember(), full-STM promotion and recall() against raw SQLite baselines.

Every figure is a ratio to a raw baseline measured in the same process and run, on the same file,
schema and durability mode; medians over --runs repetitions. Stores are pre-filled through the
store's own transaction API in large batches (the same rows and receipts remember() and promotion
would write), so that 1M stored turns take a minute rather than hours.

    python bench/bench_core.py                       # 10k / 100k / 1M, 5 runs (about 10 minutes)
    python bench/bench_core.py --sizes 2000,5000 --runs 2 --samples 200   # a quick smoke run
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import platform
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

import memoryos
from memoryos.scope import ScopeKey
from memoryos.store.rows import Unit
from memoryos.testing import FakeClock
from receipts import uuid7

WORDS = [f"w{i}" for i in range(5000)]
TOPICS = ["deploy", "rust", "garden", "invoice", "piano", "kubernetes", "recipe", "travel", "tax", "football"]


def bench_clock() -> FakeClock:
    """Simulated time: 50 µs a reading, so a long run never stands still or races real time."""
    return FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(microseconds=50))


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, weights=[1 / (i + 1) for i in range(len(WORDS))], k=12)
    return f"{rng.choice(TOPICS)} {' '.join(words)} {rng.choice(TOPICS)}"


def user_turn(key: ScopeKey, tier: str, body: str, now: int, run_id: str, **extra: Any) -> Unit:
    """A user's unit as the store would hold it, written straight through the store's API."""
    return Unit(
        memory_id=uuid7(),
        version=1,
        tier=tier,
        user_scope=key.user,
        assistant_scope=key.assistant,
        body=body,
        created_at=now,
        valid_from=now,
        last_seen=now,
        run_id=run_id,
        role="user",
        **extra,
    )


def fill(mem: memoryos.Memory, count: int, scopes: list[memoryos.Scope], rng: random.Random) -> None:
    """Pages in MTM with their promotion receipts, spread over the given scopes, 5,000 per commit."""
    keys = [mem._scopes(s) for s in scopes]
    now = int(mem._clock().timestamp() * 1e6)
    done = 0
    while done < count:
        batch = min(5000, count - done)
        run_id = uuid7()
        with mem.store.write("fill") as tx:
            for _ in range(batch):
                key = keys[done % len(keys)]
                turn = uuid7()
                page = user_turn(
                    key,
                    "mtm",
                    sentence(rng),
                    now,
                    run_id,
                    segment_id="fill",
                    source_ids=(turn,),
                    derived_from=(f"{turn}@1",),
                )
                tx.insert_unit(page)
                tx.emit(
                    mem.drafts.about(
                        run_id,
                        "stm_to_mtm",
                        page,
                        fromTier="stm",
                        toTier="mtm",
                        derivedFrom=[f"{turn}@1"],
                        sourcePresent=False,
                    )
                )
                done += 1


def raw_connection(db: Path, durability: str) -> sqlite3.Connection:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def raw_insert(conn: sqlite3.Connection, rng: random.Random) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO units (memory_id, version, tier, user_scope, assistant_scope, body, created_at,"
        " valid_from, last_seen, run_id) VALUES (?, 1, 'stm', 'raw', 'raw', ?, 0, 0, 0, ?)",
        (uuid7(), sentence(rng), uuid7()),
    )
    conn.execute("COMMIT")


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_remember(
    mem: memoryos.Memory, raw: sqlite3.Connection, samples: int, rng: random.Random
) -> tuple[float, float]:
    """Interleaved so that machine noise hits both sides alike; p50 of each."""
    scope = memoryos.Scope(user="bench-user", assistant="bench")
    ours, base = [], []
    for _ in range(samples):
        text = sentence(rng)
        ours.append(timed(lambda t=text: mem.remember(scope, t)))  # type: ignore[misc]
        base.append(timed(lambda: raw_insert(raw, rng)))
    raw.execute("DELETE FROM units WHERE user_scope = 'raw'")
    return statistics.median(ours), statistics.median(base)


def measure_promotion(
    mem: memoryos.Memory, raw: sqlite3.Connection, samples: int, rng: random.Random
) -> tuple[float, float, int, float, float]:
    """A full STM (7 turns) moved by the library vs a raw transaction moving the same rows + receipts,
    vs the same raw move that also keeps a full-text index of its own, and vs one whose receipts
    are chained and signed (see raw_move)."""
    scope = memoryos.Scope(user="promo-user", assistant="bench")
    key = mem._scopes(scope)
    capacity = mem.config.stm_capacity
    ours, base, commits, indexed, sealed = [], [], [], [], []
    for _ in range(samples):
        with mem.store.write("fill") as tx:  # put 7 turns into STM without triggering promotion
            for _ in range(capacity):
                now = int(mem._clock().timestamp() * 1e6)
                tx.insert_unit(user_turn(key, "stm", sentence(rng), now, uuid7()))
        with mem.store.read() as tx:
            turns = tx.stm_turns(key.user, key.assistant)
        before = mem.store.commits
        ours.append(timed(lambda t=turns: mem.promoter.promote_turns(t, int(time.time() * 1e6))))  # type: ignore[misc]
        commits.append(mem.store.commits - before)
        rows = raw_setup(raw, capacity, rng)
        base.append(timed(lambda r=rows: raw_move(raw, r)))  # type: ignore[misc]
        rows = raw_setup(raw, capacity, rng, indexed=True)
        indexed.append(timed(lambda r=rows: raw_move(raw, r, indexed=True)))  # type: ignore[misc]
        rows = raw_setup(raw, capacity, rng)
        sealed.append(timed(lambda r=rows: raw_move(raw, r, sealed=True)))  # type: ignore[misc]
    medians = statistics.median(ours), statistics.median(base), statistics.median(indexed)
    return medians[0], medians[1], max(commits), medians[2], statistics.median(sealed)


def raw_setup(
    conn: sqlite3.Connection, count: int, rng: random.Random, *, indexed: bool = False
) -> list[tuple[str, str, str]]:
    """Untimed: put `count` turns into STM for the raw move to take (and into its index)."""
    rows = [(uuid7(), sentence(rng), uuid7()) for _ in range(count)]
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO units (memory_id, version, tier, user_scope, assistant_scope, body, created_at,"
        " valid_from, last_seen, run_id) VALUES (?, 1, 'stm', 'raw', 'raw', ?, 0, 0, 0, ?)",
        rows,
    )
    if indexed:
        conn.executemany(
            "INSERT INTO raw_move_fts (rowid, body) SELECT rowid, body FROM units WHERE memory_id = ?",
            [(m,) for m, _, _ in rows],
        )
    conn.execute("COMMIT")
    return rows


RECEIPT_BYTES = 734  # the size of a sealed stm_to_mtm receipt line (ids, scopes, chain, MAC)


def raw_move(
    conn: sqlite3.Connection, rows: list[tuple[str, str, str]], *, indexed: bool = False, sealed: bool = False
) -> None:
    """Timed: one transaction that inserts the same page rows the library writes (segment, role and
    lineage columns filled), deletes the turns and inserts one pre-rendered receipt of the same size
    per page. No placement, no sealing: the floor for moving these rows durably. It is strict on
    memoryos's side, never lenient: the same `units` table and indexes, but no lineage rows
    (unit_sources), no segment row, no hash chain or MAC, and a receipt table with one B-tree where
    the outbox has three (seq, receipt_id, run_id); a commit of it writes about half the WAL frames
    of a library promotion (12-13 against 23 at 10k stored).

    `indexed`: the same move by a raw application that keeps its rows findable, as memoryos does: a
    plain FTS5 table over the bodies, the turns' entries deleted and the pages' added (what memoryos's
    own FTS5 triggers did before migration 0005, when the raw move's units rows paid them too).

    `sealed`: the same move by a raw application whose receipts are tamper-evident as the receipt
    format requires (DESIGN §4): each line carries the previous line's SHA-256 and an HMAC-SHA256
    over itself, what any correct writer of the format must compute (an informative row: the
    target stays against the unsealed move)."""
    body = orjson.dumps({"boundary": "stm_to_mtm", "pad": ""})
    body = body[:-2] + b"x" * (RECEIPT_BYTES - len(body)) + body[-2:]
    segment, run_id = uuid7(), uuid7()
    pages = [(uuid7(), turn, text) for turn, text, _ in rows]
    conn.execute("BEGIN IMMEDIATE")
    start = conn.execute("SELECT coalesce(max(seq), 0) FROM raw_receipts").fetchone()[0]
    conn.executemany(
        "INSERT INTO units (memory_id, version, tier, user_scope, assistant_scope, role, segment_id, body,"
        " source_ids, derived_from, created_at, valid_from, last_seen, run_id)"
        " VALUES (?, 1, 'mtm', 'raw', 'raw', 'user', ?, ?, ?, ?, 0, 0, 0, ?)",
        [(page, segment, text, f'["{turn}"]', f'["{turn}@1"]', run_id) for page, turn, text in pages],
    )
    if indexed:
        conn.executemany(
            "DELETE FROM raw_move_fts WHERE rowid = (SELECT rowid FROM units WHERE memory_id = ?)",
            [(m,) for m, _, _ in rows],
        )
        conn.executemany(
            "INSERT INTO raw_move_fts (rowid, body) SELECT rowid, body FROM units WHERE memory_id = ?",
            [(page,) for page, _, _ in pages],
        )
    conn.executemany("DELETE FROM units WHERE memory_id = ?", [(m,) for m, _, _ in rows])
    lines = _sealed_lines(body, len(rows), conn) if sealed else [body] * len(rows)
    conn.executemany(
        "INSERT INTO raw_receipts VALUES (?, ?)", [(start + i + 1, line) for i, line in enumerate(lines)]
    )
    conn.execute("COMMIT")


RAW_KEY = b"k" * 32


def _sealed_lines(body: bytes, count: int, conn: sqlite3.Connection) -> list[bytes]:
    """Receipt lines chained by SHA-256 and signed with HMAC-SHA256, from the last one stored."""
    last = conn.execute("SELECT body FROM raw_receipts ORDER BY seq DESC LIMIT 1").fetchone()
    link = hashlib.sha256(last[0] if last else b"").hexdigest().encode()
    lines = []
    for _ in range(count):
        # as long as the plain line: the pad gives up what the prev and mac members take
        canonical = body[:-149] + b'","prev":"' + link + b'"}'
        link = hashlib.sha256(canonical).hexdigest().encode()
        mac = hmac.digest(RAW_KEY, canonical, "sha256").hex().encode()
        lines.append(canonical[:-1] + b',"mac":"' + mac + b'"}')
    return lines


def raw_search_table(conn: sqlite3.Connection) -> None:
    """The raw baseline's index: a plain FTS5 table over the same index terms memoryos makes
    (its tokenizer: stems, CJK bigrams), each repeated as often as it occurs."""
    conn.execute("DROP TABLE IF EXISTS raw_fts")
    conn.execute("CREATE VIRTUAL TABLE raw_fts USING fts5 (terms)")
    rows = conn.execute("SELECT rowid, terms FROM units WHERE terms IS NOT NULL").fetchall()
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO raw_fts (rowid, terms) VALUES (?, ?)",
        [
            (rowid, " ".join(t for t, n in orjson.loads(terms).items() for _ in range(n)))
            for rowid, terms in rows
        ],
    )
    conn.execute("COMMIT")


def measure_recall(mem: memoryos.Memory, db: Path, samples: int, rng: random.Random) -> tuple[float, float]:
    """recall(k=10) against a raw FTS5 bm25() top-10 over the same terms of the same units."""
    scope = memoryos.Scope(user="recall-user", assistant="bench")
    conn = raw_connection(db, mem.config.durability)
    if conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'raw_fts'").fetchone()[0] == 0:
        raw_search_table(conn)
    ours, base = [], []
    for _ in range(samples):
        query = f"{rng.choice(TOPICS)} {rng.choice(WORDS[:300])}"
        plan = mem.retriever.plan(mem._scopes(scope), query)
        match = " OR ".join(f'"{t}"' for t in (plan.weights if plan else query.split()))
        ours.append(timed(lambda q=query: mem.recall(scope, q, k=10)))  # type: ignore[misc]
        base.append(
            timed(
                lambda m=match: conn.execute(  # type: ignore[misc]
                    "SELECT rowid, bm25(raw_fts) FROM raw_fts WHERE raw_fts MATCH ?"
                    " ORDER BY bm25(raw_fts)"
                    " LIMIT 10",
                    (m,),
                ).fetchall()
            )
        )
    conn.close()
    return percentile(ours, 0.95), percentile(base, 0.95)


def open_filled(folder: Path, size: int, scopes: list[memoryos.Scope], durability: str) -> memoryos.Memory:
    db = folder / f"bench-{size}-{len(scopes)}-{durability}.db"
    mem = memoryos.open(
        db,
        clock=bench_clock(),
        durability=durability,
        heat_threshold=1e12,
    )
    fill(mem, size, scopes, random.Random(size))
    return mem


def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="memoryos-bench-", dir=args.tmp))
    rng = random.Random(7)
    many = [memoryos.Scope(user=f"user-{i}", assistant="bench") for i in range(1000)]
    results: dict[str, Any] = {"remember": {}, "promotion": {}, "recall": {}}
    try:
        for size in args.sizes:
            mem = open_filled(folder, size, many, args.durability)
            raw = raw_connection(Path(mem.path), args.durability)
            raw.execute("CREATE TABLE IF NOT EXISTS raw_receipts (seq INTEGER PRIMARY KEY, body BLOB)")
            raw.execute("CREATE VIRTUAL TABLE IF NOT EXISTS raw_move_fts USING fts5 (body)")
            runs = [measure_remember(mem, raw, args.samples, rng) for _ in range(args.runs)]
            results["remember"][size] = {
                "p50_us": statistics.median(r[0] for r in runs) * 1e6,
                "raw_p50_us": statistics.median(r[1] for r in runs) * 1e6,
                "ratio": statistics.median(r[0] / r[1] for r in runs),
            }
            if size == args.sizes[len(args.sizes) // 2]:
                promo = [
                    measure_promotion(mem, raw, max(20, args.samples // 20), rng) for _ in range(args.runs)
                ]
                results["promotion"] = {
                    "p50_us": statistics.median(p[0] for p in promo) * 1e6,
                    "raw_p50_us": statistics.median(p[1] for p in promo) * 1e6,
                    "ratio": statistics.median(p[0] / p[1] for p in promo),
                    "commits_per_promotion": max(p[2] for p in promo),
                    "raw_indexed_p50_us": statistics.median(p[3] for p in promo) * 1e6,
                    "ratio_indexed": statistics.median(p[0] / p[3] for p in promo),
                    "raw_sealed_p50_us": statistics.median(p[4] for p in promo) * 1e6,
                    "ratio_sealed": statistics.median(p[0] / p[4] for p in promo),
                }
            raw.close()
            mem.close()
            print(f"remember at {size:>9,}: {results['remember'][size]}", flush=True)
        recall_size = args.recall_size
        mem = open_filled(
            folder, recall_size, [memoryos.Scope(user="recall-user", assistant="bench")], args.durability
        )
        rec = [measure_recall(mem, Path(mem.path), args.samples, rng) for _ in range(args.runs)]
        results["recall"] = {
            "size": recall_size,
            "p95_us": statistics.median(r[0] for r in rec) * 1e6,
            "raw_p95_us": statistics.median(r[1] for r in rec) * 1e6,
            "ratio": statistics.median(r[0] / r[1] for r in rec),
        }
        mem.close()
        smallest, largest = min(args.sizes), max(args.sizes)
        results["flatness"] = results["remember"][largest]["p50_us"] / results["remember"][smallest]["p50_us"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return results


def report(results: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"# Core benchmark — {datetime.now(UTC):%Y-%m-%d}",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()},"
        f" SQLite {sqlite3.sqlite_version},"
        f" durability={args.durability}, {args.runs} runs x {args.samples} samples (medians).",
        f"Command: `python bench/bench_core.py --sizes {','.join(map(str, args.sizes))} --runs {args.runs}"
        f" --samples {args.samples} --recall-size {args.recall_size} --durability {args.durability}`",
        "",
        "| measure | memoryos | raw baseline | ratio | target |",
        "|---|---|---|---|---|",
    ]
    for size, r in results["remember"].items():
        target = "<= 3x" if size == 100_000 else ""
        lines.append(
            f"| remember() p50 at {size:,} stored | {r['p50_us']:.0f} µs | {r['raw_p50_us']:.0f} µs"
            f" (INSERT+COMMIT) | {r['ratio']:.2f}x | {target} |"
        )
    p = results["promotion"]
    lines.append(
        f"| full-STM promotion p50 (7 turns) | {p['p50_us']:.0f} µs | {p['raw_p50_us']:.0f} µs (raw move +"
        f" receipts) | {p['ratio']:.2f}x | <= 2x, {p['commits_per_promotion']} commit |"
    )
    lines.append(
        f"| full-STM promotion p50 (7 turns) | {p['p50_us']:.0f} µs | {p['raw_indexed_p50_us']:.0f} µs (raw"
        f" move + receipts + FTS5 index) | {p['ratio_indexed']:.2f}x | |"
    )
    lines.append(
        f"| full-STM promotion p50 (7 turns) | {p['p50_us']:.0f} µs | {p['raw_sealed_p50_us']:.0f} µs (raw"
        f" move + receipts chained and signed) | {p['ratio_sealed']:.2f}x | |"
    )
    r = results["recall"]
    lines.append(
        f"| recall() p95 over {r['size']:,} | {r['p95_us']:.0f} µs | {r['raw_p95_us']:.0f} µs (FTS5 bm25"
        f" top-10) | {r['ratio']:.2f}x | <= 2x |"
    )
    lines.append(f"| remember() p50 at largest / smallest size | | | {results['flatness']:.2f}x | <= 1.5x |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="stored-turn counts to measure at")
    parser.add_argument("--runs", type=int, default=5, help="repetitions (medians are reported)")
    parser.add_argument("--samples", type=int, default=400, help="operations timed per run")
    parser.add_argument("--recall-size", type=int, default=100_000, help="corpus size for recall")
    parser.add_argument("--durability", default="full", choices=["full", "normal"], help="store durability")
    parser.add_argument("--tmp", default=None, help="folder for the temporary stores")
    parser.add_argument("--out", default="bench/results/core.md", help="markdown results file ('' to skip)")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    results = run(args)
    text = report(results, args)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
