"""The canonical bytes cut out of a canonical line: a non-canonical line falls back, forgeries fail."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from auditor import audit
from auditor.parse import Parsed, parse_raw
from receipts import canonical_bytes
from receipts.canonical import canonical_from_line
from tests.auditor.streams import Stream, later

KEY = bytes(range(32))


def _stream() -> Stream:
    s = Stream(key=KEY)
    _, turn = s.store()
    s.promote([turn])
    return s


def _audit(lines: list[bytes], s: Stream, tmp_path: Path) -> set[str]:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    report = audit(path, now=later(s), key=KEY)
    return {f.rule for run in report.runs for f in run.findings}


def _loose(line: bytes) -> bytes:
    """The same receipt in another spelling: spaces, reversed key order, an escaped character."""
    receipt = orjson.loads(line)
    text = json.dumps(dict(reversed(list(receipt.items()))))
    return text.replace('"schema": "m', '"schema": "\\u006d', 1).encode()


def test_a_canonical_line_is_cut_to_its_canonical_bytes() -> None:
    line = _stream().lines[0]
    receipt = orjson.loads(line)
    assert b'"mac"' not in canonical_from_line(line, receipt)
    assert canonical_from_line(line, receipt) == canonical_bytes(receipt)


def test_a_non_canonical_line_falls_back_and_is_still_verified(tmp_path: Path) -> None:
    s = _stream()
    loose = [_loose(line) for line in s.lines]
    for original, line in zip(s.lines, loose, strict=True):
        receipt = orjson.loads(line)
        assert line != original and receipt == orjson.loads(original)
        assert canonical_from_line(line, receipt) == canonical_bytes(receipt)
        parsed = parse_raw(line)
        assert isinstance(parsed, Parsed) and parsed.canonical == canonical_bytes(receipt)
    assert "evidence.mac" not in _audit(loose, s, tmp_path)
    assert "evidence.chain" not in _audit(loose, s, tmp_path)


def test_an_altered_line_with_its_mac_member_intact_is_caught(tmp_path: Path) -> None:
    s = _stream()
    forged = list(s.lines)
    forged[0] = forged[0].replace(b'"toTier":"stm"', b'"toTier":"mtm"')
    assert forged[0] != s.lines[0]
    assert {"evidence.mac", "evidence.chain"} <= _audit(forged, s, tmp_path)


def test_a_second_mac_member_is_never_cut_as_if_it_were_the_only_one(tmp_path: Path) -> None:
    s = _stream()
    forged = list(s.lines)
    # The genuine mac member stays where a cut finds it; a duplicate key overrides it when decoded.
    forged[1] = forged[1][:-1] + b',"mac":"' + b"0" * 64 + b'"}'
    receipt = orjson.loads(forged[1])
    assert receipt["mac"] == "0" * 64
    assert canonical_from_line(forged[1], receipt) == canonical_bytes(receipt)
    assert "evidence.mac" in _audit(forged, s, tmp_path)
