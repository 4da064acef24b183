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
from typing import Any, NamedTuple, Protocol

import orjson

from receipts.canonical import canonical_bytes
from receipts.errors import ReceiptError
from receipts.ids import uuid7
from receipts.model import FIELDS, SCHEMA, ZERO_HASH, format_utc, is_valid, problems

Receipt = dict[str, Any]

# hashlib.sha256() looks its algorithm up by name in OpenSSL 3 on every call (EVP_MD_fetch, more
# instructions than hashing a whole receipt); copying a prepared empty state skips the lookup.
_SHA256 = hashlib.sha256()


class Signer(Protocol):
    """A prepared HMAC-SHA256 state (hmac.HMAC, or the OpenSSL object inside it)."""

    def copy(self) -> Signer: ...
    def update(self, msg: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


_signers: dict[bytes, Signer] = {}  # the last key's prepared state (a store signs with one key)


def signer_for(key: bytes) -> Signer:
    """A prepared HMAC-SHA256 state for `key`, set up once per key rather than once per batch, and
    the C object of hmac.HMAC when there is one: its Python wrapper costs a frame and an object per
    copy, update and hexdigest, three times a receipt (the same bytes either way)."""
    found = _signers.get(key)
    if found is None:
        prepared = hmac.new(key, digestmod=hashlib.sha256)
        found = getattr(prepared, "_hmac", None) or prepared  # _hmac: OpenSSL's, when CPython has it
        _signers.clear()
        _signers[key] = found
    return found


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
    signer = None if key is None else signer_for(key)
    return _sealed(stamp(draft, head, at if isinstance(at, str) else format_utc(at)), head, signer)


def seal_all(
    drafts: Iterable[Mapping[str, Any]], head: ChainHead, key: bytes | None, at: datetime
) -> list[Sealed]:
    """Seal a batch in order after `head`, all stamped with the same instant: the same receipts and
    lines as seal() one by one, with the key's HMAC state prepared once for the batch. A receipt
    shaped like the one before it (a promotion's, one per page) is validated by the values it does
    not share with that one (_Shape)."""
    signer = None if key is None else signer_for(key)
    moment = format_utc(at)
    sealed: list[Sealed] = []
    shape: _Shape | None = None
    last: tuple[tuple[str, ...], Receipt] | None = None  # the last receipt validated the full way
    for draft in drafts:
        receipt = stamp(draft, head, moment)
        own = "receiptId" in draft or "mac" in draft  # a draft's own id or MAC: the full way
        if shape is None and last is not None and not own:  # a second receipt: worth a shape
            shape = _Shape(*last)
        if shape is not None and not own and shape.admits(receipt):
            line, canonical = _serialised(receipt, signer)
            one = Sealed(receipt, line, ChainHead(head.chain_id, receipt["seq"], _link(canonical)))
        else:
            keys = tuple(receipt)  # before _sealed adds the MAC
            one = _sealed(receipt, head, signer)
            shape, last = None, (None if own else (keys, one.receipt))
        sealed.append(one)
        head = one.head
    return sealed


def _sealed(receipt: Receipt, head: ChainHead, signer: Signer | None) -> Sealed:
    validate(receipt)
    line, canonical = _serialised(receipt, signer)
    new_head = ChainHead(head.chain_id, receipt["seq"], _link(canonical))
    return Sealed(receipt, line, new_head)


_MAC_MEMBER = b',"mac":"'
_PLACEHOLDER_END = len(_MAC_MEMBER) + 64  # where the placeholder's closing quote is


def _serialised(receipt: Receipt, signer: Signer | None) -> tuple[bytes, bytes]:
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


def sign_with(receipt: Receipt, signer: Signer, canonical: bytes) -> str:
    """Add the MAC over the canonical bytes (in place) from a prepared HMAC state, which is copied
    (an `hmac.new` per receipt would set the key up again each time); returns it."""
    mac = signer.copy()
    mac.update(canonical)
    receipt["mac"] = digest = mac.hexdigest()
    return digest


# -- same-shape receipts: validated by the values they do not share ---------------------------------
# The fields a batch's receipts differ in (a promotion's: one receipt per page). Every other field
# must equal, in value and type, the field of the receipt before, which was validated the full way:
# equal values of one type get one verdict, and one key set means the same required fields and
# boundary rules. receiptId, seq and prev are the writer's own (an id of a draft's own is checked).
_VARYING = frozenset({"derivedFrom", "memoryId", "prev", "receiptId", "seq", "version"})
_WRITERS = frozenset({"receiptId", "seq", "prev"})


class _Shape:
    """What a receipt validated the full way shares with the next ones of its batch."""

    __slots__ = ("checks", "constant", "keys", "types", "values")
    constant: Callable[[Receipt], tuple[Any, ...]]

    def __init__(self, keys: tuple[str, ...], first: Receipt) -> None:
        self.keys = keys  # the stamped receipt's, before a MAC was added
        constant = [k for k in keys if k not in _VARYING]
        # itemgetter of one name returns the bare value, of several a tuple
        self.constant = operator.itemgetter(*constant) if len(constant) > 1 else _one(constant[0])
        self.values = self.constant(first)
        self.types = tuple(map(type, self.values))
        self.checks = [(k, FIELDS[k].check) for k in keys if k in _VARYING and k not in _WRITERS]

    def admits(self, receipt: Receipt) -> bool:
        """True when this receipt is valid for sharing the shape (False: check it the full way)."""
        if tuple(receipt) != self.keys:
            return False
        values = self.constant(receipt)
        # equal values first (one C comparison), their types only then: 1 == True, "a" == a str subclass
        if values != self.values or tuple(map(type, values)) != self.types:
            return False
        # a loop, not all(<generator>): no generator frame per receipt (the batch's hot path)
        for name, check in self.checks:  # noqa: SIM110
            if not check(receipt[name]):
                return False
        return True


def _one(name: str) -> Callable[[Receipt], tuple[Any, ...]]:
    return lambda receipt: (receipt[name],)
