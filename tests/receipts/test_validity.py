"""is_valid's compiled checks decide exactly what problems() decides, on valid and mutated receipts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from receipts import ChainHead, model, seal, uuid7

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
KEY = bytes(range(32))


class Seq(int):
    """An int subclass: valid to the full check, not the exact type the fast test expects."""


class Text(str):
    """A str subclass, likewise."""


def sealed(**fields: Any) -> dict[str, Any]:
    draft = {
        "runId": uuid7(),
        "boundary": "stm_to_mtm",
        "status": "committed",
        "userScope": "a" * 32,
        "assistantScope": "b" * 32,
        "sourceVersion": "memoryos/0.1.0+abcdef123456",
        "memoryId": uuid7(),
        "version": 1,
        "fromTier": "stm",
        "toTier": "mtm",
        "derivedFrom": [f"{uuid7()}@1"],
        "sourcePresent": False,
        **fields,
    }
    return seal({k: v for k, v in draft.items() if v is not ...}, ChainHead("store-1", 4), KEY, AT).receipt


BASES = [
    sealed(),
    sealed(boundary="evict", reason="capacity", fromTier="mtm", toTier=..., derivedFrom=[]),
    sealed(
        boundary="generate", dependsOnVersion=[f"{uuid7()}@2", f"{uuid7()}@3"], outcomeReceipt="sha256:ab"
    ),
    sealed(boundary="store", status="waiting", waitUntilUtc="2026-11-29T12:00:00.000000Z", degraded=True),
]
UPPER = uuid7().upper()
NEAR_MISSES = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2**63,
    2**63 - 1,
    Seq(3),
    1.0,
    "",
    "x",
    UPPER,
    Text(uuid7()),
    [],
    (),
    [UPPER + "@1"],
    [f"{uuid7()}@0"],
    [f"{uuid7()}@1", 7],
    (f"{uuid7()}@1",),
    [Text(f"{uuid7()}@1")],
    "0" * 64,
    "A" * 64,
    "0" * 63,
    "stm",
    "mtm",
    "lpm",
    "store",
    "evict",
    "generate",
    "waiting",
    "failed",
    "2026-02-30T12:00:00.000000Z",
    "2026-11-29T12:00:00.000000Z",
    "capacity",
    "sha256:ab",
    "memoryos/0.1.0",
    "a" * 16,
    "a" * 65,
    Text("a" * 32),
    {"k": 1},
    ["stm"],
]
FIELD = st.sampled_from([*model.FIELDS, "extra"])
EDIT = st.tuples(FIELD, st.sampled_from(NEAR_MISSES) | st.just(...))


def _mutated(base: dict[str, Any], edits: list[tuple[str, Any]], rotate: int) -> dict[str, Any]:
    receipt = dict(base)
    for name, value in edits:
        if value is ...:
            receipt.pop(name, None)
        else:
            receipt[name] = value
    items = list(receipt.items())  # another key order compiles another check
    return dict(items[rotate:] + items[:rotate])


MUTATED = st.builds(
    _mutated,
    st.sampled_from(BASES),
    st.lists(EDIT, max_size=3),
    st.integers(0, 3),
)


def disagrees(receipt: dict[str, Any]) -> bool:
    # twice: the second call runs the check cached for the key order, with the memo filled
    return any(model.is_valid(receipt) != (model.problems(receipt) == []) for _ in range(2))


@pytest.fixture
def fresh_plans() -> Iterator[None]:
    model._plans.clear()
    yield
    model._plans.clear()


def test_every_base_is_valid(fresh_plans: None) -> None:
    assert all(model.is_valid(base) and model.problems(base) == [] for base in BASES)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(MUTATED)
def test_the_compiled_check_agrees_with_problems(receipt: dict[str, Any]) -> None:
    assert not disagrees(receipt)


def test_a_mapping_that_is_not_a_dict_takes_the_full_check() -> None:
    from types import MappingProxyType

    assert model.is_valid(MappingProxyType(BASES[0]))
    assert not model.is_valid(MappingProxyType({**BASES[0], "seq": 0}))


def test_a_planted_mutant_is_caught(fresh_plans: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The differential property is strong enough to catch a fast test that accepts too much."""
    monkeypatch.setitem(model._ACCEPT, "prev", "(type(v) is str)")
    found = find(MUTATED, disagrees, settings=settings(max_examples=2000, database=None))
    assert model.problems(found) and model.is_valid(found)


def test_stamp_drops_none_fields_and_leaves_the_draft_alone() -> None:
    from receipts import pipeline

    draft = {"runId": uuid7(), "reason": None, "boundary": "store"}
    stamped = pipeline.stamp(draft, ChainHead("c"), AT)
    assert "reason" not in stamped and stamped["boundary"] == "store" and stamped["seq"] == 1
    plain = {"runId": draft["runId"], "boundary": "store"}
    assert pipeline.stamp(plain, ChainHead("c"), AT).keys() == stamped.keys()
    assert draft["reason"] is None and "receiptId" not in plain  # neither draft was modified
