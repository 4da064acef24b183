"""Long commands draw a progress line on stderr when it is a terminal (a real pty here), and stay
silent when it is not, or with --quiet: export, import, `memoryos-audit check`, `python -m chaos run`."""

from __future__ import annotations

import contextlib
import io
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

import auditor.progress
import memoryos
from auditor.cli import main as audit_main
from memoryos import cli_output
from memoryos.cli import main

ALICE = memoryos.Scope(user="alice", assistant="coder")


class Terminal:
    """A pseudo-terminal: `stderr()` puts this process's stderr on it (inside the test itself:
    pytest's capture swaps sys.stderr at each phase), `output()` reads what was drawn."""

    def __init__(self, master: int, stream: TextIO | None = None) -> None:
        self.master, self.stream = master, stream

    @contextlib.contextmanager
    def stderr(self) -> Iterator[None]:
        saved, sys.stderr = sys.stderr, self.stream
        try:
            yield
        finally:
            sys.stderr = saved

    def output(self) -> str:
        chunks = []
        while select.select([self.master], [], [], 0.2)[0]:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[Terminal]:
    """stderr on a real pty, and the first draw at once (a small test store is quick)."""
    master, slave = os.openpty()
    stream = open(slave, "w", buffering=1)  # noqa: SIM115 - closed below
    monkeypatch.setattr(cli_output, "PROGRESS_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(auditor.progress, "DELAY_SECONDS", 0.0)
    yield Terminal(master, stream)
    stream.close()
    os.close(master)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "memory.db"
    with memoryos.open(db) as mem:
        for i in range(40):
            mem.remember(ALICE, f"note {i} about the release")
    return db


def test_export_draws_its_progress_on_a_terminal_then_clears_the_line(
    terminal: Terminal, store: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export.jsonl"
    with terminal.stderr():
        assert main(["export", "--db", str(store), "--jsonl", str(out)]) == 0
    drawn = terminal.output()
    assert "memoryos export: wrote" in drawn and " MB" in drawn
    assert drawn.endswith("\r") and drawn.rstrip("\r").split("\r")[-1].strip() == ""  # cleared


def test_import_counts_against_the_files_size(terminal: Terminal, store: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    with terminal.stderr():
        assert main(["export", "--db", str(store), "--jsonl", str(out), "--unredacted", "--quiet"]) == 0
    assert terminal.output() == ""  # --quiet on a terminal: nothing
    with terminal.stderr():
        assert main(["import", "--db", str(tmp_path / "fresh.db"), "--jsonl", str(out)]) == 0
    drawn = terminal.output()
    assert "memoryos import: read" in drawn and " of " in drawn and "%" in drawn


def test_the_audit_draws_bytes_read_of_its_inputs(terminal: Terminal, store: Path) -> None:
    with terminal.stderr():
        assert audit_main(["check", "--db", str(store), "--format", "json"]) in (0, 1)
    drawn = terminal.output()
    assert "memoryos-audit: read" in drawn and " of " in drawn


def test_nothing_is_drawn_when_stderr_is_not_a_terminal(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_output, "PROGRESS_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(auditor.progress, "DELAY_SECONDS", 0.0)
    captured = io.StringIO()
    with Terminal(-1, captured).stderr():  # a stream that is no terminal
        assert main(["export", "--db", str(store), "--jsonl", str(tmp_path / "e.jsonl")]) == 0
        assert audit_main(["check", "--db", str(store), "--format", "json"]) in (0, 1)
    assert captured.getvalue() == ""


def test_a_chaos_run_in_a_real_terminal_counts_trials_and_in_a_pipe_prints_none(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "chaos", "run", "--points", "stm_to_mtm.before_commit", "--seeds", "1"]
    command += ["--soak", "0", "--naive-seeds", "0", "--recovery-seeds", "0", "--hits", "one"]
    command += ["--raise-hits", "none", "--jobs", "1"]
    master, slave = os.openpty()
    try:
        child = subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )
        drawn = Terminal(master).output()
    finally:
        os.close(slave)
        os.close(master)
    assert child.returncode == 0
    assert "chaos: trials" in drawn and " of " in drawn
    piped = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=300, check=False)
    assert piped.returncode == 0 and piped.stderr == b""
