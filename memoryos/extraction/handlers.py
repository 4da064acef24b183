"""One extraction handler per memory kind, each reading the same bounded snapshot of pages.

Without a model each handler is a table of sentence shapes (pure):

- **semantic**: lasting facts, first-person statements with a subject ("my home airport is SFO",
  "I work at Acme"), plus the keyword-ranked digest of what each side said (as before issue 15);
- **episodic**: events, sentences that report something done or that happened at a time
  ("yesterday we migrated the billing database");
- **procedural**: how to do something ("to release, run `make release`");
- **taxonomic**: categories and relations ("blyck is a static site generator").

Every typed item carries its subject key when its sentence names one, so that reconciliation
(memoryos.extraction.reconcile) can tell a change from a restatement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memoryos.capture import reflect
from memoryos.policies import mentions
from memoryos.policies.capture import slug
from memoryos.policies.distill import PROFILE, Distilled, ExtractiveSummarizer, PageView
from memoryos.policies.subjects import profile_facts
from memoryos.policies.text import sentences, tokens

MAX_SENTENCE = 400


def list_for(role: str, kind: str) -> str:
    if kind == "semantic" and role == "user":
        return "profile"
    return "assistant_knowledge" if role == "assistant" else "user_knowledge"


def profile_fact(sentence: str) -> tuple[str, str] | None:
    """The first of profile_facts(sentence), if any."""
    facts = profile_facts(sentence)
    return facts[0] if facts else None


def semantic_subjects(sentence: str) -> list[str]:
    """Every `fact:<subject>` a first-person statement names: the profile phrasings first (they
    know the subjects' synonyms), else reflection's "my X is Y"."""
    facts = [key for key, _ in profile_facts(sentence)]
    if facts:
        return facts
    found = reflect.fact(sentence)  # keyed through the same tables (memoryos.policies.subjects)
    return [] if found is None else [found.key]


def semantic_subject(sentence: str) -> str | None:
    """The first subject of semantic_subjects(sentence), else None."""
    subjects = semantic_subjects(sentence)
    return subjects[0] if subjects else None


def semantic_value(body: str, key: str | None = None) -> frozenset[str] | None:
    """The words of what a profile fact says its subject (`key`, or its first) is ("Acme
    Robotics"), if it says it in one of the known phrasings: reconciliation compares those, not
    the framing around them."""
    for subject, value in profile_facts(body):
        if key is None or subject == key:
            return frozenset(tokens(value))
    return None


# A named thing the user has: "my old ThinkPad", "our Corolla" (a later "the ThinkPad has been
# handed down" retires it). A relation ("my sister") is not a name, and is not matched.
_POSSESSION = re.compile(r"\b(?i:my|our) (?:(?i:old|new|current|trusty|work|home) )?[A-ZÀ-ÖØ-Þ][\w-]+")


# A first-person habit, state or taste in the present ("we have two cats", "I always read on the
# porch", "I've been knitting again", "I adore Agatha Christie"): a lasting fact, said without the
# words PROFILE lists. A past event ("I walked") or a plan ("I'll walk") is not one.
_HABIT = re.compile(
    r"\b(?i:i|we)(?:(?i:'ve| have) been \w+ing\b|(?: (?i:usually|always|often|never|still|now|mostly|"
    r"normally|really|also|just|generally|regularly|absolutely|honestly))* (?i:have|'ve got|own|drink|eat|"
    r"play|read|watch|grow|knit|paint|walk|swim|go|take|keep|collect|volunteer|teach|sing|bake|cook|"
    r"garden|run|ride|attend|belong|adore|enjoy|love|like|prefer|hate|miss|spend|do)\b)"
)


def is_fact(sentence: str) -> bool:
    """A first-person statement: of a subject ("my X is Y") or of a preference, a job, a home; a
    named possession ("my old ThinkPad"); or a change that gives a value up ("goodbye Krita",
    memoryos.policies.mentions), which reconciles as an UPDATE of the fact holding that value."""
    return (
        bool(PROFILE.search(sentence) or _POSSESSION.search(sentence) or _HABIT.search(sentence))
        or semantic_subject(sentence) is not None
        or mentions.retires_something(sentence)
    )


_WHEN = re.compile(
    r"\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|week)|last (?:night|week|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on (?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|\d+ (?:minutes?|hours?|days?|weeks?) ago|in (?:january|february|march|april|"
    r"may|june|july|august|september|october|november|december))\b",
    re.IGNORECASE,
)
_DID = re.compile(
    r"^(?:(?:so|then|and|finally|today|yesterday)[,]?\s+)?(?:i|we|they|the team|you)\s+(?:just\s+)?"
    r"(?:\w+ed|went|met|made|took|gave|ran|wrote|built|broke|found|sent|began|lost|won|got|paid|flew|left|"
    r"bought|sold|saw|did|had)\b",
    re.IGNORECASE,
)


def episodic_subject(sentence: str) -> str | None:
    return None


def is_episode(sentence: str) -> bool:
    return bool(_DID.search(sentence) or (_WHEN.search(sentence) and re.search(r"\b\w+ed\b", sentence)))


def procedural_subject(sentence: str) -> str | None:
    found = reflect.procedure(sentence)
    return found.key if found is not None and found.key.startswith("how:") else None


def is_procedure(sentence: str) -> bool:
    return reflect.procedure(sentence) is not None or bool(
        re.search(r"\bfirst\b.+\bthen\b|\bstep \d\b", sentence, re.IGNORECASE)
    )


_IS_A = re.compile(
    r"^(?P<thing>[A-Z0-9][\w.+-]*(?:\s+[\w.+-]+){0,3}?)\s+(?:is|are)\s+(?:a|an)\s+(?:(?:kind|type|sort|form)"
    r"\s+of\s+)?(?P<what>[\w\s-]{2,60})"
    r"|^(?P<thing2>[A-Z0-9][\w.+-]*(?:\s+[\w.+-]+){0,3}?)\s+(?:belongs to|is part of|falls under|"
    r"is one of)\s+(?P<what2>[\w\s-]{2,60})",
)


def taxonomic_subject(sentence: str) -> str | None:
    found = _IS_A.match(sentence)
    if found is None:
        return None
    thing = found.group("thing") or found.group("thing2") or ""
    return f"taxonomy:{slug(thing)}"


@dataclass(frozen=True)
class SentenceHandler:
    """A kind's extraction: which sentences are of that kind, and the subject each names."""

    kind: str
    applies: Callable[[str], bool]
    subject: Callable[[str], str | None]
    roles: frozenset[str] = frozenset({"user", "assistant"})

    def extract(self, pages: Sequence[PageView]) -> list[Distilled]:
        out = []
        for page in pages:
            if page.role not in self.roles:
                continue
            for sentence in statements_of(page):
                if 0 < len(sentence) <= MAX_SENTENCE and self.applies(sentence):
                    out.append(
                        Distilled(
                            list_for(page.role, self.kind),
                            sentence,
                            (page.ref,),
                            page.source_ids,
                            kind=self.kind,
                            subject=self.subject(sentence),
                            keyed=True,
                        )
                    )
        return out


@dataclass(frozen=True)
class Restatement(Distilled):
    """A user's sentence read only for the known facts it mentions: each is REINFORCEd, and the
    sentence itself is never written (memoryos.extraction.write)."""


def statements_of(page: PageView) -> list[str]:
    """A page's sentences; in a user's turn, a retirement read with the sentence beside it
    (memoryos.policies.mentions, rule 5: "goodbye Tableau. Everything goes into Power BI.")."""
    parts = mentions.rejoin_abbreviations([" ".join(s.split()) for s in sentences(page.text)])
    if page.role != "user":
        return parts
    return mentions.statements(parts, lambda sentence: bool(profile_facts(sentence)))


def _each_subject(sentence: str) -> list[str | None]:
    subjects: list[str | None] = [*semantic_subjects(sentence)]
    return subjects or [None]


class SemanticHandler:
    """Lasting facts with their subject, then the digest of each side's words (unkeyed, as before)."""

    kind = "semantic"

    def __init__(self) -> None:
        self.facts = SentenceHandler("semantic", is_fact, semantic_subject, frozenset({"user"}))
        self.digest = ExtractiveSummarizer()

    def extract(self, pages: Sequence[PageView]) -> list[Distilled]:
        digest = [d for d in self.digest.distill(pages) if d.list_name != "profile"]
        # one item per subject a sentence states ("I'm an engineer at Acme, based in Boston")
        facts = [
            replace(item, subject=subject) if subject != item.subject else item
            for item in self.facts.extract(pages)
            for subject in _each_subject(item.body)
        ]
        return [*facts, *digest]


def extractive_handlers() -> dict[str, SemanticHandler | SentenceHandler]:
    return {
        "semantic": SemanticHandler(),
        "episodic": SentenceHandler("episodic", is_episode, episodic_subject),
        "procedural": SentenceHandler("procedural", is_procedure, procedural_subject),
        "taxonomic": SentenceHandler(
            "taxonomic", lambda s: taxonomic_subject(s) is not None, taxonomic_subject
        ),
    }


SUBJECTS: dict[str, Callable[[str], str | None]] = {
    "semantic": semantic_subject,
    "episodic": episodic_subject,
    "procedural": procedural_subject,
    "taxonomic": taxonomic_subject,
}
