"""Profile subjects said without "my X is" (pure): "I live in X", "I work at X", "I don't eat meat".

PROFILE_SUBJECTS is the first way memoryos.policies.subjects reads a subject (see its docstring):
each subject's phrasings and where its value is. What is NOT a lasting fact is refused by guards, not
by a list of values: an idiom ("I live in Neovim all day"), a stay ("based in Chicago this week"),
work on the side ("working for Acme as a contractor").
"""

from __future__ import annotations

import re

from memoryos.policies.mentions import ABBREVIATIONS
from memoryos.policies.subject_shapes import hearsay

# A name, its words capitalised but for a particle between two of them ("Tasca do Becco", "Bank of
# America", "Rio de Janeiro")
_PARTICLE = r"(?:de|do|da|dos|das|di|del|della|du|des|van|von|der|den|of|la|le|y)\s+"
_NAME = r"[A-ZÀ-ÖØ-Þ][\w&.'-]*(?:\s+(?:" + _PARTICLE + r")?[A-ZÀ-ÖØ-Þ][\w&.'-]*){0,3}"

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
            r"i(?:'m| am) (?:now |still )?(?:a|an|the) [\w -]{1,40}? (?:at|for)|"
            # the role, then where: "I work as chef de partie on the grill at X"
            r"i (?:now |still )?work as (?:an? |the )?[\w -]{1,40}? (?:at|for)|"
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
            # "I live in a WG in Freiburg", "we rent a flat in Leith": the place, not the dwelling
            r"\b(?i:(?:i|we) (?:now |still |both )?(?:live in|rent|share) (?:a|an|the|our|my) "
            r"(?:[\w-]+ ){0,2}?"
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
            # "I found a T1 in X", "we rented a two-bedroom in X": the home found, by its kind or size
            r"(?:i|we)(?:'ve| have)? (?:just |recently |finally |now )?"
            r"(?:moved into|downsized to|bought|found|rented|signed for) "
            r"(?:a|an|the|our|my) (?:(?:new|little|small|lovely|own|tiny|cosy|cozy|nice|cheap) )*"
            r"(?:house|home|place|condo|flat|apartment|bungalow|cottage|townhouse|townhome|studio|room|"
            r"bedsit|loft|t[0-4]|(?:one|two|three|[1-4])[- ]bed(?:room)?(?: flat| apartment| place)?) in|"
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
            # where the speaker is from, not where they live: "I'm from Chicoutimi originally", "I'm a
            # cook from Belo Horizonte", "I grew up in Leeds" (`fact:origin`: a home can change, the
            # origin is restated); "I'm back from X", "I'm writing from X" are no origin
            "origin",
            r"\b(?i:i(?:'m| am) (?:originally |actually |also )?from|"
            r"i(?:'m| am) (?:an? |the )(?!(?i:long|short|few|way|couple)\b)(?:[\w-]+ ){0,3}?[\w-]+ "
            r"(?:originally )?from|"
            r"i (?:originally )?come from|i(?:'m| am) (?:originally )?(?:a |an )?native of|"
            r"i was (?:born and raised|born|raised) in|i grew up in)\s+(?P<v>" + _NAME + r")(?!\w)",
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
            r"\b(?P<v>[A-ZÀ-ÖØ-Þ][a-z]+) is (?i:actually |really )?my (?i:first|native|mother) "
            r"(?i:language|tongue)|\b(?i:i(?:'m| am) a native) (?P<v2>[A-ZÀ-ÖØ-Þ][a-z]+) (?i:speaker)|"
            # "as a native Tamil speaker, I ...": the phrase is the speaker's only when "I" follows
            r"\b(?i:as a native) (?P<v5>[A-ZÀ-ÖØ-Þ][a-z]+) (?i:speaker),? (?=I\b)|"
            r"\b(?i:i grew up speaking) (?P<v3>[A-ZÀ-ÖØ-Þ][a-z]+)|"
            # the language named before "it's what I grew up speaking" / "it's my first language"
            r"\b(?!(?i:my|i|the|we|our|it|so|and|but|even|also)\b)(?P<v4>[A-ZÀ-ÖØ-Þ][a-z]+)\b[^.;!?]{0,50}?\b"
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


def _one_sentence(value: str) -> str:
    """A value cut where its sentence ends ("Abilene. I'm out" is "Abilene."), an abbreviation's
    full stop aside ("St. Brendan's")."""
    for end in re.finditer(r"[.!?]\s+", value):
        word = re.findall(r"[\w'-]+$", value[: end.start()])
        if not word or word[0].lower() not in ABBREVIATIONS:
            return value[: end.start() + 1]
    return value


def profile_value(subject: str, match: re.Match[str], sentence: str) -> str | None:
    value = next((v for name, v in match.groupdict().items() if name.startswith("v") and v), None)
    if value is None or hearsay(match, sentence):
        return None
    value = _one_sentence(value)
    if match.groupdict().get("bare") and not _FIRST_PERSON.search(sentence[: match.start()]):
        return None  # ", based in X" is the speaker's home only in a sentence about the speaker
    return DIET_SAID.get(value.lower(), value) if subject == "diet" else value
