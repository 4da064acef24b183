"""Do PostgreSQL and SQLite rank alike? The top-5 of recall() on the same corpus and questions (issue 14).

The corpus is bench_recall's generator (several users, sessions of chit-chat with facts stated
once, questions asked later with other words). Every turn goes through remember(at=session time)
and maintain() at each session end, into a SQLite file and into a PostgreSQL database, with the
same fake clock; each question goes through recall(k=5) on both. Memory ids differ between the
two stores (time-ordered, random), so hits are compared through the turns they hold (`source_ids`,
mapped back to the generator's turn ids). Reported: the mean share of the top-5 turns the two have
in common, and the share of questions whose top-5 lists are identical (order included).

    python bench/bench_pg_agreement.py                         # 6 users x 6 sessions, default server
    python bench/bench_pg_agreement.py --users 2 --sessions 3  # a quick slice
    python bench/bench_pg_agreement.py --shape dialogue --conversations 2   # the dialogue corpus
                                       # (bench/dialogue_corpus.py: replies to questions matter there)
    MEMORYOS_TEST_POSTGRES=postgresql://... python bench/bench_pg_agreement.py
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dialogue_corpus
from bench_recall import Conversation, generate

import memoryos
from memoryos.testing import FakeClock

K = 5
START = datetime(2026, 1, 5, 9, tzinfo=UTC)


@dataclass(frozen=True)
class Agreement:
    questions: int
    overlap: float  # mean |top-k(sqlite) ∩ top-k(postgres)| / k-or-fewer
    identical: float  # share of questions with the same top-k, in the same order


def _fill(
    location: str | Path, conversations: Sequence[Conversation | dialogue_corpus.Conversation]
) -> list[list[str]]:
    """Every conversation into one store; each question's top-k turns, as generator turn ids."""
    clock = FakeClock(start=START, tick=timedelta(0))
    ids: dict[str, str] = {}
    with memoryos.open(location, clock=clock, durability="normal") as mem:
        for convo in conversations:
            scope = memoryos.Scope(user=convo.user, assistant="bench")
            for s, turns in enumerate(convo.sessions):
                at = START + timedelta(days=3 * s)
                for i, turn in enumerate(turns):
                    clock.now = at + timedelta(seconds=30 * i)
                    ids[mem.remember(scope, turn.text, role=turn.role, at=clock.now).memory_id] = turn.turn_id
                clock.now = at + timedelta(hours=2)
                mem.maintain(now=clock.now)
        clock.now = START + timedelta(days=3 * max(len(c.sessions) for c in conversations) + 1)
        return [
            _top(mem, memoryos.Scope(user=c.user, assistant="bench"), q.text, ids)
            for c in conversations
            for q in c.questions
        ]


def _top(mem: memoryos.Memory, scope: memoryos.Scope, question: str, ids: dict[str, str]) -> list[str]:
    flat: list[str] = []
    for hit in mem.recall(scope, question, k=K).hits:
        flat.extend(ids.get(s, s) for s in hit.source_ids)
    return list(dict.fromkeys(flat))[:K]


def compare(sqlite: Sequence[Sequence[str]], postgres: Sequence[Sequence[str]]) -> Agreement:
    overlaps = [
        len(set(a) & set(b)) / max(len(a), len(b)) if (a or b) else 1.0
        for a, b in zip(sqlite, postgres, strict=True)
    ]
    same = [list(a) == list(b) for a, b in zip(sqlite, postgres, strict=True)]
    return Agreement(len(overlaps), sum(overlaps) / len(overlaps), sum(same) / len(same))


def measure(users: int, sessions: int, pg_url: str, seed: int = 7, dialogues: int = 0) -> Agreement:
    """On bench_recall's facts corpus, or with `dialogues`, on that many dialogue_corpus conversations."""
    conversations: Sequence[Conversation | dialogue_corpus.Conversation] = (
        dialogue_corpus.generate(dialogues, random.Random(seed))
        if dialogues
        else generate(users, sessions, random.Random(seed))
    )
    with tempfile.TemporaryDirectory() as folder:
        on_sqlite = _fill(Path(folder) / "agreement.db", conversations)
    return compare(on_sqlite, _fill(pg_url, conversations))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=["facts", "dialogue"], default="facts")
    parser.add_argument(
        "--conversations", type=int, default=2, help="dialogue conversations (--shape dialogue)"
    )
    args = parser.parse_args()
    from tests.pg_server import drop_database, fresh_database

    url = fresh_database()
    try:
        dialogues = args.conversations if args.shape == "dialogue" else 0
        found = measure(args.users, args.sessions, url, args.seed, dialogues)
    finally:
        drop_database(url)
    print(
        f"{found.questions} questions, top-{K}: {found.overlap:.1%} of ids in common,"
        f" {found.identical:.1%} of lists identical"
    )


if __name__ == "__main__":
    main()
