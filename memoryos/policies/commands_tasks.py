"""Task runners and scripts: the kind of action a task or script is named for (`make deploy`,
`npm run build`, `./gradlew assembleRelease`, `./run-tests.ps1`), and a tool's generic `test` or
`build` subcommand.
"""

from __future__ import annotations

import re

from memoryos.policies import commands_targets as targets
from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_targets import Simple

#: Programs whose first word names a task (a make target, an npm script, a gradle task, ...).
TASK_RUNNERS = frozenset(
    "make gmake nmake just task invoke rake mage fab ant gradle gradlew npm yarn pnpm bun hatch composer "
    "poetry pdm uv rye pipenv pixi turbo nx lerna rush grunt gulp psake envoy sbt lein".split()
)
_RUNNER_SUBCOMMANDS = frozenset({"run", "run-script", "run-many", "exec", "x"})
_TASK_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("test", re.compile(r"^(?:tests?|check|unit|e2e|integration|spec|specs|cov|coverage)$")),
    ("deploy", re.compile(r"^(?:deploy\w*|ship|rollout|flash\w*)$")),
    ("publish", re.compile(r"^(?:publish\w*|release\w*|upload)$")),
    (
        "build",
        re.compile(
            r"^(?:build\w*|(?:pre)?compile\w*|assembl\w*|dist|bundle|package|install|all|sdist|bdist\w*|"
            r"jar|war|ear|uberjar|html)$"
        ),
    ),
)
_PACKAGE_COMMANDS = frozenset(
    "install i ci add remove rm update up upgrade publish pack link unlink init exec dlx create audit "
    "outdated why list ls config store info view login logout whoami x npm workspace workspaces".split()
)


def task_kind(name: str) -> str | None:
    """The kind of action a task or script is named for: `run-tests`, `test:cov`, `deploy-prod`,
    `assembleRelease` (the first word of a camel-case name counts), `publishToSonatype`; a task
    that only installs locally (`publishToMavenLocal`) is none."""
    words = re.split(r"[-_:.=/+\s]+|(?<=[a-z])(?=[A-Z])", name)
    lowered = [w.lower() for w in words if w]
    if "local" in lowered or {"info", "status", "list", "log", "logs", "show"} & set(lowered):
        return None  # `make flash-info`, `npm run deploy:status`: a look at the action
    for word in lowered[:2]:
        for kind, pattern in _TASK_WORDS:
            if pattern.match(word):
                return kind
    return None


def task_of(part: Simple) -> str | None:
    """The task a task runner runs (`make deploy`, `npm run build`, `./gradlew assembleRelease`,
    `nx run web:build`), or a script's own name (`./run-tests.ps1`) or first word (`./ci.sh test`,
    `python manage.py test`); None for anything else."""
    if part.program in vocab.PS_TASK_RUNNERS:
        return task_kind(part.words[0]) if part.words else "build"
    if part.program not in TASK_RUNNERS:
        return _named_task(part)
    words = _task_words(part)
    if words is None:
        return None
    if not words:
        return "build" if part.program in ("make", "gmake", "nmake") else None
    target = words[0].split(":")[-1] if part.program in ("nx", "turbo") else words[0]
    if part.program in _JS_RUNNERS and target in _MIX_BUILDS:
        return "build"
    return task_kind("test" if (part.program, target) == ("npm", "t") else target)  # `npm t`


#: Laravel Mix's package.json names its production build `production` (`prod`): `npm run production`
#: compiles the assets (a deploy script is named `deploy:production`, read by its first word).
_MIX_BUILDS = frozenset({"production", "prod"})
_JS_RUNNERS = frozenset({"npm", "yarn", "pnpm", "bun"})


def _named_task(part: Simple) -> str | None:
    """What a script (`./deploy.sh`, `./ci.sh test`) or a compose service (`docker compose run
    tests`) is named for."""
    if part.program in vocab.CONTAINER_TOOLS:
        service = targets.compose_service(part)
        return task_kind(service) if service else None
    if not part.script:
        return None
    return task_kind(part.program) or (task_kind(part.words[0]) if part.words else None)


def _task_words(part: Simple) -> tuple[str, ...] | None:
    """The words naming a task runner's task, or None when the runner was given its own subcommand
    (`npm install`, `yarn add`, `uv sync`), not a task of the project."""
    words = part.words
    if words[:1] and words[0] in _RUNNER_SUBCOMMANDS and part.program != "make":
        return words[1:]
    if part.program == "npm" and words[:1] not in (("test",), ("t",)):
        return None
    own = not words or words[0] in _PACKAGE_COMMANDS or words[0] in ("sync", "lock", "shell", "env")
    if part.program in ("yarn", "pnpm", "bun", "uv", "poetry", "pdm", "rye", "pipenv") and own:
        return None
    return words


def generic_sub(part: Simple, allowed: frozenset[str]) -> bool:
    """`<tool> test`, `<tool> build`: the tool's first word (or its second, after `build`/`run`/
    `make`: `zig build test`, `cargo make test`) is one of `allowed`."""
    words = [w.lower() for w in part.words[:2]]
    if not words or part.program in NOT_GENERIC:
        return False
    return words[0] in allowed or (len(words) > 1 and words[0] in _LEADS and words[1] in allowed)


_LEADS = frozenset({"build", "run", "make", "xtask", "exec", "x", "nextest", "artisan"})
#: Tools whose `test` or `build` word means something else (git's, the shell's `test`).
NOT_GENERIC = frozenset({"git", "gh", "aws", "gcloud", "az", "kubectl", "test", "hg", "svn"})
