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
from dataclasses import dataclass

from memoryos.capture import reflect
from memoryos.policies.capture import slug
from memoryos.policies.distill import PROFILE, Distilled, ExtractiveSummarizer, PageView
from memoryos.policies.text import sentences, tokens

MAX_SENTENCE = 400


def list_for(role: str, kind: str) -> str:
    if kind == "semantic" and role == "user":
        return "profile"
    return "assistant_knowledge" if role == "assistant" else "user_knowledge"


_NAME = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}"
#: Profile facts said without "my X is": each subject's phrasings and where its value is.
PROFILE_SUBJECTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (subject, re.compile(pattern))
    for subject, pattern in (
        (
            "employer",
            r"\b(?i:i work (?:at|for)|i(?:'m| am) (?:now )?(?:a|an) [\w -]{1,40}? (?:at|for)|"
            r"i (?:just )?(?:joined|started at)|(?:still |now )?working (?:at|for)|"
            r"accepted (?:an|the) (?:job )?offer from)\s+(?P<v>" + _NAME + ")",
        ),
        (
            "home",
            r"\b(?i:i live in|i(?:'m| am) (?:now )?(?:based|living) in|based in|i (?:just )?moved to|"
            r"i relocated to|we relocated to)\s+(?P<v>" + _NAME + ")",
        ),
        ("home-airport", r"\b(?i:fly (?:out of|from)|home airport is(?: now)?)\s+(?P<v>" + _NAME + ")"),
        (
            "diet",
            r"\b(?i:i(?:'m| am|'ve gone| have gone| went) (?:now |fully |strictly |still )?(?:a )?)"
            r"(?P<v>(?i:vegetarian|vegan|pescatarian|gluten-free|lactose-intolerant|halal|kosher))\b",
        ),
        (
            "first-language",
            r"\b(?P<v>[A-Z][a-z]+) is (?i:actually |really )?my (?i:first|native|mother) "
            r"(?i:language|tongue)",
        ),
    )
)


# "SFO is my home airport now": the value first, then the subject.
_IS_MY = re.compile(
    r"\b(?P<v>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2}) (?:is|are) (?i:still |now |actually |really )?"
    r"my (?P<s>[a-z]+(?:[ -][a-z]+){0,2}?)(?=\s+(?:now|too|again|anyway)\b|[.,;!?]|$)"
)


def profile_fact(sentence: str) -> tuple[str, str] | None:
    """(`fact:<subject>`, value) of a profile fact said in one of PROFILE_SUBJECTS' phrasings."""
    for subject, pattern in PROFILE_SUBJECTS:
        found = pattern.search(sentence)
        if found is not None:
            return f"fact:{subject}", found.group("v")
    reverse = _IS_MY.search(sentence)
    return None if reverse is None else (f"fact:{slug(reverse.group('s'))}", reverse.group("v"))


def semantic_subject(sentence: str) -> str | None:
    """`fact:<subject>` of a first-person statement of a lasting fact, else None."""
    found = reflect.fact(sentence)
    if found is not None:
        return found.key
    profile = profile_fact(sentence)
    return None if profile is None else profile[0]


def semantic_value(body: str) -> frozenset[str] | None:
    """The words of what a profile fact says its subject is ("Acme Robotics"), if it says it in
    one of the known phrasings: reconciliation compares those, not the framing around them."""
    profile = profile_fact(body)
    return None if profile is None else frozenset(tokens(profile[1]))


def is_fact(sentence: str) -> bool:
    """A first-person statement: of a subject ("my X is Y") or of a preference, a job, a home."""
    return bool(PROFILE.search(sentence)) or semantic_subject(sentence) is not None


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
            for sentence in (" ".join(s.split()) for s in sentences(page.text)):
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


class SemanticHandler:
    """Lasting facts with their subject, then the digest of each side's words (unkeyed, as before)."""

    kind = "semantic"

    def __init__(self) -> None:
        self.facts = SentenceHandler("semantic", is_fact, semantic_subject, frozenset({"user"}))
        self.digest = ExtractiveSummarizer()

    def extract(self, pages: Sequence[PageView]) -> list[Distilled]:
        digest = [d for d in self.digest.distill(pages) if d.list_name != "profile"]
        return [*self.facts.extract(pages), *digest]


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
