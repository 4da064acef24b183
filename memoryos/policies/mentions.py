"""Value mentions and change cues: how a later turn restates or retires a known fact (pure).

Reconciliation (memoryos.extraction.reconcile) reads a user sentence that states no subject of
its own ("it'll be a Tableau workbook again", "goodbye Tableau") against the values the scope's
facts hold. These are the rules, deterministic and table-light:

1. **A value's marks** (`marks`): the words that identify it when it is mentioned in passing.
   A value read by the subject tables (memoryos.policies.subjects) is marked by its proper nouns
   ("Acme Robotics", "R"), or, when it has none and is short (at most 3 content words: "bike",
   "gluten-free"), by its content words. A record without a table value is marked by the proper
   nouns of its body, a sentence's first word aside (it is capitalised whatever it is). Never a
   stopword, the pronoun "I", a weekday or a month (a time, not a value).
2. **A mention** (`mentioned`): a mark occurs in the sentence. A short mark (at most 3 letters) or
   an all-caps one must occur with the same case ("R" is not "r", "OAK" is not "oak"); a longer
   one is compared lower-cased and stemmed, a possessive aside ("Biscuit's" mentions Biscuit).
   A name of several words is mentioned by the whole name, or by its first word when that is 4
   letters or more ("Lumen" mentions "Lumen Health"), or by its initials in capitals, standing
   alone ("SF" is "San Francisco"; the "BI" of "Power BI" is not "Bellwether Insurance"), or by
   its last word when that is a model designation, letters and digits ("the S21" is "Galaxy
   S21"). A name after a title (TITLES: "Prof. Katrin Lehmann") is mentioned by its surname, never
   by the title alone. A name is a run of capitalised (or camel-case: "iPhone") words within one
   sentence. A value that holds a count ("three kids") is one mark: "the kids" does not mention it.
3. **A retirement** (`retired`): a change cue that names a value as the one given up. Forward cues
   take the value within RETIRE_WINDOW characters after them ("goodbye X" — not "an emotional
   goodbye, even X cried", the farewell itself, followed by punctuation —, "no longer (using) X",
   "stopped using X", "switched from X", "replaced X with", "ditched X", "traded in X", "swapped
   X", "gave up X", "bought a new X": a new one of a named thing replaces the old one; a new value
   said against the old: "Y instead of X", "Y rather than X", "Y, not X" where Y is a name or a
   number, not a pronoun: "I'm not X" corrects nothing; "gave away X", "had to sell X", "rehomed
   X"); backward cues take it within RETIRE_WINDOW characters before them ("X is (basically)
   retired", "X has been handed down", "X was replaced", "X is gone", "X finally died", "X gave
   up the ghost", "X passed away": "died" alone is as often a flat battery).
   "moved/switched/changed X to ..." retires the record that holds the word X ("I moved climbing
   to Mondays"). Also cues of a job ended ("laid off from X", "resigned from X"), of a home left
   ("moved out of X") and of a value dropped ("moved on from X", "I'm done with X"). A thing one
   owns (reconcile.OWNED: a pet, a car, a phone, a job) is also retired by its noun right beside
   a forward cue or an end for good ("we had to give away the dog", "the car finally died"; "my
   phone is dead" is not one).
4. **Guards**: a hypothetical ("if I ever", "I'd", "would", "might", "thinking of"), a temporary
   state ("this week", "for now", "for today", "until", "house-sitting"), a question about a change ("Should I
   take X instead of Y?": a clause opening with an auxiliary, ending with "?"), a negated cue ("not
   switching"), or
   another person's change ("my friend", "a coworker", "she", "he", "they" before the cue, or
   before the thing a backward cue retires: "my sister's laptop died") is not a change: such a
   sentence may still restate a value (a mention), never retire one. "This week(end)" after a
   change done for good ("sold", "traded in", "gave away", "quit", "left") dates it, and does not
   guard it ("traded in the truck this weekend"). A guard is read in the cue's own sentence: a
   retirement joined to its neighbour (rule 5) keeps "I sold the Buick." whatever "Buses only
   for now." says.
5. **A retirement and its replacement** (`statements`): a sentence that retires a value but states
   no subject of its own ("... which means goodbye Tableau.") is read with the next sentence of
   its turn, or the previous one when it is the last, if that one states no subject either: the
   new value is usually said right beside it ("Everything I build now goes into Power BI.").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memoryos.policies.text import STOPWORDS
from memoryos.retrieval.terms import stem

RETIRE_WINDOW = 30
_WORD = re.compile(r"[\w][\w'’+#.-]*[\w+#]|[\w]")
TIME_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays "
    "fridays saturdays sundays january february march april may june july august september october "
    "november december today tomorrow yesterday".split()
)
#: Titles before a person's name: such a name is mentioned by its surname (mentions, rule 2).
TITLES = frozenset("prof professor dr doctor mr mrs ms mx sir dame".split())
#: A count: a value that holds one ("three kids") is mentioned only with it.
COUNT_WORDS = frozenset("one two three four five six seven eight nine ten".split())
_FORWARD = re.compile(
    r"\b(?i:goodbye(?: to)?|bye bye|farewell to|no longer (?:use|using|have|drive|with|at)?|"
    r"stopped using|switched (?:away |over )?from|moved (?:away |on )?from|moved out of|"
    r"replaced(?: my| the| our)?|"
    # "I'm done with X", "we're officially done with X": a value given up
    r"(?:i(?:'m| am)|we(?:'re| are)) (?:so |totally |officially |finally )?done with(?: my| the| our)?|"
    # a job ended: "I got laid off from X", "I resigned from X", "they let me go from X"
    r"(?:got |was |been )?laid off (?:from|by|at)|let (?:me )?go (?:from|by|at)|(?:got |was )?fired from|"
    r"resigned from|left my job (?:at|with)|"
    r"ditched(?: my| the)?|(?:bought|got) (?:a|an|myself a|us a) new|"
    r"traded (?:in )?(?:my |the |our )?|swapped (?:out )?(?:my |the |our )?|"
    r"gave up(?: on)?(?: my| the)?|got rid of(?: my| the)?|sold(?: my| the| our)?|"
    r"quit(?: my| the)?|"
    # a pet or a thing parted with: "we had to give away the dog", "we rehomed the cat"
    r"gave away|(?:had|have had) to (?:give away|give up|sell|get rid of)|re-?homed|"
    # a new value said against the old one: "the DFW desk instead of the Panhandle"
    r"instead of(?: my| the| our)?|rather than(?: my| the| our)?|"
    r"(?:i|we)(?:'ve| have)? (?:stopped|quit) \w+ing (?:at |with |in |for |on |to |the |my |our )*|"
    # "I've left St. Brendan's.": a place left for good, not "I left Biscuit with my sister"
    r"(?:i|we)(?:'ve| have)? left(?= (?:my |the |our )?(?-i:[A-ZÀ-ÖØ-Þ][\w'.&-]*(?: [A-ZÀ-ÖØ-Þ][\w'.&-]*)*)"
    r"(?:[.,;!?—–]|$| (?:last|after|and|to|for good|in (?:19|20)\d\d))))\b"
)
# "goodbye" as a noun, the farewell itself, is followed by punctuation, not by what is given up
_FAREWELL_NOUN = re.compile(r"(?i:goodbye|bye bye)$")
# "I don't drive the Buick any more": a negation, the value, then "any more" (the value between)
_NOT_ANY_MORE = re.compile(
    r"\b(?i:don't|do not|doesn't|can't|cannot|won't|not|never)\b"
    r"(?P<what>(?:[^.;!?]|\.(?= [A-ZÀ-ÖØ-Þ])){1,40}?)\b(?i:any ?more|any longer)\b"
)
_BACKWARD = re.compile(
    r"\b(?i:(?:is|was|has been|have been|got|are) (?:basically |now |officially |finally |been )*"
    r"(?:retired|handed down|replaced|sold|gone|history|dead))\b"
)
# A thing's end for good: "the S21 finally died", "the old laptop gave up the ghost", "Pepper passed
# away". "My phone died" alone is a flat battery as often as an end, so "died" wants "finally" (or
# "for good"); these are the backward cues that retire an owned thing by its noun too ("the car").
_ENDED = re.compile(
    r"\b(?i:(?:finally|completely|totally|officially) (?:died|broke down|gave out|conked out)|"
    r"died for good|gave up the ghost|bit the dust|passed away|was put down|was put to sleep)\b"
)
# "March 2028, not September 2027", "it's Rosa not Rosie": a value, then "not" and the value it
# corrects (the word before "not" is a name or a number, so "I'm not X" is no correction)
_CONTRAST = re.compile(r"(?<![\w'’])(?P<w>[A-ZÀ-ÖØ-Þ0-9][\w'’-]*),? (?:and )?not(?= )")


def _contrasts(sentence: str) -> list[re.Match[str]]:
    """The "X, not Y" cues of a sentence whose X is a value: no pronoun or function word ("I'm not",
    "Why not", "It's not")."""
    return [
        m
        for m in _CONTRAST.finditer(sentence)
        if m.group("w").isdigit()
        or (re.split(r"['’]", m.group("w").lower())[0] not in STOPWORDS | {"i"} and _proper(m.group("w")))
    ]


_MOVED_WHAT = re.compile(
    r"\b(?i:moved|switched|changed|shifted|rescheduled) (?:my |our |the )?(?P<what>[a-z]+) (?i:to|over to)\b"
)
HYPOTHETICAL = re.compile(
    r"\b(?i:if i|if we|i'd|we'd|i would|we would|would|might|maybe|thinking (?:of|about)|considering|"
    r"wish|suppose|in case)\b"
)
TEMPORARY = re.compile(
    r"\b(?i:this week|this weekend|for now|until|for a (?:few|couple)|house-sitting|visiting|on holiday|"
    r"on vacation|for the (?:week|weekend|day)|for today|for tonight)\b"
)
OTHER_PERSON = re.compile(
    r"\b(?i:my (?:best )?friend|a (?:friend|coworker|co-worker|colleague)|my (?:coworker|colleague|manager|"
    r"boss|brother|sister|partner|wife|husband|mom|mum|dad|neighbou?r)|someone|he|she|they|his|her)\b"
)
_NEGATED = re.compile(r"\b(?i:not|never|won't|isn't|don't|didn't)\b")


def words(text: str) -> list[tuple[str, int]]:
    """(word, start) of each word, a possessive aside ("Biscuit's" is "Biscuit")."""
    out = []
    for m in _WORD.finditer(text):
        word = re.sub(r"['’]s$", "", m.group(0)).rstrip(".")
        if word:
            out.append((word, m.start()))
    return out


def _proper(word: str) -> bool:
    low = word.lower()
    return (
        # a brand written in camel case ("iPhone", "eBay") is a name too, and so is a model that
        # opens with a digit ("the Ather 450X": one name, which "the Ather" mentions)
        (
            word[:1].isupper()
            or bool(re.fullmatch(r"[a-z]{1,2}[A-ZÀ-ÖØ-Þ][\w'’+#.-]*", word))
            or (_model(word) and word[:1].isdigit() and any(c.isupper() for c in word))
        )
        and low not in STOPWORDS
        and low not in TIME_WORDS
        and re.split(r"['’]", low)[0] != "i"  # I, I've, I'm, I'd
        and not word.isdigit()
    )


def _runs(ws: Sequence[tuple[str, int]], skip_first: bool, text: str = "") -> list[tuple[str, ...]]:
    """Runs of consecutive proper words ("Power BI", "Queen Street"); given the `text` the words
    are of, a run ends with its sentence ("Prof. Katrin Lehmann. Super kind" is two runs)."""
    runs: list[list[str]] = []
    previous = -2
    for index, (word, _) in enumerate(ws):
        if skip_first and index == 0:
            continue
        if _proper(word):
            if index == previous + 1 and runs and not _sentence_between(ws, index, text):
                runs[-1].append(word)
            else:
                runs.append([word])
            previous = index
    return [tuple(r) for r in runs]


def _sentence_between(ws: Sequence[tuple[str, int]], index: int, text: str) -> bool:
    """Whether a sentence ends between word `index - 1` and word `index` of `text`."""
    (before, at), (_, start) = ws[index - 1], ws[index]
    gap = text[at + len(before) : start]
    return bool(re.search(r"[.!?]", gap)) and before.lower() not in ABBREVIATIONS


Mark = tuple[str, ...]  # a name of one or more words


def marks(value: str | None, body: str) -> tuple[Mark, ...]:
    """The marks of a record (rule 1): of its table value if it has one, else of its body."""
    if value is not None:
        named = _runs(words(value), skip_first=False)
        if named:
            # the whole name the body says the value in: "LaCrosse" of "my Buick LaCrosse"
            # is marked "Buick LaCrosse", which a later "the Buick" mentions (rule 2)
            whole = [r for r in _runs(words(body), skip_first=False, text=body) if _contains(r, named)]
            # "St. Paul's choir": the name with its common noun, which a later "the choir" names
            said = tuple(w for w, _ in words(value) if w.lower() not in STOPWORDS)
            tail = [said] if len(said) > len(named[0]) and said[: len(named[0])] == named[0] else []
            return tuple(dict.fromkeys([*whole, *named, *tail]))
        content = [w for w, _ in words(value) if w.lower() not in STOPWORDS and len(w) > 1]
        if any(w.lower() in COUNT_WORDS or w.isdigit() for w in content):
            return (tuple(content),) if len(content) <= 3 else ()  # "three kids", never "the kids"
        return tuple((w,) for w in content) if 0 < len(content) <= 3 else ()
    first_words = {s.start() for s in re.finditer(r"(?:^|(?<=[.!?:]))\s*\S", body)}
    out: list[Mark] = []
    ws = words(body)
    for run in _runs(ws, skip_first=False, text=body):
        start = next(s for w, s in ws if w == run[0])
        if any(abs(start - f) <= 2 for f in first_words) and len(run) == 1:
            continue  # a sentence's first word is capitalised whatever it is
        out.append(run)
    return tuple(dict.fromkeys(out))


def _contains(run: Mark, named: Sequence[Mark]) -> bool:
    """Whether a name of the body is longer than, and holds, one of the value's names."""
    return any(len(run) > len(n) and any(run[i : i + len(n)] == n for i in range(len(run))) for n in named)


def _same(mark: str, word: str) -> bool:
    if len(mark) <= 3 or mark.isupper():
        return mark == word
    return stem(mark.lower(), "english") == stem(word.lower(), "english")


def _alone(texts: Sequence[str], i: int) -> bool:
    """A word not part of a longer name ("SF" alone, not the "BI" of "Power BI")."""
    return not any(0 <= j < len(texts) and _proper(texts[j]) for j in (i - 1, i + 1))


def _mention_at(mark: Mark, ws: Sequence[tuple[str, int]]) -> int | None:
    """Where `mark` is mentioned among `ws` (rule 2), or None."""
    texts = [w for w, _ in ws]
    for i in range(len(texts)):
        if all(i + j < len(texts) and _same(m, texts[i + j]) for j, m in enumerate(mark)):
            return ws[i][1]
    if len(mark) > 1 and mark[0].lower() in TITLES:
        # "Prof. Katrin Lehmann" is "Lehmann" or "Prof. Lehmann", never "Prof." alone (another professor)
        return next((ws[i][1] for i, word in enumerate(texts) if _same(mark[-1], word)), None)
    if len(mark) > 1:
        initials = "".join(m[0] for m in mark).upper()
        for i, word in enumerate(texts):
            if (len(mark[0]) >= 4 and _same(mark[0], word)) or (word == initials and _alone(texts, i)):
                return ws[i][1]
            # "the S21" is "Galaxy S21": a name by its last word when that is a model (letters and digits)
            if _model(mark[-1]) and word == mark[-1]:
                return ws[i][1]
            # "the pantry" is "Oakwood Food Pantry": a name by its last word, a common noun, after "the"
            if (
                i
                and texts[i - 1].lower() == "the"
                and _head(mark)
                and _same(mark[-1], word)
                and _alone(texts, i)
            ):
                return ws[i - 1][1]
    return None


def _model(word: str) -> bool:
    """A model designation: letters and digits in one word ("S21", "F-150", "RAV4")."""
    return bool(re.search(r"\d", word) and re.search(r"[A-Za-z]", word)) and len(word) >= 3


def _head(mark: Mark) -> bool:
    """A name of three words or more whose last word is a common noun of four letters or more
    ("Sarasota Public Library"): the name a later "the library" refers to."""
    return (
        len(mark) >= 3 and len(mark[-1]) >= 4 and mark[-1].lower() not in STOPWORDS and not mark[-1].isupper()
    )


def mentioned(sentence: str, record_marks: Sequence[Mark]) -> int | None:
    """The first position in `sentence` where one of a record's marks is mentioned, or None."""
    ws = words(sentence)
    found = [at for at in (_mention_at(m, ws) for m in record_marks) if at is not None]
    return min(found) if found else None


# A change done for good, dated "this week": "traded in the truck this weekend" is when it was done,
# not a stay ("swapped" and "switched" are not among them: a swapped shift is often a one-off)
_DONE_FOR_GOOD = re.compile(
    r"\b(?i:sold|traded(?: in)?|replaced|ditched|got rid of|gave away|re-?homed|quit|left)\b[^.;!?]{0,60}?"
    r"\b(?i:this (?:week|weekend))\b"
)


def _temporary(sentence: str) -> bool:
    """A temporary state; "this week(end)" after a change done for good only dates it."""
    found = [m.group(0).lower() for m in TEMPORARY.finditer(sentence)]
    if not found:
        return False
    dated = {"this week", "this weekend"}
    return not (set(found) <= dated and _DONE_FOR_GOOD.search(sentence))


# A question asks about a change, it does not report one: "Should I take X instead of Y?", "Do you
# think I should quit X?" (a clause that opens with an auxiliary or "should I", and ends with "?")
_QUESTION = re.compile(
    r"(?:^|[,;:—–] )(?i:should|shall|could|can|do|does|did|is|are|was|will|would|what if|how about|"
    r"why not|any reason)\b[^.!?]*\?\s*$|\b(?i:should i|should we)\b[^.!?]*\?\s*$"
)


def guarded(sentence: str) -> bool:
    """Rule 4: a hypothetical or temporary sentence states no change."""
    return bool(HYPOTHETICAL.search(sentence) or _temporary(sentence))


def _asked_from(sentence: str) -> int:
    """Where the sentence's closing question begins (its length if none): a cue from there on is
    asked about ("..., should I switch from X?"), one before it is reported ("I quit X, can you
    update my CV?")."""
    asked = _QUESTION.search(sentence)
    return len(sentence) + 1 if asked is None else asked.start()


def _cue_ok(sentence: str, start: int) -> bool:
    before = sentence[max(0, start - 40) : start]
    return not _NEGATED.search(before[-12:]) and not OTHER_PERSON.search(before)


_OWNED_ADJ = r"(?:(?i:old|poor|beloved|trusty|little) )?"


def _owned(text: str, nouns: Sequence[str], *, after: bool = True) -> bool:
    """Whether `text` names one of `nouns` as the speaker's thing ("the dog", "my old car") right
    after a forward cue (which may have taken the possessive: "quit my| job"), or right before a
    backward one ("the car| finally died")."""
    owner = r"(?i:the|my|our) "
    for noun in nouns:
        said = rf"{_OWNED_ADJ}(?i:{re.escape(noun)})\b"
        shape = rf"^ ?(?:{owner})?{said}" if after else rf"\b{owner}{said}\s*$"
        if re.search(shape, text):
            return True
    return False


def _live(sentence: str, start: int, asked: int) -> bool:
    """A cue at `start` is reported, not asked about, and its own sentence is not guarded (rule 4)."""
    return start < asked and not guarded(_own_sentence(sentence, start))


def retired(
    sentence: str, record_marks: Sequence[Mark], body_words: frozenset[str], nouns: Sequence[str] = ()
) -> bool:
    """Rule 3: the sentence gives up the value the marks (or, for "moved X to", `body_words`, the
    stemmed words of the record) stand for, or the thing one owns that `nouns` name ("we had to
    give away the dog", "the car finally died"); never in a guarded sentence (rule 4)."""
    if not record_marks and not body_words and not nouns:
        return False
    asked = _asked_from(sentence)
    for cue in (*_FORWARD.finditer(sentence), *_contrasts(sentence)):
        after = sentence[cue.end() : cue.end() + RETIRE_WINDOW]
        # "a very emotional goodbye, even Mr Whitfield cried": a farewell said, nothing given up
        farewell = _FAREWELL_NOUN.match(cue.group(0)) and re.match(r"\s*[,;:.!?—–]", after)
        if (
            not farewell
            and _live(sentence, cue.start(), asked)
            and _cue_ok(sentence, cue.start())
            and (mentioned(after, record_marks) is not None or _owned(after, nouns))
        ):
            return True
    ended = [(cue, True) for cue in _ENDED.finditer(sentence)]
    for cue, for_good in [(cue, False) for cue in _BACKWARD.finditer(sentence)] + ended:
        before = sentence[max(0, cue.start() - RETIRE_WINDOW) : cue.start()]
        # whose the thing is, is said before it: "my sister's Zenbook finally died" is hers
        if (
            _live(sentence, cue.start(), asked)
            and _cue_ok(sentence, cue.start() - len(before))
            and _cue_ok(sentence, cue.start())
            and (
                mentioned(before, record_marks) is not None
                or (for_good and _owned(before, nouns, after=False))  # "my phone is dead": a battery
            )
        ):
            return True
    for cue in _NOT_ANY_MORE.finditer(sentence):
        someone = OTHER_PERSON.search(sentence[max(0, cue.start() - 40) : cue.start()])
        if (
            not someone
            and _live(sentence, cue.start(), asked)
            and mentioned(cue.group("what"), record_marks) is not None
        ):
            return True
    for cue in _MOVED_WHAT.finditer(sentence):
        what = cue.group("what").lower()
        if (
            _live(sentence, cue.start(), asked)
            and what not in STOPWORDS
            and _cue_ok(sentence, cue.start())
            and stem(what, "english") in body_words
        ):
            return True
    return False


_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)")


def _own_sentence(text: str, at: int) -> str:
    """The sentence of `text` that holds position `at`: a rule-5 join ("I sold the Buick. Buses
    only for now.") is guarded by the sentence of its cue, not by its neighbour's "for now"."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    end = _SENTENCE_END.search(text, at)
    return text[start : end.end() if end else len(text)]


def retires_something(sentence: str) -> bool:
    """Whether a sentence has a retirement cue at all (for rule 5)."""
    cues = (_FORWARD, _BACKWARD, _ENDED, _MOVED_WHAT, _NOT_ANY_MORE)
    return not guarded(sentence) and (any(cue.search(sentence) for cue in cues) or bool(_contrasts(sentence)))


def statements(parts: Sequence[str], states_subject: Callable[[str], bool]) -> list[str]:
    """Rule 5: a turn's sentences, a retirement without a subject of its own joined to its
    neighbour (the next one, else the previous one) when that states no subject either."""
    out = list(parts)
    index = 0
    while index < len(out):
        sentence = out[index]
        if retires_something(sentence) and not states_subject(sentence) and len(out) > 1:
            other = index + 1 if index + 1 < len(out) else index - 1
            if not states_subject(out[other]):
                low, high = sorted((index, other))
                out[low : high + 1] = [f"{out[low]} {out[high]}"]
                index = low + 1
                continue
        index += 1
    return out


#: Abbreviations that end in a full stop but not a sentence when a name follows ("St. Brendan's",
#: "Dr. Okafor", "Mt. Rainier"): the sentence splitter cuts after them, and a cut name loses its value.
ABBREVIATIONS = frozenset("st dr mr mrs ms mt ft jr sr prof rev gen capt sgt ave rd no".split())
_ABBREVIATED = re.compile(r"(?:^|\s)(?P<a>[A-Za-z]+)\.$")


def rejoin_abbreviations(parts: Sequence[str]) -> list[str]:
    """Sentences rejoined where the cut came after an abbreviation and before a capital."""
    out: list[str] = []
    for part in parts:
        ended = _ABBREVIATED.search(out[-1]) if out else None
        if ended and ended.group("a").lower() in ABBREVIATIONS and part[:1].isupper():
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out
