"""What a command is when no table of `commands` names its program: judged by its shape, the way a
reader who has never seen the tool would judge it. Pure functions over `Simple`.

Every CLI says what it does in the same places: the verbs of its subcommand path (`<tool> deploy`,
`<tool> app rollout`, `<tool> db:migrate`, `<tool> hex.publish`, `<tool> BuildCookRun`), the
destination it writes to (a bucket URL, a database URL), where its script lives (`tests/`), a flag
that names production (`--target prod`). So an unknown tool's first verb decides, a read verb
anywhere in its path makes it a read (`<tool> deploy status`, `<tool> releases list`), and a few
families whose verbs say nothing (flashers, migration tools, workflow engines, dump tools) are
named here from what each does, never from a corpus line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_targets import Simple


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- verbs ---------------------------------------------------------------------------------------

#: A verb of a subcommand path and the kind of action it starts, in any tool.
VERBS: dict[str, str] = {
    **dict.fromkeys("deploy deploys redeploy rollout ship promote rollback converge".split(), "deploy"),
    **dict.fromkeys("provision flash apply dfu ota".split(), "deploy"),
    **dict.fromkeys("publish release upload push".split(), "publish"),
    **dict.fromkeys("login signin logon authenticate connect ssh auth".split(), "auth"),
    **dict.fromkeys("test tests e2e unittest runtests spec specs".split(), "test"),
    **dict.fromkeys("build compile assemble package archive bundle zigbuild rebuild make".split(), "build"),
}
#: Verbs that only look (a tool's `status`, `logs`, `list-deployments`): anywhere in the path they
#: make the command a read, whatever verb came before (`<tool> deploy status`, `<tool> releases ls`).
READ_VERBS = _set(
    "list ls get describe show status logs log history info inspect view diff plan validate whoami "
    "version help search explain outdated events tail watch preview template doctor print cat find "
    "wait browse open current config env printenv ps top report"
)
#: Verbs after which the words are arguments (`<tool> install deploy-helper`), or that act on the
#: tool's own setup, not on a target (`create`, `init`, `delete`, `remove`, `cancel`).
STOP_VERBS = _set(
    "install i add remove rm uninstall delete destroy cancel abort init new create clean clear "
    "generate gen scaffold download pull fetch clone checkout import edit set unset rename update "
    "upgrade logout signout revoke disconnect stop kill pause suspend resume completion export"
)
#: A compound verb starting with a read verb is a read (`list-deployments`, `get-release`), unless
#: it fetches a login (`get-login-password`, `get-credentials`, `get-token`).
_READ_COMPOUND_EXCEPT = re.compile(r"^get-(?:login|credentials|token|kubeconfig)")
#: Programs whose words are someone else's: version control (`git push` is not a publish), a remote
#: shell's remote command, an HTTP client's URL, a container's image and command.
NOT_GENERIC = _set(
    "git hg svn bzr fossil darcs pijul jj sl quilt stg guilt repo tig lazygit gh glab hub p4 cm "
    "curl wget http https xh httpie ssh mosh sftp plink autossh telnet nc ncat socat "
    "docker podman nerdctl finch kubectl oc aws gcloud az brew apt apt-get yum dnf zypper pacman apk "
    "choco winget scoop snap flatpak port nix-env pip pip3 pipx npm yarn pnpm bun conda mamba micromamba "
    "systemctl service launchctl journalctl crontab tmux screen kill pkill killall "
    "rustup asdf mise nvm pyenv rbenv sdk"
)
#: Programs whose words a read verb never turns into a read: a remote shell's remote command, a
#: database shell's query (`redis-cli -h cache info` connects), version control's own tables.
NOT_PATH_READ = (
    NOT_GENERIC - _set("docker podman nerdctl finch aws gcloud az")
    | _set(
        "ssh mosh sftp psql mysql mariadb redis-cli valkey-cli mongosh mongo cqlsh sqlcmd clickhouse-client "
        "snowsql sqlplus cockroach bq nodetool salt salt-ssh pssh pdsh clush ansible"
    )
    | vocab.DB_PROGRAMS
    | vocab.AUTH_PROGRAMS
)
_FILE = re.compile(
    r"\.(?:py|js|mjs|cjs|ts|tsx|rb|php|pl|sh|ps1|bat|cmd|ya?ml|json|toml|ini|cfg|conf|xml|txt|csv|"
    r"sql|tf|tfvars|hcl|nomad|nf|smk|cwl|wdl|zip|tar|gz|tgz|whl|jar|war|apk|aab|ipa|bin|hex|elf|uf2|"
    r"img|iso|md|html?|lock|env|pem|key|crt|R|jl|lua|exs?|dll|exe|so|dylib|csproj|sln|proj|vdf)$",
    re.IGNORECASE,
)
_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[.:_+-][A-Za-z0-9]+)*$")


def _tokens(word: str) -> list[str]:
    """`db:migrate` is (db, migrate), `hex.publish` (hex, publish), `deploy-prod` (deploy, prod),
    `BuildCookRun` (build, cook, run), `write_flash` (write, flash)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", word)
    return [t for t in re.split(r"[\s.:_+-]+", spaced.lower()) if t]


def _verb_tokens(word: str) -> list[str]:
    """A namespaced word's verb before its namespace: `env:deploy` deploys (its `env` is the noun it
    acts on), `auth:import` imports."""
    head, colon, tail = word.partition(":")
    return [*_tokens(tail), *_tokens(head)] if colon and tail else _tokens(word)


def path_words(part: Simple, limit: int = 4) -> list[str]:
    """The words of the subcommand path: the arguments before the first one that is a file, a path,
    a URL or a value. A word right after a flag is taken for the flag's value (`--preset release`,
    `--alias search-ap`): global options before a subcommand mostly take one."""
    out: list[str] = []
    after_flag = False
    for arg in part.args:
        if arg == "--":
            break
        if arg.startswith(("-", "/")) and len(arg) > 1 and not arg.startswith("//"):
            after_flag = "=" not in arg and arg.startswith("-")
            continue
        if after_flag:
            after_flag = False
            continue
        if not _PLAIN.match(arg) or _FILE.search(arg):
            break
        out.append(arg)
        if len(out) == limit:
            break
    return out


def _verb(tokens: list[str]) -> tuple[str, str] | None:
    """The first verb among a word's tokens and its role: ("read", ...), ("stop", ...) or a kind;
    a verb said to act locally or as a rehearsal (`publishToMavenLocal`, `dry-build`) is a stop."""
    if "local" in tokens or "dry" in tokens:
        return ("stop", "local")
    for token in tokens:
        if token in READ_VERBS:
            return ("read", token)
        if token in STOP_VERBS:
            return ("stop", token)
        if token in VERBS:
            return (VERBS[token], token)
    return None


def _read_word(word: str) -> bool:
    """`status`, `list-deployments` (a read verb first in a hyphenated verb), `apps:list` (a read
    verb last in a namespaced one); never `get-login-password` or `get-credentials`."""
    lowered = word.lower()
    if lowered in READ_VERBS:
        return True
    if _READ_COMPOUND_EXCEPT.match(lowered):
        return False
    head, _, tail = lowered.partition("-")
    spaces = re.split(r"[:.]", lowered)
    return (bool(tail) and head in _READ_HEADS) or (len(spaces) > 1 and spaces[-1] in READ_VERBS)


#: Read verbs that open a hyphenated verb (`list-deployments`, `describe-stacks`); `config-zip` or
#: `events-api` are not reads.
_READ_HEADS = _set("list get describe show view inspect print")


def path_read(part: Simple) -> bool:
    """A read verb anywhere in the subcommand path (`<tool> deploy status`, `<tool> releases list`,
    `<tool> describe-stacks`, `<tool> apps:list`): the command only looks, whatever it looks at.
    A read verb that names what an action then runs is not one (`bolt plan run`)."""
    if part.program in NOT_PATH_READ:
        return False
    words = path_words(part)
    acted = False  # after an action verb a word may be a name (`sync search`): only a clear read counts
    for index, word in enumerate(words):
        if _read_word(word) and (not acted or word.lower() in _CLEAR_READS):
            following = words[index + 1].lower() if index + 1 < len(words) else ""
            return following not in _RUNS
        found = _verb(_verb_tokens(word))
        if found is not None and found[0] == "stop":
            return False  # a stop verb's arguments follow: `upgrade search ./chart`
        acted = acted or found is not None
    return False


#: Reads after an action word make it a noun: `bundle validate`, `release list`, `deploy status`.
_CLEAR_READS = _set("list ls status history validate describe diff plan get show inspect report")


_RUNS = _set("run execute apply deploy start trigger")


def verb_kind(part: Simple) -> str | None:
    """The kind the first verb of the subcommand path names (`<tool> deploy`, `<tool> app rollout
    restart`, `<tool> db:migrate`, `<tool> hex.publish`), None when a read or a stop verb comes
    first or no verb is there."""
    if part.program in NOT_GENERIC:
        return None
    kinds = []
    for word in path_words(part):
        found = _verb(_verb_tokens(word))
        if found is not None and found[0] in ("read", "stop"):
            break
        if found is not None:
            kinds.append(found[0])
    return min(kinds, key=_ORDER.index) if kinds else None


#: The most telling verb of a path wins: `<tool> bundle deploy` deploys what it bundled.
_ORDER = ("deploy", "publish", "test", "build", "auth")


# -- production flags ------------------------------------------------------------------------------

_PROD = re.compile(r"^(?:prod|production|live|prd)(?:[-_]\w+)?$", re.IGNORECASE)
_ENV_FLAGS = frozenset(
    "--env -e --environment --stage -s --target -t --profile --context --cluster --tier".split()
)
#: Verbs that converge something to a named environment when one is given (`<tool> up --env prod`,
#: `<tool> sync production`, `rails db:migrate` against production): a framework's migration on a
#: developer's database is housekeeping, on production a deploy of the schema.
_TO_ENVIRONMENT = _set("up sync switch activate roll migrate")


def _names_production(part: Simple) -> bool:
    args = part.args
    for index, arg in enumerate(args):
        name, _, value = arg.partition("=")
        if name in ("--prod", "--production", "--live"):
            return True
        if name in _ENV_FLAGS:
            value = value or (args[index + 1] if index + 1 < len(args) else "")
            if _PROD.match(value):
                return True
    return any(_PROD.match(w) for w in part.words[1:3])


def prod_converge(part: Simple) -> bool:
    """`<tool> up --env production`, `php artisan migrate --force`: a converging verb aimed at
    production (Laravel refuses to migrate production without `--force`)."""
    verbs = [t for w in path_words(part, 3) for t in _tokens(w)]
    converging = next((t for t in verbs if t in _TO_ENVIRONMENT), None)
    if converging is None:
        return False
    forced = converging == "migrate" and "--force" in part.args and "artisan" in part.args
    return forced or _names_production(part)


# -- destinations ------------------------------------------------------------------------------------

#: Object stores and distributed file systems, as URL schemes or hosts.
_STORAGE = re.compile(
    r"^(?:s3a?|gs|az|abfss?|wasbs?|r2|b2|oss|cos|obs|swift|hdfs|dbfs|minio|spaces|oci|docker|oras):/"
    r"|^https://[\w.-]+\.(?:blob|dfs|file)\.core\.windows\.net/"
    r"|^dbfs:",
    re.IGNORECASE,
)
_COPY_VERBS = _set("cp copy sync put upload rsync mirror mv move copyfromlocal")


def storage_upload(part: Simple) -> bool:
    """`<tool> cp dist/ s3://site`, `azcopy copy ./public https://x.blob.core.windows.net/$web`,
    `hdfs dfs -put out /data`: local files copied into an object store (a copy out of one is a
    download, and reads never copy)."""
    lowered = [a.lower().lstrip("-") for a in part.args]
    if not _COPY_VERBS & set(lowered[:3]):
        return False
    paths = [a for a in part.args if not a.startswith("-") and a.lower().lstrip("-") not in _COPY_VERBS]
    if len(paths) < 2:
        return False
    return bool(_STORAGE.match(paths[-1])) and not _STORAGE.match(paths[0])


_DB_URL = re.compile(
    r"^[\"']?(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|sqlserver|mssql|oracle|"
    r"clickhouse|cockroachdb|snowflake|cassandra|neo4j(?:\+s)?|bolt|couchbases?|influxdb|"
    r"jdbc:[a-z0-9]+)://",
    re.IGNORECASE,
)


def db_url(part: Simple) -> bool:
    """Any client given a database URL (`<tool> postgres://host/db`, `--uri=mongodb+srv://...`);
    never a setting that holds one (`config:set DATABASE_URL=postgres://...`)."""
    return any(_DB_URL.match(a.split("=", 1)[-1] if a.startswith("-") else a) for a in part.args)


# -- scripts and test shapes -----------------------------------------------------------------------

_TEST_DIR = re.compile(r"(?:^|[/\\])(?:tests?|spec|specs|t|e2e|integration[-_]tests?|__tests__)[/\\]", re.I)
_TEST_FILE = re.compile(r"(?:^|[/\\_.-])(?:test|tests|spec)(?:[_.-]|$)|_test$|_spec$", re.IGNORECASE)


def test_script(part: Simple) -> bool:
    """A script run from a test folder or named for tests (`./tests/run.sh`, `bin/test`,
    `build/unit_tests`, `julia test/runtests.jl`, `Rscript tests/testthat.R`)."""
    if part.script and part.path and _TEST_DIR.search(part.path):
        return True
    if part.program in _SCRIPTED_RUNTIMES and part.args:
        first = next((a for a in part.args if not a.startswith("-")), "")
        return bool(_TEST_DIR.search(first)) or bool(_TEST_FILE.search(re.split(r"[/\\]", first)[-1]))
    return False


#: A test binary or runner by its name (`engine_tests`, `unittests.exe`, `testrunner`, `api-spec`).
_TEST_NAME = re.compile(r"(?:^|[_-])(?:unit)?tests?$|^tests?[_-]|[_-]spec$|^spec[_-]|testrunner$|^runtests$")
#: Flags only a test runner takes: a JUnit report, a coverage run, GoogleTest's filters.
_TEST_FLAGS = re.compile(
    r"^--(?:junit[-_]?xml|junit|junit-report|test-results?|test-output|coverage|cov|gtest_filter|"
    r"gtest_output|reporters?=junit|reporter=junit|testNamePattern|test-name-pattern|collect-coverage)(?:=|$)",
    re.IGNORECASE,
)


def test_shape(part: Simple) -> bool:
    """An unknown program named for tests, or given a flag only test runners take."""
    return bool(_TEST_NAME.search(part.program)) or any(_TEST_FLAGS.match(a) for a in part.args)


#: Flags that make any action a listing (`<tool> deploy --list`, `<tool> release --status`).
_READ_FLAGS = frozenset("--list --status --show --info --print --describe --history --whoami".split())

#: A database client's connection flags: a host, a user and a database named together.
_DB_FLAGS = (
    frozenset({"-h", "--host", "--hostname", "--server", "-S"}),
    frozenset({"-U", "-u", "--user", "--username", "--login"}),
    frozenset({"-d", "--database", "--dbname", "--db", "-D"}),
)


_HOSTNAME = re.compile(r"^(?:localhost|[\w-]+(?:\.[\w-]+)+|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$")


def db_flags(part: Simple) -> bool:
    """`<client> -h db.internal -U app -d ledger`: a connection to a database by its flags, the
    host given as a host name (`rsync -h -u -d` are a human, an update and a directory flag)."""
    names = {a.split("=", 1)[0] for a in part.args if a.startswith("-")}
    if not all(names & group for group in _DB_FLAGS):
        return False
    args = part.args
    hosts = [
        a.split("=", 1)[1] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
        for i, a in enumerate(args)
        if a.split("=", 1)[0] in _DB_FLAGS[0]
    ]
    return any(_HOSTNAME.match(h) for h in hosts)


_IMAGE_REF = re.compile(r"^[a-z0-9][a-z0-9.-]*\.[a-z]{2,}(?::\d+)?/[\w./-]+(?::[\w.-]+|@sha256:[0-9a-f]+)?$")


def image_copy(part: Simple) -> bool:
    """`crane copy a/b:1 ghcr.io/acme/b:1`, `regctl image copy ...`: an image copied into a registry."""
    if not {"copy", "cp"} & {w.lower() for w in part.words[:2]}:
        return False
    paths = [w for w in part.words if w.lower() not in ("copy", "cp", "image")]
    return len(paths) >= 2 and bool(_IMAGE_REF.match(paths[-1]))


#: Runtimes whose first word is the script they run, outside `commands_shell.INTERPRETERS`.
_SCRIPTED_RUNTIMES = _set("julia rscript lua luajit elixir tclsh groovy kotlin scala ts-node tsx")

# -- named families --------------------------------------------------------------------------------

#: Programs that are one kind of action whatever their words (flashers write firmware to a
#: board; dump tools connect to a database; release tools publish).
PROGRAM_KINDS: dict[str, str] = {
    **dict.fromkeys(
        "avrdude dfu-util st-flash stm32flash stm32_programmer_cli bossac teensy_loader_cli nrfjprog "
        "jlinkexe jlink picotool uf2conv ios-deploy ideviceinstaller gh-pages angular-cli-ghpages "
        "deploy".split(),
        "deploy",
    ),
    **dict.fromkeys(
        "pg_dump pg_dumpall pg_restore pg_basebackup mysqldump mysqlpump mydumper myloader mongodump "
        "mongorestore mongoexport mongoimport expdp impdp sqlldr dgmgrl arangosh arangodump gremlin "
        "cloud-sql-proxy cloud_sql_proxy pgbench pg_isready".split(),
        "db_connect",
    ),
    **dict.fromkeys("semantic-release release-it np jreleaser dzil cpan-upload web-ext".split(), "publish"),
    **dict.fromkeys(
        "snakemake cwltool cromwell miniwdl toil-cwl-runner unrealbuildtool fbuild buildconsole".split(),
        "build",
    ),
    **dict.fromkeys("ncftpput dput".split(), "deploy"),
    **dict.fromkeys(
        "flatpak-builder fpm cpack pkgbuild productbuild create-dmg xmake kotlinc scalac ghc latexmk "
        "pdflatex xelatex lualatex tectonic antora".split(),
        "build",
    ),
}
#: The first words of a command (program and subcommands) whose verb says nothing a reader would
#: know: migration tools, workflow engines, device installs, plugin paths.
PREFIX_KINDS: dict[tuple[str, ...], str] = {
    **dict.fromkeys(
        [
            ("liquibase", "update"),
            ("liquibase", "update-count"),
            ("alembic", "upgrade"),
            ("alembic", "downgrade"),
            ("flyway", "migrate"),
            ("dbmate", "up"),
            ("dbmate", "migrate"),
            ("sqlx", "migrate", "run"),
            ("knex", "migrate:latest"),
            ("sequelize", "db:migrate"),
            ("prisma", "migrate", "deploy"),
            ("goose", "up"),
            ("migrate", "up"),
            ("sql-migrate", "up"),
            ("typeorm", "migration:run"),
            ("diesel", "migration", "run"),
            ("dotnet", "ef", "database", "update"),
            ("adb", "install"),
            ("adb", "install-multiple"),
            ("flutter", "install"),
            ("mpremote", "cp"),
            ("rshell", "cp"),
            ("probe-rs", "download"),
            ("probe-rs", "run"),
            ("cargo", "embed"),
            ("cargo", "flash"),
            ("flux", "bootstrap"),
            ("mvn", "flyway:migrate"),
            ("mvn", "liquibase:update"),
            ("git", "ftp", "push"),
            ("git", "ftp", "init"),
            ("nixos-rebuild", "switch"),
            ("nixos-rebuild", "boot"),
            ("darwin-rebuild", "switch"),
            ("home-manager", "switch"),
            ("guix", "system", "reconfigure"),
            ("istioctl", "install"),
            ("oci", "os", "object", "put"),
            ("linode-cli", "obj", "put"),
            ("aws", "s3api", "put-object"),
            ("ampy", "put"),
            ("kubectl", "argo", "rollouts", "promote"),
            ("appcenter", "codepush", "release-react"),
        ],
        "deploy",
    ),
    **dict.fromkeys(
        [
            ("dbt", "run"),
            ("dbt", "seed"),
            ("dbt", "snapshot"),
            ("dbt", "run-operation"),
            ("sqlmesh", "run"),
            ("nextflow", "run"),
            ("quarto", "render"),
            ("dvc", "repro"),
            ("kedro", "run"),
            ("dotnet", "pack"),
            ("pack", "build"),
            ("expo", "export"),
            ("conan", "create"),
            ("nfpm", "pkg"),
            ("nfpm", "package"),
            ("gcloud", "builds", "submit"),
            ("az", "bicep", "build"),
            ("r", "cmd", "build"),
            ("r", "cmd", "install"),
        ],
        "build",
    ),
    **dict.fromkeys(
        [
            ("k6", "run"),
            ("inspec", "exec"),
            ("goss", "validate"),
            ("nix", "flake", "check"),
            ("soda", "scan"),
            ("great_expectations", "checkpoint", "run"),
            ("gx", "checkpoint", "run"),
        ],
        "test",
    ),
    **dict.fromkeys(
        [
            ("notarytool", "submit"),
            ("butler", "push"),
            ("wingetcreate", "submit"),
            ("reprepro", "includedeb"),
        ],
        "publish",
    ),
    **dict.fromkeys(
        [
            ("nmcli", "con", "up"),
            ("nmcli", "connection", "up"),
            ("doctl", "kubernetes", "cluster", "kubeconfig"),
        ],
        "auth",
    ),
}
_PREFIX_LENGTHS = sorted({len(k) for k in PREFIX_KINDS}, reverse=True)
#: `Rscript -e '...'` and friends: what an R, Julia or MATLAB expression does.
_EXPRESSIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("deploy", re.compile(r"\b(?:deployApp|deployDoc|deployAPI|deploy_to_branch|deploy_site_github)\s*\(")),
    ("publish", re.compile(r"\b(?:devtools::release|release|submit_cran)\s*\(")),
    ("test", re.compile(r"\b(?:rcmdcheck|check|runtests|test_dir|test_check|test_local)\s*\(|\bruntests\b")),
    ("build", re.compile(r"\b(?:build|render|render_site|build_site|install)\s*\(")),
    ("db_connect", re.compile(r"\b(?:dbConnect|odbcConnect|DBInterface\.connect|LibPQ\.Connection)\s*\(")),
)
_EXPRESSION_RUNTIMES = _set("rscript r julia matlab octave")


def _expression_kind(part: Simple) -> str | None:
    if part.program not in _EXPRESSION_RUNTIMES:
        return None
    marks = ("-e", "--eval", "-batch", "-r", "--vanilla")
    text = " ".join(a for i, a in enumerate(part.args) if i and part.args[i - 1] in marks)
    return next((kind for kind, pattern in _EXPRESSIONS if pattern.search(text)), None)


#: OpenOCD's and lftp's commands given with `-c`/`-e`: a flash write, a reverse mirror, a put.
_SCRIPTED = {
    "jboss-cli": re.compile(r"^\s*deploy\b"),
    "openocd": re.compile(r"\b(?:program|flash write_image)\b"),
    "lftp": re.compile(r"\b(?:mirror\s+(?:-\w+\s+)*(?:-R|--reverse)|put|mput)\b"),
}


def _scripted_transfer(part: Simple) -> bool:
    pattern = _SCRIPTED.get(part.program)
    if pattern is None:
        return False
    args = part.args
    given = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "-e", "--command")]
    given += [a.split("=", 1)[1] for a in args if a.startswith(("--command=", "--commands="))]
    return any(pattern.search(g) for g in given)


def _game_build(part: Simple) -> str | None:
    """Unity's batch mode (`-executeMethod Builder.PerformBuild`, `-runTests`), Steam's upload of a
    build (`steamcmd +run_app_build app.vdf`) and Epic's (`BuildPatchTool -mode=UploadBinary`)."""
    lowered = [a.lower() for a in part.args]
    if part.program == "buildpatchtool" and "-mode=uploadbinary" in lowered:
        return "publish"
    if part.program.startswith("unity"):
        if "-runtests" in lowered:
            return "test"
        method = next((lowered[i + 1] for i, a in enumerate(lowered[:-1]) if a == "-executemethod"), "")
        return "build" if "build" in method else None
    if part.program == "steamcmd" and any(a in ("+run_app_build", "+run_app_build_http") for a in lowered):
        return "publish"
    return None


def _named(part: Simple) -> str | None:
    """The kind this module's tables give `part`: by its program, by its first words, or by one of
    the families whose words say nothing."""
    found = PROGRAM_KINDS.get(part.program)
    if found is not None:
        return found
    words = (part.program, *(w.lower() for w in part.words[:3]))
    found = next((PREFIX_KINDS[words[:n]] for n in _PREFIX_LENGTHS if words[:n] in PREFIX_KINDS), None)
    return found or _family(part)


def _family(part: Simple) -> str | None:
    if part.program == "ansible" and any(a in ("-m", "--module-name", "-a", "--args") for a in part.args):
        return "auth"  # an ad-hoc module run on the inventory's hosts: a connection to each
    if "login" in _tokens(part.program) and part.program != "login":
        return "auth"  # `aws-azure-login`, `saml2aws-login`: a program that is a login
    if (part.program == "hurl" and "--test" in part.args) or _unity_tests(part):
        return "test"
    if _scripted_transfer(part) or _image_update(part) or _closure_copy(part) or _prod_compose(part):
        return "deploy"
    if part.program == "dpkg-deb" and any(a in ("-b", "--build") for a in part.args):
        return "build"
    return _run_target(part) or _flagged_build(part) or _expression_kind(part) or _game_build(part)


def _unity_tests(part: Simple) -> bool:
    return part.program.startswith("unity") and any(a.lower() == "-runtests" for a in part.args)


def _image_update(part: Simple) -> bool:
    """`<cloud> run services update api --image X`, `<cloud> app update --spec app.yaml`: a running
    service given a new image or spec (a deploy, whatever the CLI)."""
    updating = any(w.lower() in ("update", "set", "replace") for w in part.words[:4])
    given = any(a.split("=", 1)[0] in ("--image", "--spec", "--container-image") for a in part.args)
    return updating and given and part.program != "git"


def _prod_compose(part: Simple) -> bool:
    """`docker compose -f compose.prod.yml up -d`: a production stack started (a deploy on the
    machine it runs on); a compose file for development, or any other compose verb, is not."""
    if part.program not in ("docker", "podman", "docker-compose", "podman-compose") or "up" not in part.words:
        return False
    files = [part.args[i + 1] for i, a in enumerate(part.args[:-1]) if a in ("-f", "--file")]
    files += [a.split("=", 1)[1] for a in part.args if a.startswith("--file=")]
    return any(_PROD.match(t) for f in files for t in _tokens(f.rsplit("/", 1)[-1]))


def _closure_copy(part: Simple) -> bool:
    """`nix copy --to ssh://host ./result`: a built system copied to another machine."""
    return part.program == "nix" and part.sub() == "copy" and any(a.startswith("--to") for a in part.args)


_BUILD_SYSTEMS = _set("bazel bazelisk buck buck2 pants please")


def _run_target(part: Simple) -> str | None:
    """`bazel run //deploy:push`, `pants run src/deploy:release`: a target named for what it does;
    `gh workflow run deploy.yml`: a CI workflow started by hand, named for what it does."""
    if part.program in ("gh", "glab") and part.words[:2] == ("workflow", "run") and len(part.words) > 2:
        name = re.sub(r"\.ya?ml$", "", part.words[2].rsplit("/", 1)[-1])
    elif part.program in _BUILD_SYSTEMS and part.sub() == "run" and len(part.words) > 1:
        name = part.words[1].lstrip("/")
    else:
        return None
    kinds = [VERBS[t] for t in _tokens(name) if t in VERBS]
    return min(kinds, key=_ORDER.index) if kinds else None


def _flagged_build(part: Simple) -> str | None:
    """`clojure -T:build jar`, `UnrealEditor-Cmd Game.uproject -run=cook`: a build alias or step."""
    if any(re.match(r"^-[TX]:build\b", a) for a in part.args):
        return "build"
    unreal = part.program.startswith(("ue4editor", "unrealeditor"))
    return "build" if unreal and any(a.lower() == "-run=cook" for a in part.args) else None


#: Each structural test with the kind it gives, the most telling first.
_SHAPES: tuple[tuple[str, Callable[[Simple], bool]], ...] = (
    ("test", test_shape),
    ("deploy", prod_converge),
    ("db_connect", db_url),
    ("db_connect", db_flags),
)


def _shaped(part: Simple) -> str | None:
    """The kind an unknown tool's destination or script folder names, before its verbs."""
    if storage_upload(part):
        return "deploy"
    if image_copy(part):
        return "publish"
    return "test" if test_script(part) else None


def kind(part: Simple) -> str | None:
    """The kind of `part` by its ecosystem's tables or its shape, or None (the caller has already
    refused reads and rehearsals and asked its own tables first)."""
    named = _named(part)
    if named is not None or part.program in NOT_GENERIC:
        return named
    if any(a in _READ_FLAGS for a in part.args):
        return None
    found = _shaped(part) or verb_kind(part)
    return found or next((name for name, applies in _SHAPES if applies(part)), None)
