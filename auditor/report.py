"""The audit report: a stable JSON document (schema `memoryos.audit/1`, see auditor/README.md) and a
table for people. Healthy runs are counted, not listed, so a report stays small on big inputs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from auditor.engine import FILE_RUN, Outcome
from auditor.states import HEALTHY, STATES, Finding, rank, verdict, worst

__all__ = ["NO_KEY", "REPORT_SCHEMA", "Macs", "Report", "RunResult", "build_report", "finding_order"]

REPORT_SCHEMA = "memoryos.audit/1"
DEFAULT_MAX_RUNS = 5  # runs drawn by `report --html` when none are named (here: no networkx import)


@dataclass(frozen=True)
class Macs:
    """Whether the audit verified the receipts' MACs, with which key, or why not."""

    verified: bool
    key_source: str | None = None  # "given" (by the caller, e.g. --key-file) or the key file beside a store
    reason: str | None = None  # why the MACs were not verified

    def to_dict(self) -> dict[str, Any]:
        return {"verified": self.verified, "keySource": self.key_source, "reason": self.reason}

    def describe(self) -> str:
        if self.verified:
            return f"verified (key: {self.key_source})"
        return f"NOT verified: {self.reason}"


NO_KEY = Macs(False, None, "no key given (pass --key-file, or audit the store itself with --db)")


@dataclass(frozen=True)
class RunResult:
    run_id: str
    verdict: str
    findings: tuple[Finding, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "verdict": self.verdict,
            "findings": [
                {"rule": f.rule, "state": f.state, "receiptIds": list(f.receipt_ids), "reason": f.reason}
                for f in self.findings
            ],
        }


@dataclass(frozen=True)
class Report:
    verdict: str
    counts: Mapping[str, int]
    runs: tuple[RunResult, ...]  # every run that is not healthy, worst first
    receipts: int
    lines: int
    duplicates: int
    window: tuple[str, str] | None
    source_versions: tuple[str, ...]
    now: str
    mode: str  # "streaming" or "exact": which pass produced it (the verdicts are the same)
    macs: Macs = NO_KEY
    notes: tuple[str, ...] = ()  # what the audit could not check, and what it checked beyond receipts
    _by_id: Mapping[str, RunResult] = field(default_factory=dict, repr=False, compare=False)

    def run(self, run_id: str) -> RunResult | None:
        """The result for one run that is not healthy; None for a healthy (or unknown) run."""
        return self._by_id.get(run_id)

    def verdict_of(self, run_id: str) -> str:
        result = self._by_id.get(run_id)
        return HEALTHY if result is None else result.verdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "verdict": self.verdict,
            "now": self.now,
            "counts": dict(self.counts),
            "receipts": self.receipts,
            "lines": self.lines,
            "duplicates": self.duplicates,
            "window": None if self.window is None else {"from": self.window[0], "to": self.window[1]},
            "sourceVersions": list(self.source_versions),
            "mode": self.mode,
            "runs": [run.to_dict() for run in self.runs],
            "macs": self.macs.to_dict(),
            "notes": list(self.notes),
        }

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    def to_text(self) -> str:
        lines = [f"verdict: {self.verdict}"]
        window = "-" if self.window is None else f"{self.window[0]} .. {self.window[1]}"
        lines.append(f"receipts: {self.receipts} ({self.duplicates} duplicates ignored)   window: {window}")
        lines.append("source versions: " + (", ".join(self.source_versions) or "-"))
        lines.append(f"MACs: {self.macs.describe()}")
        lines.extend(f"note: {note}" for note in self.notes)
        lines.append("")
        lines.append(f"{'state':<22} {'runs':>8}")
        lines.extend(f"{state:<22} {self.counts.get(state, 0):>8}" for state in STATES)
        if self.runs:
            lines.append("")
            lines.append(f"{'run':<38} {'verdict':<22} {'rule':<24} reason")
        for run in self.runs:
            for index, f in enumerate(run.findings):
                head = (run.run_id, run.verdict) if index == 0 else ("", "")
                lines.append(f"{head[0]:<38} {head[1]:<22} {f.rule:<24} {f.reason}")
        return "\n".join(lines) + "\n"


def finding_order(found: Finding) -> tuple[int, str, str]:
    """How a run's findings are listed: worst state first, then by rule and reason."""
    return rank(found.state), found.rule, found.reason


# A run's result as last built, with the findings list it was built from and that list's length:
# findings lists only ever grow by appending, so the same list at the same length is the same run.
ResultCache = dict[str, tuple[list[Finding], int, "RunResult"]]


def build_report(
    outcome: Outcome,
    now: str,
    mode: str,
    *,
    macs: Macs = NO_KEY,
    notes: tuple[str, ...] = (),
    cache: ResultCache | None = None,
) -> Report:
    """`cache`: kept by a caller that reports again and again (auditor.incremental), so that only
    the runs whose findings changed are sorted again."""
    results = []
    for run_id, found in outcome.findings.items():
        hit = None if cache is None else cache.get(run_id)
        if hit is not None and hit[0] is found and hit[1] == len(found):
            results.append(hit[2])
            continue
        ordered = tuple(sorted(found, key=finding_order))
        result = RunResult(run_id, verdict(ordered), ordered)
        if cache is not None:
            cache[run_id] = (found, len(found), result)
        results.append(result)
    results.sort(key=lambda r: (rank(r.verdict), r.run_id))
    counts = dict.fromkeys(STATES, 0)
    for result in results:
        counts[result.verdict] += 1
    listed_real = sum(1 for r in results if r.run_id != FILE_RUN)
    counts[HEALTHY] = outcome.runs - listed_real
    overall = worst(r.verdict for r in results)
    by_id = {r.run_id: r for r in results}
    return Report(
        verdict=overall,
        counts=counts,
        runs=tuple(results),
        receipts=outcome.receipts,
        lines=outcome.lines,
        duplicates=outcome.duplicates,
        window=outcome.window,
        source_versions=outcome.source_versions,
        now=now,
        mode=mode,
        macs=macs,
        notes=notes,
        _by_id=by_id,
    )
