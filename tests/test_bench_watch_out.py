"""bench_watch.py takes `--out ''` as the other benchmarks do: print the table, write nothing.

Before, `--out` was parsed as a Path and Path('') is the current directory, so the run ended, after
all its measuring, in IsADirectoryError. A bounded smoke run (about 10 s), like tests/test_benchmarks.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_watch.py"
SMOKE = ["--runs", "1", "--seconds", "1", "--lag-seconds", "2", "--turns", "20", "--interval", "0.5", "-q"]


def _run(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), *SMOKE, *extra],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_out_empty_prints_the_table_and_writes_nothing(tmp_path: Path) -> None:
    result = _run(tmp_path, "--out", "")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "| run | alone | watched | ratio |" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_out_a_file_writes_the_table(tmp_path: Path) -> None:
    out = tmp_path / "watch.md"
    result = _run(tmp_path, "--out", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "| run | alone | watched | ratio |" in out.read_text(encoding="utf-8")
