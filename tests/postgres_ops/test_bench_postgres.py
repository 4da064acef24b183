"""A bounded slice of bench/bench_postgres.py, so that it does not rot between full runs: every
section runs end to end on the test server and reports its ratio. No performance target is asserted
here (the shared CI machine is too noisy): the figures are in bench/results/postgres.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from tests.pg_server import require_postgres

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_postgres.py"
SLICE = ["--sizes", "300,600", "--recall-size", "300", "--runs", "1", "--samples", "10"]
SLICE += ["--writers", "2", "--seconds", "1", "--records", "30"]


def test_the_postgres_benchmark_runs_every_section_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "postgres.md"
    argv = [sys.executable, str(BENCH), "--db", require_postgres(), *SLICE, "--out", str(out)]
    argv += ["--json", str(tmp_path / "postgres.json")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    text = out.read_text(encoding="utf-8")
    for measure in ("remember() p50", "full-STM promotion", "recall() p95", "writer processes", "put p50"):
        assert measure in text
    results = orjson.loads((tmp_path / "postgres.json").read_bytes())
    assert results["remember"]["300"]["ratio"] > 0 and results["scaleout"]["pg_ratio"] > 0
