"""The approval gate: every captured candidate waits here until a person approves or rejects it.

Candidates come from activity events (`observe`) and from reflection (`propose`). They are
deduplicated by `(scope, key)`: while a candidate for a key is pending, proposing the same key again
returns the pending one and stores nothing new. A candidate in which the no-store rule finds a
secret or personal datum is never stored. A kind listed in `Config.auto_approve_kinds` skips the wait:
its candidates are approved as they are proposed (the policy is explicit, and empty by default).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memoryos.errors import InvalidInput, NotFound
from memoryos.logs import get_logger
from memoryos.model import Candidate, Stored
from memoryos.policies import capture, nostore
from memoryos.policies.capture import Event
from memoryos.scope import ScopeKey
from memoryos.settings import Config
from memoryos.store.base import Store
from memoryos.store.rows import CandidateRow
from memoryos.views import candidate_of, candidate_texts
from receipts import uuid7

log = get_logger()
STATUSES = (None, "pending", "approved", "rejected")
#: put(kind, key, body, proof) into the caller's scope: the drawer write an approval makes
Put = Callable[[str, str, str, str | None], Stored]


def event_of(event: Event | Mapping[str, Any]) -> Event:
    if isinstance(event, Event):
        return event
    try:
        return Event.from_mapping(event)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"not an activity event: {exc}") from None


class Gate:
    """Candidates of one store: proposing, listing, approving and rejecting them."""

    def __init__(self, store: Store, config: Config, now: Callable[[], int]) -> None:
        self.store = store
        self.config = config
        self._now = now

    def observe(self, sk: ScopeKey, event: Event | Mapping[str, Any], put: Put) -> Candidate | None:
        """The candidate one activity event is evidence of, pending (or approved by policy), or None
        when it teaches nothing (a failure, a trivial read) or would carry a secret."""
        decision = capture.decide(event_of(event))
        log.info("observed", rule=decision.rule, reason=decision.reason)
        return None if decision.candidate is None else self.propose(sk, decision.candidate, put)

    def propose(self, sk: ScopeKey, found: capture.Candidate, put: Put | None) -> Candidate | None:
        """Store `found` as a pending candidate unless it holds a secret; the pending candidate of
        the same key when there is one already. Without `put` (no host ids at hand) nothing is
        approved by policy."""
        if capture.secret_in(found) or self._holds_secret(found):
            log.info("candidate_dropped", reason="secret")
            return None
        row = CandidateRow(
            uuid7(),
            sk.user,
            sk.assistant,
            found.kind,
            found.key,
            found.body,
            found.proof,
            "pending",
            self._now(),
        )
        with self.store.write("capture") as tx:
            same = [r for r in tx.candidates(sk.user, sk.assistant, "pending") if r.key == found.key]
            if same:
                return candidate_of(same[0])
            tx.insert_candidate(row)
        if put is not None and found.kind in self.config.auto_approve_kinds:
            self.approve(sk, row.candidate_id, put)
            return self.candidate(sk, row.candidate_id)
        return candidate_of(row)

    def _holds_secret(self, found: capture.Candidate) -> bool:
        return any(nostore.scan(t, self.config.no_store_families) for t in candidate_texts(found))

    def candidates(self, sk: ScopeKey, status: str | None) -> list[Candidate]:
        """This scope's candidates, oldest first (status None: all of them)."""
        if status not in STATUSES:
            raise InvalidInput("status must be pending, approved, rejected or None")
        with self.store.read() as tx:
            return [candidate_of(r) for r in tx.candidates(sk.user, sk.assistant, status)]

    def candidate(self, sk: ScopeKey, candidate_id: str) -> Candidate:
        with self.store.read() as tx:
            rows = [r for r in tx.candidates(sk.user, sk.assistant, None) if r.candidate_id == candidate_id]
        if not rows:
            raise NotFound("no candidate with that id in this scope: list them with candidates()")
        return candidate_of(rows[0])

    def approve(self, sk: ScopeKey, candidate_id: str, put: Put) -> Stored:
        """Write a pending candidate into the typed drawer (ADD / UPDATE / REINFORCE as put())."""
        row = self.pending(sk, candidate_id)
        stored = put(row.kind, row.key, row.body, row.proof)
        with self.store.write("capture") as tx:
            tx.decide_candidate(row.candidate_id, "approved", self._now(), stored.memory_id)
        return stored

    def reject(self, sk: ScopeKey, candidate_id: str) -> None:
        """Drop a pending candidate; its content is erased, its id and the decision are kept."""
        row = self.pending(sk, candidate_id)
        with self.store.write("capture") as tx:
            tx.decide_candidate(row.candidate_id, "rejected", self._now(), None)

    def pending(self, sk: ScopeKey, candidate_id: str) -> CandidateRow:
        with self.store.read() as tx:
            rows = [
                r for r in tx.candidates(sk.user, sk.assistant, "pending") if r.candidate_id == candidate_id
            ]
        if not rows:
            raise NotFound("no pending candidate with that id in this scope: list them with candidates()")
        return rows[0]
