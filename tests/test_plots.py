"""bench/plot.py draws its curves from the committed results tables (nothing measured again)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results"
PNG = b"\x89PNG\r\n\x1a\n"


def test_the_committed_tables_give_their_plots(tmp_path: Path) -> None:
    for table in RESULTS.glob("*.md"):
        shutil.copy(table, tmp_path / table.name)
    plot = Path(__file__).resolve().parent.parent / "bench" / "plot.py"
    run = subprocess.run(
        [sys.executable, str(plot), "--results", str(tmp_path)], capture_output=True, text=True, check=True
    )
    for name in ("scaling", "auditor", "watch"):
        image = tmp_path / f"{name}.png"
        assert image.read_bytes().startswith(PNG), run.stdout
        assert image.stat().st_size > 10_000  # axes, lines and labels, not an empty canvas
