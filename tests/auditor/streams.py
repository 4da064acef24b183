"""Build valid, chained receipt streams with receipts.seal(), one memoryos operation at a time."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from receipts import ChainHead, format_utc, seal, uuid7

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ALICE = ("a1" * 16, "c0" * 16)
BOB = ("b2" * 16, "c0" * 16)
VERSION = "memoryos/0.1.0+cafe1234"
WAIT = timedelta(minutes=30)


class Stream:
    """A store's receipt chain; every helper appends receipts and returns the ids a test needs."""

    def __init__(self, chain: str = "store-1", start: datetime = T0, key: bytes | None = None) -> None:
        self.head = ChainHead(chain)
        self.key = key
        self.clock = start
        self.lines: list[bytes] = []
        self.receipts: list[dict[str, Any]] = []

    def tick(self, seconds: float = 1.0) -> datetime:
        self.clock += timedelta(seconds=seconds)
        return self.clock

    def emit(
        self, scope: tuple[str, str] = ALICE, at: datetime | None = None, **draft: Any
    ) -> dict[str, Any]:
        draft.setdefault("userScope", scope[0])
        draft.setdefault("assistantScope", scope[1])
        draft.setdefault("sourceVersion", VERSION)
        draft.setdefault("status", "committed")
        sealed = seal(draft, self.head, self.key, at or self.tick())
        self.head = sealed.head
        self.lines.append(sealed.line)
        self.receipts.append(sealed.receipt)
        return sealed.receipt

    # ---- operations ------------------------------------------------------------------------
    def store(self, scope: tuple[str, str] = ALICE, wait: timedelta = WAIT) -> tuple[str, str]:
        """remember(): returns (run, turn)."""
        run, turn = uuid7(), uuid7()
        at = self.tick()
        self.emit(
            scope,
            at,
            runId=run,
            boundary="store",
            toTier="stm",
            memoryId=turn,
            version=1,
            sourcePresent=True,
            waitUntilUtc=format_utc(at + wait),
        )
        return run, turn

    def promote(
        self,
        turns: Sequence[str],
        scope: tuple[str, str] = ALICE,
        *,
        status: str = "committed",
        source_present: bool = False,
    ) -> tuple[str, list[str]]:
        """STM -> MTM, one-phase by default (or a `started` / `failed` step): returns (run, pages)."""
        run, pages = uuid7(), []
        for turn in turns:
            page = uuid7()
            pages.append(page)
            self.emit(
                scope,
                runId=run,
                boundary="stm_to_mtm",
                fromTier="stm",
                toTier="mtm",
                memoryId=page,
                version=1,
                derivedFrom=[f"{turn}@1"],
                status=status,
                sourcePresent=source_present,
            )
        return run, pages

    def recall(self, refs: Iterable[tuple[str, int]], scope: tuple[str, str] = ALICE) -> str:
        run = uuid7()
        for memory_id, version in refs:
            self.emit(
                scope, runId=run, boundary="retrieve", fromTier="mtm", memoryId=memory_id, version=version
            )
        return run

    def generate(self, run: str, depends_on: list[str] | None, scope: tuple[str, str] = ALICE) -> None:
        self.emit(scope, runId=run, boundary="generate", dependsOnVersion=depends_on)

    def correct(self, memory_id: str, version: int, scope: tuple[str, str] = ALICE) -> str:
        run = uuid7()
        self.emit(
            scope,
            runId=run,
            boundary="correct",
            toTier="mtm",
            memoryId=memory_id,
            version=version,
            derivedFrom=[f"{memory_id}@{version - 1}"],
        )
        return run

    def evict(self, memory_id: str, tier: str = "mtm", scope: tuple[str, str] = ALICE) -> str:
        run = uuid7()
        self.emit(
            scope,
            runId=run,
            boundary="evict",
            fromTier=tier,
            memoryId=memory_id,
            version=1,
            reason="capacity",
            sourcePresent=False,
        )
        return run

    def healthy_cycle(self, scope: tuple[str, str] = ALICE) -> list[str]:
        """remember two turns, promote them, recall the pages and generate from them."""
        runs, turns = [], []
        for _ in range(2):
            run, turn = self.store(scope)
            runs.append(run)
            turns.append(turn)
        run, pages = self.promote(turns, scope)
        runs.append(run)
        recall = self.recall([(p, 1) for p in pages], scope)
        self.generate(recall, [f"{p}@1" for p in pages], scope)
        runs.append(recall)
        return runs

    def write(self, path: Path, lines: Iterable[bytes] | None = None) -> Path:
        path.write_bytes(b"".join(line + b"\n" for line in (self.lines if lines is None else lines)))
        return path


def later(stream: Stream, hours: float = 2) -> datetime:
    """A `now` past every wait window of the stream so far."""
    return stream.clock + timedelta(hours=hours)
