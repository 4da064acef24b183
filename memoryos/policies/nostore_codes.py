"""Codes that open something: door, gate and alarm codes, account recovery codes, Wi-Fi passwords.

None of them has a format of its own. A door code is four to eight digits, a recovery code list is a
row of short random words; without their words they are order numbers and part numbers. So each
finder asks for the words that say what the value opens, in the languages people write in, joined
to the value as prose joins a name to its value (":", "is", "est", "lautet"...):

- an access code: "le code de la porte d'entrée est 4326", "Türcode Haus 2: 7381", "gate code 4821#",
  "alarm disarm code: 5672". The value is 3 to 10 digits (digicodes may hold A-D, keypads * and #);
  with no connector between word and value, it must follow the word directly and hold 4 to 8 digits.
- recovery or backup codes: "GitHub recovery codes: 5188 1916 ...", "backup codes are ebv29-vek7m ...".
  Two or more code-shaped tokens, or one of eight or more characters, after the word and a connector.
- a Wi-Fi password: a network and its password written as a pair ("Wi-Fi for guests: Fritzbox-7590 /
  TKoSP8dak"), or a network key word and its value ("wifi key: x", "WPA2-PSK x", "clé WPA : x").

The finders return the span of the value; nothing here keeps or logs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memoryos.policies.nostore_keywords import assignments, fold, keyword_pattern, value_ok
from memoryos.policies.nostore_window import prose_shape

# --- access codes ---------------------------------------------------------------------------------

# What a code opens, in the languages of the keyword tables (matched on lower-cased text).
_OBJECTS = (
    r"(?:front |back |main |side |garage |building |apartment |house |street )?"
    r"(?:door|gate|alarm|garage|lockbox|lock box|key ?box|key ?safe|safe|entry|entrance|keypad|intercom|"
    r"buzzer|padlock|lock|house|apartment|flat|shed|"
    r"porte(?: d'entrée| d'entree)?|portail|alarme|immeuble|entrée|entree|coffre(?:-fort)?|cadenas|"
    r"interphone|"
    r"bâtiment|batiment|résidence|residence|"
    r"puerta|portal|portón|porton|alarma|garaje|caja fuerte|candado|entrada|edificio|"
    r"porta|portão|portao|alarme|garagem|cofre|cadeado|prédio|predio|"
    r"portone|cancello|allarme|cassaforte|lucchetto|ingresso|citofono|"
    r"haustür|haustuer|tür|tuer|tor|alarmanlage|tresor|eingang|schließfach|"
    r"deur|voordeur|poort|hek|kluis|drzwi|bramy|domofonu|alarmu|sejfu|garażu|klatki)"
)
_CODE_WORDS = (
    r"(?:code|pin|combination|combo|passcode|código|codigo|codice|kod|kode|koodi|combinaison|combinación|"
    r"combinazione|kombination|zahlencode)"
)
_PREPOSITION = (
    r"(?:for|to|of|on|de la|de l'|du|de|d'|pour la|pour le|pour l'|pour|del|de el|da|do|della|dello|dell'|"
    r"di|der|des|für die|für das|für den|für|zur|zum|vom|van de|van het|voor de|voor het|van|voor|till|för|"
    r"af|od)"
)
_ARTICLE = r"(?:(?:the|my|our|your|la|le|el|a|o|il|die|das|den|het) )?"
_ACCESS_KEYWORD = re.compile(
    r"(?<![a-zà-ÿ])(?:"
    # single words: "digicode", "Türcode", "Alarmcode", "deurcode", "portkod", "dørkode"
    r"digicode|(?:haust[üu]r|haustuer|t[üu]r|tuer|tor|alarm|garagen?|tresor|zugangs|eingangs)code|"
    r"(?:deur|poort|toegangs)code|(?:tresor|safe|schloss|zahlenschloss|fahrradschloss)-?kombination|"
    r"(?:port|dörr|dorr|larm|grind)koden?|(?:dør|dor|port|alarm|adgangs)koden?|"
    # "front door code", "alarm disarm code", "garage door PIN", "gate access code"
    rf"{_OBJECTS}(?:[ \-](?:door|gate|alarm|disarm|arming|entry|access|keypad|system|panel))?[ \-]"
    r"(?:code|pin|combination|combo|passcode)s?|"
    r"(?:access|entry|disarm|arming) code|"
    r"code d'acc[èe]s|c[óo]digo de (?:acceso|acesso)|codice d'accesso|codice di accesso|"
    # "code de la porte", "código del portal", "code for the front door", "kod do drzwi"
    rf"{_CODE_WORDS} {_PREPOSITION} ?{_ARTICLE}{_OBJECTS}|"
    # "code alarme", "code portail", "código portón": French and Spanish may drop the preposition
    rf"{_CODE_WORDS} {_OBJECTS}"
    r")(?![a-zà-ÿ])"
)
_CONNECTOR = (
    r"(?:\s{0,3}(?::|=|：|—|–|-)\s{0,3}|\s+(?:is|was|est|ist|es|era|è|é|lautet|war|är|er|jest|to|wynosi|"
    r"c'est|is now|est maintenant|ist jetzt|changed to|set to)\s+)"
)
# Up to four words between the keyword and the connector ("Türcode Haus 2: 7381", "d'entrée est",
# "door code for the back entrance is").
_FILLER = r"(?:[ \t]+[^\s.;!?:=]{1,24}){0,4}?"
_CODE_VALUE = r"(?P<v>[*#]?\d[0-9a-d*#]{2,11})(?![a-z0-9]|[.,:/\-]\d)"
_AFTER_CONNECTOR = re.compile(rf"{_FILLER}{_CONNECTOR}{_CODE_VALUE}")
_ADJACENT = re.compile(r"[ \t]+(?P<v>[*#]?\d{4,8}[#*]?)(?![a-z0-9]|[.,:/\-]\d)")


def _code_ok(value: str, adjacent: bool) -> bool:
    digits = sum(char.isdigit() for char in value)
    return 4 <= digits <= 8 if adjacent else 3 <= digits <= 10


# A dial's combination is two to five numbers of one or two digits: "safe combination: 15-22-4".
_DIAL = re.compile(
    rf"{_FILLER}{_CONNECTOR}(?P<v>\d{{1,2}}(?:[\-–/ ]\d{{1,2}}){{2,4}})(?![0-9a-z]|[.,:/\-]\d)"
)
_DIAL_WORDS = ("combin", "combo", "kombination", "kombinacj")


def _access_keywords(folded: str) -> Iterator[re.Match[str]]:
    """Keyword matches that may overlap: "gate code for the side entrance ... is 4417" has its value
    after the second ("code for the side entrance"), which starts inside the first."""
    position = 0
    while (keyword := _ACCESS_KEYWORD.search(folded, position)) is not None:
        yield keyword
        position = keyword.start() + 1


def find_access_codes(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    position = 0
    for keyword in _access_keywords(folded):
        if keyword.start() < position:
            continue
        if any(word in keyword.group() for word in _DIAL_WORDS):
            dial = _DIAL.match(folded, keyword.end())
            if dial is not None:
                yield dial.span("v")
                position = dial.end()
                continue
        for pattern, adjacent in ((_AFTER_CONNECTOR, False), (_ADJACENT, True)):
            match = pattern.match(folded, keyword.end())
            if match is not None and _code_ok(match.group("v"), adjacent):
                yield match.span("v")
                position = match.end()
                break


# --- recovery codes -------------------------------------------------------------------------------

_RECOVERY_KEYWORD = re.compile(
    r"(?<![a-zà-ÿ])(?:"
    r"(?:recovery|backup|back-up|scratch|emergency|one-time|2fa|two-factor|mfa|otp)[ \-](?:codes?|keys?)|"
    r"codes? de (?:r[ée]cup[ée]ration|secours|sauvegarde)|"
    r"(?:wiederherstellungs|backup-|notfall|sicherungs|wiederherstellungs-)codes?|"
    r"c[óo]digos? de (?:recuperaci[óo]n|respaldo|seguridad|seguran[çc]a|backup|recupera[çc][ãa]o|reserva)|"
    r"codici (?:di recupero|di backup|di riserva)|herstelcodes?|back-?upcodes?|"
    r"kody (?:zapasowe|odzyskiwania|jednorazowe)|återställningskoder|reservkoder|gendannelseskoder"
    r")(?![a-zà-ÿ])"
    r"|リカバリーコード|バックアップコード|恢复代码|备用码|恢复码|복구 코드"
)
# One of these is in every match of the keyword above: the family runs only when one is in the text.
RECOVERY_HINTS: tuple[str, ...] = (
    "recovery", "backup", "back-up", "scratch", "emergency", "one-time", "2fa", "two-factor", "mfa", "otp",
    "récup", "recup", "secours", "sauvegarde", "wiederherstellungs", "notfall", "sicherungs", "respaldo",
    "seguridad", "seguran", "reserva", "riserva", "herstel", "zapasow", "odzysk", "jednoraz", "återställ",
    "reservkod", "gendannelse", "otpauth", "authenticator",
    "リカバリー", "バックアップ", "恢复", "备用", "복구",
)  # fmt: skip
_LIST_CONNECTOR = re.compile(
    r"(?:[ \t]*\([^()\n]{1,30}\))?(?:[ \t]+[^\s.;!?:=]{1,24}){0,3}?"
    r"(?:\s{0,3}(?::|=|：|—|–)\s*|\s+(?:are|were|sind|waren|sont|son|são|sao|sono|zijn|to|är|er)\s*:?\s*"
    r"|(?:\.[a-z]{2,4})?[ \t]*\n)"  # a heading or a file name ("recovery-codes.txt"), the codes below
)
# Up to eight dashed groups: BitLocker keys are eight groups of six digits, Microsoft's five of five.
_CODE_TOKEN = re.compile(r"(?:[a-z0-9]{4,16})(?:-[a-z0-9]{3,12}){0,7}(?![^\s,;])")  # GitLab's: 16 hex
_SEPARATOR = re.compile(r"[ \t]*[,;]?[ \t]*\n?[ \t]*(?:[-*•]|\d{1,2}[.)])?[ \t]*")
_YEAR = re.compile(r"(?:19|20)\d\d")


def _code_list(folded: str, position: int) -> tuple[int, int, list[str]]:
    """The run of code-shaped tokens from `position` on: (start, end, tokens)."""
    tokens: list[str] = []
    start = end = position
    while (token := _CODE_TOKEN.match(folded, position)) is not None and any(
        c.isdigit() for c in token.group()
    ):
        if not tokens:
            start = token.start()
        tokens.append(token.group())
        end = token.end()
        separator = _SEPARATOR.match(folded, end)
        position = separator.end() if separator else end
        if len(tokens) >= 32:
            break
    return start, end, tokens


def _looks_like_codes(tokens: list[str]) -> bool:
    if not tokens or all(_YEAR.fullmatch(token) for token in tokens):
        return False
    if len(tokens) >= 2:
        return not any(prose_shape(token) for token in tokens)
    token = tokens[0]
    return len(token.replace("-", "")) >= 8 and not prose_shape(token)


def _codes_after(folded: str, position: int) -> tuple[int, int, list[str]] | None:
    """The code list after a connector at `position`; a connector with no codes after it may be the
    dash of an aside ("Backup codes (Microsoft) – keep safe: 8551 7282, ..."), so one more is tried."""
    for _ in range(2):
        connector = _LIST_CONNECTOR.match(folded, position)
        if connector is None:
            return None
        bullet = _SEPARATOR.match(folded, connector.end())  # a list may start on the next line
        start, end, tokens = _code_list(folded, bullet.end() if bullet else connector.end())
        if tokens:
            return start, end, tokens
        position = connector.start() + len(connector.group().rstrip())  # words follow a space
    return None


# The seed of a one-time-password app, as its QR code holds it: "otpauth://totp/GitHub:me?secret=JBSW...".
# Whoever has it makes the second factor: a code that opens the account like a recovery code.
_OTPAUTH_SECRET = re.compile(
    r"otpauth://[a-z]{4}/[^\s?]{0,200}\?(?:[^\s#]{0,200}?&)?secret=(?P<v>[a-z2-7=]{16,128})"
)


# A TOTP seed as authenticator apps print it for typing in: base32 in groups of four ("7K53 RZEP BDE3
# 3WO4 ..."), after a word of the second factor. Four groups or more: a seed holds 80 bits or more.
# Some apps print the groups in lower case ("otox 5vbx q4qj ..."): matched on the folded text.
_SPACED_SEED = re.compile(r"(?<![a-z0-9])[a-z2-7]{4}(?: [a-z2-7]{4}){3,15}(?![a-z0-9])")
_SEED_CONTEXT = re.compile(r"mfa|2fa|totp|two-factor|authenticator|otp|setup key|secret key|zwei-faktor")
_SEED_WINDOW = 100


def _spaced_seeds(text: str, folded: str) -> Iterator[tuple[int, int]]:
    for match in _SPACED_SEED.finditer(folded):
        seed = match.group()
        if not (any(c.isdigit() for c in seed) and any(c.isalpha() for c in seed)):
            continue
        if _SEED_CONTEXT.search(folded, max(0, match.start() - _SEED_WINDOW), match.start()):
            yield match.span()


def find_recovery_codes(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    for keyword in _RECOVERY_KEYWORD.finditer(folded):
        found = _codes_after(folded, keyword.end())
        if found is not None and _looks_like_codes(found[2]):
            yield found[0], found[1]
    if "otpauth://" in folded:
        yield from (match.span("v") for match in _OTPAUTH_SECRET.finditer(folded))
    yield from _spaced_seeds(text, folded)


# --- Wi-Fi passwords ------------------------------------------------------------------------------

# A Wi-Fi network's key is its password: "wifi key: x", "WPA-PSK x", "clé WPA : x", "WLAN-Schlüssel x".
# ("WLAN-Passwort", "wifi password" and "mot de passe wifi" are password words of `nostore_keywords`.)
WIFI_KEY_WORDS: tuple[str, ...] = (
    "wifi key", "wi-fi key", "wlan key", "wpa key", "wpa2 key", "wpa3 key", "wpa-psk", "wpa2-psk", "psk",
    "network key", "wifi code", "wi-fi code", "wlan-schlüssel", "wlan schlüssel", "netzwerkschlüssel",
    "clé wifi", "clé wi-fi", "clé wpa", "clé réseau", "clave wifi", "clave wi-fi", "clave wpa",
    "chave wifi", "chave wi-fi", "chiave wifi", "chiave wi-fi", "wifi-koodi",
)  # fmt: skip
_WIFI_KEYWORD = keyword_pattern(WIFI_KEY_WORDS)
# "Wi-Fi for guests: Fritzbox-7590 / TKoSP8dakZz9X9vE": the network's name, a slash, its password
# (WPA passphrases are 8 to 63 characters), in one sentence.
_WIFI_PAIR = re.compile(
    r"(?<![a-z])(?:wi-?fi|wlan|wireless|wpa[23]?|ssid|hotspot|réseau|reseau|red)(?![a-z])"
    r"(?:[^\n/.!?;]|[.!?](?=\S)){0,40}?"
    r"(?<!\S)[^\s/]{2,40}[ \t]?/[ \t]?(?P<v>[^\s/]{8,63})(?!\S)"
)
_WIFI_HINTS = (
    "wi-fi", "wifi", "wlan", "wireless", "wpa", "ssid", "hotspot", "réseau", "reseau", "red ", "psk",
    "network key", "netzwerkschlüssel",
)  # fmt: skip


def _wifi_pairs(text: str, folded: str) -> Iterator[tuple[int, int]]:
    for match in _WIFI_PAIR.finditer(folded):
        start = match.start("v")
        value = text[start : match.end("v")].rstrip(".,;:)]}\"'")
        if value_ok(value, "password", True, 1, False) and not prose_shape(value):
            yield start, start + len(value)


# The Wi-Fi QR code's text ("WIFI:T:WPA;S:HomeNet;P:j3PQqkbrb3yS;;"): fields separated by ";", with
# "\;" escaping one; "P:" is the password. Fields and value are bounded, so a long run costs one pass.
_WIFI_QR = re.compile(
    r"(?<![a-z])wifi:(?:(?:[^;\\\n]|\\.){0,64};){0,6}?p:(?P<v>(?:[^;\\\n]|\\.){1,63})(?:;|$)"
)


def _wifi_qr_codes(text: str, folded: str) -> Iterator[tuple[int, int]]:
    if "wifi:" not in folded:
        return
    for match in _WIFI_QR.finditer(folded):
        value = text[match.start("v") : match.end("v")]
        if value_ok(value, "password", True, 0, True):
            yield match.span("v")


# A router's printed key in groups of digits: "WLAN-Schlüssel: 1448 6434 5147 8493 2210" (FRITZ!Box).
_WIFI_DIGITS = re.compile(
    r"(?:[ \t]+[^\s.;!?:=]{1,24}){0,3}?[ \t]{0,3}[:=：][ \t]{0,3}(?P<v>\d{4}(?:[ \-]\d{4}){2,5})(?![\d])"
)


def _wifi_digit_keys(folded: str) -> Iterator[tuple[int, int]]:
    for keyword in _WIFI_KEYWORD.finditer(folded):
        match = _WIFI_DIGITS.match(folded, keyword.end())
        if match is not None:
            yield match.span("v")


def find_wifi_passwords(text: str) -> Iterator[tuple[int, int]]:
    folded = fold(text)
    if not any(hint in folded for hint in _WIFI_HINTS):
        return
    yield from assignments(text, _WIFI_KEYWORD, want_password=True)
    yield from _wifi_digit_keys(folded)
    yield from _wifi_pairs(text, folded)
    yield from _wifi_qr_codes(text, folded)
