"""Hash-chain bookkeeping per chainId: duplicates, seq gaps and broken links, in little memory.

Each chain keeps 8 bytes per seq (a prefix of the receipt's link hash) to tell an at-least-once
duplicate (same bytes: ignored) from a conflicting one (same seq, other bytes: a finding), the
next expected seq, and the link hash of the last receipt in seq order. Receipts that arrive ahead
of their turn wait in `pending` until the gap closes; in streaming (`ordered`) mode a gap is
reported at once instead, and a late arrival for a seq already given up on raises `Unordered` so
that the caller can re-run the exact pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from receipts import ZERO_HASH

__all__ = ["DUPLICATE", "Chains", "Unordered"]

DUPLICATE = "duplicate"
_PREFIX = 8
_FAR = 1 << 22  # a seq this far past the end is kept in a dict, not by growing the array


class Unordered(Exception):  # a control-flow signal, not an error
    """The input is not in the order the streaming pass relies on; audit it exactly instead."""


_Entry = tuple[str | None, str, str | None, str | None]  # (prev, link, run, receiptId)

# (rule, run id, receipt ids, reason) — the chain reports findings, the engine attributes them.
Report = Callable[[str, str | None, tuple[str | None, ...], str], None]


@dataclass
class _Chain:
    seen: bytearray = field(default_factory=bytearray)
    far: dict[int, bytes] = field(default_factory=dict)
    next_seq: int = 1
    link: str = ZERO_HASH
    pending: dict[int, _Entry] = field(default_factory=dict)

    def mark(self, seq: int, digest: bytes) -> bytes | None:
        """Record the receipt's digest at seq; return the digest already there, if any."""
        offset = seq * _PREFIX
        if offset + _PREFIX <= len(self.seen):
            old = bytes(self.seen[offset : offset + _PREFIX])
            if old != bytes(_PREFIX):
                return old
            self.seen[offset : offset + _PREFIX] = digest
            return None
        if offset > len(self.seen) + _FAR * _PREFIX:
            old_far = self.far.get(seq)
            if old_far is None:
                self.far[seq] = digest
            return old_far
        self.seen.extend(bytes(offset - len(self.seen)))
        self.seen += digest
        return None


class Chains:
    def __init__(self, report: Report, *, ordered: bool) -> None:
        self._chains: dict[str, _Chain] = {}
        self._report = report
        self._ordered = ordered

    def add(
        self,
        chain_id: str,
        seq: int,
        prev: str,
        link: str,
        *,
        run: str | None,
        rid: str | None,
        digest: bytes | None = None,
    ) -> str:
        """Check one receipt; DUPLICATE when it is a copy of one already seen (ignore it).
        `digest`: the link's first bytes, when the caller has them as bytes already."""
        chain = self._chains.get(chain_id)
        digest = bytes.fromhex(link[: 2 * _PREFIX]) if digest is None else digest[:_PREFIX]
        # The next receipt of its chain, with nothing waiting behind it: what almost every receipt
        # of an export is, so the general steps below are written out once here.
        if (
            chain is not None
            and seq == chain.next_seq
            and len(chain.seen) == seq * _PREFIX
            and not chain.pending
        ):
            chain.seen += digest
            if prev != chain.link:
                self.broken(chain_id, seq, run, rid)
            chain.link, chain.next_seq = link, seq + 1
            return "ok"
        if chain is None:
            chain = self._chains[chain_id] = _Chain()
        old = chain.mark(seq, digest)
        if old is not None:
            if old == digest:
                return DUPLICATE
            self._report(
                "evidence.duplicate",
                run,
                (rid,),
                f"another receipt already holds seq {seq} of chain {chain_id}",
            )
            return DUPLICATE
        if seq == chain.next_seq:
            self._advance(chain, chain_id, seq, (prev, link, run, rid))
            self._drain(chain, chain_id)
        elif seq > chain.next_seq:
            if self._ordered:
                first = seq - 1 if seq - 1 > chain.next_seq else None
                missing = f"seq {chain.next_seq}" + (f"..{first}" if first else "")
                self._report("evidence.gap", run, (rid,), f"chain {chain_id} is missing {missing}")
                self._advance(chain, chain_id, seq, (None, link, run, rid))
            else:
                chain.pending[seq] = (prev, link, run, rid)
        elif self._ordered:  # an earlier seq, never seen: the gap reported for it was premature
            raise Unordered(f"chain {chain_id} seq {seq} arrived after a later one")
        return "ok"

    def _advance(self, chain: _Chain, chain_id: str, seq: int, entry: _Entry) -> None:
        """Move the chain head to `seq`; a None prev means there is nothing to link to (a gap)."""
        prev, link, run, rid = entry
        if prev is not None and prev != chain.link:
            self.broken(chain_id, seq, run, rid)
        chain.link, chain.next_seq = link, seq + 1

    def broken(self, chain_id: str, seq: int, run: str | None, rid: str | None) -> None:
        reason = f"prev of seq {seq} in chain {chain_id} does not match the hash of seq {seq - 1}"
        self._report("evidence.chain", run, (rid,), reason)

    def _drain(self, chain: _Chain, chain_id: str) -> None:
        while chain.next_seq in chain.pending:
            seq = chain.next_seq
            self._advance(chain, chain_id, seq, chain.pending.pop(seq))

    def finish(self) -> None:
        """Report the gaps still open at the end of the input (exact mode keeps them pending).
        Works on a copy of each chain's head: the chain itself can still grow afterwards."""
        for chain_id, chain in self._chains.items():
            if not chain.pending:
                continue
            view = _Chain(next_seq=chain.next_seq, link=chain.link, pending=dict(chain.pending))
            while view.pending:
                seq = min(view.pending)
                _, link, run, rid = view.pending.pop(seq)
                first = seq - 1 if seq - 1 > view.next_seq else None
                missing = f"seq {view.next_seq}" + (f"..{first}" if first else "")
                self._report("evidence.gap", run, (rid,), f"chain {chain_id} is missing {missing}")
                self._advance(view, chain_id, seq, (None, link, run, rid))
                self._drain(view, chain_id)
