"""The CLI is a thin layer: JSON by default, --table for people, errors as exit codes."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from memoryos.cli import build_parser, main

SCOPE = ["--user", "alice", "--assistant", "coder"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((name, sub))
                found.extend((f"{name} {n}", s) for n, s in subcommands(sub))
    return found


@pytest.mark.parametrize(("name", "parser"), subcommands(build_parser()))
def test_every_command_has_help(name: str, parser: argparse.ArgumentParser) -> None:
    assert parser.description, f"{name} has no description"
    for action in parser._actions:
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            assert action.help, f"{name} {action.dest} has no help"


def test_remember_recall_get_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    code, out, _ = run(capsys, "remember", "--db", db, *SCOPE, "the cat is called Miso")
    assert code == 0 and orjson.loads(out)["version"] == 1
    code, out, _ = run(capsys, "recall", "--db", db, *SCOPE, "cat")
    assert code == 0 and orjson.loads(out)["hits"][0]["text"] == "the cat is called Miso"
    assert run(capsys, "put", "--db", db, *SCOPE, "pet", "Miso", "--kind", "fact")[0] == 0
    code, out, _ = run(capsys, "get", "--db", db, *SCOPE, "pet")
    assert code == 0 and orjson.loads(out)["body"] == "Miso"
    code, out, _ = run(capsys, "status", "--db", db, "--table")
    assert code == 0 and "tiers.stm" in out


def test_errors_become_exit_codes_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    code, _, err = run(capsys, "get", "--db", db, *SCOPE, "missing")
    assert code == 4 and err.startswith("memoryos: ")
    code, _, err = run(capsys, "remember", "--db", db, *SCOPE, "   ")
    assert code == 2 and "empty" in err
    code, _, err = run(capsys, "remember", "--db", db, *SCOPE, "my password is hunter2-Secret!")
    assert code == 3 and "no-store rule" in err


def test_check_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    run(capsys, "remember", "--db", db, *SCOPE, "hello there")
    code, out, _ = run(capsys, "check", "--db", db)
    assert code == 0 and orjson.loads(out) == {"ok": True, "findings": []}
    out_file = tmp_path / "r.jsonl"
    code, out, _ = run(capsys, "receipts", "export", "--db", db, "--jsonl", str(out_file))
    assert code == 0 and orjson.loads(out)["exported"] == 1 and out_file.exists()


def test_db_defaults_to_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMORYOS_DB", str(tmp_path / "env.db"))
    assert run(capsys, "init")[0] == 0
    assert (tmp_path / "env.db").exists()


def test_python_dash_m_works_like_the_console_script(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memoryos", "demo", "--dir", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "receipts exported" in result.stdout and "0 hits (scopes never mix)" in result.stdout
    assert (tmp_path / "demo" / "receipts.jsonl").stat().st_size > 0


def test_canary_command_passes_on_a_fresh_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = tmp_path / "canary.json"
    assert main(["canary", "--json", str(verdict)]) == 0
    assert "canary: healthy" in capsys.readouterr().out
    assert orjson.loads(verdict.read_bytes())["passed"] is True


def test_topics_shows_segments_with_the_summaries_maintain_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "m.db")
    for text in ("We deploy blyck with make ship.", "Deploy blyck from the repo root with make ship."):
        run(capsys, "remember", "--db", db, *SCOPE, text, "--config", str(_small_stm(tmp_path)))
    code, out, _ = run(capsys, "topics", "--db", db, *SCOPE)
    [fresh] = orjson.loads(out)
    assert code == 0 and fresh["stale"] and fresh["summary"] == "" and fresh["pages"] == 2
    assert run(capsys, "maintain", "--db", db)[0] == 0
    code, out, _ = run(capsys, "topics", "--db", db, *SCOPE, "--limit", "1")
    [topic] = orjson.loads(out)
    assert not topic["stale"] and "make ship" in topic["summary"] and not topic["degraded"]


def _small_stm(folder: Path) -> Path:
    config = folder / "config.json"
    config.write_text('{"stm_capacity": 2}')
    return config
