"""Commands that teach nothing: programs and subcommands that only look around (`ls`, `git
status`, `kubectl get`), a tool asked for its help or version, and rehearsals (`--dry-run`,
`-WhatIf`, `make -n`) that show what would happen without doing it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryos.policies import commands_ecosystems as ecosystems
from memoryos.policies import commands_ops as ops
from memoryos.policies import commands_platforms as platforms
from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_targets import Simple
from memoryos.policies.commands_tasks import TASK_RUNNERS, task_kind

# Programs that only look around: a command made only of these teaches nothing.
READ_PROGRAMS = frozenset(
    "ls ll la dir cat bat cd pushd popd pwd echo printf head tail less more grep egrep fgrep rg ag find fd "
    "which whereis type clear history man whoami id date tree wc stat file du df env printenv true false "
    "exit open code vi vim nvim nano emacs ps top htop uptime free uname hostname jq yq sort uniq cut awk "
    "sed diff cmp locate tldr help alias source export set unset sleep watch lsof netstat ss ping dig "
    "nslookup host traceroute touch mkdir cp mv rm ln chmod chown tar unzip zip gzip gunzip xargs tee "
    "realpath basename dirname column nl od xxd hexdump strings md5sum sha256sum shasum test [ "
    "lsb_release".split()
)
# Subcommands that only read, for programs that can also act.
READ_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset(
        "status log diff show branch blame fetch remote config stash tag describe reflog shortlog "
        "ls-files rev-parse grep help version".split()
    ),
    "kubectl": frozenset("get describe logs top explain version api-resources cluster-info diff".split()),
    "kustomize": frozenset("build cfg version".split()),  # renders; `| kubectl apply -f -` deploys
    "helm": frozenset("list ls status history get show search template lint version repo".split()),
    "docker": frozenset("ps images logs inspect version info stats top history search events".split()),
    "podman": frozenset("ps images logs inspect version info".split()),
    "terraform": frozenset("plan show output validate fmt version state providers graph init".split()),
    "tofu": frozenset("plan show output validate fmt version state init".split()),
    "npm": frozenset("ls list view info outdated audit search help version config doctor".split()),
    "pip": frozenset("list show freeze search check help".split()),
    "gh": frozenset("pr issue repo run browse status search help".split()),
    "aws": frozenset({"help"}),
    "gcloud": frozenset({"help", "info", "version"}),
}


#: Two-word subcommands that only read, for CLIs whose first word alone does not say so.
READ_PAIRS = frozenset(
    {
        ("aws", "sts get-caller-identity"),
        ("aws", "s3 ls"),
        ("gh", "auth status"),
        ("kubectl", "config get-contexts"),
        ("kubectl", "config current-context"),
        ("kubectl", "config view"),
        ("gcloud", "config list"),
        ("gcloud", "auth list"),
        ("az", "account show"),
        ("docker", "compose ps"),
        ("docker", "compose logs"),
    }
)


def _help_or_version(part: Simple) -> bool:
    """`--help`, `--version`, `-V` alone (`sqlplus -V`, `psql -V`): the tool says what it is."""
    if part.args in (("-V",), ("-v",), ("-version",), ("/?",)):
        return True
    return any(_asks_help(part.args, i) for i in range(len(part.args))) or part.sub() in ("help",)


def _asks_help(args: Sequence[str], index: int) -> bool:
    """`--help`, `-?`, or a `--version` that takes no value: `helm upgrade api ./chart --version
    1.4.2` pins a chart's version, it does not ask the tool for its own."""
    arg = args[index]
    if arg == "--version":
        return index + 1 == len(args) or args[index + 1].startswith("-")
    return arg in ("--help", "-?", "/?")


def _listed_read(part: Simple) -> bool:
    """A read by the tables: a read program or pair, a help or version request, a PowerShell read,
    or upkeep (`drush cache:rebuild`, `wp cache flush`: no action to repeat)."""
    pair = (part.program, " ".join(part.words[:2]).lower())
    if part.program in READ_PROGRAMS or pair in READ_PAIRS or part.program in vocab.PS_READ_CMDLETS:
        return True
    return _help_or_version(part) or ops.xcode_read(part) or platforms.routine_upkeep(part)


def is_read(part: Simple) -> bool:
    if (part.script and task_kind(part.program)) or platforms.tested_validation(part):
        # `.\test.bat`, `./test.sh`: the project's script, not the shell's `test`;
        # `sf project deploy validate --test-level RunLocalTests` runs the org's tests
        return False
    if _listed_read(part):
        return True
    cmdlet = vocab.verb_noun(part.program)
    if cmdlet is not None and cmdlet[0] in vocab.PS_READ_VERBS and part.program not in vocab.PS_CMDLETS:
        return True
    reads = READ_SUBCOMMANDS.get(part.program)
    if reads is not None and (part.sub() in reads or not part.words):
        return True
    # `<tool> deploy status`, `<tool> releases list`: a read verb in any tool's subcommand path
    return part.program not in TASK_RUNNERS and not part.script and ecosystems.path_read(part)


_DRY_RUN = re.compile(
    r"^(?:--dry-?run(?:=\S*)?|-whatif(?::\$?true)?|--what-if|--noop|--check|--plan|--collect-only|--co|"
    r"--?preview|--simulate|--no-act|--pretend|-stub-run|-stub|--syntax-check|--list-(?:hosts|tasks|tags)|"
    r"--list-tests|--listtests)$",
    re.I,
)


def is_rehearsal(part: Simple) -> bool:
    """A dry run (`npm publish --dry-run`, `kubectl apply --dry-run=client`, `Publish-Module -WhatIf`,
    `ansible-playbook --check`, `make -n`, `az deployment group what-if`) shows what would happen:
    it is no evidence that the action works."""
    if any(_DRY_RUN.match(a) for a in part.args) or "what-if" in part.words[:4]:
        return True
    if ops.rehearsal(part):  # Salt's `test=True`, Chef's `--why-run`
        return True
    return part.program == "make" and any(a in ("-n", "--just-print", "--recon") for a in part.args)
