"""What a raw command line is: its simple commands, what kind of action each is, what it acts on,
and whether it carries a credential. Pure functions over tables of programs.

An activity log holds commands, not classified events: `aws s3 cp dist/ s3://blyck-releases
--recursive` is a deploy, `kubectl logs deploy/api` is a read, `git commit -m "fix deploy"` is neither.
So a command is split into its simple commands (`&&`, `||`, `;`, `|`), each into shell words
(quoted text is one word, never a keyword), and judged by its program and subcommand, never by
a word found anywhere in the line.
"""

from __future__ import annotations

from memoryos.policies.commands_forms import (
    host_login_form,
    project_path_form,
    ssh_login_form,
    subject,
    without_identity,
)
from memoryos.policies.commands_kinds import kind_of
from memoryos.policies.commands_parse import parts, program_of, split_simple
from memoryos.policies.commands_reads import is_read, is_rehearsal
from memoryos.policies.commands_secrets import SECRET_FLAGS, secret_reason
from memoryos.policies.commands_targets import VALUED_FLAGS, Simple
from memoryos.policies.commands_tasks import task_kind


def command_kind(command: str) -> str | None:
    """The kind of the most telling simple command: a deploy after a build is a deploy."""
    found = [k for k in (kind_of(p) for p in parts(command)) if k is not None]
    order = ("deploy", "publish", "test", "build", "db_connect", "auth")
    return min(found, key=order.index) if found else None


def is_trivial(command: str) -> bool:
    found = parts(command)
    return bool(found) and all(is_read(p) for p in found)


def essential(command: str) -> str:
    """The simple commands that do something, as written (`cd app && make` is about `make`), without
    the identity a login names (see `without_identity`)."""
    return without_identity(" && ".join(p.text for p in parts(command) if not is_read(p)))


__all__ = [
    "SECRET_FLAGS",
    "VALUED_FLAGS",
    "Simple",
    "command_kind",
    "essential",
    "host_login_form",
    "is_read",
    "is_rehearsal",
    "is_trivial",
    "kind_of",
    "parts",
    "program_of",
    "project_path_form",
    "secret_reason",
    "split_simple",
    "ssh_login_form",
    "subject",
    "task_kind",
    "without_identity",
]
