"""Black-box probes (session 9): a damaged export is refused whole, with InvalidInput."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memoryos


def _export(mem: memoryos.Memory, scope: memoryos.Scope, path: Path) -> list[dict[str, Any]]:
    for i in range(3):
        mem.remember(scope, f"turn {i}: I deploy blyck with make release")
    mem.put(scope, "deploy:blyck", "make release", kind="procedure")
    mem.export(path, redacted=False)
    return [json.loads(line) for line in path.read_text().splitlines()]


def _damaged(records: list[dict[str, Any]], field: str, value: object) -> list[dict[str, Any]]:
    out = [dict(r) for r in records]
    first = next(r for r in out if r.get("type") == "unit")
    first[field] = value
    return out


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("body", None),
        ("body", 5),
        ("body", "a\x00b"),
        ("source_ids", "abc"),  # would become the ids ('a', 'b', 'c')
        ("source_ids", [1, 2]),
        ("version", True),
    ],
)
def test_an_export_with_a_unit_field_of_the_wrong_type_is_refused_whole(
    field: str, value: object, mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    source = tmp_path / "full.jsonl"
    records = _damaged(_export(mem, alice, source), field, value)
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    fresh = memoryos.open(tmp_path / "fresh.db")
    try:
        with pytest.raises(memoryos.InvalidInput, match=f"unit field {field} must be"):
            fresh.import_jsonl(source)
        assert fresh.status()["tiers"] == {"stm": 0, "mtm_pages": 0, "mtm_segments": 0, "lpm": 0}
    finally:
        fresh.close()


def test_an_export_whose_scope_key_is_not_hex_is_refused(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    source = tmp_path / "full.jsonl"
    records = _export(mem, alice, source)
    records[0]["scopeKey"] = "zz" * 32
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    fresh = memoryos.open(tmp_path / "fresh.db")
    try:
        with pytest.raises(memoryos.InvalidInput, match="scopeKey is not 64 hex digits"):
            fresh.import_jsonl(source)
        fresh.remember(alice, "the store still works")  # the bad key was not kept
    finally:
        fresh.close()
