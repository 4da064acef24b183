"""The SQLite store at the edges of the file system: the path, the shared-memory file, and what a
driver error means for the caller (disk full, read-only, not a store, ...).

Imports only the error module, like the backend that uses it.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from memoryos.errors import (
    DiskFull,
    ReadOnlyStore,
    StoreBusy,
    StoreError,
    StorePathError,
    StoreVersionError,
)

#: Bytes of the `-shm` file allocated before SQLite maps it: two wal-index regions of 32 KiB, which
#: index 8,192 WAL frames (the WAL is checkpointed at 1,000).
SHM_RESERVE = 64 * 1024
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
# Primary result codes (https://sqlite.org/rescode.html).
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR = 5, 6, 8, 10
_SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 13, 14, 26


def shm_path(path: Path) -> Path:
    return path.with_name(path.name + "-shm")


def check_path(path: Path) -> None:
    """Refuse a path that cannot be a store file before SQLite is asked (its errors say less)."""
    if "\x00" in str(path):
        raise StorePathError("the store path contains a NUL character: pass a plain file name")
    if path.is_dir():
        raise StorePathError(f"{path} is a directory: pass the store's file name, e.g. {path / 'memoryos.db'}")
    if not path.parent.is_dir():
        raise StorePathError(f"the folder {path.parent} does not exist: create it first (mkdir -p)")


def reserve_shared_memory(path: Path) -> None:
    """Allocate the `-shm` file's blocks on disk, so that SQLite never writes into a hole of it.

    SQLite maps `-shm` and extends it by writing one byte per 4 KiB page; on a file system with
    smaller blocks (ext4 below 512 MiB uses 1 KiB) the rest of each page stays unallocated, and when
    the disk is full the first write through the mapping kills the process with SIGBUS. Called once
    before SQLite first maps the file (the first connection truncates it, so this is a test that the
    space exists: a full disk is an error here) and once after (filling the holes it left). Another
    process's live `-shm` is only filled, never changed: fallocate keeps existing bytes.
    """
    try:
        mode = path.stat().st_mode & 0o777  # SQLite gives -shm the database file's mode
        fd = os.open(shm_path(path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, mode)
    except OSError:
        return  # no store file yet, or a read-only folder: SQLite itself reports what it cannot do
    try:
        os.posix_fallocate(fd, 0, max(os.fstat(fd).st_size, SHM_RESERVE))
    except OSError as exc:
        if exc.errno in _FULL:
            raise DiskFull(
                f"the disk holding {path} is full (no room for its {SHM_RESERVE // 1024} KiB shared-memory"
                " file): free some space and try again"
            ) from None
        # EOPNOTSUPP and the like: a file system without fallocate has no sparse-page trap either
    finally:
        os.close(fd)


def _nearly_full(path: Path) -> bool:
    try:
        stats = os.statvfs(path.parent)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < SHM_RESERVE


def classify(exc: sqlite3.Error, path: Path, doing: str, fallback: type[StoreError] = StoreError) -> StoreError:
    """The StoreError that says what happened to `doing` (e.g. "opening the store")."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    detail = str(exc)
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in detail.lower():
        return StoreBusy(f"{doing}: the store stayed locked by another writer: retry later")
    if code == _SQLITE_FULL or (code == _SQLITE_IOERR and _nearly_full(path)):
        return DiskFull(f"{doing}: the disk holding {path} is full: free some space and try again")
    if code == _SQLITE_READONLY:
        return ReadOnlyStore(
            f"{doing}: {path} is read-only ({detail}): check the permissions of the file, its folder"
            " and the mount"
        )
    if code == _SQLITE_CANTOPEN:
        return StorePathError(
            f"{doing}: cannot open {path} or its -wal/-shm files: check that its folder exists and is"
            " writable"
        )
    if code in (_SQLITE_NOTADB, _SQLITE_CORRUPT):
        return StoreVersionError(f"{doing}: {path} is not a memoryos store, or is damaged ({detail})")
    if code == _SQLITE_IOERR:
        return fallback(f"{doing}: the disk reported an I/O error on {path} ({detail}): check the disk")
    return fallback(f"{doing}: the database refused it ({type(exc).__name__}: {detail})")


def classify_os_error(exc: OSError, path: Path, doing: str) -> StoreError:
    """The same for an OSError from a file memoryos writes itself (an export, the mark)."""
    reason = exc.strerror or str(exc)
    if exc.errno in _FULL:
        return DiskFull(f"{doing}: the disk holding {path} is full: free some space and try again")
    if exc.errno in _READ_ONLY:
        return ReadOnlyStore(f"{doing}: {path} cannot be written ({reason}): check permissions and the mount")
    if exc.errno == errno.EISDIR:
        return StorePathError(f"{doing}: {path} is a directory: pass a file name")
    if exc.errno == errno.ENOENT:
        return StorePathError(f"{doing}: the folder of {path} does not exist: create it first")
    return StoreError(f"{doing}: {path}: {reason}")
