"""What a psycopg error means for the caller: a StoreError subclass that says what to do.

Messages carry the SQLSTATE's name and the server's primary message only: PostgreSQL puts row
values (a key, a body) in the DETAIL of a constraint violation, and those never leave the store.
Imports only the error module, the location helpers and the driver.
"""

from __future__ import annotations

import psycopg
from psycopg import errors as pg
from psycopg_pool import PoolTimeout

from memoryos.errors import DiskFull, MemoryOSError, ReadOnlyStore, StoreBusy, StoreError
from memoryos.store.location import describe

__all__ = ["describe", "guard", "is_lost_connection", "translate"]

#: Contention that the same transaction, started again later, would likely get through.
_CONTENDED = (pg.SerializationFailure, pg.DeadlockDetected, pg.LockNotAvailable, pg.QueryCanceled)
#: The server went away or refused connections for now (a restart, a crash, a shutdown).
_UNAVAILABLE = (
    pg.AdminShutdown,
    pg.CrashShutdown,
    pg.CannotConnectNow,
    pg.ConnectionException,
    pg.IdleSessionTimeout,
)


def is_lost_connection(exc: BaseException) -> bool:
    """The connection broke (a server restart or crash, a terminated backend). Around BEGIN that
    is safe to try again on a fresh connection; around COMMIT it leaves the outcome unknown. A pool
    that found no connection in time has waited already: trying again would multiply the wait."""
    skipped = psycopg.errors.PipelineAborted  # a statement skipped after another one failed
    not_lost = (*_CONTENDED, skipped, PoolTimeout)
    return isinstance(exc, psycopg.OperationalError) and not isinstance(exc, not_lost)


_MEANINGS: tuple[tuple[tuple[type[BaseException], ...], type[StoreError], str], ...] = (
    (
        (PoolTimeout,),
        StoreBusy,
        "no connection to {where} became free in time (the server is down, or every connection is"
        " busy): retry later",
    ),
    (_CONTENDED, StoreBusy, "{where} is contended ({name}): retry later"),
    (
        (pg.DiskFull,),
        DiskFull,
        "the disk of the PostgreSQL server at {where} is full: free some space",
    ),
    (
        (pg.ReadOnlySqlTransaction,),
        ReadOnlyStore,
        "{where} is read-only (a standby?): connect to the primary",
    ),
    (
        (pg.InsufficientPrivilege,),
        ReadOnlyStore,
        "the role lacks a privilege on {where} ({primary}): connect as the role that owns the store,"
        " or grant it",
    ),
    (
        (*_UNAVAILABLE, psycopg.OperationalError),
        StoreBusy,
        "the connection to {where} failed ({name}): check that the server is running and reachable,"
        " then retry",
    ),
    ((psycopg.Error,), StoreError, "the database refused it ({name}: {primary})"),
)


#: How a failed guard's error begins: what follows is the guard's message.
GUARD_MARK = "memoryos guard: "


def guard(condition: str, message: str) -> str:
    """A SQL expression that fails its statement, and so the transaction, unless `condition` holds:
    an invariant the server checks in a statement sent with the COMMIT, where the client would
    wait a round trip for the answer to check it. PostgreSQL has no RAISE outside PL/pgSQL, so it
    fails as a cast of `message` to an integer; translate() reports it as a StoreError saying
    `message` (content-free: a constant). `condition` must not be constant (a constant CASE arm
    is folded, and would fail, at planning): an aggregate or a subquery."""
    return f"CAST(CASE WHEN {condition} THEN '0' ELSE '{GUARD_MARK}{message}' END AS INTEGER)"


def _guard_message(exc: BaseException) -> str | None:
    if not isinstance(exc, pg.InvalidTextRepresentation):
        return None
    _, mark, message = (exc.diag.message_primary or "").partition(GUARD_MARK)
    return message.rstrip('"') if mark else None


def translate(exc: BaseException, where: str, doing: str) -> MemoryOSError:
    """The StoreError for a driver or pool error met while `doing` (e.g. "nothing was written")."""
    guarded = _guard_message(exc)
    if guarded:
        return StoreError(f"{doing}: {guarded}")
    for kinds, error, template in _MEANINGS:
        if isinstance(exc, kinds):
            message = template.format(where=where, name=type(exc).__name__, primary=_primary(exc))
            return error(f"{doing}: {message}")
    return StoreError(f"{doing}: {type(exc).__name__}")


def _primary(exc: BaseException) -> str:
    if isinstance(exc, psycopg.Error) and exc.diag.message_primary:
        return exc.diag.message_primary
    return type(exc).__name__
