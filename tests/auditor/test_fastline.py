"""Differential tests: the fast path of the parser (auditor.fastline) against the reference path.

The fast path reads canonical lines with one regular expression and no JSON decoding, or with
msgspec's typed decode (auditor.fastdecode) when msgspec is installed; on anything it is not sure of
it defers to the reference path (decode, receipts.problems(), canonicalise). Each fast path must give
the same Parsed or Bad as the reference for every line, and the same report for every stream.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auditor.parse
import auditor.sources
from auditor import Report, audit
from auditor.fastdecode import parse_canonical as parse_canonical_msgspec
from auditor.fastline import SORTED, parse_canonical, parse_canonical_regex
from auditor.parse import parse_raw, parse_reference
from receipts import canonical_bytes, problems
from tests.auditor.streams import BOB, Stream, later
from tests.auditor.test_properties import OPS, build

KEY = bytes(range(32))
# Values that are wrong somewhere, right elsewhere, or on an edge of a grammar.
EDGES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    1.0,
    2**63 - 1,
    2**63,
    10**17,
    10**18,
    "",
    " ",
    "x",
    "é",
    'a"b',
    "a\\b",
    "a\nb",
    "memoryos 0.1.0",
    "memoryos/0.1.0+cafe1234",
    "acme/" + "1" * 130,
    "store",
    "generate",
    "retrieve",
    "reject",
    "waiting",
    "started",
    "stm",
    "lpm",
    "capacity",
    "secret:aws_access_key",
    "sha256:" + "ab" * 32,
    "a1" * 16,
    "A1" * 16,
    "a1" * 33,
    "0" * 64,
    "0" * 63 + "g",  # 64 characters, not all hex (mac and prev are matched as any 64, then checked)
    "F" * 64,
    "0" * 62 + '"0',
    "2025-02-29T12:00:00.000000Z",
    "2024-02-29T12:00:00.000000Z",
    "2025-03-01T12:00:00Z",
    "01943aa0-bc00-7000-8000-000000000001",
    "01943aa0-bc00-7000-8000-00000000000",
    [],
    ["01943aa0-bc00-7000-8000-000000000001@1"],
    ["01943aa0-bc00-7000-8000-000000000001@0"],
    ["01943aa0-bc00-7000-8000-000000000001@1", 1],
    {"a": 1},
]
REF = "01943aa0-bc00-7000-8000-000000000001@1"
# Values each of which fits its field's pattern, so that the boundary and cross-field rules, the
# calendar and the length limits are what decides.
FITTING: dict[str, list[Any]] = {
    "reason": ["capacity", "secret:aws_access_key"],
    "outcomeReceipt": ["sha256:" + "ab" * 32],
    "dependsOnVersion": [[], [REF], [REF, REF]],
    "derivedFrom": [[], [REF]],
    "waitUntilUtc": ["2025-03-01T12:30:00.000000Z", "2025-02-29T12:00:00.000000Z"],
    "atUtc": ["2025-02-29T12:00:00.000000Z", "2025-04-31T12:00:00.000000Z", "2024-02-29T12:00:00.000000Z"],
    "sourceVersion": ["a" * 64 + "/" + "1" * 63, "a" * 64 + "/" + "1" * 64, "acme/1.0 beta"],
    "degraded": [True, False],
    "sourcePresent": [True, False],
    "status": ["waiting", "started", "failed", "verified"],
    "boundary": ["store", "generate", "reject", "evict", "retrieve", "stm_to_mtm"],
    "seq": [10**18 - 1, 10**18, 2**63 - 1],
    "version": [10**18, 2**63 - 1],
    "fromTier": ["lpm"],
    "toTier": ["mtm"],
}
SPELLINGS = ("canonical", "spaced", "reordered", "escaped", "mac_last", "dup_key")


def _stream(ops: list[str]) -> Stream:
    s = build(ops)
    s.key = KEY
    return s


def _receipts() -> list[dict[str, Any]]:
    s = Stream(key=KEY)
    for op in OPS:
        s.healthy_cycle()
        build([op])
    _, turn = s.store()
    _, (page,) = s.promote([turn], BOB, status="waiting")
    s.evict(page)
    s.correct(page, 2)
    return s.receipts


RECEIPTS = _receipts()


def _spell(receipt: dict[str, Any], spelling: str) -> bytes:
    line = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
    if spelling == "spaced":
        return line.replace(b'":', b'": ', 1)
    if spelling == "reordered":
        return orjson.dumps(dict(reversed(list(receipt.items()))))
    if spelling == "escaped":
        return line.replace(b'"schema":"m', b'"schema":"\\u006d', 1)
    if spelling == "mac_last" and isinstance(receipt.get("mac"), str):
        body = {k: v for k, v in receipt.items() if k != "mac"}
        member: bytes = b',"mac":"' + str(receipt["mac"]).encode() + b'"}'
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)[:-1] + member
    if spelling == "dup_key":
        return line[:-1] + b',"seq":7}'
    return line


FAST_PATHS = (parse_canonical_regex, parse_canonical_msgspec)


def _same(line: bytes) -> None:
    reference = parse_reference(line, None)
    assert parse_raw(line, None) == reference
    for fast_path in FAST_PATHS:  # each of them, whichever parse_raw uses
        fast = fast_path(line)
        if fast is not None:  # what a fast path accepts is valid and canonical, and read the same
            assert fast == reference, fast_path.__module__
            receipt = orjson.loads(line)
            assert problems(receipt) == []
            assert fast.canonical == canonical_bytes(receipt)


def test_the_fast_path_in_use_is_msgspecs() -> None:
    assert parse_canonical is parse_canonical_msgspec


def test_every_receipt_memoryos_writes_takes_the_fast_path() -> None:
    for receipt in RECEIPTS:
        line = orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
        for fast_path in FAST_PATHS:
            assert fast_path(line) is not None, (fast_path.__module__, line)
        _same(line)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RECEIPTS),
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from([*SORTED, "extra"]), st.sampled_from(EDGES) | st.just("<drop>")),
            st.sampled_from(sorted(FITTING)).flatmap(
                lambda name: st.tuples(st.just(name), st.sampled_from(FITTING[name]))
            ),
        ),
        max_size=3,
    ),
    st.sampled_from(SPELLINGS),
)
def test_the_fast_path_agrees_with_the_reference_on_faulty_lines(
    receipt: dict[str, Any], changes: list[tuple[str, Any]], spelling: str
) -> None:
    mutated = dict(receipt)
    for name, value in changes:
        if value == "<drop>":
            mutated.pop(name, None)
        else:
            mutated[name] = value
    try:
        line = _spell(mutated, spelling)
    except TypeError:  # orjson refuses integers beyond 64 bits: no such line can be read either
        return
    _same(line)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RECEIPTS), st.data())
def test_the_fast_path_agrees_on_damaged_bytes(receipt: dict[str, Any], data: st.DataObject) -> None:
    line = bytearray(orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(line) - 1))
        line[at] = data.draw(st.sampled_from(b'"\\:,{}[] @-019afAFz\x00\xc3'))
    _same(bytes(line))


def _report(path: Path, now: Any) -> Report:
    return audit(path, now=now, key=KEY)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(OPS), min_size=1, max_size=6), st.data())
def test_a_faulty_stream_gets_the_same_report_from_both_paths(ops: list[str], data: st.DataObject) -> None:
    s = _stream(ops)
    lines = list(s.lines)
    for _ in range(data.draw(st.integers(0, 4))):
        at = data.draw(st.integers(0, len(lines) - 1))
        receipt = orjson.loads(lines[at])
        name = data.draw(st.sampled_from([*SORTED, "extra"]))
        value = data.draw(st.sampled_from(FITTING.get(name, EDGES)))
        try:
            lines[at] = _spell({**receipt, name: value}, data.draw(st.sampled_from(SPELLINGS)))
        except TypeError:
            continue
    now = later(s)
    with tempfile.TemporaryDirectory() as tmp:
        path = s.write(Path(tmp) / "r.jsonl", lines)
        fast = _report(path, now)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(auditor.parse, "parse_canonical", lambda raw: None)
            patch.setattr(auditor.sources, "parse_canonical", lambda raw: None)
            reference = _report(path, now)
    assert fast.to_json() == reference.to_json()


def _receipt_with_mac() -> dict[str, Any]:
    return next(r for r in RECEIPTS if "mac" in r and "memoryId" in r)


@pytest.mark.parametrize(
    "change",
    [
        # a character moved from one id to the next: the same bytes of ids in a row, misaligned
        lambda r: {**r, "receiptId": r["receiptId"][:-1], "runId": r["receiptId"][-1] + r["runId"]},
        lambda r: {**r, "prev": r["prev"][:-1], "mac": r["prev"][-1] + r["mac"]},
        lambda r: {**r, "runId": r["runId"] + " " + r["runId"]},  # a space where the parts are joined
        lambda r: {**r, "memoryId": None},  # an explicit null (msgspec reads it as absent)
        lambda r: {**r, "atUtc": r["atUtc"][:16] + ":60.000000Z"},  # the seconds, matched each time
        lambda r: {**r, "userScope": r["userScope"] + "\n"},  # a pattern's `$` would let it through
    ],
)
def test_the_fast_paths_refuse_what_only_a_careless_check_lets_through(change: Any) -> None:
    line = orjson.dumps(change(_receipt_with_mac()), option=orjson.OPT_SORT_KEYS)
    for fast_path in FAST_PATHS:
        assert fast_path(line) is None, fast_path.__module__
    _same(line)
