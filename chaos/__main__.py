"""`python -m chaos run ...`: the kill/restart sweep. See chaos/README.md for what it proves.

Exit status: 0 when every memoryos trial is clean and the negative control was caught in every one
of its lossy trials; 1 otherwise; 2 for a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from chaos import report, stores
from chaos.sweep import CI, SERVER, Plan, execute, trials
from chaos.workload import WORKLOADS
from memoryos import failpoints
from memoryos.cli_output import Progress


def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(prog="python -m chaos", description=__doc__)
    commands = cli.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="kill at every failpoint, restart, check; print the table")
    run.add_argument("--points", nargs="+", default=["all"], help="'all' or failpoint names")
    run.add_argument("--seeds", type=int, default=20, help="seeds of the random workload per point")
    run.add_argument("--workload", choices=WORKLOADS, default="random", help="the seeded workload")
    run.add_argument("--hits", choices=("all", "one"), default="all", help="kill at every hit of small")
    run.add_argument("--raise-hits", choices=("all", "one", "none"), default="all")
    run.add_argument("--recovery-seeds", type=int, default=None, help="default: --seeds")
    run.add_argument("--soak", type=int, default=100, help="external random-time SIGKILL trials")
    run.add_argument("--naive-seeds", type=int, default=None, help="default: --seeds")
    run.add_argument("--slice", choices=("ci",), help="the bounded CI slice (overrides the counts)")
    run.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    run.add_argument("--json", type=Path, help="write every trial and the summary here")
    run.add_argument("--keep", type=Path, help="copy the store of every failing trial here")
    run.add_argument(
        "--db",
        help="run every trial on a new database of this PostgreSQL server (a postgresql:// URL of a"
        " database the harness may create databases from); default: a SQLite file per trial",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no trial counter (drawn only on a terminal)")
    return cli


def plan_from(args: argparse.Namespace) -> Plan:
    points = tuple(failpoints.POINTS) if args.points == ["all"] else tuple(args.points)
    unknown = sorted(set(points) - set(failpoints.POINTS))
    if unknown:
        raise SystemExit(f"unknown failpoints: {', '.join(unknown)} (see memoryos.failpoints.POINTS)")
    counts: dict[str, Any] = {
        "hits": args.hits,
        "raise_hits": args.raise_hits,
        "seeds": args.seeds,
        "recovery_seeds": args.seeds if args.recovery_seeds is None else args.recovery_seeds,
        "soak": args.soak,
        "naive_seeds": args.seeds if args.naive_seeds is None else args.naive_seeds,
    }
    if args.slice == "ci":
        return dataclasses.replace(CI, points=points, workload=args.workload)
    return Plan(points=points, workload=args.workload, **counts)


def _progress(counter: Progress) -> Any:
    """Failures are printed as they come, always; the trial counter only on a terminal."""

    def show(result: dict[str, Any]) -> None:
        counter.advance()
        if not result["ok"]:
            why = result["bug"] or result["findings"][:3] or result["audit"][:3] or result["verdict"]
            print(
                f"\nFAIL {result['family']} {result['point']} hit {result['hit']} seed {result['seed']}:"
                f" {why}",
                file=sys.stderr,
            )

    return show


def machine() -> dict[str, Any]:
    return {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    failpoints.arm("")  # the parent restarts and checks stores: it must never fire a failpoint itself
    plan = plan_from(args)
    if args.db is not None and not stores.is_url(args.db):
        raise SystemExit("--db takes a postgresql:// URL (SQLite stores are files of each trial)")
    SERVER["url"] = args.db
    started = time.monotonic()
    specs = trials(plan)
    with Progress("chaos: trials", total=len(specs), quiet=args.quiet) as counter:
        results = execute(specs, args.jobs, args.keep, _progress(counter))
    rows, facts = report.rows(results), report.summary(results)
    facts["seconds"] = round(time.monotonic() - started, 1)
    print("\n" + report.table(rows) + "\n\n" + report.totals(facts) + f"\n({facts['seconds']} s)")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "command": "python -m chaos " + " ".join(sys.argv[1:] if argv is None else argv),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": machine(),
            "summary": facts,
            "rows": rows,
            "trials": results,
        }
        args.json.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    return 0 if facts["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
