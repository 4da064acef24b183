"""The PostgreSQL tests on a fresh machine: with no server at MEMORYOS_TEST_POSTGRES they start a
throwaway cluster from the installed binaries (as the `postgres` user when run as root, since initdb
refuses root) and stop it at the end; with no binaries either they skip with the reason, except in
CI, where they fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.pg_server import ENV_BINDIRS, ENV_URL, cluster_parent, free_port

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests/postgres_ops/test_pg_server.py::test_each_test_gets_an_empty_database_of_its_own"


def test_each_test_gets_an_empty_database_of_its_own(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)
        conn.execute("CREATE TABLE mine (n int)")  # dropped with the database after the test


def run_target(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The target test in a fresh interpreter, no server at the configured URL (a closed port)."""
    closed = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    environ |= {ENV_URL: closed, "TMPDIR": str(tmp_path), **env}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly", TARGET],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def clusters() -> set[Path]:
    return {*Path(cluster_parent()).glob("memoryos-pg-*"), *Path("/tmp").glob("memoryos-pg-*")}


def test_with_no_server_a_throwaway_cluster_is_started_and_removed(tmp_path: Path) -> None:
    before = clusters()
    done = run_target(tmp_path)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert clusters() <= before  # stopped and removed when the tests ended


def no_binaries(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty), ENV_BINDIRS: str(tmp_path / "no-postgresql" / "*" / "bin")}


def test_with_no_server_and_no_binaries_the_tests_skip_with_the_reason(tmp_path: Path) -> None:
    done = run_target(tmp_path, **no_binaries(tmp_path))
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout + done.stderr
    assert "PostgreSQL is not installed" in done.stdout


def test_in_ci_they_fail_instead(tmp_path: Path) -> None:
    done = run_target(tmp_path, CI="true", **no_binaries(tmp_path))
    assert done.returncode == 1 and "1 error" in done.stdout, done.stdout + done.stderr
    assert "CI must run the PostgreSQL tests" in done.stdout


def test_ci_installs_postgresql_when_it_is_missing() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get install -y -qq postgresql" in script and "reachable(configured_url())" in script
