"""One error tree rooted at MemoryOSError; driver exceptions are translated at the store edge."""

from __future__ import annotations


class MemoryOSError(Exception):
    """Root of every error memoryos raises. Each message says what to do about it."""


class InvalidInput(MemoryOSError, ValueError):
    """An argument was refused before anything was written."""


class StorePathError(InvalidInput):
    """The path cannot hold a store or an export: a directory, a missing folder, a NUL in the name."""


class Rejected(MemoryOSError):
    """The no-store rule refused the text: only a content-free `reject` receipt was written."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"refused by the no-store rule ({reason}): remove the secret or personal data and try again"
        )
        self.reason = reason


class NotFound(MemoryOSError, LookupError):
    """The key, memory id or run does not exist in this scope."""


class StoreError(MemoryOSError):
    """The database could not do what was asked; nothing was partially written."""


class StoreBusy(StoreError):
    """Another writer held the database lock for longer than the busy timeout and retries."""


class StoreClosed(StoreError):
    """The store was used after close(): open it again with memoryos.open()."""


class StoreVersionError(StoreError):
    """The file was written by a newer memoryos, or is not a memoryos store at all."""


class DiskFull(StoreError):
    """The disk (or the quota) holding the store, its WAL, shared memory or an export is full."""


class ReadOnlyStore(StoreError):
    """The store, its folder or its file system is read-only, so nothing can be written."""


class MigrationError(StoreError):
    """A schema migration failed; it was rolled back and the store is as it was before open()."""


class InjectedFault(StoreError):
    """A failpoint armed with `raise` fired (tests and chaos runs only)."""


class ConfigError(MemoryOSError, ValueError):
    """A configuration value or environment variable is out of range."""


class ModelError(MemoryOSError):
    """The model could not give a usable answer. `code` is content-free (e.g. `timeout`, `http_500`,
    `invalid_answer`); `attempts` is how many requests were made before giving up."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.attempts = 1
