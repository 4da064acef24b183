"""Credential keywords followed by a value, in many languages ("password: x", "contraseña es x", "密码是x").

A keyword alone never triggers ("I forgot my password", "reset your password via the link"): only a
keyword joined to a value by a connector does, and the value must look like a credential rather than a
word of prose, a placeholder or a piece of code. The finder returns the span of the value only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memoryos.policies.nostore_checks import wordiness
from memoryos.policies.nostore_window import MAX_WINDOW_WORDS, opens_clause, prose_shape, window_ok

# Password-like words: a value after them may be short and purely numeric (PINs, "123456").
PASSWORD_WORDS: tuple[str, ...] = (
    "password", "passwd", "pwd", "pw", "passphrase", "pass phrase", "passcode", "pass code", "passwort",
    "kennwort",
    "contraseña", "contrasena", "clave", "clave de acceso", "mot de passe", "mdp", "code d'accès", "senha",
    "palavra-passe", "palavra passe", "parola", "parolă", "parola d'ordine", "wachtwoord", "hasło", "haslo",
    "lösenordet", "lösenord", "losenord", "passordet", "passord", "adgangskode", "salasana", "heslo",
    "jelszó", "şifre", "sifre", "şifrem", "şifreniz", "şifresi", "parolam", "parolanız", "parolası",
    "пароль", "κωδικός", "κωδικός πρόσβασης", "συνθηματικό", "סיסמה", "הסיסמה", "סיסמא", "הסיסמא",
    "كلمة المرور", "كلمة السر", "पासवर्ड", "mật khẩu", "kata sandi",
    # French speech shortens "mot de passe" to "passe" after a possessive: "ma nouvelle passe".
    "ma passe", "ma nouvelle passe", "mon passe", "ta passe", "votre passe", "notre passe",
)  # fmt: skip

# Words for a PIN: its value is short and all digits, which after any other password word is too weak
# a sign ("password: 1234" is more often a count than a secret; "PIN: 1234" is the PIN).
PIN_WORDS: tuple[str, ...] = (
    "pin", "pin code", "pincode", "code pin", "pin-nummer", "pin nummer", "número pin", "codice pin",
    "pinkode", "pinkod", "pin-koodi", "пин-код", "пин код", "pin-kód",
)  # fmt: skip
UNSPACED_PIN_WORDS: tuple[str, ...] = ("暗証番号", "비밀번호")  # already password words: values may be PINs
_PIN_KEYS = frozenset(re.sub(r"[ _.\-]", "", word) for word in PIN_WORDS + UNSPACED_PIN_WORDS)

# Words in scripts written without spaces: no word boundary can be asked of them.
UNSPACED_PASSWORD_WORDS: tuple[str, ...] = (
    "パスワード",
    "暗証番号",
    "密码",
    "密碼",
    "口令",
    "비밀번호",
    "암호",
    "รหัสผ่าน",
)

# Key- and token-like words: the value must be long and not word-like, as real keys are.
CREDENTIAL_WORDS: tuple[str, ...] = (
    "secret", "client secret", "secret key", "api key", "apikey", "api token", "access key", "access token",
    "auth token", "refresh token", "token", "private token", "signing key", "encryption key", "master key",
    "personal access token", "pat", "clé api", "clé d'api", "clé secrète", "jeton", "clave api",
    "clave de api", "clave secreta",
    "api-schlüssel", "geheimer schlüssel", "chave de api", "chave api", "chave secreta", "токен", "ключ api",
)  # fmt: skip
UNSPACED_CREDENTIAL_WORDS: tuple[str, ...] = (
    "apiキー",
    "トークン",
    "シークレット",
    "令牌",
    "密钥",
    "秘钥",
    "토큰",
)

# Verbs that join a keyword to its value in prose ("is", "es", "est", "ist", "é", "è", "är", "jest"...).
VERBS: tuple[str, ...] = (
    "is", "was", "is set to", "was set to", "has been set to", "has been changed to", "changed to", "set to",
    "will be", "would be", "becomes", "es", "era", "será", "sería", "est", "était", "sera", "ist", "lautet",
    "war", "wird", "heißt", "c'est", "é", "è", "luidt", "jest", "to", "wynosi", "är", "var", "er", "blir",
    "это", "—", "–", "είναι", "ήταν", "هي", "هو", "היא", "הוא", "है", "adalah",
)  # fmt: skip
# The verbs that may join a keyword to a value several words away ("the password you set is x"): only
# the copulas, "set to" or "to" across a clause would read instructions as values.
FAR_VERBS: tuple[str, ...] = (
    "is", "was", "es", "era", "est", "était", "ist", "war", "lautet", "é", "è", "är", "jest", "wynosi",
    "είναι", "هي", "هو", "היא", "הוא",
)  # fmt: skip
ADVERBS: tuple[str, ...] = (
    "now", "still", "just", "simply", "actually", "temporarily", "ahora", "todavía", "maintenant", "toujours",
    "jetzt", "noch", "agora", "ainda", "ora", "ancora", "nu", "teraz", "сейчас",
)  # fmt: skip
# Words that open the answer to a question about a credential ("...? Non, pour le compte AWS: x").
ANSWER_WORDS: tuple[str, ...] = (
    "no", "nope", "yes", "yeah", "actually", "non", "oui", "nein", "ja", "doch", "sí", "si", "não", "nao",
    "sim", "nee", "nie", "tak", "nej", "nei", "ei", "нет", "да",
)  # fmt: skip
# A symbol connector ("password for prod: x") may follow a phrase only when it opens with one of these:
# "Password reset: Tuesday" must not read as a password.
PREPOSITIONS: tuple[str, ...] = (
    "for", "of", "to", "on", "at", "in", "del", "de", "du", "des", "de la", "para", "pour", "für", "zum",
    "zur", "vom", "do", "da", "dos", "das", "per", "di", "della", "van", "voor", "dla", "för", "til", "для",
    "от",
)  # fmt: skip

# Values that complete a keyword in prose or code without being a credential.
STOP_VALUES: frozenset[str] = frozenset(
    """
    none null nil undefined true false yes no required optional empty blank hidden redacted masked unknown
    unset changed reset expired invalid incorrect wrong same see below above here there the a an your my
    our their his her this that it is not n/a na tbd todo str string int bytes text any char varchar bool
    password pass secret token key value default prompt input env environment vault keychain 1password
    bitwarden lastpass keepass example sample dummy placeholder omitted removed rotated revoked ninguna
    ninguno vacío vacia oculto oculta requerido obligatorio ver la el tu su mi aucun aucune vide caché
    masqué requis obligatoire voir le votre mon ton keins keine leer versteckt erforderlich siehe das dein
    mein ihr nenhuma nenhum vazio vazia obrigatório sua minha
    """.split()
)
_TECH_SUFFIX = re.compile(
    r"[-_](?:hashed|encoded|encrypted|based|bits?|chars?|characters?|digits?|letters?|long|protected|"
    r"compatible|safe|only|free|less)$",
    re.IGNORECASE,
)
_CODE_PREFIX = re.compile(
    r"(?:\$\{|\$\(|\$[A-Za-z_]\w*$|%\(|%s|\{|<|#\{|os\.|env\.|process\.env|settings\.|config\.|self\.|this\.|request\.|"
    r"getenv|input\(|getpass|prompt\(|https?:|/|~/|\./|\.\./|[A-Za-z]:\\|\\\\|"
    # a YAML tag (CloudFormation "!Ref", Home Assistant "!secret") or a secret manager's reference
    r"![A-Za-z]|op://|vault:|arn:aws:)",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*")
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_PATH_LIKE = re.compile(r"[A-Za-z_.\-]+(?:/[A-Za-z_.\-]+)+")  # "secret/db": a vault path, not a value
_NAMES_A_KEY = re.compile(r"key|secret|clé|clave|chave|schlüssel|ключ|キー|密钥|秘钥")
_MASK = re.compile(r"(.)\1{2,}|[*•●]+")
_TRAIL = ".,;:)]}\"'`»”’」』"


def _alternation(words: tuple[str, ...]) -> str:
    # Longest first so that "clave de acceso" wins over "clave"; spaces may be written as _ - . or nothing.
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(word.lower()).replace(r"\ ", r"[ _.\-]?") for word in ordered)


_LETTER = r"a-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u0900-\u097f"
_SPACED = r"(?<![{l}])(?:{w})(?![{l}0-9_])"
# Matched against a lower-cased copy of the text: a case-sensitive alternation runs several times
# faster than an IGNORECASE one, and the keywords are the hot loop of the whole scan.
_PASSWORD_KEYWORD = re.compile(
    _SPACED.format(l=_LETTER, w=_alternation(PASSWORD_WORDS + PIN_WORDS))
    + "|"
    + _alternation(UNSPACED_PASSWORD_WORDS)
)
_CREDENTIAL_KEYWORD = re.compile(
    _SPACED.format(l=_LETTER, w=_alternation(CREDENTIAL_WORDS))
    + "|"
    + _alternation(UNSPACED_CREDENTIAL_WORDS)
)


def fold(text: str) -> str:
    """Lower case with every character kept at its offset ("İ".lower() is two characters)."""
    folded = text.lower()
    if len(folded) == len(text):
        return folded
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


_CJK = r"\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef"
_VALUE = (
    r"(?:(?P<q>[\"'`])(?P<qv>[^\n\"'`]{1,200})(?P=q)"
    r"|[“‘«„「『‹]\s?(?P<fv>[^\n”’»“」』›]{1,200}?)\s?[”’»“」』›]"
    rf"|(?P<bv>[^\s\"'`<>{_CJK}]{{1,200}}))"
)
_FILLER_TOKEN = r"[^\s.:;=!?。、，\"'`]{1,30}"
# A word of the far connector's window: no comma inside, and the space before it either holds one
# comma or none, so "in, case" or "in   case" splits one way only: a window that could be read
# several ways backtracked through up to 2^10 readings per keyword (63 s on 64 KiB of spaced words).
_WINDOW_TOKEN = r"[^\s.:;=!?。、，,\"'`]{1,30}"
# Arrows of every length and script: "->", "-->", "=>", "→", "⇒", "➜".
_SYMBOL = r"(?::=|={1,2}>|-{1,2}>|[→⇒➜➔⟶]|:|=(?!=)|：|＝)"


@dataclass(frozen=True)
class Connector:
    """One way of joining a keyword to its value.

    `level` is how much the value must prove: 0 after a symbol (":" "="), 1 after a prose verb, 2 when
    it merely follows the keyword ("wifi password Xy7#kq9"), 3 when words of a clause stand between
    ("password whenever you connect as ETL_SVC: x"). `guard`, when set, must accept the match too.
    """

    name: str
    pattern: re.Pattern[str]
    level: int
    guard: Callable[[re.Match[str]], bool] | None = None


def _verb_guard(match: re.Match[str]) -> bool:
    # "I reset the password and the new host is db7-prod": the verb belongs to another clause.
    return not opens_clause(match.group("w"))


def _far_guard(match: re.Match[str]) -> bool:
    return window_ok(match.group("w"), verb=match.group("verb") is not None)


CONNECTORS: tuple[Connector, ...] = (
    Connector(
        "symbol",
        re.compile(
            rf"[\"'\]]?(?:\s{{1,3}}(?:\((?:[^()\n]{{1,60}})\)|(?:{_alternation(PREPOSITIONS)})"
            rf"(?:\s+{_FILLER_TOKEN}){{1,3}}))?\s{{0,3}}{_SYMBOL}\s{{0,3}}{_VALUE}",
            re.IGNORECASE,
        ),
        level=0,
    ),
    Connector(
        "verb",
        re.compile(
            rf"(?P<w>(?:\s+{_FILLER_TOKEN}){{0,4}}?)\s+(?:{_alternation(VERBS)})"
            rf"(?:\s+(?:{_alternation(ADVERBS)}))?\s*:?\s+{_VALUE}",
            re.IGNORECASE,
        ),
        level=1,
        guard=_verb_guard,
    ),
    Connector(
        "unspaced",
        re.compile(
            rf"\s{{0,2}}(?:[{_CJK}]{{0,6}}?(?:は|が|是|为|為|는|은|를|を|：|:|=|＝)|[\u0e00-\u0e7f]{{0,24}}?คือ)"
            rf"\s{{0,2}}{_VALUE}"
        ),
        level=0,
    ),
    Connector(
        "far",
        re.compile(
            rf"(?P<w>(?:(?:[ \t]*,[ \t]*|[ \t]+){_WINDOW_TOKEN}){{1,{MAX_WINDOW_WORDS}}}?)"
            rf"(?:[ \t]{{0,3}}(?:{_SYMBOL}|—|–)|[ \t]+(?P<verb>{_alternation(FAR_VERBS)}))"
            rf"[ \t]{{1,3}}{_VALUE}",
            re.IGNORECASE,
        ),
        level=3,
        guard=_far_guard,
    ),
    # A question, then its answer: "Ma nouvelle passe pour le Wi-Fi? Non, pour le compte AWS: x",
    # "password for the VPN? No, the one for AWS: x". The answer opens with an answer word.
    Connector(
        "question",
        re.compile(
            rf"[^\n?.!]{{0,60}}\?\s{{1,3}}(?:{_alternation(ANSWER_WORDS)})(?![{_LETTER}])"
            rf"[^\n?.!:=]{{0,60}}?\s{{0,3}}{_SYMBOL}\s{{0,3}}{_VALUE}",
            re.IGNORECASE,
        ),
        level=1,
    ),
    Connector("adjacent", re.compile(rf"\s+{_VALUE}"), level=2),
)


def _trim(value: str, start: int) -> tuple[str, int]:
    """Drop sentence punctuation after a bare value; the span end moves with it."""
    trimmed = value.rstrip(_TRAIL)
    query = re.search(r"&[A-Za-z_]\w*=", trimmed)  # "?password=x&user=y": the value ends at the next field
    if query:
        trimmed = trimmed[: query.start()]
    return trimmed, start + len(trimmed)


def _placeholder(value: str, keyword: str, level: int, quoted: bool) -> bool:
    folded = value.casefold()
    if folded in STOP_VALUES or _CODE_PREFIX.match(value) or _MASK.fullmatch(value):
        return True
    if not quoted and ("(" in value or "[" in value):  # a call or subscript: code, not a literal
        return True
    if keyword.casefold() in folded and not any(char.isdigit() for char in value):
        return True  # "password=db_password", "your-password-here"
    return level == 0 and not quoted and _variable_name(value)


def _variable_name(value: str) -> bool:
    """After "=" or ":" in code, a one- or two-part identifier is a variable ("user_pw", "args.pw",
    "newPass"); passphrases have three or more words ("correct-horse-battery")."""
    if not _IDENTIFIER.fullmatch(value):
        return False
    parts = len(re.split(r"[._]|(?<=[a-z])(?=[A-Z])", value))
    return parts == 2


def _case_changes(value: str) -> int:
    return sum(a.islower() and b.isupper() for a, b in itertools.pairwise(value))


def _looks_like_credential(value: str, is_password: bool) -> bool:
    """The strict test used after prose verbs: prose words ("incorrect", "JWT-based") fail it."""
    value = value.rstrip("!?")  # sentence punctuation: "Passwort vergessen?" asks, it does not tell
    if not value or _TECH_SUFFIX.search(value):
        return False
    letters = any(char.isalpha() for char in value)
    digits = any(char.isdigit() for char in value)
    if letters and digits:
        return True
    if value.isdigit():
        return is_password and len(value) >= 6
    symbols = set(value) - set("-'’.")
    if letters and any(not char.isalnum() for char in symbols):
        return True
    if any(value.count(sep) >= 2 for sep in "-_."):
        return True  # passphrases such as "correct-horse-battery-staple"
    return _case_changes(value) >= 2 and wordiness(value) < 0.7


def _key_like(value: str, level: int, keyword: str) -> bool:
    """Keys and tokens are long mixes of letters and digits; a bare hex run next to "token" is usually
    an id or a hash, so it counts only when a connector says it is the value, or when the word names
    a key or a secret and the run is as long as a 128-bit key ("API key 5c5f81eb...")."""
    if level >= 2 and len(value) < 16:
        return False
    if level >= 2 and _HEX.fullmatch(value) and not (len(value) >= 32 and _NAMES_A_KEY.search(keyword)):
        return False
    has_both = any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
    return (has_both or _case_changes(value) >= 2) and wordiness(value) < 0.7


def _is_pin(keyword: str) -> bool:
    return re.sub(r"[ _.\-]", "", keyword.casefold()) in _PIN_KEYS


def value_ok(value: str, keyword: str, is_password: bool, level: int, quoted: bool) -> bool:
    """Whether a keyword's value is a credential worth refusing (pure; the value is never kept)."""
    minimum = 4 if is_password else 8
    far_prose = level >= 3 and prose_shape(value)  # "v2.4.1", "90days", "OPS-4821" after a clause
    if len(value) < (3 if quoted else minimum) or far_prose or _placeholder(value, keyword, level, quoted):
        return False
    if is_password and _is_pin(keyword) and (value.isdigit() or level >= 2):
        return value.isdigit() and len(value) <= 8  # "PIN 4821"; "pin the issue" is no PIN
    if not is_password:
        return _key_like(value, level, keyword)
    if value.isdigit() and len(value) < 6:
        return False
    if level >= 2 and (len(value) < 6 or _PATH_LIKE.fullmatch(value)):
        return False
    return (quoted and level < 2) or level == 0 or _looks_like_credential(value, is_password)


def _value_span(match: re.Match[str]) -> tuple[str, int, int, bool]:
    for group in ("qv", "fv"):
        if match.group(group) is not None:
            return match.group(group), match.start(group), match.end(group), True
    value, end = _trim(match.group("bv"), match.start("bv"))
    if value.endswith("(") and re.match(f"[{_CJK}]", match.string[end : end + 1]):
        value, end = value[:-1], end - 1  # "パスワード:x(絶対に…)": a remark in brackets, not a call
    return value, match.start("bv"), end, False


def keyword_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """A regex of spaced keywords, as the tables above are matched (on lower-cased text)."""
    return re.compile(_SPACED.format(l=_LETTER, w=_alternation(words)))


def find_assignments(text: str, want_password: bool) -> Iterator[tuple[int, int]]:
    """Spans of values assigned to password words (want_password) or to key/token words."""
    return assignments(text, _PASSWORD_KEYWORD if want_password else _CREDENTIAL_KEYWORD, want_password)


def assignments(text: str, keywords: re.Pattern[str], want_password: bool) -> Iterator[tuple[int, int]]:
    """Spans of values joined by a connector to a match of `keywords` (see `keyword_pattern`)."""
    for keyword in keywords.finditer(fold(text)):
        for connector in CONNECTORS:
            match = connector.pattern.match(text, keyword.end())
            if match is None or (connector.guard is not None and not connector.guard(match)):
                continue
            value, start, end, quoted = _value_span(match)
            if value_ok(value, keyword.group(), want_password, connector.level, quoted):
                yield start, end
                break


# The value first, the keyword after: "Papillon2018? — that's the password for Figma",
# "hunter2X est le mot de passe". Matched on the folded text; the value's span is the same there.
_VALUE_FIRST = re.compile(
    r"(?<!\S)(?P<v>[^\s\"'`]{4,64})\s{0,2}[—–\-:,]?\s{0,2}"
    r"(?:that's|that is|this is|it's|it is|is|was|c'est|es|est|ist|é|è|is het)\s+"
    r"(?:the|my|our|your|le|mon|notre|ton|votre|la|mi|tu|el|das|mein|unser|o|a|il|de)\s+"
    rf"(?:new\s+|nuevo\s+|nouveau\s+|neue\s+)?(?:{_alternation(PASSWORD_WORDS)})(?![{_LETTER}0-9_])"
)
# "login for the NAS is admin / Zanahoria1974!": a user and a password written as a pair after a
# login word; the part after the slash is the password.
_LOGIN_PAIR = re.compile(
    r"(?<![a-z])(?:login|log-in|logon|credentials|creds|user/pass(?:word)?|zugangsdaten|anmeldedaten|"
    r"identifiants|credenciales|acceso|credenziali)(?![a-z])[^\n]{0,40}?"
    r"(?<!\S)(?P<u>[^\s/]{2,40})\s?/\s?(?P<v>[^\s/]{4,64})(?!\S)"
)
# A user side holding "=" or "$" is a flag or a variable, and the pair a path on a command line
# ("vault login -token-sink-file=$HOME/.vault-token"), not a user and a password.
_COMMAND_LINE_USER = re.compile(r"[=$]")


_LOGIN_HINTS = ("log", "cred", "user/pass", "daten", "identifiants", "acceso")


def _stated_passwords(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    patterns = []
    if _PASSWORD_KEYWORD.search(folded):
        patterns.append(_VALUE_FIRST)
    if any(hint in folded for hint in _LOGIN_HINTS):
        patterns.append(_LOGIN_PAIR)
    for pattern in patterns:
        for match in pattern.finditer(folded):
            if "u" in pattern.groupindex and _COMMAND_LINE_USER.search(match.group("u")):
                continue
            value, end = _trim(text[match.start("v") : match.end("v")], match.start("v"))
            if value_ok(value, "password", True, 1, False):
                yield match.start("v"), end


def find_passwords(text: str) -> Iterator[tuple[int, int]]:
    yield from find_assignments(text, want_password=True)
    yield from _stated_passwords(text)


def find_credentials(text: str) -> Iterator[tuple[int, int]]:
    return find_assignments(text, want_password=False)
