"""bench/bench_pg_scale.py's bulk fill: a store grown by copies of a seed written through
remember() passes every check memoryos and the auditor make, and those checks do catch a copy that
breaks the index statistics or the receipt chain (so a clean verdict on a filled store means
something). The full figures are in bench/results/pg_scale.md."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import orjson
import psycopg

from tests.pg_server import pg_url, require_postgres

__all__ = ["pg_url"]
BENCH = Path(__file__).resolve().parents[2] / "bench"
BAD_VERDICTS = (
    "scope_conflict",
    "source_at_risk",
    "promotion_missing",
    "uncertain",
    "unreadable auditor output",
)


def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # the benchmark imports its siblings (bench_core, bench_postgres)
    spec = importlib.util.spec_from_file_location("bench_pg_scale", BENCH / "bench_pg_scale.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_fills_a_store_that_passes_every_check(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    args = ["--db", require_postgres(), "--sizes", "1200", "--seed-big", "300", "--seed-scopes", "1"]
    args += ["--seed-turns", "10", "--samples", "6", "--out", "", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_pg_scale.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "big / raw" in done.stdout  # the report states remember() against its raw baseline
    figures = orjson.loads(out.read_bytes())
    assert figures["seed"]["copy_big"] > 0  # the copies hold full segments of the big scope
    size = figures["sizes"]["1200"]
    assert size["stored"] >= 1200 and size["findings"] == []
    verdicts = size["audit_verdicts"]
    assert verdicts["macs verified"] == 1 and verdicts["receipts read"] == size["counts"]["receipts"]
    assert not [v for v in BAD_VERDICTS if verdicts.get(v)], verdicts
    assert size["big_p50"] > 0 and size["small_p50"] > 0 and size["raw_p50"] > 0


def test_the_fill_checks_catch_broken_statistics_and_a_broken_chain(pg_url: str) -> None:
    scale = bench()
    mem, clock, tpl, stored, _ = scale.seeded(pg_url, 300, 1, 10)
    try:
        scale.grow(pg_url, mem, clock, tpl, stored=stored, target=900)
        assert scale.verify(pg_url, mem, clock.now)["findings"] == []
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE search_terms SET df = df + 1 WHERE (scope_token, term) IN"
                " (SELECT scope_token, term FROM search_terms ORDER BY term LIMIT 1)"
            )
        found = scale.verify(pg_url, mem, clock.now)["findings"]
        assert found == ["1 term statistics that differ from the postings"]
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE search_terms SET df = df - 1 WHERE (scope_token, term) IN"
                " (SELECT scope_token, term FROM search_terms ORDER BY term LIMIT 1)"
            )
            conn.execute("DELETE FROM receipt_outbox WHERE seq = 700")  # a copy's receipt lost
        found = scale.verify(pg_url, mem, clock.now)["findings"]
        assert "receipt_chain: chain breaks at seq 701" in found
        assert "1 gaps in the receipt seq" in found
    finally:
        mem.close()
