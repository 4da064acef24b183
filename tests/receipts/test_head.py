"""The chain's high-water mark: written beside the store, MAC'd, refused when damaged or forged."""

from __future__ import annotations

from pathlib import Path

import pytest

from receipts.head import HEAD_BYTES, Head, HeadError, HeadFile, head_path, parse_head, read_head

KEY = bytes(range(32))
HEAD = Head("0190f4a0-0000-7000-8000-000000000000", 41, "ab" * 32)


def test_a_written_mark_reads_back_under_its_key(tmp_path: Path) -> None:
    writer = HeadFile(tmp_path / "s.db", KEY)
    writer.write(HEAD._replace(seq=1000))
    writer.write(HEAD)  # a shorter line fully replaces a longer one: every record has the same size
    writer.close()
    assert head_path(tmp_path / "s.db").stat().st_size == HEAD_BYTES
    assert read_head(tmp_path / "s.db", KEY) == HEAD
    assert read_head(tmp_path / "s.db", None) == HEAD


def test_a_store_without_a_mark_has_none(tmp_path: Path) -> None:
    assert read_head(tmp_path / "s.db", KEY) is None


def test_the_mark_is_owner_only(tmp_path: Path) -> None:
    HeadFile(tmp_path / "s.db", KEY).close()
    assert head_path(tmp_path / "s.db").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[]",
        b'{"schema":"other/1"}',
        b'{"schema":"memoryos.head/1","chainId":"c","seq":-1}',
    ],
)
def test_a_damaged_mark_is_refused(raw: bytes) -> None:
    with pytest.raises(HeadError):
        parse_head(raw, KEY)


def test_a_forged_mark_is_refused_under_the_key(tmp_path: Path) -> None:
    writer = HeadFile(tmp_path / "s.db", KEY)
    writer.write(HEAD)
    writer.close()
    path = head_path(tmp_path / "s.db")
    path.write_bytes(path.read_bytes().replace(b'"seq":41', b'"seq":40'))
    assert read_head(tmp_path / "s.db", None) == HEAD._replace(seq=40)  # without the key: unverified
    with pytest.raises(HeadError, match="MAC"):
        read_head(tmp_path / "s.db", KEY)
