"""What a command acts on (the bucket an upload goes to, the host a login reaches) and the
command spelt equivalently without the shapes the no-store rule rightly refuses elsewhere: a
login name at a host, an e-mail address of who logs in, a .NET project path with backslashes.
"""

from __future__ import annotations

import re

from memoryos.policies import commands_targets as targets
from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_kinds import kind_of
from memoryos.policies.commands_parse import parts
from memoryos.policies.commands_targets import Simple

# `--email X`, `--account=X`, `--account-name X`, `--client-id X`: who logs in (a person, or an app
# registration's public id: an OAuth client id is no secret, yet a random one has a token's shape),
# not what can be reached.
_IDENTITY_FLAG = re.compile(
    r"(?P<flag>(?<!\S)--?(?:[\w-]+-)?(?P<what>e-?mail|account|client-?id|app-?id)(?:-name)?)(?P<sep>=|\s+)"
    r"(?P<q>[\"']?)(?!-|<)[^\s\"')]+(?P=q)",
    re.IGNORECASE,
)
_IDENTITIES = {"account": "account", "clientid": "client-id", "appid": "app-id"}
_EMAIL = re.compile(r"(?<![^\s=\"'])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?=[\s\"')]|$)")


def without_identity(command: str) -> str:
    """The command with the e-mail address or account name of who logs in replaced by a placeholder
    (`heroku auth login --email <email>`, `gcloud auth login --account=<account>`): the capability
    is that the CLI can log in, and the no-store rule rightly refuses a person's address. A login
    name at a host (`ssh ops@bastion`) is spelt apart by `ssh_login_form` before this is asked."""
    command = _IDENTITY_FLAG.sub(
        lambda m: f"{m['flag']}{m['sep']}<{_IDENTITIES.get(m['what'].lower().replace('-', ''), 'email')}>",
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
    return without_identity(host_login_form(command))


def host_login_form(command: str) -> str:
    """The command with each login name at a host spelt apart as its program takes it (`ssh ops@bastion`
    as `ssh -l ops bastion`, see `ssh_login_form`), and nothing else changed: a deploy that ends with
    `ssh robot@host sudo systemctl restart app` keeps every other word, so the no-store rule still
    reads any address or password the line carries."""
    forms = {_LOGIN_FORMS.get(p.program) for p in parts(command)} - {None}
    if len(forms) != 1:  # no ssh-family program, or several that spell a login differently
        return command
    form = str(forms.pop())
    return _LOGIN_AT.sub(lambda m: form.format(user=m[1], host=m[2]), command)
