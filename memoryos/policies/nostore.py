"""The no-store rule: refuse secrets and personal data before anything is written.

The rule is a table (`FAMILIES`) of named families, each a pure finder over the text plus the data the
scanner needs to run it cheaply and to settle overlaps. `scan()` evaluates the configured families and
returns content-free detections: a family, a receipt reason code and a span. Nothing here stores, logs
or returns the matched text; `redact()` is the only function that touches it, to mask it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from memoryos.policies.nostore_address import find_addresses
from memoryos.policies.nostore_birth import find_birth_dates
from memoryos.policies.nostore_checks import char_classes, decodes_to_text, placeholder_secret
from memoryos.policies.nostore_codes import (
    RECOVERY_HINTS,
    find_access_codes,
    find_recovery_codes,
    find_wifi_passwords,
)
from memoryos.policies.nostore_entropy import find_high_entropy
from memoryos.policies.nostore_health import find_health_ids
from memoryos.policies.nostore_ids import find_national_ids
from memoryos.policies.nostore_keywords import find_credentials, find_passwords
from memoryos.policies.nostore_normalize import Normalized, normalize
from memoryos.policies.nostore_otp import find_one_time_codes, find_seed_phrases
from memoryos.policies.nostore_pii import find_cards, find_emails, find_ibans, find_phones
from memoryos.policies.nostore_rules import find_provider_tokens
from memoryos.policies.nostore_sessions import find_session_secrets
from memoryos.policies.nostore_shell import find_command_passwords
from memoryos.policies.nostore_spoken import find_spoken

Finder = Callable[[str], Iterable[tuple[int, int]]]
REASON_CODE = re.compile(r"^[a-z0-9_]{1,32}(:[a-z0-9_]{1,64})?$")


@dataclass(frozen=True)
class Detection:
    """One refused span. `reason` goes into receipts; the span is for redaction and is never logged."""

    family: str
    reason: str
    start: int
    end: int


@dataclass(frozen=True)
class Family:
    """A named rule of the no-store table.

    `hints`: substrings of which at least one must occur (in the case-folded text when `fold_hints`)
    for the finder to run at all; a cheap `in` test keeps the scan near one pass per family.
    `priority`: when spans of two families overlap, the lower number (the more specific family) wins,
    so a GitHub token inside "token: ..." is reported as `github_token`.
    """

    name: str
    klass: str  # "secret" or "pii"
    find: Finder
    hints: tuple[str, ...] = ()
    fold_hints: bool = False
    priority: int = 20

    @property
    def reason(self) -> str:
        return f"{self.klass}:{self.name}"


def regex_finder(pattern: str, group: int = 0, check: Callable[[str], bool] | None = None) -> Finder:
    """A finder from one regex; `check` validates the matched group (pure, the text is not kept)."""
    compiled = re.compile(pattern)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            if check is None or check(match.group(group)):
                yield match.span(group)

    return find


def _mixed_case_digits(token: str) -> bool:
    """Random key material mixes upper case, lower case and digits; words and constants do not."""
    has = (any(c.isupper() for c in token), any(c.islower() for c in token), any(c.isdigit() for c in token))
    return all(has)


def _mixed_case(token: str) -> bool:
    """Hugging Face tokens are random letters, often without a digit, but always of both cases."""
    return any(c.isupper() for c in token) and any(c.islower() for c in token)


def _letters_and_digits(token: str) -> bool:
    return any(c.isalpha() for c in token) and any(c.isdigit() for c in token)


_TEMPLATE = re.compile(r"\$\{|\$\(|\$[A-Za-z_]\w*$|\{|<|%s|%\(|\*+$")


def _not_placeholder(userinfo: str) -> bool:
    """`user:${DB_PASS}@host`, `user:<password>@host` and `user:****@host` show no credential."""
    password = userinfo.split(":", 1)[1]
    if _TEMPLATE.match(password) or password.casefold() in {"password", "pass", "secret", "pwd"}:
        return False
    return len(set(password)) > 1


_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")


_TEMPLATE_BODY = re.compile(r"[\s.…*xX]*|[\s.…]*<[^<>]*>[\s.…]*")


def find_private_keys(text: str) -> Iterator[tuple[int, int]]:
    """From a BEGIN line to its END line; a key cut off before its END is refused up to the text's end.

    A block whose body is only "...", "<paste your key here>" or filler shows the format, not a key.
    """
    position = 0
    while (begin := _PEM_BEGIN.search(text, position)) is not None:
        end = _PEM_END.search(text, begin.end())
        stop = end.end() if end else len(text)
        body = text[begin.end() : end.start() if end else len(text)]
        if not (end and _TEMPLATE_BODY.fullmatch(body)):
            yield begin.start(), stop
        position = stop


_AWS_CONTEXT = re.compile(r"(?i)(?<![a-z])aws|secret[ _\-]?access[ _\-]?key")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def find_aws_secret_keys(text: str) -> Iterator[tuple[int, int]]:
    """A 40-character base64 secret within 100 characters after an AWS context word.

    The key has no prefix, so the context is what tells it from any other 40-character token.
    """
    position = 0
    for context in _AWS_CONTEXT.finditer(text):
        if context.end() < position:
            continue
        window_end = min(len(text), context.end() + 100)
        for match in _AWS_SECRET.finditer(text, max(position, context.end()), window_end):
            if _mixed_case_digits(match.group()) and char_classes(match.group()) >= 3:
                yield match.span()
                position = match.end()


# A URL that is itself the credential: whoever has a webhook URL can post as the integration, and the
# Telegram Bot API takes the bot's token as a path segment. The scan for high-entropy tokens skips URLs
# (they are public addresses), so these are found by where the secret sits in the path.
# Host and path segments are bounded: an unbounded host, and a path that could hold "/", ran
# from every "http://" of a long unspaced run to its end (11 s on 64 KiB of "http://a").
_SECRET_URL = re.compile(
    r"https?://[^\s/\"'<>]{1,253}/(?:[^\s/?#\"'<>]{0,200}/){0,12}?(?:webhooks?|hooks|webhookb2)/"
    r"([^\s?#\"'<>]{20,})"
    r"|https?://[^\s/\"'<>]{1,253}/bot(\d{6,12}:[A-Za-z0-9_\-]{30,})"
)
_URL_TOKEN = re.compile(r"[A-Za-z0-9_\-]{20,}")


def find_secret_urls(text: str) -> Iterator[tuple[int, int]]:
    """The whole URL, when its path after the hooks or bot segment holds a random token."""
    for match in _SECRET_URL.finditer(text):
        tail = match.group(1) or match.group(2)
        if any(_letters_and_digits(token) and _mixed_case(token) for token in _URL_TOKEN.findall(tail)):
            yield match.span()


# An Azure shared access signature: `sig=` is the HMAC that grants the access, `sv=` (the service
# version) or `se=` (the expiry) in the same query string are what make the query a SAS. A signed URL
# is a credential even though URLs are otherwise public addresses.
_SAS_SIG = re.compile(r"(?<![A-Za-z0-9_])sig=([A-Za-z0-9%+/=_\-]{20,})")
_SAS_FIELD = re.compile(r"(?:^|[?&;])s[ve]=[^&\s]")
_TOKEN_EDGE = re.compile(r"[\s\"'<>`]")


def find_sas_signatures(text: str) -> Iterator[tuple[int, int]]:
    """The `sig=` value of a query that also carries `sv=` or `se=`, in a URL or a bare SAS token."""
    for match in _SAS_SIG.finditer(text):
        start = match.start()
        while start > 0 and not _TOKEN_EDGE.match(text, start - 1):
            start -= 1
        end = _TOKEN_EDGE.search(text, match.end())
        query = text[start : end.start() if end else len(text)]
        if _SAS_FIELD.search(query.partition("?")[2] or query):
            yield match.span(1)


# A token written apart so that a linter or an autolinker misses it: one character at a time
# ("s k _ l i v e _ X h F u ..."), or its prefix and then groups ("glpat- s0cU rhsq bdWB ..."). The run
# is joined and judged by the families with a known token format; the span is the whole run.
_SPACED_CHARS = re.compile(r"(?<!\S)(?:\S ){11,}\S(?!\S)")
_SPACED_HINT = re.compile(r"\S \S \S \S ")
_GROUPED = re.compile(
    r"(?<![A-Za-z0-9_\-])[A-Za-z]{2,10}[_\-](?:[A-Za-z]{2,8}[_\-])? ?(?:[A-Za-z0-9]{2,8} ){2,15}"
    r"[A-Za-z0-9]{2,8}(?![A-Za-z0-9])"
)
_FORMAT_FAMILIES = frozenset(
    {
        "aws_access_key", "github_token", "gitlab_token", "slack_token", "stripe_key", "google_api_key",
        "anthropic_key", "openai_key", "huggingface_token", "npm_token", "pypi_token", "sendgrid_key",
        "provider_token",
    }
)  # fmt: skip


def _random_groups(run: str) -> bool:
    """Groups of a random token mostly hold a digit or a capital; words of prose rarely do."""
    groups = run.split(" ")[1:]
    marked = sum(any(c.isdigit() or c.isupper() for c in group) for group in groups)
    return marked * 5 >= len(groups) * 3


def find_spaced_tokens(text: str) -> Iterator[tuple[int, int]]:
    """Runs that, joined without their spaces, hold a token of a known format."""
    if text.count(" ") < 3:
        return
    runs: list[tuple[re.Pattern[str], Callable[[str], bool]]] = []
    if _SPACED_HINT.search(text):
        runs.append((_SPACED_CHARS, _mixed_case_digits))
    if "- " in text or "_ " in text:  # the prefix, then its groups
        runs.append((_GROUPED, _random_groups))
    for pattern, shaped in runs:
        for match in pattern.finditer(text):
            joined = match.group().replace(" ", "")
            if shaped(joined if pattern is _SPACED_CHARS else match.group()) and _candidates(
                joined, _FORMAT_FAMILIES
            ):
                yield match.span()


def find_spoken_secrets(text: str) -> Iterator[tuple[int, int]]:
    """A PIN, code or password dictated in words, judged in its typed form by the typed finders."""
    return find_spoken(text, (find_access_codes, find_passwords))


def find_spoken_phones(text: str) -> Iterator[tuple[int, int]]:
    return find_spoken(text, (find_phones,))


_BOUND = r"(?<![A-Za-z0-9_\-])"
_TAIL = r"(?![A-Za-z0-9_\-])"

_TABLE: tuple[Family, ...] = (
    Family("private_key", "secret", find_private_keys, ("PRIVATE KEY",), priority=1),
    Family(
        "aws_access_key",
        "secret",
        regex_finder(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    Family("aws_secret_key", "secret", find_aws_secret_keys, ("aws", "access"), fold_hints=True, priority=25),
    Family(
        "github_token",
        "secret",
        regex_finder(
            rf"{_BOUND}(?:gh[pousr]_[A-Za-z0-9]{{30,251}}|github_pat_[A-Za-z0-9_]{{30,255}}){_TAIL}"
        ),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Family(
        "gitlab_token",
        "secret",
        regex_finder(rf"{_BOUND}gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|agent|soat)-[A-Za-z0-9_\-]{{20,}}"),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glft-", "glimt-", "glagent-", "glsoat-"),
    ),
    Family(
        "slack_token",
        "secret",
        regex_finder(rf"{_BOUND}(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{{10,}}", check=_letters_and_digits),
        ("xox", "xapp-"),
    ),
    Family(
        "slack_webhook",
        "secret",
        regex_finder(r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+\-]{16,}"),
        ("hooks.slack.com",),
        priority=5,
    ),
    Family("secret_url", "secret", find_secret_urls, ("hook", "/bot"), fold_hints=True, priority=6),
    Family(
        "stripe_key",
        "secret",
        regex_finder(
            rf"{_BOUND}(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}|whsec_[A-Za-z0-9]{{24,}}){_TAIL}"
        ),
        ("_live_", "_test_", "whsec_"),
    ),
    Family(
        "google_api_key",
        "secret",
        regex_finder(rf"{_BOUND}AIza[0-9A-Za-z_\-]{{35}}{_TAIL}"),
        ("AIza",),
    ),
    Family(
        "anthropic_key",
        "secret",
        regex_finder(rf"{_BOUND}sk-ant-[A-Za-z0-9_\-]{{20,}}"),
        ("sk-ant-",),
        priority=15,
    ),
    Family(
        "openai_key",
        "secret",
        regex_finder(
            rf"{_BOUND}sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}", check=_mixed_case_digits
        ),
        ("sk-",),
    ),
    Family(
        "huggingface_token",
        "secret",
        regex_finder(rf"{_BOUND}(?:hf_|api_org_)[A-Za-z0-9]{{30,}}{_TAIL}", check=_mixed_case),
        ("hf_", "api_org_"),
    ),
    Family(
        "npm_token",
        "secret",
        regex_finder(rf"{_BOUND}npm_[A-Za-z0-9]{{36}}{_TAIL}", check=_mixed_case_digits),
        ("npm_",),
    ),
    Family(
        "pypi_token",
        "secret",
        regex_finder(rf"{_BOUND}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{{40,}}"),
        ("pypi-AgEI",),
    ),
    Family(
        "twilio_key",
        "secret",
        regex_finder(r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-f]{32}(?![A-Za-z0-9])", check=_letters_and_digits),
        ("SK", "AC"),
    ),
    Family(
        "sendgrid_key",
        "secret",
        regex_finder(rf"(?<![A-Za-z0-9_.\-])SG\.[A-Za-z0-9_\-]{{16,32}}\.[A-Za-z0-9_\-]{{16,64}}{_TAIL}"),
        ("SG.",),
    ),
    Family(
        "azure_storage_key",
        "secret",
        regex_finder(
            r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*([A-Za-z0-9+/%]{20,}={0,2})",
            group=1,
        ),
        ("accountkey", "sharedaccess"),
        fold_hints=True,
    ),
    Family("azure_sas_token", "secret", find_sas_signatures, ("sig=",), priority=7),
    Family("session_secret", "secret", find_session_secrets, priority=8),
    Family(
        "jwt",
        "secret",
        regex_finder(rf"{_BOUND}eyJ[A-Za-z0-9_\-]{{8,}}\.ey[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]*"),
        ("eyJ",),
        priority=10,
    ),
    # The user name may be empty: Redis and others take a password alone ("redis://:pw@host").
    Family(
        "url_credentials",
        "secret",
        regex_finder(
            r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,30}://"
            r"([^\s:/?#@\[\]\"'<>]{0,128}:[^\s/?#@\[\]\"'<>]{1,256})@(?=[A-Za-z0-9\[])",
            group=1,
            check=_not_placeholder,
        ),
        ("://",),
        priority=30,
    ),
    Family(
        "bearer_token",
        "secret",
        regex_finder(
            r"(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?\s*(?:bearer|basic|token)\s+|\bbearer\s+)"
            r"([A-Za-z0-9._~+/\-]{16,}=*)",
            group=1,
            check=_letters_and_digits,
        ),
        ("bearer", "authorization"),
        fold_hints=True,
        priority=35,
    ),
    # Formats of many more providers, from CredSweeper's rules when `memoryos[secrets]` is installed.
    Family("provider_token", "secret", find_provider_tokens, priority=21),
    Family("wifi_password", "secret", find_wifi_passwords, priority=39),
    Family("password_assignment", "secret", find_passwords, priority=40),
    Family("command_password", "secret", find_command_passwords, priority=40),
    Family(
        "access_code",
        "secret",
        find_access_codes,
        ("code", "pin", "kod", "combin", "kombin", "codice", "código", "codigo"),
        fold_hints=True,
        priority=42,
    ),
    Family(
        "recovery_codes",
        "secret",
        find_recovery_codes,
        RECOVERY_HINTS,
        fold_hints=True,
        priority=38,
    ),
    Family("credential_assignment", "secret", find_credentials, priority=41),
    Family("one_time_code", "secret", find_one_time_codes, priority=43),
    Family("seed_phrase", "secret", find_seed_phrases, priority=37),
    Family("spoken_secret", "secret", find_spoken_secrets, (" ",), priority=44),
    Family("spaced_token", "secret", find_spaced_tokens, (" ",), priority=58),
    Family("high_entropy", "secret", find_high_entropy, priority=60),
    Family("credit_card", "pii", find_cards, priority=45),
    Family("iban", "pii", find_ibans, priority=45),
    Family("national_id", "pii", find_national_ids, priority=46),
    Family("health_id", "pii", find_health_ids, priority=47),
    Family("email", "pii", find_emails, ("@",), priority=50),
    Family("postal_address", "pii", find_addresses, priority=52),
    Family("date_of_birth", "pii", find_birth_dates, priority=53),
    Family("phone", "pii", find_phones, priority=55),
    Family("spoken_phone", "pii", find_spoken_phones, (" ",), priority=56),
)

FAMILIES: Mapping[str, Family] = MappingProxyType({family.name: family for family in _TABLE})
DEFAULT_FAMILIES: frozenset[str] = frozenset(FAMILIES)


def _hinted(family: Family, text: str, folded: str) -> bool:
    if not family.hints:
        return True
    haystack = folded if family.fold_hints else text
    return any(hint in haystack for hint in family.hints)


# Families whose values may be plain base64 of a readable note (pagination cursors, encoded text).
_ENCODED_TEXT_FAMILIES = frozenset({"high_entropy", "credential_assignment"})


def _plausible(family: Family, value: str) -> bool:
    """Checks every secret family shares: examples, templates and encoded text are not secrets."""
    if family.klass != "secret" or family.name == "private_key":
        return True
    if placeholder_secret(value):
        return False
    if family.name == "provider_token" and value.startswith("eyJ") and "." not in value:
        return not decodes_to_text(value)  # base64 of bare JSON (a cursor, a state), not a signed token
    return family.name not in _ENCODED_TEXT_FAMILIES or not decodes_to_text(value)


def _candidates(text: str, names: frozenset[str]) -> list[tuple[int, int, int, Family]]:
    folded = text.lower()
    found: list[tuple[int, int, int, Family]] = []
    for family in _TABLE:
        if family.name in names and _hinted(family, text, folded):
            found.extend(
                (family.priority, start, end, family)
                for start, end in family.find(text)
                if end > start and _plausible(family, text[start:end])
            )
    return found


def _overlaps(kept_starts: list[int], kept_ends: list[int], start: int, end: int) -> bool:
    """Kept spans are disjoint and sorted, so only the neighbours of the insertion point can overlap."""
    index = bisect_left(kept_starts, start)
    if index < len(kept_starts) and kept_starts[index] < end:
        return True
    return index > 0 and kept_ends[index - 1] > start


def _on_original(detection: Detection, copy: Normalized) -> Detection:
    start, end = copy.span(detection.start, detection.end)
    return replace(detection, start=start, end=end)


def _resolve(found: list[tuple[int, int, int, Family]], copy: Normalized) -> list[Detection]:
    """Most specific family first; a span overlapping one already kept is dropped. Spans are settled on
    the normalised copy and mapped back onto the original text, which keeps them disjoint and ordered."""
    kept_starts: list[int] = []
    kept_ends: list[int] = []
    kept: list[Detection] = []
    for _, start, end, family in sorted(found, key=lambda item: (item[0], item[1], -item[2])):
        if _overlaps(kept_starts, kept_ends, start, end):
            continue
        index = bisect_left(kept_starts, start)
        kept_starts.insert(index, start)
        kept_ends.insert(index, end)
        kept.insert(index, Detection(family.name, family.reason, start, end))
    return [_on_original(detection, copy) for detection in kept]


def scan(text: str, families: frozenset[str] | None = None) -> list[Detection]:
    """Detections of the selected families (default: all), disjoint and ordered by start.

    The finders run on the normalised copy of the text (see `nostore_normalize`), so a zero-width or
    non-breaking space inside a card number hides nothing; the spans returned are on `text` itself.
    Unknown family names are an error: a typo in configuration must not silently disable the rule.
    """
    names = DEFAULT_FAMILIES if families is None else families
    unknown = names - DEFAULT_FAMILIES
    if unknown:
        raise ValueError(f"unknown no-store families: {sorted(unknown)}")
    copy = normalize(text)
    return _resolve(_candidates(copy.text, names), copy)


def redact(text: str, detections: list[Detection]) -> str:
    """The text with each detected span replaced by `[REDACTED:<reason>]`; overlaps are merged."""
    pieces: list[str] = []
    position = 0
    for detection in sorted(detections, key=lambda d: (d.start, -d.end)):
        if detection.end <= position:
            continue
        pieces.append(text[position : max(position, detection.start)])
        pieces.append(f"[REDACTED:{detection.reason}]")
        position = detection.end
    pieces.append(text[position:])
    return "".join(pieces)
