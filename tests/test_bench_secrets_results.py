"""bench_secrets.py replaces only its generated section of the results file and keeps the sections
engineers appended after it (before, a run without --no-write rewrote the whole file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from bench_secrets import GENERATED_BEGIN, GENERATED_END, merged_results  # noqa: E402

OLD_RUN = "# No-store detector benchmark\n\n- date: 2026-11-30\n| project | 90% |\n"
APPENDED = "## 2026-12-01 15:34 UTC: an engineer's section\n\nfigures\n\n## 2026-12-01: another\n\nmore\n"
NEW_RUN = "# No-store detector benchmark\n\n- date: 2026-12-02\n| project | 99% |\n"


def test_a_file_without_markers_keeps_its_appended_sections() -> None:
    merged = merged_results(OLD_RUN + "\n" + APPENDED, NEW_RUN)
    assert merged.startswith(GENERATED_BEGIN)
    assert "2026-12-02" in merged and "2026-11-30" not in merged
    assert merged.endswith(APPENDED)


def test_the_section_between_the_markers_is_the_only_part_replaced() -> None:
    once = merged_results(OLD_RUN + "\n" + APPENDED, NEW_RUN)
    twice = merged_results(once + "## later section\n", NEW_RUN.replace("2026-12-02", "2026-12-03"))
    assert twice.count(GENERATED_BEGIN) == twice.count(GENERATED_END) == 1
    assert "2026-12-03" in twice and "2026-12-02" not in twice
    assert twice.endswith(APPENDED + "## later section\n")


def test_a_new_or_foreign_file_gets_the_section_and_keeps_what_it_held() -> None:
    assert merged_results(None, NEW_RUN) == f"{GENERATED_BEGIN}\n{NEW_RUN.rstrip()}\n{GENERATED_END}\n"
    assert merged_results("notes of mine\n", NEW_RUN).endswith("\nnotes of mine\n")


def test_a_run_writes_its_section_and_keeps_the_others(tmp_path: Path) -> None:
    out = tmp_path / "secrets.md"
    out.write_text(OLD_RUN + "\n" + APPENDED, encoding="utf-8")
    small = ["--per-family", "2", "--benign", "10", "--limit", "5", "--hex-notes", "0", "--out", str(out)]
    result = subprocess.run(
        [sys.executable, str(BENCH / "bench_secrets.py"), *small],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    written = out.read_text(encoding="utf-8")
    assert "| project |" in written and "2026-11-30" not in written
    assert written.endswith(APPENDED)
