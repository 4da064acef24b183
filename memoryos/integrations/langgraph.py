"""A LangGraph long-term store (`BaseStore`) on memoryos's typed drawer.

Mapping, in one place:

- **Scopes.** A `ScopeRule` the host sets names the scope of a namespace from its first `depth`
  labels (`ScopeRule.per_user("coder")`: `(user_id, "memories")` is user `user_id` with assistant
  `coder`); `ScopeRule.fixed(scope)` puts every namespace in one scope. Only pseudonyms of those
  labels are stored. A search or namespace listing must name the scope (its prefix holds the
  first `depth` labels): one scope's answers never depend on another's (DESIGN §9).
- **Items.** The rest of the namespace and the key form the drawer key (`lg:` + a JSON array);
  the value is the record's body, as canonical JSON. A put of an equal value reinforces the
  record (no new version); a different value is a new version, the old one kept in `history()`.
  `delete` (a put of `None`) is `Memory.forget`: content erased, receipts written.
- **Search** ranks with `Memory.recall` (lexical, per scope), then applies the namespace prefix,
  `filter`, `offset` and `limit`; without a query it lists the items, newest first.
- **TTL** (minutes) is the record's validity window: `valid_until = now + ttl`. An expired item
  is never returned, even before `Memory.maintain()` erases it with an `expire` receipt (LangGraph
  returns it until a sweep unless `omit_expired`). A version's window never changes, so a
  refresh writes a new version with a fresh window; to keep history short, a read refreshes only
  once a tenth of the TTL has passed, so an item lives 0.9 to 1 TTL after its last read.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import orjson
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from memoryos import validation
from memoryos.errors import InvalidInput, NotFound
from memoryos.memory import Memory
from memoryos.model import Record
from memoryos.scope import Scope

KEY_PREFIX = "lg:"
VALUE = "langgraph/value"  # body: the value as canonical JSON
WINDOWED = "langgraph/ttl"  # body: {"value": ..., "ttlMinutes": m, "window": start}
PAGE = 10_000
REFRESH_FRACTION = 0.1


@dataclass(frozen=True)
class ScopeRule:
    """Which memoryos scope a namespace belongs to: chosen by the host, never by a model."""

    depth: int
    scope_of: Callable[[tuple[str, ...]], Scope]

    @classmethod
    def fixed(cls, scope: Scope) -> ScopeRule:
        return cls(0, lambda _head: scope)

    @classmethod
    def per_user(cls, assistant: str) -> ScopeRule:
        """`(user_id, ...)`: the first label is the user, the assistant is fixed."""
        return cls(1, lambda head: Scope(user=head[0], assistant=assistant))

    def split(self, namespace: tuple[str, ...]) -> tuple[Scope, tuple[str, ...]]:
        if len(namespace) < self.depth:
            raise InvalidInput(
                f"this store's namespaces start with {self.depth} label(s) naming the scope"
                f" (e.g. the user id): pass a namespace or prefix of at least {self.depth}"
            )
        return self.scope_of(namespace[: self.depth]), namespace[self.depth :]


def drawer_key(rest: tuple[str, ...], key: str) -> str:
    return KEY_PREFIX + orjson.dumps([*rest, key]).decode()


def parse_key(stored: str) -> tuple[tuple[str, ...], str] | None:
    """(namespace rest, key) of a drawer key this store wrote, else None."""
    if not stored.startswith(KEY_PREFIX):
        return None
    try:
        parts = orjson.loads(stored[len(KEY_PREFIX) :])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        return None
    return tuple(parts[:-1]), parts[-1]


class MemoryOSStore(BaseStore):
    """LangGraph's `BaseStore` over one `memoryos.Memory`. Pass it as `compile(store=...)`."""

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        rule: ScopeRule | Scope,
        *,
        kind: str = "rule",
        ttl: TTLConfig | None = None,
    ) -> None:
        self.memory = memory
        self.rule = rule if isinstance(rule, ScopeRule) else ScopeRule.fixed(rule)
        # `rule` by default: it never decays, so an item lives until deleted or its TTL ends,
        # as in LangGraph. A decaying kind (`fact`) lets unused items go stale, then retired.
        self.kind = validation.kind(kind)
        self.ttl_config = ttl

    # -- BaseStore -------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidInput(f"unknown store operation {type(op).__name__}")

    # -- operations ------------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        scope, rest = self.rule.split(op.namespace)
        record = self.memory.get(scope, drawer_key(rest, op.key))
        if record is None or record.status == "retired":
            return None
        item = self._item(scope, op.namespace, op.key, record)
        if op.refresh_ttl:
            self._refresh(scope, rest, op.key, record)
        return item

    def _put(self, op: PutOp) -> None:
        scope, rest = self.rule.split(op.namespace)
        key = drawer_key(rest, op.key)
        if op.value is None:
            with contextlib.suppress(NotFound):  # deleting what is not there is a no-op, as in LangGraph
                self.memory.forget(scope, key, reason="langgraph delete")
            return
        self._write(scope, key, op.value, op.ttl)

    def _write(self, scope: Scope, key: str, value: Mapping[str, Any], ttl_minutes: float | None) -> None:
        if not isinstance(value, Mapping):
            raise InvalidInput(f"a LangGraph value must be a dict, got {type(value).__name__}")
        if ttl_minutes is None:
            self.memory.put(scope, key, _json(value), kind=self.kind, source=VALUE)
            return
        window = {"value": value, "ttlMinutes": ttl_minutes, "window": self._now().isoformat()}
        lifetime = timedelta(minutes=ttl_minutes)
        self.memory.put(scope, key, _json(window), kind=self.kind, source=WINDOWED, ttl=lifetime)

    def _refresh(self, scope: Scope, rest: tuple[str, ...], key: str, record: Record) -> None:
        if record.source != WINDOWED:
            return
        envelope = orjson.loads(record.body)
        minutes = float(envelope["ttlMinutes"])
        elapsed = self._now() - record.valid_from
        if elapsed >= timedelta(minutes=minutes * REFRESH_FRACTION):
            self._write(scope, drawer_key(rest, key), envelope["value"], minutes)

    def _now(self) -> datetime:
        return self.memory.now  # the memory's own (injectable) clock decides validity

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope, rest = self.rule.split(op.namespace_prefix)
        head = op.namespace_prefix[: self.rule.depth]
        wanted = op.offset + op.limit
        query = (op.query or "").strip()
        ranked = self._ranked(scope, rest, query, wanted, op.filter) if query else None
        if ranked is None:
            records = [r for r in self._records(scope, rest) if _matches(op.filter, _value(r))]
            records.sort(key=lambda r: (r.recorded_at or r.valid_from, r.memory_id), reverse=True)
            ranked = [(r, None) for r in records]
        found = []
        for record, score in ranked[op.offset : wanted]:
            parsed = parse_key(record.key)
            assert parsed is not None  # _ranked and _records return only this store's keys
            item = self._item(scope, head + parsed[0], parsed[1], record)
            found.append(
                SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
            )
            if op.refresh_ttl:
                self._refresh(scope, parsed[0], parsed[1], record)
        return found

    def _ranked(
        self, scope: Scope, rest: tuple[str, ...], query: str, wanted: int, where: dict[str, Any] | None
    ) -> list[tuple[Record, float | None]]:
        """Recall's ranking, narrowed to this store's items under the prefix that pass the filter.
        Recall ranks every memory of the scope, so ask for more until enough are left or none."""
        k = min(max(4 * wanted, 20), 1000)
        while True:
            hits = self.memory.recall(scope, query, k=k).hits
            chosen: list[tuple[Record, float | None]] = []
            for hit in hits:
                parsed = None if hit.key is None else parse_key(hit.key)
                if parsed is None or parsed[0][: len(rest)] != rest:
                    continue
                record = self.memory.get(scope, hit.key or "")
                if record is not None and record.status != "retired" and _matches(where, _value(record)):
                    chosen.append((record, hit.score))
            if len(chosen) >= wanted or len(hits) < k or k >= 1000:
                return chosen
            k = min(k * 4, 1000)

    def _records(self, scope: Scope, rest: tuple[str, ...]) -> list[Record]:
        records = []
        for key in self._keys(scope, rest):
            parsed = parse_key(key)
            if parsed is None or parsed[0][: len(rest)] != rest:
                continue
            record = self.memory.get(scope, key)
            if record is not None and record.status != "retired":
                records.append(record)
        return records

    def _keys(self, scope: Scope, rest: tuple[str, ...]) -> list[str]:
        """This store's keys under the namespace `rest`, page by page: every key of the namespace
        starts with its labels as the head of a JSON array (`lg:["a","b",`)."""
        prefix = KEY_PREFIX + (orjson.dumps(list(rest)).decode()[:-1] + "," if rest else "[")
        keys: list[str] = []
        while True:
            page = self.memory.keys(scope, prefix=prefix, after=keys[-1] if keys else None, limit=PAGE)
            keys += page
            if len(page) < PAGE:
                return keys

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix = _prefix(op.match_conditions or ())
        if len(prefix) < self.rule.depth or "*" in prefix[: self.rule.depth]:
            raise InvalidInput(
                f"list_namespaces needs a prefix whose first {self.rule.depth} label(s) name the scope"
            )
        head = prefix[: self.rule.depth]
        scope, _ = self.rule.split(head)
        spaces = {item.namespace for item in self._items_of(scope, head)}
        matching = sorted(ns for ns in spaces if all(_condition(c, ns) for c in op.match_conditions or ()))
        if op.max_depth is not None:
            matching = sorted({ns[: op.max_depth] for ns in matching})
        return matching[op.offset : op.offset + op.limit]

    def _items_of(self, scope: Scope, head: tuple[str, ...]) -> list[Item]:
        return [
            self._item(scope, head + ns, key, r) for r in self._records(scope, ()) for ns, key in [_nk(r)]
        ]

    def _item(self, scope: Scope, namespace: tuple[str, ...], key: str, record: Record) -> Item:
        created = record.valid_from if record.version == 1 else self._created(scope, record)
        updated = record.recorded_at or record.valid_from
        return Item(
            value=_value(record), key=key, namespace=namespace, created_at=created, updated_at=updated
        )

    def _created(self, scope: Scope, record: Record) -> datetime:
        first = self.memory.history(scope, record.key)[0]
        return first.recorded_at or first.valid_from


def _nk(record: Record) -> tuple[tuple[str, ...], str]:
    parsed = parse_key(record.key)
    assert parsed is not None  # only this store's keys reach here
    return parsed


def _json(value: Mapping[str, Any]) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError as exc:
        raise InvalidInput(f"a LangGraph value must be JSON-serializable: {exc}") from None


def _value(record: Record) -> dict[str, Any]:
    data = orjson.loads(record.body)
    return cast(dict[str, Any], data["value"] if record.source == WINDOWED else data)


def _prefix(conditions: Sequence[MatchCondition]) -> tuple[str, ...]:
    for condition in conditions:
        if condition.match_type == "prefix":
            return tuple(condition.path)
    return ()


def _condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = (
        namespace[: len(path)]
        if condition.match_type == "prefix"
        else namespace[len(namespace) - len(path) :]
    )
    return all(want in ("*", got) for want, got in zip(path, part, strict=True))


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: bool(a == b),
    "$ne": lambda a, b: bool(a != b),
    "$gt": lambda a, b: bool(a > b),
    "$gte": lambda a, b: bool(a >= b),
    "$lt": lambda a, b: bool(a < b),
    "$lte": lambda a, b: bool(a <= b),
}


def _matches(where: Mapping[str, Any] | None, value: Mapping[str, Any]) -> bool:
    """LangGraph's filter: field equality, or `{"$gt": 3}`-style operators; dotted paths nest."""
    for field, expected in (where or {}).items():
        actual = _at(value, field)
        if isinstance(expected, Mapping) and expected and all(str(op) in _COMPARE for op in expected):
            try:
                if not all(_COMPARE[op](actual, operand) for op, operand in expected.items()):
                    return False
            except TypeError:  # comparing a missing field or another type: no match
                return False
        elif actual != expected:
            return False
    return True


def _at(value: Mapping[str, Any], path: str) -> Any:
    current: Any = value
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return value.get(path)
        current = current[part]
    return current
