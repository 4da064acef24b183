"""The receipt key file: 32 random bytes as hex on one line, readable by the owner only."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

KEY_BYTES = 32


def create_key_file(path: Path) -> bytes:
    """Create a new key file with mode 0600, atomically: a crash leaves either no key file or a
    complete one, never an empty one. Refuses to overwrite an existing key."""
    path = Path(path)
    key = secrets.token_bytes(KEY_BYTES)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
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


def read_key_file(path: Path) -> bytes:
    """Read a key file; raises ValueError when it does not hold one hex key."""
    text = Path(path).read_text(encoding="ascii").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"{path} does not hold a hex receipt key") from None
    if len(key) < 16:
        raise ValueError(f"{path} holds a key shorter than 16 bytes")
    return key
