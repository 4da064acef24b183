"""`memoryos` command line: a thin layer over the library. JSON by default, --table for people.

Exit codes: 0 success; 1 `check` found problems; 2 usage or invalid input; 3 refused by the
no-store rule; 4 not found (a key, or the store itself for a command that only reads); 5 store
error; 141 the reader closed the pipe (`| head`). Errors map to exit codes only in main().
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

import memoryos
from memoryos import validation
from memoryos._version import __version__
from memoryos.cli_args import MCP_OPTIONS, pass_count, seconds_between_passes, ttl_seconds
from memoryos.cli_output import (
    Progress,
    bytes_read,
    bytes_written,
    emit,
    file_size,
    flatten,
    reader_went_away,
)
from memoryos.exit_codes import exit_code
from memoryos.settings import config_from_file, default_db_path
from memoryos.store.location import describe


def _scope(args: argparse.Namespace) -> memoryos.Scope:
    return memoryos.Scope(user=args.user, assistant=args.assistant, session=args.session)


#: Commands that only read (or can only erase, or process what is there): on a path where no store
#: exists they refuse, instead of creating an empty store and answering from it (a mistyped --db).
NEEDS_A_STORE = frozenset(
    {"recall", "get", "history", "topics", "status", "check", "export", "receipts", "candidates"}
    | {"forget", "forget-scope", "maintain", "worker", "end-session"}
)


def _open(args: argparse.Namespace) -> memoryos.Memory:
    config = config_from_file(args.config)
    if args.command in NEEDS_A_STORE:
        _require_store(args.db, args.command)
    return memoryos.open(args.db, config=config)


def _require_store(db: str, command: str) -> None:
    if "://" in db or os.path.lexists(db):
        return  # a URL, or a path open() will judge (a directory or a damaged file is its error)
    raise memoryos.NotFound(
        f"no memoryos store at {db}: check --db (default $MEMORYOS_DB, else ./memoryos.db), or create one"
        f" with `memoryos init --db {db}`; `{command}` does not create a store"
    )


def cmd_init(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return {"db": describe(mem.path), "store_id": mem.store_id, "source_version": mem.source_version}


def cmd_remember(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return mem.remember(_scope(args), args.text, role=args.role, ttl=args.ttl)


def cmd_recall(args: argparse.Namespace) -> Any:
    if not args.query.strip():
        raise memoryos.InvalidInput("the query is empty: give the words to look for, e.g. 'deploy blyck'")
    with _open(args) as mem:
        result = mem.recall(_scope(args), args.query, k=args.k, explain=args.explain)
    return result if not args.table else result.hits


def cmd_put(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return mem.put(
            _scope(args),
            args.key,
            args.body,
            kind=args.kind,
            confidence=args.confidence,
            proof=args.proof,
            ttl=args.ttl,
        )


def cmd_get(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        record = mem.get(_scope(args), args.key)
    if record is None:
        raise memoryos.NotFound("no valid record under that key in this scope")
    return record


def cmd_topics(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return mem.topics(_scope(args), limit=args.limit)


def cmd_history(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return mem.history(_scope(args), args.key)


def cmd_forget(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return {"erased_versions": mem.forget(_scope(args), args.target, reason=args.reason)}


def cmd_forget_scope(args: argparse.Namespace) -> Any:
    if args.user is None and args.assistant is None:
        raise memoryos.InvalidInput("forget-scope needs --user, --assistant or both")
    with _open(args) as mem:
        erased = mem.forget_scope(user=args.user, assistant=args.assistant, reason=args.reason)
    return {"erased_versions": erased}


def cmd_export_memories(args: argparse.Namespace) -> Any:
    scope = memoryos.Scope(user=args.user, assistant=args.assistant) if args.user and args.assistant else None
    if (args.user is None) != (args.assistant is None):
        raise memoryos.InvalidInput("export one scope with both --user and --assistant, or the whole store")
    with (
        _open(args) as mem,
        Progress("memoryos export: wrote", unit="bytes", measure=bytes_written, quiet=args.quiet),
    ):
        lines = mem.export(args.jsonl, scope=scope, redacted=not args.unredacted)
    return {"lines": lines, "path": args.jsonl}


def cmd_import(args: argparse.Namespace) -> Any:
    total = file_size(args.jsonl)
    with (
        _open(args) as mem,
        Progress("memoryos import: read", total=total, unit="bytes", measure=bytes_read, quiet=args.quiet),
    ):
        units = mem.import_jsonl(args.jsonl)
    return {"units": units}


def cmd_worker(args: argparse.Namespace) -> Any:
    """Promote, distil and expire until stopped: several workers on one store are safe. Ctrl-C (or
    SIGTERM) stops it after the pass in progress, and it reports what all its passes did together."""
    from dataclasses import asdict

    totals: dict[str, Any] = {"passes": 0}
    if args.audit:
        _can_audit(args.db)
    with _open(args) as mem, _stop_requested() as stop, _auditing(args) as audit:
        while not stop.is_set():
            for name, count in asdict(mem.maintain()).items():
                totals[name] = totals.get(name, 0) + count
            totals["passes"] += 1
            if args.once or (args.passes and totals["passes"] >= args.passes):
                break
            stop.wait(args.interval)
    if audit is not None:
        totals["audit"] = audit
    return totals


@contextlib.contextmanager
def _auditing(args: argparse.Namespace) -> Iterator[dict[str, Any] | None]:
    """`worker --audit`: `memoryos-audit watch` on this store in a child process beside the passes
    (memoryos may not import the auditor, DESIGN §2), its state and verdict files beside the store,
    its log on this stderr; stopped with the worker. Yields what the worker reports of it."""
    if not args.audit:
        yield None
        return
    import subprocess

    files = {"state": f"{args.db}.audit-state", "verdict": f"{args.db}.audit-verdict"}
    command = [
        sys.executable,
        "-m",
        "auditor",
        "watch",
        "--db",
        args.db,
        "--interval",
        str(args.audit_interval),
    ]
    command += ["--state", files["state"], "--verdict", files["verdict"]]
    # Its own process group: a Ctrl-C reaches the worker alone, which then stops the watcher.
    child = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True
    )
    report: dict[str, Any] = dict(files)
    try:
        yield report
    finally:
        report["exit"] = _stop_child(child)


def _can_audit(db: str) -> None:
    import importlib.util

    if "://" in db:
        raise memoryos.InvalidInput("--audit watches a SQLite store's outbox: give a store file, not a URL")
    if importlib.util.find_spec("auditor") is None:
        raise memoryos.InvalidInput("--audit needs the auditor package (installed with memoryos)")


def _stop_child(child: Any, seconds: float = 10.0) -> int:
    import subprocess

    if child.poll() is None:
        child.terminate()  # the watcher finishes its pass and saves its state
        try:
            child.wait(seconds)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return int(child.returncode)


@contextlib.contextmanager
def _stop_requested() -> Iterator[threading.Event]:
    """An event set by the first SIGINT or SIGTERM. A signal only sets it, so a pass is never cut
    in the middle (a KeyboardInterrupt inside the store could leave a lock held and hang close());
    a second Ctrl-C interrupts as usual, for a pass that takes too long."""
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        del frame
        stop.set()
        signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)

    previous = {signum: signal.signal(signum, request_stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def cmd_observe(args: argparse.Namespace) -> Any:
    try:
        event = orjson.loads(args.event)
    except orjson.JSONDecodeError:
        raise memoryos.InvalidInput(
            '--event must be a JSON object, e.g. \'{"type": "deploy", ...}\''
        ) from None
    if not isinstance(event, dict):
        raise memoryos.InvalidInput("--event must be a JSON object")
    with _open(args) as mem:
        return {"candidate": mem.observe(_scope(args), event)}


def cmd_candidates(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        scope = _scope(args)
        if args.action == "list":
            return mem.candidates(scope, status=None if args.all else "pending")
        if args.id is None:
            raise memoryos.InvalidInput(f"candidates {args.action} needs the candidate id")
        if args.action == "approve":
            return mem.approve(scope, args.id)
        mem.reject(scope, args.id)
        return {"rejected": args.id}


def cmd_end_session(args: argparse.Namespace) -> Any:
    """Memory.end_session: the session's turns move to MTM, reflection proposes its candidates."""
    with _open(args) as mem:
        reflection = mem.end_session(_scope(args))
    return reflection.candidates if args.table else reflection  # a table lists the candidates


def cmd_canary(args: argparse.Namespace) -> Any:
    from memoryos.canary import run_canary

    args.exit_code = run_canary(args.db, args.config, args.json, args.watch_verdict)
    return None


def cmd_mcp(args: argparse.Namespace) -> Any:
    from memoryos.mcp_sdk import require_sdk

    config = config_from_file(args.config)
    if args.http is None:
        if args.user is None or args.assistant is None or args.tokens or args.allow_remote:
            raise memoryos.InvalidInput(
                "memoryos mcp over stdio takes --user and --assistant (the fixed scope); --tokens and"
                " --allow-remote go with --http HOST:PORT"
            )
    elif args.user or args.assistant or args.session or not args.tokens:
        raise memoryos.InvalidInput(
            "memoryos mcp --http takes --tokens FILE (each request's scope is its bearer token's grant),"
            " not --user, --assistant or --session"
        )
    require_sdk()
    if args.http is not None:
        from memoryos.mcp_http import serve_http

        serve_http(args.db, args.http, args.tokens, allow_remote=args.allow_remote, config=config)
        return None
    from memoryos.mcp_server import serve

    serve(args.db, args.user, args.assistant, args.session, config=config)
    return None


def cmd_maintain(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return mem.maintain()


def cmd_status(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        status = mem.status(top=args.top)
    return status if not args.table else [{"metric": k, "value": v} for k, v in flatten(status)]


def cmd_check(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        findings = mem.check()
    args.exit_code = 1 if findings else 0
    return findings if args.table else {"ok": not findings, "findings": findings}


def cmd_export(args: argparse.Namespace) -> Any:
    with _open(args) as mem:
        return {"exported": mem.export_receipts(args.jsonl, cursor=args.cursor), "path": args.jsonl}


def cmd_demo(args: argparse.Namespace) -> Any:
    from memoryos.demo import run_demo

    run_demo(args.dir)
    return None


Arg = tuple[tuple[str, ...], dict[str, Any]]
SCOPE_ARGS: tuple[Arg, ...] = (
    (("--user",), {"required": True, "help": "the host's user id (stored only as a keyed pseudonym)"}),
    (("--assistant",), {"required": True, "help": "the host's assistant id"}),
    (("--session",), {"help": "optional session id"}),
)
REASON: Arg = (("--reason",), {"default": "user request", "help": "a short code for the receipts"})
TTL: Arg = (("--ttl",), {"type": ttl_seconds, "help": "seconds until it expires (positive)"})
KEY: Arg = (("key",), {"help": "the record's key, e.g. deploy:blyck"})
JSONL_OUT: Arg = (("--jsonl",), {"required": True, "help": "the JSONL file to write"})
QUIET: Arg = (
    ("-q", "--quiet"),
    {"action": "store_true", "help": "no progress line (drawn only on a terminal)"},
)

#: name, handler, description, takes a scope, arguments
COMMANDS: tuple[tuple[str, Callable[[argparse.Namespace], Any], str, bool, tuple[Arg, ...]], ...] = (
    (
        "demo",
        cmd_demo,
        "Run a scripted multi-session conversation and show where everything went.",
        False,
        (
            (
                ("--dir",),
                {"default": "memoryos-demo", "help": "folder for the demo store (recreated each run)"},
            ),
        ),
    ),
    ("init", cmd_init, "Create a store (and its receipt key file) if it does not exist.", False, ()),
    (
        "remember",
        cmd_remember,
        "Store one conversation turn in short-term memory.",
        True,
        (
            (("text",), {"help": "the turn's text"}),
            (
                ("--role",),
                {
                    "default": "user",
                    "choices": sorted(validation.ROLES),
                    "help": f"{', '.join(sorted(validation.ROLES))} (default user)",
                },
            ),
            TTL,
        ),
    ),
    (
        "recall",
        cmd_recall,
        "Search this scope's memories across all tiers.",
        True,
        (
            (("query",), {"help": "what to look for"}),
            (("-k",), {"type": int, "default": 5, "help": "number of hits (default 5)"}),
            (("--explain",), {"action": "store_true", "help": "also list what was excluded and why"}),
        ),
    ),
    (
        "put",
        cmd_put,
        "Write a keyed record into the typed drawer (ADD / UPDATE / REINFORCE).",
        True,
        (
            KEY,
            (("body",), {"help": "the record's body"}),
            (
                ("--kind",),
                {
                    "default": "fact",
                    "choices": sorted(validation.DRAWER_KINDS),
                    "metavar": "KIND",
                    "help": f"one of {', '.join(sorted(validation.DRAWER_KINDS))} (default fact)",
                },
            ),
            (("--confidence",), {"type": float, "default": 1.0, "help": "0..1 (default 1)"}),
            (("--proof",), {"help": "how the record was verified"}),
            TTL,
        ),
    ),
    ("get", cmd_get, "Read the current record under a key (exit 4 when there is none).", True, (KEY,)),
    ("history", cmd_history, "List every version of a key, oldest first.", True, (KEY,)),
    (
        "topics",
        cmd_topics,
        "What this scope's conversations were about: MTM segments, hottest first, with summaries.",
        True,
        ((("--limit",), {"type": int, "default": 10, "help": "number of topics (default 10)"}),),
    ),
    (
        "forget",
        cmd_forget,
        "Erase a key or memory id and everything derived from it.",
        True,
        ((("target",), {"help": "a key or a memory id"}), REASON),
    ),
    (
        "forget-scope",
        cmd_forget_scope,
        "Erase every memory of a user, an assistant, or the pair.",
        False,
        (
            (("--user",), {"help": "the user whose memories go (with any assistant unless --assistant)"}),
            (("--assistant",), {"help": "the assistant whose memories go"}),
            REASON,
        ),
    ),
    (
        "export",
        cmd_export_memories,
        "Write memories as JSONL that `import` replays (redacted).",
        False,
        (
            JSONL_OUT,
            (("--user",), {"help": "export only this user's scope (with --assistant)"}),
            (("--assistant",), {"help": "export only this assistant's scope (with --user)"}),
            (
                ("--unredacted",),
                {"action": "store_true", "help": "keep detected secrets unmasked (explicit)"},
            ),
            QUIET,
        ),
    ),
    (
        "import",
        cmd_import,
        "Replay an export into a fresh, empty store (all or nothing).",
        False,
        ((("--jsonl",), {"required": True, "help": "the export to read"}), QUIET),
    ),
    ("maintain", cmd_maintain, "Run due promotions, expiry and decay now.", False, ()),
    (
        "observe",
        cmd_observe,
        "Offer one host activity event; a success worth keeping becomes a candidate.",
        True,
        (
            (
                ("--event",),
                {"required": True, "help": 'JSON, e.g. {"type": "deploy", "target": "blyck", ...}'},
            ),
        ),
    ),
    (
        "candidates",
        cmd_candidates,
        "List captured candidates, or approve / reject one by id.",
        True,
        (
            (
                ("action",),
                {"choices": ["list", "approve", "reject"], "help": "list, approve ID or reject ID"},
            ),
            (("id",), {"nargs": "?", "help": "the candidate id (approve, reject)"}),
            (("--all",), {"action": "store_true", "help": "list decided candidates too"}),
        ),
    ),
    (
        "end-session",
        cmd_end_session,
        "End a session: its turns move to mid-term memory and reflection proposes candidates"
        " (pending approval; without --session, every turn the scope holds in short-term memory).",
        True,
        (),
    ),
    (
        "mcp",
        cmd_mcp,
        "Serve this store to an agent over MCP: stdio with the scope fixed here, at launch, or"
        " streamable HTTP (--http) with each request's scope from its bearer token.",
        False,
        MCP_OPTIONS,
    ),
    (
        "worker",
        cmd_worker,
        "Run maintain() in a loop: model work off the agent's request path.",
        False,
        (
            (
                ("--interval",),
                {
                    "type": seconds_between_passes,
                    "default": 5.0,
                    "help": "seconds between passes (default 5, at most a day)",
                },
            ),
            (("--once",), {"action": "store_true", "help": "one pass, then exit"}),
            (
                ("--audit",),
                {
                    "action": "store_true",
                    "help": "also run `memoryos-audit watch` on the store (state and verdict files"
                    " beside it; gauges over OTLP with MEMORYOS_TELEMETRY=otlp)",
                },
            ),
            (
                ("--audit-interval",),
                {
                    "type": seconds_between_passes,
                    "default": 30.0,
                    "help": "seconds between audit passes with --audit (default 30)",
                },
            ),
            (
                ("--passes",),
                {"type": pass_count, "default": 0, "help": "stop after this many passes (0: run until ^C)"},
            ),
        ),
    ),
    (
        "status",
        cmd_status,
        "Tier occupancy, hottest segments and receipt outbox lag.",
        False,
        ((("--top",), {"type": int, "default": 5, "help": "how many segments to list by heat"}),),
    ),
    ("check", cmd_check, "Check integrity and invariants; exit 1 when anything is found.", False, ()),
)
RECEIPT_EXPORT: tuple[Arg, ...] = (
    (("--jsonl",), {"required": True, "help": "the JSONL file to append to"}),
    (("--cursor",), {"default": "default", "help": "name of the durable export cursor"}),
)


def _global_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--db, --table and --config, accepted before the command and after it. Their defaults are
    SUPPRESS (resolved in `_resolve_globals`) because a subcommand's default would otherwise
    overwrite a value given before the subcommand."""
    hidden = argparse.SUPPRESS
    parser.add_argument("--db", default=hidden, help="store file (default: $MEMORYOS_DB, else ./memoryos.db)")
    parser.add_argument(
        "--table", action="store_true", default=hidden, help="print a table for people instead of JSON"
    )
    parser.add_argument(
        "--config", default=hidden, help="a JSON file of memoryos.Config fields (capacities, windows, ...)"
    )
    return parser


def _resolve_globals(args: argparse.Namespace) -> argparse.Namespace:
    if not hasattr(args, "db"):
        args.db = None if args.command == "canary" else default_db_path()  # canary: a temporary store
    args.table = getattr(args, "table", False)
    args.config = getattr(args, "config", None)
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memoryos",
        description="Tiered, receipted memory for AI agents.",
        epilog="--db, --table and --config may come before the command or after it.",
    )
    parser.add_argument("--version", action="version", version=f"memoryos {__version__}")
    _global_options(parser)
    common = _global_options(argparse.ArgumentParser(add_help=False))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, func, text, scoped, arguments in COMMANDS:
        _command(sub, common, name, func, text, arguments=(*(SCOPE_ARGS if scoped else ()), *arguments))
    receipts = sub.add_parser("receipts", help="Work with the receipt outbox.", description="Receipt outbox.")
    rsub = receipts.add_subparsers(dest="receipts_command", required=True, metavar="COMMAND")
    canary = sub.add_parser(
        "canary",
        help="Drive a canary memory through every tier and audit it (exit 0 only when healthy).",
        description="Drive a canary memory through every tier and audit it (exit 0 only when healthy).",
    )
    canary.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help="run inside this existing store, in canary scopes erased afterwards"
        " (default: a temporary store)",
    )
    canary.add_argument(
        "--config",
        default=argparse.SUPPRESS,
        help="a JSON file of memoryos.Config fields: the configuration under test",
    )
    canary.add_argument("--json", help="write the verdict (sourceVersion, configHash, steps) here")
    canary.add_argument(
        "--watch-verdict",
        metavar="FILE",
        help="judge by the verdict a running `memoryos-audit watch --db STORE --verdict FILE` writes"
        " (MAC-checked, waited for until it covers the canary) instead of auditing again",
    )
    canary.set_defaults(func=cmd_canary)
    _command(
        rsub,
        common,
        "export",
        cmd_export,
        "Append receipts not yet exported to a JSONL file (at-least-once).",
        arguments=RECEIPT_EXPORT,
    )
    return parser


def _command(
    sub: Any,
    common: argparse.ArgumentParser,
    name: str,
    func: Callable[[argparse.Namespace], Any],
    text: str,
    *,
    arguments: tuple[Arg, ...],
) -> None:
    command = sub.add_parser(name, parents=[common], help=text, description=text)
    command.set_defaults(func=func)
    for flags, options in arguments:
        command.add_argument(*flags, **options)


def main(argv: Sequence[str] | None = None) -> int:
    args = _resolve_globals(build_parser().parse_args(argv))
    args.exit_code = 0
    try:
        result = args.func(args)
        if result is not None:
            emit(result, args.table)
        sys.stdout.flush()  # inside the try: a closed pipe surfaces here, not at interpreter exit
    except memoryos.MemoryOSError as exc:
        print(f"memoryos: {exc}", file=sys.stderr)
        return exit_code(exc)
    except BrokenPipeError:
        return reader_went_away()
    return int(args.exit_code)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
