"""The receipt key file: 32 random bytes as hex on one line, readable by the owner only."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

KEY_BYTES = 32


def create_key_file(path: Path) -> bytes:
    """Create a new key file atomically with mode 0600; refuse to overwrite an existing one."""
    key = secrets.token_bytes(KEY_BYTES)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
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
