"""The chain's high-water mark: a keyed record of how far a chain is known to have reached.

A store keeps the receipts of its chain in its database; a truncated or deleted `-wal`, or rows
deleted from the outbox, can make the newest of them vanish without a trace in the database itself.
The head file lives beside the store and is rewritten after every commit that added receipts, so a
reader that finds fewer receipts than the mark promises knows that committed receipts were lost.

The mark is a lower bound: it is written after the commit (never before), so a crash between the two
leaves it behind the chain, never ahead of it. Several writers on one store may overwrite each
other's mark with an older one; that too only makes it lag.

File format (one line, ASCII, padded with spaces to `HEAD_BYTES` so that every rewrite is one
`pwrite` of the same length at offset 0):

    {"chainId":"…","link":"<64 hex>","mac":"<64 hex>","schema":"memoryos.head/1","seq":N}

`link` is the SHA-256 of the canonical bytes of the receipt at `seq` (what the next receipt carries
as `prev`); `mac` is the HMAC-SHA256 under the store's receipt key of the object's canonical bytes
without `mac` (sorted keys, as for receipts).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from pathlib import Path
from typing import NamedTuple

import orjson

HEAD_SCHEMA = "memoryos.head/1"
HEAD_BYTES = 512
HEAD_SUFFIX = ".receipt-head"
_HEX64 = re.compile(r"[0-9a-f]{64}")

__all__ = [
    "HEAD_BYTES",
    "HEAD_SCHEMA",
    "HEAD_SUFFIX",
    "Head",
    "HeadError",
    "HeadFile",
    "head_path",
    "parse_head",
    "read_head",
    "render_head",
]


class HeadError(ValueError):
    """The head file exists but does not hold a mark this reader can trust."""


class Head(NamedTuple):
    chain_id: str
    seq: int
    link: str


def head_path(store_path: str | os.PathLike[str]) -> Path:
    """Where the mark of the store at `store_path` lives: beside it, like the receipt key."""
    path = Path(store_path)
    return path.with_name(path.name + HEAD_SUFFIX)


def _is_hex64(value: str) -> bool:
    return _HEX64.fullmatch(value) is not None


def _body(head: Head) -> dict[str, object]:
    return {"chainId": head.chain_id, "link": head.link, "schema": HEAD_SCHEMA, "seq": head.seq}


def _mac(key: bytes, body: dict[str, object]) -> str:
    return hmac.digest(key, orjson.dumps(body, option=orjson.OPT_SORT_KEYS), "sha256").hex()


def render_head(head: Head, key: bytes) -> bytes:
    """The padded line for `head`, MAC'd under `key`."""
    return _rendered(head, hmac.new(key, digestmod=hashlib.sha256))


def _rendered(head: Head, signer: hmac.HMAC) -> bytes:
    """render_head from a prepared HMAC state (copied, never updated itself): `hmac.digest` with a
    digest name looks the algorithm up in OpenSSL on every call, which a writer that marks every
    commit would pay each time (tests/receipts/test_head.py holds the two equal)."""
    body = _body(head)
    mac = signer.copy()
    mac.update(orjson.dumps(body, option=orjson.OPT_SORT_KEYS))
    body["mac"] = mac.hexdigest()
    line = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    if len(line) >= HEAD_BYTES:
        raise HeadError(f"a head record must stay under {HEAD_BYTES} bytes (chain id too long?)")
    return line.ljust(HEAD_BYTES - 1) + b"\n"


def parse_head(raw: bytes, key: bytes | None) -> Head:
    """Parse a head line; checks its MAC when `key` is given. Raises HeadError when it cannot be trusted."""
    try:
        obj = orjson.loads(raw.strip())
    except orjson.JSONDecodeError:
        raise HeadError("the head file is not one JSON object (damaged or torn write)") from None
    if not isinstance(obj, dict) or obj.get("schema") != HEAD_SCHEMA:
        raise HeadError(f"the head file does not hold a {HEAD_SCHEMA} record")
    chain_id, seq, link, mac = obj.get("chainId"), obj.get("seq"), obj.get("link"), obj.get("mac")
    if not isinstance(chain_id, str) or type(seq) is not int or seq < 0:
        raise HeadError("the head record needs a string chainId and a non-negative integer seq")
    if not (isinstance(link, str) and isinstance(mac, str) and _is_hex64(link) and _is_hex64(mac)):
        raise HeadError("the head record's link and mac must be 64 lowercase hex digits")
    head = Head(chain_id, seq, link)
    if key is not None and not hmac.compare_digest(mac, _mac(key, _body(head))):
        raise HeadError("the head record's MAC does not verify under the store's receipt key")
    return head


def read_head(store_path: str | os.PathLike[str], key: bytes | None) -> Head | None:
    """The mark beside the store, or None when there is none: a store made before marks existed, or
    a mark file opened but never written (no receipts yet, or a writer killed between opening it and
    its first write). Raises HeadError for a damaged or forged mark and OSError when the file cannot
    be read."""
    path = head_path(store_path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return parse_head(raw, key) if raw else None


class HeadFile:
    """The writer's side: one open descriptor, one fixed-size `pwrite` per mark.

    No fsync: the mark only needs to survive the process (the case it detects is a file damaged
    behind the store's back); after a power loss it may lag, which keeps it a lower bound."""

    def __init__(self, store_path: str | os.PathLike[str], key: bytes) -> None:
        self._signer = hmac.new(key, digestmod=hashlib.sha256)  # the key set up once per file
        self._fd = os.open(head_path(store_path), os.O_RDWR | os.O_CREAT, 0o600)

    def write(self, head: Head) -> None:
        os.pwrite(self._fd, _rendered(head, self._signer), 0)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
