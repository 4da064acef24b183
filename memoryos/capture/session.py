"""Session end and reflection: when a session is over, propose what it taught.

A session ends three ways, and each runs the same reflection over a bounded window of its turns
(the newest `REFLECT_TURNS`): `end_session(scope)`, which also moves the session's STM turns into
MTM at once; the idle window, when maintain() promotes a scope's turns because nothing was said for
`stm_idle_seconds`; and `reflect(scope)` on demand. Reflection only proposes: its candidates wait in
the approval gate like those of `observe()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoryos.capture.gate import Gate, Put
from memoryos.capture.model import ExtractiveReflector, ModelReflector
from memoryos.capture.reflect import TurnView
from memoryos.logs import get_logger
from memoryos.model import Candidate
from memoryos.promotion import Promoter
from memoryos.scope import ScopeKey
from memoryos.store.base import Store
from memoryos.store.rows import Unit

log = get_logger()
REFLECT_TURNS = 200


@dataclass(frozen=True)
class Reflection:
    """What one reflection proposed. `degraded`: no model read the session (the extractive rules
    did), so the candidates are shallower; they still wait for approval like any other."""

    candidates: list[Candidate]
    degraded: bool
    turns: int  # how many turns it read


def _views(turns: Sequence[Unit]) -> list[TurnView]:
    return [TurnView(t.role or "user", t.body) for t in turns]


class Sessions:
    def __init__(
        self, store: Store, gate: Gate, promoter: Promoter, reflector: ExtractiveReflector | ModelReflector
    ) -> None:
        self.store = store
        self.gate = gate
        self.promoter = promoter
        self.reflector = reflector

    def turns(self, sk: ScopeKey, now: int) -> list[Unit]:
        """The session's valid turns (STM and MTM), oldest first, the newest REFLECT_TURNS of them;
        without a session, what the scope still holds in STM."""
        with self.store.read() as tx:
            if sk.session is None:
                units = tx.stm_turns(sk.user, sk.assistant)
            else:
                units = [u for u in tx.session_units(sk.user, sk.assistant, sk.session) if u.tier != "lpm"]
        valid = [u for u in units if u.valid_from <= now and (u.valid_until is None or now < u.valid_until)]
        valid.sort(key=lambda u: (u.created_at, u.memory_id))
        return valid[-REFLECT_TURNS:]

    def reflect(self, sk: ScopeKey, put: Put | None, now: int) -> Reflection:
        return self._propose(sk, self.turns(sk, now), put)

    def end(self, sk: ScopeKey, put: Put, now: int) -> Reflection:
        reflection = self.reflect(sk, put, now)
        with self.store.read() as tx:
            held = tx.stm_turns(sk.user, sk.assistant)
        mine = [t for t in held if sk.session is None or t.session == sk.session]
        self.promoter.promote_turns(mine, now)
        return reflection

    def idle(self, turns: Sequence[Unit]) -> int:
        """Reflection over turns the idle window promoted (one scope and session at a time).
        maintain() holds no host ids, so these candidates always wait for approval."""
        groups: dict[tuple[str, str, str | None], list[Unit]] = {}
        for turn in turns:
            groups.setdefault((turn.user_scope, turn.assistant_scope, turn.session), []).append(turn)
        proposed = 0
        for (user, assistant, session), group in sorted(groups.items(), key=lambda g: str(g[0])):
            reflection = self._propose(ScopeKey(user, assistant, session), group[-REFLECT_TURNS:], None)
            proposed += len(reflection.candidates)
        return proposed

    def _propose(self, sk: ScopeKey, turns: Sequence[Unit], put: Put | None) -> Reflection:
        reflected = self.reflector.reflect(_views(turns))
        kept = [c for c in (self.gate.propose(sk, found, put) for found in reflected.candidates) if c]
        log.info("reflected", turns=len(turns), candidates=len(kept), degraded=reflected.degraded)
        return Reflection(kept, reflected.degraded, len(turns))


__all__ = ["REFLECT_TURNS", "Reflection", "Sessions"]
