"""Standing instructions stated as obligations rather than imperatives: "Commits must always be
signed", "You have to run the linter before every push", "Standing rule: no force pushes",
"PRs need to be reviewed by two people", "From this point forward, answer in English". Pure
patterns; `memoryos.policies.capture.imperative` asks `obligation()` after its own imperative table.

An obligation is a rule only when it is general: said to the agent (you, we), about a class of
things (plural or quantified: commits, every PR, all migrations), or with a marker of permanence.
"It has to be the DNS", "The build must be broken", "I have to leave early" state a guess or a
speaker's own errand, not a rule; questions and one-offs are refused before this is asked.
"""

from __future__ import annotations

import re

from memoryos.policies import commands_imperatives as imperatives
from memoryos.policies import commands_languages as languages

_FLAGS = re.IGNORECASE

#: Words that make a sentence about every occasion, not this one.
_GENERAL = re.compile(
    r"\b(?:always|never|every|each|all|any|whenever|unless|only|at all times|without exception|"
    r"no exceptions|by default|under no circumstances|in no case|ever)\b",
    _FLAGS,
)
#: Anywhere in the sentence: the order is a standing one, whatever its grammar.
_PERMANENT = re.compile(
    r"\b(?:standing|house|hard|golden|ground|team|firm|strict|permanent|general|non-negotiable)\s+"
    r"(?:rule|order|instruction|policy|requirement|convention)s?\b"
    r"|\b(?:moving forward|from this point(?: on| forward|onwards?)?|from here on(?: out)?|"
    r"from here onwards?|"
    r"from today(?: on| onwards?)?|hereafter|every single time|each and every time|without fail|"
    r"until further notice|until (?:i|we) say otherwise|"
    r"until told otherwise|in (?:all )?future (?:sessions|work|changes|commits|prs|runs|deploys)|"
    r"for all future|at all times|without exception|under no circumstances|as a (?:standing )?rule|"
    r"as (?:a matter of )?policy|make it a (?:rule|habit)|get in the habit of|"
    r"(?:our|the|my|team|house|our team|project|company) "
    r"(?:rule|policy|convention|style|practice|standard|norm)s? (?:is|are)|it(?:'s| is) (?:a|our) rule)\b"
    r"|\bwhenever (?:you|we)\b"
    r"|\bi (?:want|need|expect|would like|'d like) you to (?:always|never)\b",
    _FLAGS,
)
_MODAL = (
    r"(?:must|shall|has to|have to|needs? to|is required to|are required to|is expected to|"
    r"are expected to|is to|are to|ought to|got to|should)"
)
#: "must always", "should never", "has to only", "must not", "may never", "shall not".
_MODAL_GENERAL = re.compile(
    # "should always have done" looks back: a regret, not an order
    rf"\b(?:{_MODAL}\s+(?:always|never|only)(?!\s+(?:have|been)\b)|(?:always|never)\s+(?:has|have|needs?) to|"
    r"(?:must|shall) not(?!\s+have\b)|mustn['’]t(?!\s+have\b)|may never|may not ever|"
    # French, German, Spanish: "il faut toujours", "muss immer", "darf nie", "hay que siempre"
    r"il (?:faut|ne faut) (?:toujours|jamais|pas)|(?:muss|müssen|musst) (?:immer|stets)|"
    r"(?:darf|dürfen|darfst) (?:nie|niemals|nicht)|(?:hay que|tienes? que|debes?|deben) (?:siempre|nunca))\b",
    _FLAGS,
)
#: Forbidden, required, not allowed: "Force pushes to main are not allowed."
_STATUS = re.compile(
    r"\b(?:is|are)\s+(?:not\s+)?(?:allowed|permitted|forbidden|prohibited|mandatory|required|"
    r"off[- ]limits|banned)\b|\b(?:isn['’]t|aren['’]t)\s+(?:allowed|permitted)\b",
    _FLAGS,
)
_PRONOUNS = frozenset("it that this there he she they i which what who things stuff people someone".split())
_DETERMINERS = frozenset("the those these our my your their his her some its".split())
#: A time that makes an obligation a task for now: "The servers need to be patched tonight".
_ONE_OFF_TIME = re.compile(
    r"\b(?:tonight|today|tomorrow|this (?:week|morning|afternoon|evening|sprint)|asap|right away|"
    r"at some point|eventually|soon|later|next week|by (?:monday|tuesday|wednesday|thursday|friday|eod))\b",
    _FLAGS,
)
_DETERMINER_WORDS = frozenset("a an the at one no some proper".split())
_AGENT = re.compile(
    rf"^(?:you|we|the (?:agent|assistant|bot|team)|everyone|everybody)\s+(?:\w+\s+)?(?P<modal>{_MODAL})\s+"
    r"(?:(?:always|never|also|really|just)\s+)?(?P<verb>\w+)(?:\s+(?P<next>\w+))?",
    _FLAGS,
)
_SUBJECT = re.compile(
    rf"^(?P<subject>(?:[\w`'./@#-]+\s+){{0,4}}?)(?P<modal>{_MODAL})\s+(?P<verb>\w+)(?:\s+(?P<next>\w+))?",
    _FLAGS,
)
_EPISTEMIC = frozenset({"be", "have", "mean", "do"})  # "must be broken", "has to do with"
_STRONG = re.compile(
    r"^(?:must|shall|is required to|are required to|is expected to|are expected to|is to|are to)$", _FLAGS
)
#: What makes a weak "you have to" / "we need to" a rule: a condition or a scope.
_CONDITION = re.compile(
    r"\b(?:before|after|when|whenever|if|unless|once)\b|\bin (?:this|the|our|every|each|any) "
    r"(?:repo|repository|project|codebase|monorepo|team|org|organisation|organization|company|service)\b",
    _FLAGS,
)
_PASSIVE_PURPOSE = re.compile(r"\b(?:by|in|with|using|via|through|before|after|on|against|from|to)\b", _FLAGS)


def _subject_general(subject: str) -> bool:
    """A class of things ("commits", "all PRs", "new endpoints", "`main`"), not one pronoun and
    not particular things ("the servers", "those tests", "our users": these ones, this time)."""
    words = re.split(r"\s+(?:to|in|on|of|for|from|with|into|at)\s+", subject.strip(), maxsplit=1)[0].split()
    if not words or words[0].lower() in _PRONOUNS or words[-1].lower() in _PRONOUNS:
        return False
    if words[0].lower() in ("all", "every", "each", "any", "no", "new"):
        return True
    if words[0].lower() in _DETERMINERS:
        return False
    last = words[-1].strip("`'\"")
    return (last.lower().endswith("s") and not last.lower().endswith("ss")) or bool(
        re.search(r"[`/_.]", last)
    )


def _epistemic(verb: str, after: str | None) -> bool:
    """ "must be", "has to do with", "must have been": a guess about what is, not what to do
    ("need to have a test" is an obligation: `have` then an object, not a participle)."""
    verb, after = verb.lower(), (after or "").lower()
    if verb == "have":  # "need to have a test" (an object follows); "must have misread" (a guess)
        return after not in _DETERMINER_WORDS and not after.endswith("s")
    return verb in _EPISTEMIC


#: "It's mandatory to sign every commit": an impersonal obligation to do something.
_MANDATORY = re.compile(
    r"^it(?:['’]s| is) (?:mandatory|compulsory|obligatory|required|a requirement) "
    r"(?:for (?!(?:me|him|her|them)\b)(?:[\w`'./-]+\s+){1,4}?)?to \w+",  # "for me to": an errand
    _FLAGS,
)
_SCOPE_WORDS = (
    r"(?:for|in|across|within|on)\s+(?:this|the|our)\s+(?:repo|repository|project|codebase|monorepo|team|"
    r"org|organisation|organization|company|service|house)\b"
)
#: "For this project, ...", "In our repo, ...": the scope that makes a statement a house rule.
_SCOPE = re.compile(rf"^{_SCOPE_WORDS}[^,]*,\s*|^here,\s*", _FLAGS)
_SCOPE_AFTER = re.compile(rf"\b{_SCOPE_WORDS}|\bhere\W*$", _FLAGS)
_FOLLOWS = re.compile(r"^(?P<subject>(?:[\w`'./@#-]+\s+){1,4}?)follows?\s+\w", _FLAGS)
_BELONGS = re.compile(
    r"^(?P<subject>(?:[\w`'./@#-]+\s+){1,4}?)belongs?\s+(?:only\s+)?(?:in|under|inside)\b", _FLAGS
)
_PROHIBITION = re.compile(r"\b(?:don['’]?t|do not|never|not in|nowhere else)\b", _FLAGS)


def _house_convention(text: str) -> bool:
    """ "For this project, commit messages follow Conventional Commits", "Our branch names follow
    the ticket convention", "All Python code follows PEP 8": a class of things said to follow a
    convention, within a house scope or of all of them ("The report follows the template you
    sent" names one thing, in no scope)."""
    scope = _SCOPE.match(text)
    rest = text[scope.end() :] if scope else text
    said = _FOLLOWS.match(rest)
    if said is None:
        return False
    scoped = scope is not None or bool(_SCOPE_AFTER.search(rest[said.end() :]))
    subject = said["subject"].split()
    first = subject[0].lower()
    if first in ("our", "we"):
        return scoped or (first == "our" and _subject_general(" ".join(subject[1:])))
    if first in ("all", "every", "each", "any"):
        return True
    return scoped and _subject_general(said["subject"])


def _belongs(text: str) -> bool:
    """ "Secrets belong in the vault. Don't put them in .env", "Config belongs in config/, never in
    code": where a class of things is kept ("This file belongs in the trash" is one thing)."""
    clauses = re.split(r"\s*[;.]\s+", text)  # "Keep X out of Y; they belong in Z": a later clause
    return _belongs_clause(text) or any(_belongs_clause(c) for c in clauses[1:] if c)


def _belongs_clause(text: str) -> bool:
    said = _BELONGS.match(_SCOPE.sub("", text, count=1))
    if said is None:
        return False
    first = said["subject"].split()[0].lower()
    if _subject_general(said["subject"]):
        return True
    named = first == "our" or (first not in _PRONOUNS and first not in _DETERMINERS and first != "a")
    return named and bool(_PROHIBITION.search(text[said.end() :]))


#: "We never run migrations by hand": what the house does, said in the present (not "we never got").
_HOUSE_HABIT = re.compile(
    r"^(?:here\s+)?we\s+(?:never|always|only|don['’]t ever|do not ever)\s+"
    r"(?!(?:got|had|knew|heard|saw|thought|found|did|was|were|made|went|understood|meant)\b)"
    r"(?!\w+ed\b)\w+",
    _FLAGS,
)
#: "Keep secrets out of the repo": where a class of things must never be.
_KEEP_OUT = re.compile(r"^keep\s+(?:[\w`'./@#-]+\s+){1,5}?out of\s+\S", _FLAGS)
#: "Führe immer die Tests aus", "Lance toujours", "Ejecuta siempre", "Esegui sempre": an imperative
#: verb with its language's "always" or "never" (a copula or a pronoun first states a fact).
_ADVERB_ORDER = re.compile(
    r"^(?!(?:ist|es|est|c['’]est|è|é|sind|war|sont|era|fue|das|il|elle|er|sie|ich|je|yo|lo|la|hay|"
    r"wir|nous|nosotros|noi|casi|fast|presque|quasi|almost|nearly|não|nicht|pas)\s)\w+\s+(?:immer|stets|niemals|nie|toujours|jamais|siempre|nunca|sempre|mai)\b",
    _FLAGS,
)


#: "always" and "never" in the languages a team writes in: with a polite marker before them
#: ("Bitte die Tests immer vor dem Push laufen lassen", "Por favor, usa siempre ramas") the
#: request is a standing one wherever the adverb stands.
_ALWAYS = re.compile(
    r"\b(?:always|never|immer|stets|nie|niemals|toujours|jamais|siempre|nunca|sempre|mai)\b", _FLAGS
)


#: "Please, I never said that", "Bitte, es ist immer so": the speaker or a fact, not a request.
_SPEAKER = re.compile(
    r"^(?:i|i['’]m|i['’]ve|it|it['’]s|that|this|ich|es|das|je|j['’]ai|c['’]est|yo|eso|io|è)\b", _FLAGS
)


def polite_standing(text: str) -> bool:
    """True when a request said politely (`please`, `bitte`, `por favor`) carries an "always" or
    "never" anywhere (the caller has taken the marker off and vetoed one-offs and questions)."""
    if _SPEAKER.match(text):
        return False
    return bool(_ALWAYS.search(text)) or languages.polite_prohibition(text)


#: A rule said by its label: "Team rule: ...", "Regla del equipo: ...", "Règle d'équipe : ...",
#: "Hausregel: ...", "规则：...".
_LABELLED = re.compile(
    r"^(?:(?:team|house|project|repo|standing|our)\s+(?:rule|policy|convention)|policy|convention|"
    r"(?:regla|norma|regra|regola|règle)(?:\s+(?:del?|do|da|della|dello|d['’])\s*(?:l['’])?\w+)?|"
    r"(?:team|haus|projekt)?regel|ルール|規則|规则|규칙)\s*[:：]\s*\w",
    _FLAGS,
)


#: A rule talked about, not stated: "The team rule is unclear to me", "I don't get our branch policy",
#: "That house rule seems outdated" (a rule named is no order unless the sentence says what it is).
_ABOUT_A_RULE = re.compile(
    r"\b(?:rule|policy|convention|order|instruction)s?\s+(?:is|are|was|were|seems?|feels?|sounds?|looks?)\s+"
    r"(?:(?:so|too|very|really|quite|a bit|kind of|still|pretty|totally|not)\s+)*"
    r"(?:unclear|confusing|vague|ambiguous|annoying|silly|stupid|dumb|weird|strange|odd|outdated|old|new|"
    r"different|wrong|broken|strict|harsh|unfair|overkill|excessive|pointless|"
    r"hard|difficult|complicated|a pain|a mystery|news)\b"
    r"|\b(?:don['’]?t|do not|didn['’]?t|did not|never)\s+(?:get|understand|know|like|remember|follow|see)\s+"
    r"(?:the|our|this|that|your|their|team|house)\s+(?:\w+\s+)?(?:rule|policy|convention)s?\b",
    _FLAGS,
)


def obligation(text: str) -> bool:
    """True when `text` states a standing obligation (see the module's docstring)."""
    if languages.foreign_standing(text) or imperatives.foreign_order(text) or _LABELLED.match(text):
        return True
    if (_PERMANENT.search(text) and not _ABOUT_A_RULE.search(text)) or _MODAL_GENERAL.search(text):
        return True
    if _HOUSE_HABIT.match(text) or _KEEP_OUT.match(text) or _ADVERB_ORDER.match(text):
        return True
    if _ONE_OFF_TIME.search(text):
        return False
    if imperatives.english_order(text) or _MANDATORY.match(text) or _house_convention(text) or _belongs(text):
        return True
    return _modal_obligation(text)


def _modal_obligation(text: str) -> bool:
    """A modal said to the agent or of a class of things ("You have to", "Commits must be")."""
    general = bool(_GENERAL.search(text))
    agent = _AGENT.search(text)
    if agent:
        if _epistemic(agent["verb"], agent["next"]):
            return general and agent["verb"].lower() != "have"  # "should always have done": a regret
        return general or bool(_STRONG.match(agent["modal"]) or _CONDITION.search(text))
    first = text.split(maxsplit=1)[0].lower().strip(",.:;!") if text.split() else ""
    said = _SUBJECT.search(text)
    if said is None:
        return _forbidden_or_required(text, general)
    return first not in _PRONOUNS and _said_of_a_class(said, text, general)


def _forbidden_or_required(text: str, general: bool) -> bool:
    """ "Force pushes to main are not allowed": a status said of a class of things."""
    status = _STATUS.search(text)
    if status is None:
        return False
    return general or _subject_general(re.sub(r"['’]s$", "", text[: status.start()]))


def _said_of_a_class(said: re.Match[str], text: str, general: bool) -> bool:
    """ "Commits have to be signed", "Migrations must be reviewed by a DBA": a modal about a class
    of things; "The build must be broken" (a participle, but no class, no agent) is a guess."""
    verb = said["verb"].lower()
    if not _epistemic(verb, said["next"]):
        return general or _subject_general(said["subject"])
    passive = verb == "be" and bool(re.search(r"(?:ed|en)$", said["next"] or ""))
    purpose = bool(_PASSIVE_PURPOSE.search(text[said.end() :]))
    return passive and (general or _subject_general(said["subject"]) or purpose)


_REQUEST = re.compile(r"^(?:(?:can|could|would|will) you|please)\b", _FLAGS)
_ONE_OFF = re.compile(
    r"\b(?:for now|just this once|this (?:one )?time|right now|for today|today only|for the moment)\b", _FLAGS
)


def standing_request(text: str) -> bool:
    """A request put as a question that still sets a standing order: "From now on, could you answer
    in English?", "Going forward, can you always run the linter?"."""
    marked = _PERMANENT.search(text) or re.search(
        r"\b(?:from now on|going forward|henceforth)\b", text, _FLAGS
    )
    request = _REQUEST.search(text) or re.search(r",\s*(?:can|could|would|will) you\b", text, _FLAGS)
    return bool(marked and request and text.rstrip().endswith("?") and not _ONE_OFF.search(text))
