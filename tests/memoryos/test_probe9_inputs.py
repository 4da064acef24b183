"""Black-box probes (session 9): hostile arguments get a MemoryOSError that says what to do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import memoryos

Call = Callable[[memoryos.Memory, memoryos.Scope, Path], Any]


def _run_id(m: memoryos.Memory, s: memoryos.Scope) -> str:
    return m.recall(s, "deploy").run_id


REFUSED: dict[str, Call] = {
    "dict as role": lambda m, s, d: m.remember(s, "hi", role={"a": 1}),  # type: ignore[arg-type]
    "list as kind": lambda m, s, d: m.put(s, "k", "v", kind=["fact"]),  # type: ignore[arg-type]
    "int as depends_on": lambda m, s, d: m.generated(s, _run_id(m, s), depends_on=3),  # type: ignore[arg-type]
    "None as depends_on": lambda m, s, d: m.generated(s, _run_id(m, s), depends_on=None),  # type: ignore[arg-type]
    "int as cursor": lambda m, s, d: m.export_receipts(d / "r.jsonl", cursor=12),  # type: ignore[arg-type]
    "surrogate cursor": lambda m, s, d: m.export_receipts(d / "r.jsonl", cursor="a\ud800"),
    "surrogate export path": lambda m, s, d: m.export(str(d / "e\udfff.jsonl")),
    "export name too long": lambda m, s, d: m.export(str(d / ("x" * 10_000))),
    "int as import path": lambda m, s, d: m.import_jsonl(12),  # type: ignore[arg-type]
    "NUL in import path": lambda m, s, d: m.import_jsonl(str(d / "a\x00b")),
    "surrogate import path": lambda m, s, d: m.import_jsonl(str(d / "a\ud800")),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_hostile_argument_is_refused_with_invalid_input(
    name: str, mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    mem.remember(alice, "I deploy with make release")
    with pytest.raises(memoryos.InvalidInput) as refused:
        REFUSED[name](mem, alice, tmp_path)
    assert str(refused.value).strip()
    assert len(str(refused.value)) < 400  # a 10k-character name is not echoed back


@pytest.mark.parametrize("flag", [None, 0, "", "no"])
def test_export_refuses_a_redacted_flag_that_is_not_a_bool(
    flag: object, mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    """redacted=None used to write an unredacted file carrying the scope key."""
    mem.remember(alice, "I deploy with make release")
    target = tmp_path / "e.jsonl"
    with pytest.raises(memoryos.InvalidInput, match="redacted must be True or False"):
        mem.export(target, redacted=flag)  # type: ignore[arg-type]
    with pytest.raises(memoryos.InvalidInput, match="scope_key must be True or False"):
        mem.export(target, scope_key=flag if flag is not None else "yes")  # type: ignore[arg-type]
    assert not target.exists()


def test_generated_keeps_the_refs_of_a_generator(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    """The check consumed a generator, and the receipt then said the answer used nothing."""
    mem.remember(alice, "I deploy with make release")
    res = mem.recall(alice, "deploy")
    assert res.hits
    mem.generated(alice, res.run_id, depends_on=(h.ref for h in res.hits))
    out = tmp_path / "r.jsonl"
    mem.export_receipts(out)
    generate = [r for r in map(orjson.loads, out.read_bytes().splitlines()) if r["boundary"] == "generate"]
    assert [r["dependsOnVersion"] for r in generate] == [[h.ref for h in res.hits]]


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("a\ud800.db", memoryos.StorePathError),
        ("x" * 10_000, memoryos.StorePathError),
        (10**30, memoryos.StorePathError),
    ],
)
def test_open_refuses_a_path_the_os_cannot_take(path: object, error: type[Exception], tmp_path: Path) -> None:
    where = str(tmp_path / path) if isinstance(path, str) else path
    with pytest.raises(error):
        memoryos.open(where)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"config": {"stm_capacity": 3}}, memoryos.ConfigError),
        ({"config": "config.json"}, memoryos.ConfigError),
        ({"clock": 12}, memoryos.InvalidInput),
    ],
)
def test_open_refuses_a_wrong_config_or_clock_object(
    kwargs: dict[str, Any], error: type[Exception], tmp_path: Path
) -> None:
    with pytest.raises(error):
        memoryos.open(tmp_path / "s.db", **kwargs)
    assert not (tmp_path / "s.db").exists()
