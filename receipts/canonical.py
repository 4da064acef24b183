"""Canonical bytes, the hash chain and the MAC: the parts of the format other producers reimplement."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

import orjson

from receipts.model import ZERO_HASH

__all__ = ["ZERO_HASH", "canonical_bytes", "compute_mac", "link_hash", "verify_mac"]


def canonical_bytes(receipt: Mapping[str, Any]) -> bytes:
    """orjson with sorted keys, over every field but `mac`."""
    if type(receipt) is dict and "mac" not in receipt:
        return orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)
    return orjson.dumps({k: v for k, v in receipt.items() if k != "mac"}, option=orjson.OPT_SORT_KEYS)


def link_hash(receipt: Mapping[str, Any]) -> str:
    """The value the next receipt of the chain carries as `prev`."""
    return hashlib.sha256(canonical_bytes(receipt)).hexdigest()


def compute_mac(key: bytes, receipt: Mapping[str, Any]) -> str:
    return hmac.digest(key, canonical_bytes(receipt), "sha256").hex()


def verify_mac(key: bytes, receipt: Mapping[str, Any]) -> bool:
    mac = receipt.get("mac")
    return isinstance(mac, str) and hmac.compare_digest(mac, compute_mac(key, receipt))
