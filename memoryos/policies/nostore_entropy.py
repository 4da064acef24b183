"""High-entropy tokens judged one by one: random key material without a known prefix.

A token counts when it is long, mixes character classes, has high Shannon entropy and does not read
like words. Hashes and ids that agents write all day are let through on purpose: hex runs (git SHAs,
digests, UUIDs), URLs without credentials, file paths and version strings.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from memoryos.policies.nostore_checks import char_classes, shannon_entropy, wordiness


@dataclass(frozen=True)
class EntropyRule:
    """Thresholds of the per-token judgement; data, so a caller can tighten or relax them."""

    min_length: int = 20
    min_letters: int = 10
    # Entropy needed grows with length (a short random token cannot show many distinct characters),
    # from base + slope * length, capped.
    entropy_base: float = 2.6
    entropy_slope: float = 0.05
    entropy_cap: float = 4.2
    min_classes: int = 3
    max_wordiness: float = 0.5
    # Lower-case-only tokens (k8s pod names, slugs) count only with a long unbroken random run.
    min_lowercase_run: int = 20


DEFAULT_ENTROPY_RULE = EntropyRule()

_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_.~\-])[A-Za-z0-9+/_.~\-]{20,}={0,2}(?![A-Za-z0-9+/=_~\-])")
# From "://" on: a token cannot cross the ":" before it, so the scheme need not be part of the span.
_URL = re.compile(r"://[^\s\"'<>]+|www\.[^\s\"'<>]+")
_HEXISH = re.compile(r"(?:0x)?[0-9a-fA-F\-]+|(?:sha\d*|md5)?[-_.]?[0-9a-fA-F]+", re.IGNORECASE)
_VERSION = re.compile(r"v?\d+(?:[._\-]\d+)+(?:[.\-+][0-9A-Za-z.\-]+)?", re.IGNORECASE)
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
# A digest names its algorithm: "sha512-Ws7r..." (SRI), "SHA256:uTcY..." (SSH fingerprints), "h1:AGKx..."
# (go.sum). Such a token is a checksum of public content.
# An HTTP `Content-Digest`/`Repr-Digest` field writes it "sha-256=:<base64>:" (RFC 9530).
_DIGEST_PREFIX = re.compile(r"(?i:sha-?(?:1|224|256|384|512)|md5|blake2[bs]?|h1)(?:[:\-]|=:)$")
_DIGEST_START = re.compile(r"(?i:sha(?:1|224|256|384|512)|md5|blake2[bs]?)-")
# A token labelled as an id ("Ray ID:", "request-id:", "x-amz-id-2:") identifies a request, not a user.
_ID_LABEL = re.compile(
    r"(?i:\bid(?:-\d)?|request[-_ ]?id|trace(?:[-_ ]?id)?|span[-_ ]?id|correlation[-_ ]?id)"
    r"[\"']?\s{0,2}[:=]\s{0,2}[\"']?$"
    r"|(?i:\bcf-ray|\bray[-_ ]id)[\"']?\s{0,2}[:=]?\s{0,2}[\"']?$"
)
# A value labelled as the public half of a key pair: WireGuard's `PublicKey = ...`, `public_key: ...`,
# and a JWK's public members ("x", "y" of an EC or OKP key, "n", "e" of an RSA key). A private JWK is
# still refused by its "d" (and "p", "q", ...), which carries no such label.
_PUBLIC_LABEL = re.compile(
    r"(?i:\bpub(?:lic)?[-_ ]?key)[\"']?\s{0,2}[:=]\s{0,2}[\"']?$"
    r"|[\"'](?:x|y|n|e)[\"']\s{0,2}:\s{0,2}[\"'][-_~.]?$"
)
# An image or a font inlined as a data URI: public content, however random its base64 looks.
_DATA_URI = re.compile(r"data:(?:image|font)/[A-Za-z0-9.+\-]{1,40};base64,[A-Za-z0-9+/=]+")
# A Cloudflare Ray ID and its kin: a hex run and the data centre's code ("90cd3ab06f8f811c-FRA").
_HEX_AND_SITE = re.compile(r"[0-9a-f]{8,32}-[A-Z]{3,4}")
_FILE_SUFFIX = re.compile(r"\.[a-z]{1,5}$")
# Code names joined by dots ("BuildScript.PerformBuild", "UnityEditor.BuildPipeline.BuildPlayer"):
# letters only, each part a run of CamelCase humps of three letters or more, or an acronym ("IO").
_DOTTED_NAME = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+")
_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


# A header or identifier name of capitalised words joined by hyphens ("X-Cloud-Trace-Context").
_HYPHENATED_NAME = re.compile(r"[A-Z][a-z]*(?:-[A-Z][a-z]*){2,}")
# A provider's public object id: a short type prefix and a random part ("evt_1Nq...", "req_7EK...",
# "cus_Pq..."). It names a record in the provider's API; the keys are "sk_", "rk_", "whsec_" and kin.
_OBJECT_ID = re.compile(
    r"(?:req|evt|ch|cus|pi|pm|in|sub|txn|acct|prod|price|po|re|py|seti|src|msg|job|ord|inv|ii|il|dp|du)"
    r"_[A-Za-z0-9]{8,40}"
)


def dotted_identifier(token: str) -> bool:
    """A qualified name of code: random letters rarely fall into humps of three letters or more."""
    if not _DOTTED_NAME.fullmatch(token):
        return False
    humps = _HUMP.findall(token.replace("_", "."))
    return all(len(hump) >= 3 or (hump.isupper() and len(hump) >= 2) for hump in humps)


def _allowed_shape(token: str, rule: EntropyRule) -> bool:
    """Shapes that are never secrets in practice, whatever their entropy."""
    if _HEXISH.fullmatch(token) or _VERSION.fullmatch(token):
        return True
    if token.startswith(("/", "~/", "./", "../")) or _FILE_SUFFIX.search(token):
        return True  # a path or a file name
    if dotted_identifier(token) or _HEX_AND_SITE.fullmatch(token):
        return True
    if _HYPHENATED_NAME.fullmatch(token) or _OBJECT_ID.fullmatch(token):
        return True
    if token.lower() == token:
        return max(len(run) for run in _ALNUM_RUN.findall(token) or [""]) < rule.min_lowercase_run
    return False


def token_is_secret(token: str, rule: EntropyRule = DEFAULT_ENTROPY_RULE) -> bool:
    """Cheapest tests first: most candidates are hashes, paths and identifiers."""
    if len(token) < rule.min_length:
        return False
    needed = min(rule.entropy_cap, rule.entropy_base + rule.entropy_slope * len(token))
    if math.log2(len(set(token))) < needed:  # entropy can never exceed log2 of the distinct count
        return False
    if _allowed_shape(token, rule) or char_classes(token) < rule.min_classes:
        return False
    if sum(map(str.isalpha, token)) < rule.min_letters:
        return False
    return shannon_entropy(token) >= needed and wordiness(token) <= rule.max_wordiness


_PUBLIC_BEGIN = re.compile(r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK)-----")
_SSH_PUBLIC = re.compile(r"(?:ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9\-]+@openssh\.com)\s+$")


_SSH_PUBLIC_KEY = re.compile(
    r"(?:ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9\-]+@openssh\.com)\s+AAAA[A-Za-z0-9+/]+=*"
)


def public_blocks(text: str) -> list[tuple[int, int]]:
    """Certificate and public-key blocks and SSH public keys: public, however random they look."""
    spans = []
    position = 0
    while "-----BEGIN" in text and (begin := _PUBLIC_BEGIN.search(text, position)) is not None:
        end = text.find("-----END", begin.end())
        position = len(text) if end < 0 else end + 8
        spans.append((begin.start(), position))
    if "AAAA" in text:
        spans.extend(match.span() for match in _SSH_PUBLIC_KEY.finditer(text))
    spans.sort()
    return spans


def public_spans(text: str) -> list[tuple[int, int]]:
    """URLs and public blocks: a high-entropy token in either is an address or a key meant to be shared."""
    spans = [match.span() for match in _URL.finditer(text)] if ("://" in text or "www." in text) else []
    spans.extend(public_blocks(text))
    if "data:" in text:
        spans.extend(match.span() for match in _DATA_URI.finditer(text))
    spans.sort()
    return spans


def _labelled_public(text: str, start: int) -> bool:
    """A digest (its algorithm named just before or at its start) or a token labelled as an id."""
    before = text[max(0, start - 24) : start]
    return bool(
        _DIGEST_PREFIX.search(before)
        or _DIGEST_START.match(text, start)
        or _ID_LABEL.search(before)
        or _PUBLIC_LABEL.search(before)
    )


def _ssh_public_key(text: str, start: int) -> bool:
    """`ssh-ed25519 AAAAC3Nza...` in authorized_keys notes is a public key, not a secret."""
    return text.startswith("AAAA", start) and bool(_SSH_PUBLIC.search(text, max(0, start - 48), start))


def inside(spans: list[tuple[int, int]], starts: list[int], position: int) -> bool:
    """Whether position falls in one of the sorted spans (bisect: no quadratic blow-up).

    Spans may nest (a URL inside a certificate block); checking the two nearest is enough for them.
    """
    index = bisect_right(starts, position) - 1
    return any(i >= 0 and position < spans[i][1] for i in (index, index - 1))


def find_high_entropy(text: str, rule: EntropyRule = DEFAULT_ENTROPY_RULE) -> Iterator[tuple[int, int]]:
    public = public_spans(text)
    public_starts = [span[0] for span in public]
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        # Sentence punctuation hugging the token is not part of it.
        while end > start and text[end - 1] in ".-_~":
            end -= 1
        while start < end and text[start] in ".-_~":
            start += 1
        if inside(public, public_starts, start) or _ssh_public_key(text, start):
            continue
        if _labelled_public(text, start):
            continue
        if token_is_secret(text[start:end], rule):
            yield start, end
