"""The SQLite store at the edges of the file system: the path, the shared-memory file, and what a
driver error means for the caller (disk full, read-only, not a store, ...).

Imports only the error module, like the backend that uses it.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from pathlib import Path

from memoryos.errors import (
    DiskFull,
    MemoryOSError,
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


def check_path(path: Path) -> None:
    """Refuse a path that cannot be a store file before SQLite is asked (its errors say less)."""
    if "\x00" in str(path):
        raise StorePathError("the store path contains a NUL character: pass a plain file name")
    try:
        is_dir, folder_exists = path.is_dir(), path.parent.is_dir()
    except OSError as exc:  # a name too long for the file system, a loop of links, ...
        raise classify_os_error(exc, path, "the store was not opened") from None
    if is_dir:
        raise StorePathError(
            f"{path} is a directory: pass the store's file name, e.g. {path / 'memoryos.db'}"
        )
    if not folder_exists:
        raise StorePathError(f"the folder {path.parent} does not exist: create it first (mkdir -p)")


def reserve_shared_memory(path: Path) -> None:
    """Refuse to open a store on a disk without room for its `-shm` file: SQLite would die on it.

    SQLite maps `-shm` and extends it by writing one byte per 4 KiB page; on a file system with
    smaller blocks (ext4 below 512 MiB uses 1 KiB) the rest of each page stays unallocated, and when
    the disk is full the first write through the mapping kills the process with SIGBUS. So before
    SQLite first maps the file, the room is checked by allocating (then freeing) a scratch file of
    that size beside the store: a full disk is then a DiskFull error. The scratch file is a
    different file on purpose: opening and closing the `-shm` itself would drop this process's
    POSIX locks on it (held by SQLite for any connection), and another process would then think
    itself the first one and truncate the `-shm` under our mapping.
    """
    scratch = path.with_name(f".{path.name}.space-check.{os.getpid()}.{threading.get_ident()}")
    try:
        fd = os.open(scratch, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in _FULL:
            raise _no_room(path) from None
        return  # a read-only folder and the like: SQLite itself reports what it cannot do
    try:
        os.posix_fallocate(fd, 0, SHM_RESERVE)
    except OSError as exc:
        if exc.errno in _FULL:
            raise _no_room(path) from None
        # EOPNOTSUPP and the like: a file system without fallocate has no sparse-page trap either
    finally:
        os.close(fd)
        os.unlink(scratch)


# One descriptor per live -shm file, kept open: closing a descriptor of a file drops every POSIX
# lock this process holds on it, SQLite's included (see reserve_shared_memory).
_SHM_FDS: dict[str, tuple[tuple[int, int], int]] = {}
_SHM_LOCK = threading.Lock()


def fill_shared_memory(path: Path) -> None:
    """Once SQLite has mapped `-shm`: allocate the holes it left (fallocate keeps every byte), so
    that no later write through the mapping can hit an unallocated block. The descriptor stays open
    while the file lives; one whose file was unlinked (SQLite deletes -shm when the last connection
    closes) is closed on the next call, which is safe because nothing can hold a lock on it then."""
    shm = path.with_name(path.name + "-shm")
    with _SHM_LOCK:
        _forget_unlinked()
        try:
            fd = _shm_fd(shm)
            os.posix_fallocate(fd, 0, max(os.fstat(fd).st_size, SHM_RESERVE))
        except OSError as exc:
            if exc.errno in _FULL:
                raise _no_room(path) from None
            # no -shm (a read-only store), or no fallocate: nothing to fill


def _shm_fd(shm: Path) -> int:
    found = os.stat(shm)
    inode = (found.st_dev, found.st_ino)
    known = _SHM_FDS.get(str(shm))
    if known is not None and known[0] == inode:
        return known[1]
    fd = os.open(shm, os.O_RDWR | os.O_CLOEXEC)
    _SHM_FDS[str(shm)] = (inode, fd)
    return fd


def _forget_unlinked() -> None:
    for name, (inode, fd) in list(_SHM_FDS.items()):
        try:
            found = os.stat(name)
            current = (found.st_dev, found.st_ino)
        except OSError:
            current = None
        if current != inode:
            os.close(fd)
            del _SHM_FDS[name]


def _no_room(path: Path) -> DiskFull:
    return DiskFull(
        f"the disk holding {path} is full (no room for its {SHM_RESERVE // 1024} KiB shared-memory file):"
        " free some space and try again"
    )


def _nearly_full(path: Path) -> bool:
    try:
        stats = os.statvfs(path.parent)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < SHM_RESERVE


def _read_only(path: Path) -> bool:
    """A read-only mount, or a folder this process may not write (SQLite needs its -wal and -shm)."""
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY) or not os.access(path.parent, os.W_OK)
    except OSError:
        return False


def _kind(code: int, detail: str, path: Path) -> str:
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in detail.lower():
        return "busy"
    if code == _SQLITE_FULL or (code == _SQLITE_IOERR and _nearly_full(path)):
        return "full"
    if code in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_IOERR) and _read_only(path):
        return "read_only"
    return {
        _SQLITE_READONLY: "read_only",
        _SQLITE_CANTOPEN: "cannot_open",
        _SQLITE_NOTADB: "not_a_store",
        _SQLITE_CORRUPT: "not_a_store",
        _SQLITE_IOERR: "io",
    }.get(code, "other")


_MESSAGES: dict[str, tuple[type[MemoryOSError] | None, str]] = {
    "busy": (StoreBusy, "the store stayed locked by another writer: retry later"),
    "full": (DiskFull, "the disk holding {path} is full: free some space and try again"),
    "read_only": (
        ReadOnlyStore,
        "{path} is read-only ({detail}): memoryos needs to write the file and its -wal and -shm"
        " beside it; check the permissions of the file, its folder and the mount",
    ),
    "cannot_open": (
        StorePathError,
        "cannot open {path} or its -wal/-shm files: check that its folder exists and is writable",
    ),
    "not_a_store": (StoreVersionError, "{path} is not a memoryos store, or is damaged ({detail})"),
    "io": (None, "the disk reported an I/O error on {path} ({detail}): check the disk"),
    "other": (None, "the database refused it ({name}: {detail})"),
}


def classify(
    exc: sqlite3.Error, path: Path, doing: str, fallback: type[StoreError] = StoreError
) -> MemoryOSError:
    """The error that says what happened to `doing` (e.g. "opening the store"): disk full,
    read-only, not a store, ...; `fallback` for anything else (a migration's own failure)."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    detail = str(exc)
    error, template = _MESSAGES[_kind(code, detail, path)]
    message = template.format(path=path, detail=detail, name=type(exc).__name__)
    return (error or fallback)(f"{doing}: {message}")


def classify_os_error(exc: OSError, path: Path, doing: str) -> MemoryOSError:
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
    if exc.errno == errno.ENAMETOOLONG:  # the path itself is the problem: not repeated, it can be huge
        return StorePathError(f"{doing}: the path, or a name in it, is too long for the file system")
    return StoreError(f"{doing}: {path}: {reason}")
