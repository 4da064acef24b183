"""The auditor's verdict on a store's receipts, read from the outbox as any operator would.

The auditor reads receipts only (DESIGN §5). It is judged at the child's own clock (`now`), so that
turns still inside their declared wait window are `waiting`, not `promotion_missing`, and with the
store's receipt key, so that MACs are verified too.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import auditor
from chaos import stores
from chaos.checks import store_key
from chaos.workload import CONFIG

#: What a crash followed by a restart may leave behind ("empty": killed before the first receipt).
ACCEPTED = frozenset({"healthy", "waiting", "empty"})
AT_RISK = "source_at_risk"


@dataclass(frozen=True)
class Verdict:
    overall: str  # the auditor's verdict
    reasons: tuple[str, ...]  # findings behind unaccepted verdicts, for the report
    released_at_risk: bool | None  # negative control: every run that released a source is at risk


def classify(store: Path | str, now: datetime, receipts: list[dict[str, Any]]) -> Verdict:
    if not receipts:
        return Verdict("empty", (), None)
    key = store_key(store)
    grace = timedelta(seconds=float(CONFIG["intent_grace_seconds"]))
    try:
        if stores.is_url(store):  # audited from its outbox, exported as an operator would
            with tempfile.TemporaryDirectory(prefix="chaos-audit-") as folder:
                exported = stores.receipts_file(str(store), Path(folder))
                report = auditor.audit([exported], now=now, key=key, grace=grace)
        else:
            report = auditor.audit([], now=now, key=key, grace=grace, stores=[store])
    except auditor.AuditInputError as exc:
        return Verdict("unreadable", (str(exc),), None)
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for receipt in receipts:
        by_run[str(receipt.get("runId"))].append(receipt)
    reasons: list[str] = []
    for run in report.runs:
        if run.verdict not in ACCEPTED:
            reasons += [f"{run.verdict} {run.run_id}: {f.rule} {f.reason}" for f in run.findings[:2]]
    released = [r for r, items in by_run.items() if _released_without_destination(items)]
    at_risk = all(report.verdict_of(r) == AT_RISK for r in released) if released else None
    return Verdict(report.verdict, tuple(reasons[:10]), at_risk)


def _released_without_destination(receipts: list[dict[str, Any]]) -> bool:
    """A promotion run that said its source was gone and never committed a destination."""
    released = any(r.get("sourcePresent") is False and r.get("status") == "started" for r in receipts)
    return released and not any(r.get("status") == "committed" for r in receipts)
