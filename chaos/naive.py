"""The negative control: a promoter in the reference implementation's order, with honest receipts.

It releases the STM turns and commits that (emitting `started` receipts with `sourcePresent: false`,
which is the truth), and only then builds and commits the MTM pages. A kill between the two loses
the turns. The harness must count them as lost and the auditor must call those runs
`source_at_risk`; a harness that cannot see this failure proves nothing about memoryos.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence

from memoryos import Memory
from memoryos.promotion import StmOutcome, _Placer
from memoryos.store.rows import Unit
from receipts import uuid7

#: The kill opportunity between release and write; hit counting mirrors memoryos failpoints.
HOOK = "naive.after_release"


class NaiveHook:
    """Counts hits of HOOK and SIGKILLs the process on the armed one (0: never)."""

    def __init__(self, kill_at: int = 0) -> None:
        self.kill_at = kill_at
        self.hits = 0

    def __call__(self) -> None:
        self.hits += 1
        if self.hits == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


class NaivePromoter:
    """Replaces Memory.promoter.promote_turns: release-then-write, two transactions."""

    def __init__(self, mem: Memory, hook: NaiveHook) -> None:
        self.mem = mem
        self.hook = hook

    def install(self) -> None:
        # The real promoter keeps distillation and eviction; only the STM -> MTM order changes.
        self.mem.promoter.promote_turns = self.promote_turns  # type: ignore[method-assign]

    def promote_turns(self, turns: Sequence[Unit], now: int) -> StmOutcome:
        if not turns:
            return StmOutcome(0, (), 0)
        run_id = uuid7()
        released = self._release(run_id, turns)
        self.hook()
        return self._write_pages(run_id, released, now)

    def _release(self, run_id: str, turns: Sequence[Unit]) -> list[Unit]:
        """Transaction 1: drop the turns and say so (honestly: the source is gone)."""
        drafts = self.mem.drafts
        with self.mem.store.write("naive_release") as tx:
            released = tx.release_stm(
                turns[0].user_scope, turns[0].assistant_scope, [t.memory_id for t in turns]
            )
            chosen = [t for t in turns if t.memory_id in released]
            for turn in chosen:
                tx.emit(
                    drafts.base(
                        run_id,
                        "stm_to_mtm",
                        "started",
                        turn.user_scope,
                        turn.assistant_scope,
                        fromTier="stm",
                        toTier="mtm",
                        derivedFrom=[turn.ref],
                        sourcePresent=False,
                    )
                )
        return chosen

    def _write_pages(self, run_id: str, turns: list[Unit], now: int) -> StmOutcome:
        """Transaction 2: build the pages from the copies held in this process's memory."""
        if not turns:
            return StmOutcome(0, (), 0)
        promoter = self.mem.promoter
        user, assistant = turns[0].user_scope, turns[0].assistant_scope
        with self.mem.store.write("stm_to_mtm") as tx:
            max_pages = self.mem.config.segment_max_pages
            placer = _Placer(
                promoter._keywords.known(tx, tx.open_segment_heads(user, assistant, max_pages)),
                self.mem.config.segment_similarity,
                max_pages,
            )
            for turn in turns:
                page = promoter._page_for(turn, placer.place(turn, now), run_id, now)
                tx.insert_unit(page)
                tx.emit(self.mem.drafts.promoted(run_id, turn, page))
            promoter.write_segments(tx, placer.finished(), user, assistant, now)
            evicted = promoter._evict_cold_segments(tx, tx.segments(user, assistant), run_id, now)
        return StmOutcome(len(turns), tuple(placer.joined), evicted)
