"""The writer serialises a receipt once and prepares the key's HMAC once per batch (issue 12: the
cost of a promotion's receipts). What it writes is what the plain steps make: the line is the
sorted rendering of the receipt, the chain link is the SHA-256 of its canonical bytes, the MAC is
the HMAC of the same bytes, and a batch equals the same drafts sealed one by one."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receipts import ChainHead, ReceiptError, canonical_bytes, compute_mac, pipeline, seal, seal_all, uuid7

AT = datetime(2026, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)
SCOPE = st.text("0123456789abcdef", min_size=16, max_size=64)
REF = st.builds(lambda v: f"{uuid7()}@{v}", st.integers(1, 99))

drafts = st.fixed_dictionaries(
    {
        "runId": st.just(uuid7()),
        "boundary": st.sampled_from(["stm_to_mtm", "mtm_to_lpm", "evict", "store"]),
        "status": st.sampled_from(["started", "committed", "failed"]),
        "userScope": SCOPE,
        "assistantScope": SCOPE,
        "sourceVersion": st.just("memoryos/0.3.0"),
    },
    optional={
        "receiptId": st.builds(uuid7),
        "memoryId": st.builds(uuid7),
        "version": st.integers(1, 2**31),
        "fromTier": st.sampled_from(["stm", "mtm", "lpm"]),
        "toTier": st.sampled_from(["stm", "mtm", "lpm"]),
        "derivedFrom": st.lists(REF, max_size=4) | st.none(),
        "sourcePresent": st.booleans(),
        "degraded": st.booleans() | st.none(),
        # a draft may carry a MAC of its own: the writer's replaces it (or stays beside an unsigned one)
        "mac": st.text("0123456789abcdef", min_size=64, max_size=64),
    },
).map(lambda d: {**d, "reason": "capacity"} if d["boundary"] == "evict" else d)
keys = st.none() | st.binary(min_size=1, max_size=64)
heads = st.builds(
    ChainHead,
    st.text("abcXYZ019._-", min_size=1, max_size=64),
    st.integers(0, 2**40),
    st.text("0123456789abcdef", min_size=64, max_size=64),
)


Plain = tuple[dict[str, Any], bytes, ChainHead]


def plain(draft: dict[str, Any], head: ChainHead, key: bytes | None) -> Plain:
    """The two-serialisation way: canonical bytes, link, MAC by digest name, then the line."""
    receipt = pipeline.stamp(draft, head, AT)
    pipeline.validate(receipt)
    canonical = canonical_bytes(receipt)
    link = hashlib.sha256(canonical).hexdigest()
    if key is not None:
        receipt["mac"] = hmac.digest(key, canonical, "sha256").hex()
    line = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
    return receipt, line, ChainHead(head.chain_id, receipt["seq"], link)


@settings(max_examples=300, deadline=None)
@given(st.lists(drafts, min_size=1, max_size=6), heads, keys)
def test_a_batch_is_what_the_plain_steps_make_one_by_one(
    batch: list[dict[str, Any]], head: ChainHead, key: bytes | None
) -> None:
    batch = [{**d, "receiptId": d.get("receiptId") or uuid7()} for d in batch]  # comparable ids
    sealed = seal_all(batch, head, key, AT)
    expected_head = head
    for draft, got in zip(batch, sealed, strict=True):
        before = expected_head
        receipt, line, expected_head = plain(draft, before, key)
        assert got.receipt == receipt and got.line == line and got.head == expected_head
        assert orjson.loads(got.line) == got.receipt
        assert got.head.link == hashlib.sha256(canonical_bytes(got.receipt)).hexdigest()
        if key is not None:
            assert got.receipt["mac"] == compute_mac(key, got.receipt)
        assert seal(draft, before, key, AT) == got


def test_a_batch_prepares_the_key_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[bytes] = []
    real = hmac.new

    def counting(key: bytes, *args: Any, **kwargs: Any) -> hmac.HMAC:
        made.append(key)
        return real(key, *args, **kwargs)

    monkeypatch.setattr(hmac, "new", counting)
    monkeypatch.setattr(hmac, "digest", None)  # the per-receipt one-shot is not used
    draft = {
        "runId": uuid7(),
        "boundary": "stm_to_mtm",
        "status": "committed",
        "userScope": "a" * 32,
        "assistantScope": "b" * 32,
        "sourceVersion": "memoryos/0.3.0",
    }
    sealed = seal_all([draft] * 7, ChainHead("c"), b"key", AT)
    assert made == [b"key"] and len(sealed) == 7
    monkeypatch.undo()
    assert all(s.receipt["mac"] == compute_mac(b"key", s.receipt) for s in sealed)


def test_a_batch_serialises_each_receipt_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = orjson.dumps

    def counting(value: object, *args: Any, **kwargs: Any) -> bytes:
        calls.append(value)
        return real(value, *args, **kwargs)

    monkeypatch.setattr(orjson, "dumps", counting)
    draft = {
        "runId": uuid7(),
        "boundary": "evict",
        "status": "committed",
        "userScope": "a" * 32,
        "assistantScope": "b" * 32,
        "sourceVersion": "memoryos/0.3.0",
        "reason": "capacity",
    }
    for key in (b"key", None):
        calls.clear()
        seal_all([draft] * 5, ChainHead("c"), key, AT)
        assert len(calls) == 5


def test_a_bad_draft_in_a_batch_is_refused_before_anything_is_returned() -> None:
    good = {
        "runId": uuid7(),
        "boundary": "stm_to_mtm",
        "status": "committed",
        "userScope": "a" * 32,
        "assistantScope": "b" * 32,
        "sourceVersion": "memoryos/0.3.0",
    }
    with pytest.raises(ReceiptError, match="memoryId"):
        seal_all([good, {**good, "memoryId": "the user's secret"}], ChainHead("c"), b"k", AT)


# -- same-shape batches (a promotion's: one receipt per page) are validated by what they do not share
common = st.fixed_dictionaries(
    {
        "runId": st.just(uuid7()),
        "boundary": st.sampled_from(["stm_to_mtm", "mtm_to_lpm", "evict"]),
        "status": st.sampled_from(["committed", "started"]),
        "userScope": SCOPE,
        "assistantScope": SCOPE,
        "sourceVersion": st.just("memoryos/0.3.0"),
    },
    optional={
        "fromTier": st.sampled_from(["stm", "mtm"]),
        "toTier": st.sampled_from(["mtm", "lpm"]),
        "sourcePresent": st.booleans() | st.sampled_from([0, 1]),  # 1 is not True to the writer
        "degraded": st.booleans() | st.none(),
    },
).map(lambda d: {**d, "reason": "capacity"} if d["boundary"] == "evict" else d)
per_page = st.fixed_dictionaries(
    {},
    optional={
        "memoryId": st.builds(uuid7) | st.just("not a uuid"),
        "version": st.integers(1, 2**31) | st.sampled_from([True, 0, 10**12]),
        "derivedFrom": st.lists(REF, max_size=3) | st.none(),
    },
)


def sealed_one_by_one(batch: list[dict[str, Any]], head: ChainHead, key: bytes | None) -> list[Plain] | str:
    found: list[Plain] = []
    for draft in batch:
        try:
            found.append(plain(draft, head, key))
        except ReceiptError as exc:
            return str(exc)
        head = found[-1][2]
    return found


@settings(max_examples=400, deadline=None)
@given(common, st.lists(per_page, min_size=2, max_size=8), st.data(), heads, keys)
def test_a_batch_of_one_shape_is_what_the_plain_steps_make(
    shared: dict[str, Any],
    pages: list[dict[str, Any]],
    data: st.DataObject,
    head: ChainHead,
    key: bytes | None,
) -> None:
    # the same fields in the same order for every page (a layout's case), now and then another shape
    names = sorted({name for page in pages for name in page})
    batch = [
        {**shared, **{n: page.get(n, uuid7() if n == "memoryId" else 1) for n in names}} for page in pages
    ]
    if data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(batch) - 1))
        batch[at] = {**batch[at], "status": "failed"}
    # the receipt ids the writer draws, the same on both sides (a stand-in for the pipeline's uuid7)
    expected_ids = [uuid7() for _ in batch]
    ours = iter(expected_ids)
    original = vars(pipeline)["uuid7"]
    setattr(pipeline, "uuid7", lambda: next(ours))  # noqa: B010  # not a name the module exports
    try:
        try:
            got: list[Plain] | str = [(s.receipt, s.line, s.head) for s in seal_all(batch, head, key, AT)]
        except ReceiptError as exc:
            got = str(exc)
        theirs = iter(expected_ids)
        setattr(pipeline, "uuid7", lambda: next(theirs))  # noqa: B010
        assert got == sealed_one_by_one(batch, head, key)
    finally:
        setattr(pipeline, "uuid7", original)  # noqa: B010


class TestPreparedSigner:
    @settings(max_examples=50, deadline=None)
    @given(st.lists(st.tuples(st.binary(min_size=1, max_size=64), st.binary(max_size=300)), min_size=1))
    def test_the_prepared_state_signs_as_hmac_new_for_each_key_in_turn(
        self, signed: list[tuple[bytes, bytes]]
    ) -> None:
        for key, message in signed:  # keys change between calls: each gets its own prepared state
            receipt: dict[str, Any] = {}
            mac = pipeline.sign_with(receipt, pipeline.signer_for(key), message)
            assert mac == receipt["mac"] == hmac.new(key, message, hashlib.sha256).hexdigest()
