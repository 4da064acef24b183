"""`--db postgresql://...` wherever the CLI takes a store: init, remember, recall, check, the
canary (which runs the auditor on the same store)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.pg_server import pg_url

__all__ = ["pg_url"]


def _cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoryos", "--db", url, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_cli_works_on_a_postgres_store(pg_url: str) -> None:
    assert _cli(pg_url, "init").returncode == 0
    stored = _cli(pg_url, "remember", "--user", "u", "--assistant", "a", "kiwi orchard notes")
    assert stored.returncode == 0, stored.stderr
    recalled = json.loads(_cli(pg_url, "recall", "--user", "u", "--assistant", "a", "kiwi").stdout)
    assert [h["memory_id"] for h in recalled["hits"]] == [json.loads(stored.stdout)["memory_id"]]
    checked = _cli(pg_url, "check")
    assert checked.returncode == 0 and json.loads(checked.stdout)["findings"] == []


def test_the_canary_passes_on_a_postgres_store(pg_url: str) -> None:
    assert _cli(pg_url, "init").returncode == 0
    canary = _cli(pg_url, "canary")
    assert canary.returncode == 0 and "canary: healthy" in canary.stdout, canary.stdout + canary.stderr


def test_the_mcp_servers_health_audits_a_postgres_store(pg_url: str) -> None:
    import memoryos
    from memoryos.mcp_server import HeldAudit

    with memoryos.open(pg_url) as mem:
        mem.remember(memoryos.Scope(user="u", assistant="a"), "hello kiwi")
        health = HeldAudit(mem.path)._check()
    assert health["receipts"] == 1 and health["verdict"] in ("healthy", "waiting")
