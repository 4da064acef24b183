"""The store's side of the chain's high-water mark (`receipts.head`): written after every commit
that added receipts, compared with the outbox by check().

The mark is a lower bound of the chain (written after the commit, never before), so a mark ahead of
the outbox means acknowledged receipts vanished: rows deleted, or a `-wal` truncated or deleted.
Writing it never fails a commit that already happened: a failure is counted and logged.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memoryos.logs import get_logger
from receipts.head import Head, HeadError, HeadFile, read_head

log = get_logger()


class ChainMark:
    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        self.failures = 0  # marks not written (read-only folder, full disk): check() says so
        self._file: HeadFile | None = None

    def bind(self, key: bytes) -> None:
        self.close()
        try:
            self._file = HeadFile(self.store_path, key)
        except OSError as exc:
            self._failed("open", exc)

    def record(self, chain_id: str, seq: int, link: str) -> None:
        """One pwrite of a fixed-size line; never raises (the commit it follows already happened)."""
        if self._file is None:
            return
        try:
            self._file.write(Head(chain_id, seq, link))
        except (OSError, HeadError) as exc:
            self._failed("write", exc)

    def _failed(self, step: str, exc: Exception) -> None:
        self.failures += 1
        code = getattr(exc, "errno", None)
        log.warning("chain mark not written", step=step, error=type(exc).__name__, errno=code)

    def findings(
        self, chain_id: str, key: bytes, head_seq: int, link_at: Callable[[int], str | None]
    ) -> list[str]:
        """What the mark says the outbox lacks (empty when it agrees, or when there is no mark)."""
        try:
            mark = read_head(self.store_path, key)
        except HeadError as exc:
            return [f"the chain's high-water mark cannot be trusted: {exc}"]
        except OSError as exc:
            return [f"the chain's high-water mark cannot be read ({exc.strerror})"]
        return [] if mark is None else _compare(mark, chain_id, head_seq, link_at)

    def chain_id(self, key: bytes) -> str | None:
        """The chain id a verified mark records (a store whose meta was lost keeps its identity)."""
        try:
            mark = read_head(self.store_path, key)
        except (HeadError, OSError):
            return None
        return None if mark is None else mark.chain_id

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _compare(mark: Head, chain_id: str, head_seq: int, link_at: Callable[[int], str | None]) -> list[str]:
    if mark.chain_id != chain_id:
        return [
            f"the high-water mark records {mark.seq} receipts of another chain than this store's (a mark"
            " copied from another store, or this store lost its identity with its -wal)"
        ]
    if mark.seq > head_seq:
        return [
            f"{mark.seq - head_seq} acknowledged receipts are missing: the mark says the chain reached"
            f" seq {mark.seq}, the outbox ends at {head_seq} (newest rows deleted, or the -wal"
            " truncated or deleted)"
        ]
    if mark.seq and link_at(mark.seq) != mark.link:
        return [f"the receipt at seq {mark.seq} is not the one the high-water mark recorded (rewritten)"]
    return []
