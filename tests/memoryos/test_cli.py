"""The CLI is a thin layer: JSON by default, --table for people, errors as exit codes."""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

import memoryos
from memoryos import validation
from memoryos.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]

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


# ---- as people use it (issue 11: 14, 16, 23, 24) --------------------------------------------------


def memoryos_cli(*argv: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """The console script as a user runs it: a real process, its stderr as they would read it."""
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} | options
    return subprocess.run(
        [sys.executable, "-m", "memoryos", *argv], text=True, timeout=120, check=False, **streams
    )


def store_with_a_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / "m.db")
    assert run(capsys, "remember", "--db", db, *SCOPE, "the cat is called Miso")[0] == 0
    return db


class TestAMistypedStore:
    READ_ONLY: ClassVar[list[list[str]]] = [
        ["status"],
        ["check"],
        ["recall", *SCOPE, "cat"],
        ["get", *SCOPE, "pet"],
        ["history", *SCOPE, "pet"],
        ["topics", *SCOPE],
        ["export", "--jsonl", "out.jsonl"],
        ["receipts", "export", "--jsonl", "out.jsonl"],
        ["candidates", "list", *SCOPE],
        ["end-session", *SCOPE, "--session", "s1"],
        ["forget", *SCOPE, "pet"],
        ["forget-scope", "--user", "alice"],
        ["maintain"],
        ["worker", "--once"],
    ]

    @pytest.mark.parametrize("argv", READ_ONLY, ids=lambda argv: " ".join(argv[:2]))
    def test_a_command_that_only_reads_refuses_a_missing_store_and_creates_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
    ) -> None:
        typo = tmp_path / "typo.db"
        head = argv[:2] if argv[0] == "receipts" else argv[:1]
        rest = [str(tmp_path / "out.jsonl") if arg == "out.jsonl" else arg for arg in argv[len(head) :]]
        code, out, err = run(capsys, *head, "--db", str(typo), *rest)
        assert code == 4 and out == ""
        assert f"no memoryos store at {typo}" in err and f"memoryos init --db {typo}" in err
        assert list(tmp_path.iterdir()) == []  # no store, no key file, no export

    def test_a_command_that_writes_creates_the_store(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        code, out, _ = run(capsys, "status", "--db", db)
        assert code == 0 and orjson.loads(out)["tiers"]["stm"] == 1


class TestEndSession:
    def test_it_moves_the_sessions_turns_to_mtm_and_prints_the_pending_candidates(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = str(tmp_path / "m.db")
        said = "Never deploy on Fridays. My favourite editor is Helix."
        assert run(capsys, "remember", "--db", db, *SCOPE, "--session", "s1", said)[0] == 0
        assert run(capsys, "remember", "--db", db, *SCOPE, "--session", "s2", "unrelated turn")[0] == 0
        code, out, err = run(capsys, "end-session", "--db", db, *SCOPE, "--session", "s1")
        assert code == 0 and err == ""
        ended = orjson.loads(out)
        assert ended["turns"] == 1 and ended["degraded"] is True  # no model: the extractive rules
        keys = {(c["kind"], c["key"], c["status"]) for c in ended["candidates"]}
        assert keys == {
            ("rule", "rule:never-deploy-on-fridays", "pending"),
            ("fact", "fact:favorite-editor", "pending"),
        }
        listed = orjson.loads(run(capsys, "candidates", "list", "--db", db, *SCOPE)[1])
        assert {c["candidate_id"] for c in listed} == {c["candidate_id"] for c in ended["candidates"]}
        tiers = orjson.loads(run(capsys, "status", "--db", db)[1])["tiers"]
        assert tiers["stm"] == 1 and tiers["mtm_pages"] == 1  # s1's turn moved; s2's stays in STM

    def test_a_table_lists_the_candidates(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        db = str(tmp_path / "m.db")
        assert (
            run(capsys, "remember", "--db", db, *SCOPE, "--session", "s1", "Always squash before merging.")[0]
            == 0
        )
        code, out, _ = run(capsys, "end-session", "--db", db, "--table", *SCOPE, "--session", "s1")
        header, row = out.splitlines()[:2]
        assert code == 0 and header.split()[:3] == ["candidate_id", "kind", "key"]
        assert "rule:always-squash-before-merging" in row

    def test_as_a_process_it_prints_the_candidates_and_ending_twice_is_harmless(self, tmp_path: Path) -> None:
        db = str(tmp_path / "m.db")
        said = "Never push to main directly. My favourite editor is Helix."
        assert memoryos_cli("remember", "--db", db, *SCOPE, "--session", "s1", said).returncode == 0
        done = memoryos_cli("end-session", "--db", db, *SCOPE, "--session", "s1")
        assert done.returncode == 0 and done.stderr == ""
        bodies = [c["body"] for c in orjson.loads(done.stdout)["candidates"]]
        assert bodies == ["Never push to main directly.", "My favourite editor is Helix."]
        again = memoryos_cli("end-session", "--db", db, *SCOPE, "--session", "s1")
        assert again.returncode == 0 and orjson.loads(again.stdout)["turns"] == 1  # ending twice is harmless

    def test_it_needs_the_scope(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        with pytest.raises(SystemExit) as exc:
            main(["end-session", "--db", db, "--user", "alice"])
        assert exc.value.code == 2 and "--assistant" in capsys.readouterr().err


class TestGlobalOptions:
    def test_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exc:
            main(["--version"])
        assert exc.value.code == 0 and capsys.readouterr().out == f"memoryos {memoryos.__version__}\n"

    def test_db_table_and_config_may_come_before_the_command(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = str(tmp_path / "m.db")
        config = str(_small_stm(tmp_path))
        for n in range(3):
            argv = ("--db", db, "--config", config, "remember", *SCOPE, f"turn {n} about kiwis")
            assert run(capsys, *argv)[0] == 0
        code, out, _ = run(capsys, "--db", db, "--table", "status")
        assert code == 0 and out.startswith("metric") and "tiers.stm" in out
        code, out, _ = run(capsys, "--db", db, "status")
        assert orjson.loads(out)["tiers"]["stm"] == 1  # capacity 2 from --config: two promoted, one left

    def test_an_option_after_the_command_wins(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        code, out, _ = run(capsys, "--db", str(tmp_path / "other.db"), "status", "--db", db)
        assert code == 0 and orjson.loads(out)["tiers"]["stm"] == 1


class TestMessagesInTheCommandsWords:
    def test_forget_scope_without_a_scope_names_the_options(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        code, _, err = run(capsys, "forget-scope", "--db", db)
        assert code == 2 and "forget-scope needs --user, --assistant or both" in err and "=" not in err

    @pytest.mark.parametrize("ttl", ["-5", "0", "nan", "inf", "1e300"])
    def test_a_ttl_that_is_not_a_positive_number_is_a_usage_error(self, tmp_path: Path, ttl: str) -> None:
        done = memoryos_cli("remember", "--db", str(tmp_path / "m.db"), *SCOPE, "kiwi", f"--ttl={ttl}")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "--ttl" in done.stderr and "memoryos forget" in done.stderr and "forget()" not in done.stderr

    def test_put_help_lists_every_kind(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            main(["put", "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert all(kind in help_text for kind in validation.DRAWER_KINDS), help_text
        assert len(validation.DRAWER_KINDS) == 9

    def test_an_unknown_kind_is_refused_before_the_store_is_opened(self, tmp_path: Path) -> None:
        done = memoryos_cli("put", "--db", str(tmp_path / "m.db"), *SCOPE, "k", "body", "--kind", "recipe")
        assert done.returncode == 2 and "invalid choice: 'recipe'" in done.stderr
        assert not (tmp_path / "m.db").exists()

    def test_an_empty_query_says_to_give_words_to_look_for(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        code, _, err = run(capsys, "recall", "--db", db, *SCOPE, "   ")
        assert code == 2 and "the query is empty" in err and "remember" not in err


class TestWorker:
    @pytest.mark.parametrize("interval", ["-1", "nan", "inf", "0", "1e308", "soon"])
    def test_an_interval_that_is_not_a_positive_number_is_a_usage_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], interval: str
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        done = memoryos_cli("worker", "--db", db, f"--interval={interval}", "--passes", "2")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "--interval" in done.stderr and "positive number of seconds" in done.stderr

    def test_a_negative_pass_count_is_a_usage_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        done = memoryos_cli("worker", "--db", db, "--passes", "-1")
        assert done.returncode == 2 and "--passes" in done.stderr and "Traceback" not in done.stderr

    @pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
    def test_a_stop_reports_the_totals_of_every_pass(self, tmp_path: Path, stop: signal.Signals) -> None:
        db = tmp_path / "m.db"
        with memoryos.open(db, stm_idle_seconds=0.5) as mem:
            for n in range(3):
                mem.remember(memoryos.Scope(user="alice", assistant="coder"), f"turn {n} about kiwis")
        config = tmp_path / "config.json"
        config.write_text('{"stm_idle_seconds": 0.5}')
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memoryos",
                "worker",
                "--db",
                str(db),
                "--config",
                str(config),
                "--interval",
                "0.05",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while _stm(db) and time.monotonic() < deadline:  # the first passes promote the idle turns
                time.sleep(0.05)
            time.sleep(0.5)  # ... and later ones find nothing to do
            worker.send_signal(stop)
            out, err = worker.communicate(timeout=60)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
        assert worker.returncode == 0, err
        totals = orjson.loads(out)
        assert totals["promoted_turns"] == 3 and totals["passes"] > 2, totals


def _stm(db: Path) -> int:
    with memoryos.open(db) as mem:
        return int(mem.status()["tiers"]["stm"])


class TestOutput:
    def test_a_reader_that_closes_the_pipe_ends_the_output_quietly(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`memoryos status --table | head -1`: the read end closes before the command writes."""
        db = store_with_a_turn(tmp_path, capsys)
        read, write = os.pipe()
        os.close(read)  # no reader at all: the first write fails with EPIPE, every time
        try:
            done = memoryos_cli("status", "--db", db, "--table", stdout=write)
        finally:
            os.close(write)
        assert done.returncode == 141 and done.stderr == ""

    def test_through_a_real_head(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        db = store_with_a_turn(tmp_path, capsys)
        command = f"{shlex.quote(sys.executable)} -m memoryos status --db {shlex.quote(db)} --table | head -1"
        done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120, check=False)
        assert done.stdout.split() == ["metric", "value"] and "Traceback" not in done.stderr


class TestTopicsDegraded:
    def test_only_a_failed_model_marks_notes_degraded_as_the_readme_says(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Without a model the extractive notes are the configured path, not a fallback (Topic and the
        receipts' `degraded` mean the same thing); with a model that fails, they are degraded."""
        readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
        assert (
            "without one, or when it fails, they are extractive and the segment says `degraded`" not in readme
        )
        assert "without one they are extractive and not `degraded`" in readme
        unreachable = os.environ | {"MEMORYOS_LLM_URL": "http://127.0.0.1:9/v1", "MEMORYOS_LLM_MODEL": "m"}
        for env, degraded in ((os.environ, False), (unreachable, True)):
            db = str(tmp_path / f"{degraded}.db")
            for text in (
                "We deploy blyck with make ship.",
                "Deploy blyck from the repo root with make ship.",
            ):
                run(capsys, "remember", "--db", db, *SCOPE, text, "--config", str(_small_stm(tmp_path)))
            assert memoryos_cli("maintain", "--db", db, env=dict(env)).returncode == 0
            [topic] = orjson.loads(memoryos_cli("topics", "--db", db, *SCOPE).stdout)
            assert topic["summary"] and topic["degraded"] is degraded


class TestTheDemo:
    def test_the_audit_it_suggests_says_healthy_and_the_demo_says_why(self, tmp_path: Path) -> None:
        demo = memoryos_cli("demo", "--dir", str(tmp_path / "demo"))
        assert demo.returncode == 0, demo.stderr
        assert "expect `healthy` (exit 0)" in demo.stdout and "`waiting` (exit 1)" in demo.stdout
        receipts, db = tmp_path / "demo" / "receipts.jsonl", tmp_path / "demo" / "demo.db"
        assert f"memoryos-audit check {receipts} --format text" in demo.stdout and f"--db {db}" in demo.stdout
        for source in ([str(receipts)], ["--db", str(db)]):
            audit = subprocess.run(
                [sys.executable, "-m", "auditor", "check", *source, "--format", "json"],
                capture_output=True,
                timeout=120,
                check=False,
            )
            assert audit.returncode == 0, audit.stdout[-2000:]
            assert orjson.loads(audit.stdout)["verdict"] == "healthy"
