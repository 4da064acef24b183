"""Upkeep: recovery on open, maintain() (idle promotion, heat, expiry, decay), forgetting, checks,
receipt export and status. Policies decide; this module only sequences transactions."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from memoryos.errors import NotFound
from memoryos.failpoints import failpoint
from memoryos.followups import FollowUps
from memoryos.logs import get_logger
from memoryos.model import Finding, Forgotten, Maintenance
from memoryos.policies import stm as stm_policy
from memoryos.policies.distill import PageView
from memoryos.policies.lpm import decayed_status
from memoryos.policies.notes import Notes, NoteWriter
from memoryos.policies.text import keywords, ranked, summarize
from memoryos.promotion import OWNER, Promoter, segment_heat
from memoryos.receipting import Drafts
from memoryos.scope import ScopeKey
from memoryos.settings import Config
from memoryos.store.base import Store, Transaction
from memoryos.store.rows import Intent, PageNote, Unit
from memoryos.store.sqlite_files import classify_os_error
from memoryos.telemetry import spanned
from memoryos.timeutil import seconds_to_micros
from receipts import ZERO_HASH, append_jsonl, link_hash, parse_line
from receipts.model import TERMINAL_STATUSES

log = get_logger()
BATCH = 500
LOST_RECEIPTS = "lost_receipts"  # meta: what open() found missing against the high-water mark
DAY = 86_400
NOTES_PER_PASS = 50  # segments whose notes one maintain() refreshes
NOTED_PAGES = 40  # a segment's notes cover its newest pages: a prompt stays bounded


def _owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != OWNER.rpartition(":")[0] or not pid.isdigit():
        return False  # another host's claim is judged by its age alone
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def rederive_segment(tx: Transaction, segment_id: str) -> None:
    """A segment's keywords and summary are rebuilt from its remaining pages, or it goes. Its page
    notes go too (a model's note on one page may quote another): maintain() rewrites them, since the
    new version leaves the summary stale."""
    segment = tx.segment(segment_id)
    if segment is None:
        return
    tx.drop_page_notes(segment_id)
    pages = tx.pages(segment_id)
    if not pages:
        tx.delete_segment(segment_id)
        return
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update(keywords(page.body))
    # What was distilled stays distilled. The mark never points past the newest page left, so a
    # rowid that SQLite hands out again (after the newest rows went) is read as undistilled.
    through = min(segment.distilled_through, max(p.rowid or 0 for p in pages))
    tx.put_segment(
        replace(
            segment,
            keywords=ranked(counts),
            summary=summarize((p.body for p in pages), weights=counts),
            summary_degraded=False,
            interactions=sum((p.rowid or 0) > through for p in pages),
            version=segment.version + 1,
            pages=len(pages),
            distilled_through=through,
        )
    )


def _page_notes(segment_id: str, pages: Sequence[Unit], notes: Notes) -> list[PageNote]:
    """One row per page; a page that continues the one before it points at it."""
    rows = []
    for index, (page, note) in enumerate(zip(pages, notes.pages, strict=True)):
        follows = pages[index - 1].memory_id if note.continues and index > 0 else None
        rows.append(PageNote(page.memory_id, segment_id, note.summary, follows, notes.degraded))
    return rows


class Lifecycle:
    def __init__(
        self,
        store: Store,
        config: Config,
        drafts: Drafts,
        promoter: Promoter,
        key_hash: Callable[[str], str],
        *,
        notes: NoteWriter,
    ) -> None:
        self.store = store
        self.notes = notes
        self.key_hash = key_hash
        self.config = config
        self.drafts = drafts
        self.promoter = promoter
        self.telemetry = promoter.telemetry
        self.followups = FollowUps(store)
        # Reflection over turns the idle window ends a session with (memoryos.capture.session).
        self.on_idle: Callable[[Sequence[Unit]], int] = lambda turns: 0

    # -- recovery -----------------------------------------------------------------------------------
    @spanned("recovery")
    def recover(self, now: int) -> int:
        """Reconcile intents whose owner died (or outlived the grace period) by run id and version."""
        failpoint("recovery.begin")
        grace = seconds_to_micros(self.config.intent_grace_seconds)
        with self.store.write("recovery") as tx:
            stale = [i for i in tx.intents() if not _owner_alive(i.owner) or i.started_at + grace < now]
            for intent in stale:
                self._reconcile(tx, intent)
            failpoint("recovery.after_reconcile")
        if stale:
            log.info("recovered", intents=len(stale))
            self.telemetry.count("promotions", len(stale), boundary="mtm_to_lpm", status="failed")
        return len(stale)

    def _reconcile(self, tx: Transaction, intent: Intent) -> None:
        statuses = [parse_line(body, "outbox", 0) for body in tx.run_scope(intent.run_id)]
        receipts = [line.receipt for line in statuses if line is not None and line.receipt is not None]
        tx.delete_intent(intent.run_id)
        if any(r.get("status") in TERMINAL_STATUSES for r in receipts):
            return  # the run finished; only its bookkeeping was left behind
        if not receipts:
            log.warning("intent without receipts", run_id=intent.run_id)
            return
        started = receipts[0]
        # Nothing was applied (destination and release commit together), so the run is rolled back:
        # the source is still in MTM and a later maintain() distils it afresh under a new run id.
        present = tx.segment(intent.subject_id) is not None
        tx.emit(
            self.drafts.rollback(
                intent.run_id,
                intent.boundary,
                started["userScope"],
                started["assistantScope"],
                source_present=present,
            )
        )

    # -- maintain -----------------------------------------------------------------------------------
    def maintain(self, now: int) -> Maintenance:
        recovered = self.recover(now)
        scrubbed = self.followups.finish_erasure()
        promoted, evicted, reflected = self._promote_idle(now)
        distilled = records = 0
        for segment in self.promoter.hot_segments(now):
            written = self.promoter.distill(segment, now)
            distilled += 1 if written else 0
            records += written
        expired = self._expire(now)
        decayed = self._decay(now)
        summarized = self.refresh_notes()
        done = (promoted, distilled, records, evicted, expired, decayed, recovered, summarized, scrubbed)
        return Maintenance(*done, reflected)

    def _promote_idle(self, now: int) -> tuple[int, int, int]:
        idle = seconds_to_micros(self.config.stm_idle_seconds)
        with self.store.read() as tx:
            scopes = set(tx.stm_scopes_due(now - idle)) | self.followups.take_promotions()
        promoted = evicted = reflected = 0
        for user, assistant in sorted(scopes):
            with self.store.read() as tx:
                turns = tx.stm_turns(user, assistant)
            views = [stm_policy.StmTurn(t.memory_id, t.created_at) for t in turns]
            idled = {t.memory_id for t in stm_policy.idle(views, now, idle)}
            due = idled | {t.memory_id for t in stm_policy.overflow(views, self.config.stm_capacity)}
            outcome = self.promoter.promote_turns([t for t in turns if t.memory_id in due], now)
            promoted += outcome.promoted
            evicted += outcome.evicted
            if idled and len(idled) == len(turns):  # everything went quiet: that session is over
                reflected += self.on_idle([t for t in turns if t.memory_id in idled])
        return promoted, evicted, reflected

    # -- notes: segment summaries, page summaries, continuity -------------------------------------
    @spanned("summaries")
    def refresh_notes(self, limit: int = NOTES_PER_PASS) -> int:
        """Write fresh notes for segments whose summary is older than they are. The note writer (a
        model, perhaps) runs outside any transaction; its notes are committed only if the segment is
        still at the version they describe, else the next pass redoes them."""
        with self.store.read() as tx:
            work = [(s, tx.newest_pages(s.segment_id, NOTED_PAGES)) for s in tx.stale_summaries(limit)]
        done = 0
        for segment, pages in work:
            notes = self.notes.notes([PageView(p.ref, p.role or "user", p.body, p.source_ids) for p in pages])
            failpoint("summaries.after_notes")
            with self.store.write("summaries") as tx:
                current = tx.segment(segment.segment_id)
                if current is None or current.version != segment.version:
                    continue  # changed while the notes were written: they describe the past
                tx.put_segment(
                    replace(
                        current,
                        summary=notes.summary,
                        summary_version=current.version,
                        summary_degraded=notes.degraded,
                    )
                )
                tx.put_page_notes(_page_notes(segment.segment_id, pages, notes))
            done += 1
            self.telemetry.count("summaries", 1, status="degraded" if notes.degraded else "ok")
        return done

    @spanned("expiry")
    def _expire(self, now: int) -> int:
        total = 0
        while True:
            with self.store.write("expire") as tx:
                due = tx.expired(now, BATCH)
                if due:
                    runs = self._erase(tx, due, "ttl", now, boundary="expire")
                    failpoint("expire.after_delete")
            if not due:
                break
            log.info("expired", runs=runs, units=len(due))
            total += len(due)
        if total:
            self.followups.scrub()
            self.telemetry.count("expiries", total)
        return total

    @spanned("decay")
    def _decay(self, now: int) -> int:
        stale_after = seconds_to_micros(self.config.stale_after_days * DAY)
        retired_after = seconds_to_micros(self.config.retired_after_days * DAY)
        with self.store.write("decay") as tx:
            changed = 0
            runs: dict[tuple[str, str], str] = {}  # one run per scope
            for unit in tx.decay_candidates(now - stale_after, 100_000):
                status = decayed_status(
                    kind=unit.kind or "",
                    status=unit.status,
                    last_seen=unit.last_seen,
                    now=now,
                    stale_after=stale_after,
                    retired_after=retired_after,
                )
                if status != unit.status:
                    run_id = runs.setdefault((unit.user_scope, unit.assistant_scope), _run_id())
                    tx.update_unit(unit.rowid or 0, status=status)
                    tx.emit(
                        self.drafts.about(
                            run_id,
                            "decay",
                            replace(unit, status=status),
                            reason=status,
                            fromTier="lpm",
                            sourcePresent=True,
                        )
                    )
                    changed += 1
        self.telemetry.count("decays", changed)
        return changed

    def touch(self, unit: Unit, now: int) -> Unit:
        """An explicit get counts as seen, and revives a stale record (DESIGN §7)."""
        with self.store.write("touch") as tx:
            if unit.status == "stale":
                tx.emit(
                    self.drafts.about(
                        _run_id(), "decay", unit, reason="revived", fromTier="lpm", sourcePresent=True
                    )
                )
            tx.update_unit(unit.rowid or 0, last_seen=now, status="active")
        return replace(unit, last_seen=now, status="active")

    # -- forgetting ---------------------------------------------------------------------------------
    def forget(self, scope: ScopeKey, target: str, reason: str, now: int) -> Forgotten:
        with self.store.write("forget") as tx:
            # A promoted turn lives on as the page (and records) built from it.
            roots = (
                tx.key_versions(scope.user, scope.assistant, target)
                or tx.id_versions(scope.user, scope.assistant, target)
                or _in_scope(tx.units_by_ids(tx.dependents([target])), scope)
            )
            if not roots:
                if tx.tombstoned(scope.user, scope.assistant, target, self.key_hash(target)):
                    return Forgotten(0)
                raise NotFound("no such key or memory id in this scope")
            doomed = _closure(tx, roots, scope)
            self.telemetry.annotate(record_id=roots[0].memory_id if roots[0].key == target else target)
            self._erase(tx, doomed, reason, now, boundary="forget")
            failpoint("forget.after_delete")
        return Forgotten(len(doomed), erasure_pending=not self.followups.scrub())

    def forget_scope(self, user: str | None, assistant: str | None, reason: str, now: int) -> Forgotten:
        """Erase every unit of a user, an assistant, or the pair; other scopes are not touched."""
        total = 0
        while True:
            with self.store.write("forget") as tx:
                units = tx.scope_units(user, assistant, BATCH)
                if units:
                    self._erase(tx, units, reason, now, boundary="forget")
                    failpoint("forget.after_delete")
            if not units:
                break
            total += len(units)
        return Forgotten(total, erasure_pending=not self.followups.scrub())

    def forget_session(self, scope: ScopeKey, session: str, reason: str, now: int) -> int:
        """Erase one session's turns (STM and MTM) and everything built from them; 0 if none."""
        with self.store.write("forget") as tx:
            roots = [u for u in tx.session_units(scope.user, scope.assistant, session) if u.tier != "lpm"]
            if not roots:
                return 0
            doomed = _closure(tx, roots, scope)
            self._erase(tx, doomed, reason, now, boundary="forget")
            failpoint("forget.after_delete")
        self.store.scrub()
        return len(doomed)

    def _erase(self, tx: Transaction, units: list[Unit], reason: str, now: int, *, boundary: str) -> int:
        """Delete content (rows, index entries, derived segment text); keep ids in tombstones.
        One run per scope, so that the receipts of a run never mix scopes. Returns the runs written."""
        tx.delete_units([u.rowid for u in units if u.rowid is not None])
        tx.drop_sources([u.memory_id for u in units])
        by_scope = _by_scope(units)
        for group in by_scope.values():
            run_id = _run_id()
            for unit in group:
                tx.tombstone(unit, None if unit.key is None else self.key_hash(unit.key), reason, now)
                tx.emit(self.drafts.removal(run_id, boundary, unit, reason))
        for segment_id in sorted({u.segment_id for u in units if u.segment_id}):
            rederive_segment(tx, segment_id)
        return len(by_scope)

    # -- explain, check, export, status ----------------------------------------------------------
    def check(self, now: int) -> list[Finding]:
        findings = [Finding("integrity", detail) for detail in self.store.integrity()]
        findings.extend(self.followups.findings())
        grace = seconds_to_micros(self.config.intent_grace_seconds)
        with self.store.read() as tx:
            for intent in tx.intents():
                if intent.started_at + grace < now:
                    findings.append(Finding("open_intent", f"run {intent.run_id} open past the grace period"))
            findings.extend(_chain_findings(tx))
            findings.extend(Finding("lineage", d) for d in tx.lineage_problems())
        findings.extend(Finding("receipts_missing", d) for d in self.lost_receipts())
        return findings

    def lost_receipts(self) -> list[str]:
        """What the high-water mark says is missing now, and what open() found missing earlier (a
        later commit moves the mark back to the chain's head, so open() records it in meta)."""
        found = self.store.mark_findings()
        earlier = self.store.meta(LOST_RECEIPTS)
        if earlier and earlier not in found:
            found.append(f"found when the store was opened: {earlier}")
        return found

    def note_lost_receipts(self) -> None:
        """At open, before anything writes: keep what the mark says is missing, and log it."""
        found = self.store.mark_findings()
        if found:
            log.warning("receipts missing", findings=len(found))
            self.store.set_meta_if_absent(LOST_RECEIPTS, found[0])

    def export_receipts(self, path: Path, cursor: str) -> int:
        """Append the receipts after `cursor` to `path`, a batch per write transaction that claims
        the cursor: several exporters of one cursor never append the same receipts (one that finds
        it claimed stops, the other is exporting). A kill after the append and before the cursor
        moves appends that batch again next time: at least once, never a gap."""
        total = 0
        while True:
            with self.store.write("export") as tx:
                start = tx.claim_cursor(cursor)
                rows = [] if start is None else tx.outbox_after(start, BATCH)
                if not rows:
                    return total
                _append_receipts(path, rows)
                failpoint("export.after_write")
                failpoint("export.before_cursor")
                tx.set_cursor(cursor, rows[-1][0])
            failpoint("export.after_cursor")
            total += len(rows)

    def status(self, now: int, top: int) -> dict[str, Any]:
        with self.store.read() as tx:
            occupancy = tx.occupancy()
            segments = tx.all_segments()
            head, exported = tx.outbox_head(), tx.cursor("default")
        ranked = sorted(segments, key=lambda s: -segment_heat(self.config, s, now))[:top]
        return {
            "tiers": {
                "stm": occupancy.get("stm", 0),
                "mtm_pages": occupancy.get("mtm", 0),
                "mtm_segments": occupancy.get("segments", 0),
                "lpm": occupancy.get("lpm", 0),
            },
            "open_intents": occupancy.get("intents", 0),
            "heat_top": [
                {
                    "segment_id": s.segment_id,
                    "heat": round(segment_heat(self.config, s, now), 3),
                    "pages": s.interactions,
                    "visits": s.visits,
                }
                for s in ranked
            ],
            "outbox": {"head_seq": head, "exported_seq": exported, "lag": head - exported},
            "follow_ups": self.followups.status(),
        }


def _run_id() -> str:
    from receipts import uuid7

    return uuid7()


def _closure(tx: Transaction, roots: list[Unit], scope: ScopeKey) -> list[Unit]:
    """The roots and every unit built from them, transitively, within the same scope."""
    found = {(u.memory_id, u.version): u for u in roots}
    seen = {u.memory_id for u in roots}
    frontier = sorted(seen)
    while frontier:
        units = _in_scope(tx.units_by_ids([m for m in tx.dependents(frontier) if m not in seen]), scope)
        found.update(((u.memory_id, u.version), u) for u in units)
        frontier = sorted({u.memory_id for u in units} - seen)
        seen.update(frontier)
    return list(found.values())


def _by_scope(units: list[Unit]) -> dict[tuple[str, str], list[Unit]]:
    groups: dict[tuple[str, str], list[Unit]] = {}
    for unit in units:
        groups.setdefault((unit.user_scope, unit.assistant_scope), []).append(unit)
    return groups


def _in_scope(units: list[Unit], scope: ScopeKey) -> list[Unit]:
    return [u for u in units if (u.user_scope, u.assistant_scope) == (scope.user, scope.assistant)]


def _chain_findings(tx: Transaction) -> list[Finding]:
    findings: list[Finding] = []
    seq, link = 0, ZERO_HASH
    while True:
        rows = tx.outbox_after(seq, 5000)
        for row_seq, body in rows:
            receipt = _receipt_object(body)
            if receipt is None:
                findings.append(
                    Finding("receipt_damaged", f"the receipt at seq {row_seq} is not a JSON object")
                )
                seq, link = row_seq, ""
                continue
            if row_seq != seq + 1 or receipt.get("prev") != link:
                findings.append(Finding("receipt_chain", f"chain breaks at seq {row_seq}"))
            seq, link = row_seq, _link_or_empty(receipt)
        if len(rows) < 5000:
            return findings


def _receipt_object(body: bytes) -> dict[str, Any] | None:
    try:
        receipt = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return receipt if isinstance(receipt, dict) else None


def _link_or_empty(receipt: dict[str, Any]) -> str:
    """The hash the next receipt must carry; "" (matching nothing) when this one cannot be hashed."""
    try:
        return link_hash(receipt)
    except (TypeError, ValueError):
        return ""


def _append_receipts(path: Path, rows: list[tuple[int, bytes]]) -> None:
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))  # owner-only if new
        append_jsonl(path, (body for _, body in rows))
    except OSError as exc:  # the cursor did not move: the next export appends them again
        raise classify_os_error(exc, path, "the receipts were not exported") from None
