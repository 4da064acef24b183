"""The writer pipeline: stamp -> validate (content-free) -> render -> chain -> MAC.

Each step is a small function; `seal` composes them. A receipt is serialised once: its line and its
canonical bytes (what the chain link and the MAC cover) are cut from the same bytes (_serialised).
The caller owns persistence: it reads the chain head inside its transaction, seals, and writes the
rendered line in the same transaction.
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

# hashlib.sha256() looks its algorithm up by name in OpenSSL 3 on every call (EVP_MD_fetch, more
# instructions than hashing a whole receipt); copying a prepared empty state skips the lookup.
_SHA256 = hashlib.sha256()


def _link(canonical: bytes) -> str:
    """sha256(canonical).hexdigest(), from the prepared state."""
    digest = _SHA256.copy()
    digest.update(canonical)
    return digest.hexdigest()


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
    # a C-level copy when no field is None (the drafts memoryos builds), else the filtering one
    receipt = dict(draft) if None not in draft.values() else {k: v for k, v in draft.items() if v is not None}
    if "receiptId" not in receipt:  # not setdefault: that would make (and waste) an id for every draft
        receipt["receiptId"] = uuid7()
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


def render(receipt: Mapping[str, Any]) -> bytes:
    """One JSONL line (without the newline), keys sorted so equal receipts are equal bytes."""
    return orjson.dumps(receipt, option=orjson.OPT_SORT_KEYS)


def seal(draft: Mapping[str, Any], head: ChainHead, key: bytes | None, at: datetime | str) -> Sealed:
    """Run the whole pipeline for one receipt appended after `head`; a bad draft fails before
    anything is hashed."""
    signer = None if key is None else hmac.new(key, digestmod=hashlib.sha256)
    return _sealed(draft, head, signer, at if isinstance(at, str) else format_utc(at))


def seal_all(
    drafts: Iterable[Mapping[str, Any]], head: ChainHead, key: bytes | None, at: datetime
) -> list[Sealed]:
    """Seal a batch in order after `head`, all stamped with the same instant: the same receipts and
    lines as seal() one by one, with the key's HMAC state prepared once for the batch."""
    signer = None if key is None else hmac.new(key, digestmod=hashlib.sha256)
    moment = format_utc(at)
    sealed: list[Sealed] = []
    for draft in drafts:
        sealed.append(_sealed(draft, head, signer, moment))
        head = sealed[-1].head
    return sealed


def _sealed(draft: Mapping[str, Any], head: ChainHead, signer: hmac.HMAC | None, moment: str) -> Sealed:
    receipt = stamp(draft, head, moment)
    validate(receipt)
    line, canonical = _serialised(receipt, signer)
    new_head = ChainHead(head.chain_id, receipt["seq"], _link(canonical))
    return Sealed(receipt, line, new_head)


_MAC_MEMBER = b',"mac":"'
_PLACEHOLDER_END = len(_MAC_MEMBER) + 64  # where the placeholder's closing quote is


def _serialised(receipt: Receipt, signer: hmac.HMAC | None) -> tuple[bytes, bytes]:
    """The rendered line and the canonical bytes (the line without its `mac` member), signing the
    receipt in place when there is a key: one serialisation where a canonical one and a rendering
    made two. The line is rendered with a placeholder MAC, whose member is cut out for the
    canonical bytes and overwritten with the real MAC for the line. This holds because a validated receipt
    has only known fields, no nested objects and no unescaped quote inside a string, so the one
    `,"mac":"` in its bytes is the member itself (checked; otherwise the two-step way)."""
    if signer is None:
        canonical = canonical_bytes(receipt)
        return (canonical if "mac" not in receipt else render(receipt)), canonical
    receipt["mac"] = ZERO_HASH
    placeholder = render(receipt)
    at = placeholder.find(_MAC_MEMBER)
    if at < 0 or placeholder.find(_MAC_MEMBER, at + 1) >= 0:  # never for a valid receipt
        canonical = canonical_bytes(receipt)
        sign_with(receipt, signer, canonical)
        return render(receipt), canonical
    end = at + _PLACEHOLDER_END
    canonical = placeholder[:at] + placeholder[end + 1 :]
    mac = sign_with(receipt, signer, canonical)
    return placeholder[: at + len(_MAC_MEMBER)] + mac.encode() + placeholder[end:], canonical


def sign_with(receipt: Receipt, signer: hmac.HMAC, canonical: bytes) -> str:
    """Add the MAC over the canonical bytes (in place) from a prepared HMAC state, which is copied
    (an `hmac.new` per receipt would set the key up again each time); returns it."""
    mac = signer.copy()
    mac.update(canonical)
    receipt["mac"] = digest = mac.hexdigest()
    return digest
