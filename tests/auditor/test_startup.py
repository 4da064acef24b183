"""Fast starts: `check` never imports networkx (0.15 s of a 0.24 s run); `explain` and `report` do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.auditor.streams import Stream

PROBE = (
    "import sys\n"
    "from auditor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write('networkx' in sys.modules and 'NETWORKX' or 'NO-NETWORKX')\n"
)


def modules_after(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60, check=False
    )
    return done.stderr


def test_check_does_not_import_networkx(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl")
    assert modules_after("check", str(path), "--format", "json").endswith("NO-NETWORKX")


def test_explain_draws_with_networkx(tmp_path: Path) -> None:
    s = Stream()
    runs = s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl")
    assert modules_after("explain", runs[-1], str(path)).endswith("NETWORKX")
