"""Subjects read by the shape of a sentence, not by a table per subject (pure).

memoryos.policies.subjects reads common profile subjects by their phrasings; these readers read
families of subjects by sentence structure, so that a subject nobody listed still gets one key
across turns:

- **role**: "I'm a retired librarian", "I work as a paralegal" (`fact:occupation`): "I'm a/an",
  then a noun phrase whose last word is a role (a role suffix, -er/-or/-ist/-ian/..., or a few
  role words such as nurse); "I'm retired" is the role "retired", which "retired teacher" holds;
  any -er/-or noun when said as the state now ("I'm a dispatcher now", "I'm now a welder"), a
  trait aside ("a big reader"); "I got promoted to charge nurse";
- **a habit at a place**: first person, a habitual verb, at/for/with, a place ("I volunteer at the
  food pantry", "I've been singing with the Harbor Chorale", "these days I swim at the Y"), keyed
  by the verb (`fact:volunteer-place`); a place said with "also" is another place of the same
  habit, keyed by the place too, not a change of the first one;
- **people**: "my <relation> <Name>" and "<Name> is my <relation>". A relation one has one of at
  a time (a partner, a boss, a mother) is keyed by the relation (`fact:husband`), so a new name
  is a change; one of which one may have several (a son, a friend, a grandchild) by the relation
  and the name (`fact:granddaughter-lily`), so a second grandchild is a new fact, not a change;
- **a work tool** said without "my": "Stack is Selenium with Java", "and the stack is Playwright
  with TypeScript" (`fact:stack`; WORK_SUBJECTS), its value a name;
- **a weekly activity's days**: "book club is now on Wednesdays", "choir moved to Thursdays",
  "I have pottery on Mondays" (`fact:<activity>-schedule`), the days plural or "every", since
  "on Thursday" alone is one date, not a habit.

Each refuses what is not the speaker's lasting state: a supposition or someone else's claim
(`hearsay`), a stay or a one-off ("this week", "tomorrow", "for now"), and a negation.
"""

from __future__ import annotations

import re

from memoryos.policies.capture import slug
from memoryos.policies.text import STOPWORDS

# Before a statement, in its clause: someone else's belief or a supposition, not the user's fact
# ("someone assumed I'm vegetarian", "if I moved to Leeds").
HEARSAY = re.compile(
    r"\b(?i:assum\w*|thinks?|thought|believes?|says?|said|asked(?: if)?|if|would|i'd|wish|suppose|pretend|"
    r"wants? me to|telling me to|tells? me to)"
    r"\b[^,;.!?]{0,20}$"
)


def hearsay(match: re.Match[str], sentence: str) -> bool:
    """Whether what precedes `match` makes it someone else's claim or a hypothesis."""
    return HEARSAY.search(sentence[: match.start()]) is not None


def stated(pattern: re.Pattern[str], sentence: str) -> re.Match[str] | None:
    """The first match of `pattern` that the speaker states (not hearsay)."""
    match = pattern.search(sentence)
    return None if match is None or hearsay(match, sentence) else match


#: A stay, a one-off or a past occasion: not a lasting state ("I'm volunteering at the fair this
#: weekend", "I sang with them yesterday").
ONE_OFF = re.compile(
    r"\b(?i:this (?:week|weekend|month|morning|afternoon|evening|once)|today|tonight|tomorrow|yesterday|"
    r"for now|for (?:a|the) (?:few|couple|week|weekend|day|month)|until|next (?:week|month|year)|"
    r"last (?:week|night|weekend|month)|for once|just for|covering|filling in|on holiday|on vacation|"
    r"visiting)\b"
)
_NEGATION = re.compile(r"\b(?i:not|never|don't|do not|doesn't|didn't|no longer|won't|isn't|aren't)\b")
_ALSO = re.compile(r"\b(?i:also|too|as well|another|second)\b")

# -- role ------------------------------------------------------------------------------------------

_ROLE_WORDS = (
    "nurse|teacher|chef|cook|pilot|student|retiree|clerk|medic|paramedic|midwife|vet|dentist|doctor|"
    "surgeon|architect|accountant|attorney|lawyer|barista|carpenter|plumber|electrician|mechanic|"
    "firefighter|farmer|journalist|editor|author|writer|artist|designer|analyst|scientist|engineer|"
    "developer|programmer|librarian|pharmacist|therapist|counselor|counsellor|principal|professor|"
    "lecturer|tutor|coach|manager|director|consultant|contractor|freelancer|officer|technician"
)
# A role word, or a word with a role's suffix; a trait ("a big reader", "a morning person") is not.
_ROLE = re.compile(
    r"\b(?i:i(?:'m| am)|i work as|i(?:'ve| have) been working as) (?:(?i:now|still|actually|also) )?"
    r"(?i:an? )(?P<v>(?:(?i:retired|former|semi-retired) )?(?:[a-z-]+ ){0,2}?"
    r"(?i:" + _ROLE_WORDS + r"|[a-z]{3,}(?:ist|ian|eer)))s?\b(?! (?i:of|at heart|by nature|friend))"
    r"|\b(?i:i (?:now |still )?work as|i(?:'ve| have) been working as) (?i:an? )"
    r"(?P<v2>[a-z][a-z-]+(?: [a-z][a-z-]+)?)"
    r"(?=[.,;!?—–]| (?:at|for|in|with|and|but|since|now)\b|$)"
)
# "I'm a dispatcher now", "I'm now a welder": any -er/-or noun is a role when it is said as the
# speaker's state now (a trait, "a big reader", is not said with "now", and its words are refused)
_ROLE_NOW = re.compile(
    r"\b(?i:i(?:'m| am)) (?:(?i:now|officially) )?(?i:an? )(?P<v>(?:[a-z-]+ )?[a-z]{3,}(?:er|or))"
    r"\b"
)
# "I got promoted to senior analyst", "they promoted me to charge nurse": the new role ("made" is
# not a cue: "I was made redundant" is no role)
_PROMOTED = re.compile(
    r"\b(?i:i(?:'ve| have)? (?:just |finally |officially )?(?:got|been|was) promoted to|"
    r"(?:they|[A-ZÀ-ÖØ-Þ][\w-]*) promoted me to) (?i:an? )?(?P<v>[a-z][a-z-]+(?: [a-z][a-z-]+){0,2}?)"
    r"(?=[.,;!?—–]| (?i:at|for|in|last|this|on|and|yesterday|today|now|after|starting)\b|$)"
)
_NOW_BEFORE = re.compile(r"(?i:now|officially) an? ")
_NOT_A_ROLE_WORD = frozenset(
    "big huge total bit little real true fan lover beginner member user reader learner eater sleeper riser "
    "talker worrier thinker believer newcomer foreigner stranger owner survivor".split()
)
_RETIRED = re.compile(r"\b(?i:i(?:'m| am) (?:now |happily |fully |recently )?retired|since i retired)\b")


def role(sentence: str) -> tuple[str, str] | None:
    """`fact:occupation` and the role the speaker says they are."""
    match = stated(_ROLE, sentence)
    if match is not None and not _NEGATION.search(sentence[max(0, match.start() - 12) : match.start()]):
        value = (match.group("v") or match.group("v2")).lower()
        if not set(value.split()) & _NOT_A_ROLE_WORD:
            return "fact:occupation", value
    promoted = stated(_PROMOTED, sentence)
    if promoted is not None and promoted.group("v").split()[0].lower() not in STOPWORDS:
        return "fact:occupation", promoted.group("v").lower()
    now = stated(_ROLE_NOW, sentence)
    if now is not None and (
        re.match(r" (?i:now|these days)\b", sentence[now.end() : now.end() + 12])
        or _NOW_BEFORE.search(now.group(0))
    ):
        value = now.group("v").lower()
        if not set(value.split()) & _NOT_A_ROLE_WORD and not _NEGATION.search(sentence[: now.start()][-12:]):
            return "fact:occupation", value
    retired = stated(_RETIRED, sentence)
    return None if retired is None else ("fact:occupation", "retired")


# -- a habit at a place ----------------------------------------------------------------------------

#: Verbs of a habit one keeps at a place (the verb is the subject: where one volunteers, sings, ...).
HABIT_VERBS = {
    "volunteer": "volunteer",
    "teach": "teach",
    "tutor": "tutor",
    "coach": "coach",
    "sing": "sing",
    "swim": "swim",
    "worship": "worship",
    "train": "train",
    "shop": "shop",
    "mentor": "mentor",
    "help out": "volunteer",
    "attend": "attend",
    "play": "play",
    "exercise": "exercise",
    "garden": "garden",
    "dance": "dance",
    "paint": "paint",
    "study": "study",
    "bank": "bank",
}
_GERUND = {
    "volunteering": "volunteer",
    "teaching": "teach",
    "tutoring": "tutor",
    "coaching": "coach",
    "singing": "sing",
    "swimming": "swim",
    "worshipping": "worship",
    "training": "train",
    "shopping": "shop",
    "mentoring": "mentor",
    "helping out": "volunteer",
    "attending": "attend",
    "playing": "play",
    "exercising": "exercise",
    "gardening": "garden",
    "dancing": "dance",
    "painting": "paint",
    "studying": "study",
    "banking": "bank",
}
_NOT_A_NAME = r"(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b)"
_PLACE_NAME = (
    r"(?:the |a |an )?(?:[A-ZÀ-ÖØ-Þ][\w&'.-]*(?:\s+(?:of |the |and |on |for )?"
    + _NOT_A_NAME
    + r"[A-ZÀ-ÖØ-Þ][\w&'.-]*){0,4})"
    r"(?:\s+(?i:choir|chorale|chorus|club|group|band|orchestra|team|league|society|church|library|school|"
    r"hospital|pantry|food bank|shelter|museum|gym|pool|center|centre))?"
)
_PLACE_PHRASE = (
    r"(?:the|a|an|our|my) (?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*"
    r"(?=\s+(?:on|every|each|in|at|with|twice|once|most|since|now|these|and|which|where|,)\b|[.,;!?—–]|$)"
)
_HABIT = re.compile(
    r"\b(?i:i|we)(?:'ve| have)?(?: (?i:now|still|also|usually|regularly|mostly|currently|started|begun|"
    r"been|just|recently|always|often|sometimes|normally|even))*"
    r" (?P<verb>(?i:" + "|".join(sorted({*HABIT_VERBS, *_GERUND}, key=len, reverse=True)) + r"))s?"
    r"(?: [a-z]+){0,2}? (?P<prep>(?i:at|for|with|in)) (?P<v>" + _PLACE_NAME + "|" + _PLACE_PHRASE + r")"
)
_GROUP_WORDS = re.compile(
    r"(?i:choir|chorale|chorus|club|group|band|orchestra|team|league|society|circle|ensemble|guild|"
    r"church|parish|congregation|center|centre|library|school|hospital|pantry|bank|shelter|museum|gym|"
    r"pool|y|ymca|studio)$"
)


def _place_value(text: str) -> str:
    words = text.split()
    if words and words[0].lower() in ("the", "a", "an", "our", "my"):
        words = words[1:]
    return " ".join(words).rstrip(".,;")


# "I taught at Lincoln Elementary for thirty years": a career, a lasting fact though in the past
_YEARS = (
    r"(?i:for (?:[\w-]+ )?(?:years|decades)|until i retired|before i retired|my whole career|all my life|"
    r"(?:[\w-]+ )?years (?:of )?(?:teaching|working|nursing)|after (?:[\w-]+ )?years)"
)
_CAREER = re.compile(
    r"\b(?i:i(?:'ve| have)? (?:taught|worked|served|volunteered|coached)|(?:teaching|working))"
    r"(?: [a-z-]+){0,3}? (?i:at|for) (?P<v>" + _PLACE_NAME + r")(?=[^.;!?]{0,40}\b" + _YEARS + ")"
    r"|\b(?i:i(?:'ve| have)? (?:just |finally )?retired from) (?P<v2>" + _PLACE_NAME + r")"
    r"|\b" + _YEARS + r"\b[^.;!?]{0,30}?(?i:teaching|working|nursing)(?: [a-z-]+){0,3}? (?i:at|for) "
    r"(?P<v3>" + _PLACE_NAME + ")"
)


def career(sentence: str) -> tuple[str, str] | None:
    """`fact:career`: where the speaker spent years working (one key whatever the verb: "I taught
    at X for years" and "I retired from X" are one career)."""
    match = stated(_CAREER, sentence)
    value = None if match is None else (match.group("v") or match.group("v2") or match.group("v3") or "")
    if match is None or not value or not value.strip()[:1].isupper():
        return None
    return "fact:career", _place_value(value)


def habit_place(sentence: str) -> tuple[str, str] | None:
    """`fact:<verb>-place` and where the speaker keeps that habit."""
    for match in re.finditer(_HABIT, sentence):
        if hearsay(match, sentence) or ONE_OFF.search(sentence):
            continue
        verb = match.group("verb").lower()
        value = _place_value(match.group("v"))
        named = value[:1].isupper()
        if not value or value.lower() in STOPWORDS:
            continue
        if match.group("prep").lower() in ("with", "in") and not _GROUP_WORDS.search(value.split()[-1]):
            continue  # "with Carol" is company, "in the rain" is weather: a place is a group or a site
        if not named and not _GROUP_WORDS.search(value.split()[-1]):
            continue  # "at the moment", "for the kids": a place is named, or is a kind of place
        subject = HABIT_VERBS.get(verb) or _GERUND.get(verb) or verb
        key = f"fact:{subject}-place"
        if _ALSO.search(sentence[: match.start("v")]):
            key = f"{key}-{slug(value, 30)}"
        return key, value
    return None


# -- a group one belongs to -------------------------------------------------------------------------

_GROUP_NOUNS = r"(?:club|choir|chorale|chorus|group|band|orchestra|team|league|society|circle|guild|ensemble)"
_JOINED = re.compile(
    r"\b(?i:i(?:'ve| have)? (?:just |recently |finally |now )?joined|i(?:'m| am) (?:now |still |also )?"
    r"(?:in|part of|a member of)|i belong to|we(?:'ve| have)? (?:just |recently )?joined) "
    r"(?i:an?|the|our|my) (?P<v>(?:[A-Za-z][\w'-]* ){0,3}?(?i:" + _GROUP_NOUNS + r"))\b"
)


def group(sentence: str) -> tuple[str, str] | None:
    """`fact:<activity>-group` of a group the speaker joined or belongs to ("I've joined the
    Sarasota Garden Club": `fact:garden-group`), keyed by the word before the group noun."""
    match = stated(_JOINED, sentence)
    if match is None or ONE_OFF.search(sentence):
        return None
    value = match.group("v")
    words = value.split()
    what = words[-2] if len(words) > 1 else words[-1]
    return f"fact:{slug(what)}-group", value


# -- people ----------------------------------------------------------------------------------------

#: Relations one has one of at a time: a new name is a change of the fact.
SINGLE_RELATIONS = frozenset(
    "partner wife husband spouse fiance fiancee girlfriend boyfriend boss manager mother father mom mum "
    "dad landlord landlady doctor dentist therapist gp".split()
)
#: Relations one may have several of: each name is a fact of its own.
MANY_RELATIONS = frozenset(
    "son daughter sister brother grandson granddaughter grandchild grandkid niece nephew cousin aunt uncle "
    "friend neighbour neighbor stepson stepdaughter grandma grandpa grandmother grandfather colleague "
    "coworker co-worker".split()
)


def relation_key(relation: str, name: str) -> str | None:
    """The key of a person by their relation to the speaker: by the relation alone when one has
    one of them, by the relation and the name otherwise; None for a word that is no relation."""
    low = relation.lower()
    low = {"mom": "mother", "mum": "mother", "dad": "father", "co-worker": "coworker"}.get(low, low)
    if low in SINGLE_RELATIONS:
        return f"fact:{low}"
    if low in MANY_RELATIONS:
        return f"fact:{low}-{slug(name, 30)}"
    return None


# -- a weekly activity's days ------------------------------------------------------------------------

_WEEKDAY = r"(?i:mon|tues|wednes|thurs|fri|satur|sun)(?i:day)s?"
_DAYS = rf"{_WEEKDAY}(?:(?:,| and|,? or) {_WEEKDAY})*"
_ACTIVITY = r"(?P<a>[A-Za-z][a-z-]+(?: [a-z][a-z-]+)?)"
_ACTIVITY_DAYS = (
    re.compile(
        rf"\b(?:(?i:my|our|the) )?{_ACTIVITY} (?i:is|are|meets|happens|has moved|moved|got moved|changed|"
        r"switched|now meets)(?: (?i:now|still|back|officially))?(?: (?i:to|on|over to))* "
        rf"(?P<every>(?i:every) )?(?P<d>{_DAYS})"
    ),
    re.compile(
        rf"\b(?i:i|we) (?:(?i:now|still|usually|also) )?(?i:have|go to|do|take|teach) (?:(?i:my|our) )?"
        rf"{_ACTIVITY} (?i:on) (?P<every>(?i:every) )?(?P<d>{_DAYS})"
    ),
)
_NOT_AN_ACTIVITY = STOPWORDS | frozenset(
    "it this that which what everything nothing something day week".split()
)


def activity_days(sentence: str) -> tuple[str, str] | None:
    """`fact:<activity>-schedule` and its weekly days."""
    for shape in _ACTIVITY_DAYS:
        match = shape.search(sentence)
        if (
            match is None
            or hearsay(match, sentence)
            or re.search(r"(?i:this|next|last) $", sentence[: match.start("d")])
        ):
            continue
        activity = match.group("a").lower()
        last = activity.split()[-1]
        if HEARSAY.search(sentence[: match.end("a") - len(last)]):
            continue  # "my sister said choir is on Mondays": the hearsay word is no activity
        if set(activity.split()) & _NOT_AN_ACTIVITY or (
            match.group("a")[:1].isupper() and match.start("a") > 0
        ):
            continue  # a name ("Sarah is on Mondays") is no activity; a sentence's first word may be one
        days = re.findall(_WEEKDAY, match.group("d"))
        if not (match.group("every") or any(d.lower().endswith("s") for d in days)):
            continue  # "on Thursday" is one date
        named = " and ".join(d.lower().rstrip("s") for d in days)
        return f"fact:{slug(activity)}-schedule", named
    return None


# -- a work tool said without "my" ---------------------------------------------------------------------

#: Subjects of the user's work setup that are said with "the"/"our" as often as "my": "Stack is
#: Selenium with Java", "and the stack here is Playwright with TypeScript", "our database is Postgres".
WORK_SUBJECTS = {
    "stack": "stack",
    "tech stack": "stack",
    "toolchain": "toolchain",
    "editor": "editor",
    "ide": "editor",
    "shell": "shell",
    "database": "database",
    "cloud": "cloud",
    "ci": "ci",
}
_WORK_TOOL = re.compile(
    r"(?:^|(?<=[.!?—–:;] )|(?<=, )|(?<=\b[Aa]nd )|(?<=\b[Bb]ut )|(?<=\b[Ss]o ))(?:(?i:the|our) )?(?P<s>(?i:"
    + "|".join(sorted(WORK_SUBJECTS, key=len, reverse=True))
    + r"))(?: (?i:here|now|at work))? (?i:is|['’]s) (?:(?i:now|still|all|mostly|basically) )?"
    # the value a name, up to the clause's end: "Playwright with TypeScript"
    r"(?P<v>[A-ZÀ-ÖØ-Þ][\w+#.-]*(?:(?: (?:with|and|on|in|\+)| ?,)? [A-ZÀ-ÖØ-Þ][\w+#.-]*){0,3})"
)


def work_tool(sentence: str) -> tuple[str, str] | None:
    """`fact:<subject>` of a work tool said as "(the) stack is X" (WORK_SUBJECTS), the value a name."""
    match = stated(_WORK_TOOL, sentence)
    if match is None or _NEGATION.search(sentence[match.end("s") : match.start("v")]):
        return None
    return f"fact:{WORK_SUBJECTS[match.group('s').lower()]}", match.group("v").rstrip(",")


SHAPE_READERS = (role, career, habit_place, activity_days, group, work_tool)
