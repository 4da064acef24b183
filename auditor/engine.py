"""The single pass over receipts: compact per-run and per-unit state, decided as early as it can be.

Two modes share every rule. The *exact* mode keeps each run and unit until the end of the input, so
any order of receipts gives the same verdicts. The *streaming* mode (`ordered=True`) relies on what a
store's export looks like — receipts in time order — to decide a run once it has been idle for
`idle` receipts and a unit once it has left the store, and so stays small on long inputs. It checks
that reliance as it goes: a receipt older than one already seen, a receipt for a run or unit
already decided (auditor.bloom), or a seq that comes after its gap was reported raises `Unordered`, and
`auditor.audit` re-runs the exact pass. The streaming pass is an optimisation, never an answer of its
own; a property test holds both modes to the same verdicts.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from auditor.bloom import Bloom
from auditor.chains import _PREFIX, DUPLICATE, Chains, Unordered
from auditor.judge import (
    Promotions,
    Times,
    generation_findings,
    intent_deadline,
    open_intents,
    promotion_findings,
    scope_suspects,
    stale_against,
)
from auditor.parse import Bad, Facts, Parsed
from auditor.states import HEALTHY, Finding, finding, verdict

__all__ = ["FILE_RUN", "Engine", "Outcome", "collector_paused"]

FILE_RUN = "-"  # findings about lines that name no run (unparseable lines, empty sources)
CREATES = frozenset({"store", "stm_to_mtm", "mtm_to_lpm", "correct"})
PROMOTIONS = frozenset({"stm_to_mtm", "mtm_to_lpm"})
REMOVALS = frozenset({"evict", "expire", "decay", "forget"})
DONE = frozenset({"committed", "verified"})
_SWEEP_EVERY = 4096
_sha256 = hashlib.sha256
_EXPIRED = 1
_MAC = 2

Scope = tuple[str | None, str | None]
Late = Callable[[str, Finding], None]  # where a finding for a possibly decided run goes


class _Run:
    __slots__ = (
        "born",
        "findings",
        "flags",
        "generates",
        "memo",
        "promo",
        "retrieved",
        "run_id",
        "scope",
        "scope_rid",
        "touched",
    )

    def __init__(self, run_id: str, touched: int) -> None:
        self.run_id = run_id
        self.born = self.touched = touched
        self.scope: Scope | None = None
        self.scope_rid: str | None = None
        self.findings: list[Finding] | None = None
        self.flags = 0
        self.retrieved: set[str] | None = None
        self.generates: list[tuple[str, list[str] | None]] | None = None
        self.promo: Promotions | None = None
        # The run's findings as last judged, with the clock they depend on (None: on no clock) and
        # when they would change with it; any receipt or finding for the run clears it.
        self.memo: tuple[Times | None, list[Finding], str | None] | None = None

    def add(self, found: Finding) -> None:
        self.memo = None
        if self.findings is None:
            self.findings = [found]
        else:
            self.findings.append(found)


class _Unit:
    __slots__ = ("ckey", "crid", "newer", "pending", "resolved", "retrieves", "scope", "suspects")

    def __init__(self) -> None:
        self.scope: Scope | None = None  # the creating receipt's scope
        self.ckey: tuple[int, str] | None = None  # (version, receiptId) of that receipt: the least wins
        self.crid: str | None = None
        self.suspects: list[tuple[Scope, str, str]] | None = None  # (scope, run, receiptId)
        self.newer: dict[int, str] | None = None  # version >= 2 -> earliest commit time
        self.retrieves: list[tuple[int, str, str, str]] | None = None  # exact mode: (version, at, run, rid)
        self.pending: tuple[str, str, str] | None = None  # store into STM: (waitUntil, run, rid)
        self.resolved = False  # promoted out of STM, or removed on purpose


@dataclass
class Outcome:
    """What the pass found; auditor.report turns it into a Report."""

    findings: dict[str, list[Finding]] = field(default_factory=dict)  # non-healthy runs only
    runs: int = 0
    receipts: int = 0
    lines: int = 0
    duplicates: int = 0
    window: tuple[str, str] | None = None
    source_versions: tuple[str, ...] = ()
    next_change: str | None = None  # the earliest time at which a verdict changes with the clock alone


class Engine:
    def __init__(
        self,
        times: Times,
        key: bytes | None = None,
        *,
        ordered: bool = False,
        idle: int = 50_000,
        sweep_every: int = _SWEEP_EVERY,
    ):
        self._times = times
        self._sweep_every = sweep_every  # tests sweep often to exercise deciding and holding runs
        self._key = key
        mac_state = hmac.new(key if key is not None else b"", digestmod=hashlib.sha256)
        # The key's inner and outer pads, hashed once per audit and copied per receipt; OpenSSL's
        # own HMAC object when hmac has one (its Python wrapper doubles the cost of a copy).
        self._mac_state = getattr(mac_state, "_hmac", mac_state)
        self._ordered = ordered
        self._idle = idle
        self._notes: list[tuple[str, str | None, tuple[str | None, ...], str]] = []
        self._chains = Chains(lambda *note: self._notes.append(note), ordered=ordered)
        # OrderedDict, not dict: taking the front of a dict after deleting from it rescans the
        # deleted slots, which made the sweep quadratic; the linked list keeps it O(1).
        self._open: OrderedDict[str, _Run] = OrderedDict()
        self._closed: dict[str, list[Finding]] = {}
        self._held: dict[str, _Run] = {}  # idle runs whose verdict still depends on the clock
        self._runs = 0
        self._units: dict[str, _Unit] = {}
        self._scopes: dict[Scope, Scope] = {}
        self._versions: set[str | None] = set()
        self._n = 0
        self._lines = 0
        self._duplicates = 0
        self._min_at = self._max_at = ""
        # Ids already decided. UUIDv7 ids grow with time, so a new id above the maximum needs no
        # look-up; the Bloom filter only answers for the few that are not (its false "maybe" would
        # cost an exact re-run if asked about every new id).
        self._decided_runs, self._dropped_units = Bloom(), Bloom()
        self._max_run = self._max_unit = ""
        self.last_link: str | None = None  # lets the parser skip re-checking a prev it can predict
        self._verdicts: dict[str, tuple[list[Finding], int, str]] = {}  # see _verdict()

    # ---- input -------------------------------------------------------------------------------
    def feed(self, item: Parsed | Bad, where: str) -> None:
        self._lines += 1
        if type(item) is Parsed:  # a Parsed is never subclassed: the exact type is the cheap test
            self._take(item, where)
        else:
            self._take_bad(item, where)  # type: ignore[arg-type]  # Bad, the only other kind

    def unreadable(self, where: str, reason: str) -> None:
        self._lines += 1
        self._file_finding("evidence.unreadable", f"{where}: {reason}")

    def _file_finding(self, rule: str, reason: str) -> None:
        self._closed.setdefault(FILE_RUN, []).append(finding(rule, (), reason))

    def _take_bad(self, bad: Bad, where: str) -> None:
        rule = "evidence.invalid" if bad.reason.startswith("invalid") else "evidence.unreadable"
        if bad.chain is not None:
            chain_id, seq, prev, canonical = bad.chain
            link = hashlib.sha256(canonical).hexdigest()
            if self._chains.add(chain_id, seq, prev, link, run=bad.run_id, rid=bad.receipt_id) == DUPLICATE:
                self._duplicates += 1
                self._notes.clear()  # a conflicting duplicate of an invalid receipt adds nothing new
                return
        if bad.run_id is None:
            self._file_finding(rule, f"{where}: {bad.reason}")
            self._flush_notes(None)
            return
        run = self._run(bad.run_id)
        run.add(finding(rule, (bad.receipt_id,), f"{where}: {bad.reason}"))
        self._flush_notes(run)

    def _take(self, item: Parsed, where: str) -> None:
        # The hot path, once per receipt: the chain's next step, the MAC, time, run and scope steps
        # are written out here (each is a method elsewhere), on the facts unpacked once.
        f, canonical, uncertain = item
        (
            assistant, at, _, chain_id, _, _, _, _, mac_hex, _, _, prev, _, rid, run_id, _, seq, _,
            source_version, _, _, user, _, _,
        ) = f  # fmt: skip
        digest = _sha256(canonical).digest()
        link = self.last_link = digest.hex()
        chain = self._chains._chains.get(chain_id)
        if (  # the next receipt of its chain with nothing waiting (Chains.add's first case)
            chain is not None
            and seq == chain.next_seq
            and not chain.pending
            and len(chain.seen) == seq * _PREFIX
        ):
            chain.seen += digest[:_PREFIX]
            if prev != chain.link:
                self._chains.broken(chain_id, seq, run_id, rid)
            chain.link, chain.next_seq = link, seq + 1
        elif self._chains.add(chain_id, seq, prev, link, run=run_id, rid=rid, digest=digest) == DUPLICATE:
            self._duplicate(run_id)
            return
        if self._key is not None:
            mac = self._mac_state.copy()
            mac.update(canonical)
            if mac_hex is None or not hmac.compare_digest(mac_hex, mac.hexdigest()):
                self._untrusted(f)
                return
        if at < self._max_at or not self._min_at:
            self._place_in_time(f)
        else:
            self._max_at = at
        n = self._n = self._n + 1
        self._versions.add(source_version)  # None too: dropped when reported
        run = self._open.get(run_id) or self._run(run_id)
        run.touched, run.memo = n, None  # an open run again (what _run does for it, written out)
        if self._notes or uncertain is not None or self._times.expiry_cut is not None:
            self._also(run, f, uncertain, where)
        if user is None and assistant is None:
            scope = None
        else:  # one shared tuple per scope: the same scope is the same object
            key = (user, assistant)
            scope = self._scopes.get(key) or self._scopes.setdefault(key, key)
            if run.scope is not scope:
                self._run_scope(run, scope, rid)
        self._boundary(run, f, scope)
        if n % self._sweep_every == 0 and self._ordered:
            self._sweep()

    def _also(self, run: _Run, f: Facts, uncertain: str | None, where: str) -> None:
        """What only some receipts bring: notes of the chain, an uncertain field, expiry."""
        if self._notes:
            self._flush_notes(run)
        if uncertain is not None:  # usable for the rules all the same: precedence picks the verdict
            run.add(finding("evidence.invalid", (f.receipt_id,), f"{where}: {uncertain}"))
        if self._times.expiry_cut is not None:
            self._check_expiry(run, f)

    def _duplicate(self, run_id: str) -> None:
        self._duplicates += 1
        if self._notes:  # a conflicting copy is reported on its own run, not the first holder's
            self._flush_notes(self._run(run_id))

    def _run_scope(self, run: _Run, scope: Scope, rid: str) -> None:
        """A receipt's scope (not None) that is not its run's shared tuple: the run's first scope,
        or a second one."""
        if run.scope is None:
            run.scope, run.scope_rid = scope, rid
        elif run.scope != scope:
            run.add(finding("scope.run", (run.scope_rid, rid), "receipts of this run carry two scopes"))

    def _untrusted(self, f: Facts) -> None:
        """Forged or damaged: it keeps its place in the chain, but no rule may believe it."""
        run = self._run(f.run_id)
        self._flush_notes(run)
        if not run.flags & _MAC:
            run.flags |= _MAC
            reason = "MAC missing or wrong under the given key: the receipt takes no part in the rules"
            run.add(finding("evidence.mac", (f.receipt_id,), reason))

    def _place_in_time(self, f: Facts) -> None:
        at = f.at
        if at < self._max_at:
            if self._ordered:
                raise Unordered(f"receipt {f.receipt_id} is older than one before it")
            self._min_at = min(self._min_at, at)
        else:
            self._max_at = at
            if not self._min_at:
                self._min_at = at

    def _check_expiry(self, run: _Run, f: Facts) -> None:
        cut = self._times.expiry_cut
        if cut is not None and f.at < cut and not run.flags & _EXPIRED:
            run.flags |= _EXPIRED
            run.add(
                finding(
                    "evidence.expired", (f.receipt_id,), f"evidence from {f.at} is older than the maximum age"
                )
            )

    # ---- boundaries --------------------------------------------------------------------------
    def _boundary(self, run: _Run, f: Facts, scope: Scope | None) -> None:
        # unpacked once (a Facts attribute is a descriptor call): the fields the boundaries read
        (
            _, at, boundary, _, _, depends, _, _, _, memory_id, _, _, _, rid, _, _, _, present, _, status,
            to_tier, _, version, wait,
        ) = f  # fmt: skip
        creates = boundary in CREATES
        if memory_id is not None:
            unit = self._units.get(memory_id)
            if unit is None:
                unit = self._unit(memory_id)
            # what _touch does, the common case (a known scope the unit already has) written out
            if scope is not None and (
                creates or unit.ckey is None or (scope is not unit.scope and scope != unit.scope)
            ):
                self._touch(unit, scope, run.run_id, rid, creates=creates, version=version)
            if creates and version is not None and version >= 2 and status in DONE:
                _committed(unit, version, at)
        if boundary == "retrieve":
            self._retrieve(run, f, memory_id)
        elif boundary == "generate":
            if run.generates is None:
                run.generates = []
            run.generates.append((rid, depends))
        elif boundary in PROMOTIONS:
            self._promotion(run, f, scope)
        elif boundary == "store" and to_tier == "stm" and status in DONE and memory_id is not None:
            self._into_stm(run, memory_id, wait, rid)
        elif boundary in REMOVALS and status in DONE and memory_id is not None:
            self._units[memory_id].resolved = True
            if self._ordered and present is False:
                self._drop(memory_id)

    def _into_stm(self, run: _Run, memory_id: str, wait: str | None, rid: str) -> None:
        if wait is None:
            run.add(finding("evidence.no_window", (rid,), "store into STM without waitUntilUtc"))
        else:
            self._units[memory_id].pending = (wait, run.run_id, rid)

    def _retrieve(self, run: _Run, f: Facts, memory_id: str | None) -> None:
        if memory_id is None or f.version is None:
            return
        if run.retrieved is None:
            run.retrieved = set()
        run.retrieved.add(f"{memory_id}@{f.version}")
        unit = self._units[memory_id]
        if self._ordered:  # every commit older than this receipt has been seen already
            self._judge_stale(
                unit, memory_id, f.version, f.at, run=run.run_id, rid=f.receipt_id, late=self._late
            )
        else:
            if unit.retrieves is None:
                unit.retrieves = []
            unit.retrieves.append((f.version, f.at, run.run_id, f.receipt_id))

    def _judge_stale(
        self, unit: _Unit, memory_id: str, version: int, at: str, *, run: str, rid: str, late: Late
    ) -> None:
        hit = stale_against(unit.newer, version, at)
        if hit is not None:
            reason = f"returned {memory_id}@{version} at {at}; @{hit[0]} was committed at {hit[1]}"
            late(run, finding("retrieval.stale", (rid,), reason))

    def _promotion(self, run: _Run, f: Facts, scope: Scope | None) -> None:
        promo = run.promo if run.promo is not None else Promotions()
        run.promo = promo
        keys = list(f.derived_from) if f.derived_from else [f"destination {f.memory_id}"]
        if f.source_present is False:
            for key in keys:
                promo.released.setdefault(key, f.receipt_id)
        if f.status in DONE:
            promo.covered.update(keys)
            promo.terminal.add(f.memory_id)
        elif f.status == "failed":
            promo.terminal.add(f.memory_id)
        else:
            promo.opened.append(
                (
                    f.memory_id,
                    f.at,
                    f.wait_until if f.status == "waiting" else None,
                    f.receipt_id,
                    f.source_present,
                )
            )
        leaves = f.boundary == "stm_to_mtm" and (f.status in DONE or f.source_present is False)
        for ref in f.derived_from or ():
            source = ref.partition("@")[0]
            unit = self._unit(source)
            self._touch(unit, scope, run.run_id, f.receipt_id, creates=False, version=None)
            if leaves:
                unit.resolved = True
                if self._ordered and f.source_present is False:
                    self._drop(source)

    # ---- runs and units ----------------------------------------------------------------------
    def _run(self, run_id: str) -> _Run:
        run = self._open.get(run_id)
        if run is None and self._held:
            run = self._held.pop(run_id, None)
            if run is not None:  # a held run is in use again: back among the open ones
                self._open[run_id] = run
                run.touched, run.memo = self._n, None
                return run
        if run is None:
            if self._ordered and run_id <= self._max_run and run_id in self._decided_runs:
                raise Unordered(f"run {run_id} may have been decided already")
            run = self._open[run_id] = _Run(run_id, self._n)
        else:
            run.touched, run.memo = self._n, None
        return run

    def _unit(self, memory_id: str) -> _Unit:
        unit = self._units.get(memory_id)
        if unit is None:
            if self._ordered and memory_id <= self._max_unit and memory_id in self._dropped_units:
                raise Unordered(f"unit {memory_id} may have been decided already")
            unit = self._units[memory_id] = _Unit()
        return unit

    def _touch(
        self, unit: _Unit, scope: Scope | None, run: str, rid: str, *, creates: bool, version: int | None
    ) -> None:
        if scope is None:
            return
        if creates:
            key = (version or 0, rid)
            if unit.ckey is None or key < unit.ckey:
                if unit.ckey is not None and unit.scope != scope and unit.crid is not None:
                    self._suspect(unit, unit.scope, run, unit.crid)  # two creators disagree
                unit.scope, unit.ckey, unit.crid = scope, key, rid
                return
        if unit.ckey is None or scope != unit.scope:
            self._suspect(unit, scope, run, rid)

    @staticmethod
    def _suspect(unit: _Unit, scope: Scope | None, run: str, rid: str) -> None:
        if scope is None:
            return
        if unit.suspects is None:
            unit.suspects = []
        unit.suspects.append((scope, run, rid))

    def _drop(self, memory_id: str) -> None:
        unit = self._units.pop(memory_id, None)
        # A unit leaving the store has usually nothing to decide (no suspect, no retrieval kept,
        # no window still pending): _decide_unit would only look, so it is asked only otherwise.
        if unit is not None and (
            unit.suspects or unit.retrieves or (unit.pending is not None and not unit.resolved)
        ):
            self._decide_unit(memory_id, unit, self._late)
        self._dropped_units.add(memory_id)
        self._max_unit = max(self._max_unit, memory_id)

    def _decide_unit(self, memory_id: str, unit: _Unit, late: Late) -> None:
        if unit.suspects:
            for run, rid, scope in scope_suspects(unit.scope, unit.suspects):
                reason = f"{memory_id} is in scope {_short(unit.scope)}; this receipt says {_short(scope)}"
                late(run, finding("scope.lineage", (rid, unit.crid), reason))
        for version, at, run, rid in unit.retrieves or ():
            self._judge_stale(unit, memory_id, version, at, run=run, rid=rid, late=late)
        if unit.pending is not None and not unit.resolved:
            wait, run, rid = unit.pending
            if wait < self._times.now:
                late(run, finding("promotion.overdue", (rid,), f"{memory_id} still in STM past {wait}"))
            else:
                late(run, finding("waiting.window", (rid,), f"{memory_id} may stay in STM until {wait}"))

    def _run_findings(self, run: _Run) -> list[Finding]:
        """The run's findings now (shared with its memo: callers copy before they add)."""
        memo = run.memo
        if memo is not None and (memo[0] is None or memo[0] == self._times):
            return memo[1]
        found = list(run.findings or ())
        deadline, intents = None, None
        if run.promo is not None:
            found += promotion_findings(run.promo, self._times)
            intents = open_intents(run.promo)
            deadline = intent_deadline(intents, self._times)
        if run.generates:
            found += generation_findings(run.generates, run.retrieved)
        run.memo = (self._times if intents else None, found, deadline)
        return found

    def _verdict(self, run_id: str, found: list[Finding]) -> str:
        """verdict(found), remembered per run for the next finish (findings lists only grow)."""
        hit = self._verdicts.get(run_id)
        if hit is not None and hit[0] is found and hit[1] == len(found):
            return hit[2]
        state = verdict(found)
        self._verdicts[run_id] = (found, len(found), state)
        return state

    def _late(self, run_id: str, found: Finding) -> None:
        """A finding for a run that may already be decided (decided healthy runs keep no entry)."""
        run = self._open.get(run_id) or self._held.get(run_id)
        if run is not None:
            run.add(found)
        else:
            self._closed.setdefault(run_id, []).append(found)

    def _flush_notes(self, run: _Run | None) -> None:
        for rule, run_id, ids, reason in self._notes:
            if run is not None and run_id == run.run_id:
                run.add(finding(rule, ids, reason))
            elif run_id is None:
                self._file_finding(rule, reason)
            else:
                self._late(run_id, finding(rule, ids, reason))
        self._notes.clear()

    def _sweep(self) -> None:
        """Decide the runs idle for `idle` receipts (streaming mode only)."""
        limit = self._n - self._idle
        # Runs sit in order of first receipt; the scan stops at the first one born after the limit,
        # so each sweep costs the runs it decides plus the few old runs still in use. They are
        # chosen in one read of the front, then decided together (most runs are one or two receipts
        # of a remember: their decision is a count and an id, see _decide_runs).
        idle: list[_Run] = []
        busy: list[_Run] = []
        for run in self._open.values():
            if run.born >= limit:
                break
            (busy if run.touched >= limit else idle).append(run)
        for run in busy:  # old but still in use: to the back, in the order met
            self._open.move_to_end(run.run_id)
        decided: list[_Run] = []
        for run in idle:
            del self._open[run.run_id]
            if run.promo is not None and open_intents(run.promo):
                # An intent still open is judged by the clock (waiting now, missing later): the run
                # stays undecided, so that an audit resumed at a later time judges it then.
                self._held[run.run_id] = run
            else:
                decided.append(run)
        self._decide_runs(decided)

    def _decide_runs(self, runs: list[_Run]) -> None:
        """Decide runs for good, in order: their findings into _closed, their ids into the filter of
        decided runs (one call). A run with nothing to judge (no finding, promotion or generation:
        most runs) is healthy without being judged."""
        closed = self._closed
        for run in runs:
            if run.findings is None and run.promo is None and run.generates is None:
                continue  # no findings to judge: healthy, no entry in _closed
            found = self._run_findings(run)
            if found:
                closed[run.run_id] = found
        self._runs += len(runs)
        if self._ordered and runs:
            ids = [run.run_id for run in runs]
            self._decided_runs.update(ids)
            self._max_run = max(self._max_run, *ids)

    # ---- the verdicts so far -----------------------------------------------------------------
    def set_times(self, times: Times) -> None:
        """The clock of the next `finish()` (an incremental audit resumes at a later time)."""
        self._times = times

    def finish(self) -> Outcome:
        """The verdicts over everything fed so far. Changes nothing: feeding may go on afterwards.
        Unchanged runs are not judged again (their memo), so a finish costs little more than a
        look at each open run."""
        extra: dict[str, list[Finding]] = {}

        def late(run_id: str, found: Finding) -> None:
            extra.setdefault(run_id, []).append(found)

        self._chains.finish()  # gaps still open at the end, reported as notes
        notes, self._notes = self._notes, []
        for rule, run_id, ids, reason in notes:
            late(FILE_RUN if run_id is None else run_id, finding(rule, ids, reason))
        deadlines = []
        for memory_id, unit in self._units.items():
            self._decide_unit(memory_id, unit, late)
            if unit.pending is not None and not unit.resolved and unit.pending[0] >= self._times.now:
                deadlines.append(unit.pending[0])
        results = dict(self._closed)
        for run in itertools.chain(self._open.values(), self._held.values()):
            found = self._run_findings(run)
            if found:
                results[run.run_id] = found
            if run.memo is not None and run.memo[2] is not None:
                deadlines.append(run.memo[2])
        for run_id, found in extra.items():
            results[run_id] = [*results.get(run_id, ()), *found]
        if self._n == 0:
            none = finding("evidence.none", (), "no receipts were read")
            results[FILE_RUN] = [*results.get(FILE_RUN, ()), none]
        closed = {run: found for run, found in results.items() if self._verdict(run, found) != HEALTHY}
        window = (self._min_at, self._max_at) if self._n else None
        runs = self._runs + len(self._open) + len(self._held)
        versions = tuple(sorted(v for v in self._versions if v is not None))
        change = min(deadlines, default=None)
        return Outcome(closed, runs, self._n, self._lines, self._duplicates, window, versions, change)


def _committed(unit: _Unit, version: int, at: str) -> None:
    """A version >= 2 of the unit committed at `at`: the earliest such time per version."""
    newer = unit.newer if unit.newer is not None else {}
    unit.newer = newer
    if version not in newer or at < newer[version]:
        newer[version] = at


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a pass runs. The pass allocates a few small containers
    per receipt and keeps tens of thousands alive (the open runs and units), so the collector's
    full sweeps over them cost a sixth of an audit; what the pass keeps holds no reference cycles,
    and the collector runs again as soon as the pass is over. Everything allocated meanwhile sits in
    the youngest generation, so the first collection after the pass would walk all of it (a tenth of
    a resumed audit): freeze-unfreeze moves it to the oldest generation unscanned instead."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _short(scope: Scope | None) -> str:
    if scope is None:
        return "?"
    user, assistant = scope
    return f"{(user or '?')[:8]}/{(assistant or '?')[:8]}"
