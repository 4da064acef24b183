"""Bearer tokens of `memoryos mcp --http`: the file the operator writes, and the check of a token.

Over HTTP the scope of every tool call comes from the caller's verified bearer token, never from a
tool argument. The operator keeps a token file, one JSON object a line:

    {"sha256": "<hex SHA-256 of the token>", "user": "alice", "assistant": "coder", "label": "alice-laptop"}

`label` (optional) names the token in the server's log and in session ownership; the token itself is
never stored, only its hash. Blank lines and lines starting with `#` are skipped. The file must be
owner-only (`chmod 600`), as the store refuses a receipt key open to others: whoever can write it can
grant themselves any user's memory. To add a token (printed once, appended to the file, created 0600):

    python -m memoryos.mcp_tokens add --file tokens.jsonl --user alice --assistant coder --label laptop

A presented token is hashed and compared with every entry's hash by `hmac.compare_digest`, all entries
every time, so neither the comparison nor the loop tells how much of a guess was right.

A running server reads the file again when it changes (`TokenFile`: its size, mtime and inode are
checked on each request, a `stat` and no read while they stand), so adding or revoking a token needs
no restart. A file that stops being valid grants nothing until it is fixed: a half-written
revocation must not leave the revoked token working.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memoryos.errors import InvalidInput
from receipts.keys import open_to_others

__all__ = [
    "Grant",
    "TokenFile",
    "TokenFileError",
    "TokenTable",
    "add_token",
    "hash_token",
    "load_tokens",
    "main",
]

_TOKEN_BYTES = 32
log = logging.getLogger("memoryos.mcp")


class TokenFileError(InvalidInput):
    """The token file is missing, open to others, or holds a line that is not a grant."""


@dataclass(frozen=True)
class Grant:
    """What one token opens: the memory of one user with one assistant."""

    user: str
    assistant: str
    label: str
    digest: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _grant(line: str, number: int, path: Path) -> Grant:
    where = f"{path} line {number}"
    try:
        entry = json.loads(line)
    except ValueError:
        raise TokenFileError(f"{where} is not JSON: each line is {{'sha256', 'user', 'assistant'}}") from None
    if not isinstance(entry, dict):
        raise TokenFileError(f"{where} is not a JSON object with sha256, user and assistant")
    digest, user, assistant = entry.get("sha256"), entry.get("user"), entry.get("assistant")
    label = entry.get("label", f"line {number}")
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise TokenFileError(f"{where}: sha256 must be the 64 lowercase hex digits of the token's SHA-256")
    for name, value in (("user", user), ("assistant", assistant), ("label", label)):
        if not (isinstance(value, str) and value.strip()):
            raise TokenFileError(f"{where}: {name} must be a non-empty string")
    assert isinstance(user, str) and isinstance(assistant, str) and isinstance(label, str)
    return Grant(user=user, assistant=assistant, label=label, digest=digest)


@dataclass(frozen=True)
class TokenTable:
    grants: tuple[Grant, ...]

    def lookup(self, token: str) -> Grant | None:
        """The grant whose hash is the token's, compared with every entry in constant time."""
        presented = hash_token(token).encode("ascii")
        found: Grant | None = None
        for grant in self.grants:  # no early exit: every entry is compared
            if hmac.compare_digest(presented, grant.digest.encode("ascii")):
                found = grant
        return found


def _check_private(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise TokenFileError(
            f"no token file at {path}: add a token with `python -m memoryos.mcp_tokens add`"
        ) from None
    if open_to_others(mode):
        raise TokenFileError(
            f"{path} is accessible by others (mode {stat.S_IMODE(mode):04o}), so anyone who can read or"
            f" write it may reach any user's memory: run `chmod 600 {path}`"
        )


def load_tokens(path: str | Path) -> TokenTable:
    """The grants in an owner-only token file; TokenFileError says what to fix otherwise."""
    path = Path(path)
    _check_private(path)
    grants = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            grants.append(_grant(line, number, path))
    if not grants:
        raise TokenFileError(f"{path} grants no token: add one with `python -m memoryos.mcp_tokens add`")
    digests = [g.digest for g in grants]
    if len(set(digests)) != len(digests):
        raise TokenFileError(f"{path} lists one token hash twice: keep one line per token")
    return TokenTable(tuple(grants))


_NO_GRANTS = TokenTable(())


class TokenFile:
    """The grants of a token file, read again whenever the file changes (size, mtime or inode).

    `check` vets every grant a reload brings (the server checks scope ids as it does at launch); a
    file that cannot be read, is open to others, or fails the check grants nothing until it is
    fixed, and the reason is logged (path and line only: never a token, hash or id).
    """

    def __init__(self, path: str | Path, check: Callable[[TokenTable], None] | None = None) -> None:
        self.path = Path(path)
        self.check = check
        self._stamp = self._signature()
        self._table = self._load()  # raises at startup: a server never starts on a bad file

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _load(self) -> TokenTable:
        table = load_tokens(self.path)
        if self.check is not None:
            self.check(table)
        return table

    def current(self) -> TokenTable:
        stamp = self._signature()
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                self._table = self._load()
            except InvalidInput as exc:
                log.error("token file rejected, no token is granted until it is fixed: %s", exc)
                self._table = _NO_GRANTS
        return self._table

    def lookup(self, token: str) -> Grant | None:
        return self.current().lookup(token)


def add_token(path: str | Path, user: str, assistant: str, label: str | None = None) -> str:
    """Append a new random token's grant to the file (created owner-only) and return the token."""
    path = Path(path)
    if path.exists():
        _check_private(path)
    token = secrets.token_urlsafe(_TOKEN_BYTES)
    entry = {"sha256": hash_token(token), "user": user, "assistant": assistant}
    if label:
        entry["label"] = label
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    return token


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memoryos.mcp_tokens", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="grant a new token one user's memory with one assistant")
    add.add_argument("--file", required=True, help="the token file (created owner-only)")
    add.add_argument("--user", required=True)
    add.add_argument("--assistant", required=True)
    add.add_argument("--label", help="a name for the token in the server's log")
    args = parser.parse_args(argv)
    try:
        token = add_token(args.file, args.user, args.assistant, args.label)
    except InvalidInput as exc:
        print(f"memoryos mcp token: {exc}", file=sys.stderr)
        return 2
    print(token)  # shown once: only its hash is kept
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
