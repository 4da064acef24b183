"""What must hold after a crash and a restart, computed from the store file and the child's acks.

Everything here reads the store through its own read-only sqlite3 (or psycopg: chaos/stores.py)
connection (never memoryos's), so a
bug in memoryos's readers cannot hide a bug in its writers. The checks return counts and findings;
they never raise on bad data.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chaos import stores
from receipts import ZERO_HASH, link_hash, read_key_file, read_outbox, verify_mac
from receipts.outbox import read_only_uri

#: Receipts that release a unit on purpose: they account for it (docs/receipts.md).
REMOVALS = frozenset({"evict", "expire", "forget"})
#: Receipts that bring a unit version into being.
CREATIONS = frozenset({"store", "stm_to_mtm", "mtm_to_lpm", "correct"})


@dataclass
class Tally:
    """The counts one trial contributes to the results table, plus what explains them."""

    lost: int = 0
    duplicated: int = 0
    mismatches: int = 0
    findings: list[str] = field(default_factory=list)

    def add(self, kind: str, detail: str) -> None:
        if kind == "lost":
            self.lost += 1
        elif kind == "duplicated":
            self.duplicated += 1
        else:
            self.mismatches += 1
        if len(self.findings) < 20:  # enough to reproduce; a runaway bug should not flood the report
            self.findings.append(f"{kind}: {detail}")


@dataclass(frozen=True)
class UnitRow:
    memory_id: str
    version: int
    tier: str
    body: str
    source_ids: tuple[str, ...]
    derived_from: tuple[str, ...]
    status: str
    scope: tuple[str, str, str | None]  # (user, assistant, list)
    key: str | None
    content_hash: str | None

    @property
    def ref(self) -> str:
        return f"{self.memory_id}@{self.version}"


@dataclass
class Snapshot:
    """The store's units and receipts, read after the store was closed by its last writer."""

    units: list[UnitRow]
    receipts: list[dict[str, Any]]
    unreadable: list[str]
    open_intents: int

    @property
    def refs(self) -> set[str]:
        return {u.ref for u in self.units}


def integrity(path: Path | str) -> list[str]:
    """PRAGMA integrity_check on a connection of our own; ['ok'] becomes []. PostgreSQL checks its
    own pages (and a crash of a client cannot tear them): amcheck is not assumed installed."""
    if stores.is_url(path):
        return []
    conn = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


_UNITS = (
    "SELECT memory_id, version, tier, body, source_ids, derived_from, status, user_scope,"
    " assistant_scope, list, key, content_hash FROM units"
)
_INTENTS = "SELECT count(*) FROM intents"


def snapshot(path: Path | str) -> Snapshot:
    if stores.is_url(path):
        rows = stores.pg_rows(str(path), _UNITS)
        intents = int(stores.pg_rows(str(path), _INTENTS)[0][0])
        lines = stores.pg_outbox(str(path))
    else:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            rows = conn.execute(_UNITS).fetchall()
            intents = int(conn.execute(_INTENTS).fetchone()[0])
        finally:
            conn.close()
        lines = list(read_outbox(path))
    units = [
        UnitRow(
            r[0],
            r[1],
            r[2],
            r[3],
            stores.json_list(r[4]),
            stores.json_list(r[5]),
            r[6],
            (r[7], r[8], r[9]),
            r[10],
            r[11],
        )
        for r in rows
    ]
    receipts: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for line in lines:
        if line.receipt is None:
            unreadable.append(f"seq {line.number}: {line.error}")
        else:
            receipts.append(line.receipt)
    return Snapshot(units, receipts, unreadable, intents)


# -- receipts on their own --------------------------------------------------------------------------
def chain_problems(receipts: list[dict[str, Any]], key: bytes | None) -> list[str]:
    """seq contiguous from 1, each `prev` the hash of its predecessor, each MAC valid under the key."""
    found: list[str] = []
    link = ZERO_HASH
    for expected, receipt in enumerate(receipts, start=1):
        if receipt.get("seq") != expected:
            found.append(f"seq gap: expected {expected}, found {receipt.get('seq')}")
        if receipt.get("prev") != link:
            found.append(f"broken prev link at seq {receipt.get('seq')}")
        if key is not None and not verify_mac(key, receipt):
            found.append(f"bad MAC at seq {receipt.get('seq')}")
        link = link_hash(receipt)
    return found


def run_problems(receipts: list[dict[str, Any]]) -> list[str]:
    """Every promotion run that started has ended, and none both committed and failed."""
    statuses: dict[str, set[str]] = defaultdict(set)
    for r in receipts:
        if r.get("boundary") in ("stm_to_mtm", "mtm_to_lpm"):
            statuses[str(r.get("runId"))].add(str(r.get("status")))
    found = []
    for run_id, seen in statuses.items():
        if "started" in seen and not seen & {"committed", "verified", "failed"}:
            found.append(f"run {run_id} started and never ended")
        if {"committed", "failed"} <= seen:
            found.append(f"run {run_id} both committed and failed")
    return found


# -- state against receipts and acknowledgements ------------------------------------------------------
class Ledger:
    """What the receipts say happened to each unit version."""

    def __init__(self, receipts: Iterable[dict[str, Any]]) -> None:
        self.created: dict[str, dict[str, Any]] = {}
        self.removed: set[str] = set()  # refs released on purpose
        self.removed_ids: set[str] = set()
        self.promoted: dict[str, list[str]] = defaultdict(list)  # turn ref -> page refs
        for r in receipts:
            self._add(r)

    def _add(self, r: dict[str, Any]) -> None:
        if r.get("status") != "committed" or "memoryId" not in r:
            return
        ref = f"{r['memoryId']}@{r.get('version')}"
        boundary = r.get("boundary")
        if boundary in CREATIONS:
            self.created.setdefault(ref, r)
        if boundary in REMOVALS:
            self.removed.add(ref)
            self.removed_ids.add(str(r["memoryId"]))
        if boundary == "stm_to_mtm":
            for source in r.get("derivedFrom", []):
                self.promoted[source].append(ref)

    def gone_on_purpose(self, ref: str) -> bool:
        return ref in self.removed

    def released(self, ref: str) -> bool:
        """The receipts say this version left the store: removed, or an STM turn promoted."""
        return ref in self.removed or bool(self.promoted.get(ref))


def check_turns(snap: Snapshot, ledger: Ledger, acks: list[dict[str, Any]], tally: Tally) -> None:
    """Every acknowledged turn: in STM or in exactly one page, or accounted for by a removal receipt."""
    in_stm = {u.memory_id: u for u in snap.units if u.tier == "stm"}
    pages: dict[str, list[UnitRow]] = defaultdict(list)
    for unit in snap.units:
        if unit.tier == "mtm":
            for source in unit.source_ids:
                pages[source].append(unit)
    for ack in acks:
        if ack.get("op") != "remember":
            continue
        turn, ref = str(ack["id"]), f"{ack['id']}@1"
        holders = ([in_stm[turn]] if turn in in_stm else []) + pages.get(turn, [])
        promoted_to = set(ledger.promoted.get(ref, []))
        if len(holders) > 1 or len(promoted_to) > 1:
            tally.add("duplicated", f"turn {turn}: {len(holders)} copies, promoted {len(promoted_to)} times")
        elif holders:
            _same_text(holders[0], ack, tally)
        elif not (ledger.gone_on_purpose(ref) or any(ledger.gone_on_purpose(p) for p in promoted_to)):
            tally.add("lost", f"acknowledged turn {turn} is in no tier and no receipt released it")


def _same_text(unit: UnitRow, ack: dict[str, Any], tally: Tally) -> None:
    import hashlib

    if hashlib.sha256(unit.body.encode()).hexdigest() != ack.get("sha"):
        tally.add("mismatch", f"turn {ack['id']} survived with different text")


def check_records(snap: Snapshot, ledger: Ledger, acks: list[dict[str, Any]], tally: Tally) -> None:
    """Acknowledged put()/correct() versions are present or removed on purpose; no LPM duplicates."""
    refs = snap.refs
    for ack in acks:
        if ack.get("op") in ("put", "correct"):
            ref = f"{ack['id']}@{ack['version']}"
            if ref not in refs and not ledger.gone_on_purpose(ref):
                tally.add("lost", f"acknowledged {ack['op']} {ref} is gone without a receipt")
    live = Counter(
        (u.scope, u.key or u.content_hash) for u in snap.units if u.tier == "lpm" and u.status != "superseded"
    )
    for (_, _), count in live.items():
        if count > 1:
            tally.add("duplicated", f"{count} live LPM records with one key or content in one list")


def check_lineage(snap: Snapshot, ledger: Ledger, tally: Tally) -> None:
    """Every LPM record's sources are present or released on purpose, and were once stored."""
    refs = snap.refs
    for unit in snap.units:
        if unit.tier != "lpm":
            continue
        for ref in unit.derived_from:
            if ref not in refs and not ledger.gone_on_purpose(ref):
                tally.add("mismatch", f"LPM record {unit.ref} lost its lineage: {ref} vanished")
        for turn in unit.source_ids:
            if f"{turn}@1" not in ledger.created:
                tally.add("mismatch", f"LPM record {unit.ref} cites turn {turn} that was never stored")


def check_receipts_match_state(snap: Snapshot, ledger: Ledger, acked: set[str], tally: Tally) -> None:
    """Receipts and tiers tell one story: each unit has its creating receipt, and each version the
    receipts never released is still there (acknowledged turns were counted by check_turns)."""
    refs = snap.refs
    for unit in snap.units:
        if unit.ref not in ledger.created:
            tally.add("mismatch", f"{unit.tier} unit {unit.ref} has no creating receipt")
    for ref, receipt in ledger.created.items():
        if ref not in refs and ref not in acked and not ledger.released(ref):
            what = "lost" if receipt.get("toTier") == "stm" else "mismatch"
            tally.add(
                what, f"{receipt.get('boundary')} receipt says {ref} exists; the store has no such unit"
            )


def store_key(path: Path | str) -> bytes | None:
    """The store's receipt key: its key file beside a SQLite store, its `receipt_key` row on
    PostgreSQL (None when the child died before creating it)."""
    if stores.is_url(path):
        return stores.pg_key(str(path))
    key_file = Path(path).with_name(Path(path).name + ".receipt-key")
    return read_key_file(key_file) if key_file.exists() else None


def verify_state(path: Path | str, acks: list[dict[str, Any]]) -> Tally:
    """All of the above on a closed store; `Tally` carries the counts for the results table."""
    tally = Tally()
    for problem in integrity(path):
        tally.add("mismatch", f"integrity_check: {problem}")
    snap = snapshot(path)
    key = store_key(path)
    for problem in snap.unreadable + chain_problems(snap.receipts, key) + run_problems(snap.receipts):
        tally.add("mismatch", problem)
    ledger = Ledger(snap.receipts)
    check_turns(snap, ledger, acks, tally)
    check_records(snap, ledger, acks, tally)
    check_lineage(snap, ledger, tally)
    acked = {f"{a['id']}@{a.get('version', 1)}" for a in acks if "id" in a}
    check_receipts_match_state(snap, ledger, acked, tally)
    return tally
