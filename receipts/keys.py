"""The receipt key file: 32 random bytes as hex on one line, readable by the owner only.

A store refuses a key file that others can read or write (`private=True`), as ssh refuses such a
private key: whoever can read it can forge receipts, whoever can write it can swap the key.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

KEY_BYTES = 32


class KeyFileError(ValueError):
    """The key file is missing, unreadable, malformed, or open to others."""


def create_key_file(path: Path) -> bytes:
    """Create a new key file with mode 0600, atomically: a crash leaves either no key file or a
    complete one, never an empty one. Refuses to overwrite an existing key (FileExistsError)."""
    path = Path(path)
    key = secrets.token_bytes(KEY_BYTES)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if the key exists: never replaces one
    finally:
        os.unlink(tmp)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return key


def open_to_others(mode: int) -> bool:
    """Any permission bit for the group or others (what ssh calls an unprotected key file)."""
    return bool(stat.S_IMODE(mode) & 0o077)


def read_key_file(path: Path, *, private: bool = False) -> bytes:
    """Read a key file; raises KeyFileError (a ValueError) when it does not hold one hex key, or,
    with `private`, when the group or others may read or write it (the store opens its own key so;
    a verifier given a copied key may take it as it is)."""
    path = Path(path)
    if private:
        mode = path.stat().st_mode
        if open_to_others(mode):
            raise KeyFileError(
                f"{path} is accessible by others (mode {stat.S_IMODE(mode):04o}), so receipts signed with it"
                f" prove nothing: run `chmod 600 {path}` (and check who may have read it)"
            )
    text = path.read_text(encoding="ascii").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise KeyFileError(f"{path} does not hold a hex receipt key") from None
    if len(key) < 16:
        raise KeyFileError(f"{path} holds a key shorter than 16 bytes")
    return key
