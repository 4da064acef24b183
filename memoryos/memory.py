"""The public API: memoryos.open() and Memory (DESIGN §6).

Validation and the no-store rule run before any transaction; each public write is one transaction
whose receipts commit with it; promotions that a write makes due run right after it commits.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from memoryos import validation
from memoryos._version import __version__
from memoryos.capture.gate import Gate, Put
from memoryos.capture.model import reflector_for
from memoryos.capture.session import Reflection, Sessions
from memoryos.errors import (
    InvalidInput,
    MemoryOSError,
    NotFound,
    Rejected,
    StoreClosed,
    StoreError,
)
from memoryos.extraction.typed import extractor_for
from memoryos.failpoints import failpoint
from memoryos.lifecycle import Lifecycle
from memoryos.listing import listed_keys
from memoryos.logs import get_logger
from memoryos.model import (
    Candidate,
    Context,
    Excluded,
    Finding,
    Forgotten,
    Maintenance,
    Recall,
    Record,
    Stored,
    Topic,
    Turn,
)
from memoryos.otel import from_environment as telemetry_from_environment
from memoryos.policies import nostore
from memoryos.policies import stm as stm_policy
from memoryos.policies.capture import Event
from memoryos.policies.distill import Summarizer
from memoryos.policies.lpm import DECAYING_KINDS, Reconcile, reconcile
from memoryos.policies.notes import ExtractiveNotes, NoteWriter
from memoryos.promotion import Promoter, content_hash
from memoryos.receipting import Drafts
from memoryos.retrieval.engine import Retriever
from memoryos.scope import Pseudonymizer, Scope, ScopeKey
from memoryos.settings import Config, from_environment
from memoryos.store.base import Transaction
from memoryos.store.factory import open_store, store_location
from memoryos.store.rows import Unit
from memoryos.store.sqlite_files import classify_os_error
from memoryos.telemetry import AttributeValue, Telemetry, announced, new_file, spanned, traced
from memoryos.timeutil import Clock, in_range, seconds_to_micros, system_clock, to_micros
from memoryos.views import (
    current_version,
    export_path,
    reason_code,
    record_of,
    turn_of,
    turn_order,
    unit_fields,
    utc_text,
    valid_at,
)
from receipts import create_key_file, read_key_file, uuid7

if TYPE_CHECKING:
    from memoryos.llm import Models

log = get_logger()
_OUTCOME = re.compile(r"^[a-z0-9_]{1,32}:[A-Za-z0-9._:@/=+-]{1,256}$")
MAX_K = 1000


def key_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".receipt-key")


@announced("create_memory_store", new_file)
def open(
    path: str | os.PathLike[str],
    *,
    clock: Clock | None = None,
    config: Config | None = None,
    summarizer: Summarizer | None = None,
    notes: NoteWriter | None = None,
    telemetry: Telemetry | None = None,
    background: bool = False,
    **overrides: Any,
) -> Memory:
    """Open (or create) a store file. Recovery of interrupted promotions runs before it returns.

    `summarizer` distils hot segments into LPM records and `notes` writes segment summaries, page
    summaries and continuity; both default to the model MEMORYOS_LLM_URL names, if any (falling
    back, degraded, when it fails), else to the deterministic extractive ones."""
    path = validation.file_path(path, "store")
    validation.hooks(config, clock)
    resolved = from_environment() if config is None else config
    if overrides:
        resolved = resolved.with_overrides(**overrides)
    models = _models(resolved) if summarizer is None or notes is None else None
    memory = Memory(
        store_location(path),
        resolved,
        clock or system_clock,
        summarizer or extractor_for(resolved, models),
        telemetry,
        notes=notes or (models.summarizer if models else None),
    )
    if background:
        memory.start_background()
    return memory


def _models(config: Config) -> Models | None:
    """The model-backed extractor and note writer when MEMORYOS_LLM_URL is set (one client)."""
    from memoryos.llm import models_from_env

    return models_from_env(os.environ, no_store_families=config.no_store_families)


def _describe(result: object) -> dict[str, AttributeValue]:
    """Content-free span attributes of an operation's result: an id or a count, never text."""
    if isinstance(result, Stored):
        return {"record_id": result.memory_id, "record_count": 1}
    if isinstance(result, Recall):
        return {"record_count": len(result.hits)}
    if isinstance(result, Context):
        return {"record_count": len(result.refs)}
    if isinstance(result, Record):
        return {"record_id": result.memory_id, "record_count": 1}
    if isinstance(result, int):
        return {"record_count": result}
    return {"record_count": 0}


class Memory:
    """A tiered memory on one store file. Not fork-safe: open it again in a child process."""

    def __init__(
        self,
        path: Path | str,
        config: Config,
        clock: Clock,
        summarizer: Summarizer,
        telemetry: Telemetry | None = None,
        *,
        notes: NoteWriter | None = None,
    ) -> None:
        self.path = path
        self.config = config
        self._clock = clock
        self._background: threading.Thread | None = None
        self._stop = threading.Event()
        self.store = open_store(
            path, durability=config.durability, busy_timeout_ms=config.busy_timeout_ms, clock=clock
        )
        try:
            self.key = self.store.receipt_key() or self._receipt_key()
            # A store whose meta vanished (a deleted -wal) keeps the chain its verified mark records,
            # so that check() can count what is missing from it.
            chain = self.store.marked_chain(self.key) or uuid7()
            self.store_id = self.store.set_meta_if_absent("store_id", chain)
            self.store.bind_receipts(self.store_id, self.key)
            # Pseudonyms use their own key, kept in the store: an export carries it to the importing
            # store, and receipts that leave the machine never reveal it.
            scope_key = self.store.set_meta_if_absent("scope_key", secrets.token_hex(32))
        except BaseException:
            self.store.close()
            raise
        self.source_version = f"memoryos/{__version__}+{config.fingerprint()}"
        self.telemetry = telemetry or telemetry_from_environment(self.store_id, os.environ)
        self.drafts = Drafts(self.source_version)
        self._scopes = Pseudonymizer(bytes.fromhex(scope_key), config.max_scope_id_chars)
        self.promoter = Promoter(self.store, config, self.drafts, summarizer, self.telemetry)
        self.lifecycle = Lifecycle(
            self.store, config, self.drafts, self.promoter, self._key_hash, notes=notes or ExtractiveNotes()
        )
        self.lifecycle.note_lost_receipts()  # before anything writes a receipt and moves the mark
        self.retriever = Retriever(self.store, config, self.drafts)
        self.gate = Gate(self.store, config, self._now)
        self.sessions = Sessions(self.store, self.gate, self.promoter, reflector_for(summarizer))
        self.lifecycle.on_idle = self.sessions.idle
        self.recovered = self.lifecycle.recover(self._now())
        if self.telemetry.enabled:
            self.telemetry.watch(self._gauges)

    def _receipt_key(self) -> bytes:
        key_file = key_path_for(Path(self.path))
        if not key_file.exists() and self.store.meta("store_id") is None:
            try:
                return create_key_file(key_file)
            except FileExistsError:
                pass  # another process opening the same new store made it first: use theirs
            except OSError as exc:
                raise classify_os_error(exc, key_file, "the receipt key was not created") from None
        if not key_file.exists():
            raise StoreError(f"the receipt key {key_file} of this store is missing: restore it from backup")
        try:
            return read_key_file(key_file, private=True)
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot use the receipt key {key_file}: {exc}") from None

    # -- helpers ---------------------------------------------------------------------------------
    def _now(self) -> int:
        return to_micros(self._clock(), "clock()")

    def _live(self) -> None:
        if self.store.closed:
            raise StoreClosed("the store is closed: open it again with memoryos.open()")

    def _scope(self, scope: object) -> ScopeKey:
        self._live()
        return self._scopes(scope)

    def _key_hash(self, key: str) -> str:
        return self._scopes.key_hash(key)

    def _screen(self, scope: ScopeKey, text: str, *, redactable: bool = True) -> str:
        """The no-store rule at the door: refuse (writing only a `reject` receipt) or, in redact
        mode, return the text with every detected span masked."""
        found = nostore.scan(text, self.config.no_store_families)
        if not found:
            return text
        if redactable and self.config.no_store_mode == "redact":
            return nostore.redact(text, found)
        reason = found[0].reason
        with self.store.write("reject") as tx:
            tx.emit(
                self.drafts.base(uuid7(), "reject", "committed", scope.user, scope.assistant, reason=reason)
            )
        log.info("rejected", boundary="reject", reason=reason)
        self.telemetry.count("rejections", reason=reason)
        raise Rejected(reason)

    def _screen_optional(self, scope: ScopeKey, text: str | None) -> str | None:
        return None if text is None else self._screen(scope, text)

    def _window(
        self, start: int, ttl: object, valid_from: object, valid_until: object
    ) -> tuple[int, int | None]:
        begins = start if valid_from is None else to_micros(valid_from, "valid_from")  # type: ignore[arg-type]
        lifetime = validation.ttl(ttl)
        if lifetime is not None and valid_until is not None:
            raise InvalidInput("pass ttl or valid_until, not both")
        ends = None if valid_until is None else to_micros(valid_until, "valid_until")  # type: ignore[arg-type]
        if lifetime is not None:
            ends = in_range(begins + lifetime // timedelta(microseconds=1), "the end of the ttl")
        if ends is not None and ends <= begins:
            raise InvalidInput("valid_until must be after valid_from: the window is half-open [from, until)")
        return begins, ends

    # -- STM ---------------------------------------------------------------------------------------
    @traced("create_memory", _describe)
    def remember(
        self,
        scope: Scope,
        text: str,
        *,
        role: str = "user",
        at: datetime | None = None,
        ttl: timedelta | float | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        source: str | None = None,
    ) -> Stored:
        """Store one turn in STM. When it returns, the turn and its receipt are committed."""
        sk = self._scope(scope)
        body = validation.text(text, "text", self.config.max_text_bytes)
        validation.role(role)
        source = validation.optional_text(source, "source", 1024)
        created = self._now() if at is None else to_micros(at, "at")
        begins, ends = self._window(created, ttl, valid_from, valid_until)
        body = self._screen(sk, body)
        source = self._screen_optional(sk, source)
        run_id = uuid7()
        unit = Unit(
            memory_id=uuid7(),
            version=1,
            tier="stm",
            user_scope=sk.user,
            assistant_scope=sk.assistant,
            session=sk.session,
            role=role,
            body=body,
            created_at=created,
            valid_from=begins,
            valid_until=ends,
            last_seen=created,
            run_id=run_id,
            source=source,
        )
        idle = seconds_to_micros(self.config.stm_idle_seconds)
        with self.store.write("store") as tx:
            tx.insert_unit(unit)
            tx.emit(
                self.drafts.about(
                    run_id,
                    "store",
                    unit,
                    toTier="stm",
                    sourcePresent=True,
                    waitUntilUtc=utc_text(stm_policy.wait_until(created, idle)),
                )
            )
            occupancy = tx.count_stm(sk.user, sk.assistant)
        failpoint("store.after_commit")
        if occupancy >= self.config.stm_capacity:
            try:
                self._promote_full_stm(sk)
            except MemoryOSError as exc:  # the turn is committed: a retry would store it twice
                self.lifecycle.followups.promotion_failed(sk.user, sk.assistant, exc)
        return Stored(unit.memory_id, 1, run_id)

    def _promote_full_stm(self, sk: ScopeKey) -> None:
        now = self._now()
        with self.store.read() as tx:
            turns = tx.stm_turns(sk.user, sk.assistant)
        views = [stm_policy.StmTurn(t.memory_id, t.created_at) for t in turns]
        chosen = {t.memory_id for t in stm_policy.overflow(views, self.config.stm_capacity)}
        # Extraction never runs on the request path: maintain(), the background or a worker does it.
        self.promoter.promote_turns([t for t in turns if t.memory_id in chosen], now)

    # -- typed drawer ------------------------------------------------------------------------------
    @traced("upsert_memory", _describe)
    def put(
        self,
        scope: Scope,
        key: str,
        body: str,
        *,
        kind: str = "fact",
        confidence: float = 1.0,
        proof: str | None = None,
        ttl: timedelta | float | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        source: str | None = None,
    ) -> Stored:
        """Write a keyed LPM record: ADD a new key, UPDATE a changed body, REINFORCE the same body."""
        sk = self._scope(scope)
        key = validation.key(key)
        body = validation.text(body, "body", self.config.max_text_bytes)
        kind = validation.kind(kind)
        confidence = validation.confidence(confidence)
        proof = validation.optional_text(proof, "proof", self.config.max_text_bytes)
        source = validation.optional_text(source, "source", 1024)
        now = self._now()
        begins, ends = self._window(now, ttl, valid_from, valid_until)
        self._screen(sk, key, redactable=False)  # a key is an identifier: refused, never rewritten
        body = self._screen(sk, body)
        proof, source = self._screen_optional(sk, proof), self._screen_optional(sk, source)
        run_id = uuid7()
        with self.store.write("store") as tx:
            current = current_version(tx.key_versions(sk.user, sk.assistant, key))
            decision = reconcile(None if current is None else current.body, body)
            if current is not None and decision is Reconcile.REINFORCE:
                tx.update_unit(
                    current.rowid or 0,
                    reinforced=current.reinforced + 1,
                    last_seen=now,
                    status="active",
                    confidence=max(confidence, current.confidence or 0.0),
                )
                tx.emit(self.drafts.about(run_id, "store", current, toTier="lpm", sourcePresent=True))
                return Stored(current.memory_id, current.version, run_id)
            unit = Unit(
                memory_id=uuid7() if current is None else current.memory_id,
                version=1 if current is None else current.version + 1,
                tier="lpm",
                user_scope=sk.user,
                assistant_scope=sk.assistant,
                session=sk.session,
                list="drawer",
                key=key,
                kind=kind,
                body=body,
                confidence=confidence,
                proof=proof,
                source=source,
                created_at=now,
                valid_from=begins,
                valid_until=ends,
                last_seen=now,
                run_id=run_id,
                derived_from=() if current is None else (current.ref,),
                content_hash=content_hash(body),
            )
            if current is not None:
                self._supersede(tx, current, begins)
            tx.insert_unit(unit)
            tx.emit(
                self.drafts.about(
                    run_id,
                    "store",
                    unit,
                    toTier="lpm",
                    sourcePresent=True,
                    derivedFrom=list(unit.derived_from) or None,
                )
            )
        return Stored(unit.memory_id, unit.version, run_id)

    @staticmethod
    def _supersede(tx: Transaction, current: Unit, at: int) -> None:
        closes = at if current.valid_until is None else min(current.valid_until, at)
        tx.update_unit(
            current.rowid or 0, status="superseded", valid_until=max(closes, current.valid_from + 1)
        )

    @traced("search_memory", _describe)
    def get(self, scope: Scope, key: str, *, as_of: datetime | None = None) -> Record | None:
        """The version of `key` valid at `as_of` (default now), or None. Revives a stale record."""
        sk = self._scope(scope)
        key = validation.key(key)
        now = self._now()
        moment = now if as_of is None else to_micros(as_of, "as_of")
        with self.store.read() as tx:
            unit = valid_at(tx.key_versions(sk.user, sk.assistant, key), moment)
        if unit is None:
            return None
        if as_of is None and unit.kind in DECAYING_KINDS and unit.status in ("active", "stale"):
            unit = self.lifecycle.touch(unit, now)
        return record_of(unit)

    @traced("search_memory", lambda versions: {"record_count": len(versions)})
    def history(self, scope: Scope, key: str) -> list[Record]:
        """Every version of `key`, oldest first (forgotten versions are gone)."""
        sk = self._scope(scope)
        with self.store.read() as tx:
            return [record_of(u) for u in tx.key_versions(sk.user, sk.assistant, validation.key(key))]

    @traced("update_memory", _describe)
    def correct(
        self,
        scope: Scope,
        key_or_id: str,
        body: str,
        *,
        valid_from: datetime | None = None,
        reason: str | None = None,
        source: str | None = None,
    ) -> Stored:
        """A new version of a record; the old one stays in history, valid until the correction."""
        sk = self._scope(scope)
        target = validation.key(key_or_id)
        body = validation.text(body, "body", self.config.max_text_bytes)
        now = self._now()
        begins = now if valid_from is None else to_micros(valid_from, "valid_from")
        reason = validation.optional_text(reason, "reason", 1024)
        source = validation.optional_text(source, "source", 1024)
        body = self._screen(sk, body)
        reason, source = self._screen_optional(sk, reason), self._screen_optional(sk, source)
        run_id = uuid7()
        with self.store.write("correct") as tx:
            versions = tx.key_versions(sk.user, sk.assistant, target) or tx.id_versions(
                sk.user, sk.assistant, target
            )
            current = current_version(versions)
            if current is None:
                raise NotFound("no such key or memory id in this scope: put() it first")
            if current.tier != "lpm":
                raise InvalidInput("only LPM records can be corrected: forget the turn and remember it again")
            if begins <= current.valid_from:
                raise InvalidInput(
                    "valid_from of a correction must be after the corrected version's valid_from"
                )
            unit = Unit(
                **{
                    **unit_fields(current),
                    "version": current.version + 1,
                    "body": body,
                    "created_at": now,
                    "valid_from": begins,
                    "valid_until": None,
                    "last_seen": now,
                    "run_id": run_id,
                    "status": "active",
                    "derived_from": (current.ref,),
                    "content_hash": content_hash(body),
                    "reinforced": 0,
                    "reason": reason,
                    "source": source if source is not None else current.source,
                }
            )
            self._supersede(tx, current, begins)
            tx.insert_unit(unit)
            tx.emit(
                self.drafts.about(
                    run_id, "correct", unit, toTier="lpm", derivedFrom=[current.ref], sourcePresent=True
                )
            )
        return Stored(unit.memory_id, unit.version, run_id)

    @traced("delete_memory", _describe, delete_target="record")
    def forget(self, scope: Scope, key_or_id: str, *, reason: str = "user request") -> Forgotten:
        """Erase a key or memory id, and everything derived from it, from every tier.

        Ids, versions, timestamps and the reason survive in tombstones and `forget` receipts.
        Forgetting again is a no-op that returns 0. Returns the number of unit versions erased, an
        int whose `erasure_pending` is True when another connection's read snapshot kept erased
        bytes in the -wal: maintain() or check() then scrubs them once that reader has ended.
        """
        sk = self._scope(scope)
        target = validation.key(key_or_id)
        code = reason_code(reason)
        return self.lifecycle.forget(sk, target, code, self._now())

    @traced("delete_memory", _describe, delete_target="scope")
    def forget_scope(
        self, *, user: str | None = None, assistant: str | None = None, reason: str = "user request"
    ) -> Forgotten:
        """Right to erasure: every memory of a user (with any assistant), of an assistant, or of the
        pair, from every tier and the index; ids, timestamps and the reason stay in tombstones and
        `forget` receipts. Other scopes are untouched. Returns the number of unit versions erased."""
        self._live()
        if user is None and assistant is None:
            raise InvalidInput("forget_scope needs user=, assistant= or both")
        limit = self.config.max_scope_id_chars
        pseudo_user = (
            None
            if user is None
            else self._scopes.pseudonym("user", validation.identifier(user, "user", limit))
        )
        pseudo_assistant = (
            None
            if assistant is None
            else self._scopes.pseudonym("assistant", validation.identifier(assistant, "assistant", limit))
        )
        return self.lifecycle.forget_scope(pseudo_user, pseudo_assistant, reason_code(reason), self._now())

    # -- retrieval ---------------------------------------------------------------------------------
    @traced("search_memory", _describe, metric="recall.duration", leaf=True)
    def recall(
        self, scope: Scope, query: str, *, k: int = 5, as_of: datetime | None = None, explain: bool = False
    ) -> Recall:
        """Top-k units of this scope valid at `as_of`, filtered before ranking; ties go to the newest.
        Ranked by BM25 over this scope's own statistics (memoryos.retrieval)."""
        sk = self._scope(scope)
        query = validation.text(query, "query", self.config.max_text_bytes)
        k = validation.positive_int(k, "k", MAX_K)
        now = self._now()
        moment = now if as_of is None else to_micros(as_of, "as_of")
        return self.retriever.recall(sk, query, k, moment, now, explain=explain)

    # -- capture with an approval gate (memoryos.capture) --------------------------------------------
    @spanned("observe")
    def observe(self, scope: Scope, event: Event | Mapping[str, Any]) -> Candidate | None:
        """The pending candidate an activity event is evidence of, or None (memoryos.capture.gate)."""
        return self.gate.observe(self._scope(scope), event, self._putter(scope))

    @spanned("candidates")
    def candidates(self, scope: Scope, *, status: str | None = "pending") -> list[Candidate]:
        """This scope's captured candidates, oldest first (status None: all of them)."""
        return self.gate.candidates(self._scope(scope), status)

    @spanned("approve")
    def approve(self, scope: Scope, candidate_id: str) -> Stored:
        """Write a pending candidate into the typed drawer (ADD / UPDATE / REINFORCE as put())."""
        return self.gate.approve(self._scope(scope), candidate_id, self._putter(scope))

    @spanned("reject")
    def reject(self, scope: Scope, candidate_id: str) -> None:
        """Drop a pending candidate; its content is erased, its id and the decision are kept."""
        self.gate.reject(self._scope(scope), candidate_id)

    @spanned("reflect")
    def end_session(self, scope: Scope) -> Reflection:
        """The session is over: its STM turns move to MTM and reflection proposes candidates."""
        return self.sessions.end(self._scope(scope), self._putter(scope), self._now())

    @spanned("reflect")
    def reflect(self, scope: Scope) -> Reflection:
        """Reflection on demand: candidates from the scope's (or session's) recent turns."""
        return self.sessions.reflect(self._scope(scope), self._putter(scope), self._now())

    def _putter(self, scope: Scope) -> Put:
        return lambda kind, key, body, proof: self.put(scope, key, body, kind=kind, proof=proof)

    @traced("search_memory", _describe)
    def context(self, scope: Scope, query: str, *, budget_tokens: int = 1000, k: int = 20) -> Context:
        """The memory block for a prompt: drawer records whose key the query names, then the best
        recalled memories, whole items only, within `budget_tokens` (about 4 characters a token).
        Every item in it is receipted as retrieved under `run_id`, so pass `refs` to generated()."""
        sk = self._scope(scope)
        query = validation.text(query, "query", self.config.max_text_bytes)
        budget = validation.positive_int(budget_tokens, "budget_tokens", 10_000_000)
        k = validation.positive_int(k, "k", MAX_K)
        return self.retriever.context(sk, query, budget, k, self._now())

    @traced("search_memory", _describe)
    def topics(self, scope: Scope, *, limit: int = 10) -> list[Topic]:
        """What this scope's conversations have been about: its MTM segments, hottest first, with
        the summaries maintain() wrote (`stale` until it has seen the newest pages)."""
        sk = self._scope(scope)
        limit = validation.positive_int(limit, "limit", 1000)
        return self.retriever.topics(sk, limit, self._now())

    @spanned("generated")
    def generated(
        self, scope: Scope, run_id: str, *, depends_on: Iterable[str], outcome: str | None = None
    ) -> None:
        """Record that a generation of this recall run used exactly these refs (content-free)."""
        sk = self._scope(scope)
        if not isinstance(run_id, str) or not re.fullmatch(r"[0-9a-f-]{36}", run_id):
            raise InvalidInput("run_id must be the run_id of a Recall from this store")
        refs = validation.refs(depends_on)
        if outcome is not None and not (isinstance(outcome, str) and _OUTCOME.match(outcome)):
            raise InvalidInput("outcome must be a content-free proof such as 'sha256:<hex>' or 'test:passed'")
        with self.store.write("generate") as tx:
            if not tx.run_committed(run_id):
                raise NotFound("unknown run_id: pass the run_id of a recall() on this store")
            tx.emit(
                self.drafts.base(
                    run_id,
                    "generate",
                    "committed",
                    sk.user,
                    sk.assistant,
                    dependsOnVersion=refs,
                    outcomeReceipt=outcome,
                )
            )

    # -- upkeep --------------------------------------------------------------------------------------
    @spanned("maintenance")
    def maintain(self, now: datetime | None = None) -> Maintenance:
        """Due promotions (idle STM turns, hot segments), expiry and decay. Returns what it did."""
        self._live()
        return self.lifecycle.maintain(self._now() if now is None else to_micros(now, "now"))

    @spanned("check")
    def check(self) -> list[Finding]:
        """Integrity and invariants; returns findings (empty when healthy), never raises on them."""
        self._live()
        return self.lifecycle.check(self._now())

    @spanned("export", describe=lambda lines: {"count": lines})
    def export(
        self,
        path: str | os.PathLike[str],
        *,
        scope: Scope | None = None,
        redacted: bool = True,
        scope_key: bool | None = None,
    ) -> int:
        """Write this store (or one scope) as JSONL, owner-only (0600). Returns the lines written.

        Redacted by default (spans the no-store rule detects are masked) and then meant for sharing:
        no key material. `redacted=False` is a migration file that `import_jsonl` replays into a
        fresh store: it carries the scope-pseudonym key and its header says so. `scope_key=True` or
        `False` overrides that choice (a redacted migration, an unredacted file without the key)."""
        self._live()
        from memoryos.portable import export_jsonl

        target = export_path(path)
        redacted = validation.flag(redacted, "redacted")
        scope_key = validation.optional_flag(scope_key, "scope_key")
        return export_jsonl(self, target, None if scope is None else self._scope(scope), redacted, scope_key)

    @traced("create_memory", _describe)
    def import_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Replay an export into this store, which must be empty. All or nothing; returns units imported."""
        self._live()
        from memoryos.portable import import_jsonl

        return import_jsonl(self, Path(validation.file_path(path, "export")))

    def reload_scope_key(self) -> None:
        scope_key = self.store.meta("scope_key") or ""
        self._scopes = Pseudonymizer(bytes.fromhex(scope_key), self.config.max_scope_id_chars)

    @spanned("export_receipts", describe=lambda receipts: {"count": receipts})
    def export_receipts(self, path: str | os.PathLike[str], *, cursor: str = "default") -> int:
        """Append receipts not yet exported under `cursor` to a JSONL file (at-least-once)."""
        self._live()
        cursor = validation.identifier(cursor, "cursor", validation.MAX_KEY_CHARS)
        return self.lifecycle.export_receipts(export_path(path), cursor)

    @spanned("status")
    def status(self, top: int = 5) -> dict[str, Any]:
        self._live()
        return self.lifecycle.status(self._now(), top)

    def start_background(self) -> None:
        """Run maintain() every `background_interval_seconds` on a daemon thread until close():
        model-backed distillation then happens off the request path, in this process."""
        if self._background is not None:
            return
        self._stop = threading.Event()
        self._background = threading.Thread(
            target=self._maintain_forever, name="memoryos-maintain", daemon=True
        )
        self._background.start()

    def _maintain_forever(self) -> None:
        while not self._stop.wait(self.config.background_interval_seconds):
            try:
                self.maintain()
            except StoreClosed:
                return
            except MemoryOSError as exc:  # keep going: the next pass retries; never crash the host
                log.warning("background maintain failed", error=type(exc).__name__)

    def _gauges(self) -> dict[str, dict[str, int]]:
        """Observable gauges, read on the metrics export thread: counts only, nothing heavier."""
        if self.store.closed:
            return {}
        with self.store.read() as tx:
            occupancy = tx.occupancy()
            lag = tx.outbox_head() - tx.cursor("default")
        tiers = {
            "stm": occupancy.get("stm", 0),
            "mtm_pages": occupancy.get("mtm", 0),
            "mtm_segments": occupancy.get("segments", 0),
            "lpm": occupancy.get("lpm", 0),
        }
        return {"occupancy": tiers, "outbox_lag": {"receipts": lag}}

    def close(self) -> None:
        if self._background is not None:
            self._stop.set()
            self._background.join()
            self._background = None
        self.telemetry.shutdown()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object | TracebackType) -> None:
        self.close()

    # -- sessions (the OpenAI Agents session in memoryos.integrations) -------------------------------
    @traced("search_memory", lambda turns: {"record_count": len(turns)})
    def session_turns(self, scope: Scope, *, limit: int | None = None) -> list[Turn]:
        """The valid turns of `scope`'s session, oldest first, whether still in STM or promoted to
        MTM pages (evicted or forgotten turns are gone). `limit` keeps the newest `limit`. A read,
        like history(): it writes no receipt and visits no segment."""
        sk = self._scope(scope)
        if sk.session is None:
            raise InvalidInput("session_turns needs a scope with session=...: recall() reads a whole scope")
        newest = None if limit is None else validation.positive_int(limit, "limit", 10_000_000)
        now = self._now()
        with self.store.read() as tx:
            units = tx.session_units(sk.user, sk.assistant, sk.session)
        turns = sorted((u for u in units if u.tier != "lpm" and valid_at([u], now)), key=turn_order)
        return [turn_of(u) for u in turns[-newest:]] if newest else [turn_of(u) for u in turns]

    @traced("delete_memory", _describe, delete_target="session")
    def forget_session(self, scope: Scope, *, reason: str = "user request") -> int:
        """Erase every turn of `scope`'s session, in STM and MTM, and everything derived from them,
        as forget() does (tombstones and `forget` receipts keep ids, never content). Forgetting an
        empty or already forgotten session returns 0. Returns the number of unit versions erased."""
        sk = self._scope(scope)
        if sk.session is None:
            raise InvalidInput("forget_session needs a scope with session=...: forget_scope() erases a scope")
        return self.lifecycle.forget_session(sk, sk.session, reason_code(reason), self._now())

    @traced("search_memory", lambda keys: {"record_count": len(keys)})  # memoryos/listing.py
    def keys(
        self, scope: Scope, *, prefix: str | None = None, after: str | None = None, limit: int = 1000
    ) -> list[str]:
        return listed_keys(
            self.store, self._scope(scope), self._now(), prefix=prefix, after=after, limit=limit
        )

    @property
    def now(self) -> datetime:  # the (injectable) clock that validity windows and ttls are judged by
        return self._clock()


__all__ = ["Excluded", "Memory", "MemoryOSError", "open"]
