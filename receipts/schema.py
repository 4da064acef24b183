"""The JSON Schema (draft 2020-12) of `memoryos.receipt/1`, built from the field table.

`receipts/schemas/receipt-1.schema.json` ships inside the package for other producers' tests; a
test holds that file equal to `json_schema()`, so the schema and `receipts.model.FIELDS` cannot
drift apart. The schema describes a *valid* receipt (what the writer accepts). Two checks of the
field table are beyond JSON Schema and are stated in its descriptions: a time must be a real
calendar day, and an integer must be written without a fraction (`1.0` is not a seq).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import orjson

from receipts.model import FIELDS, SCHEMA

__all__ = ["SCHEMA_FILE", "json_schema", "load_schema", "render_schema"]

SCHEMA_FILE = "schemas/receipt-1.schema.json"
_ID = "https://memoryos.invalid/schemas/memoryos.receipt/1"  # a name, not a place to fetch


def _field_schema(name: str) -> dict[str, Any]:
    spec = FIELDS[name]
    return {"description": spec.expects, **spec.json}


def _boundary_rules() -> list[dict[str, Any]]:
    """Fields that only some boundaries carry, and the one cross-field rule (waitUntilUtc)."""
    rules: list[dict[str, Any]] = []
    for name, spec in FIELDS.items():
        if spec.only_for is not None:
            rules.append(
                {
                    "if": {"required": [name]},
                    "then": {"properties": {"boundary": {"enum": sorted(spec.only_for)}}},
                }
            )
    rules.append(
        {
            "if": {"required": ["waitUntilUtc"]},
            "then": {
                "anyOf": [
                    {"properties": {"boundary": {"const": "store"}}},
                    {"properties": {"status": {"const": "waiting"}}},
                ]
            },
        }
    )
    return rules


def json_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": _ID,
        "title": SCHEMA,
        "description": "One memoryos lineage receipt (docs/receipt-format.md). Times must also be real "
        "calendar days; integers are written without a fraction.",
        "type": "object",
        "properties": {name: _field_schema(name) for name in FIELDS},
        "required": sorted(name for name, spec in FIELDS.items() if spec.required),
        "additionalProperties": False,
        "allOf": _boundary_rules(),
    }


def render_schema() -> bytes:
    """The bytes of the shipped file: indented, keys in table order, one trailing newline."""
    return orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def load_schema() -> dict[str, Any]:
    """The shipped schema, read from the installed package."""
    schema: dict[str, Any] = orjson.loads(resources.files("receipts").joinpath(SCHEMA_FILE).read_bytes())
    return schema
