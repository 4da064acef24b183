"""Steps that follow a committed change: promoting a full STM after remember(), scrubbing erased
bytes out of the file after forget().

Once the caller's change has committed, the call has succeeded. A follow-on step that fails (the
store busy, the disk full, a fault) is counted, logged content-free and left to maintain(), the
background thread or a worker; it is never raised as if the caller's change had failed, so a caller
that retries never stores a turn twice.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from memoryos.errors import MemoryOSError
from memoryos.logs import get_logger
from memoryos.model import Finding
from memoryos.store.base import Store

log = get_logger()
#: meta key set while erased bytes may still be in the -wal (a reader held an old snapshot).
ERASURE_PENDING = "erasure_pending"


class FollowUps:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.deferred: Counter[str] = Counter()  # by step: promotion, scrub
        self._promotions: set[tuple[str, str]] = set()
        self._pending = False
        self._lock = threading.Lock()

    def _defer(self, step: str, error: str) -> None:
        with self._lock:
            self.deferred[step] += 1
        log.warning("follow-up deferred", step=step, error=error)

    # -- promotion of a full STM ---------------------------------------------------------------------
    def promotion_failed(self, user: str, assistant: str, exc: MemoryOSError) -> None:
        """The turn is stored; its scope's STM is promoted by the next maintain() instead."""
        with self._lock:
            self._promotions.add((user, assistant))
        self._defer("promotion", type(exc).__name__)

    def take_promotions(self) -> set[tuple[str, str]]:
        with self._lock:
            scopes, self._promotions = self._promotions, set()
        return scopes

    # -- scrubbing erased content out of the file ----------------------------------------------------
    def scrub(self) -> bool:
        """Scrub now; False (and the erasure recorded as pending) when it could not be finished."""
        try:
            done = self.store.scrub()
        except MemoryOSError as exc:
            self._defer("scrub", type(exc).__name__)
            done = False
        else:
            if not done:
                self._defer("scrub", "reader_snapshot")
        self._set_pending(not done)
        return done

    def erasure_pending(self) -> bool:
        if self._pending:
            return True
        try:
            return self.store.meta(ERASURE_PENDING) == "1"
        except MemoryOSError:
            return False

    def _set_pending(self, pending: bool) -> None:
        was = self.erasure_pending()
        self._pending = pending
        if was == pending and not pending:
            return
        try:
            with self.store.write("meta") as tx:
                tx.set_meta(ERASURE_PENDING, "1" if pending else "0")
        except MemoryOSError as exc:  # the in-process flag still remembers it
            self._defer("pending_flag", type(exc).__name__)

    def finish_erasure(self) -> int:
        """Finish a pending scrub; 1 when this call finished one, else 0."""
        if not self.erasure_pending():
            return 0
        if not self.scrub():
            return 0
        log.info("erasure completed")
        return 1

    # -- reporting -------------------------------------------------------------------------------------
    def findings(self) -> list[Finding]:
        found: list[Finding] = []
        if not self.finish_erasure() and self.erasure_pending():
            found.append(
                Finding(
                    "erasure_pending",
                    "erased content may still be in the -wal or the file: another connection holds an old"
                    " read snapshot; end it, then run check() or maintain() again",
                )
            )
        if self.store.mark_failures:
            found.append(
                Finding(
                    "mark_not_written",
                    f"{self.store.mark_failures} high-water marks could not be written beside the store"
                    " (read-only folder or full disk): lost receipts may go unnoticed",
                )
            )
        return found

    def status(self) -> dict[str, Any]:
        with self._lock:
            deferred = dict(sorted(self.deferred.items()))
        return {
            "deferred": deferred,
            "erasure_pending": self.erasure_pending(),
            "marks_not_written": self.store.mark_failures,
        }
