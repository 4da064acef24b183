"""The MCP server (`memoryos mcp`, extra `memoryos[mcp]`): one store and one scope over stdio.

The host fixes the scope at launch. No tool takes a user, assistant, session or scope argument,
every input schema forbids additional properties, and a call that carries one anyway is refused
before the store is touched: a model cannot name its way into another user's or assistant's memory.

Built on the SDK's low-level `Server` rather than `MCPServer` because the latter silently ignores
unknown arguments; here each tool's arguments are a pydantic model with `extra="forbid"`, which
both publishes `additionalProperties: false` and enforces it.

Memory calls run on the event loop thread: they are synchronous, short and have no await point, so
concurrent requests are serialised on the one `Memory` without a lock. Only the auditor, an
incremental audit held in a worker thread (`HeldAudit`), is awaited.

`python -m memoryos.mcp_server --db PATH --user U --assistant A` is the same as `memoryos mcp`.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel, ValidationError

import memoryos
from memoryos import validation
from memoryos.exit_codes import exit_code
from memoryos.mcp_resources import MemoryResources
from memoryos.mcp_schemas import (
    ContextArguments,
    ContextOutput,
    CorrectArguments,
    ForgetArguments,
    ForgetOutput,
    HealthArguments,
    HealthOutput,
    HistoryArguments,
    HistoryOutput,
    ReadArguments,
    ReadOutput,
    RememberArguments,
    StoredOutput,
    TopicsArguments,
    TopicsOutput,
    WriteArguments,
    WrittenOutput,
    _Arguments,
)
from memoryos.mcp_stdio import stdio_transport
from memoryos.memory import key_path_for
from memoryos.settings import config_from_file, default_db_path, from_environment
from receipts import read_key_file

__all__ = [
    "HEALTH_TIMEOUT_SECONDS",
    "TOOLS",
    "HeldAudit",
    "MemoryTools",
    "ToolFailure",
    "ToolSpec",
    "build_parser",
    "build_server",
    "main",
    "run_auditor",
    "serve",
]

HEALTH_TIMEOUT_SECONDS = 30.0
# The auditor's documented exit codes (auditor/README.md) for which it printed a report.
_AUDITOR_REPORTED = frozenset({0, 1, 3})
_AUDITOR_UNREADABLE = 2
_SCOPE_FIXED = "the memory scope (user, assistant, session) is fixed by the host when the server starts"
_SCOPE_SENTENCE = f"The {_SCOPE_FIXED.removeprefix('the ')}."
#: Argument names that try to choose a scope: refused with the reason, whatever the tool.
_SCOPE_ARGUMENTS = frozenset(
    {"user", "assistant", "session", "scope", "user_id", "assistant_id", "session_id", "tenant"}
)
log = logging.getLogger("memoryos.mcp")


class ToolFailure(Exception):
    """A tool could not answer for a reason the model can read (not a memoryos error)."""


# -- the tools as data: what each one does, and whether it writes or destroys ---------------------
@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    arguments: type[_Arguments]
    annotations: ToolAnnotations
    output: type[BaseModel]

    def tool(self) -> Tool:
        return Tool(
            name=self.name,
            title=self.annotations.title,
            description=self.description,
            input_schema=self.arguments.model_json_schema(),
            output_schema=self.output.model_json_schema(),
            annotations=self.annotations,
        )


def _writes(title: str) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=False,
        open_world_hint=False,
    )


def _reads(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=True, idempotent_hint=True, open_world_hint=False)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_remember",
        "WRITES memory (adds, never overwrites or deletes): store one conversation turn. Secrets and "
        f"personal data are refused by the no-store rule and nothing is stored. {_SCOPE_SENTENCE} "
        "Returns memory_id, version and ref.",
        RememberArguments,
        _writes("Remember a turn"),
        StoredOutput,
    ),
    ToolSpec(
        "memory_write",
        "WRITES memory (adds; a changed body becomes a new version, the old one stays in history): write "
        "a keyed record to the typed drawer. Secrets and personal data are refused by the no-store rule. "
        f"{_SCOPE_SENTENCE} Returns memory_id and version.",
        WriteArguments,
        _writes("Write a keyed record"),
        WrittenOutput,
    ),
    ToolSpec(
        "memory_read",
        "Read only: give exactly one of key (the record stored under that exact key, or found=false) or "
        "query (the top k hits across every tier, with a run_id the host can cite). "
        f"{_SCOPE_SENTENCE}",
        ReadArguments,
        _reads("Read memory"),
        ReadOutput,
    ),
    ToolSpec(
        "memory_forget",
        "DESTROYS memory, irreversibly: erase a key or memory id and everything derived from it from "
        "every tier; only ids, times and the reason are kept. Forgetting again is a no-op. "
        f"{_SCOPE_SENTENCE} Returns erased_versions.",
        ForgetArguments,
        ToolAnnotations(
            title="Forget a memory",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        ForgetOutput,
    ),
    ToolSpec(
        "memory_health",
        "Read only: the auditor's health verdict over this store's receipts (verdict, runs per state, "
        "receipts read). Content-free: no memory text, keys or ids.",
        HealthArguments,
        _reads("Memory health"),
        HealthOutput,
    ),
    ToolSpec(
        "memory_context",
        "Read only (the items are receipted as retrieved): the memory block to put in a prompt for a "
        "query: drawer records whose key the query names, then the best recalled memories, whole items "
        f"within budget_tokens. Returns text, refs, tokens and a run_id the host can cite. {_SCOPE_SENTENCE}",
        ContextArguments,
        _reads("Memory context for a prompt"),
        ContextOutput,
    ),
    ToolSpec(
        "memory_topics",
        "Read only: what this scope's conversations have been about, hottest first: each topic's "
        f"summary (empty until maintenance ran), keywords, pages and heat. {_SCOPE_SENTENCE}",
        TopicsArguments,
        _reads("Memory topics"),
        TopicsOutput,
    ),
    ToolSpec(
        "memory_history",
        "Read only: every version of a keyed record, oldest first, with the reason each was written "
        f"(forgotten versions are gone). {_SCOPE_SENTENCE}",
        HistoryArguments,
        _reads("Record history"),
        HistoryOutput,
    ),
    ToolSpec(
        "memory_correct",
        "WRITES memory (a new version; the old one stays in history, valid until now): correct the "
        "body of an existing keyed record by key or memory id. Secrets and personal data are refused. "
        f"{_SCOPE_SENTENCE} Returns memory_id, version and ref.",
        CorrectArguments,
        _writes("Correct a record"),
        StoredOutput,
    ),
)


# -- the tool bodies ------------------------------------------------------------------------------
class MemoryTools:
    """The tool bodies over one open store and the one scope the host launched the server with."""

    def __init__(
        self,
        memory: memoryos.Memory,
        scope: memoryos.Scope | None,
        *,
        health_timeout: float = HEALTH_TIMEOUT_SECONDS,
    ) -> None:
        self.memory = memory
        self.scope = scope
        self.health_timeout = health_timeout
        self.auditor = HeldAudit(memory.path)
        self.handlers: dict[str, Callable[[memoryos.Scope, Any], Awaitable[dict[str, Any]]]] = {
            "memory_remember": self.remember,
            "memory_write": self.write,
            "memory_read": self.read,
            "memory_forget": self.forget,
            "memory_health": self.health,
            "memory_context": self.context,
            "memory_topics": self.topics,
            "memory_history": self.history,
            "memory_correct": self.correct,
        }

    async def remember(self, scope: memoryos.Scope, args: RememberArguments) -> dict[str, Any]:
        stored = self.memory.remember(scope, args.text, role=args.role)
        return {"memory_id": stored.memory_id, "version": stored.version, "ref": stored.ref}

    async def write(self, scope: memoryos.Scope, args: WriteArguments) -> dict[str, Any]:
        stored = self.memory.put(
            scope, args.key, args.body, kind=args.kind, confidence=args.confidence, proof=args.proof
        )
        return {"memory_id": stored.memory_id, "version": stored.version}

    async def read(self, scope: memoryos.Scope, args: ReadArguments) -> dict[str, Any]:
        if args.key is not None and args.query is None:
            record = self.memory.get(scope, args.key)
            return {"found": False} if record is None else {"found": True, "record": _record(record)}
        if args.query is not None and args.key is None:
            if not args.query.strip():  # the library's hint ("pass the text to remember") is for writes
                raise memoryos.InvalidInput("query is empty: give the words to look for")
            recall = self.memory.recall(scope, args.query, k=args.k)
            return {"run_id": recall.run_id, "hits": [_hit(hit) for hit in recall.hits]}
        raise memoryos.InvalidInput("give exactly one of key (an exact record) or query (a search)")

    async def forget(self, scope: memoryos.Scope, args: ForgetArguments) -> dict[str, Any]:
        return {"erased_versions": self.memory.forget(scope, args.key_or_id, reason=args.reason)}

    async def health(self, _scope: memoryos.Scope, _: HealthArguments) -> dict[str, Any]:
        return await self.auditor.health(self.health_timeout)

    async def context(self, scope: memoryos.Scope, args: ContextArguments) -> dict[str, Any]:
        if not args.query.strip():
            raise memoryos.InvalidInput("query is empty: give the words the next turn is about")
        block = self.memory.context(scope, args.query, budget_tokens=args.budget_tokens, k=args.k)
        return {"run_id": block.run_id, "text": block.text, "refs": list(block.refs), "tokens": block.tokens}

    async def topics(self, scope: memoryos.Scope, args: TopicsArguments) -> dict[str, Any]:
        return {"topics": [_topic(topic) for topic in self.memory.topics(scope, limit=args.limit)]}

    async def history(self, scope: memoryos.Scope, args: HistoryArguments) -> dict[str, Any]:
        versions = self.memory.history(scope, args.key)
        return {"versions": [_record(r) | {"reason": r.reason} for r in versions]}

    async def correct(self, scope: memoryos.Scope, args: CorrectArguments) -> dict[str, Any]:
        stored = self.memory.correct(scope, args.key_or_id, args.body, reason=args.reason)
        return {"memory_id": stored.memory_id, "version": stored.version, "ref": stored.ref}

    async def call(
        self, name: str, arguments: dict[str, Any] | None, scope: memoryos.Scope | None = None
    ) -> CallToolResult:
        """Run one tool for `scope` (default: the one the server was launched with); every failure
        becomes an error result the model can read, never a traceback."""
        scope = scope or self.scope
        if scope is None:  # an HTTP call that reached here without a verified token: refuse, read nothing
            return _error("no verified bearer token: this server serves no memory without one")
        spec = next((s for s in TOOLS if s.name == name), None)
        if spec is None:
            return _error(f"unknown tool {name!r}: the tools are {', '.join(s.name for s in TOOLS)}")
        try:
            args = spec.arguments.model_validate(arguments or {})
            return _success(await self.handlers[name](scope, args))
        except ValidationError as exc:
            return _error(_arguments_message(name, exc))
        except (memoryos.MemoryOSError, ToolFailure) as exc:
            return _error(str(exc))
        except Exception:
            log.exception("tool %s failed", name)  # the traceback stays in the server's stderr
            return _error(f"{name} failed with an internal error: see the server log")


def _record(record: memoryos.Record) -> dict[str, Any]:
    return {
        "memory_id": record.memory_id,
        "ref": record.ref,
        "key": record.key,
        "body": record.body,
        "kind": record.kind,
        "version": record.version,
        "status": record.status,
        "confidence": record.confidence,
        "proof": record.proof,
        "valid_from": record.valid_from.isoformat(),
        "valid_until": None if record.valid_until is None else record.valid_until.isoformat(),
    }


def _topic(topic: memoryos.Topic) -> dict[str, Any]:
    return {
        "segment_id": topic.segment_id,
        "summary": topic.summary,
        "keywords": list(topic.keywords),
        "pages": topic.pages,
        "heat": topic.heat,
        "stale": topic.stale,
        "degraded": topic.degraded,
    }


def _hit(hit: memoryos.Hit) -> dict[str, Any]:
    return {
        "ref": hit.ref,
        "tier": hit.tier,
        "text": hit.text,
        "score": hit.score,
        "key": hit.key,
        "kind": hit.kind,
    }


def _success(result: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(result, sort_keys=True))], structured_content=result
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _arguments_message(name: str, exc: ValidationError) -> str:
    """Field names and rules only: the rejected values are the caller's data and may be secrets."""
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "extra_forbidden":
            problems.append(_unexpected(name, field))
        else:
            problems.append(f"{field}: {error['msg']}")
    return f"invalid arguments for {name}: " + "; ".join(problems)


def _unexpected(name: str, field: str) -> str:
    """An argument a tool does not declare: a scope-like one is told why it can never be given."""
    if field.lower() in _SCOPE_ARGUMENTS:
        return f"unexpected argument {field!r} ({_SCOPE_FIXED})"
    spec = next(s for s in TOOLS if s.name == name)
    declared = ", ".join(spec.arguments.model_fields)
    return f"unexpected argument {field!r}: {name} takes {declared or 'no arguments'}"


# -- the auditor, held in this process ------------------------------------------------------------
class HeldAudit:
    """memory_health's incremental audit of the store, kept between calls (auditor.incremental):
    a call reads only the receipts committed since the previous one, so it costs what is new, not
    the store's whole history. The auditor stays optional for memoryos (DESIGN §2: memoryos never
    depends on it), so it is found and imported when the tool is first called.

    The audit runs in a worker thread, one at a time (a thread lock, so that a call that timed out
    keeps its progress for the next one). A store whose outbox changed under the held audit (see
    auditor.incremental) is audited afresh."""

    def __init__(self, db: Path | str) -> None:
        self.db = db  # a file, or a postgresql:// URL (its key is in the store: auditor.stores)
        self._audit: Any = None
        self._lock = threading.Lock()

    async def health(self, timeout: float) -> dict[str, Any]:
        try:
            with anyio.fail_after(timeout):
                return await anyio.to_thread.run_sync(self._check, abandon_on_cancel=True)
        except TimeoutError:
            raise ToolFailure(f"memory_health: the auditor took longer than {timeout:g} s") from None

    def _check(self) -> dict[str, Any]:
        if importlib.util.find_spec("auditor") is None:
            raise ToolFailure("memory_health is unavailable: the auditor is not installed with memoryos")
        incremental = importlib.import_module("auditor.incremental")
        refused = importlib.import_module("auditor.state").StateError
        unreadable = importlib.import_module("auditor.sources").AuditInputError
        with self._lock:
            try:
                try:
                    if isinstance(self.db, str):  # PostgreSQL: a full audit (no incremental state yet)
                        report = importlib.import_module("auditor").audit([], stores=[self.db])
                    else:
                        report = self._held(incremental).check()
                except refused:  # the outbox changed below what was read: start again
                    self._audit = None
                    report = self._held(incremental).check()
            except (unreadable, OSError, ValueError):
                self._audit = None
                raise ToolFailure("memory_health: the auditor could not read this store's receipts") from None
        return {"verdict": report.verdict, "counts": dict(report.counts), "receipts": report.receipts}

    def _held(self, incremental: Any) -> Any:
        if self._audit is None:
            key_file = key_path_for(Path(self.db))
            key = read_key_file(key_file) if isinstance(self.db, Path) and key_file.exists() else None
            self._audit = incremental.IncrementalAudit(stores=[self.db], key=key)
        return self._audit


# -- the auditor, as a separate process (memoryos imports nothing of it, DESIGN §2) ---------------
async def run_auditor(db: Path, timeout: float) -> dict[str, Any]:
    """The auditor's JSON report on the store's receipts, or ToolFailure saying why there is none."""
    if importlib.util.find_spec("auditor") is None:
        raise ToolFailure("memory_health is unavailable: the auditor is not installed with memoryos")
    command = [sys.executable, "-m", "auditor", "check", "--db", str(db), "--format", "json"]
    key_file = key_path_for(db)
    if key_file.exists():
        command += ["--key-file", str(key_file)]  # verify the MACs too, not only the chain
    try:
        with anyio.fail_after(timeout):
            done = await anyio.run_process(command, stdin=subprocess.DEVNULL, check=False)
    except TimeoutError:
        raise ToolFailure(f"memory_health: the auditor took longer than {timeout:g} s") from None
    if done.returncode == _AUDITOR_UNREADABLE:
        raise ToolFailure("memory_health: the auditor could not read this store's receipts")
    if done.returncode not in _AUDITOR_REPORTED:
        raise ToolFailure(f"memory_health: the auditor failed (exit code {done.returncode})")
    return _report(done.stdout)


def _report(output: bytes) -> dict[str, Any]:
    try:
        report = json.loads(output)
    except ValueError:
        raise ToolFailure("memory_health: the auditor's report is not JSON") from None
    if not isinstance(report, dict) or not (
        isinstance(report.get("verdict"), str)
        and isinstance(report.get("counts"), dict)
        and isinstance(report.get("receipts"), int)
    ):
        raise ToolFailure("memory_health: the auditor's report lacks verdict, counts or receipts")
    return report


# -- the server -------------------------------------------------------------------------------------
#: Which scope a request acts for: the launch scope over stdio, the token's grant over HTTP.
ScopeOf = Callable[[ServerRequestContext[dict[str, Any]]], "memoryos.Scope | None"]


def build_server(
    tools: MemoryTools, scope_of: ScopeOf | None = None, *, scope_rule: str = _SCOPE_SENTENCE
) -> Server[dict[str, Any]]:
    """The server over `tools`; `scope_of` picks each request's scope (default: the launch scope) and
    `scope_rule` tells the model where the scope comes from."""

    async def list_tools(
        ctx: ServerRequestContext[dict[str, Any]], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=[spec.tool() for spec in TOOLS])

    async def call_tool(
        ctx: ServerRequestContext[dict[str, Any]], params: CallToolRequestParams
    ) -> CallToolResult:
        return await tools.call(params.name, params.arguments, scope(ctx))

    def scope(ctx: ServerRequestContext[dict[str, Any]]) -> memoryos.Scope | None:
        return tools.scope if scope_of is None else scope_of(ctx)

    resources = MemoryResources(tools.memory, scope, _topic, _record)

    return Server(
        "memoryos",
        version=memoryos.__version__,
        instructions=(
            "Long-term memory for this conversation's user and assistant. "
            f"{scope_rule} No tool argument can reach another user's or assistant's memory."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.read,
    )


async def _serve_stdio(server: Server[dict[str, Any]]) -> None:
    async with stdio_transport() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _launch_scope(
    user: str, assistant: str, session: str | None, config: memoryos.Config | None
) -> memoryos.Scope:
    """Check the host's ids at launch, before the store is created, not on every tool call."""
    limit = (config or from_environment()).max_scope_id_chars  # the config memoryos.open() resolves
    validation.identifier(user, "user", limit)
    validation.identifier(assistant, "assistant", limit)
    if session is not None:
        validation.identifier(session, "session", limit)
    return memoryos.Scope(user=user, assistant=assistant, session=session)


def serve(
    db: str,
    user: str,
    assistant: str,
    session: str | None = None,
    *,
    config: memoryos.Config | None = None,
) -> None:
    """Serve the memory of one scope in the store `db` over stdio until the client disconnects.
    `config` is the store's configuration (`--config FILE`); None: defaults and the environment."""
    scope = _launch_scope(user, assistant, session, config)
    with memoryos.open(db, config=config) as memory:
        anyio.run(_serve_stdio, build_server(MemoryTools(memory, scope)))


# -- python -m memoryos.mcp_server ------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memoryos mcp",
        description="Serve one user's memory with one assistant to an MCP client over stdio.",
    )
    parser.add_argument(
        "--db", default=default_db_path(), help="the store file (default: $MEMORYOS_DB, else ./memoryos.db)"
    )
    parser.add_argument("--user", required=True, help="the user whose memory this server serves (fixed)")
    parser.add_argument("--assistant", required=True, help="the assistant whose memory this is (fixed)")
    parser.add_argument(
        "--session", help="the session id recorded with what this server stores (optional, fixed)"
    )
    parser.add_argument("--config", help="a JSON file of memoryos.Config fields for the store")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        serve(args.db, args.user, args.assistant, args.session, config=config_from_file(args.config))
    except memoryos.MemoryOSError as exc:
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        return exit_code(exc)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
