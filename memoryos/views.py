"""Pure conversions between the store's rows and the public model, and the argument checks that
need no store: what `Memory` hands out is built here, so the facade keeps only the sequencing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoryos import validation
from memoryos.errors import InvalidInput
from memoryos.model import Candidate, Record, Turn
from memoryos.policies import capture
from memoryos.store.rows import CandidateRow, Unit
from memoryos.store.sqlite_files import classify_os_error
from memoryos.timeutil import from_micros
from receipts import format_utc

_REASON = re.compile(r"^[a-z0-9_]{1,64}$")


def candidate_texts(candidate: capture.Candidate) -> list[str]:
    return [t for t in (candidate.key, candidate.body, candidate.proof) if t]


def candidate_of(row: CandidateRow) -> Candidate:
    return Candidate(
        row.candidate_id,
        row.kind,
        row.key,
        row.body,
        row.proof,
        row.status,
        from_micros(row.created_at),
        row.memory_id,
    )


def export_path(path: object) -> Path:
    target = Path(validation.file_path(path, "export"))
    try:
        is_dir, folder_exists = target.is_dir(), target.parent.is_dir()
    except OSError as exc:  # a name too long for the file system, a loop of links, ...
        raise classify_os_error(exc, target, "the export was not written") from None
    if is_dir:
        raise InvalidInput(f"{target} is a directory: pass a file name, e.g. {target / 'memories.jsonl'}")
    if not folder_exists:
        raise InvalidInput(f"the folder {target.parent} does not exist: create it first")
    return target


def utc_text(micros: int) -> str:
    return format_utc(from_micros(micros))


def current_version(versions: Sequence[Unit]) -> Unit | None:
    live = [u for u in versions if u.status != "superseded"]
    return live[-1] if live else None


def valid_at(versions: Sequence[Unit], moment: int) -> Unit | None:
    valid = [
        u for u in versions if u.valid_from <= moment and (u.valid_until is None or moment < u.valid_until)
    ]
    return valid[-1] if valid else None


def unit_fields(unit: Unit) -> dict[str, Any]:
    return {name: getattr(unit, name) for name in unit.__dataclass_fields__ if name != "rowid"}


def reason_code(reason: object) -> str:
    if not isinstance(reason, str):
        raise InvalidInput("reason must be a short code such as 'user request' or 'gdpr'")
    code = re.sub(r"[\s-]+", "_", reason.strip().lower())
    if not _REASON.match(code):
        raise InvalidInput(
            "reason must be 1-64 letters, digits, spaces or underscores (it goes into receipts)"
        )
    return code


def record_of(unit: Unit) -> Record:
    return Record(
        memory_id=unit.memory_id,
        key=unit.key or "",
        body=unit.body,
        kind=unit.kind or "fact",
        version=unit.version,
        status=unit.status,
        confidence=unit.confidence or 0.0,
        proof=unit.proof,
        valid_from=from_micros(unit.valid_from),
        valid_until=None if unit.valid_until is None else from_micros(unit.valid_until),
        source=unit.source,
        recorded_at=from_micros(unit.created_at),
        reason=unit.reason,
        reinforced=unit.reinforced,
    )


def turn_order(unit: Unit) -> tuple[int, str]:
    # A page keeps its turn's time; its own id is newer, so ties are broken by the turn's (UUIDv7) id.
    return unit.created_at, unit.source_ids[0] if unit.source_ids else unit.memory_id


def turn_of(unit: Unit) -> Turn:
    return Turn(
        unit.memory_id,
        unit.version,
        unit.tier,
        unit.role or "user",
        unit.body,
        from_micros(unit.created_at),
        unit.source,
    )
