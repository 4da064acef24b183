"""`Memory.keys()`: the keys of a scope's drawer records, for hosts that list what is stored (the
LangGraph store, the MCP server's `memory://drawer/…` resources).

A key is listed when `Memory.get()` would find a record under it now: keys whose every version
expired, or was forgotten, are not. Keys are content: they are returned to the scope's own caller
and never logged, traced or receipted (the span carries only their count).

The store port lists a scope's keys (`drawer_keys`, one query, no content); the prefix and the
cursor are applied here, walking the sorted keys and stopping once `limit` are found, so a page
costs one key listing plus one validity check per key it passes over. (A store method taking the
prefix and cursor would save the listing on very large scopes; the port has none yet.)
"""

from __future__ import annotations

from memoryos.errors import InvalidInput
from memoryos.scope import ScopeKey
from memoryos.store.base import Store
from memoryos.validation import MAX_KEY_CHARS, positive_int
from memoryos.views import valid_at

__all__ = ["MAX_KEYS", "SCAN_LIMIT", "listed_keys"]

MAX_KEYS = 100_000
#: The most keys of one scope the store is asked for; a scope with more is refused, not cut short.
SCAN_LIMIT = 1_000_000


def _bound(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_KEY_CHARS:
        raise InvalidInput(f"{name} must be a str of at most {MAX_KEY_CHARS} characters (or None)")
    return value


def listed_keys(
    store: Store, sk: ScopeKey, now: int, *, prefix: object, after: object, limit: object
) -> list[str]:
    """The sorted keys of `sk`'s drawer with a record valid at `now` that start with `prefix`,
    strictly after `after` (a cursor: the last key of the previous page), at most `limit`."""
    start = _bound(prefix, "prefix") or ""
    cursor = _bound(after, "after")
    wanted = positive_int(limit, "limit", MAX_KEYS)
    found: list[str] = []
    with store.read() as tx:
        keys = tx.drawer_keys(sk.user, sk.assistant, SCAN_LIMIT + 1)
        if len(keys) > SCAN_LIMIT:
            raise InvalidInput(
                f"this scope holds more than {SCAN_LIMIT} keys, more than keys() lists:"
                " forget the ones no longer needed, or give them a ttl"
            )
        for key in sorted(keys):  # Python's order, whatever the backend's collation: the cursor's
            if (cursor is not None and key <= cursor) or not key.startswith(start):
                continue
            if valid_at(tx.key_versions(sk.user, sk.assistant, key), now) is not None:
                found.append(key)
                if len(found) == wanted:
                    break
    return found
