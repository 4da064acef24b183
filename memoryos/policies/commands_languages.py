"""Standing instructions in the other languages a team writes in: a "from now on" marker in German,
French, Spanish, Portuguese or Italian ("Ab jetzt ...", "Désormais ...", "De ahora en adelante ...",
"D'ora in poi ..."), a polite German prohibition ("Bitte lass ... keine ..."), and Japanese or
Chinese orders, which have no spaces between words and are matched on characters ("今後は...して
ください", "〜しないでください", "必ず〜してください", "以后请...", "请不要...", "务必..."). Pure
patterns; `commands_obligations.obligation` asks `foreign_standing()`.

A marker of time is not an order by itself: "Ab jetzt ist alles kaputt", "À partir de maintenant, le
serveur est en panne", "今後の予定は未定です" state what is or will be. So a marker needs an order
after it: no copula or future auxiliary (unless a word of prohibition or of "always" makes it a
rule: "Ab jetzt sind Force-Pushes verboten"), and in Japanese and Chinese a request form.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE

#: "From now on" and "in future", as an order's opening words or anywhere in it.
_FROM_NOW_ON = re.compile(
    r"\b(?:in zukunft|ab jetzt|ab sofort|von nun an|(?:zu)?künftig|"
    r"à partir de maintenant|a partir de maintenant|désormais|dorénavant|à l['’]avenir|dès maintenant|"
    r"a partir de ahora|de ahora en adelante|desde ahora|en adelante|de aquí en adelante|"
    r"a partir de agora|de agora em diante|daqui (?:em|para a?) (?:diante|frente)|"
    r"d['’]ora in (?:poi|avanti)|da ora in (?:poi|avanti)|da adesso in poi|d['’]ora innanzi)\b",
    _FLAGS,
)
#: Is, are, will be: a statement about what is or will happen, not an order.
_COPULA = re.compile(
    r"\b(?:ist|sind|war|waren|wird|werden|wäre|gibt|est|sont|sera|seront|était|c['’]est|il y a|"
    r"es|está|están|será|serán|era|hay|é|são|será|estão|há|è|sono|sarà|saranno|c['’]è)\b",
    _FLAGS,
)
#: The speaker first: "Ich arbeite ab jetzt remote", "Désormais je suis en vacances".
_SPEAKER = re.compile(
    r"^(?:ich|je|j['’]|yo|eu|io|mein|meine|mon|ma|mes|mi|mis|meu|minha|il mio|la mia)\b", _FLAGS
)
#: What makes a statement with a copula a rule: forbidden, required, always, never.
_RULE_WORDS = re.compile(
    r"\b(?:verboten|pflicht|erforderlich|untersagt|immer|stets|nie|niemals|keine?[nmrs]?|"
    r"interdite?s?|obligatoires?|toujours|jamais|prohibidos?|prohibidas?|obligatori[oa]s?|siempre|nunca|"
    r"proibid[oa]s?|sempre|vietat[oaie]|obbligatori[oa]|mai)\b",
    _FLAGS,
)
#: A polite German prohibition: "lass ... keine", "mach ... keine", "verwende keine" after `bitte`.
_GERMAN_NO = re.compile(
    r"^(?:lass|lasse|mach|mache|verwende|nutze|benutze|schreib\w*|füge|setz\w*)\b.*\bkeine?[nmrs]?\b", _FLAGS
)

#: Japanese and Chinese: a marker of time, and a request form after it.
_CJK_FROM_NOW_ON = re.compile(
    r"今後|これから(?:は|も)|以後|以后|今后|從今以後|从今以后|从现在(?:开始|起)|從現在(?:開始|起)"
)
_CJK_REQUEST = re.compile(
    r"ください|下さい|して(?:ね|ほしい|欲しい)|すること|しないこと|禁止|してはいけません|"
    r"请|請|不要|别|別|务必|務必|必须|必須|一定要|不得|不许|不准|总是|始终|永远|都要|都得|每次都|一律"
)
#: Orders that need no marker: "〜しないでください", "必ず〜してください", "请不要", "请勿", "务必".
_CJK_ORDER = re.compile(
    r"ないでください|ないで下さい|必ず.*(?:ください|下さい|すること)|"
    r"^(?:请|請)(?:不要|勿|别|別|务必|務必|始终|總是|总是|永远)|^(?:务必|務必)|^(?:必须|必須|禁止)(?!的|事項|事项)\S{3,}"
)
#: "Please don't worry", "this time only", "for now": a reassurance or a one-off.
_CJK_NOT_STANDING = re.compile(
    r"心配しないで|気にしないで|遠慮しないで|别担心|別擔心|不要担心|不用担心|不要客气|别客气|"
    r"今回|今日|明日|今だけ|とりあえず|这次|這次|今天|明天|暂时|暫時|先这样|[?？]\s*$"
)


def _latin_standing(text: str) -> bool:
    marker = _FROM_NOW_ON.search(text)
    if marker is None:
        return False
    rest = text[marker.end() :].strip(" ,:;—–-")
    if not re.search(r"\w", rest) and not re.search(r"\w", text[: marker.start()]):
        return False  # "Ab jetzt." alone orders nothing
    if _SPEAKER.match(text) or _SPEAKER.match(rest):
        return False  # "Ich arbeite ab jetzt remote": the speaker's own plans
    return not _COPULA.search(text) or bool(_RULE_WORDS.search(text))


def _cjk_standing(text: str) -> bool:
    if _CJK_NOT_STANDING.search(text):
        return False
    if _CJK_ORDER.search(text):
        return True
    return bool(_CJK_FROM_NOW_ON.search(text) and _CJK_REQUEST.search(text))


def foreign_standing(text: str) -> bool:
    """True when `text` is a standing order in German, French, Spanish, Portuguese, Italian,
    Japanese or Chinese (see the module's docstring); `text` has its leading "bitte" taken off."""
    return _latin_standing(text) or _cjk_standing(text)


def polite_prohibition(text: str) -> bool:
    """ "Bitte lass in Commit-Nachrichten keine Ticketnummern weg": `bitte` and a `keine`."""
    return bool(_GERMAN_NO.match(text))
