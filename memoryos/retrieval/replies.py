"""Replies: the other speaker's answer to a matching question is a hit of its own (README "Recall").

"What have you been researching lately?" -> "Adoption agencies, mostly." The answer holds none of
the query's words, the question does. When one of the best hits is a turn that asks something,
the turn its scope stored next (by insertion order, read through the store's index of the scope's
turns: SearchIndex.next_turns) is its reply if another role wrote it within REPLY_WINDOW_US and it
is valid now; it is then ranked at REPLY_SHARE of the question's score (or at its own score, if it
matched the query on its own words and that is better). Only the caller's scope is read.
"""

from __future__ import annotations

from collections.abc import Sequence

from memoryos.store.base import SearchIndex
from memoryos.store.rows import Hit, Unit

# Chosen before any benchmark run (no tuning): below 1, a reply never outranks its question, and
# at one half a reply ranks with the better direct matches of weaker questions.
REPLY_SHARE = 0.5
REPLY_WINDOW_US = 10 * 60 * 1_000_000  # a reply comes within ten minutes of its question
TURN_TIERS = ("stm", "mtm")


def asks(unit: Unit) -> bool:
    """Whether a unit is a turn that asks something: its reply may answer it in other words."""
    return unit.tier in TURN_TIERS and len(unit.source_ids) <= 1 and "?" in unit.body


def replies_to(reply: Unit, question: Unit, moment: int) -> bool:
    """Whether `reply`, the turn stored next in the question's scope, is the other speaker's answer
    to it: a turn of that scope and session, active or stale and valid at `moment`, by another role,
    soon after."""
    return (
        reply.tier in TURN_TIERS
        and len(reply.source_ids) <= 1
        and (reply.user_scope, reply.assistant_scope) == (question.user_scope, question.assistant_scope)
        and reply.session == question.session  # two sessions of one pair interleave: not an answer
        and reply.status in ("active", "stale")
        and reply.valid_from <= moment
        and (reply.valid_until is None or moment < reply.valid_until)
        and reply.role != question.role
        and 0 <= reply.created_at - question.created_at <= REPLY_WINDOW_US
    )


def replies(
    index: SearchIndex, user: str, assistant: str, found: Sequence[Hit], moment: int
) -> list[tuple[Unit, float]]:
    """The reply to each question turn among `found`, with its score (REPLY_SHARE of the question's)."""
    asked = [h for h in found if h.unit.rowid is not None and asks(h.unit)]
    if not asked:
        return []
    known = {h.unit.rowid: h.unit for h in found if h.unit.rowid is not None}
    following = index.next_turns(
        user, assistant, [h.unit.rowid for h in asked if h.unit.rowid is not None], known
    )
    answered = []
    for hit in asked:
        reply = following.get(hit.unit.rowid or 0)
        if reply is not None and replies_to(reply, hit.unit, moment):
            answered.append((reply, REPLY_SHARE * hit.score))
    return answered


def with_replies(
    units: Sequence[Unit], scores: Sequence[float], answered: Sequence[tuple[Unit, float]]
) -> tuple[list[Unit], list[float]]:
    """The ranked units with the replies added after them; a reply that also matched on its own
    words keeps the better of its two scores."""
    best = dict(zip((u.ref for u in units), scores, strict=True))
    ranked = {u.ref for u in units}
    extra: dict[str, Unit] = {}
    for unit, score in answered:
        if score > best.get(unit.ref, 0.0):
            best[unit.ref] = score
        if unit.ref not in ranked:
            extra.setdefault(unit.ref, unit)
    merged = [*units, *extra.values()]
    return merged, [best[u.ref] for u in merged]
