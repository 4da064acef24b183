"""The writer pipeline: stamp -> validate (content-free) -> render -> chain -> MAC.

Each step is a small function; `seal` composes them. A receipt is serialised once: its line and its
canonical bytes (what the chain link and the MAC cover) are cut from the same bytes (_serialised).
The caller owns persistence: it reads the chain head inside its transaction, seals, and writes the
rendered line in the same transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import operator
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from receipts.canonical import canonical_bytes
from receipts.errors import ReceiptError
from receipts.ids import uuid7
from receipts.model import FIELDS, SCHEMA, ZERO_HASH, format_utc, is_valid, problems

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
    lines as seal() one by one, with the key's HMAC state prepared once for the batch. A receipt
    shaped like the one before it (a promotion's, one per page) is sealed from that one's layout
    (_Layout): validated and rendered by its own values only."""
    signer = None if key is None else hmac.new(key, digestmod=hashlib.sha256)
    moment = format_utc(at)
    sealed: list[Sealed] = []
    layout: _Layout | None = None
    last: tuple[Receipt, bytes] | None = None  # the previous receipt sealed the full way
    for draft in drafts:
        receipt = stamp(draft, head, moment)
        own = "receiptId" in draft or "mac" in draft  # a draft's own id or MAC: the full way
        if signer is not None and not own:
            if layout is None and last is not None:  # a second receipt of one shape: worth a layout
                layout = _Layout.of(*last, receipt)
            if layout is not None and layout.fits(receipt):
                one = layout.seal(receipt, head, signer)
                sealed.append(one)
                head = one.head
                continue
        layout = None
        one = _sealed_stamped(receipt, head, signer)
        last = None if own else (one.receipt, one.line)
        sealed.append(one)
        head = one.head
    return sealed


def _sealed(draft: Mapping[str, Any], head: ChainHead, signer: hmac.HMAC | None, moment: str) -> Sealed:
    return _sealed_stamped(stamp(draft, head, moment), head, signer)


def _sealed_stamped(receipt: Receipt, head: ChainHead, signer: hmac.HMAC | None) -> Sealed:
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


# -- same-shape receipts: one layout, per-receipt values only ---------------------------------------
# The fields a batch's receipts differ in. Everything else must equal (value and type) the field of
# the receipt the layout was made from, which was validated the full way: equal values of the same
# type get the same verdict, and the key set (hence required fields, boundary rules) is the same.
_VARYING = ("derivedFrom", "memoryId", "prev", "receiptId", "seq", "version")
_CHECKS = {name: FIELDS[name].check for name in _VARYING}


def _json_str(value: str) -> bytes:
    # only for values whose grammar allows no quote, backslash or control character (checked)
    return b'"' + value.encode() + b'"'


def _json_int(value: int) -> bytes:
    return str(value).encode()


def _json_refs(value: list[str]) -> bytes:
    return ('["' + '","'.join(value) + '"]').encode() if value else b"[]"


_RENDER: dict[str, Callable[[Any], bytes]] = {
    "derivedFrom": _json_refs,
    "memoryId": _json_str,
    "prev": _json_str,
    "receiptId": _json_str,
    "seq": _json_int,
    "version": _json_int,
}


class _Layout:
    """The canonical bytes of receipts that differ only in `_VARYING` values, as constant pieces
    with a slot for each such value (and one for the `mac` member of the line).

    Made from a receipt sealed the full way (its orjson rendering) and refused unless each slot's
    value, rendered here, is exactly what orjson wrote there, found once: receipts that fit it then
    get the bytes orjson would write (tests/receipts/test_pipeline_once.py holds them equal)."""

    __slots__ = ("checks", "constant", "keys", "mac_slot", "pieces", "renders", "shape", "varying")
    constant: Callable[[Receipt], tuple[Any, ...]]

    def __init__(
        self,
        keys: tuple[str, ...],
        first: Receipt,
        varying: tuple[str, ...],
        pieces: list[bytes],
        mac_slot: int,
    ) -> None:
        self.keys = keys  # a stamped receipt's, before its MAC is added
        constant = [k for k in keys if k not in _VARYING]
        # a 1-tuple when one name is given, as with several: itemgetter returns the bare value then
        self.constant = operator.itemgetter(*constant) if len(constant) > 1 else _one(constant[0])
        values = self.constant(first)
        self.shape = (values, tuple(map(type, values)))
        self.varying = varying
        self.renders = [_RENDER[k] for k in varying]
        # receiptId, seq and prev are the writer's own (a draft with its own receiptId never gets here)
        self.checks = [(k, _CHECKS[k]) for k in varying if k not in ("receiptId", "seq", "prev")]
        self.pieces = pieces
        self.mac_slot = mac_slot

    @classmethod
    def of(cls, first: Receipt, line: bytes, receipt: Receipt) -> _Layout | None:
        """The layout of `first` (sealed with a MAC into `line`), if `receipt` has its shape."""
        keys = tuple(receipt)
        if tuple(first) != (*keys, "mac"):
            return None
        varying = tuple(k for k in sorted(keys) if k in _VARYING)
        if len(varying) == len(keys):
            return None
        at = line.find(_MAC_MEMBER)
        canonical = line[:at] + line[at + _PLACEHOLDER_END + 1 :]
        slots: list[tuple[int, int]] = []
        for name in varying:
            member = b'"' + name.encode() + b'":'
            start = canonical.find(member) + len(member)
            value = _RENDER[name](first[name])
            if canonical.count(member) != 1 or canonical[start : start + len(value)] != value:
                return None
            slots.append((start, start + len(value)))
        slots.append((at, at))  # the mac member, inserted where the line has it
        slots.sort()
        pieces, cursor = [], 0
        for start, end in slots:
            if start < cursor:
                return None
            pieces.append(canonical[cursor:start])
            cursor = end
        pieces.append(canonical[cursor:])
        layout = cls(keys, first, varying, pieces, slots.index((at, at)))
        return layout if layout.fits(receipt) else None

    def fits(self, receipt: Receipt) -> bool:
        if tuple(receipt) != self.keys:
            return False
        values = self.constant(receipt)
        return (values, tuple(map(type, values))) == self.shape

    def seal(self, receipt: Receipt, head: ChainHead, signer: hmac.HMAC) -> Sealed:
        for name, check in self.checks:
            if not check(receipt[name]):
                validate(receipt)  # raises with the field's problem, as the full way would
        values = [to_json(receipt[name]) for to_json, name in zip(self.renders, self.varying, strict=True)]
        values.insert(self.mac_slot, b"")
        pieces = self.pieces
        canonical = b"".join(_interleave(pieces, values))
        mac = signer.copy()
        mac.update(canonical)
        receipt["mac"] = digest = mac.hexdigest()
        values[self.mac_slot] = _MAC_MEMBER + digest.encode() + b'"'
        line = b"".join(_interleave(pieces, values))
        return Sealed(receipt, line, ChainHead(head.chain_id, receipt["seq"], _link(canonical)))


def _one(name: str) -> Callable[[Receipt], tuple[Any, ...]]:
    return lambda receipt: (receipt[name],)


def _interleave(pieces: list[bytes], values: list[bytes]) -> list[bytes]:
    joined = [pieces[0]]
    for value, piece in zip(values, pieces[1:], strict=True):
        joined.append(value)
        joined.append(piece)
    return joined
