"""The writer pipeline: stamp -> validate (content-free) -> chain -> MAC -> render.

Each step is a small pure function; `seal` composes them. The caller owns persistence: it reads the
chain head inside its transaction, seals, and writes the rendered line in the same transaction.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from receipts.canonical import canonical_bytes
from receipts.errors import ReceiptError
from receipts.ids import uuid7
from receipts.model import SCHEMA, ZERO_HASH, format_utc, problems

Receipt = dict[str, Any]


@dataclass(frozen=True)
class ChainHead:
    """Where a chain stands: the last sequence number and the link hash of that receipt."""

    chain_id: str
    seq: int = 0
    link: str = ZERO_HASH


@dataclass(frozen=True)
class Sealed:
    receipt: Receipt
    line: bytes
    head: ChainHead


def stamp(draft: Mapping[str, Any], chain_id: str, at: datetime) -> Receipt:
    """Add the fields every receipt carries; drop fields set to None (absent, never null)."""
    receipt = {k: v for k, v in draft.items() if v is not None}
    receipt.setdefault("receiptId", uuid7())
    receipt["schema"] = SCHEMA
    receipt["atUtc"] = format_utc(at)
    receipt["chainId"] = chain_id
    return receipt


def validate(receipt: Mapping[str, Any]) -> None:
    """Refuse anything the auditor would have to call uncertain (unknown field, free text, ...)."""
    found = problems(receipt)
    if found:
        field, problem = found[0]
        raise ReceiptError(field, problem)


def chain(receipt: Receipt, head: ChainHead) -> tuple[Receipt, ChainHead, bytes]:
    """Link after `head`; also returns the canonical bytes, which both the link and the MAC cover."""
    linked = {**receipt, "seq": head.seq + 1, "prev": head.link}
    canonical = canonical_bytes(linked)
    return linked, ChainHead(head.chain_id, head.seq + 1, hashlib.sha256(canonical).hexdigest()), canonical


def sign(receipt: Receipt, key: bytes | None, canonical: bytes) -> Receipt:
    if key is None:
        return receipt
    return {**receipt, "mac": hmac.new(key, canonical, hashlib.sha256).hexdigest()}


def render(receipt: Mapping[str, Any]) -> bytes:
    """One JSONL line (without the newline), keys sorted so equal receipts are equal bytes."""
    return orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)


def seal(draft: Mapping[str, Any], head: ChainHead, key: bytes | None, at: datetime) -> Sealed:
    """Run the whole pipeline for one receipt appended after `head`."""
    stamped = stamp(draft, head.chain_id, at)
    # seq and prev are placeholders while validating so that a bad draft fails before chaining.
    validate({**stamped, "seq": head.seq + 1, "prev": head.link})
    linked, new_head, canonical = chain(stamped, head)
    signed = sign(linked, key, canonical)
    return Sealed(signed, render(signed), new_head)
