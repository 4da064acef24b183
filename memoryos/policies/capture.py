"""Which activity events from the agent host become drawer candidates: a table of named rules.

The host reports what happened (a command and its exit status, a deploy, a test run, a database
connection, a user's standing instruction). A success that someone would want to repeat becomes a
`Candidate` with a key, a body and a proof: a capability ("deploy:blyck"), a procedure ("how to test
X") or a rule ("never touch the PROD database"). Trivial and failed events yield nothing.

Everything here is pure: `decide()` returns the candidate and the name of the rule that decided, so the
caller can log why (content-free) and write the record. A candidate in which the no-store rule, or
the command-line credential table below, finds anything is dropped, never stored.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any, Literal

from memoryos.policies import commands, commands_obligations, nostore

EVENT_TYPES = frozenset(
    {
        "command",
        "deploy",
        "publish",
        "build",
        "test",
        "auth",
        "db_connect",
        "instruction",
        "file_read",
        "file_write",
        "file_list",
        "search",
        "navigate",
        "other",
    }
)
TRIVIAL_TYPES = frozenset({"file_read", "file_write", "file_list", "search", "navigate", "other"})
MAX_COMMAND = 4096
MAX_TARGET = 256
MAX_TEXT = 4096
MAX_SLUG = 60
MAX_IN_BODY = 500  # a longer command or instruction is a script or an essay, not something to recall
CandidateKind = Literal["capability", "procedure", "rule", "fact"]  # "fact": reflection only


# -- the event ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One thing the host saw happen. `command`: the command line or tool call; `exit_status`: its
    result (0 is success, None unknown); `target`: what it acted on; `text`: a user's instruction;
    `output`: the tail of what the command printed, read only to tell a success from a failure when
    the exit status is unknown (it never enters a candidate)."""

    type: str
    command: str | None = None
    exit_status: int | None = None
    target: str | None = None
    text: str | None = None
    at: datetime | None = None
    output: str | None = None

    def __post_init__(self) -> None:
        # Messages name the field, never its value: an event may carry a credential.
        if not isinstance(self.type, str) or self.type not in EVENT_TYPES:
            raise ValueError(f"event type must be one of {', '.join(sorted(EVENT_TYPES))}")
        limits = (("command", MAX_COMMAND), ("target", MAX_TARGET), ("text", MAX_TEXT), ("output", MAX_TEXT))
        for name, limit in limits:
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or len(value) > limit):
                raise ValueError(f"event {name} must be text of at most {limit} characters, or null")
        status = self.exit_status
        if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
            raise ValueError("event exit_status must be an integer, or null")
        if self.at is not None and (not isinstance(self.at, datetime) or self.at.utcoffset() is None):
            raise ValueError("event at must be a timezone-aware datetime, or null")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Event:
        """An event from JSON-like data (the MCP and CLI edge); ValueError says what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError("an event must be an object with a 'type'")
        allowed = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise ValueError(f"unknown event fields {unknown}: expected some of {', '.join(allowed)}")
        if "type" not in data:
            raise ValueError("an event needs a 'type'")
        values = dict(data)
        if isinstance(values.get("at"), str):
            values["at"] = _parse_time(values["at"])
        return cls(**values)


def _parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError("event at must be an RFC 3339 time, e.g. 2026-01-01T12:00:00Z") from None


@dataclass(frozen=True)
class Candidate:
    kind: CandidateKind
    key: str
    body: str
    proof: str


@dataclass(frozen=True)
class Decision:
    """What `decide` concluded, content-free apart from the candidate: `rule` names the table entry
    that decided; `reason` is a no-store code when a candidate was dropped for holding a secret."""

    candidate: Candidate | None
    rule: str
    reason: str | None = None


# -- helpers the rules share ---------------------------------------------------------------------------


def slug(text: str, limit: int = MAX_SLUG) -> str:
    """Lower-case ASCII words joined by '-', cut at a word boundary; a short hash when nothing is left
    (text in a script without an ASCII transliteration still needs a stable key)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", folded)
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word[:limit]
        if len(candidate) > limit:
            break
        out = candidate
    return out or "h" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _when(event: Event) -> str:
    if event.at is None:
        return ""
    return " at " + event.at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _success_proof(event: Event) -> str:
    result = "output says passed" if event.exit_status is None else f"exit {event.exit_status}"
    return f"{result}{_when(event)}"


_FAILED_OUTPUT = re.compile(
    r"\b(?:[1-9]\d* (?:failed|errors?)|failed|failure|error:|fatal:|exception|traceback|denied|refused|"
    r"not found|timed out|aborted)\b",
    re.IGNORECASE,
)
_PASSED_OUTPUT = re.compile(
    r"\b(?:\d+ passed|all tests passed|tests? passed|ok \(\d+ tests?\)|succeeded|successfully|"
    r"deployed|published|build succeeded|done)\b",
    re.IGNORECASE,
)


def failed_output(output: str | None) -> bool:
    return output is not None and bool(_FAILED_OUTPUT.search(output))


def passed_output(output: str | None) -> bool:
    return output is not None and bool(_PASSED_OUTPUT.search(output)) and not failed_output(output)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _command(event: Event) -> str | None:
    command = _one_line(event.command or "")
    return command if 0 < len(command) <= MAX_IN_BODY else None


def _target(event: Event) -> str | None:
    target = _one_line(event.target or "")
    return target or None


# -- what a command line is (memoryos.policies.commands) ----------------------------------------

COMMAND_SECRETS = commands.SECRET_FLAGS


def is_trivial_command(command: str) -> bool:
    """True when every part of a compound command only looks around (ls, cat, cd, git status, ...)."""
    return commands.is_trivial(command)


def essential(command: str) -> str:
    """The parts of a command that do something: `cd app && make` is about `make`."""
    return commands.essential(command)


def command_kind(command: str) -> str | None:
    return commands.command_kind(command)


# -- what an instruction is ------------------------------------------------------------------------

# Words that follow the Polish "nie" (not) in everyday speech; German "nie" is followed by an object.
POLISH_AFTER_NIE = (
    "wiem|wiemy|wiesz|wie|mam|masz|ma|mamy|jest|jestem|jesteś|są|był|była|było|bylo|będzie|bedzie|mogę|"
    "moge|może|moze|możemy|chcę|chce|chcemy|rozumiem|pamiętam|pamietam|martw|przejmuj|szkodzi|działa|"
    "dziala|trzeba|znam|lubię|lubie|widzę|widze|wiadomo|teraz|dzisiaj|tak|to|ma za co|za bardzo|bardzo"
)
_POLITE = re.compile(r"^(?:please|pls|bitte|por favor|s['’]il (?:te|vous) pla[iî]t)[,!:]?\s+", re.IGNORECASE)
IMPERATIVES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (language, re.compile(pattern, re.IGNORECASE))
    for language, pattern in (
        (
            "en",
            r"^(?:never|always|don['’]?t|do not|must not|mustn['’]t|avoid|make sure|remember to|"
            r"you (?:must|should) (?:never|always|not)|from now on|going forward|from here on|henceforth|"
            r"from this point on|in (?:the )?future|by default|as a rule|"
            r"prefer\s.+\sover\s|stop\s+(?:using|doing|adding|calling|writing|running|putting)|"
            r"(?:in|for|across)\s+(?:this|the|our)\s+"
            r"(?:repo|repository|project|codebase|team|company|org)\b.*\b(?:we|you|always|never)\b)\b",
        ),
        (
            "fr",
            r"^(?:jamais|toujours|évite[rz]?|interdiction de|"
            r"n['’]\w+\s+(?:jamais|pas)|ne\s+(?:\w+\s+)?(?:jamais|pas))\b",
        ),
        # a condition or a heading before the order: "Whenever you bump the version, ...", "Rule: ..."
        ("en", r"^(?:whenever\b[^,]+,|(?:\w+\s+){0,1}rules?\b[^:]{0,40}:)"),
        # Polish "nie" is "not": "Nie wiem" (I don't know), "Nie martw się" (don't worry) are no German
        # "nie" (never); Polish words after it, or a Polish letter, tell the two apart.
        (
            "de",
            rf"^(?:niemals|nie(?!\s+(?:{POLISH_AFTER_NIE})\b)(?!\s+\w*[ąęłśźżćń])|immer|keine?n?|nicht|vermeide)\b",
        ),
        ("es", r"^(?:nunca|siempre|jamás|evita|no\s+(?:toques|uses|borres|hagas|modifiques|ejecutes))\b"),
        # "别担心" (don't worry), "不要客气" (you're welcome): a reassurance, not an order
        # no \b: CJK words are not space-delimited
        ("zh", r"^(?:永远不要|绝不|(?:不要|别)(?!担心|擔心|客气|客氣|着急|急)|总是|始终|务必)"),
    )
)


# Said with an imperative's words, but no standing order: a dismissal, a feeling, a habit, a question,
# or an order meant only for now ("don't worry about the failing test for now").
NOT_STANDING = re.compile(
    r"^(?:never ?mind|don['’]?t worry|no worries|always (?:happy|glad|nice|good|fun|great|a pleasure)|"
    r"never (?:remember|knew|know|thought|heard|seen|understood|mind))\b"
    # a complaint about what keeps happening, not an order: "we always seem to hit the rate limit"
    r"|\b(?:always|never)\s+(?:seems?|seemed|end(?:s|ed)? up|happens?|manages?|gets?\s+(?:stuck|hit))\b"
    # care for the person, not for the work: "Make sure you eat lunch, lol", "remember to sleep"
    r"|^(?:make sure|remember|don['’]?t forget)\s+(?:you\s+|to\s+)*(?:eat|sleep|drink|rest|hydrate|"
    r"take a (?:break|nap|walk)|get some (?:sleep|rest|food|air))\b"
    # what keeps happening said from the word "always"/"never" on, without a subject: the word after it
    # is no order's verb ("Always forgetting the flags", "Never works first try", "Always a pain"), in
    # English, Spanish ("Siempre olvido", "Nunca funciona"), French ("Toujours pas", "Jamais ça") and
    # German ("Immer vergesse ich", "Nie klappt das")
    r"|^(?:always|never)\s+(?:(?!(?:string|spring|swing|sling|cling|fling|wring|sting)\b)\w{3,}ing|"
    r"works|fails|breaks|crashes|hangs|happens|loads|builds|compiles|finishes|starts|gets|takes|"
    r"responds|answers|remembers|forgets|stops|times out|so|such|"
    # "Always a pain" is a complaint, "Always a second reviewer on infra PRs" an order: an article only
    # with the words of a complaint after it
    r"(?:a|an|the)\s+(?:pain|mess|nightmare|hassle|struggle|problem|disaster|drama|same))\b"
    r"|^siempre\s+(?:se\s+me|me|\w+o|falla|funciona|pasa|sale|tarda|peta|explota|se rompe|se cuelga)\b"
    r"|^nunca\s+(?:me|se|\w+[aeo])\b(?!\s+\w+(?:es|as)\b)"
    r"|^(?:toujours|jamais)\s+(?:pas|ça|ca|rien|aussi|le même|la même|les mêmes)\b"
    r"|^(?:immer|nie|niemals)\s+(?:\w+\s+(?:ich|wir)\b|(?:klappt|funktioniert|geht|passiert|hängt|crasht|"
    r"dasselbe|das gleiche|der gleiche|die gleiche)\b)"
    r"|\b(?:for now|just this once|this (?:one )?time|right now|for today|today only|for the moment)\b"
    # scoped to one piece of work: "Don't bother with the snapshot tests for this PR"
    r"|\b(?:for|in|on)\s+this\s+(?:pr|pull request|mr|merge request|branch|commit|change|changeset|"
    r"ticket|issue|task|hotfix|patch|release|run|build|deploy(?:ment)?)\b"
    r"|\?\s*$",
    re.IGNORECASE,
)
# Said anywhere in the sentence, these make an order a standing one: "use X from here on".
STANDING = re.compile(r"\b(?:from now on|from here on|going forward|henceforth|every time|each time)\b", re.I)


def imperative(text: str) -> str | None:
    """The standing instruction in `text` without a leading 'please', or None if it is not one."""
    line = _one_line(text)
    instruction = _POLITE.sub("", line)
    polite = instruction != line
    # a question is no order, unless it asks for one from now on ("Going forward, could you ...?")
    vetoed = NOT_STANDING.search(instruction) and not commands_obligations.standing_request(instruction)
    if not instruction or len(instruction) > MAX_IN_BODY or vetoed:
        return None
    if STANDING.search(instruction) or commands_obligations.obligation(instruction):
        return instruction
    if polite and commands_obligations.polite_standing(instruction):
        return instruction
    for _, pattern in IMPERATIVES:
        lead = pattern.search(instruction)
        # "Never." alone says nothing: an instruction needs something after its imperative.
        if lead and re.search(r"\w", instruction[lead.end() :]):
            return instruction
    return None


# -- the rules ---------------------------------------------------------------------------------------


def _nothing(event: Event) -> Candidate | None:
    return None


def _subject(event: Event, command: str | None) -> tuple[str, str] | None:
    """(key source, words for the body): the target if known, else what the command does."""
    target = _target(event) or commands.subject(command or "", event.type)
    if target is not None:
        return target, f" {target}"
    doing = essential(command or "")
    return (doing, "") if doing else None


def _shipped(event: Event) -> Candidate | None:
    """deploy/publish: a capability, keyed by what was shipped."""
    command = _command(event)
    subject = _subject(event, command)
    if subject is None:
        return None
    # `rsync ... && ssh robot@host sudo systemctl restart x`: a login name at a host, spelt `-l robot host`
    how = f" with `{commands.host_login_form(command)}`" if command else ""
    body = f"{event.type}{subject[1]}{how}"
    return Candidate("capability", f"{event.type}:{slug(subject[0])}", body, _success_proof(event))


def _procedure(event: Event) -> Candidate | None:
    """build/test: a procedure, only when we know the command that worked."""
    command = _command(event)
    subject = _subject(event, command)
    if command is None or subject is None:
        return None
    body = f"how to {event.type}{subject[1]}: run `{commands.project_path_form(command)}`"
    return Candidate("procedure", f"{event.type}:{slug(subject[0])}", body, _success_proof(event))


def _connection(event: Event) -> Candidate | None:
    """auth/db_connect: a capability to reach a target, never how to authenticate to it."""
    command = _command(event)
    subject = _subject(event, command)
    if subject is None:
        return None
    command = None if command is None else commands.ssh_login_form(command)
    how = f" with `{command}`" if command else (" (database)" if event.type == "db_connect" else "")
    body = (f"connect to{subject[1]}" if subject[1] else "connect") + how
    return Candidate("capability", f"connect:{slug(subject[0])}", body, _success_proof(event))


def _instruction(event: Event) -> Candidate | None:
    instruction = imperative(event.text or event.command or "")
    if instruction is None:
        return None
    return Candidate("rule", f"rule:{slug(instruction)}", instruction, f"user instruction{_when(event)}")


def _from_command(event: Event) -> Candidate | None:
    """A bare command: judged as the kind of action its command line shows, if any."""
    kind = command_kind(event.command or "")
    if kind is None:
        return None
    return BUILDERS[kind](replace(event, type=kind))


BUILDERS: dict[str, Callable[[Event], Candidate | None]] = {
    "deploy": _shipped,
    "publish": _shipped,
    "build": _procedure,
    "test": _procedure,
    "auth": _connection,
    "db_connect": _connection,
}


@dataclass(frozen=True)
class Rule:
    name: str
    applies: Callable[[Event], bool]
    build: Callable[[Event], Candidate | None]


# Evaluated in order; the first rule that applies decides.
RULES: tuple[Rule, ...] = (
    Rule("trivial_type", lambda e: e.type in TRIVIAL_TYPES, _nothing),
    Rule("instruction", lambda e: e.type == "instruction", _instruction),
    Rule("trivial_command", lambda e: is_trivial_command(e.command or ""), _nothing),
    Rule("failed", lambda e: e.exit_status is not None and e.exit_status != 0, _nothing),
    Rule("failed_output", lambda e: e.exit_status is None and failed_output(e.output), _nothing),
    # only a known success is evidence: an exit status of 0, or output that says it passed
    Rule("unconfirmed", lambda e: e.exit_status is None and not passed_output(e.output), _nothing),
    Rule("shipped", lambda e: e.type in ("deploy", "publish"), _shipped),
    Rule("procedure", lambda e: e.type in ("build", "test"), _procedure),
    Rule("connection", lambda e: e.type in ("auth", "db_connect"), _connection),
    Rule("command", lambda e: e.type == "command", _from_command),
)


def secret_in(candidate: Candidate) -> str | None:
    """The reason code of the first secret or personal datum in any field, or None."""
    for text in (candidate.key, candidate.body, candidate.proof):
        found = nostore.scan(text)
        if found:
            return found[0].reason
        reason = commands.secret_reason(text)
        if reason:
            return reason
    return None


def decide(event: Event) -> Decision:
    for rule in RULES:
        if rule.applies(event):
            candidate = rule.build(event)
            reason = None if candidate is None else secret_in(candidate)
            return Decision(None if reason else candidate, rule.name, reason)
    return Decision(None, "unmatched")


def classify(event: Event) -> Candidate | None:
    """The drawer candidate this event is evidence of, or None (trivial, failed, or a secret in it)."""
    return decide(event).candidate


__all__ = [
    "COMMAND_SECRETS",
    "EVENT_TYPES",
    "IMPERATIVES",
    "RULES",
    "Candidate",
    "Decision",
    "Event",
    "Rule",
    "classify",
    "command_kind",
    "decide",
    "imperative",
    "is_trivial_command",
    "slug",
]
