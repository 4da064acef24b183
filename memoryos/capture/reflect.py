"""Reflection without a model: the persistent things a session taught, read off its turns.

A table of named sentence rules, evaluated by pure functions, each turning one sentence of a turn
into a candidate the approval gate then holds:

- `rule`: a user's standing instruction ("never touch PROD"), as `observe()` reads instructions;
- `capability`: a statement that something can be done here ("this PC can deploy blyck") or a
  report that it was done ("deployed blyck to s3://blyck-releases");
- `procedure`: how to do something ("to release, run `make release`"), or a command in backticks
  that the sentence says worked;
- `fact`: a first-person statement of a lasting fact ("my home airport is SFO").

It is deterministic and shallow, so what it proposes is labelled degraded: a model, when one is
configured, reads the session instead (memoryos.capture.model) and this is its fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from memoryos.policies import capture, subjects
from memoryos.policies.capture import Candidate, Event, slug
from memoryos.policies.text import sentences

PROOF = "session reflection (extractive)"
MAX_SENTENCE = 300  # a longer sentence is prose, not a statement of one fact
MAX_CANDIDATES = 50  # per reflection: it reads a bounded window of turns


@dataclass(frozen=True)
class TurnView:
    role: str
    text: str


_MACHINE = r"(?:this|the|my|our)\s+(?:pc|machine|computer|laptop|box|host|server|workstation|runner)"
_ABLE = r"(?:can(?:\s+now)?|is\s+able\s+to|has\s+(?:the\s+)?(?:access|credentials|rights|permission)\s+to)"
_CAN = re.compile(
    rf"\b(?:{_MACHINE}|i|we|you)\s+{_ABLE}\s+(?P<verb>deploy|release|ship|publish|connect\s+to|ssh\s+(?:in)?to|"
    r"access|log\s+in(?:to|\s+to)|push\s+to)\s+(?P<what>[^.;!?]+)",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"\b(?:i\s+|we\s+|just\s+|successfully\s+)*(?P<verb>deployed|released|shipped|published)\s+"
    r"(?P<what>[^.;!?]+)",
    re.IGNORECASE,
)
_NOT = re.compile(r"\b(?:not|never|cannot|can't|couldn't|failed|unable)\b", re.IGNORECASE)
_VERB = {"deploy": "deploy", "release": "deploy", "ship": "deploy", "publish": "publish"}
_BACKTICKED = re.compile(r"`([^`\n]{2,300})`")
_PURPOSE = re.compile(
    r"\bto\s+(?P<purpose>[a-z][\w\s/.-]{1,60}?)\s*,?\s+(?:just\s+)?(?:run|use|type|execute)\s+`"
    r"|\b(?:run|use|execute)\s+`[^`]+`\s+to\s+(?P<after>[a-z][\w\s/.-]{1,60})",
    re.IGNORECASE,
)
_WORKED = re.compile(r"\b(?:worked|works|succeeded|passed|done|ok|fine|green)\b", re.IGNORECASE)
_FACT = re.compile(
    r"^(?:(?:btw|fyi|also|and|so|note|oh|update|reminder|correction|actually)[,:]?\s+|[\w ]{1,30}[,:]\s+)?"
    r"my\s+(?P<subject>(?:[\w-]+\s+){0,3}?[\w-]+)\s+"
    r"(?:is|are|was changed to|has changed to)\s+(?P<value>.+)$",
    re.IGNORECASE,
)


def _clean(sentence: str) -> str:
    return " ".join(sentence.split()).strip()


_PLACE = frozenset("to with using via on from into in at for through by".split())


def _object(what: str) -> str:
    """What a capability acts on: its words up to where and how ('blyck' of 'blyck to S3 with
    make'), at most six, without 'now' or 'too'."""
    words = re.sub(r"\b(?:now|too|again|as well)\b", " ", what, flags=re.IGNORECASE).split()
    cut = next((i for i, w in enumerate(words) if i and w.lower() in _PLACE), len(words))
    return " ".join(words[:cut][:6])


def capability(sentence: str) -> Candidate | None:
    found = _CAN.search(sentence) or _DONE.search(sentence)
    if found is None or _NOT.search(sentence[: found.start() + 1] + found.group(0)):
        return None
    verb = found.group("verb").lower().split()[0].removesuffix("ed").removesuffix("d")
    action = _VERB.get(verb, "connect")
    what = _object(found.group("what"))
    if not what:
        return None
    return Candidate("capability", f"{action}:{slug(what)}", sentence, PROOF)


def procedure(sentence: str) -> Candidate | None:
    commands = _BACKTICKED.findall(sentence)
    if not commands:
        return None
    purpose = _PURPOSE.search(sentence)
    if purpose is not None:
        goal = (purpose.group("purpose") or purpose.group("after") or "").strip()
        return Candidate("procedure", f"how:{slug(goal)}", sentence, PROOF)
    if _WORKED.search(sentence) and not _NOT.search(sentence):
        found = capture.classify(Event("command", command=commands[0], exit_status=0))
        return None if found is None else replace(found, proof=PROOF)
    return None


def rule(sentence: str) -> Candidate | None:
    instruction = capture.imperative(sentence)
    if instruction is None:
        return None
    return Candidate("rule", f"rule:{slug(instruction)}", instruction, PROOF)


def fact(sentence: str) -> Candidate | None:
    """A fact keyed as extraction keys it (memoryos.policies.subjects): "my favourite editor is X"
    and an extracted "my favorite editor is X" are one key, `fact:favorite-editor`. A passing
    condition ("my phone is dead") is no fact (subjects.condition)."""
    found = _FACT.match(sentence)
    if found is not None and not subjects.condition(found.group("value")):
        return Candidate("fact", subjects.subject_key(found.group("subject")), sentence, PROOF)
    stated = subjects.profile_facts(sentence)
    if stated:
        return Candidate("fact", stated[0][0], sentence, PROOF)
    return None


@dataclass(frozen=True)
class SentenceRule:
    name: str
    roles: frozenset[str]
    build: Callable[[str], Candidate | None]


# First match wins per sentence: an instruction is a rule even when it names a command.
SENTENCE_RULES: tuple[SentenceRule, ...] = (
    SentenceRule("rule", frozenset({"user"}), rule),
    SentenceRule("procedure", frozenset({"user", "assistant"}), procedure),
    SentenceRule("capability", frozenset({"user", "assistant"}), capability),
    SentenceRule("fact", frozenset({"user"}), fact),
)


def _sentences(text: str) -> Iterable[str]:
    for sentence in sentences(text):
        cleaned = _clean(sentence)
        if 0 < len(cleaned) <= MAX_SENTENCE:
            yield cleaned


def candidate_of(role: str, sentence: str) -> Candidate | None:
    for entry in SENTENCE_RULES:
        if role in entry.roles:
            found = entry.build(sentence)
            if found is not None:
                return found
    return None


def reflect(turns: Sequence[TurnView]) -> list[Candidate]:
    """Candidates from these turns (oldest first); a later statement of a key replaces an earlier
    one, so a session that changed its mind proposes what it ended with."""
    by_key: dict[str, Candidate] = {}
    for turn in turns:
        for sentence in _sentences(turn.text):
            found = candidate_of(turn.role, sentence)
            if found is not None:
                by_key.pop(found.key, None)
                by_key[found.key] = found
    return list(by_key.values())[-MAX_CANDIDATES:]
