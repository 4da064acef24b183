"""The open specification (docs/receipt-format.md): the shipped JSON Schema, the grammar, the words.

The schema is built from the field table (receipts.model.FIELDS); the shipped file must be exactly
that build, and every receipt the real memoryos store writes, at every boundary, must validate.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # ships no stubs

import memoryos
import receipts
from memoryos.testing import FakeClock
from receipts import ChainHead, ReceiptError, seal
from receipts.schema import SCHEMA_FILE, load_schema, render_schema

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent.parent
VALIDATOR = Draft202012Validator(load_schema())


def draft(**extra: Any) -> dict[str, Any]:
    return {
        "runId": receipts.uuid7(),
        "boundary": "store",
        "status": "committed",
        "sourceVersion": "memoryos/0.1.0+abcdef123456",
        "memoryId": receipts.uuid7(),
        "version": 1,
        "userScope": "a" * 32,
        "assistantScope": "b" * 32,
        **extra,
    }


def every_boundary(db: Path) -> None:
    """One real store, driven through all eleven boundaries."""
    clock = FakeClock()
    alice = memoryos.Scope(user="alice", assistant="coder")
    with memoryos.open(db, clock=clock, mtm_capacity=2) as mem:
        for i in range(7):  # a full STM is promoted; the hot segment is distilled into LPM
            mem.remember(alice, f"I prefer rust for the blyck build tool, note {i}.")
        for topic in ("garden tomatoes", "jazz piano", "tax forms"):  # MTM capacity: evictions
            mem.remember(alice, f"{topic} {topic}")
        with pytest.raises(memoryos.Rejected):
            mem.remember(alice, "the key id is AKIAIOSFODNN7EXAMPLE ok")
        mem.remember(alice, "a short-lived note", ttl=timedelta(minutes=1))
        clock.advance(minutes=2)
        mem.maintain()  # expiry
        mem.put(alice, "deploy:blyck", "make release", kind="fact")
        mem.correct(alice, "deploy:blyck", "make release-2")
        mem.put(alice, "gone", "to forget", kind="rule")
        mem.forget(alice, "gone", reason="user request")
        res = mem.recall(alice, "rust blyck build", k=5)
        mem.generated(alice, res.run_id, depends_on=[h.ref for h in res.hits], outcome="sha256:" + "ab" * 32)
        clock.advance(days=95)
        mem.maintain()  # decay of the fact


class TestShippedSchema:
    def test_the_shipped_file_is_the_schema_built_from_the_field_table(self) -> None:
        shipped = (ROOT / "receipts" / SCHEMA_FILE).read_bytes()
        assert shipped == render_schema(), "run: python -c 'from receipts.schema import ...' (see docs)"

    def test_it_is_a_valid_draft_2020_12_schema_and_installed_with_the_package(self) -> None:
        Draft202012Validator.check_schema(load_schema())
        assert load_schema()["properties"].keys() == receipts.FIELDS.keys()

    def test_every_receipt_memoryos_writes_validates(self, tmp_path: Path) -> None:
        db = tmp_path / "memory.db"
        every_boundary(db)
        written = [line.receipt for line in receipts.read_outbox(db) if line.receipt is not None]
        assert {r["boundary"] for r in written} == receipts.BOUNDARIES
        for receipt in written:
            errors = [e.message for e in VALIDATOR.iter_errors(receipt)]
            assert errors == [], (receipt["boundary"], errors)
            assert receipts.problems(receipt) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=2),
    max_leaves=5,
)
BASES = [
    seal(draft(), ChainHead("c"), bytes(32), AT).receipt,
    seal(draft(boundary="evict", reason="capacity", sourcePresent=False), ChainHead("c"), None, AT).receipt,
    seal(
        draft(boundary="generate", dependsOnVersion=[], outcomeReceipt="test:ok"), ChainHead("c"), None, AT
    ).receipt,
    seal(
        draft(status="waiting", waitUntilUtc="2026-11-29T12:00:00.000000Z"), ChainHead("c"), None, AT
    ).receipt,
]


@given(
    st.sampled_from(BASES),
    st.lists(st.tuples(st.sampled_from([*receipts.FIELDS, "extra"]), json_values | st.just(...)), max_size=3),
)
def test_the_schema_and_the_field_table_agree(base: dict[str, Any], edits: list[Any]) -> None:
    receipt = dict(base)
    for name, value in edits:
        if value is ...:
            receipt.pop(name, None)
        else:
            receipt[name] = value
    assert VALIDATOR.is_valid(receipt) == (receipts.problems(receipt) == [])


class TestSourceVersionGrammar:
    @pytest.mark.parametrize(
        "version",
        [
            "memoryos/0.1.0+cafe1234",
            "memoryos 0.0.0+cfg.3f2a9c01",  # the other producer of issue 13: a space, not a slash
            "acme-agent/2.3.1-rc.1+sha.0ff1ce",
            "acme_agent 1:2.0~beta",
        ],
    )
    def test_name_and_version_joined_by_a_slash_or_one_space_are_accepted(self, version: str) -> None:
        receipt = seal(draft(sourceVersion=version), ChainHead("c"), None, AT).receipt
        assert receipts.problems(receipt) == [] and VALIDATOR.is_valid(receipt)

    @pytest.mark.parametrize(
        ("version", "words"),
        [
            ("because Alice said her password is hunter2", "contains a second space at position 14"),
            ("memoryos\t0.1.0", "contains a tab at position 9"),
            ("0.1.0", "has no '<name>/' or '<name> ' before the version"),
            ("memoryos/0.1/x", "contains '/' at position 13 (in the version)"),
            ("memoryos 0.0.0+cfg.<hash>", "contains '<' at position 20"),
            ("m/" + "1" * 200, "is 202 characters long"),
            (7, "is an integer, not a string"),
        ],
    )
    def test_a_wrong_version_is_refused_saying_what_and_where(self, version: object, words: str) -> None:
        with pytest.raises(ReceiptError) as refused:
            seal(draft(sourceVersion=version), ChainHead("c"), None, AT)
        message = str(refused.value)
        assert "'sourceVersion'" in message and words in message
        assert "rule: ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}[ /]" in message


class TestProblemsNameFieldValueAndRule:
    @pytest.mark.parametrize(
        ("field", "value", "words"),
        [
            ("seq", 0, "is 0, out of range; rule: an integer in 1..9223372036854775807"),
            ("seq", "1", "is a string; rule: an integer"),
            ("atUtc", "2026-02-30T00:00:00.000000Z", "is not a real calendar day; rule: ^[0-9]{4}-"),
            ("atUtc", "2026-01-01 00:00:00Z", "contains a space at position 11; rule:"),
            ("derivedFrom", [receipts.uuid7() + "@1", "x@1"], "item 2 contains 'x' at position 1; rule:"),
            ("userScope", "ABCDEF0123456789", "contains 'A' at position 1; rule: ^[0-9a-f]{16,64}$"),
            ("boundary", "teleport", "is a string not in the list; rule: one of correct, decay"),
            ("sourcePresent", "yes", "is a string; rule: true or false"),
            ("reason", "ttl", "does not apply to boundary 'store'; rule: only decay, evict"),
            ("colour", "blue", "is not a field of memoryos.receipt/1"),
        ],
    )
    def test_each_problem_names_the_field_what_is_wrong_and_the_rule(
        self, field: str, value: object, words: str
    ) -> None:
        receipt = seal(draft(), ChainHead("c"), None, AT).receipt | {field: value}
        found = {p.field: p.problem for p in receipts.problems(receipt)}
        assert words in found[field]

    def test_problems_never_quote_the_value_back(self) -> None:
        secret = "alice-password-hunter2"
        receipt = seal(draft(), ChainHead("c"), None, AT).receipt | {"memoryId": secret, "reason": secret}
        assert all(secret not in p.problem for p in receipts.problems(receipt))

    @pytest.mark.parametrize(
        ("edit", "usable"),
        [
            ({"sourceVersion": None}, True),  # None: removed below
            ({"colour": "blue"}, True),
            ({"degraded": "no"}, True),
            ({"reason": "capacity"}, True),  # on a store receipt: the rules ignore it
            ({"mac": "not-hex"}, True),
            ({"schema": "memoryos.receipt/2"}, False),
            ({"memoryId": "m-1"}, False),
            ({"sourcePresent": "yes"}, False),
            ({"prev": "0"}, False),
        ],
    )
    def test_only_problems_with_fields_the_rules_read_make_a_receipt_unusable(
        self, edit: dict[str, object], usable: bool
    ) -> None:
        receipt = seal(draft(), ChainHead("c"), None, AT).receipt | edit
        receipt = {k: v for k, v in receipt.items() if v is not None}
        found = receipts.problems(receipt)
        assert found and receipts.usable(found) is usable


def test_the_specification_lists_every_field_with_the_checked_grammar() -> None:
    spec = (ROOT / "docs" / "receipt-format.md").read_text(encoding="utf-8").replace("\\|", "|")
    for name, field in receipts.FIELDS.items():
        assert f"`{name}`" in spec, name
        pattern = field.json.get("pattern")
        if pattern is not None and name not in {"receiptId", "runId", "memoryId", "derivedFrom"}:
            assert pattern in spec, (name, pattern)
