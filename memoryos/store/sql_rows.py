"""How a Unit becomes a row of the `units` table and back, and the statement pieces both backends
share (kept apart so that each backend module holds its transaction and its store)."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields
from typing import Any

import orjson

from memoryos.store import sql_search as search_sql
from memoryos.store.rows import Unit
from memoryos.store.sql_types import Connection

UNIT_COLUMNS = tuple(f.name for f in fields(Unit) if f.name != "rowid")
JSON_COLUMNS = frozenset({"source_ids", "derived_from"})
SELECT_UNIT = "SELECT rowid, " + ", ".join(UNIT_COLUMNS) + " FROM units"


def unit_of_row(row: Sequence[Any]) -> Unit:
    values = dict(zip(UNIT_COLUMNS, row[1:], strict=True))
    for name in JSON_COLUMNS:
        values[name] = tuple(orjson.loads(values[name]))
    return Unit(**values, rowid=row[0])


INSERTED_COLUMNS = (*UNIT_COLUMNS, *search_sql.INDEX_COLUMNS)
INSERT_UNIT = (
    f"INSERT INTO units ({', '.join(INSERTED_COLUMNS)}) VALUES ({', '.join('?' * len(INSERTED_COLUMNS))})"
)
INSERT_SOURCE = "INSERT INTO unit_sources (source_id, memory_id) VALUES (?, ?) ON CONFLICT DO NOTHING"


_unit_values = operator.attrgetter(*UNIT_COLUMNS)
_JSON_AT = [i for i, name in enumerate(UNIT_COLUMNS) if name in JSON_COLUMNS]


def row_of(unit: Unit) -> list[Any]:
    values = list(_unit_values(unit))
    for i in _JSON_AT:
        values[i] = orjson.dumps(values[i]).decode()  # tuples of ids, as JSON arrays
    values.extend(search_sql.unit_index_values(unit))  # the triggers file its postings
    return values


PAGE_COLUMNS = (
    "memory_id",
    "version",
    "tier",
    "segment_id",
    "source_ids",
    "derived_from",
    "run_id",
    "last_seen",
)
TURN_INTO_PAGE = (
    f"UPDATE units SET {', '.join(f'{c} = ?' for c in PAGE_COLUMNS)} WHERE rowid = ? AND tier = 'stm'"
)


def page_update(rowid: int, page: Unit) -> list[Any]:
    values: list[Any] = [getattr(page, c) for c in PAGE_COLUMNS]
    for i, name in enumerate(PAGE_COLUMNS):
        if name in JSON_COLUMNS:
            values[i] = orjson.dumps(values[i]).decode()
    return [*values, rowid]


def sources_of(unit: Unit) -> list[tuple[str, str]]:
    return [(s, unit.memory_id) for s in lineage_of(unit) if s != unit.memory_id]


def lineage_of(unit: Unit) -> set[str]:
    """Everything this unit was built from, by memory id: forgetting any of them reaches it."""
    return set(unit.source_ids) | {ref.split("@", 1)[0] for ref in unit.derived_from}


def in_chunks(ids: Sequence[str], size: int = 500) -> Iterator[tuple[Sequence[str], str]]:
    """Ids in chunks well under the bound-parameter limits, each with its "?, ?, ..." list."""
    for start in range(0, len(ids), size):
        chunk = ids[start : start + size]
        yield chunk, ", ".join("?" * len(chunk))


def next_turn_units(
    conn: Connection, user: str, assistant: str, after: Sequence[int], known: Mapping[int, Unit]
) -> dict[int, Unit]:
    """For each rowid in `after`, the turn this scope stored next (`SearchIndex.next_turns`); only the
    turns `known` does not already hold are read (building a unit costs more than the seek)."""
    following = search_sql.next_turns(conn, user, assistant, after)
    unknown = [n for n in following.values() if n not in known]
    columns = ("rowid", *UNIT_COLUMNS)
    rows = search_sql.scope_rows(conn, user, assistant, unknown, columns) if unknown else []
    units = dict(known)
    units.update((int(r[0]), unit_of_row(r)) for r in rows)
    return {asked: units[n] for asked, n in following.items() if n in units}
