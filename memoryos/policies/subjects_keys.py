"""Subject keys (pure): one subject said several ways gets one key, `fact:<subject>`."""

from __future__ import annotations

from memoryos.policies.capture import slug

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
    # one key for the days off however they are said (subjects_typed reads them as `fact:days-off`)
    "day-off": "days-off",
    "off-day": "days-off",
    "off-days": "days-off",
    "rest-day": "days-off",
    "rest-days": "days-off",
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
