"""The receipt format: the writer pipeline refuses what the auditor could not trust."""

from __future__ import annotations

import gzip
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receipts
from receipts import ChainHead, ReceiptError, seal

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
KEY = bytes(range(32))


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


def chain_of(n: int) -> list[dict[str, Any]]:
    head = ChainHead("store-1")
    out = []
    for _ in range(n):
        sealed = seal(draft(), head, KEY, AT)
        head = sealed.head
        out.append(sealed.receipt)
    return out


class TestUuid7:
    def test_ids_are_canonical_and_sort_in_creation_order(self) -> None:
        ids = [receipts.uuid7() for _ in range(2000)]
        assert all(receipts.is_uuid(i) and i[14] == "7" for i in ids)
        assert ids == sorted(ids)
        assert len(set(ids)) == len(ids)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=2),
    max_leaves=5,
)
VALID = [
    *chain_of(1),
    seal(draft(boundary="evict", reason="capacity", sourcePresent=False), ChainHead("c"), KEY, AT).receipt,
    seal(draft(boundary="generate", dependsOnVersion=[]), ChainHead("c"), None, AT).receipt,
    seal(
        draft(status="waiting", waitUntilUtc="2026-11-29T12:00:00.000000Z"), ChainHead("c"), KEY, AT
    ).receipt,
]


@given(
    st.sampled_from(VALID),
    st.lists(st.tuples(st.sampled_from([*receipts.FIELDS, "extra"]), json_values | st.just(...)), max_size=3),
)
def test_the_fast_validity_check_agrees_with_problems(base: dict[str, Any], edits: list[Any]) -> None:
    """is_valid() caches verdicts per shape; it must never disagree with the full check."""
    receipt = dict(base)
    for name, value in edits:
        if value is ...:
            receipt.pop(name, None)
        else:
            receipt[name] = value
    for _ in range(2):  # the second call reads the cached shape verdict
        assert receipts.is_valid(receipt) == (receipts.problems(receipt) == [])


def test_a_list_changed_after_it_was_sealed_is_checked_again() -> None:
    refs = [receipts.uuid7() + "@1"]
    seal(draft(derivedFrom=refs), ChainHead("c"), KEY, AT)
    refs.append("alice@example.com wrote this")
    with pytest.raises(ReceiptError, match="derivedFrom"):
        seal(draft(derivedFrom=refs), ChainHead("c"), KEY, AT)


class TestSeal:
    def test_a_sealed_receipt_is_valid_chained_and_signed(self) -> None:
        first, second = chain_of(2)
        assert receipts.problems(first) == []
        assert first["seq"] == 1 and first["prev"] == receipts.ZERO_HASH
        assert second["seq"] == 2 and second["prev"] == receipts.link_hash(first)
        assert receipts.verify_mac(KEY, second)
        assert not receipts.verify_mac(b"another key, 32 bytes long......", second)

    def test_canonical_bytes_exclude_the_mac_and_sort_keys(self) -> None:
        (receipt,) = chain_of(1)
        canonical = receipts.canonical_bytes(receipt)
        assert b'"mac"' not in canonical
        assert canonical == orjson.dumps(
            {k: v for k, v in receipt.items() if k != "mac"}, option=orjson.OPT_SORT_KEYS
        )

    def test_fields_set_to_none_are_omitted_never_null(self) -> None:
        sealed = seal(draft(reason=None, derivedFrom=None), ChainHead("c"), KEY, AT)
        assert b"null" not in sealed.line
        assert "reason" not in sealed.receipt

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("memoryId", "the user's secret text"),
            ("reason", "because Alice said her password is hunter2"),
            ("userScope", "alice@example.com"),
            ("derivedFrom", ["not-a-ref"]),
            ("version", 0),
            ("version", True),
            ("version", 2**64),
            ("boundary", "teleport"),
            ("sourcePresent", "yes"),
            ("waitUntilUtc", "tomorrow"),
            ("outcomeReceipt", "sha256:abc"),  # only generate receipts carry an outcome
            ("summary", "free text"),  # unknown field
        ],
    )
    def test_the_writer_refuses_content_wrong_types_and_unknown_fields(self, field: str, value: Any) -> None:
        with pytest.raises(ReceiptError) as caught:
            seal(draft(**{field: value}), ChainHead("c"), KEY, AT)
        assert caught.value.field == field

    def test_oversize_lists_are_refused(self) -> None:
        refs = [f"{receipts.uuid7()}@1" for _ in range(receipts.model.MAX_REFS + 1)]
        with pytest.raises(ReceiptError):
            seal(draft(derivedFrom=refs), ChainHead("c"), KEY, AT)

    # from_type(object) is slow to generate on a busy machine; the property is what matters here
    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(
        st.dictionaries(
            st.text(max_size=20), st.from_type(object).filter(lambda v: v is not None), max_size=8
        )
    )
    def test_problems_never_raises_on_arbitrary_objects(self, junk: dict[str, Any]) -> None:
        assert isinstance(receipts.problems(junk), list)


class TestJsonl:
    def test_round_trip_through_plain_and_gzip_files(self, tmp_path: Path) -> None:
        chained = chain_of(5)
        lines = [receipts.render(r) for r in chained]
        plain = tmp_path / "r.jsonl"
        receipts.append_jsonl(plain, lines)
        zipped = tmp_path / "r.jsonl.gz"
        zipped.write_bytes(gzip.compress(plain.read_bytes()))
        for path in (plain, zipped):
            assert [line.receipt for line in receipts.read_jsonl(path)] == chained

    def test_bad_lines_become_errors_not_exceptions(self, tmp_path: Path) -> None:
        path = tmp_path / "junk.jsonl"
        path.write_bytes(b'{"a": 1}\nnot json\n[1, 2]\n\n\xff\xfe\x00garbage\n{"trunc')
        lines = list(receipts.read_jsonl(path))
        assert [line.error for line in lines] == [
            None,
            "not valid JSON",
            "not a JSON object",
            "not valid JSON",
            "not valid JSON",
        ]

    def test_a_truncated_gzip_stream_is_reported_not_raised(self, tmp_path: Path) -> None:
        path = tmp_path / "cut.jsonl.gz"
        packed = gzip.compress(b"".join(b'{"a": %d}\n' % i for i in range(5000)))
        path.write_bytes(packed[: len(packed) // 2])
        lines = list(receipts.read_jsonl(path))
        assert lines[-1].error is not None and lines[-1].error.startswith("unreadable")


class TestOutbox:
    def test_reads_in_seq_order_read_only(self, tmp_path: Path) -> None:
        db = tmp_path / "store.db"
        conn = sqlite3.connect(db)
        conn.execute(
            "CREATE TABLE receipt_outbox (seq INTEGER PRIMARY KEY, chain_id TEXT, receipt_id TEXT,"
            " run_id TEXT, link TEXT, body BLOB)"
        )
        chained = chain_of(3)
        for r in reversed(chained):
            conn.execute(
                "INSERT INTO receipt_outbox VALUES (?, ?, ?, ?, ?, ?)",
                (r["seq"], r["chainId"], r["receiptId"], r["runId"], "", receipts.render(r)),
            )
        conn.commit()
        conn.close()
        before = db.stat().st_mtime_ns
        assert [line.receipt for line in receipts.read_outbox(db)] == chained
        assert db.stat().st_mtime_ns == before

    def test_a_missing_store_is_an_os_error(self, tmp_path: Path) -> None:
        with pytest.raises(OSError):
            list(receipts.read_outbox(tmp_path / "absent.db"))


class TestKeys:
    def test_key_files_are_owner_only_and_never_overwritten(self, tmp_path: Path) -> None:
        path = tmp_path / "k"
        key = receipts.create_key_file(path)
        assert path.stat().st_mode & 0o777 == 0o600
        assert receipts.read_key_file(path) == key
        with pytest.raises(FileExistsError):
            receipts.create_key_file(path)
