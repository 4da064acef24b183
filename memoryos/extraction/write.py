"""Writing what extraction found, reconciled with what the scope knows (memoryos.extraction.reconcile).

Runs inside the distillation's commit transaction (memoryos.promotion), so every outcome commits
with its receipt: ADD inserts a record; UPDATE inserts a new version of the matched record (same
memory id and key, version + 1) and supersedes the old one, which stays in history, and the new
version's receipt lists the old version in `derivedFrom` with the pages; REINFORCE adds one to the
matched record's count and writes no duplicate, and so does every further record the item
restates (Outcome.also), at most once per (turn, record). What it reads is bounded: the scope's records of
the three knowledge lists (each capped at `lpm_list_capacity`) and the versions of one key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from memoryos.extraction import reconcile
from memoryos.extraction.handlers import Restatement
from memoryos.extraction.propose import Proposed, known_units, known_view, rules_decision, subject_unit
from memoryos.logs import get_logger
from memoryos.policies.distill import Distilled, content_hash
from memoryos.store.base import Transaction
from memoryos.store.rows import Unit
from receipts import uuid7

log = get_logger()


class TypedWriter:
    """Writes one distillation's typed items. What the scope knows is read once, when the first
    item comes, and kept up to date as items are written, so a pass reads the knowledge lists once
    however many items it writes (and a later item of the batch sees the earlier ones)."""

    def __init__(self, tx: Transaction, run_id: str, user: str, assistant: str, now: int) -> None:
        self.tx, self.run_id, self.user, self.assistant, self.now = tx, run_id, user, assistant, now
        self._known: dict[str, Unit] | None = None
        self._restated: set[tuple[tuple[str, ...], str]] = set()  # (turns, memory id) reinforced

    def known(self, subject: str | None) -> dict[str, Unit]:
        """The scope's live keyed records by ref: the knowledge lists', and the one under
        `subject` (whatever its list or kind: one active value per key)."""
        if self._known is None:
            self._known = {u.ref: u for u in known_units(self.tx, self.user, self.assistant, set())}
        if subject is not None and not any(u.key == subject for u in self._known.values()):
            current = subject_unit(self.tx, self.user, self.assistant, subject)
            if current is not None:
                self._known[current.ref] = current
        return self._known

    def write(self, item: Distilled) -> list[tuple[Unit, tuple[str, ...]]]:
        """Reconcile one typed item and write the outcome; returns each unit written (its receipt
        is about it) with the refs that receipt derives it from: none when the item only restates
        records this turn already restated."""
        kind = item.kind or "semantic"
        known = self.known(item.subject)
        views = [known_view(u) for u in known.values()]
        decided = rules_decision(item, views)
        # The model was asked before this pass wrote anything: a record this pass wrote (an earlier
        # turn of the same snapshot) was never offered to it, so the rules decide about it.
        fresh = decided.match is not None and known[decided.match.ref].run_id == self.run_id
        outcome = (None if fresh else _checked(item, kind, views, decided)) or decided
        log.info("reconciled", action=outcome.action, rule=outcome.rule)
        if outcome.match is None:
            unit = _add(
                self.tx,
                self.run_id,
                item,
                kind,
                outcome.key,
                user=self.user,
                assistant=self.assistant,
                now=self.now,
            )
            written = self._settled(item, known, outcome, [(unit, item.derived_from)])
        else:
            written = self._settled(item, known, outcome, self._matched(item, known, outcome.match, outcome))
        if item.subject is not None and kind == "semantic" and item.list_name != "assistant_knowledge":
            written += self._beside(item, known)
        return written

    def _beside(self, item: Distilled, known: dict[str, Unit]) -> list[tuple[Unit, tuple[str, ...]]]:
        """What a statement of one subject says of the others (reconcile rule 4, beside rule 1):
        "I sold the Buick, so I walk everywhere now" states the commute and retires the car (an
        UPDATE of it); "we moved to Leith with Biscuit" restates the dog. Never the item's own
        subject, and never a fact of the same turn."""
        views = [known_view(u) for u in known.values() if u.key != item.subject]
        found = reconcile.mention_outcome(item.body, views, item.source_ids, by_word=False)
        if found is None or found.match is None or found.match.ref not in known:
            return []
        return self._settled(item, known, found, self._matched(item, known, found.match, found))

    def _matched(
        self, item: Distilled, known: dict[str, Unit], match: reconcile.Known, outcome: reconcile.Outcome
    ) -> list[tuple[Unit, tuple[str, ...]]]:
        """The UPDATE or REINFORCE of the record an outcome matched."""
        if outcome.action == "update":
            return [_update(self.tx, self.run_id, item, known.pop(match.ref), self.now)]
        return self._reinforce(item, known, match)

    def _settled(
        self,
        item: Distilled,
        known: dict[str, Unit],
        outcome: reconcile.Outcome,
        written: list[tuple[Unit, tuple[str, ...]]],
    ) -> list[tuple[Unit, tuple[str, ...]]]:
        """`written` and a REINFORCE of each other record the outcome restates; `known` then holds
        the versions written, for the next item of the pass."""
        for also in outcome.also:
            if also.ref in known:
                written += self._reinforce(item, known, also)
        for unit, _ in written:
            known[unit.ref] = unit
        return written

    def restate(self, item: Distilled) -> list[tuple[Unit, tuple[str, ...]]]:
        """An untyped digest of a user's turn is written as before (memoryos.promotion), and the
        active facts it mentions are REINFORCEd (reconcile rule 4, mentions only: a digest retires
        nothing, since it is not read as a statement of its own)."""
        if item.list_name == "assistant_knowledge":
            return []
        known = self.known(None)
        views = [known_view(u) for u in known.values()]
        found = reconcile.mention_outcome(item.body, views, item.source_ids)
        if found is None or found.action != "reinforce" or found.match is None:
            return []
        written = []
        for target in (found.match, *found.also):
            if target.ref in known:
                written += self._reinforce(item, known, target)
        for unit, _ in written:
            known[unit.ref] = unit
        return written

    def _reinforce(
        self, item: Distilled, known: dict[str, Unit], target: reconcile.Known
    ) -> list[tuple[Unit, tuple[str, ...]]]:
        """Count +1 on `target`, once per (turn, record): a turn restating a fact twice (two
        sentences, or two kinds of one sentence) is one restatement."""
        current = known[target.ref]
        said = (item.source_ids, current.memory_id)
        if item.source_ids and said in self._restated:
            return []
        self._restated.add(said)
        known.pop(target.ref)
        count = current.reinforced + 1
        self.tx.update_unit(current.rowid or 0, reinforced=count, last_seen=self.now, status="active")
        return [(replace(current, reinforced=count, last_seen=self.now, status="active"), item.derived_from)]


def _checked(
    item: Distilled, kind: str, known: list[reconcile.Known], decided: reconcile.Outcome | None = None
) -> reconcile.Outcome | None:
    """The model's proposal for `item` as an outcome, if it still keeps the invariants now, in the
    transaction: its target is a live record, and an ADD makes no second active record of a key.
    None (the deterministic decision) otherwise: the model never makes up a write."""
    proposal = item.proposal if isinstance(item, Proposed) else None
    if proposal is None:
        return None
    if decided is not None and (proposal.action, proposal.target) == (
        decided.action,
        None if decided.match is None else decided.match.ref,
    ):
        return None  # the rules' own decision, with the further records it restates (Outcome.also)
    if proposal.action == "add":
        key = item.subject or reconcile.new_key(kind, item.body)
        if any(k.key == key for k in known):
            log.info("proposal_refused", reason="add_of_a_known_key")
            return None
        return reconcile.Outcome("add", key, None, "model")
    target = next((k for k in known if k.ref == proposal.target and k.key is not None), None)
    # a keyed item changes only its own subject's record: a home is no employer's new version
    if target is None or target.key is None or item.subject not in (None, target.key):
        log.info("proposal_refused", reason="target_not_live" if target is None else "another_subject")
        return None
    return reconcile.Outcome(proposal.action, target.key, target, "model")


def distilled_unit(
    item: Distilled, run_id: str, kind: str, key: str | None, *, user: str, assistant: str, now: int
) -> Unit:
    """A new LPM record (version 1) of a distilled item: promotion's untyped lists and typed items."""
    return Unit(
        memory_id=uuid7(),
        version=1,
        tier="lpm",
        user_scope=user,
        assistant_scope=assistant,
        body=item.body,
        created_at=now,
        valid_from=now,
        last_seen=now,
        run_id=run_id,
        list=item.list_name,
        key=key,
        kind=kind,
        source_ids=item.source_ids,
        derived_from=item.derived_from,
        content_hash=content_hash(item.body),
    )


def _add(
    tx: Transaction, run_id: str, item: Distilled, kind: str, key: str, *, user: str, assistant: str, now: int
) -> Unit:
    unit = distilled_unit(item, run_id, kind, key, user=user, assistant=assistant, now=now)
    return replace(unit, rowid=tx.insert_unit(unit))  # a later item of the batch may update it


def _update(
    tx: Transaction, run_id: str, item: Distilled, current: Unit, now: int
) -> tuple[Unit, tuple[str, ...]]:
    """A new version of `current`; the old one superseded, valid until now, kept in history."""
    closes = now if current.valid_until is None else min(current.valid_until, now)
    tx.update_unit(current.rowid or 0, status="superseded", valid_until=max(closes, current.valid_from + 1))
    derived = (current.ref, *item.derived_from)
    unit = Unit(
        memory_id=current.memory_id,
        version=current.version + 1,
        tier="lpm",
        user_scope=current.user_scope,
        assistant_scope=current.assistant_scope,
        session=current.session,
        body=item.body,
        created_at=now,
        valid_from=max(now, current.valid_from + 1),
        last_seen=now,
        run_id=run_id,
        list=current.list or item.list_name,
        key=current.key,
        kind=current.kind or item.kind,
        confidence=current.confidence,
        source_ids=item.source_ids,
        derived_from=derived,
        content_hash=content_hash(item.body),
    )
    unit = replace(unit, rowid=tx.insert_unit(unit))  # a later item of the batch may update it
    return unit, derived


def write_all(
    typed: TypedWriter, items: list[Distilled], untyped: Callable[[Distilled], tuple[Unit, tuple[str, ...]]]
) -> list[tuple[tuple[Unit, tuple[str, ...]], Distilled]]:
    """Every item of a distillation written, each unit with the item it came from (its receipt):
    a typed item reconciled (none, one or several units), an untyped one by `untyped` (the
    promoter's digest record) after the facts it mentions are reinforced."""
    out = []
    for item in items:
        if isinstance(item, Restatement):
            done = typed.restate(item)
        else:
            done = typed.write(item) if item.keyed else [*typed.restate(item), untyped(item)]
        out += [(unit, item) for unit in done]
    return out
