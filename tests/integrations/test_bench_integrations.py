"""A bounded slice of bench_integrations, so that it does not rot between full runs (no targets)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_integrations.py"


def test_bench_integrations_runs_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "integrations.md"
    args = [sys.executable, str(BENCH), "--records", "40", "--runs", "1", "--out", str(out)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "| put p50 |" in text and "| search hit@5" in text
