"""Where every turn of a store is, read through the public API (an unredacted export), so that the
same check holds for either backend."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

import memoryos


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Inventory:
    """How many copies of each turn the store holds (in STM, or as the source of an MTM page)."""

    copies: Counter[str] = field(default_factory=Counter)
    texts: dict[str, str] = field(default_factory=dict)  # STM turn id -> sha of its body
    records: list[dict[str, Any]] = field(default_factory=list)


def export_lines(mem: memoryos.Memory, path: Path) -> list[dict[str, Any]]:
    mem.export(path, redacted=False)
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def inventory(mem: memoryos.Memory, path: Path) -> Inventory:
    found = Inventory()
    for record in export_lines(mem, path):
        if record.get("type") != "unit":
            continue
        found.records.append(record)
        if record["tier"] == "stm":
            found.copies[record["memory_id"]] += 1
            found.texts[record["memory_id"]] = sha(record["body"])
        elif record["tier"] == "mtm":
            found.copies.update(record["source_ids"])
    return found


def problems(found: Inventory, acks: list[dict[str, Any]]) -> list[str]:
    """Every acknowledged turn exactly once, with its text when it is still a turn."""
    wrong = []
    for ack in acks:
        turn = ack["id"]
        if found.copies[turn] != 1:
            wrong.append(f"turn {turn}: {found.copies[turn]} copies")
        elif turn in found.texts and found.texts[turn] != ack["sha"]:
            wrong.append(f"turn {turn}: different text")
    return wrong
