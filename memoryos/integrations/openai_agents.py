"""The OpenAI Agents SDK `Session` protocol on memoryos: a session's items are its turns.

A plain text message (`{"role": ..., "content": "<text>"}`, optionally with `"type": "message"`)
is stored as the turn's own text, so recall, promotion and distillation see words. Every other
item (tool calls and their outputs, structured or multimodal content, reasoning) is stored as its
canonical JSON text and comes back equal to what was added. The turn's `source` records which
encoding was used, so nothing is guessed on the way back.

The scope is fixed by the host when the session is made (user, assistant, session id); a model
never chooses it. `clear_session()` is a real erasure (`Memory.forget_session`), with receipts.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import orjson

from memoryos import validation
from memoryos.errors import InvalidInput
from memoryos.model import Turn
from memoryos.policies import nostore
from memoryos.scope import Scope

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings

    from memoryos.memory import Memory

TEXT = "openai-agents/text"  # {"role", "content": str}
TEXT_TYPED = "openai-agents/text+type"  # the same with "type": "message"
JSON = "openai-agents/json"  # any other item, as canonical JSON text
_TEXT_ROLES = frozenset({"user", "assistant", "system"})


def encode(item: object) -> tuple[str, str, str]:
    """(role, text, source) of the turn that stores this item. Pure; raises InvalidInput."""
    if not isinstance(item, Mapping):
        raise InvalidInput(f"a session item must be a dict (a TResponseInputItem), got {type(item).__name__}")
    content, role = item.get("content"), item.get("role")
    plain = set(item) == {"role", "content"} or (set(item) == {"type", "role", "content"})
    if plain and isinstance(content, str) and content.strip() and role in _TEXT_ROLES:
        if "type" not in item:
            return str(role), content, TEXT
        if item["type"] == "message":
            return str(role), content, TEXT_TYPED
    try:
        text = orjson.dumps(item, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError as exc:
        raise InvalidInput(f"a session item must be JSON-serializable: {exc}") from None
    return _json_role(item), text, JSON


def _json_role(item: Mapping[str, Any]) -> str:
    role = item.get("role")
    if role in _TEXT_ROLES:
        return str(role)
    kind = str(item.get("type", ""))
    return "tool" if kind.endswith("_output") else "assistant"  # calls and reasoning come from the model


def decode(turn: Turn) -> dict[str, Any]:
    """The item a turn stores, exactly as it was added."""
    if turn.source == TEXT:
        return {"role": turn.role, "content": turn.text}
    if turn.source == TEXT_TYPED:
        return {"type": "message", "role": turn.role, "content": turn.text}
    if turn.source == JSON:
        try:
            value = orjson.loads(turn.text)
        except orjson.JSONDecodeError:  # redact mode masked part of a JSON item: keep the words
            return {"role": turn.role if turn.role in _TEXT_ROLES else "assistant", "content": turn.text}
        return cast(dict[str, Any], value)
    # A turn the host remembered directly in this session: offer it as a plain message.
    return {"role": turn.role if turn.role in _TEXT_ROLES else "user", "content": turn.text}


class MemoryOSSession:
    """An OpenAI Agents SDK session whose history lives in memoryos, under a host-chosen scope."""

    session_settings: SessionSettings | None = None

    def __init__(self, session_id: str, memory: Memory, *, user: str, assistant: str) -> None:
        self.session_id = session_id
        self.memory = memory
        self.scope = Scope(user=user, assistant=assistant, session=session_id)
        memory.session_turns(self.scope, limit=1)  # validates the ids now, not at the first run
        self._lock = threading.Lock()  # pop_item reads then forgets: one operation at a time

    def __repr__(self) -> str:  # the session id may be personal data
        return "MemoryOSSession(<redacted>)"

    # -- the Session protocol (async: the SQLite work runs in a worker thread) --------------------
    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        return await asyncio.to_thread(self.items, limit)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await asyncio.to_thread(self.add, items)

    async def pop_item(self) -> TResponseInputItem | None:
        return await asyncio.to_thread(self.pop)

    async def clear_session(self) -> None:
        await asyncio.to_thread(self.clear)

    # -- the same, synchronously ----------------------------------------------------------------
    def items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The newest `limit` items (all when None), oldest first."""
        if limit is not None and limit <= 0:
            return []
        with self._lock:
            turns = self.memory.session_turns(self.scope, limit=limit)
        return [cast("TResponseInputItem", decode(t)) for t in turns]

    def add(self, items: Sequence[Mapping[str, Any]]) -> None:
        """Append items in order. Every item is checked first (shape, size, the no-store rule),
        so a bad item refuses the whole call before anything is written."""
        encoded = [encode(item) for item in items]
        self._precheck(encoded)
        with self._lock:
            for role, text, source in encoded:
                self.memory.remember(self.scope, text, role=role, source=source)

    def _precheck(self, encoded: Sequence[tuple[str, str, str]]) -> None:
        config = self.memory.config
        for _, text, _ in encoded:
            validation.text(text, "item", config.max_text_bytes)
        if config.no_store_mode == "redact":
            return  # remember() masks what the rule finds; nothing is refused
        for index, (role, text, source) in enumerate(encoded):
            if nostore.scan(text, config.no_store_families):
                # Let remember() refuse it: it writes the content-free `reject` receipt and raises.
                self.memory.remember(self.scope, text, role=role, source=source)
                raise AssertionError(f"item {index} passed the no-store rule on the second look")

    def pop(self) -> TResponseInputItem | None:
        """Remove (erase, with a `forget` receipt) and return the newest item, or None."""
        with self._lock:
            newest = self.memory.session_turns(self.scope, limit=1)
            if not newest:
                return None
            self.memory.forget(self.scope, newest[0].memory_id, reason="session pop")
        return cast("TResponseInputItem", decode(newest[0]))

    def clear(self) -> None:
        """Erase every item of this session (`Memory.forget_session`)."""
        with self._lock:
            self.memory.forget_session(self.scope, reason="session clear")
