"""`memoryos-audit` / `python -m auditor`: a thin command line over auditor.audit().

Exit codes: 0 healthy; 1 waiting only; 3 any other state at or above the --fail-on threshold;
2 unreadable input or a usage error. `watch` exits 0 when stopped (a signal, or --passes), 2 when
its sources cannot be read at the start or its state file belongs to another audit. Errors become
exit codes here and nowhere else.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import NoReturn

from auditor.api import audit, parse_duration
from auditor.metrics import export_runs
from auditor.report import DEFAULT_MAX_RUNS, Report
from auditor.sources import AuditInputError
from auditor.states import HEALTHY, STATES, rank
from auditor.stores import read_private_key
from receipts import parse_utc

__all__ = [
    "EXIT_HEALTHY",
    "EXIT_PROBLEM",
    "EXIT_UNREADABLE",
    "EXIT_WAITING",
    "build_parser",
    "exit_code",
    "main",
]

EXIT_HEALTHY, EXIT_WAITING, EXIT_UNREADABLE, EXIT_PROBLEM = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_UNREADABLE, f"{self.prog}: error: {message}\n")


def _time(text: str) -> datetime:
    try:
        return parse_utc(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a time: {text!r} (use RFC 3339, e.g. 2025-01-31T12:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no timezone (add Z for UTC)")
    return moment


def _duration(text: str) -> object:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}")
    return value


def _audit_arguments(command: argparse.ArgumentParser) -> None:
    """What to audit and how: shared by `check` and `report`, so that both judge alike."""
    command.add_argument(
        "paths", nargs="*", metavar="PATH", help="receipt files (a store file is recognised too)"
    )
    command.add_argument(
        "--db", action="append", default=[], metavar="STORE", help="a store whose outbox to read"
    )
    command.add_argument(
        "--state",
        type=Path,
        metavar="FILE",
        help="resume from this audit state and leave the new one there: only appended receipts are read",
    )
    command.add_argument("--now", type=_time, help="the audit's clock (RFC 3339; default: current UTC time)")
    command.add_argument("--max-age", type=_duration, help="evidence older than this is uncertain (e.g. 7d)")
    command.add_argument("--grace", type=_duration, help="grace period of a started promotion (default 5m)")
    command.add_argument(
        "--key-file",
        type=Path,
        help="the receipt key that verifies the MACs (default: a store's own <STORE>.receipt-key)",
    )
    command.add_argument(
        "-q", "--quiet", action="store_true", help="no progress line on stderr (drawn only on a terminal)"
    )


def _report_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    report = commands.add_parser(
        "report",
        help="audit and write a self-contained HTML report with lineage drawings",
        description="Audit like `check`, then write one offline HTML page: the verdict, runs per state, "
        "tier occupancy as evidenced by receipts, and the lineage of chosen runs as SVG. "
        "The exit code is check's.",
    )
    _audit_arguments(report)
    report.add_argument("--html", required=True, type=Path, metavar="OUT", help="the HTML file to write")
    report.add_argument(
        "--runs",
        nargs="+",
        action="extend",
        default=[],
        metavar="RUN_ID",
        help="runs whose lineage to draw (default: runs that are not healthy, then the most recent)",
    )
    report.add_argument(
        "--max-runs",
        type=_positive,
        default=DEFAULT_MAX_RUNS,
        metavar="N",
        help=f"how many runs to draw when --runs is not given (default {DEFAULT_MAX_RUNS})",
    )


def _interval(text: str) -> float:
    """Seconds (`0.5`, `30`) or a duration (`30s`, `5m`), above zero and at most a day."""
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = parse_duration(text).total_seconds()
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    if not 0 < seconds <= 86_400:
        raise argparse.ArgumentTypeError(f"not an interval: {text!r} (above 0, at most a day, e.g. 30s)")
    return seconds


def _watch_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    watch = commands.add_parser(
        "watch",
        help="audit again every interval, reading only new receipts; export gauges over OTLP",
        description="Audit the sources every interval from a state file (only receipts appended since the "
        "last pass are read), log each change of the overall verdict as a JSON line on stderr, write "
        "the verdict file, and with MEMORYOS_TELEMETRY=otlp export memoryos.audit.* gauges over "
        "OTLP/HTTP (standard OTEL_* variables). A busy store or an unreachable collector is logged and "
        "retried; a restart resumes from the state file. SIGINT or SIGTERM stops it after the pass.",
    )
    watch.add_argument(
        "paths", nargs="*", metavar="PATH", help="receipt files (a store file is recognised too)"
    )
    watch.add_argument(
        "--db", action="append", default=[], metavar="STORE", help="a store whose outbox to read"
    )
    watch.add_argument(
        "--state", type=Path, required=True, metavar="FILE", help="the audit state: resumed, kept up to date"
    )
    watch.add_argument(
        "--interval",
        type=_interval,
        default=30.0,
        help="time between passes (seconds or e.g. 5m; default 30s)",
    )
    watch.add_argument(
        "--verdict",
        type=Path,
        metavar="FILE",
        help="write the last verdict here after each pass (MAC'd under the receipt key: the canary reads it)",
    )
    watch.add_argument(
        "--passes", type=int, default=0, metavar="N", help="stop after N passes (0: until stopped)"
    )
    watch.add_argument("--grace", type=_duration, help="grace period of a started promotion (default 5m)")
    watch.add_argument(
        "--key-file",
        type=Path,
        help="the receipt key that verifies the MACs (default: a store's own <STORE>.receipt-key)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memoryos-audit", description="Classify the health of memoryos receipt streams.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser(
        "check",
        help="audit receipt files and/or a store's outbox and print a report",
        description="Audit receipts (JSONL, plain or gzip) and/or a store's outbox, opened read-only.",
    )
    _audit_arguments(check)
    check.add_argument(
        "--format",
        choices=("auto", "text", "json"),
        default="auto",
        help="auto: text on a terminal, else JSON",
    )
    check.add_argument(
        "--fail-on",
        choices=STATES,
        default="waiting",
        metavar="STATE",
        help="lowest state that makes the exit code non-zero (default: waiting)",
    )

    explain = commands.add_parser(
        "explain",
        help="print the lineage of one run (or memory) as a tree, or as Graphviz DOT",
        description="Print the lineage of one run or memory id across the given sources.",
    )
    explain.add_argument("target", metavar="RUN_ID", help="a runId (or a memoryId)")
    explain.add_argument("paths", nargs="*", metavar="PATH", help="receipt files")
    explain.add_argument(
        "--db", action="append", default=[], metavar="STORE", help="a store whose outbox to read"
    )
    explain.add_argument("--dot", action="store_true", help="print Graphviz DOT instead of a tree")
    _report_parser(commands)
    _watch_parser(commands)
    return parser


def exit_code(verdict: str, fail_on: str = "waiting") -> int:
    if verdict == HEALTHY or rank(verdict) > rank(fail_on):
        return EXIT_HEALTHY
    return EXIT_WAITING if verdict == "waiting" else EXIT_PROBLEM


def _audit(args: argparse.Namespace) -> Report:
    from auditor.progress import Progress, input_size

    if not args.paths and not args.db:
        raise AuditInputError("nothing to audit: give receipt files and/or --db STORE")
    key = read_private_key(args.key_file) if args.key_file is not None else None
    total = input_size([*args.paths, *args.db])
    with Progress("memoryos-audit: read", total, quiet=args.quiet):
        report = audit(
            args.paths,
            now=args.now,
            max_age=args.max_age,
            grace=args.grace,
            key=key,
            stores=args.db,
            state=args.state,
        )
    export_runs(report, os.environ)
    return report


def _check(args: argparse.Namespace) -> int:
    report = _audit(args)
    text = args.format == "text" or (args.format == "auto" and sys.stdout.isatty())
    if text:
        sys.stdout.write(report.to_text())
    else:
        sys.stdout.buffer.write(report.to_json())
        sys.stdout.flush()
    return exit_code(report.verdict, args.fail_on)


def _explain(args: argparse.Namespace) -> int:
    from auditor.lineage import lineage_graph, to_dot, to_tree  # networkx: only where a graph is drawn

    if not args.paths and not args.db:
        raise AuditInputError("nothing to read: give receipt files and/or --db STORE")
    sources = [(p, False) for p in args.paths] + [(p, True) for p in args.db]
    graph = lineage_graph(sources, args.target)
    if graph.number_of_nodes() == 1:
        sys.stderr.write(f"memoryos-audit: no receipts for {args.target}\n")
        return EXIT_UNREADABLE
    sys.stdout.write(to_dot(graph) if args.dot else to_tree(graph))
    return EXIT_HEALTHY


def _report(args: argparse.Namespace) -> int:
    from auditor.html import render_html, write_html  # networkx: only where a graph is drawn

    report = _audit(args)
    sources = [(p, False) for p in args.paths] + [(p, True) for p in args.db]
    write_html(args.html, render_html(report, sources, runs=args.runs, max_runs=args.max_runs))
    code = exit_code(report.verdict)
    sys.stdout.write(
        f"wrote {args.html}: verdict {report.verdict} (exit {code}); MACs {report.macs.describe()}\n"
    )
    return code


def _watch(args: argparse.Namespace) -> int:
    import logging
    import signal
    import threading

    from auditor.watch import Watcher, log_event, start_export

    if not args.paths and not args.db:
        raise AuditInputError("nothing to watch: give receipt files and/or --db STORE")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("auditor.watch")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    key = read_private_key(args.key_file) if args.key_file is not None else None
    watcher = Watcher(
        args.paths, stores=args.db, state=args.state, key=key, grace=args.grace, verdict=args.verdict
    )
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    shutdown = start_export(watcher, os.environ, args.interval)
    log_event("watch started", interval=args.interval, sources=len(args.paths) + len(args.db))
    try:
        done = watcher.run(stop, args.interval, max(args.passes, 0))
    finally:
        if shutdown is not None:
            shutdown()
    report = watcher.latest.report
    log_event("watch stopped", passes=done, verdict=None if report is None else report.verdict)
    return EXIT_HEALTHY


_COMMANDS = {"check": _check, "explain": _explain, "report": _report, "watch": _watch}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except (AuditInputError, ValueError, OSError) as exc:  # unreadable input (or key file): never a traceback
        sys.stderr.write(f"memoryos-audit: {exc}\n")
        return EXIT_UNREADABLE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
