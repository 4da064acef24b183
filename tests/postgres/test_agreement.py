"""PostgreSQL ranks as SQLite does: recall()'s top-5 on the same generated corpus agree on at least
95% of their ids (bench/bench_pg_agreement.py measures it on a larger corpus)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tests.pg_server import pg_url

__all__ = ["pg_url"]

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_pg_agreement.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_pg_agreement", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_recall_on_postgres_agrees_with_sqlite_on_the_top_five(pg_url: str) -> None:
    found = _bench().measure(users=2, sessions=3, pg_url=pg_url)
    assert found.questions >= 40 and found.overlap >= 0.95


def test_the_agreement_measure_sees_a_difference() -> None:
    bench = _bench()
    found = bench.compare([["a", "b"], ["c"]], [["a", "x"], ["c"]])
    assert (found.overlap, found.identical) == (0.75, 0.5)
