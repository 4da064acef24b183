"""Reconciliation of an extracted item with what the scope already knows: ADD, UPDATE or REINFORCE.

Matching is deterministic, and these are its rules, in order:

1. **Same subject key.** An item whose subject is known ("my home airport is …" has the subject
   `fact:home-airport`) matches the active record under that key, whatever its kind: one active
   value per key (DESIGN §7), so an approved `fact:home-airport` and an extracted one are one fact.
2. **Same kind and lexical similarity**, for an item without a subject key only (an item with one
   that has no record under it is an ADD: a sentence may state two subjects, and its words alike
   are no reason to take one subject's record for the other's). It matches the active record of the
   same kind whose content words overlap most with its own, if that overlap (Jaccard, over
   lower-cased words without stopwords) is at least `SIMILAR` (0.6).

A matched item **REINFORCEs** the record when what they say is the same (a restatement), and
**UPDATEs** it otherwise (a change: a new version of the record, the old one superseded and kept in
history). Under a subject key, what they say is the value the extractor read ("Reminder: I live
in Austin" and "I moved to Austin last month" both say {austin}), or the words after the subject;
otherwise it is all their content words. Words are compared stemmed (memoryos.retrieval.terms:
"vegans" says "vegan"), without stopwords and without FILLER (words that mark a restatement, a
change or a time, not a value: "now", "still", "these days"). Two values are the same when one's
words contain the other's ("Logan" restates "Boston Logan"), unless exactly one of them is negated
("not vegetarian").

Before an ADD, two more rules (memoryos.policies.mentions says how a value is marked and
mentioned):

3. **Same value.** An item that states a subject with no record yet, but whose value equals
   (normalised words) the table value of an active fact, REINFORCEs that fact: one sentence or
   two that name one value under two subjects make one record, not two.
4. **Value mention**, for a user's item that states no subject of its own (no table subject: an
   unkeyed fact, an episode, a category): if it **retires** the value of an active fact ("goodbye
   Tableau", "the bike is retired now"), it UPDATEs that fact (the new version is this statement);
   every other active fact whose current value it mentions is REINFORCEd, and no new record is
   written. A fact of a thing one owns (OWNED: a pet, a car, a phone, a job) is retired by its noun
   too ("we had to give away the dog" retires `fact:dog` whatever the dog's name). A fact is
   never reinforced by the turn that stated it, nor twice by one turn (memoryos.extraction.write),
   and a superseded value mentioned reinforces nothing: only the current versions are matched.
   Hypothetical and temporary sentences retire nothing.
   A user's statement that has a subject of its own is read by this rule too, after rule 1, for
   the *other* facts it names (memoryos.extraction.write: "I sold the Buick, so I walk everywhere
   now" states the commute and retires the car), its "moved X to" cue aside; and every user
   sentence no item holds is read for the facts it mentions (memoryos.extraction.typed).

An item that matches nothing is an **ADD**, under its subject key, or a key made from its first
words. Subject keys and values come from memoryos.policies.subjects.

With a model, the model may propose the action instead (memoryos.extraction.propose): it chooses
among the records offered to it, and a proposal that fails a check is this module's decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from memoryos.policies import mentions
from memoryos.policies.capture import slug
from memoryos.policies.subjects import SUBJECT_ALIASES, profile_facts
from memoryos.policies.text import STOPWORDS, tokens
from memoryos.retrieval.terms import stem

SIMILAR = 0.6
#: Words that mark a restatement or a change, not what is stated: "now OAK" restates "OAK". "day"
#: is not one: it is a value in "day shift" (not "night shift"), and "vegan these days" still holds
#: "vegan" by containment.
FILLER = frozenset(
    "now still again actually currently really anymore since meanwhile already new changed change "
    "moved switched updated became become usually mostly always almost normally typically generally "
    "reminder recently finally just these days week weeks month months year years ago last today "
    "yesterday lately anyway too also".split()
)
NEGATION = frozenset("not no never don't doesn't isn't aren't wasn't longer".split())
KEY_PREFIX = {"semantic": "fact", "episodic": "episode", "procedural": "how", "taxonomic": "taxonomy"}
Action = Literal["add", "update", "reinforce"]


@dataclass(frozen=True)
class Known:
    """An active record of the scope as matching sees it."""

    ref: str
    key: str | None
    kind: str
    body: str
    turns: tuple[str, ...] = ()  # the turns it was read from: a turn never restates its own fact
    list_name: str = ""

    @cached_property  # asked once per item matched against it: read the tables once per record
    def value(self) -> str | None:
        """Its value as the subject tables read it, if they do."""
        return dict(profile_facts(self.body)).get(self.key or "")

    @property
    def is_fact(self) -> bool:
        """A fact the user stated: what a later mention restates or retires."""
        return self.kind == "semantic" and self.list_name != "assistant_knowledge" and bool(self.key)


@dataclass(frozen=True)
class Outcome:
    action: Action
    key: str
    match: Known | None = None  # the record updated or reinforced
    rule: str = "new"  # which matching rule decided: subject, similar, value, mention, retired or new
    also: tuple[Known, ...] = ()  # further records the item restates (rule 4): each reinforced


def _said_words(words: Sequence[str]) -> frozenset[str]:
    """The stemmed words that carry a value: no stopword, no filler, no single letter; a negation
    is kept (as "not"), so that "not vegetarian" never restates "vegetarian"."""
    out = {"not" for w in words if w in NEGATION}
    # a single digit is a value ("June 3" is not "June 17"); a single letter is not
    out.update(
        stem(w, "english")
        for w in words
        if w not in STOPWORDS and w not in FILLER and (len(w) > 1 or w.isdigit())
    )
    return frozenset(out)


def content_words(text: str) -> frozenset[str]:
    return _said_words(tokens(text))


def same_value(left: frozenset[str], right: frozenset[str]) -> bool:
    """One value restates the other: equal, or one's words contain the other's, negated alike."""
    if ("not" in left) != ("not" in right) or not left or not right:
        return left == right
    return left <= right or right <= left


def similarity(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def value_words(body: str, key: str | None) -> frozenset[str]:
    """What a statement says about its subject: its content words after the subject's last word
    ("my home airport is now OAK" under `fact:home-airport`: {oak}); all of them when the body does
    not name the subject."""
    subject = [w for w in re.split(r"[-:]", key.split(":", 1)[-1]) if w] if key else []
    words = tokens(body)
    last = max((i for i, w in enumerate(words) if subject and w == subject[-1]), default=-1)
    if last < 0:
        return content_words(body)
    return _said_words(words[last + 1 :])


def new_key(kind: str, body: str) -> str:
    return f"{KEY_PREFIX.get(kind, kind)}:{slug(body, 40)}"


ValueOf = Callable[[str, str], frozenset[str] | None]  # (body, subject key) -> value words


def _said(body: str, key: str, value_of: ValueOf | None) -> frozenset[str]:
    value = None if value_of is None else value_of(body, key)
    return _said_words(sorted(value)) if value is not None else value_words(body, key)


def same_value_fact(body: str, subject: str, known: Sequence[Known]) -> Known | None:
    """Rule 3: the active fact of another subject whose table value is this item's value."""
    value = dict(profile_facts(body)).get(subject)
    if value is None:
        return None
    said = _said_words(tokens(value))
    for record in known:
        other = record.value if record.is_fact and record.key != subject else None
        if other is not None and said and _said_words(tokens(other)) == said:
            return record
    return None


#: Subjects that are a thing one owns, one at a time: a retirement cue before "the dog", "my car",
#: "my job" retires the record of that subject whatever its value (rule 4).
OWNED = frozenset(
    {"dog", "cat", "pet", "car", "truck", "bike", "phone", "laptop", "tablet", "computer", "employer"}
)


def owned_nouns(key: str) -> tuple[str, ...]:
    """The nouns that name an owned subject's thing: its own word and its one-word synonyms
    (SUBJECT_ALIASES: "job" and "company" name `fact:employer`)."""
    subject = key.partition(":")[2]
    if subject not in OWNED:
        return ()
    synonyms = [alias for alias, target in SUBJECT_ALIASES.items() if target == subject and "-" not in alias]
    return (subject, *synonyms) if subject != "employer" else tuple(synonyms)


def mention_outcome(
    body: str, known: Sequence[Known], turns: tuple[str, ...], *, by_word: bool = True
) -> Outcome | None:
    """Rule 4: the facts a subject-less user statement retires (UPDATE) or mentions (REINFORCE).
    `by_word` False: "moved X to ..." retires nothing (a statement with a subject of its own, whose
    move is its own subject's: "I moved choir to Fridays" is the schedule, not the choir)."""
    facts = [k for k in known if k.is_fact and k.key and not set(k.turns) & set(turns)]
    retiring, restated = [], []
    for record in facts:
        marks = mentions.marks(record.value, record.body)
        body_words = content_words(record.body) if by_word else frozenset()
        if mentions.retired(body, marks, body_words, owned_nouns(record.key or "")):
            retiring.append(record)
        elif mentions.mentioned(body, marks) is not None:
            restated.append(record)
    if retiring:
        first = retiring[0]
        return Outcome("update", first.key or "", first, "retired", tuple(restated))
    if restated:
        return Outcome("reinforce", restated[0].key or "", restated[0], "mention", tuple(restated[1:]))
    return None


def decide(
    kind: str,
    subject: str | None,
    body: str,
    known: Sequence[Known],
    value_of: ValueOf | None = None,
    *,
    user: bool = True,
    turns: tuple[str, ...] = (),
) -> Outcome:
    """ADD, UPDATE or REINFORCE for one extracted item, by the rules in the module docstring."""
    same_kind = [k for k in known if k.kind == kind]
    match, rule = None, "new"
    if subject is not None:
        match = next((k for k in known if k.key == subject), None)
        rule = "subject"
    states = kind == "semantic" and subject is not None  # a table subject of its own
    if match is None and states and subject is not None:
        twin = same_value_fact(body, subject, known)
        if twin is not None and twin.key is not None:
            return Outcome("reinforce", twin.key, twin, "value")
    if match is None and not states and user:
        by_mention = mention_outcome(body, known, turns)
        if by_mention is not None:
            return by_mention
    if match is None:
        # An item with a subject is never matched to a record by its words: "I'm an engineer at
        # Acme, based in Boston" states two subjects, and its `fact:home` is not its `fact:employer`.
        pool = same_kind if subject is None else []
        scored = sorted(((similarity(body, k.body), k) for k in pool), key=lambda s: (-s[0], s[1].ref))
        if scored and scored[0][0] >= SIMILAR:
            match, rule = scored[0][1], "similar"
    if match is None:
        return Outcome("add", subject or new_key(kind, body))
    key = match.key or subject or new_key(kind, body)
    # `value_of` (the extractor's own reading of a value, e.g. "Acme Robotics") is preferred
    said = (_said(body, key, value_of), _said(match.body, key, value_of)) if rule == "subject" else None
    if (said is not None and same_value(*said)) or (
        said is None and content_words(body) == content_words(match.body)
    ):
        return Outcome("reinforce", key, match, rule)
    return Outcome("update", key, match, rule)
