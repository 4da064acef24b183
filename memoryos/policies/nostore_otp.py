"""One-time codes and wallet seed phrases: values that open an account, named only by their words.

- A one-time code ("Your verification code is 681184", "Dein Anmeldecode lautet 371965", "code de
  connexion à usage unique : 448851", "認証コード：583920"): whoever has it while it is valid passes the
  second factor. A word of the code, then a connector (":", "is", "lautet", "est"...) or nothing, then
  four to eight digits (a middle space or dash allowed: "482 913").
- A wallet's seed (recovery) phrase: twelve to twenty-four words of the BIP39 shape (three to eight
  lower-case letters), in a row or numbered one per line, after a word that names the phrase. Prose
  after the same words ("the seed phrase is stored in the safe at home") has its function words;
  BIP39 has none of them, so a run holding two is prose.

The finders return the span of the value; nothing here keeps or logs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memoryos.policies.nostore_keywords import fold

_OTP_WORDS = (
    r"(?:verification|security|login|log-in|sign-in|signin|one-time|one time|access|2fa|mfa|otp|"
    r"authentication|auth|passcode|confirmation sms|sms)[ \-]code|one-time password|one-time passcode|"
    r"\botp\b|"
    r"(?:bestätigungs|anmelde|sicherheits|einmal|verifizierungs|verifikations|login-|zugangs)code|"
    r"code (?:de (?:vérification|verification|connexion|confirmation|sécurité|securite)|à usage unique|"
    r"a usage unique|otp)|"
    r"c[óo]digo (?:de (?:verificaci[óo]n|seguridad|acceso|confirmaci[óo]n|verifica[çc][ãa]o|seguran[çc]a)|"
    r"otp|de un solo uso)|"
    r"codice (?:di verifica|di sicurezza|otp|monouso)|verificatiecode|inlogcode|beveiligingscode|"
    r"kod (?:weryfikacyjny|jednorazowy|sms|dost[ęe]pu)|verifieringskod|engångskod|"
    r"код (?:подтверждения|из смс|доступа)|"
    r"認証コード|確認コード|ワンタイムパスワード|验证码|驗證碼|校验码|인증번호|인증 코드"
)
_OTP_KEYWORD = re.compile(_OTP_WORDS)
_OTP_HINTS = (
    "code", "otp", "código", "codigo", "codice", "kod", "код", "コード", "ワンタイム", "验证码", "驗證碼",
    "校验码", "인증",
)  # fmt: skip
# What may stand between the word and the code: up to four short words ("for Acme", "à usage unique"),
# then ":" or a copula; the code itself is four to eight digits, not part of a longer number.
_OTP_VALUE = re.compile(
    r"(?:[ \t]+[^\s.;!?:=\d]{1,20}){0,4}?"
    r"(?:[ \t]{0,2}[:：=][ \t]{0,2}|[ \t]+(?:is|was|lautet|ist|est|es|é|è|är|jest|to|:)[ \t]*:?[ \t]*|[ \t]*)"
    r"(?P<v>\d{3}[ \-]?\d{3}|\d{4,8})(?![\d\-/.:]\d|,\d{3}|[A-Za-z0-9])"  # "，5分钟" ends the code
)
_YEAR = re.compile(r"(?:19|20)\d\d")


def find_one_time_codes(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    if not any(hint in folded for hint in _OTP_HINTS):
        return
    for keyword in _OTP_KEYWORD.finditer(folded):
        match = _OTP_VALUE.match(folded, keyword.end())
        if match is None:
            continue
        digits = re.sub(r"\D", "", match.group("v"))
        if _YEAR.fullmatch(digits) or len(set(digits)) == 1:
            continue
        yield match.span("v")


_SEED_KEYWORD = re.compile(
    r"(?:seed|recovery|mnemonic|backup|secret recovery|wallet|bip-?39)[ \-](?:phrase|words|sentence)|"
    r"\bmnemonic\b|wallet seed|seed phrase|"
    r"wiederherstellungs(?:phrase|sätze?|wörter)|phrase (?:de récupération|mnémonique|secrète)|"
    r"frase (?:semilla|de recuperaci[óo]n|secreta|de recupera[çc][ãa]o)|"
    r"herstelzin|fraza odzyskiwania|助记词|助記詞|シードフレーズ|복구 구문|сид-фраза|мнемоническ"
)
_SEED_HINTS = (
    "phrase", "words", "sentence", "mnemonic", "seed", "phrase", "wörter", "sätze", "frase", "zin", "fraza",
    "助记词", "助記詞", "シード", "구문", "сид", "мнемон",
)  # fmt: skip
_SEED_WORD = re.compile(r"[a-z]{3,8}")
# Between the words: spaces, commas, or a new line with the word's number ("3. adult", "3) adult").
_SEED_GAP = re.compile(r"[ \t]*,?[ \t]*(?:\n[ \t]*(?:\d{1,2}[.):][ \t]*)?|[ \t]+(?:\d{1,2}[.):][ \t]*)?)")
_SEED_LEAD = re.compile(r"[^\n]{0,80}?(?::|：|—|–|\n)[ \t]*\n?[ \t]*(?:\d{1,2}[.):][ \t]*)?")
# Function words of prose; none of them is a BIP39 word.
_PROSE_WORDS = frozenset(
    """
    the and you your our are was were for that this with from not have has had they them then than when
    what which there their its into onto over under about will would should could can cannot must never
    always keep kept store stored write written safe here where how why who whom also only just
    """.split()
)
_SEED_MIN_WORDS = 12  # BIP39 phrases have 12, 15, 18, 21 or 24 words; a cut-off one is still refused


def _seed_words(folded: str, position: int) -> tuple[int, int, int]:
    """(start, end, count) of the run of BIP39-shaped words from `position`, at most 24 and two prose."""
    start = end = position
    count = prose = 0
    while count < 24 and (word := _SEED_WORD.match(folded, position)) is not None:
        after = word.end()
        if after < len(folded) and folded[after].isalpha():
            break
        if word.group() in _PROSE_WORDS:
            prose += 1
            if prose >= 2:
                break
        if count == 0:
            start = word.start()
        count += 1
        end = after
        gap = _SEED_GAP.match(folded, after)
        if gap is None or gap.end() == after:
            break
        position = gap.end()
    return start, end, count if prose < 2 else 0


def find_seed_phrases(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    if not any(hint in folded for hint in _SEED_HINTS):
        return
    position = 0
    for keyword in _SEED_KEYWORD.finditer(folded):
        if keyword.start() < position:
            continue
        lead = _SEED_LEAD.match(folded, keyword.end())
        if lead is None:
            continue
        start, end, count = _seed_words(folded, lead.end())
        if count >= _SEED_MIN_WORDS:
            yield start, end
            position = end


TRIGGERS: tuple[str, ...] = (
    "verification code ", "code: ", "Anmeldecode lautet ", "验证码", "seed phrase: ", "mnemonic:\n",
    "recovery phrase:\n1. ", "abandon ", "abc ", "1. abc\n",
)  # fmt: skip
