"""Scopes and their keyed pseudonyms: raw host ids never leave the API edge."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from memoryos import validation
from memoryos.errors import InvalidInput


@dataclass(frozen=True)
class Scope:
    """Whose memory: one user with one assistant, optionally narrowed to a session."""

    user: str
    assistant: str
    session: str | None = None

    def __repr__(self) -> str:  # ids may be personal data: keep them out of tracebacks and logs
        return "Scope(<redacted>)"


@dataclass(frozen=True)
class ScopeKey:
    """The pseudonyms under which a scope is stored and receipted."""

    user: str
    assistant: str
    session: str | None


class Pseudonymizer:
    """HMAC-SHA256 of each id under a key derived from the store's scope key."""

    def __init__(self, scope_key: bytes, max_chars: int) -> None:
        self._key = hmac.new(scope_key, b"memoryos/scope-pseudonym/1", hashlib.sha256).digest()
        self._key_hash_key = hmac.new(scope_key, b"memoryos/key-hash/1", hashlib.sha256).digest()
        self._max_chars = max_chars

    def pseudonym(self, role: str, raw: str) -> str:
        return hmac.new(self._key, f"{role}\x00{raw}".encode(), hashlib.sha256).hexdigest()[:32]

    def key_hash(self, key: str) -> str:
        """What a tombstone keeps of a forgotten key: enough to make a second forget a no-op."""
        return hmac.new(self._key_hash_key, key.encode(), hashlib.sha256).hexdigest()

    def __call__(self, scope: object) -> ScopeKey:
        if not isinstance(scope, Scope):
            raise InvalidInput(f"scope must be a memoryos.Scope, got {type(scope).__name__}")
        user = validation.identifier(scope.user, "scope.user", self._max_chars)
        assistant = validation.identifier(scope.assistant, "scope.assistant", self._max_chars)
        session = None
        if scope.session is not None:
            session = self.pseudonym(
                "session", validation.identifier(scope.session, "scope.session", self._max_chars)
            )
        return ScopeKey(self.pseudonym("user", user), self.pseudonym("assistant", assistant), session)
