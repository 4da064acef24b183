"""The writer pipeline: stamp -> validate (content-free) -> chain -> MAC -> render.

Each step is a small pure function; `seal` composes them. The caller owns persistence: it reads the
chain head inside its transaction, seals, and writes the rendered line in the same transaction.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from receipts.canonical import canonical_bytes
from receipts.errors import ReceiptError
from receipts.ids import uuid7
from receipts.model import SCHEMA, ZERO_HASH, format_utc, is_valid, problems

Receipt = dict[str, Any]


class ChainHead(NamedTuple):
    """Where a chain stands: the last sequence number and the link hash of that receipt.
    (Named tuples: a writer makes one per receipt, and they cost a fifth of a frozen dataclass.)"""

    chain_id: str
    seq: int = 0
    link: str = ZERO_HASH


class Sealed(NamedTuple):
    receipt: Receipt
    line: bytes
    head: ChainHead


def stamp(draft: Mapping[str, Any], head: ChainHead, at: datetime | str) -> Receipt:
    """Add the fields every receipt carries, and its place after `head` (chainId, seq, prev); drop
    fields set to None (absent, never null). `at` may come preformatted (format_utc) when a batch
    shares one instant. The draft is not modified."""
    receipt = {k: v for k, v in draft.items() if v is not None}
    receipt.setdefault("receiptId", uuid7())
    receipt["schema"] = SCHEMA
    receipt["atUtc"] = at if isinstance(at, str) else format_utc(at)
    receipt["chainId"] = head.chain_id
    receipt["seq"] = head.seq + 1
    receipt["prev"] = head.link
    return receipt


def validate(receipt: Mapping[str, Any]) -> None:
    """Refuse anything the auditor would have to call uncertain (unknown field, free text, ...)."""
    if is_valid(receipt):
        return
    first = problems(receipt)[0]
    raise ReceiptError(first.field, first.problem)


def chain(receipt: Receipt, head: ChainHead) -> tuple[ChainHead, bytes]:
    """The head after this stamped receipt, and its canonical bytes, which both the next link and
    the MAC cover."""
    canonical = canonical_bytes(receipt)
    return ChainHead(head.chain_id, receipt["seq"], hashlib.sha256(canonical).hexdigest()), canonical


def sign(receipt: Receipt, key: bytes | None, canonical: bytes) -> None:
    """Add the MAC over the canonical bytes (in place); without a key the receipt stays unsigned."""
    if key is not None:
        receipt["mac"] = hmac.digest(key, canonical, "sha256").hex()


def render(receipt: Mapping[str, Any]) -> bytes:
    """One JSONL line (without the newline), keys sorted so equal receipts are equal bytes."""
    return orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)


def seal(draft: Mapping[str, Any], head: ChainHead, key: bytes | None, at: datetime | str) -> Sealed:
    """Run the whole pipeline for one receipt appended after `head`; a bad draft fails before
    anything is hashed."""
    receipt = stamp(draft, head, at)
    validate(receipt)
    new_head, canonical = chain(receipt, head)
    sign(receipt, key, canonical)
    return Sealed(receipt, render(receipt), new_head)


def seal_all(
    drafts: Iterable[Mapping[str, Any]], head: ChainHead, key: bytes | None, at: datetime
) -> list[Sealed]:
    """Seal a batch in order after `head`, all stamped with the same instant."""
    sealed: list[Sealed] = []
    moment = format_utc(at)
    for draft in drafts:
        sealed.append(seal(draft, head, key, moment))
        head = sealed[-1].head
    return sealed
