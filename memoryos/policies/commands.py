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
from dataclasses import dataclass

_SPLIT = re.compile(r"&&|\|\||[;|]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "command", "exec", "doas", "nice", "caffeinate"})
_EXECUTORS = frozenset({"npx", "pnpx", "bunx"})  # always start the program named next
_RUNNERS = frozenset({"poetry", "pipenv", "uv", "pdm", "rye", "bundle", "conda"})  # with `run`
_EXTENSION = re.compile(r"\.(?:exe|cmd|bat|ps1|sh|py)$", re.IGNORECASE)

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


#: Flags that take the next word as their value, across the CLIs an agent runs: that word is not a
#: subcommand or a target.
VALUED_FLAGS = frozenset(
    "-n --namespace --context --kubeconfig -C -H --host -f --file --profile --region -g "
    "--resource-group --project --zone -a --app --cache-control --distribution-id -S -d -U "
    "--username --user --subscription --cluster --name -t --tag --platform".split()
)


@dataclass(frozen=True)
class Simple:
    """One simple command: its program (a path's last part) and its arguments, as shell words."""

    program: str
    args: tuple[str, ...]
    script: bool = False  # a path or a file name (`./deploy.sh`, `.\\build.ps1`), not a command

    @property
    def words(self) -> tuple[str, ...]:
        """The arguments that are neither flags nor the values of the flags that take one
        (`kubectl -n payments rollout restart` is about `rollout restart`)."""
        out: list[str] = []
        args = iter(self.args)
        for arg in args:
            if arg in VALUED_FLAGS:
                next(args, None)
            elif not arg.startswith("-"):
                out.append(arg)
        return tuple(out)

    def sub(self, index: int = 0) -> str:
        words = self.words
        return words[index].lower() if len(words) > index else ""

    @property
    def text(self) -> str:
        return " ".join((self.program, *self.args))


_REDIRECT = re.compile(r"^\d*(?:>>?|<)(?:&\d+)?$|^\d*(?:>>?|<)&?\S+$|^&>\S*$")
_SSH_VALUED = frozenset("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -P".split())


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
            skip = word.rstrip("0123456789&") in (">", ">>", "<") and not word.endswith(("&1", "&2"))
        else:
            kept.append(word)
    return kept


def _login_host(part: Simple) -> str | None:
    """The host an ssh, mosh or sftp command reaches: its first word that is not a flag's value."""
    args = iter(part.args)
    for arg in args:
        if arg in _SSH_VALUED:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


_WRAPPER_VALUED = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})


def _strip(words: list[str]) -> list[str]:
    """Without sudo (and its options), env, VAR=value and the runners that only start the real
    program: `sudo -u deploy ./release.sh` runs release.sh."""
    wrapped = False
    while words and (words[0] in _WRAPPERS or _ASSIGNMENT.match(words[0]) or words[0].startswith("-")):
        if wrapped and words[0] in _WRAPPER_VALUED and len(words) > 1:
            words = words[1:]
        wrapped = wrapped or words[0] in _WRAPPERS
        words = words[1:]
    if len(words) > 1 and words[0] in _EXECUTORS:
        return words[1:]
    if len(words) > 2 and words[0] in _RUNNERS and words[1] in ("run", "exec", "x"):
        return words[2:]
    if len(words) > 2 and words[0].startswith("python") and words[1] == "-m" and words[2] not in _PY_TOOLS:
        return words[2:]  # `python -m twine upload` is twine's
    return words


_PY_TOOLS = frozenset({"pytest", "unittest", "build", "tox", "nox"})  # judged as `python -m X` below


def program_of(word: str) -> tuple[str, bool]:
    """The program's name and whether it is a script: `./scripts/deploy.sh` is (deploy, True),
    `.\\build.ps1` (build, True), `npm.cmd` (npm, False)."""
    name = re.split(r"[/\\]", word)[-1]
    script = name != word or bool(re.search(r"\.(?:sh|ps1|py|bat)$", name, re.IGNORECASE))
    return _EXTENSION.sub("", name).lower(), script


def split_simple(command: str) -> list[str]:
    """The simple commands of a line, split at `&&`, `||`, `;` and `|` outside quotes."""
    pieces, start, quote, index = [], 0, "", 0
    while index < len(command):
        char = command[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif (match := _SPLIT.match(command, index)) is not None:
            pieces.append(command[start:index])
            start = index = match.end()
            continue
        index += 1
    pieces.append(command[start:])
    return [p for p in pieces if p.strip()]


def parts(command: str) -> list[Simple]:
    found: list[Simple] = []
    for part in split_simple(command):
        words = _strip(_words(part.strip()))
        if (
            len(words) > 2
            and program_of(words[0])[0] in _SHELLS
            and words[-2] in ("-c", "-lc", "-ic", "-Command")
        ):
            found.extend(parts(words[-1]))  # `bash -lc '...'`: what the shell runs
            continue
        if words:
            program, script = program_of(words[0])
            found.append(Simple(program, tuple(words[1:]), script))
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


def is_read(part: Simple) -> bool:
    if part.program in READ_PROGRAMS or (part.program, " ".join(part.words[:2]).lower()) in READ_PAIRS:
        return True
    reads = READ_SUBCOMMANDS.get(part.program)
    return reads is not None and (part.sub() in reads or not part.words)


# -- kinds of action ----------------------------------------------------------------------------

_TEST_PROGRAMS = frozenset(
    "pytest py.test tox nox jest vitest mocha rspec phpunit ctest ava karma bats behave cucumber "
    "nosetests trial playwright cypress pest".split()
)
_TEST_TOOLS = frozenset(
    "cargo go dotnet mix swift flutter dart zig mvn sbt lein stack cabal bazel deno bun elixir npm yarn "
    "pnpm".split()
)
_BUILD_TOOLS = frozenset(
    "cargo go dotnet docker podman bazel swift zig stack cabal buildah nix hugo mkdocs jekyll vite next "
    "nuxt astro flutter dart poetry uv hatch pdm flit".split()
)
_BUILD_PROGRAMS = frozenset(
    "tsc webpack rollup esbuild ninja sphinx-build meson msbuild xcodebuild gcc g++ cc clang clang++ "
    "javac rustc hugo".split()
)
_DB_PROGRAMS = frozenset(
    "psql pgcli mysql mariadb mycli mongosh mongo redis-cli sqlite3 litecli sqlcmd cqlsh "
    "clickhouse-client snowsql usql duckdb".split()
)
_LOGINS = frozenset(
    "docker podman gh vault npm heroku firebase flyctl fly wrangler vercel netlify oc az "
    "doctl railway op helm".split()
)
_PLATFORMS = frozenset(
    "fly flyctl firebase netlify serverless sls cdk sam eb wrangler kamal cap mina dokku skaffold "
    "gcloud vercel railway heroku".split()
)
_DEPLOY_REMOTES = frozenset({"heroku", "production", "prod", "live", "dokku", "deploy", "staging"})
#: Programs whose first word names a task (a make target, an npm script, a gradle task, ...).
_TASK_RUNNERS = frozenset(
    "make just task invoke rake mage fab ant gradle gradlew npm yarn pnpm bun hatch".split()
)
_RUNNER_SUBCOMMANDS = frozenset({"run", "run-script"})
_TASK_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("test", re.compile(r"^(?:tests?|check|unit|e2e|integration|spec|specs|cov|coverage)$")),
    ("deploy", re.compile(r"^(?:deploy\w*|ship|rollout)$")),
    ("publish", re.compile(r"^(?:publish\w*|release\w*|upload)$")),
    ("build", re.compile(r"^(?:build\w*|compile\w*|assemble\w*|dist|bundle|package|install|all)$")),
)


_PACKAGE_COMMANDS = frozenset(
    "install i ci add remove rm update up upgrade publish pack link unlink init exec dlx create audit "
    "outdated why list ls config store info view login logout whoami x".split()
)


def task_kind(name: str) -> str | None:
    """The kind of action a task or script is named for: `run-tests`, `test:cov`, `deploy-prod`,
    `assembleRelease` (the first word of a camel-case name counts), `publishToSonatype`."""
    words = re.split(r"[-_:.=/\s]+|(?<=[a-z])(?=[A-Z])", name)
    lowered = [w.lower() for w in words if w]
    for word in lowered[:2]:
        for kind, pattern in _TASK_WORDS:
            if pattern.match(word):
                return kind
    return None


def _task(part: Simple) -> str | None:
    """The task a task runner runs (`make deploy`, `npm run build`, `./gradlew assembleRelease`),
    or a script's own name (`./run-tests.ps1`); None for anything else."""
    if part.program not in _TASK_RUNNERS:
        return task_kind(part.program) if part.script else None
    words = part.words
    if (
        part.program in ("npm", "yarn", "pnpm", "bun", "hatch")
        and words[:1]
        and words[0] in _RUNNER_SUBCOMMANDS
    ):
        words = words[1:]
    elif part.program == "npm" and words[:1] != ("test",):
        return None  # npm's own subcommands (install, ci, publish, ...) are not tasks
    elif part.program in ("yarn", "pnpm", "bun") and words[:1] and words[0] in _PACKAGE_COMMANDS:
        return None  # the package manager's own subcommand, not a script of the project
    if not words:
        return "build" if part.program == "make" else None
    return task_kind(words[0])


def _is_test(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program in _TEST_PROGRAMS or _task(part) == "test":
        return True
    if program.startswith("python") and part.args[:1] == ("-m",) and len(part.args) > 1:
        return part.args[1] in ("pytest", "unittest", "tox", "nox")
    if program in ("php", "rails") and sub in ("test", "artisan"):
        return sub == "test" or part.sub(1) == "test"
    if program in ("yarn", "pnpm", "bun") and sub in _TEST_PROGRAMS:
        return True
    return program in _TEST_TOOLS and sub == "test"


def _is_publish(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if _task(part) == "publish" and program not in _PLATFORMS:
        return True
    checks = (
        program == "twine" and sub == "upload",
        program in ("docker", "podman", "helm", "gem", "nuget") and sub == "push",
        program in ("docker", "podman") and "--push" in part.args,  # buildx build --push
        program == "dotnet" and words[:2] == ("nuget", "push"),
        program == "gh" and words[:2] == ("release", "create"),
        program == "mvn" and "deploy" in words,
        program == "goreleaser",
        sub == "publish" and program not in _PLATFORMS,
    )
    return any(checks)


def _remote_destination(part: Simple) -> str | None:
    """The last argument of rsync/scp when it is remote (host:path), else None."""
    words = part.words
    if len(words) < 2:
        return None
    last = words[-1]
    return last if re.match(r"^(?:[\w.-]+@)?[\w.-]+:", last) and "://" not in last else None


def _uploads_to(words: Sequence[str], scheme: str) -> bool:
    """`cp|sync|mv SRC... DEST`: an upload when DEST is in the bucket scheme and the source is not."""
    if len(words) < 3 or words[0] not in ("cp", "sync", "mv", "rsync"):
        return False
    paths = words[1:]
    return paths[-1].startswith(scheme) and not paths[0].startswith(scheme)


def _is_deploy(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if _task(part) == "deploy" or (program in _PLATFORMS and _platform_deploy(words)):
        return True
    checks: tuple[Callable[[], bool], ...] = (
        lambda: (
            program == "kubectl"
            and sub in ("apply", "rollout", "set", "replace", "create", "scale")
            and not (sub == "rollout" and part.sub(1) in ("status", "history"))
        ),
        lambda: program == "helm" and sub in ("install", "upgrade", "rollback"),
        lambda: program in ("terraform", "tofu") and sub in ("apply", "destroy"),
        lambda: program == "pulumi" and sub in ("up", "update"),
        lambda: program in ("ansible-playbook", "argocd", "kamal", "dokku", "mina", "cap", "capistrano"),
        lambda: program == "aws" and sub == "s3" and _uploads_to(words[1:], "s3://"),
        lambda: program == "aws" and sub == "cloudfront" and part.sub(1) == "create-invalidation",
        lambda: (
            program == "aws"
            and sub in ("ecs", "lambda", "cloudformation", "elasticbeanstalk", "deploy", "amplify")
            and part.sub(1).startswith(
                ("update", "deploy", "create-deployment", "publish", "start-deployment")
            )
        ),
        lambda: program == "gsutil" and _uploads_to(words, "gs://"),
        lambda: program == "gcloud" and sub == "storage" and _uploads_to(words[1:], "gs://"),
        lambda: program == "az" and any(w.startswith("deploy") for w in words[:4]),
        lambda: program in ("rsync", "scp") and _remote_destination(part) is not None,
        lambda: program == "git" and sub == "push" and part.sub(1) in _DEPLOY_REMOTES,
        lambda: program == "docker" and words[:2] == ("stack", "deploy"),
        lambda: program in ("docker", "podman") and _remote_compose_up(part),
        lambda: _vercel_prod(part),
    )
    return any(check() for check in checks)


def _platform_deploy(words: Sequence[str]) -> bool:
    """`fly deploy`, `gcloud run deploy`, `wrangler publish`, `heroku container:release`,
    `vercel --prod`, `railway up`: a hosting platform's deploy subcommand, or vercel's prod flag."""
    return any(w.startswith(("deploy", "publish")) or w.endswith(":release") for w in words[:3]) or (
        words[:1] == ("up",)
    )


def _vercel_prod(part: Simple) -> bool:
    return part.program == "vercel" and "--prod" in part.args


def _remote_compose_up(part: Simple) -> bool:
    """`docker compose -H ssh://host up`: containers started on another machine (a deploy), not a
    local dev stack."""
    remote = any(a in ("-H", "--host", "--context") for a in part.args)
    return remote and "up" in part.words and "compose" in part.words


def _is_build(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    checks = (
        program in _BUILD_PROGRAMS or _task(part) == "build",
        program.startswith("python") and part.args[:2] == ("-m", "build"),
        program == "cmake" and "--build" in part.args,
        program in ("mvn", "sbt") and any(w in ("package", "install", "compile", "verify") for w in words),
        program in ("docker", "podman") and words[:2] in (("compose", "build"), ("buildx", "build")),
        program in _BUILD_TOOLS and sub == "build",
    )
    return any(checks)


def _is_db(part: Simple) -> bool:
    if part.program in _DB_PROGRAMS:
        return True
    words = part.words
    if part.program in ("gcloud", "az") and "connect" in words[:4]:
        return any(w in ("sql", "postgres", "mysql", "redis") for w in words[:2])
    return (
        part.program in ("docker", "kubectl", "podman")
        and part.sub() == "exec"
        and any(w in _DB_PROGRAMS for w in words)
    )


def _is_auth(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if program in ("ssh", "mosh", "sftp", "kinit"):
        return bool(words) or program == "kinit"
    checks = (
        program == "gcloud" and words[:2] == ("compute", "ssh"),
        program in _LOGINS and any(w in ("login", "signin", "auth:login") for w in words[:2]),
        program in _LOGINS and words[:2] == ("auth", "login"),
        program == "gcloud" and sub == "auth" and part.sub(1) not in ("list", "revoke", "print-access-token"),
        program in ("gcloud", "az") and "get-credentials" in words[:4],
        program == "aws" and words[:2] in (("sso", "login"), ("eks", "update-kubeconfig")),
        program == "kubectl" and words[:2] == ("config", "use-context"),
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
    if is_read(part):
        return None
    return next((kind for kind, applies in KINDS if applies(part)), None)


def command_kind(command: str) -> str | None:
    """The kind of the most telling simple command: a deploy after a build is a deploy."""
    found = [k for k in (kind_of(p) for p in parts(command)) if k is not None]
    order = ("deploy", "publish", "test", "build", "db_connect", "auth")
    return min(found, key=order.index) if found else None


def is_trivial(command: str) -> bool:
    found = parts(command)
    return bool(found) and all(is_read(p) for p in found)


def essential(command: str) -> str:
    """The simple commands that do something, as written: `cd app && make` is about `make`."""
    return " && ".join(p.text for p in parts(command) if not is_read(p))


# -- what it acts on ----------------------------------------------------------------------------

_HOST = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[A-Za-z0-9][\w.-]*)")


def _flag_value(args: Sequence[str], flags: tuple[str, ...]) -> str | None:
    for index, arg in enumerate(args):
        for flag in flags:
            if arg == flag and index + 1 < len(args):
                return args[index + 1]
            if flag.startswith("--") and arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
    return None


def _bucket(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


def subject(command: str, kind: str) -> str | None:
    """What the command acts on, when its line says so plainly: the bucket an upload goes to, the
    host a copy, a login or a database connection reaches. None: the command itself is the subject."""
    for part in parts(command):
        if kind_of(part) != kind:
            continue
        words = part.words
        if kind == "deploy" and words and words[-1].startswith(("s3://", "gs://")):
            return _bucket(words[-1])
        if kind == "deploy" and part.program in ("rsync", "scp"):
            remote = _remote_destination(part) or ""
            host = _HOST.match(remote)
            return host.group("host") if host else None
        if kind == "auth" and part.program in ("ssh", "mosh", "sftp"):
            login = _login_host(part)
            host = _HOST.match(login) if login else None
            return host.group("host") if host else None
        if kind == "db_connect":
            return _flag_value(part.args, ("-h", "--host", "-H", "-S", "--server"))
    return None


_LOGIN_AT = re.compile(r"(?<![\w/:.@-])([\w.+-]+)@([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?=\s|$)")
#: How each ssh-family program takes a login name apart from the host, equivalently.
_LOGIN_FORMS = {
    "ssh": "-l {user} {host}",
    "sftp": "-o User={user} {host}",
    "mosh": "--ssh='ssh -l {user}' {host}",
}


def ssh_login_form(command: str) -> str:
    """`ssh ops@bastion` written `ssh -l ops bastion` (the same login; `-o User=` for sftp,
    `--ssh='ssh -l ..'` for mosh): a login name at a host is not an e-mail address, but it has the
    shape of one, and the no-store rule refuses those."""
    forms = {_LOGIN_FORMS.get(p.program) for p in parts(command)} - {None}
    if len(forms) != 1:
        return command  # no ssh-family program, or several that spell a login differently
    form = str(forms.pop())
    return _LOGIN_AT.sub(lambda m: form.format(user=m[1], host=m[2]), command)


# -- credentials on a command line ----------------------------------------------------------------

SECRET_FLAGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "secret:inline_env",
        re.compile(
            r"\b[A-Z_]*(?:PASSWORD|PASSWD|PASS|PWD|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|AUTH|CREDENTIALS?)"
            r"=\S+",
            re.IGNORECASE,
        ),
    ),
    (
        "secret:password_flag",
        re.compile(
            r"(?:^|\s)--?(?:password|passwd|pass|token|secret|api-key|apikey|client-secret|auth-token|"
            r"access-token|private-key-password|key-password)(?:=|\s+)\S+",
            re.IGNORECASE,
        ),
    ),
    # -p glued to its value is a password for MySQL's tools (a lone -p makes them prompt)
    ("secret:password_flag", re.compile(r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b.*\s-p(?=[^\s`])\S+")),
    ("secret:password_flag", re.compile(r"\b(?:sqlcmd|bcp|osql)\b.*\s-P\s*(?=[^\s`])\S+")),
    ("secret:password_flag", re.compile(r"\b(?:redis-cli\b.*\s-a|sshpass\s+-p|htpasswd\s+-b\S*)\s+\S+")),
    ("secret:password_flag", re.compile(r"\b(?:docker|podman|az|oc)\s+login\b.*\s-p\s*\S+")),
    ("secret:basic_auth", re.compile(r"\s(?:-u|--user)\s+[^\s:/]+:(?!//)[^\s`]+")),
    ("secret:auth_header", re.compile(r"\bauthorization\s*:\s*\S+", re.IGNORECASE)),
    ("secret:auth_header", re.compile(r"\b(?:x-api-key|api-key|private-token)\s*:\s*\S+", re.IGNORECASE)),
    ("secret:literal", re.compile(r"--from-literal=\S*(?:pass|token|secret|key)\S*=\S+", re.IGNORECASE)),
    ("secret:configure", re.compile(r"\baws\s+configure\s+set\s+\S*(?:secret|token|key)\S*\s+\S+", re.I)),
    ("secret:token_arg", re.compile(r"\b(?:vault|gh|npm|heroku)\s+(?:login|auth)\s+(?!-)[\w.-]{12,}")),
    ("secret:auth_token", re.compile(r"_authToken=\S+|:_password=\S+", re.IGNORECASE)),
    ("secret:pass_arg", re.compile(r"-pass(?:in|out)?\s+pass:\S+", re.IGNORECASE)),
)


def secret_reason(text: str) -> str | None:
    """The reason code of the first credential shape found on a command line, or None."""
    return next((reason for reason, pattern in SECRET_FLAGS if pattern.search(text)), None)
