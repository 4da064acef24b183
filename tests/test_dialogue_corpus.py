"""bench/dialogue_corpus.py: LoCoMo-shaped conversations, annotated with the evidence turns."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
import dialogue_corpus  # bench/ is not a package


def _conversations(seed: int = 1) -> list[dialogue_corpus.Conversation]:
    return dialogue_corpus.generate(3, random.Random(seed))


def test_each_conversation_is_two_speakers_over_dated_sessions_of_about_550_turns() -> None:
    for convo in _conversations():
        turns = [t for s in convo.sessions for t in s]
        assert 20 <= len(convo.sessions) <= 30
        assert convo.dates == sorted(convo.dates) and len(convo.dates) == len(convo.sessions)
        assert 400 <= len(turns) <= 700
        speakers = {t.text.split(":", 1)[0] for t in turns}
        assert len(speakers) == 2
        for session in convo.sessions:  # the speakers take turns
            assert all(a.role != b.role for a, b in itertools.pairwise(session))


def test_questions_name_the_speaker_whose_own_turns_are_the_evidence() -> None:
    for convo in _conversations():
        text = {t.turn_id: t.text for s in convo.sessions for t in s}
        for question in convo.questions:
            assert len(question.evidence) == question.hops
            speaker = next(name for name in dialogue_corpus.NAMES if name in question.text)
            assert all(text[e].startswith(f"{speaker}: ") for e in question.evidence)


def test_an_answer_to_the_other_speakers_question_is_the_evidence_not_the_question() -> None:
    convo = _conversations()[0]
    turns = [t for s in convo.sessions for t in s]
    research = next(q for q in convo.questions if "research" in q.text)
    (evidence,) = research.evidence
    at = next(i for i, t in enumerate(turns) if t.turn_id == evidence)
    assert "researching" in turns[at - 1].text and "research" not in turns[at].text.lower()


def test_the_same_seed_makes_the_same_corpus() -> None:
    first, again = _conversations(7), _conversations(7)
    assert [[t.text for t in s] for c in first for s in c.sessions] == [
        [t.text for t in s] for c in again for s in c.sessions
    ]


def test_a_written_corpus_loads_as_dialogue_conversations(tmp_path: Path) -> None:
    """bench_recall.py --corpus: turns as "Speaker: text" with the first speaker as the user, dates
    per session, multi-hop by evidence sessions, and an adversarial question without evidence left out."""
    import json

    import bench_recall

    corpus = {
        "conversations": [
            {
                "id": "c1",
                "speakers": ["Ana", "Ben"],
                "sessions": [
                    {
                        "id": "c1-s1",
                        "date": "2026-01-04T19:30:00Z",
                        "turns": [
                            {"id": "c1-s1-t1", "speaker": "Ana", "text": "I started pottery."},
                            {"id": "c1-s1-t2", "speaker": "Ben", "text": "Nice!"},
                        ],
                    },
                    {
                        "id": "c1-s2",
                        "date": "2026-02-01T10:00:00Z",
                        "turns": [{"id": "c1-s2-t1", "speaker": "Ben", "text": "My sister is a nurse."}],
                    },
                ],
                "questions": [
                    {
                        "id": "q1",
                        "question": "What did Ana start?",
                        "evidence": ["c1-s1-t1"],
                        "category": "single-hop",
                    },
                    {
                        "id": "q2",
                        "question": "?",
                        "evidence": ["c1-s1-t1", "c1-s2-t1"],
                        "category": "multi-hop",
                    },
                    {"id": "q3", "question": "Did Ben ski?", "evidence": [], "category": "adversarial"},
                ],
            }
        ]
    }
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(corpus), encoding="utf-8")
    (convo,) = bench_recall.load_corpus(path)
    first, second = convo.sessions
    assert [t.text for t in first] == ["Ana: I started pottery.", "Ben: Nice!"]
    assert [t.role for t in first + second] == ["user", "assistant", "assistant"]
    assert [d.isoformat() for d in convo.dates] == ["2026-01-04T19:30:00+00:00", "2026-02-01T10:00:00+00:00"]
    assert [(q.evidence, q.hops, q.kind) for q in convo.questions] == [
        ({"c1-s1-t1"}, 1, "single-hop"),
        ({"c1-s1-t1", "c1-s2-t1"}, 2, "multi-hop"),
    ]
