"""Moving a store: `memoryos export` from SQLite, `memoryos import` into PostgreSQL, and back, through
the CLI. Ids, versions, validity, lineage and tombstones come through unchanged both ways: the
export of each copy says the same as the export of the original."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import memoryos
from memoryos.cli import main
from memoryos.testing import FakeClock

ANN = memoryos.Scope(user="ann", assistant="coder")
BEN = memoryos.Scope(user="ben", assistant="coder")
#: Small tiers, so a short history crosses every boundary: promotion, distillation with lineage.
CONFIG: dict[str, Any] = {"stm_capacity": 3, "heat_threshold": 2.0, "segment_max_pages": 4}


def build(path: Path) -> None:
    """A store with every kind of row: turns, pages, records with versions, corrections, tombstones."""
    clock = FakeClock()
    with memoryos.open(path, clock=clock, **CONFIG) as mem:
        for n in range(12):
            mem.remember(ANN if n % 3 else BEN, f"turn {n}: the deploy pipeline uses rust and kiwi {n % 4}")
            clock.advance(minutes=5)
        mem.put(ANN, "editor", "ann uses helix", kind="fact")
        mem.correct(ANN, "editor", "ann uses neovim", reason="changed her mind")
        mem.put(BEN, "language", "ben writes go")
        mem.put(BEN, "secret-plan", "ben plans a surprise")
        mem.forget(BEN, "secret-plan")
        mem.forget(ANN, mem.remember(ANN, "a turn ann takes back").memory_id)
        for _ in range(3):
            mem.recall(ANN, "deploy pipeline rust")
            clock.advance(hours=2)
            mem.maintain()
        mem.remember(ANN, "a turn still in short-term memory")


def cli(*argv: str) -> None:
    assert main(list(argv)) == 0, argv


def export(db: str, out: Path) -> dict[str, list[dict[str, Any]]]:
    cli("export", "--db", db, "--jsonl", str(out), "--unredacted")
    lines = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    kinds: dict[str, list[dict[str, Any]]] = {"unit": [], "segment": [], "tombstone": []}
    for line in lines[1:]:
        kinds[line.pop("type")].append(line)
    return {kind: sorted(rows, key=orjson.dumps) for kind, rows in kinds.items()}


def same_store(copy: dict[str, list[dict[str, Any]]], original: dict[str, list[dict[str, Any]]]) -> None:
    assert copy["unit"] == original["unit"]  # ids, versions, validity, lineage, bodies, status
    assert copy["tombstone"] == original["tombstone"]
    assert [s["segment_id"] for s in copy["segment"]] == [s["segment_id"] for s in original["segment"]]


@pytest.fixture(params=["postgresql", "sqlite"])
def middle(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store the original moves into and back out of; SQLite is the control of the test itself."""
    if request.param == "sqlite":
        return str(tmp_path / "middle.db")
    return str(request.getfixturevalue("pg_url"))


def test_a_store_moves_to_postgresql_and_back_unchanged(middle: str, tmp_path: Path) -> None:
    build(tmp_path / "original.db")
    original = export(str(tmp_path / "original.db"), tmp_path / "original.jsonl")
    assert original["tombstone"] and {u["tier"] for u in original["unit"]} >= {"stm", "mtm", "lpm"}
    assert any(u["version"] > 1 for u in original["unit"])
    assert any(u["derived_from"] and u["tier"] == "lpm" for u in original["unit"])  # distilled lineage

    cli("import", "--db", middle, "--jsonl", str(tmp_path / "original.jsonl"))
    moved = export(middle, tmp_path / "moved.jsonl")
    same_store(moved, original)

    back = str(tmp_path / "back.db")
    cli("import", "--db", back, "--jsonl", str(tmp_path / "moved.jsonl"))
    same_store(export(back, tmp_path / "back.jsonl"), original)

    with memoryos.open(middle) as mem:  # the moved store works as the original did
        editor = mem.get(ANN, "editor")
        assert editor is not None and (editor.body, editor.version) == ("ann uses neovim", 2)
        assert mem.forget(BEN, "secret-plan") == 0  # the tombstone came along: nothing left to erase
        assert mem.check() == []
