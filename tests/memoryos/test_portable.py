"""Export -> import replays a store with the same ids, versions, validity and lineage, and no erased
or secret content."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.cli import main
from memoryos.testing import FakeClock

SCOPES = [memoryos.Scope(user=u, assistant="coder") for u in ("ann", "ben")]
WORDS = ["rust", "kiwi", "piano", "garden", "deploy"]
Op = tuple[str, int, str]
OPS = st.lists(
    st.tuples(
        st.sampled_from(["remember", "put", "correct", "forget", "maintain"]),
        st.integers(0, 1),
        st.sampled_from(WORDS),
    ),
    max_size=25,
)


def snapshot(mem: memoryos.Memory) -> list[tuple[object, ...]]:
    rows = []
    after = 0
    while True:
        with mem.store.read() as tx:
            page = tx.units_page(after, 500, None, None)
        rows += [
            (
                u.memory_id,
                u.version,
                u.tier,
                u.body,
                u.valid_from,
                u.valid_until,
                u.status,
                u.key,
                u.source_ids,
                u.derived_from,
                u.user_scope,
            )
            for u in page
        ]
        if len(page) < 500:
            return sorted(rows)
        after = page[-1].rowid or after


def apply(mem: memoryos.Memory, clock: FakeClock, ops: list[Op]) -> None:
    for op, scope_index, word in ops:
        scope = SCOPES[scope_index]
        if op == "remember":
            mem.remember(scope, f"I like {word} very much.")
        elif op == "put":
            mem.put(scope, word, f"{word} value", kind="decision")
        elif op == "correct" and mem.get(scope, word) is not None:
            mem.correct(scope, word, f"{word} corrected", reason="fix")
        elif op == "forget" and mem.history(scope, word):
            mem.forget(scope, word)
        elif op == "maintain":
            clock.advance(hours=1)
            mem.maintain()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_export_then_import_replays_the_same_store(ops: list[Op]) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        clock = FakeClock()
        with memoryos.open(folder / "a.db", clock=clock) as source:
            apply(source, clock, ops)
            source.export(folder / "e.jsonl", scope_key=True)  # a redacted migration
            expected = snapshot(source)
            keys = {(i, w): source.get(s, w) for i, s in enumerate(SCOPES) for w in WORDS}
        with memoryos.open(folder / "b.db", clock=clock) as target:
            target.import_jsonl(folder / "e.jsonl")
            assert snapshot(target) == expected
            for (i, word), record in keys.items():
                again = target.get(SCOPES[i], word)
                if record is None:
                    assert again is None
                else:
                    assert again is not None and (again.body, again.version) == (record.body, record.version)
            assert target.check() == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_erased_content_is_not_exported_and_forgetting_again_is_a_no_op(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path, clock: FakeClock
) -> None:
    mem.put(alice, "gone", "zqxgonecanaryjv")
    mem.forget(alice, "gone")
    mem.export(tmp_path / "e.jsonl", scope_key=True)
    assert b"zqxgonecanaryjv" not in (tmp_path / "e.jsonl").read_bytes()
    with memoryos.open(tmp_path / "b.db", clock=clock) as target:
        target.import_jsonl(tmp_path / "e.jsonl")
        assert target.forget(alice, "gone") == 0  # the tombstone came along


def test_exports_are_redacted_unless_asked(tmp_path: Path, alice: memoryos.Scope) -> None:
    with memoryos.open(
        tmp_path / "a.db", no_store_families=frozenset({"aws_access_key"}), stm_capacity=1
    ) as mem:
        mem.remember(alice, "write to alice@mailbox.org")  # stored: email was not an enabled family
        mem.remember(alice, "and then to alice@mailbox.org again")  # the first turn goes to MTM ...
        assert mem.maintain().summarized_segments == 1  # ... and a segment summary quotes it
        assert "alice@mailbox.org" in mem.topics(alice)[0].summary
        mem.export(tmp_path / "red.jsonl", scope_key=True)
        mem.export(tmp_path / "raw.jsonl", redacted=False)
    red = [orjson.loads(line) for line in (tmp_path / "red.jsonl").read_bytes().splitlines()]
    assert b"alice@mailbox.org" not in (tmp_path / "red.jsonl").read_bytes()
    assert b"alice@mailbox.org" in (tmp_path / "raw.jsonl").read_bytes()
    assert red[0]["redacted"] is True
    [segment] = [r for r in red if r.get("type") == "segment"]
    assert (segment["summary"], segment["keywords"]) == ("", {})  # single words escape the rule
    assert "summary_version" not in segment  # derived bookkeeping stays behind
    with memoryos.open(tmp_path / "b.db") as target:
        target.import_jsonl(tmp_path / "red.jsonl")
        [imported] = target.topics(alice)
        assert imported.keywords and imported.stale  # rebuilt from the redacted pages
        assert target.maintain().summarized_segments == 1
        [noted] = target.topics(alice)
        assert noted.summary and "mailbox.org" not in noted.summary


def test_import_refuses_a_non_empty_store_and_bad_files_and_writes_nothing(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    mem.remember(alice, "hello")
    mem.export(tmp_path / "e.jsonl", redacted=False)
    with pytest.raises(memoryos.InvalidInput, match="empty store"):
        mem.import_jsonl(tmp_path / "e.jsonl")
    lines = (tmp_path / "e.jsonl").read_bytes().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(lines[0] + b"\n" + lines[1] + b"\n" + b'{"type": "unit", "memory_id": 3}\n')
    with memoryos.open(tmp_path / "fresh.db") as fresh:
        with pytest.raises(memoryos.InvalidInput, match="line 3"):
            fresh.import_jsonl(bad)
        with pytest.raises(memoryos.InvalidInput, match="not a memoryos export"):
            (tmp_path / "x.jsonl").write_bytes(b'{"format": "other"}\n')
            fresh.import_jsonl(tmp_path / "x.jsonl")
        assert fresh.status()["tiers"]["stm"] == 0


def test_cli_export_import_and_forget_scope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, copy, out = str(tmp_path / "a.db"), str(tmp_path / "b.db"), str(tmp_path / "e.jsonl")
    assert main(["remember", "--db", db, "--user", "u", "--assistant", "a", "kiwi notes"]) == 0
    assert main(["export", "--db", db, "--jsonl", out, "--unredacted"]) == 0  # a migration
    assert main(["import", "--db", copy, "--jsonl", out]) == 0
    capsys.readouterr()
    assert main(["forget-scope", "--db", copy, "--user", "u"]) == 0
    assert orjson.loads(capsys.readouterr().out) == {"erased_versions": 1}


def test_exports_are_owner_only_and_a_shared_one_carries_no_key_material(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    import os

    mem.remember(alice, "kiwi notes")
    old = os.umask(0o000)  # even a permissive umask gives an owner-only file
    try:
        mem.export(tmp_path / "shared.jsonl")
        mem.export(tmp_path / "migration.jsonl", redacted=False)
        mem.export_receipts(tmp_path / "receipts.jsonl")
    finally:
        os.umask(old)
    for name in ("shared.jsonl", "migration.jsonl", "receipts.jsonl"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o600, name
    scope_key = mem.store.meta("scope_key") or ""
    shared = (tmp_path / "shared.jsonl").read_bytes()
    assert scope_key.encode() not in shared
    header = orjson.loads(shared.splitlines()[0])
    assert header["carriesScopeKey"] is False and "scopeKey" not in header
    migration = orjson.loads((tmp_path / "migration.jsonl").read_bytes().splitlines()[0])
    assert migration["carriesScopeKey"] is True and migration["scopeKey"] == scope_key


def test_a_shared_export_cannot_be_imported_as_a_migration(
    mem: memoryos.Memory, alice: memoryos.Scope, tmp_path: Path
) -> None:
    mem.remember(alice, "kiwi notes")
    mem.export(tmp_path / "shared.jsonl")
    with memoryos.open(tmp_path / "b.db") as target:
        with pytest.raises(memoryos.InvalidInput, match="carries no scope key"):
            target.import_jsonl(tmp_path / "shared.jsonl")
        assert target.status()["tiers"]["stm"] == 0
