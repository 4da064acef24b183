"""The suite in parallel (pytest-xdist, `-n auto` in pyproject's addopts), and what keeps it honest.

- Workers: one per CPU. On a one-CPU machine, and inside a pytest that a test starts (the nested run
  inherits PYTEST_XDIST_WORKER), the tests run in-process, as they did before xdist.
- Timing tests (`@pytest.mark.serial`): a test that compares a time with a baseline measured just
  before runs alone. Every test holds a shared lock on one file for the run while it runs (setup,
  call and teardown); a serial test holds it exclusively, so it starts only when the tests running
  on the other workers have finished, and none starts until it has. A turnstile lock in front keeps
  a waiting serial test from being starved by a stream of new shared holders.
- Groups (`--dist loadgroup`): each module runs whole on one worker (its module fixtures built once);
  GROUPS puts modules whose tests see each other's side effects outside their tmp_path (throwaway
  PostgreSQL clusters under /tmp) on one worker, and LONGEST starts the longest modules first.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

WORKER_ENV = "PYTEST_XDIST_WORKER"


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: in-process inside a nested pytest (a test that runs pytest: its child inherits
    PYTEST_CURRENT_TEST, or a worker's name) and on one CPU, else xdist's own count."""
    if os.environ.get(WORKER_ENV) or os.environ.get("PYTEST_CURRENT_TEST") or _usable_cpus() < 2:
        return 0
    return None


_LOCKS = "memoryos_locks"  # the workerinput key: the run's lock folder, made by the controller


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """The controller, for each xdist worker: one lock folder for the run, removed when it ends."""
    config = node.config
    if not hasattr(config, "memoryos_locks"):
        config.memoryos_locks = tempfile.mkdtemp(prefix="memoryos-pytest-locks-")
    node.workerinput[_LOCKS] = config.memoryos_locks


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "memoryos_locks", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _lock_paths(config: pytest.Config) -> tuple[Path, Path] | None:
    """The run's lock files, shared by its workers; None outside xdist (nothing runs beside a test)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or _LOCKS not in workerinput:
        return None
    folder = Path(workerinput[_LOCKS])
    return folder / "tests.lock", folder / "turnstile.lock"


@contextlib.contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def _turn(paths: tuple[Path, Path], serial: bool) -> Iterator[None]:
    lock, turnstile = paths
    if serial:
        with _flock(turnstile, fcntl.LOCK_EX):
            stack = contextlib.ExitStack()
            stack.enter_context(_flock(lock, fcntl.LOCK_EX))
        with stack:
            yield
    else:
        with _flock(turnstile, fcntl.LOCK_EX):
            pass
        with _flock(lock, fcntl.LOCK_SH):
            yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    paths = _lock_paths(item.config)
    if paths is None:
        return (yield)
    with _turn(paths, serial=item.get_closest_marker("serial") is not None):
        return (yield)


#: Modules whose tests see each other outside their tmp_path, so one worker runs them in turn: the
#: throwaway-cluster tests count the memoryos-pg-* folders under /tmp before and after a run, which
#: a crash test's own cluster, started on another worker meanwhile, would add to.
GROUPS = {
    "tests/postgres_ops/test_pg_server.py": "pg_clusters",
    "tests/postgres_ops/test_server_crash.py": "pg_clusters",
}
#: The longest modules, started first so that none of them is the run's tail (the chaos slice alone
#: is minutes of subprocesses; the benchmark slices and examples spawn many interpreters).
LONGEST = (
    "tests/chaos/test_chaos_slice.py",
    "tests/postgres_ops/test_chaos_postgres.py",
    "tests/test_benchmarks.py",
    "tests/integrations/test_examples.py",
)


def _module_name(path: Path, root: Path) -> str:
    """A test file's path from the repository root, as GROUPS and LONGEST name it (a file outside it,
    say one passed by an absolute path elsewhere, by its own path)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every module runs whole on one worker, as it would alone: its module fixtures (a chaos sweep,
    an MCP server, a shared store) are built once, not once per worker that drew one of its tests.
    An explicit xdist_group wins; GROUPS joins modules."""
    root = Path(str(config.rootpath))
    modules: dict[Path, str] = {}
    for item in items:
        module = modules.setdefault(item.path, _module_name(item.path, root))
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(GROUPS.get(module, module)))
    items.sort(key=lambda item: modules[item.path] not in LONGEST)  # stable: the rest keep their order
