"""The suite runs on every CPU (tests/conftest.py): a timing test still runs with nothing beside it,
a nested pytest and a one-CPU machine run in-process, and the grouped modules still exist."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import cast

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parent.parent
NESTED = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest"]

TIMED = """
import os
import time

import pytest


def _record(name: str) -> None:
    began = time.monotonic()
    time.sleep(0.4)
    with open(os.environ["INTERVALS"], "a") as log:
        log.write(f"{name} {began} {time.monotonic()}\\n")


@pytest.mark.serial
@pytest.mark.parametrize("n", range(3))
def test_timed(n: int) -> None:
    _record(f"serial{n}")


@pytest.mark.parametrize("n", range(10))
def test_plain(n: int) -> None:
    _record(f"plain{n}")
"""


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_a_serial_test_runs_with_no_other_test_beside_it(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    serial: runs alone\n")
    (tmp_path / "test_timed.py").write_text(textwrap.dedent(TIMED))
    intervals = tmp_path / "intervals.txt"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environ |= {"INTERVALS": str(intervals), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [*NESTED, "-n", "2", "--dist", "load", "test_timed.py"],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = {}
    for line in intervals.read_text().splitlines():
        name, began, ended = line.split()
        runs[name] = (float(began), float(ended))
    assert len(runs) == 13
    serial = {name: span for name, span in runs.items() if name.startswith("serial")}
    beside = [
        (s, o) for s, span in serial.items() for o, other in runs.items() if o != s and _overlap(span, other)
    ]
    assert beside == []
    plain = sorted(span for name, span in runs.items() if name.startswith("plain"))
    # ... and the other tests did run two at a time: without the lock a serial test would have company.
    assert any(_overlap(a, b) for i, a in enumerate(plain) for b in plain[i + 1 :])


def test_a_nested_pytest_and_a_one_cpu_machine_run_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    config = cast(pytest.Config, None)  # the hook reads nothing from it
    monkeypatch.delenv(conftest.WORKER_ENV, raising=False)
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)  # set in this process: it runs a test
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert conftest.pytest_xdist_auto_num_workers(config) is None  # xdist's own count: one per CPU
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert conftest.pytest_xdist_auto_num_workers(config) == 0
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setenv(conftest.WORKER_ENV, "gw1")
    assert conftest.pytest_xdist_auto_num_workers(config) == 0
    monkeypatch.delenv(conftest.WORKER_ENV)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_x.py::test_y (call)")  # a test's child pytest
    assert conftest.pytest_xdist_auto_num_workers(config) == 0


def test_every_grouped_and_longest_module_exists() -> None:
    """A renamed module would silently leave its group and race the others again (or run last)."""
    named = [*conftest.GROUPS, *conftest.LONGEST]
    assert [path for path in named if not (ROOT / path).is_file()] == []
