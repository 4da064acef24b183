"""Subject keys of first-person facts: which subject a sentence states, and its value (pure).

Extraction (memoryos.extraction.handlers) and reflection (memoryos.capture.reflect) both key a fact
by its subject, `fact:<subject>`, through these tables, so that the same statement gets the same key
whichever path read it ("my favourite editor" and "my favorite editor" are both
`fact:favorite-editor`). This module imports only other pure policies, which is what lets both
paths use it without an import cycle.

A subject is found four ways, in this order (the first reading of a subject wins):

1. **PROFILE_SUBJECTS**: phrasings of common profile subjects that do not say "my X is"
   ("I live in X", "we moved to X", "now that I'm in X", "Home's X", "based out of X", "I've been
   in X for years", "I accepted the offer from X", "I got a job at X", "X hired me", "I've been at
   X for years", "I work as X at Y", "I don't eat meat", "I'm doing keto", "I'm from X originally":
   `fact:origin`, kept apart from the home; memoryos.policies.subjects_profile);
2. **MILESTONE** (the first typed reader): a named project's date ("we have to launch Project
   Atlas by March 14", "Atlas is on track for the 28th"), keyed `fact:<project>-deadline`, its value the date;
3. **TYPED_READERS**: subjects of a kind, each by a reader of its own: a dated event ("my exam got
   moved to April 22", `fact:exam-date`), a work shift, each allergen (`fact:allergy-<allergen>`:
   a second allergy adds, it does not replace), a car by its model, the usual drink, the language
   being learned, a pet named by its kind or breed or got ("we adopted a cat named Luna"), the
   reply layout, a weekly activity's days, a group activity ("my running club"), how many of a
   household member ("we've got two kids", `fact:children-count`), a new thing named ("I got a new
   phone, a Pixel 8", `fact:phone`), the days off (`fact:days-off`), smoking or having quit
   (`fact:smoking`; memoryos.policies.subjects_typed); then the readers by sentence structure of
   memoryos.policies.subject_shapes (a role, a career, a habit at a place, an activity's weekly
   days, a group joined);
4. **the generic shapes**: "X is my Y", "..., which is my Y", "my Y is X" (and "my Y's a X", the
   "'s" read as "is" only before an article, an adverb, a name or a number), every "my dog
   Biscuit" (and a code-switched "ma blonde Émilie", FOREIGN_RELATIONS), a relation named at the
   head of a clause without "my" ("Wife is Rosa."); a person by
   their relation (subject_shapes.relation_key: `fact:husband`, `fact:son-rafi`), a name's "'s"
   aside ("my wife Rosa's decided": Rosa).

A subject phrase becomes a key through `normal_subject`: spelling (SUBJECT_WORDS), modifiers dropped
(SUBJECT_MODIFIERS: "my *current* employer"), then synonyms (SUBJECT_ALIASES). What is NOT a lasting
fact is refused by guards, not by a list of values: an idiom ("I live in Neovim all day"), a stay
("based in Chicago this week"), work on the side ("working for Acme as a contractor").
"""

from __future__ import annotations

import re

from memoryos.policies.subject_shapes import MANY_RELATIONS, SINGLE_RELATIONS, relation_key
from memoryos.policies.subjects_keys import (
    SUBJECT_ALIASES,
    SUBJECT_MODIFIERS,
    SUBJECT_WORDS,
    normal_subject,
    subject_key,
)
from memoryos.policies.subjects_profile import DIET_SAID, PROFILE_SUBJECTS, profile_value
from memoryos.policies.subjects_typed import DATE, TYPED_READERS, allergies, milestone, normal_date

__all__ = [
    "DATE",
    "DIET_SAID",
    "PROFILE_SUBJECTS",
    "RELATIONS",
    "SUBJECT_ALIASES",
    "SUBJECT_MODIFIERS",
    "SUBJECT_WORDS",
    "TYPED_READERS",
    "condition",
    "milestone",
    "normal_date",
    "normal_subject",
    "profile_facts",
    "subject_key",
]

#: "my dog Biscuit": a relation and its name, the relation as the subject.
RELATIONS = sorted(
    {"dog", "cat", "pet", "puppy", "kitten", *SINGLE_RELATIONS, *MANY_RELATIONS}, key=len, reverse=True
)
_MY_NAMED = re.compile(
    r"\b(?i:my|our) (?P<s>"
    + "|".join(RELATIONS)
    + r")(?:'s name is|,| is called| named)? (?P<v>[A-ZÀ-ÖØ-Þ][\w'-]+)"
)

#: A relation said in the speaker's other language, code-switched into English ("Ma blonde Émilie
#: made a cake", "minha namorada Inês", "mi novia Lucía", "meine Frau Anke"): the possessive, the
#: relation word, then a name; keyed as the English relation (`fact:girlfriend`).
FOREIGN_RELATIONS = {
    **dict.fromkeys("blonde copine namorada novia freundin ragazza fidanzata".split(), "girlfriend"),
    **dict.fromkeys("chum copain namorado novio freund ragazzo fidanzato".split(), "boyfriend"),
    **dict.fromkeys("femme esposa mulher mujer frau moglie".split(), "wife"),
    **dict.fromkeys("mari marido esposo mann marito".split(), "husband"),
    **dict.fromkeys("fille filha hija tochter figlia".split(), "daughter"),
    **dict.fromkeys("fils filho hijo sohn figlio".split(), "son"),
    **dict.fromkeys("frère frere irmão irmao hermano bruder fratello".split(), "brother"),
    **dict.fromkeys("sœur soeur irmã irma hermana schwester sorella".split(), "sister"),
    **dict.fromkeys("mère mere mãe mae madre mamá mutter".split(), "mother"),
    **dict.fromkeys("père pere pai padre papá vater".split(), "father"),
    **dict.fromkeys("patron patronne chefe jefe jefa capo".split(), "boss"),
}
_FOREIGN_NAMED = re.compile(
    r"\b(?i:ma|mon|minha|meu|mi|mein|meine|meinem|mia|mio) (?P<s>(?i:"
    + "|".join(sorted(FOREIGN_RELATIONS, key=len, reverse=True))
    + r"))(?:,)? (?P<v>[A-ZÀ-ÖØ-Þ][\w'-]+)"
)

# What may follow a subject phrase: "my favourite language (to work in)", then "now", "too" or the end.
_SUBJECT_END = (
    r"(?:\s+to\s+(?:work|code|write|use|program|build)(?:\s+(?:in|with|on))?)?"
    r"(?=\s+(?:now|too|again|anyway|by far|of all)\b|[.,;!?—–-]|$)"
)
_SUBJECT = r"(?P<s>[a-z]+(?:[ -][a-z]+){0,2}?)"

# "we write it in Go, which is my favourite language": the value, then a relative clause.
_WHICH_IS_MY = re.compile(
    r"\b(?P<v>[A-ZÀ-ÖØ-Þ][\w+#.-]*)(?:,[^,.;!?]{0,40})?,? which (?:is|are) "
    r"(?i:still |now |actually |really )?"
    r"(?i:my) " + _SUBJECT + _SUBJECT_END
)

# "SFO is my home airport now": the value first, then the subject.
_IS_MY = re.compile(
    r"\b(?P<v>[A-ZÀ-ÖØ-Þ][\w&.'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w&.'-]*){0,2}) (?:is|are) "
    r"(?i:still |now |actually |really )?"
    r"(?i:my) " + _SUBJECT + _SUBJECT_END
)

# "my favourite editor is now Helix": the generic shape, its subject and its value.
_MY_IS = re.compile(  # the subject in lower case: "my partner Sam is ..." names Sam, not a subject
    r"\b(?i:my) (?P<s>[a-z]+(?:[ -][a-z]+){0,2}?)"
    # "my phone's a Galaxy": "'s" is "is" before an article, an adverb, a name or a number; before a
    # noun it is a possessive ("my mom's car is red" says nothing of the mom)
    r"(?: (?i:is|are|has changed to|was changed to) |['’]s (?=(?i:a|an|the|now|still|actually|really|"
    r"in|at|on|called|named|back)\b|[A-ZÀ-ÖØ-Þ0-9]))"
    r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms|St|Mt|Prof)\.\s|[^.;!?,—–])+)"
)
# "Wife is Rosa.", "Husband's name is Tom": a relation named at the head of a clause, without "my".
_BARE_RELATION = re.compile(
    r"(?:^|(?<=[.!?—–:;] )|(?<=, ))(?:(?i:oh|so|and|also|btw|fyi)[,]? )?(?P<s>(?i:"
    + "|".join(sorted({*SINGLE_RELATIONS, *MANY_RELATIONS}, key=len, reverse=True))
    + r"))(?:['’]s name)? (?i:is|'s) (?P<v>[A-ZÀ-ÖØ-Þ][\w'-]+)"
)

#: What a thing's passing condition is said with: "my phone is dead", "my car is in the shop", "my
#: laptop is acting up". Such a "my X is Y" states no value of X (a flat battery is no new phone).
_CONDITION = re.compile(
    r"(?i:(?:so |really |totally |completely |basically |still |almost |nearly )?(?:dead|broken|charging|"
    r"flat|busted|cracked|down|off|offline|slow|lagging|low|full|empty|lost|missing|stolen|fine|ok|okay|"
    r"acting up|playing up|on the fritz|in the shop|at the shop|in for (?:repair|a service)|"
    r"being (?:fixed|repaired|serviced)|out of (?:battery|charge|action)))(?![\w-])"
)


def condition(value: str) -> bool:
    """Whether what "my X is ..." says is a passing condition of X, not its value."""
    return _CONDITION.match(value.strip()) is not None


def _keyed(subject: str, value: str) -> tuple[str, str] | None:
    """The key of a generic shape's subject; a person by their relation (subject_shapes), and
    only when what is said of them is a name ("my son is obsessed with sharks" names no son)."""
    said = [w for w in subject.lower().split() if w not in SUBJECT_MODIFIERS]  # "my new doctor"
    if said and (said[-1] in SINGLE_RELATIONS or said[-1] in MANY_RELATIONS):
        value = re.sub(r"\s+(?i:now|too|again|still|these days)$", "", value.strip())
        if not re.fullmatch(r"[A-ZÀ-ÖØ-Þ][\w'.-]+(?: [A-ZÀ-ÖØ-Þ][\w'-]+)?", value.strip()):
            return None
        key = relation_key(said[-1], value) if len(said) == 1 else None
        return None if key is None else (key, value)
    if condition(value):
        return None  # "my phone is dead": how the thing is now, not which it is
    return subject_key(subject), value


def profile_facts(sentence: str) -> list[tuple[str, str]]:
    """Every (`fact:<subject>`, value) a sentence states, one per subject, in the order of the
    module docstring. One sentence may state several ("I'm an engineer at Acme, based in Boston")."""
    found: dict[str, str] = {}
    for subject, pattern in PROFILE_SUBJECTS:
        for match in pattern.finditer(sentence):
            value = profile_value(subject, match, sentence)
            if value is not None:
                found.setdefault(f"fact:{subject}", value)
                break
    for read in TYPED_READERS:
        typed = read(sentence)
        # "an engineer at Acme": the role is part of the employer's record, not a second one
        if typed is not None and not (typed[0] == "fact:occupation" and "fact:employer" in found):
            found.setdefault(*typed)
    for allergy in allergies(sentence):
        found.setdefault(*allergy)
    for shape in (_IS_MY, _WHICH_IS_MY, _MY_IS):
        said = shape.search(sentence)
        keyed = None if said is None else _keyed(said.group("s"), said.group("v"))
        if keyed is not None:
            found.setdefault(*keyed)
    for said in (*_MY_NAMED.finditer(sentence), *_BARE_RELATION.finditer(sentence)):
        # "my husband Tom and our daughter Amara": both; "my wife Rosa's decided": Rosa
        keyed = _keyed(said.group("s"), re.sub(r"['’]s$", "", said.group("v")))
        if keyed is not None:
            found.setdefault(*keyed)
    for said in _FOREIGN_NAMED.finditer(sentence):
        keyed = _keyed(FOREIGN_RELATIONS[said.group("s").lower()], re.sub(r"['’]s$", "", said.group("v")))
        if keyed is not None:
            found.setdefault(*keyed)
    return list(found.items())
