"""What a raw command line is: its simple commands, what kind of action each is, what it acts on,
and whether it carries a credential. Pure functions over tables of programs.

An activity log holds commands, not classified events: `aws s3 cp dist/ s3://blyck-releases
--recursive` is a deploy, `kubectl logs deploy/api` is a read, `git commit -m "fix deploy"` is neither.
So a command is split into its simple commands (`&&`, `||`, `;`, `|`), each into shell words
(quoted text is one word, never a keyword), and judged by its program and subcommand, never by
a word found anywhere in the line.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence

from memoryos.policies import commands_ecosystems as ecosystems
from memoryos.policies import commands_fields as fields
from memoryos.policies import commands_ops as ops
from memoryos.policies import commands_shell as shell
from memoryos.policies import commands_targets as targets
from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_secrets import SECRET_FLAGS, secret_reason
from memoryos.policies.commands_targets import VALUED_FLAGS, Simple

# `&` alone separates commands in cmd (`cd app & msbuild`) and backgrounds one in POSIX shells;
# in `2>&1`, `&>` and `>&` it is part of a redirection.
_SPLIT = re.compile(r"&&|\|\||[;|]|(?<![>&])&(?![>&])")
_EXTENSION = re.compile(r"\.(?:exe|cmd|bat|com|ps1|sh|py)$", re.IGNORECASE)

# Programs that only look around: a command made only of these teaches nothing.
READ_PROGRAMS = frozenset(
    "ls ll la dir cat bat cd pushd popd pwd echo printf head tail less more grep egrep fgrep rg ag find fd "
    "which whereis type clear history man whoami id date tree wc stat file du df env printenv true false "
    "exit open code vi vim nvim nano emacs ps top htop uptime free uname hostname jq yq sort uniq cut awk "
    "sed diff cmp locate tldr help alias source export set unset sleep watch lsof netstat ss ping dig "
    "nslookup host traceroute touch mkdir cp mv rm ln chmod chown tar unzip zip gzip gunzip xargs tee "
    "realpath basename dirname column nl od xxd hexdump strings md5sum sha256sum shasum test [".split()
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


_REDIRECT = re.compile(r"^\d*(?:>>?|<)(?:&\d+)?$|^\d*(?:>>?|<)&?\S+$|^&>\S*$")


def _words(part: str) -> list[str]:
    """Shell words without redirections (`2>&1`, `> out.log`): they say where output goes."""
    try:
        words = shlex.split(part, comments=False, posix=True)
    except ValueError:  # an unbalanced quote: a half-typed command is still words
        words = part.split()
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif _REDIRECT.match(word):
            skip = word.strip("0123456789&") in (">", ">>", "<") and not word.endswith(("&1", "&2"))
        else:
            kept.append(word)
    return kept


def program_of(word: str) -> tuple[str, bool]:
    """The program's name and whether it is a script: `./scripts/deploy.sh` is (deploy, True),
    `.\\build.ps1` (build, True), `npm.cmd` (npm, False), `"C:\\...\\MSBuild.exe"` (msbuild, False)."""
    name = re.split(r"[/\\]", word)[-1]
    executable = bool(re.search(r"\.(?:exe|com)$", name, re.IGNORECASE))
    script = (name != word and not executable) or bool(re.search(r"\.(?:sh|ps1|py|bat)$", name, re.I))
    program = _EXTENSION.sub("", name).lower()
    return _ALIASES.get(program, program), script


#: Wrapper scripts that are the tool they wrap: `./mvnw package` is Maven's.
_ALIASES = {"mvnw": "mvn", "sbtx": "sbt", "python3": "python", "py": "python"}


def split_simple(command: str) -> list[str]:
    """The simple commands of a line, split at `&&`, `||`, `;`, `|` and `&` outside quotes and
    outside a command substitution `$( ... )`."""
    pieces, start, quote, index, nested = [], 0, "", 0, 0
    while index < len(command):
        char = command[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif command.startswith("$(", index) or (char == ")" and nested):
            nested += 1 if char == "$" else -1
        elif nested:
            pass
        elif (match := _SPLIT.match(command, index)) is not None:
            pieces.append(command[start:index])
            start = index = match.end()
            continue
        index += 1
    pieces.append(command[start:])
    return [p for p in pieces if p.strip()]


def _script_block(part: str, words: Sequence[str]) -> str | None:
    """What PowerShell's ForEach-Object (`%`) runs for each item: the text of its `{ ... }` block."""
    if not words or program_of(words[0])[0] not in ("foreach-object", "%", "foreach"):
        return None
    start, end = part.find("{"), part.rfind("}")
    return part[start + 1 : end] if 0 <= start < end else None


# `eval $(op signin)`, `export BW_SESSION="$(bw unlock --raw)"`, `$(aws ecr get-login)`: the
# substitution's command is what ran; the shell only evaluates or keeps what it printed.
_SUBSTITUTION = re.compile(
    r"^\s*(?:eval\s+|(?:source|\.)\s+(?=<)|(?:export\s+)?[A-Za-z_]\w*=)?([\"']?)"
    r"(?:[$<]\((?P<inner>.+)\)|`(?P<tick>[^`]+)`)\1\s*$"
)


def _subshell(part: str) -> str:
    """A piece of `(cd app && make test)` without the subshell's parentheses (or a `{ ...; }`
    group's braces) that the split left on it: `(cd app` is `cd app`, `make test)` is `make test`."""
    text = part.strip()
    text = re.sub(r"^(?:\(\s*|\{\s+)+", "", text) if not text.startswith("$(") else text
    for opening, closing in ("()", "{}"):  # only a closing mark the piece does not open itself
        while text.endswith(closing) and text.count(closing) > text.count(opening):
            text = text[:-1].rstrip()
    return text


def parts(command: str, depth: int = 0) -> list[Simple]:
    """The simple commands of a line, each with its wrappers taken off and what a shell or an
    interpreter is given to run read in its place (`bash -lc '...'`, `cmd /c`, `pwsh -File x.ps1`,
    `eval $(...)`)."""
    found: list[Simple] = []
    for piece in split_simple(command):
        part = _subshell(piece)
        substituted = _SUBSTITUTION.match(part) if depth < 4 else None
        if substituted is not None:
            found.extend(parts(substituted["inner"] or substituted["tick"], depth + 1))
            continue
        words = shell.unwrap(_words(shell.windows_paths(part.strip())))
        payload = shell.shell_payload(words) if depth < 4 else None
        if isinstance(payload, str):
            found.extend(parts(payload, depth + 1))
            continue
        words = payload or words
        block = _script_block(part, words)
        if block is not None and depth < 4:  # `... | ForEach-Object { dotnet nuget push $_ }`
            found.extend(parts(block, depth + 1))
        elif len(words) == 1 and " " in words[0] and depth < 4:  # `nix-shell --run "make test"`
            found.extend(parts(words[0], depth + 1))
        elif words:
            program, script = program_of(words[0])
            found.append(Simple(program, tuple(words[1:]), script or payload is not None, words[0]))
    return found


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


def is_read(part: Simple) -> bool:
    if part.script and task_kind(part.program):
        return False  # `.\test.bat`, `./test.sh`: the project's script, not the shell's `test`
    if part.program in READ_PROGRAMS or (part.program, " ".join(part.words[:2]).lower()) in READ_PAIRS:
        return True
    if _help_or_version(part) or part.program in vocab.PS_READ_CMDLETS or ops.xcode_read(part):
        return True
    cmdlet = vocab.verb_noun(part.program)
    if cmdlet is not None and cmdlet[0] in vocab.PS_READ_VERBS and part.program not in vocab.PS_CMDLETS:
        return True
    reads = READ_SUBCOMMANDS.get(part.program)
    if reads is not None and (part.sub() in reads or not part.words):
        return True
    # `<tool> deploy status`, `<tool> releases list`: a read verb in any tool's subcommand path
    return part.program not in _TASK_RUNNERS and not part.script and ecosystems.path_read(part)


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


# -- kinds of action ----------------------------------------------------------------------------

_TEST_TOOLS = frozenset(
    "cargo go dotnet mix swift flutter dart zig mvn sbt lein stack cabal bazel deno bun elixir npm yarn "
    "pnpm".split()
)
_BUILD_TOOLS = frozenset(
    "cargo go dotnet docker podman bazel swift zig stack cabal buildah nix hugo mkdocs jekyll vite next "
    "nuxt astro flutter dart poetry uv hatch pdm flit".split()
)
#: Programs whose first word names a task (a make target, an npm script, a gradle task, ...).
_TASK_RUNNERS = frozenset(
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


def _task(part: Simple) -> str | None:
    """The task a task runner runs (`make deploy`, `npm run build`, `./gradlew assembleRelease`,
    `nx run web:build`), or a script's own name (`./run-tests.ps1`) or first word (`./ci.sh test`,
    `python manage.py test`); None for anything else."""
    if part.program in vocab.PS_TASK_RUNNERS:
        return task_kind(part.words[0]) if part.words else "build"
    if part.program not in _TASK_RUNNERS:
        return _named_task(part)
    words = _task_words(part)
    if words is None:
        return None
    if not words:
        return "build" if part.program in ("make", "gmake", "nmake") else None
    target = words[0].split(":")[-1] if part.program in ("nx", "turbo") else words[0]
    return task_kind("test" if (part.program, target) == ("npm", "t") else target)  # `npm t`


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


def _generic_sub(part: Simple, allowed: frozenset[str]) -> bool:
    """`<tool> test`, `<tool> build`: the tool's first word (or its second, after `build`/`run`/
    `make`: `zig build test`, `cargo make test`) is one of `allowed`."""
    words = [w.lower() for w in part.words[:2]]
    if not words or part.program in _NOT_GENERIC:
        return False
    return words[0] in allowed or (len(words) > 1 and words[0] in _LEADS and words[1] in allowed)


_LEADS = frozenset({"build", "run", "make", "xtask", "exec", "x", "nextest", "artisan"})
#: Tools whose `test` or `build` word means something else (git's, the shell's `test`).
_NOT_GENERIC = frozenset({"git", "gh", "aws", "gcloud", "az", "kubectl", "test", "hg", "svn"})


def _is_test(part: Simple) -> bool:
    program, args = part.program, part.args
    checks = (
        program in vocab.TEST_PROGRAMS or _task(part) == "test" or vocab.PS_CMDLETS.get(program) == "test",
        # `pytest-3`, `ansible-test units`, `test-kitchen`: a runner named for its tests
        bool(re.fullmatch(r"pytest[\d.]*(?:-[\d.]+)?|(?:\w+-)+tests?|tests?(?:-\w+)+", program)),
        program.startswith("python") and args[:1] == ("-m",) and args[1:2] in _PY_TEST_MODULES,
        program in ("yarn", "pnpm", "bun") and part.sub() in vocab.TEST_PROGRAMS,
        program == "node" and "--test" in args,
        program == "r" and part.words[:2] == ("CMD", "check"),
        # `Rscript -e 'devtools::test()'`, `julia -e 'Pkg.test()'`
        program in ("rscript", "julia", "r") and bool(re.search(r"\btest(?:_\w+)?\(", " ".join(args))),
        any(re.match(r"^-[XMA]:(?:\w+:)?test\w*$", a) for a in args),  # `clojure -X:test`, `clj -M:test`
        _generic_sub(part, vocab.TEST_SUBCOMMANDS),
        program == "xcodebuild" and bool({"test", "test-without-building"} & set(part.words)),
    )
    return any(checks)


_PY_TEST_MODULES = frozenset((m,) for m in ("pytest", "unittest", "tox", "nox", "doctest", "nose2", "green"))


def _publish_words(part: Simple) -> bool:
    """`yarn npm publish`, `pnpm -r publish`, `yarn workspace ui npm publish`, `mix hex.publish`,
    `pod trunk push`, `dotnet nuget push`: a publisher with a publish word among its first words."""
    if part.program not in vocab.PUBLISHERS:
        return False
    tokens = [t for w in part.words[:4] for t in re.split(r"[.:]", w.lower().lstrip("+"))]
    if part.program in ("docker", "podman", "nerdctl", "buildah") and tokens[:1] == ["compose"]:
        return "push" in tokens[:2]
    if part.program in ("dotnet", "uv", "cargo", "swift") and "push" in tokens[:1]:
        return False
    return any(t in vocab.PUBLISH_WORDS for t in tokens)


def _is_publish(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if program == "dotnet" and sub == "publish":
        return False  # `dotnet publish` writes a deployable folder: a build (or a deploy, below)
    if _task(part) == "publish" and program not in vocab.PLATFORMS:
        return True
    cmdlet = vocab.verb_noun(program)
    if cmdlet is not None and vocab.PS_VERBS.get(cmdlet[0]) == "publish":
        return True
    if program in ("npm", "yarn", "pnpm", "bun", "pip", "poetry", "uv") and sub in vocab.NOT_LOGIN_LEADS:
        return False  # `npm install publish-helper`: a package's name
    checks = (
        program == "twine" and sub == "upload",
        program in ("docker", "podman") and "--push" in part.args,  # buildx build --push
        program in ("gh", "glab") and words[:2] == ("release", "create"),
        program == "mvn" and "deploy" in words,
        program == "goreleaser",
        program == "nuget" and sub == "push",
        sub == "publish" and program not in vocab.PLATFORMS and program != "func",
        _publish_words(part),
    )
    return any(checks)


def _ps_deploy(part: Simple) -> bool:
    cmdlet = vocab.verb_noun(part.program)
    if cmdlet is None:
        return False
    verb, noun = cmdlet
    return (
        vocab.PS_CMDLETS.get(part.program) == "deploy"
        or vocab.PS_VERBS.get(verb) == "deploy"
        or (verb in ("new", "start") and noun.endswith("deployment"))
    )


def _is_deploy(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if _task(part) == "deploy" or (program in vocab.PLATFORMS and targets.platform_deploy(words)):
        return True
    checks: tuple[Callable[[], bool], ...] = (
        lambda: (
            program in vocab.ORCHESTRATORS
            and sub in vocab.ORCHESTRATOR_DEPLOYS
            and not (sub == "rollout" and part.sub(1) in ("status", "history"))
            and not (sub == "create" and part.sub(1) in ("token", "namespace"))
        ),
        lambda: program == "helm" and sub in ("install", "upgrade", "rollback"),
        lambda: program in ("terraform", "tofu") and sub in ("apply", "destroy"),
        lambda: program == "pulumi" and sub in ("up", "update"),
        lambda: program in vocab.DEPLOY_PROGRAMS,
        lambda: program == "argocd" and sub == "app" and part.sub(1) == "sync",
        lambda: program in vocab.CF_PROGRAMS and sub in vocab.CF_DEPLOYS,
        lambda: (program, sub) in vocab.APPLY_PAIRS or (program, part.sub(1)) in vocab.APPLY_PAIRS,
        lambda: program == "aws" and sub == "s3" and targets.uploads_to(words[1:], "s3://"),
        lambda: program == "aws" and sub == "cloudfront" and part.sub(1) == "create-invalidation",
        lambda: (
            program == "aws"
            and sub
            in ("ecs", "lambda", "cloudformation", "elasticbeanstalk", "deploy", "amplify", "apprunner")
            and part.sub(1).startswith(
                ("update", "deploy", "create-deployment", "publish", "start-deployment")
            )
        ),
        lambda: program == "gsutil" and targets.uploads_to(words, "gs://"),
        # `az containerapp update --image ...`, `az webapp create ... --container-image-name`
        lambda: (
            program == "az"
            and part.sub(1) in ("update", "up")
            and any(a.startswith("--image") for a in part.args)
        ),
        lambda: (
            program == "az"
            and words[:2] == ("storage", "blob")
            and part.sub(2) in ("upload-batch", "sync", "upload")
        ),
        lambda: program == "gcloud" and sub == "storage" and targets.uploads_to(words[1:], "gs://"),
        lambda: (
            program == "az"
            and any(w.startswith("deploy") or w == "up" for w in words[:4])
            and not {"list", "show", "validate", "what-if"} & set(words[:5])
        ),
        lambda: program in ("rsync", "scp", "pscp") and targets.remote_destination(part) is not None,
        lambda: program == "git" and targets.deploy_remote(part),
        lambda: program == "docker" and words[:2] == ("stack", "deploy"),
        lambda: program in ("docker", "podman") and targets.remote_compose_up(part),
        lambda: program == "dotnet" and sub == "publish" and targets.publish_profile(part),
        lambda: (
            program == "sqlpackage"
            and any(re.match(r"^[/-]a(?:ction)?:publish$", a, re.I) for a in part.args)
        ),
        lambda: program == "winscp" and _winscp_upload(part),
        lambda: program == "func" and "publish" in words[:3],
        lambda: targets.unc_destination(part) or _ps_deploy(part) or targets.vercel_prod(part),
        lambda: program not in _NOT_GENERIC and _compound_deploy(part),
    )
    return any(check() for check in checks)


#: The verb of a compound subcommand that starts a deploy (`create-deployment`, `deploy-release`).
_DEPLOY_VERBS = frozenset(
    "create start trigger new run promote deploy redeploy push submit execute roll".split()
)
#: A release is shipped by these (`promote-release`); `create-release` only makes one.
_RELEASE_VERBS = frozenset("promote deploy rollout roll ship".split())


def _compound_deploy(part: Simple) -> bool:
    """`doctl apps create-deployment <id>`, `octo deploy-release`, `<cli> start-deployment`: a
    hyphenated subcommand among a CLI's first words that names a deploy and starts one (never
    `list-deployments`, `get-deployment`, `cancel-deployment`)."""
    for word in (w.lower() for w in part.words[:3]):
        if word in vocab.NOT_LOGIN_LEADS or word in ecosystems.STOP_VERBS:
            return False  # `<tool> add deploy-helper`: a package's name
        tokens = word.split("-")
        named = any(re.fullmatch(r"deploy(?:ment)?s?", t) for t in tokens) or (
            tokens[0] in _RELEASE_VERBS and any(re.fullmatch(r"releases?", t) for t in tokens)
        )
        if len(tokens) > 1 and named and (tokens[0] in _DEPLOY_VERBS or tokens[0].startswith("deploy")):
            return True
        if not re.fullmatch(r"[a-z][a-z0-9-]*", word):
            return False  # a path, a name or a value: what follows it is an argument too
    return False


def _winscp_upload(part: Simple) -> bool:
    """`winscp.com /command "open sftp://host/" "put dist\\*"`, or a script named for a deploy."""
    commands_given = any(re.search(r"\b(?:put|synchronize remote)\b", a) for a in part.args)
    return commands_given or any(task_kind(a.split("=", 1)[-1]) == "deploy" for a in part.args)


def _is_build(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    checks = (
        program in vocab.BUILD_PROGRAMS and "--noEmit" not in part.args,  # `tsc --noEmit` only type-checks
        _task(part) == "build" or vocab.PS_CMDLETS.get(program) == "build",
        program.startswith("python") and part.args[:2] == ("-m", "build"),
        program == "cmake" and "--build" in part.args,
        program in ("mvn", "sbt") and any(w in ("package", "install", "compile", "verify") for w in words),
        program in ("docker", "podman")
        and words[:2] in (("compose", "build"), ("buildx", "build"), ("image", "build"), ("buildx", "bake")),
        program == "dotnet" and sub == "publish",
        program == "devenv" and any(a.lower() in ("/build", "/rebuild") for a in part.args),
        program == "nuget" and sub == "pack",
        program == "az" and words[:2] == ("acr", "build"),
        program in ("mix", "rebar3") and sub == "release",  # an OTP release is built, not shipped
        program == "pip" and sub == "wheel",
        program in ("electron-forge", "ng", "nx", "expo", "eas") and sub in ("make", "build", "package"),
        program in _BUILD_TOOLS and sub == "build",
        _generic_sub(part, vocab.BUILD_SUBCOMMANDS),
    )
    return any(checks)


def _is_db(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    cmdlet = vocab.verb_noun(program)
    checks = (
        program in vocab.DB_PROGRAMS or vocab.PS_CMDLETS.get(program) == "db_connect",
        (program, sub) in vocab.DB_PAIRS and (program != "tsh" or part.sub(1) in ("connect", "login")),
        program in ("fly", "flyctl")
        and sub in ("postgres", "pg", "mpg", "redis")
        and part.sub(1) == "connect",
        program in ("gcloud", "az")
        and "connect" in words[:4]
        and any(w in ("sql", "postgres", "mysql", "redis") for w in words[:2]),
        program == "gcloud" and words[:1] == ("spanner",) and "execute-sql" in words,
        program == "aws" and sub in ("rds-data", "redshift-data") and part.sub(1) == "execute-statement",
        # Invoke-Sqlcmd, Invoke-DbaQuery, Connect-DbaInstance
        cmdlet is not None
        and cmdlet[0] in ("invoke", "connect")
        and bool(re.search(r"sql|dba|query", cmdlet[1])),
        program in ("docker", "kubectl", "podman")
        and sub == "exec"
        and any(w in vocab.DB_PROGRAMS for w in words),
    )
    return any(checks)


def _logs_in(part: Simple) -> bool:
    """`tsh login`, `sf org login web`, `sfdx auth:web:login`, `aws ecr get-login-password`,
    `oci session authenticate`: a login word among a tool's first subcommands, also after global
    options whose values no table knows (`p4 -p ssl:perforce:1666 -u bob login`)."""
    return _login_among([w.lower() for w in part.words[:3]]) or _login_among(
        [w.lower() for w in ecosystems.path_words(part, 3)]
    )


def _login_among(words: list[str]) -> bool:
    for index, word in enumerate(words):
        if index and words[index - 1] in vocab.NOT_LOGIN_LEADS:
            return False
        if (
            set(word.split(":")) & vocab.LOGIN_WORDS
            or word.endswith("-login")
            or word.startswith("get-login")
        ):
            return True
        if not re.fullmatch(r"[a-z][a-z0-9-]*", word):
            return False  # a path, a name or a value: what follows it is an argument too
    return False


def _is_auth(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if program in vocab.AUTH_PROGRAMS:
        return bool(words) or program in ("kinit", "gimme-aws-creds", "assume", "mstsc", "putty")
    pair = " ".join(words[:2]).lower()
    cmdlet = vocab.verb_noun(program)
    if program in ("scp", "pscp", "rsync") and targets.remote_source(part):
        return True  # a copy from another machine: a connection to it
    checks = (
        (program, sub) in vocab.AUTH_PAIRS or (program, pair) in vocab.AUTH_PAIRS,
        program == "gcloud" and sub == "auth" and part.sub(1) not in ("list", "revoke", "print-access-token"),
        program in ("gcloud", "az") and "get-credentials" in words[:4],
        program in ("kubectl", "oc") and words[:2] == ("config", "use-context"),
        program == "invoke-command" and any(a.lower() in ("-computername", "-session") for a in part.args),
        cmdlet is not None
        and (vocab.PS_CMDLETS.get(program) == "auth" or vocab.PS_VERBS.get(cmdlet[0]) == "auth"),
        program not in ("git", "hg", "svn") and _logs_in(part),  # `git checkout -b login` is a branch
    )
    return any(checks)


# What a successful simple command is evidence of, first match wins: "make test" is a test.
KINDS: tuple[tuple[str, Callable[[Simple], bool]], ...] = (
    ("test", _is_test),
    ("publish", _is_publish),
    ("deploy", _is_deploy),
    ("build", _is_build),
    ("db_connect", _is_db),
    ("auth", _is_auth),
)


def kind_of(part: Simple) -> str | None:
    if is_read(part) or is_rehearsal(part):
        return None
    found = fields.kind(part) or next((kind for kind, applies in KINDS if applies(part)), None)
    found = found or ops.kind(part, task_kind)  # configuration runs, pipelines, mobile, fan-out shells
    if found is not None or part.program in _TASK_RUNNERS or part.program in ops.OWN_WORDS:
        return found  # a task runner's words are task names, judged above
    return ecosystems.kind(part)  # an unknown tool, by the shape of its words


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


# `--email X`, `--account=X`, `--account-name X`: who logs in, not what can be reached.
_IDENTITY_FLAG = re.compile(
    r"(?P<flag>(?<!\S)--?(?:[\w-]+-)?(?P<what>e-?mail|account)(?:-name)?)(?P<sep>=|\s+)"
    r"(?P<q>[\"']?)(?!-|<)[^\s\"')]+(?P=q)",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"(?<![^\s=\"'])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?=[\s\"')]|$)")


def without_identity(command: str) -> str:
    """The command with the e-mail address or account name of who logs in replaced by a placeholder
    (`heroku auth login --email <email>`, `gcloud auth login --account=<account>`): the capability
    is that the CLI can log in, and the no-store rule rightly refuses a person's address. A login
    name at a host (`ssh ops@bastion`) is spelt apart by `ssh_login_form` before this is asked."""
    command = _IDENTITY_FLAG.sub(
        lambda m: f"{m['flag']}{m['sep']}<{'account' if m['what'].lower() == 'account' else 'email'}>",
        command,
    )
    return _EMAIL.sub("<email>", command)


# -- what it acts on ----------------------------------------------------------------------------

_REMOTE_SHELLS = frozenset({"ssh", "mosh", "sftp", "plink", "putty", "kitty", "psftp", "autossh"})


def subject(command: str, kind: str) -> str | None:
    """What the command acts on, when its line says so plainly: the bucket an upload goes to, the
    host a copy, a login or a database connection reaches, the realm a Kerberos login joins.
    None: the command itself is the subject."""
    for part in parts(command):
        if kind_of(part) == kind:
            return _part_subject(part, kind)
    return None


def _part_subject(part: Simple, kind: str) -> str | None:
    program, words = part.program, part.words
    if kind == "deploy" and words and words[-1].startswith(("s3://", "gs://")):
        return targets.bucket(words[-1])
    if kind == "deploy" and program in ("rsync", "scp", "pscp"):
        return targets.host(targets.remote_destination(part))
    if kind == "db_connect":
        flags = ("-h", "--host", "-H", "-S", "--server", "-ServerInstance", "-SqlInstance")
        return targets.flag_value(part.args, flags if program != "sqlplus" else ())
    return _auth_subject(part) if kind == "auth" else None


def _auth_subject(part: Simple) -> str | None:
    """The host a remote shell or a copy reaches, the realm of a Kerberos login, the server a CLI
    login names."""
    program = part.program
    if program == "kinit":
        return next((a.rsplit("@", 1)[1] for a in part.args if "@" in a and not a.startswith("-")), None)
    if program in ("scp", "pscp", "rsync") or program in _REMOTE_SHELLS:
        remote = targets.remote_source(part) if program in ("scp", "pscp", "rsync") else None
        return targets.host(remote or (targets.login_host(part) if program in _REMOTE_SHELLS else None))
    return _login_server(part)


_SERVER_FLAGS = ("--server", "--proxy", "-a", "--api", "--url", "--host", "-Server", "-Url", "--hostname")


def _login_server(part: Simple) -> str | None:
    """The server a CLI login reaches, when the line names it by URL: `oc login --server=https://api
    .ocp:6443`, `cf login -a https://api.cf.example.com`, `tsh login --proxy=teleport.example.com`."""
    value = targets.flag_value(part.args, _SERVER_FLAGS) or next((w for w in part.words if "://" in w), None)
    if value is None or not re.match(r"^(?:[a-z][\w+.-]*://)?[A-Za-z0-9][\w.-]*\.[A-Za-z]", value):
        return None
    return targets.host(value.split("://", 1)[-1])


_LOGIN_AT = re.compile(r"(?<![\w/:.@-])([\w.+-]+)@([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?=\s|$)")
#: How each ssh-family program (and a few others) takes a login name apart from the host, equivalently.
_LOGIN_FORMS = {
    **dict.fromkeys(vocab.DASH_L_LOGINS, "-l {user} {host}"),
    "tsh": "-l {user} {host}",
    "sftp": "-o User={user} {host}",
    "mosh": "--ssh='ssh -l {user}' {host}",
    "mysqlsh": "--user={user} --host={host}",
    "sqlplus": "{user}@//{host}",  # EZConnect: `user@//host` is `user@host`
}
_PRINCIPAL = re.compile(r"(\bkinit\b[^|;&]*?\s)([^\s@-][^\s@]*)@[A-Za-z0-9][\w.-]*(?=\s|$)")
# `aws ecr get-login-password --region X`: the options move before the service, where the CLI
# takes them as well, so that no option reads as the value of "password".
_AWS_PASSWORD = re.compile(r"\baws\s+([\w-]+)\s+(get-login-password)((?:\s+--(?:region|profile)[= ]\S+)+)")


# `oc login --token=$OC_TOKEN --server=URL`: a flag that takes a secret by reference goes last, where
# no other option follows it to be read as the secret's value.
_REFERENCE_LAST = re.compile(
    r"(\s--?[\w-]*(?:token|password|secret|apikey|api-key)[\w-]*[= ][\"']?\$\{?[\w:]+\}?[\"']?)"
    r"((?:\s+[^|;&\s]+)+)$",
    re.IGNORECASE,
)


# `tests\Api.Tests\Api.Tests.csproj`: a .NET project path, which dotnet and MSBuild read as well
# with forward slashes; spelt with backslashes the no-store rule takes it for a high-entropy token.
_PROJECT_PATH = re.compile(
    r"(?<![^\s\"'=:])(?:[A-Za-z]:)?[\w.-]*(?:\\[\w.-]+)+\.(?:csproj|fsproj|vbproj|sln|slnx|proj|dll)(?=[\s\"']|$)",
    re.IGNORECASE,
)


# `-workspace Tidewater.xcworkspace`: a project file named bare, in the current folder.
_BARE_PROJECT = re.compile(
    r"(?<=\s)(?=[A-Za-z][\w.-]*\.(?:xcworkspace|xcodeproj|uproject|sln|csproj|fsproj|vbproj)(?=[\s\"']|$))"
)


def project_path_form(command: str) -> str:
    """The command with each .NET project or solution path given as an argument spelt with forward
    slashes (`dotnet test tests/Api.Tests/Api.Tests.csproj`), and each project file named bare
    spelt as in the current folder (`-workspace ./Shop.xcworkspace`): the same file to dotnet,
    msbuild, vstest and xcodebuild, and no longer the shape of a secret to the no-store rule."""
    return _BARE_PROJECT.sub("./", _PROJECT_PATH.sub(lambda m: m[0].replace("\\", "/"), command))


def ssh_login_form(command: str) -> str:
    """The command spelt equivalently without shapes the no-store rule refuses in a login: `ssh
    ops@bastion` as `ssh -l ops bastion` (`-o User=` for sftp, `--ssh='ssh -l ..'` for mosh, `-l`
    for PuTTY's tools, `--user= --host=` for mysqlsh, EZConnect for sqlplus), `kinit jdoe@REALM` as
    `kinit jdoe` (the realm is the subject), `aws ecr get-login-password --region X` as `aws --region
    X ecr get-login-password`. A login name at a host is not an e-mail address, but has its shape."""
    command = _PRINCIPAL.sub(lambda m: m[1] + m[2], command)
    command = _AWS_PASSWORD.sub(lambda m: f"aws{m[3]} {m[1]} {m[2]}", command)
    command = _REFERENCE_LAST.sub(lambda m: m[2] + m[1], command)
    forms = {_LOGIN_FORMS.get(p.program) for p in parts(command)} - {None}
    if len(forms) != 1:  # no ssh-family program, or several that spell a login differently
        return without_identity(command)
    form = str(forms.pop())
    return without_identity(_LOGIN_AT.sub(lambda m: form.format(user=m[1], host=m[2]), command))


__all__ = [
    "SECRET_FLAGS",
    "VALUED_FLAGS",
    "Simple",
    "command_kind",
    "essential",
    "is_trivial",
    "secret_reason",
    "ssh_login_form",
    "subject",
]
