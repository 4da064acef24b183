"""Export a store (or one scope) to JSONL, and import such a file into a fresh store.

The file replays into a new store with the same ids, versions, validity and lineage. Erased content
is never in it: only live units are exported, and forgotten ones appear as tombstones (ids, times,
reason). Export is redacted by default: every span the no-store rule detects is masked, so that a
family enabled after a memory was stored still keeps it out of the file.

Two kinds of file: one for sharing (redacted, the default) carries no key material; one for
migration (`redacted=False`, or `scope_key=True`) carries the store's scope-pseudonym key, so that the
importing store finds each scope under the same pseudonyms, and its header says so
(`"carriesScopeKey": true`): treat it like the store itself. Either is written owner-only (0600).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from memoryos.errors import InvalidInput
from memoryos.lifecycle import rederive_segment
from memoryos.policies import nostore
from memoryos.policies import stm as stm_policy
from memoryos.scope import ScopeKey
from memoryos.store.rows import Segment, Unit
from memoryos.store.sqlite_files import classify_os_error
from memoryos.timeutil import from_micros, seconds_to_micros
from receipts import format_utc, uuid7

if TYPE_CHECKING:
    from memoryos.memory import Memory

FORMAT = "memoryos.export/1"
_UNIT_FIELDS = {f.name for f in fields(Unit)} - {"rowid"}
# Exported segment fields; the summary's bookkeeping stays behind (an import rebuilds the summary),
# and so does the distillation mark: it names a rowid of the exporting store.
_SEGMENT_FIELDS = {f.name for f in fields(Segment)} - {
    "summary_version",
    "summary_degraded",
    "pages",
    "distilled_through",
}
_REDACTED = ("body", "proof", "source", "reason")
# What each unit field may hold in a file (the dataclass's annotations, as strings): an import
# checks them, because the store's own writers never pass it a None body or a str as a tuple.
_UNIT_TYPES = {f.name: str(f.type) for f in fields(Unit)}
_SCOPE_KEY = re.compile(r"[0-9a-f]{64}")
BATCH = 1000


def export_jsonl(
    mem: Memory, path: Path, scope: ScopeKey | None, redacted: bool, scope_key: bool | None = None
) -> int:
    """Write the header, every live unit version, the segments and the tombstones; returns lines written."""
    user, assistant = (None, None) if scope is None else (scope.user, scope.assistant)
    carries_key = (not redacted) if scope_key is None else bool(scope_key)
    header: dict[str, Any] = {
        "format": FORMAT,
        "storeId": mem.store_id,
        "sourceVersion": mem.source_version,
        "redacted": redacted,
        "carriesScopeKey": carries_key,
        "scoped": scope is not None,
    }
    if carries_key:
        header["scopeKey"] = mem.store.meta("scope_key")
    tmp = path.with_name(path.name + ".partial")
    try:
        lines = _write(tmp, _records(mem, user, assistant, redacted, header))
        os.replace(tmp, path)  # a reader never sees half an export
    except OSError as exc:
        _discard(tmp)
        raise classify_os_error(exc, path, "the export was not written") from None
    except BaseException:
        _discard(tmp)
        raise
    return lines


def _write(tmp: Path, records: Iterator[dict[str, Any]]) -> int:
    """Owner-only from the first byte (an export holds memories, and perhaps the scope key)."""
    lines = 0
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)  # an older .partial may have had another mode
    with open(fd, "wb") as out:
        for record in records:
            out.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n")
            lines += 1
        out.flush()
        os.fsync(out.fileno())
    return lines


def _discard(tmp: Path) -> None:
    with contextlib.suppress(OSError):  # never there, or the folder is gone: nothing half-written is left
        tmp.unlink()


def _records(
    mem: Memory, user: str | None, assistant: str | None, redacted: bool, header: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    yield header
    after = 0
    while True:
        with mem.store.read() as tx:
            page = tx.units_page(after, BATCH, user, assistant)
        for unit in page:
            yield {"type": "unit", **_unit_record(unit, redacted)}
        if len(page) < BATCH:
            break
        after = page[-1].rowid or after
    with mem.store.read() as tx:
        segments = tx.all_segments()
        tombstones = tx.tombstones(user, assistant)
    for segment in segments:
        if user in (None, segment.user_scope) and assistant in (None, segment.assistant_scope):
            yield {"type": "segment", **_segment_record(segment, redacted)}
    for tombstone in tombstones:
        yield {"type": "tombstone", **tombstone}


def _segment_record(segment: Segment, redacted: bool) -> dict[str, Any]:
    """A segment's summary and keywords quote its pages, and single words escape the no-store rule
    (an address splits into several), so a redacted export leaves both out: the import rebuilds
    them from the redacted pages. The notes' bookkeeping is not exported at all."""
    record = {f: getattr(segment, f) for f in _SEGMENT_FIELDS}
    if redacted:
        record["summary"], record["keywords"] = "", {}
    return record


def _unit_record(unit: Unit, redacted: bool) -> dict[str, Any]:
    record = {name: getattr(unit, name) for name in _UNIT_FIELDS}
    record["source_ids"], record["derived_from"] = list(unit.source_ids), list(unit.derived_from)
    if redacted:
        for name in _REDACTED:
            text = record[name]
            if isinstance(text, str):
                record[name] = nostore.redact(text, nostore.scan(text))
    return record


def import_jsonl(mem: Memory, path: Path) -> int:
    """Replay an export into this store, which must be empty; all or nothing. Returns units imported."""
    lines = list(_read(path))
    if not lines:
        raise InvalidInput(f"{path} is empty; nothing was imported")
    header, body = lines[0][1], lines[1:]
    if header.get("format") != FORMAT:
        raise InvalidInput(f"{path} is not a memoryos export ({FORMAT}); nothing was imported")
    idle = seconds_to_micros(mem.config.stm_idle_seconds)
    units = 0
    with mem.store.write("import") as tx:
        if not tx.is_empty():
            raise InvalidInput("import into a fresh, empty store: this one already holds memories")
        scope_key = header.get("scopeKey")
        if isinstance(scope_key, str) and not _SCOPE_KEY.fullmatch(scope_key):
            raise InvalidInput(
                f"{path}: its scopeKey is not 64 hex digits, the file is damaged; nothing was imported"
            )
        if not isinstance(scope_key, str):
            raise InvalidInput(
                f"{path} was exported for sharing and carries no scope key, so its scopes could not be"
                " found again: export with redacted=False (memoryos export --unredacted) to migrate;"
                " nothing was imported"
            )
        tx.set_meta("scope_key", scope_key)
        run_id = uuid7()
        segment_ids: list[str] = []
        for number, record in body:
            kind = record.pop("type", None)
            try:
                if kind == "unit":
                    unit = _unit(record)
                    tx.insert_unit(unit)
                    tx.emit(_receipt(mem, run_id, unit, idle))
                    units += 1
                elif kind == "segment":
                    tx.put_segment(Segment(**record))
                    segment_ids.append(str(record["segment_id"]))
                elif kind == "tombstone":
                    tx.insert_tombstone(record)
                else:
                    raise ValueError(f"unknown record kind {kind!r}")
            except (TypeError, ValueError, KeyError) as exc:
                raise InvalidInput(f"{path}, line {number}: {str(exc)[:200]}; nothing was imported") from None
        for segment_id in segment_ids:  # keywords and summary from the pages as imported (maybe
            rederive_segment(tx, segment_id)  # redacted); the next maintain() writes the notes
    mem.reload_scope_key()
    return units


def _read(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, errors translated
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                raise InvalidInput(f"{path}, line {number}: not JSON; nothing was imported") from None
            if not isinstance(record, dict):
                raise InvalidInput(f"{path}, line {number}: not a JSON object; nothing was imported")
            yield number, record


def _unit(record: dict[str, Any]) -> Unit:
    unknown = set(record) - _UNIT_FIELDS
    if unknown:
        raise ValueError(f"unknown unit fields {sorted(unknown)}")
    for name, value in record.items():
        _check_field(name, _UNIT_TYPES[name], value)
    unit = Unit(**record)
    return replace(unit, source_ids=tuple(unit.source_ids), derived_from=tuple(unit.derived_from))


def _check_field(name: str, annotation: str, value: object) -> None:
    """ValueError unless `value` fits the annotation: text is valid Unicode without NUL, a number
    is not a bool, a tuple field is a list of str."""
    if value is None and annotation.endswith("| None"):
        return
    base = annotation.removesuffix(" | None")
    if base == "str":
        fits = isinstance(value, str) and "\x00" not in value and _encodable(value)
    elif base == "int":
        fits = isinstance(value, int) and not isinstance(value, bool)
    elif base == "float":
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    else:  # tuple[str, ...]
        fits = isinstance(value, list) and all(isinstance(item, str) for item in value)
    if not fits:
        raise ValueError(
            f"unit field {name} must be {annotation.replace('tuple[str, ...]', 'a list of str')}"
        )


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _receipt(mem: Memory, run_id: str, unit: Unit, idle: int) -> dict[str, Any]:
    wait = None
    if unit.tier == "stm":
        wait = format_utc(from_micros(stm_policy.wait_until(unit.created_at, idle)))
    return mem.drafts.about(
        run_id,
        "store",
        unit,
        toTier=unit.tier,
        sourcePresent=True,
        derivedFrom=list(unit.derived_from) or None,
        waitUntilUtc=wait,
    )
