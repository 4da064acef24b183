"""Where a simple command acts: its words without flag values, the host of a copy or a login, the
remote a push goes to, the bucket an upload fills. Pure functions over `Simple`, the parsed form
of one simple command that `memoryos.policies.commands` judges.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryos.policies import commands_vocab as vocab

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
    path: str = ""  # the program's word as written (`./tests/run.sh`), for where a script lives

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


SSH_VALUED = frozenset("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -P -pw -load".split())


HOST = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[A-Za-z0-9][\w.-]*)")


def login_host(part: Simple) -> str | None:
    """The host an ssh, mosh or sftp command reaches: its first word that is not a flag's value."""
    args = iter(part.args)
    for arg in args:
        if arg in SSH_VALUED:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def flag_value(args: Sequence[str], flags: tuple[str, ...]) -> str | None:
    for index, arg in enumerate(args):
        for flag in flags:
            if arg == flag and index + 1 < len(args):
                return args[index + 1]
            if flag.startswith("--") and arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
    return None


def host(address: str | None) -> str | None:
    host = HOST.match(address or "")
    return host.group("host") if host else None


def bucket(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


def _copy_paths(part: Simple) -> tuple[str, ...]:
    """The paths of a copy: rsync's `-e "ssh -p 2222"` (and `--rsh`) says how, not what."""
    if part.program != "rsync":
        return part.words
    out: list[str] = []
    args = iter(part.args)
    for arg in args:
        if arg in ("-e", "--rsh", "--rsync-path", "--exclude", "--include", "--filter", "-f"):
            next(args, None)
        elif not arg.startswith("-"):
            out.append(arg)
    return tuple(out)


def remote_destination(part: Simple) -> str | None:
    """The last argument of rsync/scp/pscp when it is remote (host:path), else None."""
    words = _copy_paths(part)
    if len(words) < 2:
        return None
    last = words[-1]
    return last if re.match(r"^(?:[\w.-]+@)?[\w.-]+:", last) and "://" not in last else None


def remote_source(part: Simple) -> str | None:
    """The first argument of scp/pscp/rsync when it is remote (host:path) and the destination is not."""
    words = _copy_paths(part)
    if len(words) < 2 or remote_destination(part) is not None:
        return None
    first = words[0]
    return first if re.match(r"^(?:[\w.-]+@)?[\w.-]+:", first) and "://" not in first else None


def uploads_to(words: Sequence[str], scheme: str) -> bool:
    """`cp|sync|mv SRC... DEST`: an upload when DEST is in the bucket scheme and the source is not."""
    if len(words) < 3 or words[0] not in ("cp", "sync", "mv", "rsync"):
        return False
    paths = words[1:]
    return paths[-1].startswith(scheme) and not paths[0].startswith(scheme)


def deploy_remote(part: Simple) -> bool:
    """`git push heroku main`, `git push -f dokku-prod HEAD:main`, `git subtree push --prefix dist
    heroku main`, `git push https://app.scm.azurewebsites.net/app.git`: a push to a deploy target."""
    words: list[str] = []
    args = iter(part.args)
    for arg in args:
        if arg in ("--prefix", "-P", "-o", "--push-option", "--repo"):
            next(args, None)  # a value, not the remote
        elif not arg.startswith("-"):
            words.append(arg)
    if words[:2] == ["subtree", "push"]:
        words = words[1:]
    if words[:1] != ["push"] or len(words) < 2:
        return False
    tokens = set(re.split(r"[-_.:/@]+", words[1].lower()))
    return bool(tokens & vocab.DEPLOY_REMOTE_WORDS)


def unc_destination(part: Simple) -> bool:
    """`robocopy dist \\\\web01\\wwwroot /MIR`: a copy to another machine's share."""
    return part.program in ("robocopy", "xcopy", "copy-item") and any(
        w.startswith("//") for w in part.words[1:]
    )


def publish_profile(part: Simple) -> bool:
    """`dotnet publish -p:PublishProfile=Azure` (or `/p:DeployOnBuild=true`) deploys."""
    return any(re.match(r"^[-/]p:(?:PublishProfile|DeployOnBuild)=", a, re.I) for a in part.args)


def platform_deploy(words: Sequence[str]) -> bool:
    """`fly deploy`, `gcloud run deploy`, `wrangler publish`, `heroku container:release`,
    `vercel --prod`, `railway up`: a hosting platform's deploy subcommand, or vercel's prod flag."""
    return any(
        w.startswith(("deploy", "publish")) or w.endswith((":release", ":push", ":rollback"))
        for w in words[:3]
    ) or (words[:1] in (("up",), ("push",)))


def vercel_prod(part: Simple) -> bool:
    return part.program in ("vercel", "now") and "--prod" in part.args


def remote_compose_up(part: Simple) -> bool:
    """`docker compose -H ssh://host up`: containers started on another machine (a deploy), not a
    local dev stack."""
    remote = any(a in ("-H", "--host", "--context") for a in part.args)
    return remote and "up" in part.words and "compose" in part.words


def compose_service(part: Simple) -> str | None:
    """The service a compose file runs for its own default command: `docker compose run --rm tests`,
    `docker compose up --exit-code-from e2e` (named for what it does)."""
    words = part.words[1:] if part.words[:1] == ("compose",) else part.words
    if part.program == "docker" and part.words[:1] != ("compose",):
        return None
    if words[:1] == ("run",) and len(words) == 2:
        return words[1]
    return flag_value(part.args, ("--exit-code-from",)) if words[:1] == ("up",) else None
