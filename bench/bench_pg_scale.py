"""PostgreSQL at scale (issue 14): remember() p50 from 10k to 1M stored turns, and the scale-out
ceiling of this machine for 1/2/4/8 writer processes.

Flatness (`--sizes`). One database grows through the sizes. It starts with a seed written through
memoryos itself (remember(): STM turns, promotions into segments, pages, postings, receipts): one
scope holding most turns (one user, one topic, for a long time) and a few small scopes. The seed is
then replicated in bulk until each size is reached. Every copy gets new ids (memory ids, turn ids,
segments, runs, receipts); the small scopes become new scopes (pseudonyms computed by memoryos for
new users), and the big scope gets its full segments again under new ids. Nothing else is changed:
units are the seed's rows; postings, term and scope statistics are built in SQL by the same
statements the index triggers run (the triggers are off during the bulk copy); receipts are
re-sealed one by one by memoryos's own receipt pipeline (`receipts.pipeline.seal`: chained after the
head, MAC'd with the store's key), so the outbox stays one gapless chain. After each fill the store
is verified: `Memory.check()` (index integrity, the whole chain, lineage, the head row), the auditor
over the outbox, and statistics recomputed from scratch against those the fill left. Then remember()
p50 is timed on the big scope and on small scopes, interleaved one by one with a raw psycopg
INSERT+COMMIT of the same row shape (`LIKE units INCLUDING ALL`).

Scale-out (`--scaleout`). On a fresh store, for each writer count: N processes doing remember(), N
doing a raw INSERT+COMMIT, N doing a raw transaction with remember()'s round trips (found by
tracing one remember() on the wire, libpq trace) with the shared chain-head row locked before
COMMIT as memoryos does, and the same without a shared row. Each round records the machine's CPU
(/proc/stat), the writers' own CPU, the commits of the database and pg_stat_wal (syncs per commit).

    python bench/bench_pg_scale.py --sizes 10000,100000,1000000          # flatness to 1M
    python bench/bench_pg_scale.py --sizes '' --scaleout                   # the scale-out ceiling
    python bench/bench_pg_scale.py --sizes 3000,6000 --samples 20 --scaleout --writers 1,2 \\
        --seconds 1 --out ''                                               # a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import psycopg
from bench_core import bench_clock, percentile, sentence, timed
from bench_postgres import DEFAULT_SERVER, database, publish, raw_connection, raw_insert, server_version
from pg_scaleout import KINDS, child, load, run_scaleout, scaleout_lines

import memoryos
from memoryos.testing import FakeClock
from receipts import ChainHead, format_utc, uuid7
from receipts.pipeline import seal

BIG = memoryos.Scope(user="long-user", assistant="bench")
SMALL_TIMED = 4  # small scopes timed at each size (from the seed and from the last copies)
BATCH_TURNS = 20_000  # turns per fill transaction


def small_scope(copy: int, j: int) -> memoryos.Scope:
    return memoryos.Scope(user=f"user-{copy}-{j}", assistant="bench")


def open_store(url: str, clock: FakeClock) -> memoryos.Memory:
    """On one simulated clock that every reopening continues (receipt time follows seq order).
    Heat never reaches the threshold (no distillation: the shape is turns and pages), and MTM keeps
    every segment (the default 200 per scope would evict the big scope's old pages)."""
    return memoryos.open(url, clock=clock, heat_threshold=1e12, mtm_capacity=1_000_000)


# -- the seed and its template ----------------------------------------------------------------------
def write_seed(mem: memoryos.Memory, big: int, scopes: int, turns: int, rng: random.Random) -> int:
    for _ in range(big):
        mem.remember(BIG, "deploy " + sentence(rng))
    for j in range(scopes):
        for _ in range(turns):
            mem.remember(small_scope(0, j), sentence(rng))
    return big + scopes * turns


def columns(conn: psycopg.Connection[Any], table: str, skip: Iterable[str] = ()) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s"
        " AND is_generated = 'NEVER' ORDER BY ordinal_position",
        (table,),
    )
    return [str(r[0]) for r in rows if r[0] not in set(skip)]


#: receipt fields carrying ids a copy renews; the stamp's fields are set again by seal()
RECEIPT_IDS = {"runId", "memoryId", "derivedFrom", "userScope", "assistantScope", "receiptId"}
RECEIPT_KEPT = {
    "boundary",
    "status",
    "sourceVersion",
    "version",
    "fromTier",
    "toTier",
    "sourcePresent",
    "waitUntilUtc",
}
RECEIPT_STAMP = {"schema", "chainId", "seq", "prev", "mac", "atUtc"}
SCOPE_COLUMNS = ("user_scope", "assistant_scope")
UNIT_KEPT_NULL = ("session", "list", "key", "content_hash")  # a turn or page has none of them


@dataclass
class Template:
    """What one copy adds: the seed's rows that a copy can repeat with new ids."""

    unit_columns: list[str]
    segment_columns: list[str]
    units: list[dict[str, Any]]
    sources: list[tuple[str, str]]
    segments: list[dict[str, Any]]
    receipts: list[dict[str, Any]]
    scopes: dict[str, int]  # a small scope's user pseudonym -> its index j
    big_user: str
    turns: int
    chain_id: str
    key: bytes
    start: datetime = datetime(2026, 6, 1, tzinfo=UTC)  # the seed's first instant, and its length
    span: timedelta = timedelta(0)
    copies: int = 0
    timed: list[memoryos.Scope] = field(default_factory=list)


def template(mem: memoryos.Memory, conn: psycopg.Connection[Any], scopes: int) -> Template:
    """Small scopes: everything. Big scope: its full segments' pages only (its open segments and
    STM turns stay once: every copy of them would be another open segment, another STM)."""
    big_user = mem._scopes(BIG).user
    small = {mem._scopes(small_scope(0, j)).user: j for j in range(scopes)}
    unit_cols = columns(conn, "units", skip=("rowid",))
    seg_cols = columns(conn, "segments")
    full = {
        str(r[0])
        for r in conn.execute(
            "SELECT segment_id FROM segments WHERE user_scope = %s AND pages >= %s",
            (big_user, mem.config.segment_max_pages),
        )
    }
    units = []
    with conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        for row in cur.execute(f"SELECT {', '.join(unit_cols)} FROM units ORDER BY rowid"):
            if row["user_scope"] in small or row["segment_id"] in full:
                units.append(row)
        segments = [
            r
            for r in cur.execute(
                f"SELECT {', '.join(seg_cols)} FROM segments ORDER BY created_at, segment_id"
            )
            if r["user_scope"] in small or r["segment_id"] in full
        ]
    kept = {u["memory_id"] for u in units}
    sources = [
        (str(s), str(m))
        for s, m in conn.execute("SELECT source_id, memory_id FROM unit_sources ORDER BY source_id")
        if m in kept
    ]
    turns = {u["memory_id"] for u in units if u["tier"] == "stm"} | {s for s, _ in sources}
    receipts = []
    for (body,) in conn.execute("SELECT body FROM receipt_outbox ORDER BY seq"):
        receipt = orjson.loads(body)
        unknown = set(receipt) - RECEIPT_IDS - RECEIPT_KEPT - RECEIPT_STAMP
        if unknown or receipt["boundary"] not in ("store", "stm_to_mtm"):
            raise SystemExit(
                f"the seed holds a receipt this fill cannot copy ({receipt['boundary']}, {unknown})"
            )
        if receipt["memoryId"] in (turns if receipt["boundary"] == "store" else kept):
            receipts.append(receipt)
    count = sum(r["boundary"] == "store" for r in receipts)
    if count != len(turns) or any(u[c] is not None for u in units for c in UNIT_KEPT_NULL):
        raise SystemExit("the seed's template is not self-contained (a turn without its receipt)")
    chain = conn.execute("SELECT chain_id FROM receipt_chains").fetchone()
    key = conn.execute("SELECT key FROM receipt_key").fetchone()
    assert chain is not None and key is not None
    return Template(
        unit_cols,
        seg_cols,
        units,
        sources,
        segments,
        receipts,
        small,
        big_user,
        count,
        str(chain[0]),
        bytes(key[0]),
    )


# -- one copy ----------------------------------------------------------------------------------------
class Renamer:
    """New ids for one copy: the same old id always becomes the same new one."""

    def __init__(self, mem: memoryos.Memory, tpl: Template, copy: int) -> None:
        self.ids: dict[str, str] = {}
        self.users: dict[str, tuple[str, str]] = {}
        for user, j in tpl.scopes.items():
            key = mem._scopes(small_scope(copy, j))
            self.users[user] = (key.user, key.assistant)

    def scope(self, user: str, assistant: str) -> tuple[str, str]:
        """The big scope stays itself; a small one becomes this copy's scope of the same index."""
        return self.users.get(user, (user, assistant))

    def __call__(self, old: str) -> str:
        new = self.ids.get(old)
        if new is None:
            new = self.ids[old] = uuid7()
        return new

    def ref(self, old: str) -> str:
        memory_id, version = old.split("@", 1)
        return f"{self(memory_id)}@{version}"


UNIT_TIMES = ("created_at", "valid_from", "valid_until", "last_seen")
SEGMENT_TIMES = ("created_at", "last_visit_at")


def shifted(row: dict[str, Any], names: Iterable[str], delta: int) -> dict[str, Any]:
    return {**row, **{n: row[n] + delta for n in names if row[n] is not None}}


def copy_unit(row: dict[str, Any], new: Renamer, delta: int) -> dict[str, Any]:
    out = shifted(row, UNIT_TIMES, delta)
    out["memory_id"] = new(row["memory_id"])
    out["user_scope"], out["assistant_scope"] = new.scope(row["user_scope"], row["assistant_scope"])
    out["segment_id"] = None if row["segment_id"] is None else new(row["segment_id"])
    out["run_id"] = new(row["run_id"])
    out["source_ids"] = orjson.dumps([new(s) for s in orjson.loads(row["source_ids"])]).decode()
    out["derived_from"] = orjson.dumps([new.ref(s) for s in orjson.loads(row["derived_from"])]).decode()
    return out


def later(moment: str, delta: timedelta) -> str:
    return format_utc(datetime.fromisoformat(moment) + delta)


def copy_receipt(
    receipt: dict[str, Any], new: Renamer, head: ChainHead, key: bytes, delta: timedelta
) -> tuple[Any, ...]:
    """The receipt of the copied unit, sealed after `head` as the store would, `delta` later."""
    draft = {k: v for k, v in receipt.items() if k not in RECEIPT_STAMP}
    if "waitUntilUtc" in draft:
        draft["waitUntilUtc"] = later(draft["waitUntilUtc"], delta)
    draft["runId"], draft["memoryId"], draft["receiptId"] = (
        new(receipt["runId"]),
        new(receipt["memoryId"]),
        uuid7(),
    )
    draft["userScope"], draft["assistantScope"] = new.scope(receipt["userScope"], receipt["assistantScope"])
    if "derivedFrom" in receipt:
        draft["derivedFrom"] = [new.ref(r) for r in receipt["derivedFrom"]]
    sealed = seal(draft, head, key, later(receipt["atUtc"], delta))
    return (sealed.head.seq, head.chain_id, draft["receiptId"], draft["runId"], sealed.head.link, sealed.line)


def write_copies(
    conn: psycopg.Connection[Any], mem: memoryos.Memory, clock: FakeClock, tpl: Template, copies: int
) -> None:
    """`copies` more copies in one transaction, triggers off; the index rows then built in SQL by
    the statements of units_search_file (postgres_schema.py, 0005) over the new rows."""
    conn.execute("SET session_replication_role = replica")  # no triggers: postings come in bulk below
    low = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM units").fetchone()[0])  # type: ignore[index]
    head_row = conn.execute(
        "SELECT seq, link FROM receipt_chains WHERE chain_id = %s FOR UPDATE", (tpl.chain_id,)
    ).fetchone()
    assert head_row is not None
    head = ChainHead(tpl.chain_id, int(head_row[0]), str(head_row[1]))
    units, sources, segments, receipts = [], [], [], []
    for _ in range(copies):
        tpl.copies += 1
        new = Renamer(mem, tpl, tpl.copies)
        delta = clock.now - tpl.start  # each copy happens later, on the clock the store uses
        clock.now += tpl.span
        micros = delta // timedelta(microseconds=1)
        units += [copy_unit(u, new, micros) for u in tpl.units]
        sources += [(new(s), new(m)) for s, m in tpl.sources]
        segments += [
            {
                **shifted(g, SEGMENT_TIMES, micros),
                "segment_id": new(g["segment_id"]),
                **dict(zip(SCOPE_COLUMNS, new.scope(g["user_scope"], g["assistant_scope"]), strict=True)),
            }
            for g in tpl.segments
        ]
        for r in tpl.receipts:
            receipts.append(copy_receipt(r, new, head, tpl.key, delta))
            head = ChainHead(tpl.chain_id, receipts[-1][0], receipts[-1][4])
    with conn.cursor() as cur:
        copy_rows(cur, "units", tpl.unit_columns, ([u[c] for c in tpl.unit_columns] for u in units))
        copy_rows(cur, "unit_sources", ["source_id", "memory_id"], sources)
        copy_rows(
            cur, "segments", tpl.segment_columns, ([g[c] for c in tpl.segment_columns] for g in segments)
        )
        cols = ["seq", "chain_id", "receipt_id", "run_id", "link", "body"]
        copy_rows(cur, "receipt_outbox", cols, receipts)
        cur.execute(
            "UPDATE receipt_chains SET seq = %s, link = %s WHERE chain_id = %s",
            (head.seq, head.link, head.chain_id),
        )
        cur.execute(
            "INSERT INTO search_postings (scope_token, term, doc, tf, length)"
            " SELECT u.scope_token, t.key, u.rowid, t.value::int, u.term_count"
            " FROM units u, jsonb_each_text(u.terms::jsonb) t WHERE u.rowid > %s AND u.terms IS NOT NULL",
            (low,),
        )
        cur.execute(
            "INSERT INTO search_terms (scope_token, term, df) SELECT scope_token, term, count(*)"
            " FROM search_postings WHERE doc > %s GROUP BY 1, 2 ORDER BY 1, 2"
            " ON CONFLICT (scope_token, term) DO UPDATE SET df = search_terms.df + excluded.df",
            (low,),
        )
        cur.execute(
            "INSERT INTO search_scopes (scope_token, docs, length)"
            " SELECT scope_token, count(*), sum(term_count) FROM units"
            " WHERE rowid > %s AND terms IS NOT NULL GROUP BY 1 ORDER BY 1"
            " ON CONFLICT (scope_token) DO UPDATE SET docs = search_scopes.docs + excluded.docs,"
            " length = search_scopes.length + excluded.length",
            (low,),
        )
    conn.commit()
    conn.execute("RESET session_replication_role")


def copy_rows(cur: psycopg.Cursor[Any], table: str, cols: list[str], rows: Iterable[Sequence[Any]]) -> None:
    with cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def grow(
    url: str, mem: memoryos.Memory, clock: FakeClock, tpl: Template, *, stored: int, target: int
) -> tuple[int, float]:
    """Copies until `target` turns are stored (the last copy may pass it); then VACUUM ANALYZE, as
    autovacuum would have by then. Returns the turns stored and the seconds it took."""
    started = time.perf_counter()
    need = max(0, -(-(target - stored) // tpl.turns))
    per_batch = max(1, BATCH_TURNS // tpl.turns)
    with psycopg.connect(url) as conn:
        while need:
            batch = min(need, per_batch)
            write_copies(conn, mem, clock, tpl, batch)
            need -= batch
            stored += batch * tpl.turns
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    return stored, time.perf_counter() - started


# -- verification -------------------------------------------------------------------------------------
STATS_CHECKS = {
    "term statistics that differ from the postings": (
        "SELECT count(*) FROM (SELECT scope_token, term, count(*) AS df FROM search_postings GROUP BY 1, 2) a"
        " FULL JOIN search_terms t USING (scope_token, term) WHERE a.df IS DISTINCT FROM t.df"
    ),
    "scope statistics that differ from the units": (
        "SELECT count(*) FROM (SELECT scope_token, count(*) AS docs, sum(term_count) AS length FROM units"
        " WHERE terms IS NOT NULL GROUP BY 1) a FULL JOIN search_scopes s USING (scope_token)"
        " WHERE a.docs IS DISTINCT FROM s.docs OR a.length IS DISTINCT FROM s.length"
    ),
    "postings missing or extra": (
        "SELECT abs((SELECT count(*) FROM units u, jsonb_each_text(u.terms::jsonb) t)"
        " - (SELECT count(*) FROM search_postings))"
    ),
    "segments whose page count differs from their pages": (
        "SELECT count(*) FROM segments g WHERE g.pages != (SELECT count(*) FROM units p"
        " WHERE p.segment_id = g.segment_id AND p.tier = 'mtm')"
    ),
    "gaps in the receipt seq": "SELECT max(seq) - count(*) + (min(seq) - 1) FROM receipt_outbox",
    "chain head rows not at the outbox's last receipt": (
        "SELECT count(*) FROM receipt_chains c WHERE c.seq != (SELECT max(seq) FROM receipt_outbox)"
        " OR c.link != (SELECT link FROM receipt_outbox ORDER BY seq DESC LIMIT 1)"
    ),
}


def verify(url: str, mem: memoryos.Memory, now: datetime) -> dict[str, Any]:
    """Every invariant the store checks, the statistics recomputed, and the auditor's verdicts at
    the store's own (simulated) time `now`."""
    started = time.perf_counter()
    findings = [f"{f.code}: {f.detail}" for f in mem.check()]
    with psycopg.connect(url) as conn:
        for what, sql in STATS_CHECKS.items():
            count = int(conn.execute(sql).fetchone()[0])  # type: ignore[index]
            if count:
                findings.append(f"{count} {what}")
        counts = dict(conn.execute("SELECT tier, count(*) FROM units GROUP BY 1").fetchall())
        counts["receipts"] = conn.execute("SELECT count(*) FROM receipt_outbox").fetchone()[0]  # type: ignore[index]
        counts["postings"] = conn.execute("SELECT count(*) FROM search_postings").fetchone()[0]  # type: ignore[index]
        counts["segments"] = conn.execute("SELECT count(*) FROM segments").fetchone()[0]  # type: ignore[index]
        counts["bytes"] = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]  # type: ignore[index]
    checked = time.perf_counter() - started
    audit = subprocess.run(
        [
            sys.executable,
            "-m",
            "auditor",
            "check",
            "--db",
            url,
            "-q",
            "--format",
            "json",
            "--now",
            format_utc(now),
        ],
        capture_output=True,
        timeout=3600,
        check=False,
    )
    try:
        audited = orjson.loads(audit.stdout)
        verdicts = {k: int(v) for k, v in audited["counts"].items() if v}
        verdicts["macs verified"] = int(bool(audited["macs"]["verified"]))
        verdicts["receipts read"] = int(audited["receipts"])
    except (orjson.JSONDecodeError, KeyError, TypeError):
        verdicts = {"unreadable auditor output": 1}
        findings.append(f"auditor exit {audit.returncode}: {audit.stderr.decode()[-300:]}")
    return {
        "findings": findings,
        "counts": {k: int(v) for k, v in counts.items()},
        "check_s": checked,
        "audit_s": time.perf_counter() - started - checked,
        "audit_exit": audit.returncode,
        "audit_verdicts": verdicts,
    }


# -- timing remember() -------------------------------------------------------------------------------
def measure(
    mem: memoryos.Memory,
    raw: psycopg.Connection[Any],
    scopes: list[memoryos.Scope],
    samples: int,
    rng: random.Random,
) -> dict[str, float]:
    """remember() on the big scope and on small scopes in turn, each followed by a raw
    INSERT+COMMIT (machine noise hits both alike); p50 and p90 of each, in µs."""
    big: list[float] = []
    small: list[float] = []
    base: list[float] = []
    for i in range(samples):
        scope = BIG if i % 2 == 0 else scopes[(i // 2) % len(scopes)]
        text = ("deploy " if scope is BIG else "") + sentence(rng)
        (big if scope is BIG else small).append(timed(lambda s=scope, t=text: mem.remember(s, t)))  # type: ignore[misc]
        base.append(timed(lambda: raw_insert(raw, rng)))
    raw.execute("DELETE FROM raw_units")
    raw.commit()
    return {
        "big_p50": statistics.median(big) * 1e6,
        "small_p50": statistics.median(small) * 1e6,
        "raw_p50": statistics.median(base) * 1e6,
        "big_p90": percentile(big, 0.9) * 1e6,
        "small_p90": percentile(small, 0.9) * 1e6,
        "raw_p90": percentile(base, 0.9) * 1e6,
    }


def seeded(
    url: str, big: int, scopes: int, turns: int
) -> tuple[memoryos.Memory, FakeClock, Template, int, float]:
    """The seed written through remember() and its template: (store, clock, template, turns
    stored, seconds the seed took)."""
    clock = bench_clock()
    mem = open_store(url, clock)
    begun, started = clock.now, time.perf_counter()
    stored = write_seed(mem, big, scopes, turns, random.Random(1))
    seconds = time.perf_counter() - started
    with psycopg.connect(url) as conn:
        tpl = template(mem, conn, scopes)
    tpl.start, tpl.span = begun, clock.now - begun + timedelta(milliseconds=1)
    return mem, clock, tpl, stored, seconds


def run_sizes(args: argparse.Namespace, results: dict[str, Any]) -> None:
    rng = random.Random(7)
    results["sizes"] = {}
    with database(args.db) as url:
        mem, clock, tpl, stored, seed_s = seeded(url, args.seed_big, args.seed_scopes, args.seed_turns)
        results["seed"] = {
            "turns": stored,
            "seconds": seed_s,
            "copy_turns": tpl.turns,
            "copy_big": sum(u["user_scope"] == tpl.big_user for u in tpl.units),
        }
        print(f"seed: {results['seed']}", flush=True)
        raw = raw_connection(url)
        for size in args.sizes:
            stored, fill_s = grow(url, mem, clock, tpl, stored=stored, target=size)
            mem.close()
            mem = open_store(url, clock)
            check = verify(url, mem, clock.now)
            timed_scopes = [small_scope(0, j) for j in range(min(2, args.seed_scopes))]
            timed_scopes += [small_scope(tpl.copies, j) for j in range(min(2, args.seed_scopes))]
            runs = [measure(mem, raw, timed_scopes, args.samples, rng) for _ in range(args.runs)]
            figures = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            stored += args.samples * args.runs
            results["sizes"][size] = {"stored": stored, "fill_s": fill_s, **check, **figures, "load": load()}
            print(f"size {size:,}: {results['sizes'][size]}", flush=True)
            if check["findings"]:
                print(f"FINDINGS at {size:,}: {check['findings'][:5]}", flush=True)
            if args.out:  # each size as it is measured: a long run cut short keeps what it reached
                Path(args.out).write_text(report(results, args), encoding="utf-8")
        raw.close()
        mem.close()


# -- the report ----------------------------------------------------------------------------------------
def command(args: argparse.Namespace) -> str:
    parts = [f"python bench/bench_pg_scale.py --sizes '{','.join(map(str, args.sizes))}'"]
    parts.append(
        f"--seed-big {args.seed_big} --seed-scopes {args.seed_scopes} --seed-turns {args.seed_turns}"
    )
    parts.append(f"--samples {args.samples} --runs {args.runs}")
    if args.scaleout:
        parts.append(f"--scaleout --writers {','.join(map(str, args.writers))} --seconds {args.seconds}")
    return " ".join(parts)


def size_lines(results: dict[str, Any]) -> list[str]:
    seed = results["seed"]
    lines = [
        "## remember() p50 against the stored turns",
        "",
        f"Seed through remember(): {seed['turns']:,} turns in {seed['seconds']:.0f} s; each copy adds"
        f" {seed['copy_turns']:,} turns ({seed['copy_big']:,} of them pages of the big scope's full"
        " segments).",
        "",
        "| stored turns | fill | check + audit | findings | auditor verdicts | big scope p50"
        " | small scopes p50 | raw INSERT+COMMIT p50 | big / raw | small / raw | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    sizes = results["sizes"]
    for r in sizes.values():
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r["audit_verdicts"].items()))
        lines.append(
            f"| {r['stored']:,} ({r['counts'].get('mtm', 0):,} pages, {r['counts']['receipts']:,} receipts,"
            f" {r['counts']['postings']:,} postings, {r['counts']['bytes'] / 2**20:,.0f} MiB)"
            f" | {r['fill_s']:.0f} s | {r['check_s']:.0f} s + {r['audit_s']:.0f} s"
            f" | {len(r['findings'])} | {verdicts} (exit {r['audit_exit']})"
            f" | {r['big_p50']:.0f} µs | {r['small_p50']:.0f} µs | {r['raw_p50']:.0f} µs"
            f" | {r['big_p50'] / r['raw_p50']:.2f}x | {r['small_p50'] / r['raw_p50']:.2f}x | {r['load']} |"
        )
    first, last = sizes[min(sizes)], sizes[max(sizes)]
    for who in ("big", "small"):
        lines.append(
            f"\n{who} scope(s), p50 at {last['stored']:,} / at {first['stored']:,}:"
            f" {last[who + '_p50'] / first[who + '_p50']:.2f}x (target <= 1.5x);"
            f" normalised by the raw baseline of each size:"
            f" {(last[who + '_p50'] / last['raw_p50']) / (first[who + '_p50'] / first['raw_p50']):.2f}x"
        )
    for size, r in sizes.items():
        for finding in r["findings"]:
            lines.append(f"- finding at {size:,}: {finding}")
    return lines


def report(results: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"# PostgreSQL at scale — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"Machine: {os.cpu_count()} cores (shared), Python {platform.python_version()},"
        f" {server_version(args.db)} on the same machine. Load average at the end: {load()}.",
        f"Command: `{command(args)}`",
        "",
    ]
    if results.get("sizes"):
        lines += [*size_lines(results), ""]
    if "scaleout" in results:
        lines += scaleout_lines(results)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--db", default=DEFAULT_SERVER, help="PostgreSQL server URL (databases are made there)"
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="stored turns to time remember() at")
    parser.add_argument("--seed-big", type=int, default=1500, help="seed turns of the big scope")
    parser.add_argument("--seed-scopes", type=int, default=4, help="small scopes of the seed")
    parser.add_argument("--seed-turns", type=int, default=100, help="seed turns of each small scope")
    parser.add_argument("--samples", type=int, default=300, help="remember() calls timed per size and run")
    parser.add_argument("--runs", type=int, default=1, help="repetitions per size (medians)")
    parser.add_argument("--scaleout", action="store_true", help="measure writer processes too")
    parser.add_argument("--writers", default="1,2,4,8", help="writer process counts of the scale-out")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one scale-out round")
    parser.add_argument("--out", default="bench/results/pg_scale.md", help="markdown results ('' to skip)")
    parser.add_argument("--json", default="", help="also write every figure here as JSON")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--writer-id", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.db, args.writer_id, args.seconds, args.start_at)
        return
    args.sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    args.writers = [int(w) for w in args.writers.split(",") if w]
    results: dict[str, Any] = {}
    if args.sizes:
        run_sizes(args, results)
    if args.scaleout:
        run_scaleout(args, results)
    publish(report(results, args), results, args)


if __name__ == "__main__":
    main()
