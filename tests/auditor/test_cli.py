"""The command line: thin over audit(), exit codes, formats, explain, and help for every command."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from auditor.cli import build_parser, exit_code, main
from receipts import OUTBOX_TABLE, format_utc
from tests.auditor.streams import BOB, Stream, later


def write_store(path: Path, stream: Stream) -> Path:
    """A minimal store file: just the outbox table, as DESIGN §3 lays it out."""
    conn = sqlite3.connect(path)
    conn.execute(
        f"CREATE TABLE {OUTBOX_TABLE} "
        "(seq INTEGER PRIMARY KEY, chain_id TEXT, receipt_id TEXT, run_id TEXT, body BLOB)"
    )
    conn.executemany(
        f"INSERT INTO {OUTBOX_TABLE} VALUES (?, ?, ?, ?, ?)",
        [
            (r["seq"], r["chainId"], r["receiptId"], r["runId"], line)
            for r, line in zip(stream.receipts, stream.lines, strict=True)
        ],
    )
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def healthy(tmp_path: Path) -> tuple[Path, Stream]:
    s = Stream()
    s.healthy_cycle()
    return s.write(tmp_path / "r.jsonl"), s


def now_arg(stream: Stream, hours: float = 2) -> list[str]:
    return ["--now", format_utc(later(stream, hours))]


class TestHelp:
    def test_every_command_has_help(self) -> None:
        parser = build_parser()
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        assert actions
        for action in actions:
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            assert set(helps) == set(action.choices)
            for name, sub in action.choices.items():
                assert helps[name], f"{name} has no help"
                assert sub.description, f"{name} has no description"
                for option in sub._actions:
                    assert option.help, f"{name} {option.dest} has no help"

    @pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["explain", "--help"]])
    def test_help_exits_zero(self, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
        assert "usage" in capsys.readouterr().out


class TestExitCodes:
    def test_healthy_exits_0(self, healthy: tuple[Path, Stream], capsys: pytest.CaptureFixture[str]) -> None:
        path, s = healthy
        assert main(["check", str(path), *now_arg(s), "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["schema"] == "memoryos.audit/1"
        assert report["verdict"] == "healthy"
        assert report["counts"]["healthy"] == 4

    def test_waiting_only_exits_1(self, tmp_path: Path) -> None:
        s = Stream()
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        assert main(["check", str(path), "--now", format_utc(s.clock + timedelta(minutes=1))]) == 1

    def test_any_other_state_exits_3(self, tmp_path: Path) -> None:
        s = Stream()
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        assert main(["check", str(path), *now_arg(s)]) == 3

    def test_fail_on_moves_the_threshold(self, tmp_path: Path) -> None:
        s = Stream()
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        assert main(["check", str(path), *now_arg(s), "--fail-on", "scope_conflict"]) == 0
        assert main(["check", str(path), *now_arg(s), "--fail-on", "promotion_missing"]) == 3
        assert exit_code("waiting", "uncertain") == 0
        assert exit_code("uncertain", "uncertain") == 3

    def test_a_missing_file_exits_2(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["check", str(tmp_path / "nope.jsonl")]) == 2
        assert "no such file" in capsys.readouterr().err

    def test_usage_errors_exit_2(self, healthy: tuple[Path, Stream]) -> None:
        path, _ = healthy
        for argv in (
            ["check"],
            ["check", str(path), "--max-age", "soon"],
            ["check", str(path), "--now", "x"],
            [],
        ):
            with pytest.raises(SystemExit) as exc:
                code = main(argv)
                raise SystemExit(code)
            assert exc.value.code == 2, argv

    def test_a_receipt_file_given_as_db_exits_2(self, healthy: tuple[Path, Stream]) -> None:
        path, _ = healthy
        assert main(["check", "--db", str(path)]) == 2

    def test_junk_is_a_finding_not_a_crash(self, tmp_path: Path) -> None:
        path = tmp_path / "junk.jsonl"
        path.write_bytes(b'\x00\xff{"seq": 1e999}\n{"runId": [1, 2]}\n' + b"[" * 10_000 + b"\n")
        assert main(["check", str(path), "--format", "json"]) == 3


class TestSources:
    def test_gzip_and_plain_files_audit_alike(self, healthy: tuple[Path, Stream], tmp_path: Path) -> None:
        path, s = healthy
        packed = tmp_path / "r.jsonl.gz"
        packed.write_bytes(gzip.compress(path.read_bytes()))
        assert main(["check", str(packed), *now_arg(s)]) == 0

    def test_a_truncated_gzip_is_uncertain(self, healthy: tuple[Path, Stream], tmp_path: Path) -> None:
        path, s = healthy
        packed = tmp_path / "r.jsonl.gz"
        packed.write_bytes(gzip.compress(path.read_bytes())[:-30])
        assert main(["check", str(packed), *now_arg(s)]) == 3

    def test_a_store_outbox_is_read_without_changing_the_store(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        store = write_store(tmp_path / "agent.db", s)
        before = hashlib.sha256(store.read_bytes()).hexdigest()
        assert main(["check", "--db", str(store), *now_arg(s)]) == 0
        assert hashlib.sha256(store.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.db"]

    def test_a_file_and_its_store_overlap_without_double_counting(
        self, healthy: tuple[Path, Stream], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path, s = healthy
        store = write_store(tmp_path / "agent.db", s)
        assert main(["check", str(path), "--db", str(store), *now_arg(s), "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["duplicates"] == len(s.lines)

    def test_the_key_file_checks_macs(self, tmp_path: Path) -> None:
        key = b"k" * 32
        s = Stream(key=key)
        s.healthy_cycle()
        path = s.write(tmp_path / "r.jsonl")
        (tmp_path / "good.key").write_text(key.hex() + "\n")
        (tmp_path / "bad.key").write_text((b"x" * 32).hex() + "\n")
        for name in ("good.key", "bad.key"):
            (tmp_path / name).chmod(0o600)  # a key others can read is refused
        assert main(["check", str(path), *now_arg(s), "--key-file", str(tmp_path / "good.key")]) == 0
        assert main(["check", str(path), *now_arg(s), "--key-file", str(tmp_path / "bad.key")]) == 3


class TestExplain:
    def test_explain_prints_the_lineage_tree_across_runs(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        recall = s.recall([(page, 1)], BOB)
        s.generate(recall, [f"{page}@1"], BOB)
        path = s.write(tmp_path / "r.jsonl")
        assert main(["explain", recall, str(path)]) == 0
        tree = capsys.readouterr().out
        assert tree.startswith(f"run {recall}")
        assert f"unit {page}@1" in tree
        assert f"unit {turn}@1" in tree  # followed back through the promotion run to the stored turn
        assert "stm_to_mtm committed" in tree

    def test_explain_dot_is_graphviz(
        self, healthy: tuple[Path, Stream], capsys: pytest.CaptureFixture[str]
    ) -> None:
        path, s = healthy
        run = s.receipts[-1]["runId"]
        assert main(["explain", run, str(path), "--dot"]) == 0
        dot = capsys.readouterr().out
        assert dot.startswith("digraph lineage {")
        assert dot.rstrip().endswith("}")
        assert "->" in dot

    def test_explain_an_unknown_run_exits_2(self, healthy: tuple[Path, Stream]) -> None:
        path, _ = healthy
        assert main(["explain", "0190aaaa-0000-7000-8000-000000000000", str(path)]) == 2


def test_python_dash_m_auditor_runs(healthy: tuple[Path, Stream]) -> None:
    path, s = healthy
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "check", str(path), *now_arg(s), "--format", "text"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("verdict: healthy")
