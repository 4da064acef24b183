"""Bad input gets a MemoryOSError that says what to do, and writes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import memoryos
import receipts

Call = Callable[[memoryos.Memory, memoryos.Scope], Any]
BAD_CALLS: dict[str, Call] = {
    "empty text": lambda m, s: m.remember(s, ""),
    "whitespace text": lambda m, s: m.remember(s, " \n\t "),
    "oversize text": lambda m, s: m.remember(s, "x" * (64 * 1024 + 1)),
    "lone surrogate": lambda m, s: m.remember(s, "half \ud800 a pair"),
    "NUL byte": lambda m, s: m.remember(s, "a\x00b"),
    "bytes instead of str": lambda m, s: m.remember(s, b"bytes"),  # type: ignore[arg-type]
    "int instead of str": lambda m, s: m.remember(s, 42),  # type: ignore[arg-type]
    "unknown role": lambda m, s: m.remember(s, "hi", role="wizard"),
    "naive datetime": lambda m, s: m.remember(s, "hi", at=datetime(2026, 1, 1)),
    "negative ttl": lambda m, s: m.remember(s, "hi", ttl=-5),
    "NaN ttl": lambda m, s: m.remember(s, "hi", ttl=math.nan),
    "huge ttl": lambda m, s: m.remember(s, "hi", ttl=1e300),
    "ttl and valid_until": lambda m, s: m.put(s, "k", "v", ttl=5, valid_until=datetime.now().astimezone()),
    "contradictory window": lambda m, s: m.put(
        s,
        "k",
        "v",
        valid_from=datetime.now().astimezone(),
        valid_until=datetime.now().astimezone() - timedelta(1),
    ),
    "NaN confidence": lambda m, s: m.put(s, "k", "v", confidence=math.nan),
    "confidence above 1": lambda m, s: m.put(s, "k", "v", confidence=1.5),
    "bool confidence": lambda m, s: m.put(s, "k", "v", confidence=True),
    "unknown kind": lambda m, s: m.put(s, "k", "v", kind="gossip"),
    "empty key": lambda m, s: m.put(s, "", "v"),
    "control character key": lambda m, s: m.put(s, "a\x1bkey", "v"),
    "k of zero": lambda m, s: m.recall(s, "q", k=0),
    "huge k": lambda m, s: m.recall(s, "q", k=10**9),
    "float k": lambda m, s: m.recall(s, "q", k=2.5),  # type: ignore[arg-type]
    "empty query": lambda m, s: m.recall(s, "   "),
    "free-text forget reason": lambda m, s: m.forget(s, "k", reason="because alice@example.com asked!"),
    "bad run id": lambda m, s: m.generated(s, "not-a-run", depends_on=[]),
    "bad refs": lambda m, s: m.generated(s, receipts.uuid7(), depends_on=["free text"]),
    "refs as a string": lambda m, s: m.generated(s, receipts.uuid7(), depends_on="abc@1"),
    "content as outcome": lambda m, s: m.generated(s, receipts.uuid7(), depends_on=[], outcome="it worked!"),
    "topics limit of zero": lambda m, s: m.topics(s, limit=0),
    "topics limit as text": lambda m, s: m.topics(s, limit="10"),  # type: ignore[arg-type]
    "context budget of zero": lambda m, s: m.context(s, "q", budget_tokens=0),
    "ttl of 3,000,000 days": lambda m, s: m.put(s, "k", "v", ttl=timedelta(days=3_000_000)),
    "ttl of timedelta.max": lambda m, s: m.remember(s, "hi", ttl=timedelta.max),
    "at of datetime.max": lambda m, s: m.remember(s, "hi", at=datetime.max.replace(tzinfo=UTC)),
    "at beyond datetime.max once in UTC": lambda m, s: m.remember(
        s, "hi", at=datetime.max.replace(tzinfo=timezone(timedelta(hours=-5)))
    ),
    "valid_until of datetime.max": lambda m, s: m.put(
        s, "k", "v", valid_until=datetime.max.replace(tzinfo=UTC)
    ),
    "as_of of datetime.max": lambda m, s: m.get(s, "k", as_of=datetime.max.replace(tzinfo=UTC)),
    "export into a directory": lambda m, s: m.export(Path(m.path).parent),
    "export into a missing folder": lambda m, s: m.export(Path(m.path).parent / "missing" / "e.jsonl"),
    "export path with a NUL": lambda m, s: m.export("e\x00.jsonl"),
    "receipts export into a directory": lambda m, s: m.export_receipts(Path(m.path).parent),
    "receipts export into a missing folder": lambda m, s: m.export_receipts(
        Path(m.path).parent / "no" / "r.jsonl"
    ),
}
BAD_SCOPES: dict[str, Any] = {
    "empty user": memoryos.Scope(user="", assistant="a"),
    "oversize user": memoryos.Scope(user="u" * 257, assistant="a"),
    "control characters": memoryos.Scope(user="al\nice", assistant="a"),
    "non-str assistant": memoryos.Scope(user="alice", assistant=7),  # type: ignore[arg-type]
    "not a Scope": ("alice", "coder"),
}


def snapshot(db: Path) -> tuple[int, int]:
    rows = list(receipts.read_outbox(db))
    return len(rows), db.stat().st_size


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments_raise_invalid_input_and_write_nothing(
    call: Call, mem: memoryos.Memory, alice: memoryos.Scope, db: Path
) -> None:
    before = snapshot(db)
    with pytest.raises(memoryos.InvalidInput) as caught:
        call(mem, alice)
    assert str(caught.value)
    assert snapshot(db)[0] == before[0]


@pytest.mark.parametrize("scope", BAD_SCOPES.values(), ids=BAD_SCOPES.keys())
def test_bad_scopes_are_refused(scope: Any, mem: memoryos.Memory, db: Path) -> None:
    with pytest.raises(memoryos.InvalidInput):
        mem.remember(scope, "hello")
    assert list(receipts.read_outbox(db)) == []


def test_use_after_close_is_a_clear_error(db: Path, alice: memoryos.Scope) -> None:
    mem = memoryos.open(db)
    mem.close()
    with pytest.raises(memoryos.StoreClosed, match="open it again"):
        mem.remember(alice, "hello")
    with pytest.raises(memoryos.StoreClosed):
        mem.recall(alice, "hello")


def test_unknown_config_is_refused() -> None:
    with pytest.raises(memoryos.ConfigError):
        memoryos.Config(stm_capacity=0)
    with pytest.raises(memoryos.ConfigError):
        memoryos.Config().with_overrides(stm_size=3)


BAD_CONFIG: dict[str, dict[str, Any]] = {
    "an integer over 64 bits": {"stm_capacity": 2**70},
    "an integer too large for a float": {"mtm_capacity": 10**400},
    "seconds beyond any date": {"stm_idle_seconds": 1e300},
    "a busy timeout over SQLite's int": {"busy_timeout_ms": 2**40},
    "days beyond any date": {"stale_after_days": 1e9, "retired_after_days": 2e9},
}


@pytest.mark.parametrize("fields", BAD_CONFIG.values(), ids=BAD_CONFIG.keys())
def test_out_of_range_config_is_refused_in_code_and_in_a_file(fields: dict[str, Any], tmp_path: Path) -> None:
    from memoryos.settings import config_from_file

    with pytest.raises(memoryos.ConfigError, match="must be"):
        memoryos.Config(**fields)
    path = tmp_path / "config.json"
    path.write_text("{" + ", ".join(f'"{k}": {v!r}' for k, v in fields.items()) + "}")
    with pytest.raises(memoryos.ConfigError, match=r"must be|cannot read the config file"):
        config_from_file(str(path))


BAD_PATHS: dict[str, Callable[[Path], Any]] = {
    "a directory": lambda folder: folder,
    "a missing folder": lambda folder: folder / "missing" / "m.db",
    "a NUL in the name": lambda folder: str(folder / "m\x00.db"),
}


@pytest.mark.parametrize("path", BAD_PATHS.values(), ids=BAD_PATHS.keys())
def test_a_path_that_cannot_hold_a_store_is_refused_clearly(
    path: Callable[[Path], Any], tmp_path: Path
) -> None:
    with pytest.raises(memoryos.InvalidInput) as caught:
        memoryos.open(path(tmp_path))
    assert "NUL" in str(caught.value) or "director" in str(caught.value) or "folder" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing was created


def test_a_failed_migration_names_itself_and_its_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memoryos.store.sqlite as backend
    from memoryos.store.schema import MIGRATIONS

    memoryos.open(tmp_path / "m.db").close()
    broken = (*MIGRATIONS, ("0099_broken", "ALTER TABLE nowhere ADD COLUMN x INTEGER;"))
    monkeypatch.setattr(backend, "MIGRATIONS", broken)
    with pytest.raises(memoryos.MigrationError, match=r"migration 0099_broken .* rolled back.*no such table"):
        memoryos.open(tmp_path / "m.db")


def test_driver_errors_never_escape(mem: memoryos.Memory, alice: memoryos.Scope, db: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE segments")
    conn.commit()
    conn.close()
    for i in range(6):
        mem.remember(alice, f"turn {i}")
    # The seventh turn commits; the promotion it makes due fails, is deferred, and is not raised.
    mem.remember(alice, "the seventh turn triggers a promotion that needs the dropped table")
    assert mem.lifecycle.followups.deferred == {"promotion": 1}
    with pytest.raises(memoryos.StoreError, match="nothing was written"):
        mem.maintain()  # which retries it, and reports the driver error as a StoreError


def test_errors_form_one_tree() -> None:
    for name in memoryos.__all__:
        value = getattr(memoryos, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, memoryos.MemoryOSError)
