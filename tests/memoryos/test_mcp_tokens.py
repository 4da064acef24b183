"""The token file of `memoryos mcp --http` is read again when it changes: a token added or revoked
takes effect without a restart, and a file that stops being valid grants nothing."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import httpx2
import pytest

from memoryos.errors import InvalidInput
from memoryos.mcp_tokens import TokenFile, TokenFileError, TokenTable, add_token
from tests.memoryos.test_mcp_http import ALICE, call, start


def test_a_token_added_after_start_is_granted_and_one_removed_is_not(tmp_path: Path) -> None:
    path = tmp_path / "tokens.jsonl"
    alice = add_token(path, "alice", "coder")
    table = TokenFile(path)
    assert table.lookup(alice) is not None
    bob = add_token(path, "bob", "coder")
    grant = table.lookup(bob)
    assert grant is not None and (grant.user, grant.assistant) == ("bob", "coder")
    path.write_text(path.read_text().splitlines()[1] + "\n")  # the operator revokes alice
    assert table.lookup(alice) is None
    assert table.lookup(bob) is not None


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.jsonl"
    token = add_token(path, "alice", "coder")
    table = TokenFile(path)
    reads: list[Path] = []
    original = Path.read_text

    def counted(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(self)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counted)
    for _ in range(5):
        assert table.lookup(token) is not None
    assert reads == []


@pytest.mark.parametrize("damage", ["garbage", "open to others", "deleted", "refused by check"])
def test_a_file_that_stops_being_valid_grants_nothing_until_fixed(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens.jsonl"
    token = add_token(path, "alice", "coder")
    good = path.read_text()
    refuse = {"on": False}

    def check(table: TokenTable) -> None:
        if refuse["on"]:
            raise InvalidInput("user is 900 characters, over the limit of 256")

    table = TokenFile(path, check)
    if damage == "garbage":
        path.write_text(good + "{not json\n")
    elif damage == "open to others":
        os.chmod(path, 0o644)
        path.write_text(good + "\n")  # a changed stamp: chmod alone changes no mtime
    elif damage == "deleted":
        path.unlink()
    else:
        refuse["on"] = True
        path.write_text(good + "\n")
    with caplog.at_level(logging.ERROR, logger="memoryos.mcp"):
        assert table.lookup(token) is None
    assert "no token is granted until it is fixed" in caplog.text
    assert token not in caplog.text and "alice" not in caplog.text
    refuse["on"] = False
    path.write_text(good)
    os.chmod(path, 0o600)
    assert table.lookup(token) is not None


def test_a_bad_file_at_startup_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.jsonl"
    path.write_text("{}\n")
    os.chmod(path, 0o600)
    with pytest.raises(TokenFileError, match="line 1"):
        TokenFile(path)


def test_a_running_server_honours_a_token_added_and_revoked_without_restart(tmp_path: Path) -> None:
    tokens, db = tmp_path / "tokens.jsonl", tmp_path / "m.db"
    add_token(tokens, "bob", "coder")
    proc, url = start(db, tokens, "--http", "127.0.0.1:0")
    try:
        alice = add_token(tokens, ALICE.user, ALICE.assistant)
        written = call(url, alice, "memory_write", {"key": "k", "body": "alice's note"})
        assert not written.is_error
        tokens.write_text(tokens.read_text().splitlines()[0] + "\n")  # revoke alice
        headers = {"authorization": f"Bearer {alice}", "accept": "application/json, text/event-stream"}
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx2.post(url, headers=headers, json=body, timeout=30).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        assert proc.stderr is not None
        proc.stderr.close()
