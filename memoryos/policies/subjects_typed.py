"""Subjects of a kind, each read by a function of its own (pure): TYPED_READERS.

The third way memoryos.policies.subjects reads a subject (see its docstring): a named project's
milestone, a dated event, a work shift, a car, the usual drink, the language being learned, a pet,
the reply layout, a weekly activity's days, the days off, smoking (or having quit), a group
activity, a household count, a new thing named;
then the readers by sentence structure of memoryos.policies.subject_shapes. Allergies are read by
`allergies` (a sentence may name several).
"""

from __future__ import annotations

import re

from memoryos.policies.capture import slug
from memoryos.policies.subject_shapes import HEARSAY, SHAPE_READERS, hearsay, stated
from memoryos.policies.text import STOPWORDS

_hearsay, _stated = hearsay, stated  # memoryos.policies.subject_shapes

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
_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w-]+\b")


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
    r"(?:" + "|".join(CAR_MAKES) + r") (?P<v>[A-ZÀ-ÖØ-Þ0-9][\w-]*)"
    # the vehicle one gets about on, by its name: "I go everywhere on my Activa", "I commute on my Vespa"
    r"|\b(?i:(?:i|we) (?:usually |mostly |always |still |now |just )?"
    r"(?:go|get|ride|commute|travel|zip|get around)"
    r"(?: everywhere| around| to work| to the office| to college)?"
    r" on (?:my|our) (?:old |trusty |little |beloved )?)(?P<v2>[A-ZÀ-ÖØ-Þ][\w-]*(?: [A-ZÀ-ÖØ-Þ0-9][\w-]*)?)"
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
_NAME_WORD = re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-z]+\b")


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


#: The days off of a shift worker: "my days off are Sunday and Monday", "my days off stay Sunday
#: and Monday", "we close Tuesday and Wednesday, so those are my days off now", "About the days off:
#: still Tuesday and Wednesday" (`fact:days-off`, the value the days, as _schedule says them).
_OFF = r"(?i:days? off|off[- ]days?|rest days?)"
_DAYS_OFF = (
    re.compile(
        r"\b(?i:my) " + _OFF + r" (?i:(?:is|are|stay|stays|remain|remains|will be|have been|has been|"
        r"(?:have |has )?(?:moved|changed|switched) to)(?: now| still)?(?: on)?) (?P<d>" + _DAYS + ")"
    ),
    re.compile(
        rf"\b(?P<d>{_DAYS})\b[^.;!?]{{0,60}}\b(?i:those are|that's|they're|these are) (?i:now )?(?i:my) "
        + _OFF
    ),
    re.compile(
        r"\b(?i:about|as for|re) (?i:the |my )?"
        + _OFF
        + r": (?i:still |now |it's |they're )*(?P<d>"
        + _DAYS
        + ")"
    ),
)


def _days_off(sentence: str) -> tuple[str, str] | None:
    for shape in _DAYS_OFF:
        match = _stated(shape, sentence)
        if match is not None:
            days = " and ".join(d.lower().rstrip("s") for d in re.findall(_WEEKDAY, match.group("d")))
            return "fact:days-off", days
    return None


#: Whether the speaker smokes or vapes: "I smoke, half a pack a day" (`fact:smoking`, "smoker"), "I
#: quit smoking", "I've stopped vaping", "I gave up cigarettes" ("quit smoking"): one fact, so that
#: quitting is a change of it. Someone else's habit ("he smokes") and a question ("asked if I still
#: smoke": hearsay) are not the speaker's.
_SMOKES = re.compile(
    r"\b(?i:i (?:still |now |usually |also )?(?P<v>smoke|vape))\b(?! (?i:meat|fish|salmon|out))"
)
_QUIT_SMOKING = re.compile(
    r"\b(?i:i(?:'ve| have)? (?:just |finally |officially |completely )?"
    r"(?:quit|stopped|gave up|given up|kicked) (?:the )?(?P<v>smoking|vaping|cigarettes|the cigarettes|"
    r"the vape|cigs))\b|\b(?i:i (?:don't|do not|no longer) (?P<v2>smoke|vape))(?! (?i:meat|fish))\b"
)
_HABIT_WORD = {"smoke": "smoking", "vape": "vaping", "vaping": "vaping"}


def _smoking(sentence: str) -> tuple[str, str] | None:
    quit = _stated(_QUIT_SMOKING, sentence)
    if quit is not None:
        habit = _HABIT_WORD.get((quit.group("v") or quit.group("v2") or "").lower(), "smoking")
        return f"fact:{habit}", f"quit {habit}"
    smokes = _stated(_SMOKES, sentence)
    if smokes is None:
        return None
    habit = _HABIT_WORD[smokes.group("v").lower()]
    return f"fact:{habit}", "smoker" if habit == "smoking" else "vaper"


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
    + r"))(?:,| (?i:named|called))? (?P<v>[A-ZÀ-ÖØ-Þ][a-z]+)\b"
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
    r"(?P<v>[A-ZÀ-ÖØ-Þ][\w-]*(?: [A-ZÀ-ÖØ-Þ0-9][\w-]*){0,2})"
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


def allergies(sentence: str) -> list[tuple[str, str]]:
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
    _days_off,
    _smoking,
    _club,
    household_count,
    _new_thing,
    *SHAPE_READERS,
)
