"""Bearer values that are not keys: session cookies, URL signatures and secret-bearing URL paths.

- A session cookie is the logged-in session itself: whoever pastes `PHPSESSID=…` or `JSESSIONID=…`
  into a browser is that user. The cookie names of the common frameworks, then a value of 16 or more
  random characters (an id in hex or base32 counts here: the name says it is a session).
- A signed URL grants access until it expires: S3's `X-Amz-Signature`, Google Cloud Storage's
  `X-Goog-Signature`, CloudFront's `Signature=` with `Key-Pair-Id=`, and the generic `signature=` next
  to an `expires=` field. The signature's value is refused.
- Webhook and trigger URLs whose path holds the secret: a `/hooks/<id>` path in lower case and digits
  (Mattermost, Rocket.Chat), `/with/key/<key>` (IFTTT Maker) and `/trigger/<id>/<token>`-style paths.

The finders return the span of the value; nothing here keeps or logs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Cookie names that carry a session (matched case-insensitively, as written in a Cookie header).
SESSION_COOKIES: tuple[str, ...] = (
    "phpsessid", "jsessionid", "asp.net_sessionid", "aspsessionid[a-z]{0,10}", "connect.sid",
    "laravel_session", "_[a-z0-9_]{1,30}_session", "ci_session", "cfid", "cftoken", "rack.session",
    "wordpress_logged_in_[0-9a-f]{0,32}", "wordpress_sec_[0-9a-f]{0,32}", "express.sid", "auth_session",
    "__secure-next-auth.session-token", "next-auth.session-token", "__host-session",
    # Generic names: an application's own session id in a log is as often a uuid or a hex trace id.
    "sessionid", "session_id", "sessid", "session-token", "sessiontoken",
)  # fmt: skip
_GENERIC = frozenset({"sessionid", "session_id", "sessid", "session-token", "sessiontoken"})
_HEX_ID = re.compile(r"[0-9a-fA-F\-]+")
_COOKIE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<name>(?i:" + "|".join(SESSION_COOKIES) + r"))\s{0,2}[=:]\s{0,2}"
    r"[\"']?(?P<v>[A-Za-z0-9%+/_.\-]{16,4096}={0,2})"
)
_SESSION_HINTS = ("sess", "sid", "cfid", "cftoken", "wordpress_")


def _random_enough(value: str) -> bool:
    """A session id mixes letters and digits and is no word or repeated character."""
    letters = sum(char.isalpha() for char in value)
    digits = sum(char.isdigit() for char in value)
    return letters >= 4 and digits >= 3 and len(set(value)) >= 8


def _cookies(text: str) -> Iterator[tuple[int, int]]:
    for match in _COOKIE.finditer(text):
        value = match.group("v")
        if match.group("name").lower() in _GENERIC and _HEX_ID.fullmatch(value):
            continue
        if _random_enough(value):
            yield match.span("v")


# The signature of a signed URL; `Signature=` alone is too common a query field, so CloudFront's needs
# its `Key-Pair-Id` (or `Policy`) in the same URL, and the generic name an expiry field.
_SIGNATURE = re.compile(
    r"[?&](?i:x-amz-signature|x-goog-signature|x-oss-signature|x-cos-signature)=(?P<v>[A-Za-z0-9%+/_.~\-]{16,})"
    r"|[?&](?:Signature|signature|sig)=(?P<w>[A-Za-z0-9%+/_.~\-]{20,})"
)
_SIGNED_QUERY = re.compile(r"(?i)[?&](?:key-pair-id|policy|expires|x-amz-expires|x-goog-expires|se|exp)=")
_URL_END = re.compile(r"[\s\"'<>`]")


def _signatures(text: str) -> Iterator[tuple[int, int]]:
    for match in _SIGNATURE.finditer(text):
        if match.group("v") is not None:
            yield match.span("v")
            continue
        start = text.rfind("?", max(0, match.start() - 2048), match.start() + 1)
        limit = min(len(text), match.end() + 2048)  # bounded: an unspaced run must not make it quadratic
        stop = _URL_END.search(text, match.end(), limit)
        query = text[max(start, 0) : stop.start() if stop else limit]
        if start >= 0 and _SIGNED_QUERY.search(query):
            yield match.span("w")


# "/hooks/<26 lower-case letters and digits>" (Mattermost), "/with/key/<key>" (IFTTT Maker).
_HOOK_PATH = re.compile(
    r"https?://[^\s/\"'<>]{1,253}/(?:[^\s/?#\"'<>]{0,100}/){0,8}?"
    r"(?:hooks|webhooks?|with/key|trigger/key|api/key)/(?P<v>[A-Za-z0-9_\-]{20,128})(?![A-Za-z0-9_\-])"
)


def _hook_paths(text: str) -> Iterator[tuple[int, int]]:
    for match in _HOOK_PATH.finditer(text):
        value = match.group("v")
        digits = sum(char.isdigit() for char in value)
        letters = sum(char.isalpha() for char in value)
        if digits >= 3 and letters >= 8 and len(set(value)) >= 12:
            yield match.span("v")


def find_session_secrets(text: str) -> Iterator[tuple[int, int]]:
    """Session cookie values, URL signatures and secret URL paths."""
    folded = text.lower()
    if any(hint in folded for hint in _SESSION_HINTS):
        yield from _cookies(text)
    if "sig" in folded:
        yield from _signatures(text)
    if "://" in text and ("hook" in folded or "/key/" in folded):
        yield from _hook_paths(text)


TRIGGERS: tuple[str, ...] = (
    "PHPSESSID=", "JSESSIONID=", "sessionid=", "_app_session=", "?X-Amz-Signature=", "&Signature=", "?sig=",
    "&Key-Pair-Id=", "http://a/hooks/", "http://a/with/key/", "http://a/", "wordpress_logged_in_",
)  # fmt: skip
