"""Results: one row per (family, failpoint), a summary that decides pass/fail, a table for people."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

COLUMNS = (
    "family",
    "failpoint",
    "trials",
    "killed",
    "lost",
    "duplicated",
    "receipt mismatches",
    "failed",
)


def rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        point = r["point"] or "-"
        if r["family"] == "recovery":
            point = f"{r['point']} -> {r['recovery_point']}"
        groups[(r["family"], point)].append(r)
    return [_row(family, point, group) for (family, point), group in sorted(groups.items())]


def _row(family: str, point: str, group: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "family": family,
        "failpoint": point,
        "trials": len(group),
        "killed": sum(1 for r in group if r["killed"]),
        "lost": sum(r["lost"] for r in group),
        "duplicated": sum(r["duplicated"] for r in group),
        "receipt mismatches": sum(r["mismatches"] for r in group),
        "failed": sum(1 for r in group if not r["ok"]),
        "verdicts": dict(Counter(r["verdict"] for r in group)),
    }


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures the issue's targets are stated in, and whether they are met."""
    memoryos = [r for r in results if r["family"] != "naive"]
    control = [r for r in results if r["family"] == "naive"]
    lossy = [r for r in control if r["lost"]]
    caught = [r for r in lossy if r["control_caught"] is True]
    facts = {
        "trials": len(results),
        "kill_trials": sum(1 for r in memoryos if r["killed"]),
        "failpoints": len({r["point"] for r in memoryos if r["point"]}),
        "lost": sum(r["lost"] for r in memoryos),
        "duplicated": sum(r["duplicated"] for r in memoryos),
        "receipt_mismatches": sum(r["mismatches"] for r in memoryos),
        "failed_trials": sum(1 for r in memoryos if not r["ok"]),
        "verdicts": dict(Counter(r["verdict"] for r in memoryos)),
        "control_trials": len(control),
        "control_lossy": len(lossy),
        "control_caught": len(caught),
        "control_bugs": sum(1 for r in control if r["bug"]),
    }
    facts["passed"] = (
        facts["failed_trials"] == 0
        and facts["control_lossy"] > 0
        and facts["control_caught"] == facts["control_lossy"]
        and facts["control_bugs"] == 0
    )
    return facts


def table(result_rows: list[dict[str, Any]]) -> str:
    """A Markdown table; the verdict column lists each auditor verdict with its count."""
    header = [*COLUMNS, "auditor verdicts"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in result_rows:
        verdicts = ", ".join(f"{k or '-'} {v}" for k, v in sorted(row["verdicts"].items()))
        cells = [str(row[c]) for c in COLUMNS] + [verdicts]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def totals(facts: dict[str, Any]) -> str:
    verdicts = ", ".join(f"{k} {v}" for k, v in sorted(facts["verdicts"].items()))
    return "\n".join(
        [
            f"trials {facts['trials']}, memoryos kill trials {facts['kill_trials']},"
            f" failpoints {facts['failpoints']}",
            f"lost {facts['lost']}, duplicated {facts['duplicated']},"
            f" receipt mismatches {facts['receipt_mismatches']}, failed trials {facts['failed_trials']}",
            f"auditor verdicts (memoryos): {verdicts}",
            f"negative control caught: {facts['control_caught']}/{facts['control_lossy']} lossy trials"
            f" ({facts['control_trials']} trials)",
            "PASSED" if facts["passed"] else "FAILED",
        ]
    )
