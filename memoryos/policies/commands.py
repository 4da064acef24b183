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
_RUNNERS = frozenset({"npx", "pnpx", "bunx", "poetry", "pipenv", "uv", "hatch", "pdm", "rye", "bundle"})

# Programs that only look around: a command made only of these teaches nothing.
READ_PROGRAMS = frozenset(
    "ls ll la dir cat bat cd pushd popd pwd echo printf head tail less more grep egrep fgrep rg ag find fd "
    "which whereis type clear history man whoami id date tree wc stat file du df env printenv true false "
    "exit open code vi vim nvim nano emacs ps top htop uptime free uname hostname jq yq sort uniq cut awk "
    "sed diff cmp locate tldr help alias source export set unset sleep watch lsof netstat ss ping dig "
    "nslookup host traceroute touch mkdir cp mv rm ln chmod chown tar unzip zip gzip gunzip xargs tee "
    "realpath basename dirname column nl od xxd hexdump strings md5sum sha256sum shasum".split()
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


@dataclass(frozen=True)
class Simple:
    """One simple command: its program (a path's last part) and its arguments, as shell words."""

    program: str
    args: tuple[str, ...]

    @property
    def words(self) -> tuple[str, ...]:
        """The arguments that are not flags."""
        return tuple(a for a in self.args if not a.startswith("-"))

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


def _strip(words: list[str]) -> list[str]:
    """Without sudo, env, VAR=value and the runners that only start the real program."""
    while words and (words[0] in _WRAPPERS or _ASSIGNMENT.match(words[0]) or words[0].startswith("-")):
        words = words[1:]
    if len(words) > 1 and words[0] in _RUNNERS:
        rest = words[2:] if words[1] in ("run", "exec", "x") else words[1:]
        return rest if rest else words
    return words


def parts(command: str) -> list[Simple]:
    found = []
    for part in _SPLIT.split(command):
        words = _strip(_words(part.strip()))
        if words:
            program = words[0].rsplit("/", 1)[-1].lower()
            found.append(Simple(program, tuple(words[1:])))
    return found


def is_read(part: Simple) -> bool:
    if part.program in READ_PROGRAMS:
        return True
    reads = READ_SUBCOMMANDS.get(part.program)
    return reads is not None and (part.sub() in reads or not part.words)


# -- kinds of action ----------------------------------------------------------------------------

_TEST_PROGRAMS = frozenset(
    "pytest py.test tox nox jest vitest mocha rspec phpunit ctest ava karma bats behave cucumber "
    "nosetests trial playwright cypress pest".split()
)
_TEST_TOOLS = frozenset(
    "cargo go dotnet mix swift flutter dart zig mvn gradle gradlew sbt lein stack cabal bazel "
    "deno bun elixir npm yarn pnpm".split()
)
_BUILD_TOOLS = frozenset(
    "cargo go dotnet docker podman bazel gradle gradlew swift zig stack cabal npm yarn pnpm bun "
    "buildah nix hugo mkdocs jekyll vite next nuxt astro sbt".split()
)
_BUILD_PROGRAMS = frozenset("tsc webpack rollup esbuild ninja sphinx-build meson".split())
_DB_PROGRAMS = frozenset(
    "psql pgcli mysql mariadb mycli mongosh mongo redis-cli sqlite3 litecli sqlcmd cqlsh "
    "clickhouse-client snowsql usql duckdb".split()
)
_LOGINS = frozenset(
    "docker podman gh vault npm heroku firebase flyctl fly wrangler vercel netlify oc az "
    "doctl railway op".split()
)
_DEPLOY_SUBCOMMAND = frozenset(
    "fly flyctl firebase netlify serverless sls cdk sam eb wrangler kamal cap mina dokku skaffold "
    "gcloud vercel railway".split()
)
_DEPLOY_REMOTES = frozenset({"heroku", "production", "prod", "live", "dokku", "deploy", "staging"})
_MAKE_TARGETS = {
    "test": "test",
    "tests": "test",
    "check": "test",
    "deploy": "deploy",
    "release": "publish",
    "publish": "publish",
}
_SCRIPT = re.compile(r"^(?:deploy|release|publish)[\w.-]*(?:\.sh|\.py|\.ps1)?$")


def _runner_script(part: Simple) -> str:
    """The script `npm run deploy`, `yarn build` or `make test` runs, lower-case ('' if none)."""
    words = part.words
    if part.program in ("npm", "yarn", "pnpm", "bun") and words:
        return words[1].lower() if words[0] == "run" and len(words) > 1 else words[0].lower()
    if part.program in ("make", "just", "task", "invoke", "rake", "mage"):
        return words[0].lower() if words else "build"
    return ""


def _is_test(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program in _TEST_PROGRAMS:
        return True
    if program in ("python", "python3") and part.args[:1] == ("-m",) and len(part.args) > 1:
        return part.args[1] in ("pytest", "unittest", "tox", "nox")
    if program in ("php", "rails", "bin/rails") and sub in ("test", "artisan"):
        return sub == "test" or part.sub(1) == "test"
    script = _runner_script(part)
    if script:
        return _MAKE_TARGETS.get(script) == "test" or script.startswith("test")
    return program in _TEST_TOOLS and sub == "test"


def _is_publish(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program == "twine" and sub == "upload":
        return True
    if program in ("docker", "podman", "helm") and sub == "push":
        return True
    if program in ("gem", "nuget") and sub == "push":
        return True
    if program == "dotnet" and sub == "nuget" and part.sub(1) == "push":
        return True
    if program == "gh" and sub == "release" and part.sub(1) == "create":
        return True
    if program == "mvn" and "deploy" in part.words:
        return True
    if program == "goreleaser":
        return True
    script = _runner_script(part)
    if script:
        return _MAKE_TARGETS.get(script) == "publish"
    return sub == "publish" and program not in _DEPLOY_SUBCOMMAND


def _remote_destination(part: Simple) -> str | None:
    """The last argument of rsync/scp when it is remote (host:path), else None."""
    words = part.words
    if len(words) < 2:
        return None
    last = words[-1]
    return last if re.match(r"^(?:[\w.-]+@)?[\w.-]+:", last) and "://" not in last else None


def _uploads_to(part: Simple, scheme: str) -> bool:
    words = part.words
    return len(words) >= 3 and words[0] in ("cp", "sync", "mv", "rsync") and words[-1].startswith(scheme)


def _is_deploy(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if _SCRIPT.match(program) and program != "release":
        return program.startswith("deploy")
    if program in _DEPLOY_SUBCOMMAND and "deploy" in part.words[:3]:
        return True
    checks: tuple[Callable[[], bool], ...] = (
        lambda: program == "kubectl" and sub in ("apply", "rollout", "set", "replace", "create", "scale")
        and not (sub == "rollout" and part.sub(1) in ("status", "history")),
        lambda: program == "helm" and sub in ("install", "upgrade", "rollback"),
        lambda: program in ("terraform", "tofu") and sub in ("apply", "destroy"),
        lambda: program == "pulumi" and sub in ("up", "update"),
        lambda: program in ("ansible-playbook", "argocd", "kamal", "dokku", "mina", "cap"),
        lambda: program == "aws" and sub == "s3" and _uploads_to(Simple("s3", part.words[1:]), "s3://"),
        lambda: program == "aws" and sub in ("ecs", "lambda", "cloudformation", "elasticbeanstalk")
        and part.sub(1).startswith(("update", "deploy", "create-deployment", "publish")),
        lambda: program == "gsutil" and _uploads_to(part, "gs://"),
        lambda: program == "gcloud" and sub == "storage" and _uploads_to(Simple("gs", part.words[1:]), "gs://"),
        lambda: program == "az" and sub in ("webapp", "functionapp") and "deploy" in part.words,
        lambda: program in ("rsync", "scp") and _remote_destination(part) is not None,
        lambda: program == "git" and sub == "push" and part.sub(1) in _DEPLOY_REMOTES,
        lambda: program == "docker" and sub == "stack" and part.sub(1) == "deploy",
        lambda: program == "vercel" and "--prod" in part.args,
        lambda: program in ("railway",) and sub == "up",
        lambda: _runner_script(part).startswith("deploy"),
    )
    return any(check() for check in checks)


def _is_build(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program in _BUILD_PROGRAMS:
        return True
    if program in ("python", "python3") and part.args[:2] == ("-m", "build"):
        return True
    if program == "cmake" and "--build" in part.args:
        return True
    if program == "mvn" and any(w in ("package", "install", "compile", "verify") for w in part.words):
        return True
    if program in ("docker", "podman") and sub == "compose" and part.sub(1) == "build":
        return True
    script = _runner_script(part)
    if script:
        return script in ("build", "compile", "dist", "all", "bundle") or script.startswith("build")
    return program in _BUILD_TOOLS and sub == "build"


def _is_db(part: Simple) -> bool:
    if part.program in _DB_PROGRAMS:
        return True
    return part.program in ("docker", "kubectl", "podman") and part.sub() == "exec" and any(
        w in _DB_PROGRAMS for w in part.words
    )


def _is_auth(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    if program in ("ssh", "mosh", "sftp", "kinit"):
        return bool(words) or program == "kinit"
    if program in _LOGINS and (sub in ("login", "signin", "auth:login") or words[:2] == ("auth", "login")):
        return True
    if program == "gcloud" and sub == "auth" and part.sub(1) in ("login", "activate-service-account"):
        return True
    if program == "gcloud" and sub == "container" and "get-credentials" in words:
        return True
    if program == "aws" and (words[:2] == ("sso", "login") or words[:2] == ("eks", "update-kubeconfig")):
        return True
    if program == "aws" and words[:2] == ("sts", "get-caller-identity"):
        return True
    return program == "kubectl" and words[:2] == ("config", "use-context")


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


_SSH = re.compile(r"(?:^|[\s;&|/])ssh\s")
_LOGIN_AT = re.compile(r"(?<![\w/:.@-])([\w.+-]+)@([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?=\s|$)")


def ssh_login_form(command: str) -> str:
    """`ssh ops@bastion` written `ssh -l ops bastion` (the same login): a login name at a host is
    not an e-mail address, but it has the shape of one, and the no-store rule refuses those."""
    return _LOGIN_AT.sub(r"-l \1 \2", command) if _SSH.search(" " + command) else command


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
    ("secret:password_flag", re.compile(r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b.*\s-p\S+")),
    ("secret:password_flag", re.compile(r"\b(?:redis-cli\b.*\s-a|sshpass\s+-p|htpasswd\s+-b\S*)\s+\S+")),
    ("secret:password_flag", re.compile(r"\b(?:docker|podman|az|oc)\s+login\b.*\s-p\s*\S+")),
    ("secret:basic_auth", re.compile(r"\s(?:-u|--user)\s+\S+:\S+")),
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
