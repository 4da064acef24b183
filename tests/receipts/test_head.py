"""The chain's high-water mark: written beside the store, MAC'd, refused when damaged or forged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receipts.head import (
    HEAD_BYTES,
    Head,
    HeadError,
    HeadFile,
    head_path,
    parse_head,
    read_head,
    render_head,
)

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


def _reference_line(head: Head, key: bytes) -> bytes:
    """The mark as the module docstring defines it, computed the plain way (one-shot HMAC)."""
    import hmac

    import orjson

    body = {"chainId": head.chain_id, "link": head.link, "schema": "memoryos.head/1", "seq": head.seq}
    mac = hmac.digest(key, orjson.dumps(body, option=orjson.OPT_SORT_KEYS), "sha256").hex()
    line = orjson.dumps({**body, "mac": mac}, option=orjson.OPT_SORT_KEYS)
    return line.ljust(HEAD_BYTES - 1) + b"\n"


@settings(max_examples=50, deadline=None)
@given(
    st.text("abcdef0123456789-", min_size=1, max_size=64),
    st.integers(0, 2**63 - 1),
    st.text("0123456789abcdef", min_size=64, max_size=64),
    st.binary(min_size=1, max_size=64),
)
def test_a_file_writer_signs_each_mark_as_the_one_shot_rendering_does(
    tmp_path_factory: pytest.TempPathFactory, chain_id: str, seq: int, link: str, key: bytes
) -> None:
    # the writer keeps a prepared HMAC state across writes: every write must still be the plain MAC
    folder = tmp_path_factory.mktemp("mark")
    head = Head(chain_id, seq, link)
    writer = HeadFile(folder / "s.db", key)
    try:
        for mark in (head._replace(seq=max(0, seq - 1)), head):  # a second write from the same state
            writer.write(mark)
            assert head_path(folder / "s.db").read_bytes() == _reference_line(mark, key)
    finally:
        writer.close()
    assert render_head(head, key) == _reference_line(head, key)
