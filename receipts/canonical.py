"""Canonical bytes, the hash chain and the MAC: the parts of the format other producers reimplement."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

import orjson

from receipts.model import ZERO_HASH

__all__ = ["ZERO_HASH", "canonical_bytes", "canonical_from_line", "compute_mac", "link_hash", "verify_mac"]


def canonical_bytes(receipt: Mapping[str, Any]) -> bytes:
    """orjson with sorted keys, over every field but `mac`."""
    if type(receipt) is dict and "mac" not in receipt:
        return orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
    return orjson.dumps({k: v for k, v in receipt.items() if k != "mac"}, option=orjson.OPT_SORT_KEYS)


_MAC_MEMBER = b',"mac":"'
_MAC_MEMBER_BYTES = len(_MAC_MEMBER) + 64 + 1  # ,"mac":"<64 hex digits>"


def canonical_from_line(line: bytes, receipt: Mapping[str, Any]) -> bytes:
    """The canonical bytes of a receipt decoded from `line`, by cutting the `mac` member out of the
    line itself when the line is canonical (what memoryos writes); re-serialised otherwise.

    The cut is trusted only after a check that holds without exception: the line must equal the
    sorted serialisation of its own decoded receipt, and the cut must remove exactly the member
    `,"mac":"<64 hex>"` of that receipt. Anything else (spaces, another key order, escapes,
    duplicate keys, a mac of another shape) falls back to canonical_bytes()."""
    mac = receipt.get("mac")
    if type(receipt) is not dict or type(mac) is not str or len(mac) != 64:
        return canonical_bytes(receipt)
    if orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS) != line:
        return canonical_bytes(receipt)
    at = line.find(_MAC_MEMBER)
    end = at + _MAC_MEMBER_BYTES
    if at < 0 or line[end - 65 : end - 1] != mac.encode() or line[end - 1 : end] != b'"':
        return canonical_bytes(receipt)
    return line[:at] + line[end:]


def link_hash(receipt: Mapping[str, Any]) -> str:
    """The value the next receipt of the chain carries as `prev`."""
    return hashlib.sha256(canonical_bytes(receipt)).hexdigest()


def compute_mac(key: bytes, receipt: Mapping[str, Any]) -> str:
    return hmac.digest(key, canonical_bytes(receipt), "sha256").hex()


def verify_mac(key: bytes, receipt: Mapping[str, Any]) -> bool:
    mac = receipt.get("mac")
    return isinstance(mac, str) and hmac.compare_digest(mac, compute_mac(key, receipt))
