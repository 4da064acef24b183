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
   X for years", "I don't eat meat", "I'm doing keto");
2. **MILESTONE** (the first typed reader): a named project's date ("we have to launch Project
   Atlas by March 14", "Atlas is on track for the 28th"), keyed `fact:<project>-deadline`, its value the date;
3. **TYPED_READERS**: subjects of a kind, each by a reader of its own: a dated event ("my exam got
   moved to April 22", `fact:exam-date`), a work shift, each allergen (`fact:allergy-<allergen>`:
   a second allergy adds, it does not replace), a car by its model, the usual drink, the language
   being learned, a pet named by its kind or breed or got ("we adopted a cat named Luna"), the
   reply layout, a weekly activity's days, a group activity ("my running club"), how many of a
   household member ("we've got two kids", `fact:children-count`), a new thing named ("I got a new
   phone, a Pixel 8", `fact:phone`); then the readers by sentence structure of
   memoryos.policies.subject_shapes (a role, a career, a habit at a place, an activity's weekly
   days, a group joined);
4. **the generic shapes**: "X is my Y", "..., which is my Y", "my Y is X" (and "my Y's a X", the
   "'s" read as "is" only before an article, an adverb, a name or a number), every "my dog
   Biscuit", a relation named at the head of a clause without "my" ("Wife is Rosa."); a person by
   their relation (subject_shapes.relation_key: `fact:husband`, `fact:son-rafi`), a name's "'s"
   aside ("my wife Rosa's decided": Rosa).

A subject phrase becomes a key through `normal_subject`: spelling (SUBJECT_WORDS), modifiers dropped
(SUBJECT_MODIFIERS: "my *current* employer"), then synonyms (SUBJECT_ALIASES). What is NOT a lasting
fact is refused by guards, not by a list of values: an idiom ("I live in Neovim all day"), a stay
("based in Chicago this week"), work on the side ("working for Acme as a contractor").
"""

from __future__ import annotations

import re

from memoryos.policies.capture import slug
from memoryos.policies.mentions import ABBREVIATIONS
from memoryos.policies.subject_shapes import (
    HEARSAY,
    MANY_RELATIONS,
    SHAPE_READERS,
    SINGLE_RELATIONS,
    hearsay,
    relation_key,
    stated,
)
from memoryos.policies.text import STOPWORDS

_NAME = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}"

# After a place: what makes "I live in X" an idiom or a stay, not a home.
_NOT_A_HOME = (
    r"(?!\w)(?!\s+(?i:all day|all night|all the time|24/7|most days|these days for work|this week|"
    r"this month|for (?:a|the|now|work|business|the week|the weekend|a few)|until|on business|right now))"
)
# After an employer: work that is not the main job.
_NOT_THE_JOB = (
    r"(?!\w)(?!\s+(?i:as an? (?:contractor|consultant|freelancer|volunteer|advisor)|on the side|part-time))"
)

# "eggetarian", "pure veg", "veg", "non-veg": the Indian English words ("veg" only as the whole value:
# "I'm a veg box subscriber" is no diet)
_DIET_WORDS = (
    "vegetarian|vegan|pescatarian|gluten-free|coeliac|celiac|lactose-intolerant|halal|kosher|keto|paleo|"
    "eggetarian|flexitarian|non-veg(?:etarian)?|(?:pure |strict )?veg"
    r"(?=\s*(?:[.,;!?—–)]|$| (?:and|but|so|now|only|actually|too|since|though|these days)\b))"
)

#: Profile facts said without "my X is": each subject's phrasings and where its value is.
PROFILE_SUBJECTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (subject, re.compile(pattern))
    for subject, pattern in (
        (
            "employer",
            r"\b(?i:i (?:now |still )?work (?:at|for)|"
            r"i(?:'m| am) (?:now |still )?(?:a|an) [\w -]{1,40}? (?:at|for)|"
            r"i(?:'m| am) (?:now |still )?with|"
            r"i(?:'ve| have)? (?:just |recently |now )?(?:joined|started at|started working (?:at|for))|"
            r"(?:still |now )?(?:working|employed) (?:at|for|by)|i took (?:a|the) job (?:at|with)|"
            r"(?:accepted|took) (?:an|the) (?:job |position )?offer (?:from|at)|"
            r"i do [\w -]{1,40}? (?:for|at)|(?:my )?first (?:day|week) (?:at|with)|"
            # a new job said by how it was got: "I got a job at X", "I got hired by X"
            r"i (?:just |finally )?got (?:a|the|my) (?:new |full-time |permanent )?job (?:at|with)|"
            r"i(?:'ve| have)? (?:just |finally )?(?:got |been |was )?hired (?:at|by|on at))\s+(?P<v>"
            + _NAME
            + ")"
            + _NOT_THE_JOB,
        ),
        (
            # an employer named after what it is: "I work as a live-in carer for a retired couple, the
            # Whitfields", "I now work for a family, the Osei-Browns", "I nanny for a family called Lund"
            "employer",
            r"\b(?i:i (?:now |still |currently )?(?:work|nanny|clean|cook|care|drive) "
            r"(?:as an? [\w -]{1,40}? )?for (?:an?|the) (?:[\w-]+ ){0,3}?"
            r"(?:couple|family|household|gentleman|lady|man|woman|widow|widower|firm|company|startup|agency))"
            r"(?:,| —| –| -| called| named) (?:the )?(?P<v>" + _NAME + ")" + _NOT_THE_JOB,
        ),
        (
            # years at a place of work: "I've been at Initech for six years" (hours at a hospital are not)
            "employer",
            r"\b(?i:i(?:'ve| have) been (?:working )?at) (?P<v>"
            + _NAME
            + r")(?= (?i:for (?:[\w-]+ )?(?:years|decades)|since (?:19|20)\d\d))",
        ),
        (
            # the employer before the verb: "Stripe hired me", "Mercy General took me on full-time"
            "employer",
            r"(?:^|(?<=[.!?,;:—–] ))(?P<v>(?!(?:I|We|They|He|She|It|You|My|Our|Who|That|This)\b)"
            + _NAME
            + r") (?i:(?:just |finally |officially )?"
            r"(?:hired me|took me on|offered me (?:a|the) (?:job|position)))",
        ),
        (
            "home",
            # "I live in a WG in Freiburg", "we live in a flat in Leith": the place, not the dwelling
            r"\b(?i:(?:i|we) (?:now |still |both )?live in (?:a|an|the|our|my) (?:[\w-]+ ){0,2}?"
            r"(?:WG|flat|apartment|house|condo|studio|dorm|room|cottage|bungalow|townhouse|share|flatshare)"
            r" in|(?:i|we) (?:now |still |both )?live in|"
            r"(?:i(?:'m| am)|we(?:'re| are)) (?:now |still |officially |finally )*"
            r"(?:based|living|settled) in|"
            r"i(?:'ve| have) (?:always )?lived in|"
            r"(?P<bare>(?<=, )based in)|"
            # "I'm based out of Tulsa", "we're renting in Leith now"
            r"(?:i(?:'m| am)|we(?:'re| are)) (?:now |still )?(?:based out of|renting in)|"
            # a home said as the ground of what follows: "now that I'm in Denver", "since we're in Oslo"
            r"(?:now that|since) (?:i(?:'m| am)|we(?:'re| are)) (?:living |based |settled |finally )?in|"
            # "we're in Sarasota now", "I'm finally in Leeds for good": a home said by a change cue
            r"(?:i(?:'m| am)|we(?:'re| are)) (?:now |finally |officially |permanently )?"
            r"(?:down |up |out |over )?in(?=\s+"
            + _NAME
            + r"(?:\s+(?:now|for good|full[- ]time|permanently))(?:[.,;!?—–]|$))|"
            r"(?:i|we)(?:'ve| have)? (?:just |recently |finally |now |officially )?"
            r"(?:moved|relocated|retired)(?: back| down| up| out| over| here| away| permanently)? to|"
            # the new home said by its kind: "we moved into a condo in X", "we bought a bungalow in X"
            r"(?:i|we)(?:'ve| have)? (?:just |recently |finally |now )?(?:moved into|downsized to|bought) "
            r"(?:a|an|the|our) (?:new |little |small |lovely )?(?:house|home|place|condo|flat|apartment|"
            r"bungalow|cottage|townhouse|townhome) in|"
            # a move said by its steps: closing on a house in X, unpacking in X, our new house in X
            r"(?:closed|closing) on (?:the|a|our) (?:new )?(?:house|home|place|condo|flat|apartment) in|"
            # a move said done: "we finished the move to X", "I'm settling into X"
            r"(?:finished|completed|done with|survived) (?:the|our|my) move to|"
            r"(?:i(?:'m| am)|we(?:'re| are)) (?:slowly |finally |still )?settling (?:in(?:to)?|down in)"
            r"(?: life in)?|"
            r"(?:i(?:'m| am)|we(?:'re| are)) (?:still |finally )?unpacking "
            r"(?:boxes |everything |the boxes )?in|"
            r"(?:my|our) new (?:house|home|place|condo|flat|apartment) in|"
            r"my (?:new )?home is (?:now )?(?:in )?|"
            # the home said without "my", as a clause of its own: "Home's Abilene.", "— home is Leeds"
            r"(?:(?<=^)|(?<=[.!?—–:;] )|(?<=, ))home(?:'s|’s| is) (?:now |still )?(?:in )?)\s*(?P<v>"
            + _NAME
            + ")"
            + _NOT_A_HOME,
        ),
        (
            # years in a place: "I've been in Denver for five years", "we've lived here since 2019"
            "home",
            r"\b(?i:(?:i|we)(?:'ve| have) been (?:living )?in) (?P<v>"
            + _NAME
            + r")(?= (?i:for (?:[\w-]+ )?(?:years|decades)|since (?:19|20)\d\d|since i was))",
        ),
        (
            # "The move to Austin is done!", "our move to Leith went fine": the move said done
            "home",
            r"\b(?i:(?:the|our|my) move to) (?P<v>"
            + _NAME
            + r")(?= (?i:is|was|went|has been|'s) (?i:done|finished|complete|over|fine|smooth|official))",
        ),
        (
            "home-airport",
            r"\b(?i:fly(?:ing)? (?:out of|from)|home airport is(?: now| still)?)\s+(?P<v>" + _NAME + ")",
        ),
        (
            # how the user gets to work: "I bike to the office", "my commute is the train"
            "commute",
            r"\b(?i:i (?:usually |mostly |always |now )?(?P<v>bike|cycle|walk|drive|run|scoot|ride|commute)"
            r" (?:in )?(?:to|into) (?:the office|work))|"
            r"\b(?i:(?:my|the) (?:daily )?commute is (?:now |still )?(?:by )?)(?P<v2>[^.;!?,—–]+)|"
            # a habit of getting about: "I take the bus downtown most days", "I walk everywhere now"
            r"\b(?i:i (?:usually |mostly |always |now |still |just )?(?:take|catch|ride) the "
            r"(?P<v3>bus|train|tube|subway|metro|tram|ferry|streetcar)"
            r"(?= (?:in|to work|to the office|downtown|everywhere|most days|every day|each day)\b))|"
            r"\b(?i:i (?:usually |mostly |always |now |still |just )?"
            r"(?P<v4>walk|bike|cycle|drive) everywhere)",
        ),
        ("name", r"\b(?i:call me|i go by|my name is|i(?:'m| am) called)\s+(?P<v>" + _NAME + ")"),
        (
            "diet",
            r"\b(?i:i(?:'m| am|'ve gone| have gone| went|'ve become| have become| became|"
            r"'ve been| have been) "
            r"(?:now |fully |strictly |still |totally |completely )?"
            # a diet one is on: "I'm doing keto", "I'm on a vegan diet", "I'm eating paleo"
            r"(?:(?:doing|on|eating|following|trying) (?:the |a |an )?)?(?:a )?)"
            rf"(?P<v>(?i:{_DIET_WORDS}))\b",
        ),
        (
            # A diet said by what is not eaten: the value is the diet it amounts to (DIET_SAID).
            "diet",
            r"\b(?i:i (?:still |just )?(?:don't|do not|never|no longer|can't|cannot|can not) "
            r"(?:eat|have) (?:any )?)"
            r"(?P<v>(?i:meat|animal products|dairy|gluten|pork|fish))\b",
        ),
        (
            "first-language",
            r"\b(?P<v>[A-Z][a-z]+) is (?i:actually |really )?my (?i:first|native|mother) "
            r"(?i:language|tongue)|\b(?i:i(?:'m| am) a native) (?P<v2>[A-Z][a-z]+) (?i:speaker)|"
            # "as a native Tamil speaker, I ...": the phrase is the speaker's only when "I" follows
            r"\b(?i:as a native) (?P<v5>[A-Z][a-z]+) (?i:speaker),? (?=I\b)|"
            r"\b(?i:i grew up speaking) (?P<v3>[A-Z][a-z]+)|"
            # the language named before "it's what I grew up speaking" / "it's my first language"
            r"\b(?!(?i:my|i|the|we|our|it|so|and|but|even|also)\b)(?P<v4>[A-Z][a-z]+)\b[^.;!?]{0,50}?\b"
            r"(?i:it's|it is|which is) (?i:actually |really |still )?(?i:what i grew up speaking|"
            r"my (?:first|native|mother) (?:language|tongue))",
        ),
    )
)

#: What a diet said by what is not eaten amounts to: "I don't eat meat" restates "vegetarian".
DIET_SAID = {
    "meat": "vegetarian",
    "veg": "vegetarian",
    "pure veg": "vegetarian",
    "strict veg": "vegetarian",
    "non-veg": "non-vegetarian",
    "coeliac": "gluten-free",
    "celiac": "gluten-free",
    "animal products": "vegan",
    "dairy": "lactose-intolerant",
    "gluten": "gluten-free",
}

_FIRST_PERSON = re.compile(r"\b(?i:i(?:'m| am)|i)\b")

#: "my dog Biscuit": a relation and its name, the relation as the subject.
RELATIONS = sorted(
    {"dog", "cat", "pet", "puppy", "kitten", *SINGLE_RELATIONS, *MANY_RELATIONS}, key=len, reverse=True
)
_MY_NAMED = re.compile(
    r"\b(?i:my|our) (?P<s>"
    + "|".join(RELATIONS)
    + r")(?:'s name is|,| is called| named)? (?P<v>[A-Z][\w'-]+)"
)

# What may follow a subject phrase: "my favourite language (to work in)", then "now", "too" or the end.
_SUBJECT_END = (
    r"(?:\s+to\s+(?:work|code|write|use|program|build)(?:\s+(?:in|with|on))?)?"
    r"(?=\s+(?:now|too|again|anyway|by far|of all)\b|[.,;!?—–-]|$)"
)
_SUBJECT = r"(?P<s>[a-z]+(?:[ -][a-z]+){0,2}?)"

# "we write it in Go, which is my favourite language": the value, then a relative clause.
_WHICH_IS_MY = re.compile(
    r"\b(?P<v>[A-Z][\w+#.-]*)(?:,[^,.;!?]{0,40})?,? which (?:is|are) (?i:still |now |actually |really )?"
    r"(?i:my) " + _SUBJECT + _SUBJECT_END
)

# "SFO is my home airport now": the value first, then the subject.
_IS_MY = re.compile(
    r"\b(?P<v>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2}) (?:is|are) (?i:still |now |actually |really )?"
    r"(?i:my) " + _SUBJECT + _SUBJECT_END
)

# "my favourite editor is now Helix": the generic shape, its subject and its value.
_MY_IS = re.compile(  # the subject in lower case: "my partner Sam is ..." names Sam, not a subject
    r"\b(?i:my) (?P<s>[a-z]+(?:[ -][a-z]+){0,2}?)"
    # "my phone's a Galaxy": "'s" is "is" before an article, an adverb, a name or a number; before a
    # noun it is a possessive ("my mom's car is red" says nothing of the mom)
    r"(?: (?i:is|are|has changed to|was changed to) |['’]s (?=(?i:a|an|the|now|still|actually|really|"
    r"in|at|on|called|named|back)\b|[A-Z0-9]))"
    r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms|St|Mt|Prof)\.\s|[^.;!?,—–])+)"
)
# "Wife is Rosa.", "Husband's name is Tom": a relation named at the head of a clause, without "my".
_BARE_RELATION = re.compile(
    r"(?:^|(?<=[.!?—–:;] )|(?<=, ))(?:(?i:oh|so|and|also|btw|fyi)[,]? )?(?P<s>(?i:"
    + "|".join(sorted({*SINGLE_RELATIONS, *MANY_RELATIONS}, key=len, reverse=True))
    + r"))(?:['’]s name)? (?i:is|'s) (?P<v>[A-Z][\w'-]+)"
)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
#: A date as people say it: "March 14", "14 March", "the 28th", "2026-03-28", "next Friday".
DATE = re.compile(
    rf"(?i:\b{_MONTH}\.? {_DAY}\b|\b{_DAY} (?:of )?{_MONTH}\b|\bthe {_DAY}\b(?! (?:floor|time|century))|"
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)"
)
# A milestone of a project: its launch, release, deadline, or that it moved.
_MILESTONE = re.compile(
    r"\b(?i:launch(?:es|ed|ing)?|releas(?:e|es|ed|ing)|ship(?:s|ped|ping)?|go(?:es)?[ -]live|deadline|due|"
    r"on track for|slipp(?:ed|ing)|pushed (?:back|out)|delayed|postponed|moved (?:up|back))\b"
)
_NOT_A_PROJECT = frozenset(
    "i i'm project the a an we it my our so but and also okay ok funny work monday tuesday wednesday "
    "thursday friday saturday sunday january february march april may june july august september "
    "october november "
    "december jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_CAPITALISED = re.compile(r"\b[A-Z][\w-]+\b")


def _project(sentence: str, at: int) -> str | None:
    """The capitalised name nearest the milestone word at `at`: the project the date is about."""
    names = [m for m in _CAPITALISED.finditer(sentence) if m.group(0).lower() not in _NOT_A_PROJECT]
    if not names:
        return None
    return min(names, key=lambda m: (abs(m.start() - at), m.start())).group(0)


def milestone(sentence: str) -> tuple[str, str] | None:
    """(`fact:<project>-deadline`, its date) when a sentence dates a named project's milestone."""
    marker, date = _MILESTONE.search(sentence), DATE.search(sentence)
    if marker is None or date is None:
        return None
    project = _project(sentence, marker.start())
    return None if project is None else (f"fact:{slug(project)}-deadline", normal_date(date.group(0)))


def normal_date(text: str) -> str:
    """A date's month (three letters) and day, as far as it says them: "March 14th" and "14 March"
    are "mar 14", "the 28th" is "28", so that a date restated without its month still matches."""
    month = re.search(_MONTH, text, re.IGNORECASE)
    day = re.search(r"\d{1,2}(?!\d)", text) if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    parts = [month.group(0)[:3].lower()] if month else []
    return " ".join([*parts, str(int(day.group(0)))] if day else parts) or text.lower()


#: One subject said several ways: the words of a subject key are normalised through SUBJECT_WORDS
#: (spelling), lose the words of SUBJECT_MODIFIERS ("my *current* employer"), and the result goes
#: through SUBJECT_ALIASES, so that "my hometown is X" and "I live in X" share `fact:home`.
SUBJECT_WORDS = {
    "favourite": "favorite",
    "fave": "favorite",
    "colour": "color",
    "hometown": "home",
    "neighbourhood": "neighborhood",
    "programming": "",
    "coding": "",
    "dietary": "diet",
    "pet's": "pet",
}
# "here" is a modifier too: "my manager here" (said after a move or a new job) is the one one has now,
# the same subject as "my manager"; "my doctor back home" is another place's, and keeps its words.
SUBJECT_MODIFIERS = frozenset("current new present usual main primary regular actual preferred here".split())
SUBJECT_ALIASES = {
    "home-city": "home",
    "home-town": "home",
    "city": "home",
    "home-base": "home",
    "job": "employer",
    "company": "employer",
    "workplace": "employer",
    "work": "employer",
    "employer-name": "employer",
    "airport": "home-airport",
    "local-airport": "home-airport",
    "native-language": "first-language",
    "mother-tongue": "first-language",
    "native-tongue": "first-language",
    "full-name": "name",
    "diet-preference": "diet",
    "diet-restriction": "diet",
    "diet-restrictions": "diet",
    "diet-requirement": "diet",
    "diet-requirements": "diet",
    "eating-habits": "diet",
    "favorite-programming-language": "favorite-language",
    "puppy": "dog",
    "kitten": "cat",
    "mom": "mother",
    "dad": "father",
}


def normal_subject(key: str) -> str:
    """`fact:<subject>` with the subject's spelling and synonyms normalised (the tables above)."""
    prefix, sep, name = key.partition(":")
    if not sep:
        return key
    words = [SUBJECT_WORDS.get(w, w) for w in name.split("-") if w]
    words = [w for w in words if w] or [w for w in name.split("-") if w]
    kept = [w for w in words if w not in SUBJECT_MODIFIERS] or words
    joined = "-".join(kept)
    return f"{prefix}:{SUBJECT_ALIASES.get(joined, joined)}"


def subject_key(phrase: str) -> str:
    """The key of a subject phrase ("favourite editor" -> `fact:favorite-editor`)."""
    return normal_subject(f"fact:{slug(phrase)}")


_hearsay, _stated = hearsay, stated  # memoryos.policies.subject_shapes


def _one_sentence(value: str) -> str:
    """A value cut where its sentence ends ("Abilene. I'm out" is "Abilene."), an abbreviation's
    full stop aside ("St. Brendan's")."""
    for end in re.finditer(r"[.!?]\s+", value):
        word = re.findall(r"[\w'-]+$", value[: end.start()])
        if not word or word[0].lower() not in ABBREVIATIONS:
            return value[: end.start() + 1]
    return value


def _profile_value(subject: str, match: re.Match[str], sentence: str) -> str | None:
    value = next((v for name, v in match.groupdict().items() if name.startswith("v") and v), None)
    if value is None or _hearsay(match, sentence):
        return None
    value = _one_sentence(value)
    if match.groupdict().get("bare") and not _FIRST_PERSON.search(sentence[: match.start()]):
        return None  # ", based in X" is the speaker's home only in a sentence about the speaker
    return DIET_SAID.get(value.lower(), value) if subject == "diet" else value


# "I'm allergic to penicillin", "I have a latex allergy": each allergen is a fact of its own (a second
# allergy adds to the first, it does not replace it), keyed `fact:allergy-<allergen>`. "I'm not
# allergic to X" does not match; "the form says I'm allergic to X" is hearsay.
_ALLERGY = re.compile(
    r"\b(?i:i(?:'m| am) (?:also |severely |very |deathly |mildly )?allergic to (?P<v>[a-z][\w-]*)|"
    r"i (?:also )?have (?:a |an )?(?:severe |mild )?(?P<v2>[a-z][\w-]*) allergy)"
)
#: Events of the user's that have a date: "my CPN exam is on March 14", "the exam got moved to
#: April 22", "exam is still April 22", keyed `fact:<event>-date`, the value the date.
#: Only events one has one of at a time: appointments, flights or races recur, and a second one
#: is not a change of the first.
DATED_EVENTS = "exam interview surgery operation wedding defense defence graduation".split()
_EVENT = re.compile(r"\b(?i:(?P<e>" + "|".join(DATED_EVENTS) + r"))\b")
# Someone else's event: "her exam", "Amara's recital", "my sister's wedding".
_OTHERS = re.compile(r"\b(?i:his|her|their|your|[\w-]+'s|[\w-]+s')\s+(?:[\w-]+\s+){0,2}$")
#: A work pattern: "back on night shift", "8 to 4:30 day shift". A count of shifts ("covering three
#: day shifts") is a stretch of work, not the pattern, and covering for someone is temporary.
_SHIFT = re.compile(
    r"\b(?P<v>(?i:night|day|evening|swing|graveyard|early|late|morning|afternoon|overnight|rotating))"
    r" (?i:shift)(?!s)\b"
)
_COVER = re.compile(r"\b(?i:cover(?:s|ed|ing)?|fill(?:ing|ed)? in|swap(?:ped|ping)?|extra|instead of)\b")


#: Car makes: "my old Honda Civic" is the car, its model the value (the model is what a later turn
#: says: "the Civic", "the RAV4").
CAR_MAKES = (
    "Honda Toyota Ford Subaru Nissan Mazda Hyundai Kia Volkswagen VW Chevy Chevrolet Tesla BMW Audi "
    "Mercedes Volvo Jeep Dodge Ram GMC Buick Lexus Acura Mini Fiat Peugeot Renault Skoda Seat Opel "
    "Vauxhall Citroen Mitsubishi Suzuki Porsche Rivian Polestar"
    # two-wheelers: one rides one vehicle at a time, a scooter or a car (`fact:car` either way)
    " Ather Bajaj TVS Hero Yamaha Vespa Piaggio Ducati Kawasaki Harley KTM Triumph Enfield"
).split()
_CAR = re.compile(
    r"\b(?i:(?:my|our) (?:old |new |trusty |little |beloved |first |used )*|"
    r"i (?:now |still )?(?:drive|ride) an? |"
    # a vehicle bought: "I bought a second-hand Ather 450X", "we got a used Mazda CX-5"
    r"(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:bought|got|picked up) (?:myself |us )?an? "
    r"(?:(?:second-hand|secondhand|used|new|pre-owned|brand-new|brand new|refurbished) )?)"
    r"(?:(?i:car|truck|van|suv|scooter|motorbike|motorcycle|bike),? (?i:an? |the )?)?"
    r"(?:" + "|".join(CAR_MAKES) + r") (?P<v>[A-Z0-9][\w-]*)"
    # the vehicle one gets about on, by its name: "I go everywhere on my Activa", "I commute on my Vespa"
    r"|\b(?i:(?:i|we) (?:usually |mostly |always |still |now |just )?"
    r"(?:go|get|ride|commute|travel|zip|get around)"
    r"(?: everywhere| around| to work| to the office| to college)?"
    r" on (?:my|our) (?:old |trusty |little |beloved )?)(?P<v2>[A-Z][\w-]*(?: [A-Z0-9][\w-]*)?)"
)
#: What the user usually drinks: "I grab an oat milk latte on the way in every shift", "I switched
#: from lattes to green tea"; the value the drink and up to two words before it.
DRINKS = (
    "coffee latte lattes cappuccino espresso americano macchiato mocha flat white cold brew tea chai "
    "matcha kombucha smoothie juice soda"
).split()
_DRINK = r"(?P<v>(?:[a-z-]+ ){0,2}?(?:" + "|".join(DRINKS) + r"))\b"
_HABIT_DRINK = re.compile(
    r"\b(?i:i (?:usually |always |still |now |normally )?(?:grab|get|have|drink|order|make|buy)) "
    r"(?:an? |my )?" + _DRINK + r"(?= (?:on (?:the|my) way|every|each|in the morning|before|first thing))"
)
_SWITCHED_DRINK = re.compile(r"\b(?i:switched|moved|changed) (?:from [\w -]{1,30}? )?to " + _DRINK)


LANGUAGES = (
    "Spanish French German Italian Portuguese Japanese Mandarin Cantonese Chinese Korean Arabic Russian "
    "Hindi Dutch Greek Turkish Polish Swedish Norwegian Danish Finnish Hebrew Vietnamese Thai Swahili "
    "Irish Welsh Latin Ukrainian Czech Tagalog Indonesian"
).split()
#: The language the user is learning: "I've been doing Portuguese on Duolingo", "I'm learning Thai".
_LEARNING = re.compile(
    r"\b(?i:i(?:'ve| have) been|i(?:'m| am)(?: still| now)?|i (?:still |now )?)\s*"
    r"(?i:learning|studying|doing|practi[sc]ing|taking) (?P<v>" + "|".join(LANGUAGES) + r")\b"
    r"(?! (?i:food|wine|music|films?|movies?|tv|shows?|recipes?|cooking))"
)
#: "Biscuit needs his shots, he's our beagle": a name, then the pet it is (a breed says which).
PET_KINDS = {
    **dict.fromkeys(
        "dog beagle labrador lab retriever poodle terrier spaniel collie corgi dachshund husky "
        "shepherd pug bulldog boxer greyhound whippet schnauzer doodle labradoodle mutt".split(),
        "dog",
    ),
    **dict.fromkeys("cat tabby siamese persian kitty".split(), "cat"),
}
_PET_IS = re.compile(
    r"\b(?i:he|she|it)(?:'s| is) (?i:our|my) (?:[a-z]+ )?(?P<s>" + "|".join(PET_KINDS) + r")\b"
)
_NOT_A_PET_NAME = _NOT_A_PROJECT | STOPWORDS
_NAME_WORD = re.compile(r"\b[A-Z][a-z]+\b")


#: How the user wants answers laid out: "keep answers as bullet points", "make the notes bulleted".
#: Only a layout is a value: "keep it short" is one request, not a standing preference.
_REPLY_FORMAT = re.compile(
    r"\b(?i:(?:keep|give|make|write|format|send)(?: me)? (?:your |the |my |all )?(?:[a-z-]+ )?"
    r"(?:answers?|replies|responses|notes|summaries|messages|emails)(?: as| in)?) "
    r"(?P<v>(?i:bullet points|bullet lists?|bulleted|bullets|numbered lists?|tables|plain text|markdown))\b"
)
_WEEKDAY = r"(?i:mon|tues|wednes|thurs|fri|satur|sun)(?i:day)s?"
_DAYS = rf"{_WEEKDAY}(?:(?:,| and|,? or) {_WEEKDAY})*"
#: A weekly activity's days: "Tuesday and Thursday evenings are climbing", "I've moved climbing to
#: Mondays and Wednesdays", "Monday and Wednesday evenings ... those are my climbing nights".
_SCHEDULE = (
    re.compile(
        rf"\b(?P<d>{_DAYS})(?: (?i:evenings|mornings|nights|afternoons|lunchtimes))? (?i:are|is) "
        r"(?:(?i:my|for|when i go) )?(?P<a>[a-z]+ing)\b"
    ),
    re.compile(
        rf"\b(?i:moved|switched|changed|shifted) (?:my )?(?P<a>[a-z]+ing) (?i:to|over to) (?P<d>{_DAYS})"
    ),
    re.compile(
        rf"\b(?P<d>{_DAYS})\b[^.;!?]{{0,60}}\b(?i:those are|that's|they're) (?i:my) (?P<a>[a-z]+ing) "
        r"(?i:nights|days|evenings|mornings|sessions)\b"
    ),
)


#: A group activity the user belongs to: "my Saturday running club", "our weekly climbing group".
_CLUB = re.compile(
    r"\b(?i:my|our) (?:(?i:weekly|local|usual|regular|old|new|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|morning|evening|lunchtime) )*(?P<v>(?P<a>[a-z]+ing) (?:club|class|group|league|crew))\b"
)


#: How many of a kind of household member the speaker has: "we've got two kids", "I have three
#: cats", "Three kids under one roof now" (a count said with "now" is a change even without "I"),
#: keyed `fact:<members>-count` ("kids" and "children" are one key), the value the count and the
#: noun ("three kids"), which a later "three kids and a mortgage" restates (mentions, rule 1). A
#: count someone else has ("my sister has two kids") is not the speaker's.
COUNTS = {
    **dict.fromkeys("one two three four five six seven eight".split(), ""),
    **{str(n): "" for n in range(1, 10)},
}
_NUMBER_WORDS = {"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six"}
MEMBERS = {
    "kids": "children",
    "children": "children",
    "grandkids": "grandchildren",
    "grandchildren": "grandchildren",
    "cats": "cats",
    "dogs": "dogs",
}
_COUNT = r"(?P<n>(?i:" + "|".join(COUNTS) + r")) (?P<m>(?i:" + "|".join(MEMBERS) + r"))\b"
_HOUSEHOLD = (
    re.compile(
        r"\b(?i:(?:i|we)(?:'ve| have)? got|(?:i|we) (?:now |still )?have|(?:i|we)(?:'re| are) raising|"
        r"(?:my|our)|mom of|mum of|dad of|father of|mother of|parents? of) " + _COUNT
    ),
    re.compile(r"(?:^|(?<=[.!?—–:;,] )|(?<=\b(?i:so) ))" + _COUNT + r"(?=[^.;!?]{0,40}\b(?i:now)\b)"),
)


def household_count(sentence: str) -> tuple[str, str] | None:
    for shape in _HOUSEHOLD:
        match = stated(shape, sentence)
        if match is not None and not _OTHERS.search(sentence[: match.start("n")]):
            number = match.group("n").lower()
            return (
                f"fact:{MEMBERS[match.group('m').lower()]}-count",
                f"{_NUMBER_WORDS.get(number, number)} {match.group('m').lower()}",
            )
    return None


def _club(sentence: str) -> tuple[str, str] | None:
    match = _stated(_CLUB, sentence)
    if match is None:
        return None
    return f"fact:{slug(match.group('a'))}-group", match.group("v").lower()


def _reply_format(sentence: str) -> tuple[str, str] | None:
    match = _REPLY_FORMAT.search(sentence)
    return None if match is None else ("fact:reply-format", match.group("v").lower())


def _schedule(sentence: str) -> tuple[str, str] | None:
    for shape in _SCHEDULE:
        match = shape.search(sentence)
        if match is not None and not _hearsay(match, sentence):
            days = " and ".join(d.lower().rstrip("s") for d in re.findall(_WEEKDAY, match.group("d")))
            return f"fact:{slug(match.group('a'))}-schedule", days
    return None


def _learning(sentence: str) -> tuple[str, str] | None:
    match = _stated(_LEARNING, sentence)
    if match is None:
        return None
    return "fact:learning-language", match.group("v")


# "we adopted a cat named Luna", "we got a puppy, Pepper": a new pet, its kind and its name
_PET_GOT = re.compile(
    r"\b(?i:(?:i|we)(?:'ve| have)? (?:just |finally |recently )?"
    r"(?:got|adopted|rescued|brought home|took in)) "
    r"(?i:an?|our|my) (?:(?i:new|little|rescue|sweet) )*(?P<s>(?i:"
    + "|".join([*PET_KINDS, "puppy", "kitten"])
    + r"))(?:,| (?i:named|called))? (?P<v>[A-Z][a-z]+)\b"
)


def _pet(sentence: str) -> tuple[str, str] | None:
    got = _stated(_PET_GOT, sentence)
    if got is not None:
        kind = got.group("s").lower()
        return f"fact:{PET_KINDS.get(kind) or {'puppy': 'dog', 'kitten': 'cat'}[kind]}", got.group("v")
    match = _PET_IS.search(sentence)
    if match is None:
        return None
    # the name nearest before "he's our beagle" ("Before I forget, Biscuit needs ..." names Biscuit)
    before = sentence[max(0, match.start() - 80) : match.start()]
    names = [m.group(0) for m in _NAME_WORD.finditer(before) if m.group(0).lower() not in _NOT_A_PET_NAME]
    return (f"fact:{PET_KINDS[match.group('s').lower()]}", names[-1]) if names else None


#: Things one has one of, named after a new one was got: "I got a new phone, a Pixel 8", "I bought a
#: new laptop — a ThinkPad X1" (`fact:<thing>`, the value its name; "a new phone case" is no phone).
THINGS = "phone laptop car truck bike tablet watch computer".split()
_NEW_THING = re.compile(
    r"\b(?i:(?:i|we)(?:'ve| have)? (?:just |finally )?(?:got|bought|have|picked up)(?: myself| us)?) "
    r"(?i:an?|my) (?i:new) (?P<s>(?i:" + "|".join(THINGS) + r"))(?:,| —| –| -|:)? (?i:an? |the |my )?"
    r"(?P<v>[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,2})"
)


def _new_thing(sentence: str) -> tuple[str, str] | None:
    match = _stated(_NEW_THING, sentence)
    return None if match is None else (f"fact:{match.group('s').lower()}", match.group("v"))


def _car(sentence: str) -> tuple[str, str] | None:
    match = _stated(_CAR, sentence)
    if match is None:
        return None
    return "fact:car", match.group("v") or match.group("v2")


def _drink(sentence: str) -> tuple[str, str] | None:
    match = _HABIT_DRINK.search(sentence) or _SWITCHED_DRINK.search(sentence)
    if match is None or _hearsay(match, sentence):
        return None
    return "fact:drink", match.group("v").lower()


def _allergies(sentence: str) -> list[tuple[str, str]]:
    found = []
    for match in _ALLERGY.finditer(sentence):
        value = match.group("v") or match.group("v2")
        if not _hearsay(match, sentence):
            found.append((f"fact:allergy-{slug(value)}", value.lower()))
    return found


def _event_date(sentence: str) -> tuple[str, str] | None:
    event, date = _EVENT.search(sentence), DATE.search(sentence)
    if event is None or date is None or _hearsay(event, sentence):
        return None
    if _OTHERS.search(sentence[: event.start()]):
        return None
    return f"fact:{event.group('e').lower()}-date", normal_date(date.group(0))


# "I work nights now", "I'm back on days": a shift said by its time of day, plural
_SHIFT_SAID = re.compile(
    r"\b(?i:i (?:now |still |usually |mostly )?work(?:ing)?|"
    r"i(?:'m| am) (?:now |back |still )?(?:on|working)) "
    r"(?P<v>(?i:nights|days|evenings|overnights|earlies|lates))\b(?! (?i:off|a week|a month|per|in a row))"
)


_SHIFT_WORD = {"earlie": "early"}


def _shift(sentence: str) -> tuple[str, str] | None:
    said = _SHIFT_SAID.search(sentence)
    # covering for someone, before or after, is temporary ("working nights to cover for Jo")
    if said is not None and not (HEARSAY.search(sentence[: said.start()]) or _COVER.search(sentence)):
        kind = said.group("v").lower().removesuffix("s").replace("overnight", "night")
        return "fact:shift", f"{_SHIFT_WORD.get(kind, kind)} shift"
    match = _SHIFT.search(sentence)
    before = "" if match is None else sentence[: match.start()]
    if match is None or HEARSAY.search(before) or _COVER.search(before):
        return None
    return "fact:shift", f"{match.group('v').lower()} shift"


#: The subjects read by a function of their own (after PROFILE_SUBJECTS, before the generic shapes).
TYPED_READERS = (
    milestone,
    _event_date,
    _shift,
    _car,
    _drink,
    _learning,
    _pet,
    _reply_format,
    _schedule,
    _club,
    household_count,
    _new_thing,
    *SHAPE_READERS,
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
        if not re.fullmatch(r"[A-Z][\w'.-]+(?: [A-Z][\w'-]+)?", value.strip()):
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
            value = _profile_value(subject, match, sentence)
            if value is not None:
                found.setdefault(f"fact:{subject}", value)
                break
    for read in TYPED_READERS:
        typed = read(sentence)
        # "an engineer at Acme": the role is part of the employer's record, not a second one
        if typed is not None and not (typed[0] == "fact:occupation" and "fact:employer" in found):
            found.setdefault(*typed)
    for allergy in _allergies(sentence):
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
    return list(found.items())
