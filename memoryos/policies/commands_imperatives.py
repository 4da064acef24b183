"""Standing orders by their grammar, in English and in the languages the other modules do not read:
an imperative about a class of things ("Run the linter before every commit", "Use UTC for all
timestamps", "Keep commit messages under 72 characters", "No force pushes to main", "Only deploy on
weekdays"), and "always", "never" or "from now on" with an order in Dutch, the Nordic languages,
Polish, Czech, Russian, Ukrainian, Turkish, Indonesian, Vietnamese, Hungarian, Finnish, Greek,
Korean and Hindi, plus the adverb-first orders of Portuguese and Italian and the Japanese and Chinese
"always"/"must" orders. Pure patterns; `commands_obligations.obligation` asks `standing_order()`.

What keeps a request for now out: an order about particular things ("Run the tests", "Fix the
failing test", "Check all the logs": a determiner makes them these ones), a speaker or a fact first
("Ik weet het nooit", "Я никогда не видел такого", "Jag vet aldrig"), and the caller's own vetoes
(questions, thanks, "for now", "just this once").
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE

# -- English ---------------------------------------------------------------------------------------

#: Verbs that state how things are done (an order with them and a class of things is a policy).
_POLICY_VERBS = (
    "use|keep|write|tag|sign|squash|rebase|name|format|prefix|suffix|wrap|limit|pin|document|store|"
    "log|ask|require|quote|escape|indent|sort|validate|sanitize|annotate|type|default|follow|target|"
    "reply|answer|respond|cc|notify|mention|reference|prefer|stick|route|encrypt|rotate|lock|gate|"
    "guard|protect|cap|round|spell|capitalize|translate|localize|date|timestamp|put|send|include|exclude"
)
#: Verbs of a task, which with "all"/"every" alone is a request for now ("Update all dependencies",
#: "Check every file"): a rule only when tied to every occasion ("before every commit").
_TASK_VERBS = (
    "run|test|lint|deploy|push|commit|merge|release|publish|open|close|label|mark|add|check|bump|"
    "update|review|comment|link|attach|set|configure|back|backup|build|rebuild|notify|ping|squash"
)
_VERBS = f"{_POLICY_VERBS}|{_TASK_VERBS}"
_OCCASION = re.compile(
    r"\b(?:before|after|on|with|for|at|in|per)\s+(?:every|each|all|any)\s+(?!(?:the|of)\b)\w+|\bwhenever\b",
    _FLAGS,
)
_QUANTIFIED = re.compile(
    r"\b(?:every|each|all|any)\s+(?!(?:the|of|this|that|these|those|my|your|his|her|our|their|its)\b)\w+"
    r"|\b(?:anything|everything|everywhere|anywhere|nothing|whenever)\b",
    _FLAGS,
)
_SCOPED = re.compile(
    r"\b(?:in|for|across|within|throughout)\s+(?:this|the|our)\s+(?:repo|repository|project|codebase|"
    r"monorepo|team|org|organisation|organization|company|service|app|workspace)\b",
    _FLAGS,
)
#: "Use pnpm, not npm": an order with the alternative it rules out.
_CONTRAST = re.compile(r",\s*not\s+[\w`'./@#-]+", _FLAGS)
_NOT_A_THING = r"(?!\s+(?:it|this|that|them|me|us|him|her)\b)"
_ORDER = re.compile(rf"^(?:{_VERBS})\b{_NOT_A_THING}", _FLAGS)
_POLICY = re.compile(rf"^(?:{_POLICY_VERBS})\b{_NOT_A_THING}", _FLAGS)
_STYLE = re.compile(r"^(?:keep|write|name|format|prefix|suffix|wrap|limit|pin|sign|squash|spell)\s", _FLAGS)
#: A bare plural after a style verb, then a constraint: "Keep functions under 50 lines".
_CLASS_OBJECT = re.compile(
    r"^\w+\s+(?!(?:the|a|an|this|that|these|those|my|your|our|their|some)\b)(?:[\w`'./-]+\s+){0,2}"
    r"[\w`'./-]+s\s+(?:under|over|below|above|short|small|in|as|with|at|to|without|before|after|"
    r"lowercase|uppercase|sorted|signed|private|immutable)\b",
    _FLAGS,
)
_ONLY = re.compile(rf"^only\s+(?:ever\s+)?(?:{_VERBS})\b\s+\w+", _FLAGS)
#: "No force pushes to main", "No secrets in the repo" (never "No, that's fine", "No tests failed").
_NO = re.compile(
    r"^no\s+(?!(?:worries|problem|problems|thanks|idea|way|need|rush|pressure|clue|luck|one|doubt)\b)"
    r"(?:[\w-]+\s+){0,2}[\w-]+s\s+(?:to|on|in|into|from|for|of|before|after|without|outside|during)\b"
    r"(?!.*\b(?:\w+ed|were|was|are|is|have|has|had|left|found)\b)",
    _FLAGS,
)


#: "Default to British English", "Stick to the style guide": a default is standing by what it says.
_DEFAULT = re.compile(r"^(?:default to|stick (?:to|with)|fall back to)\s+\w", _FLAGS)
_THIS_ONCE = re.compile(r"\bthis (?:one|time|run|task|test|ticket|pr|branch|file)\b|\bhere\b", _FLAGS)


def english_order(text: str) -> bool:
    """An imperative about a class of things (see the module's docstring)."""
    if _NO.match(text) or _ONLY.match(text) or (_DEFAULT.match(text) and not _THIS_ONCE.search(text)):
        return True
    if not _ORDER.match(text):
        return False
    if _OCCASION.search(text):
        return True
    if not _POLICY.match(text):
        return False
    if _QUANTIFIED.search(text) or _SCOPED.search(text) or _CONTRAST.search(text):
        return True
    return bool(_STYLE.match(text) and _CLASS_OBJECT.match(text))


# -- other languages -------------------------------------------------------------------------------

#: "Always", "never" and "from now on" in each language, as words (Latin, Cyrillic, Greek scripts).
_MARKERS = re.compile(
    r"(?<!\w)(?:"
    # Dutch
    r"altijd|nooit|vanaf nu|voortaan|"
    # Swedish, Danish, Norwegian
    r"alltid|aldrig|altid|aldri|från och med nu|hädanefter|framöver|fra nu af|fremover|heretter|fra nå av|"
    # Polish, Czech, Slovak
    r"zawsze|nigdy|od teraz|od tej pory|vždy|nikdy|od teď|odteď|napříště|odteraz|"
    # Russian, Ukrainian
    r"всегда|никогда|с этого момента|отныне|впредь|завжди|ніколи|відтепер|з цього моменту|"
    # Turkish, Indonesian, Vietnamese, Hungarian, Finnish, Greek
    r"her zaman|hiçbir zaman|asla|daima|bundan sonra|bundan böyle|selalu|jangan pernah|mulai sekarang|"
    r"luôn luôn|luôn|không bao giờ|đừng bao giờ|từ giờ|từ nay|từ bây giờ|mindig|soha|mostantól|"
    r"aina|ei koskaan|älä koskaan|tästä lähtien|πάντα|ποτέ|από τώρα"
    r")(?!\w)",
    _FLAGS,
)
#: A speaker, a pronoun or a fact first: a statement, not an order.
_STATEMENT = re.compile(
    r"^(?:ik|het|dit|dat|er|jag|det|den|han|hon|vi|jeg|hun|ja|to|on|ona|ono|my|oni|já|je|"
    r"я|это|он|она|мы|они|оно|ми|це|він|вона|вони|ben|bu|o|biz|onlar|saya|aku|ini|itu|dia|kami|kita|"
    r"tôi|đây|nó|chúng|én|ez|az|mi|minä|se|hän|me|εγώ|αυτό|είναι)\b",
    _FLAGS,
)
#: A copula or an auxiliary of the past: "Het is altijd kapot", "Это всегда было так".
_FACT = re.compile(
    r"\b(?:is|zijn|was|waren|är|var|er|jest|są|był|była|było|je|jsou|byl|было|был|была|есть|є|був|"
    r"була|було|idi|adalah|là|volt|on|oli|είναι|ήταν)\b",
    _FLAGS,
)
#: "Не коммить секреты", "Nie pushuj na main": a negated imperative (Russian, Ukrainian, Polish).
_NEGATED_IMPERATIVE = re.compile(
    r"^(?:не\s+\w+(?:й|йте|ь|ьте|и|ите|іть)|nie\s+\w+(?:aj|uj|ij|yj|ajcie|ujcie|cie))\b", _FLAGS
)
#: Portuguese and Italian orders that open with their adverb ("Sempre rode os testes", "Non fare mai").
_ROMANCE = re.compile(r"^(?:sempre|nunca|jamais)\s+\w+|^non\s+\w+re\s+mai\b|^mai\s+\w+re\b", _FLAGS)
#: Korean, Hindi: a marker with a request ending; a Korean prohibition needs none.
_KOREAN = re.compile(
    r"(?:항상|절대|앞으로는?|이제부터|반드시|꼭).*(?:세요|십시오|주세요|할 것|해야 합니다|하지 마)"
    r"|지\s?(?:마세요|마십시오|말아\s?주세요|마라|말 것)[.!。]?\s*$"
)
#: Hindi's "always", "never", "from now on", "be sure to", and "never ... मत" (a prohibition whose
#: object comes between: "कभी भी प्रोडक्शन पर DROP TABLE मत चलाना").
_HINDI = re.compile(r"(?:हमेशा|कभी (?:भी )?(?:नहीं|मत)|कभी(?: भी)?\s.*\sमत\s|अब से|ज़रूर|जरूर)")
#: Japanese and Chinese: "always" with a request, "must" anywhere in an order.
_CJK = re.compile(r"(?:常に|いつも).*(?:ください|下さい|すること)|一定要|总是要|總是要|始终要|必须要")
_CJK_NOT = re.compile(r"[?？]\s*$|今回|今日|这次|這次|今天")

#: Arabic: "never" with a prohibition (`لا تـ...` is "do not", said to the listener: `لا أ...` is the
#: speaker's "I do not"), "always" or "from now on" before an order; a pronoun first, or a verb of the
#: speaker or of a thing after "always" ("دائماً أنسى", I always forget), states a fact.
_ARABIC_NEVER = re.compile(
    r"(?:^|\s)لا\s+ت\S+.*(?:أبداً|أبدا|ابدا|إطلاقاً|إطلاقا|مطلقاً|مطلقا)|(?:أبداً|أبدا)\s+لا\s+ت"
)
_ARABIC_ALWAYS = re.compile(
    r"(?:دائماً|دائما|من الآن فصاعداً|من الآن فصاعدا|من الآن|بعد الآن|في كل مرة)\s+(?![أنيت])\S"
)
_ARABIC_STATEMENT = re.compile(r"^(?:أنا|انا|نحن|هو|هي|هم|هذا|هذه|ذلك|كان|كانت|إنه|إنها|لماذا|هل)\s")
#: Hebrew: "never" with a prohibition (`אל ת...`), "always" or "from now on" before an order; a
#: pronoun first states a fact ("אני תמיד שוכח", I always forget).
_HEBREW_ORDER = re.compile(
    r"(?:אף פעם|לעולם|בשום מקרה)\s+(?:אל|לא)\s+ת\S+|(?:^|\s)אל\s+ת\S+.*(?:אף פעם|לעולם|בשום מקרה)|"
    r"(?:^|\s)(?:תמיד|מעכשיו|מעתה|מהיום והלאה|מהיום)\s+(?:ו?)(?:ת\S+|ה\S+|ל\S+)"
)
_HEBREW_STATEMENT = re.compile(r"^(?:אני|אנחנו|הוא|היא|הם|הן|זה|זו|זאת|היה|הייתה|למה|האם)\s")


def _semitic_order(text: str) -> bool:
    """A standing order in Arabic or Hebrew (see the patterns above)."""
    if _ARABIC_STATEMENT.match(text) or _HEBREW_STATEMENT.match(text):
        return False
    if _ARABIC_NEVER.search(text) or _ARABIC_ALWAYS.search(text):
        return True
    return bool(_HEBREW_ORDER.search(text))


def foreign_order(text: str) -> bool:
    """A standing order in one of this module's other languages (see the module's docstring)."""
    if _KOREAN.search(text) or _HINDI.search(text) or _semitic_order(text):
        return True
    if _CJK.search(text) and not _CJK_NOT.search(text):
        return True
    if _NEGATED_IMPERATIVE.match(text) or _ROMANCE.match(text):
        return True
    if _MARKERS.search(text) is None or _STATEMENT.match(text):
        return False
    return not _FACT.search(text)


def standing_order(text: str) -> bool:
    """True when `text` is a standing order by its grammar (the caller has vetoed questions and
    one-offs already)."""
    return english_order(text) or foreign_order(text)
