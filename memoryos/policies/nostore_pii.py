"""Personal data finders: payment cards, IBANs, e-mail addresses and phone numbers.

Each finder pairs a permissive, linear-time candidate regex with a pure check (checksums, issuer
prefixes, shape and context), because the shapes alone collide with order numbers, dates and IPs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memoryos.policies.nostore_checks import IBAN_LENGTHS, card_number_ok, iban_ok

# Digits with optional single space or dash separators; no look-around lets a card start or end
# inside a longer number, a decimal or a dashed identifier (a UUID's first groups can pass Luhn).
# The boundaries are ASCII: in Japanese or Chinese the number touches the words around it
# ("カード番号は4111...です"), and those are no part of it.
_CARD = re.compile(r"(?<![A-Za-z0-9_.+/-])\d(?:[ -]?\d){11,18}(?![A-Za-z0-9_]|[.,/-][A-Za-z0-9])")


def find_cards(text: str) -> Iterator[tuple[int, int]]:
    for match in _CARD.finditer(text):
        candidate = match.group()
        separators = {char for char in candidate if not char.isdigit()}
        if len(separators) > 1:
            continue  # "1234-5678 9012" mixes separators; real card numbers are written one way
        if card_number_ok(candidate.replace(" ", "").replace("-", "")):
            yield match.span()


_IBAN_START = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?=[ ]?[A-Za-z0-9])")


def _iban_end(text: str, start: int, length: int) -> int | None:
    """Where an IBAN of `length` characters that starts at `start` ends, allowing single spaces."""
    taken, index = 0, start
    while taken < length and index < len(text):
        char = text[index]
        if char.isascii() and char.isalnum():
            taken += 1
        elif not (char == " " and taken > 0 and text[index - 1] != " "):
            return None
        index += 1
    if taken < length or (index < len(text) and text[index].isascii() and text[index].isalnum()):
        return None
    return index


def find_ibans(text: str) -> Iterator[tuple[int, int]]:
    for match in _IBAN_START.finditer(text):
        length = IBAN_LENGTHS.get(match.group()[:2].upper())
        end = _iban_end(text, match.start(), length) if length else None
        if end is not None and iban_ok(text[match.start() : end].replace(" ", "").upper()):
            yield match.start(), end


_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62})"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}))*\.[A-Za-z]{2,24}(?![A-Za-z0-9\-])"
)
# "icon@2x.png" and "lib@1.2.js" are file names; these are file extensions, not top-level domains.
_FILE_SUFFIXES = frozenset(
    (
        "png jpg jpeg gif svg webp ico js mjs ts tsx jsx css scss json txt yaml yml toml lock pdf html zip gz"
    ).split()
)


# Role mailboxes (RFC 2142 and their everyday kin) reach a function, not a person: not personal data.
ROLE_MAILBOXES = frozenset(
    (
        "abuse admin administrator billing bounce bounces contact dmarc dmarc-reports do-not-reply "
        "donotreply help hello hostmaster info mailer-daemon marketing news newsletter no-reply noc "
        "noreply notifications notify office postmaster press privacy sales security support team webmaster"
    ).split()
)


# Domains reserved for documentation and tests (RFC 2606, RFC 6761): example.com, .net and .org, and
# the top-level domains .example, .test, .invalid and .localhost. No mailbox on them reaches anyone, so
# "jane.doe@example.net" in a sample config is no one's address. Reserved: a label "example" anywhere
# in the domain (example.co.uk and example.de are how other countries write the same placeholder), or
# one of those top-level domains.
_RESERVED_TLDS = frozenset({"example", "test", "invalid", "localhost"})


def reserved_domain(domain: str) -> bool:
    labels = domain.lower().split(".")
    return labels[-1] in _RESERVED_TLDS or "example" in labels[:-1]


def find_emails(text: str) -> Iterator[tuple[int, int]]:
    for match in _EMAIL.finditer(text):
        start, end = match.span()
        local, _, domain = text[start:end].partition("@")
        if local.lower() in ROLE_MAILBOXES or reserved_domain(domain):
            continue
        if (
            text[max(0, start - 3) : start] == "://"
            or text[start:end].rsplit(".", 1)[1].lower() in _FILE_SUFFIXES
        ):
            continue  # user@host inside a URL is userinfo, handled with URL credentials
        if text[end : end + 1] == ":" and text[end + 1 : end + 2].strip():
            continue  # "git@github.com:org/repo.git" is an SSH remote, not a person's address
        yield start, end


# Groups of 1-8 digits joined by single separators, with an optional "+" or parenthesised area code;
# or one unbroken run of 9-15 digits, as phones store numbers ("+12126655589", "13895006977").
# A colon may stand right before the number ("携帯：090-..." folds to "携帯:090-..."), but not after a
# letter or digit ("host:8080", "12:30").
_PHONE = re.compile(
    r"(?<![A-Za-z0-9_+#./\-])(?<![A-Za-z0-9]:)(?P<plus>\+\s?)?"
    r"\(?(?:\d{9,15}|\d{1,8})\)?(?:[ \t.\-/]{1,2}\(?\d{1,8}\)?){0,6}"
    r"(?![A-Za-z0-9_:/]|[.,\-]\d)"
)
PHONE_CONTEXT = re.compile(
    r"(?:phone|tel\b|tel\.|telephone|call|mobile|cell|whatsapp|signal|sms|fax|reach|text me|dial|ring me|"
    r"teléfono|telefono|móvil|movil|"
    r"celular|llama|téléphone|portable|appelle|telefon|handy|ruf|anruf|telefone|ligue|liga|cellulare|"
    r"chiama|電話|携帯|连络|电话|手机|联系|телефон|звони|"
    # mobile in more languages (mobil covers mobile, mobiel, mobilní), and "my number" in several
    r"mobil|telemóvel|telemovel|komórk|komork|мобильн|мобільн|сотов|cep telefon|puhelin|"
    r"\bmy number|meine nummer|mon numéro|mi número|mijn nummer|il mio numero|o meu número|mój numer|"
    r"мой номер|numaram)",
    re.IGNORECASE,
)
# Words that make a number something other than a phone number, when they are the word just before it.
NOT_PHONE_WORDS = frozenset(
    """
    order invoice ticket issue build version release port pid id ref no. nr. isbn serial account case
    tracking pedido commande bestellung factura facture rechnung model modell modelo modèle modellnummer
    modelnummer part pièce pieza teil teilenummer article artikel artículo référence reference referencia
    sku catalog katalog ssn sin itin ein nino bsn pesel cpf nif nie dni tfn
    """.split()
)
_LAST_WORD = re.compile(r"(\w+\.?)\W{0,3}$")


def _not_phone_context(before: str) -> bool:
    """A set lookup of the last word, not a regex alternation tried at every position: phone_ok runs
    once per digit group, and on a long run of numbers this is the scan's hot loop."""
    match = _LAST_WORD.search(before[-24:])
    return match is not None and match.group(1).lower() in NOT_PHONE_WORDS


_DATE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})|\d{4}[-/.]\d{1,2}|\d{1,2}[-/.]\d{4}"
)
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_NANP = re.compile(r"\(?[2-9]\d{2}\)?[ .\-]?[2-9]\d{2}[ .\-]\d{4}")
_AREA_CODE = re.compile(r"\(0?\d{2,4}\)\s?\d{3,5}[ \-]?\d{4}")
_TRUNK = re.compile(r"\(?0\d{1,4}\)?(?:[ .\-/]{1,2}\d{2,8}){1,5}")


def _is_other_number(candidate: str) -> bool:
    """Dates, IPv4 addresses and version-like dotted numbers share the phone number's shape."""
    return bool(_DATE.fullmatch(candidate) or _IPV4.fullmatch(candidate))


def _phone_shape(candidate: str, digits: int) -> bool:
    """Without a "+" or a context word, only the distinctive national shapes count."""
    if not 9 <= digits <= 12:
        return False
    return bool(_NANP.fullmatch(candidate) or _AREA_CODE.fullmatch(candidate) or _TRUNK.fullmatch(candidate))


_NUMERIC = "0123456789 \t+-()./,:;"
# An unbroken run without "+" is a phone only in a mobile's national shape and after a phone word:
# Chinese mobiles (1[3-9] and nine digits), trunk-prefixed numbers (0 and nine or ten), NANP (ten).
# Timestamps (ten or thirteen digits from 1) and ids have none of these shapes.
_BARE_MOBILE = re.compile(r"1[3-9]\d{9}|0\d{9,10}|[2-9]\d{2}[2-9]\d{6}")


def _bare_run_ok(candidate: str, before: str, wordy: bool) -> bool:
    return wordy and bool(PHONE_CONTEXT.search(before)) and _BARE_MOBILE.fullmatch(candidate) is not None


# Toll-free and shared-cost prefixes as dialled nationally (0800 in most of Europe, 0808 UK, 0120 JP,
# 1-800 and its kin in North America, 1800/1300 AU, 800/900 IT and ES): a business line, never a person's.
_TOLL_FREE = re.compile(r"\(?(?:080[0-8]|0120|0570|1[ \-]?8(?:00|88|77|66|55|44|33)|1[38]00|[89]00)[ .\-)]")
_BUSINESS = re.compile(
    r"(?i:support|hotline|help ?desk|service ?desk|customer (?:service|care)|kundenservice|kundendienst|"
    r"service client|servicio al cliente|atención al cliente|klantenservice|assistenza clienti|"
    r"switchboard|toll[ \-]free|freephone|kostenlos|gratuit|gratuito|フリーダイヤル|カスタマー|サポート|客服)"
)


def business_line(candidate: str, before: str) -> bool:
    """A toll-free number, or a number right after a support or hotline word, reaches a company."""
    return _TOLL_FREE.match(candidate) is not None or _BUSINESS.search(before) is not None


def phone_ok(text: str, start: int, end: int, has_plus: bool) -> bool:
    candidate = text[start:end]
    digits = sum(char.isdigit() for char in candidate)
    before = text[max(0, start - 32) : start]
    if digits < 7 or business_line(candidate, before):
        return False
    # A window of digits and separators holds no word: skip the word tests (a long run of numbers
    # would otherwise run two regex searches per digit group).
    wordy = bool(before.strip(_NUMERIC))
    if wordy and _not_phone_context(before):
        return False  # "référence pièce +15-640-400": a part number, even with a "+"
    if has_plus or candidate.startswith("000"):  # no trunk or international prefix is "000"
        return has_plus and 8 <= digits <= 15
    if digits >= 9 and candidate.isdigit():
        return _bare_run_ok(candidate, before, wordy)
    if _is_other_number(candidate):
        return False
    stated = wordy and PHONE_CONTEXT.search(before) is not None and 7 <= digits <= 15
    return stated or _phone_shape(candidate, digits)


def find_phones(text: str) -> Iterator[tuple[int, int]]:
    for match in _PHONE.finditer(text):
        start, end = match.span()
        if end - start >= 7 and phone_ok(text, start, end, match.group("plus") is not None):
            yield start, end
