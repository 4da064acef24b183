"""What kind of action a successful simple command is evidence of: test, publish, deploy, build,
database connection or login, judged by its program and subcommand (`make test` is a test, `helm
upgrade` a deploy), after the fields' own shapes and before an unknown tool's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoryos.policies import commands_ecosystems as ecosystems
from memoryos.policies import commands_fields as fields
from memoryos.policies import commands_ops as ops
from memoryos.policies import commands_platforms as platforms
from memoryos.policies import commands_targets as targets
from memoryos.policies import commands_vocab as vocab
from memoryos.policies.commands_reads import is_read, is_rehearsal
from memoryos.policies.commands_targets import Simple
from memoryos.policies.commands_tasks import NOT_GENERIC, TASK_RUNNERS, generic_sub, task_kind, task_of

_BUILD_TOOLS = frozenset(
    "cargo go dotnet docker podman bazel swift zig stack cabal buildah nix hugo mkdocs jekyll vite next "
    "nuxt astro flutter dart poetry uv hatch pdm flit".split()
)


def _is_test(part: Simple) -> bool:
    program, args = part.program, part.args
    checks = (
        program in vocab.TEST_PROGRAMS or task_of(part) == "test" or vocab.PS_CMDLETS.get(program) == "test",
        # `pytest-3`, `ansible-test units`, `test-kitchen`: a runner named for its tests
        bool(re.fullmatch(r"pytest[\d.]*(?:-[\d.]+)?|(?:\w+-)+tests?|tests?(?:-\w+)+", program)),
        program.startswith("python") and args[:1] == ("-m",) and args[1:2] in _PY_TEST_MODULES,
        program in ("yarn", "pnpm", "bun") and part.sub() in vocab.TEST_PROGRAMS,
        program == "node" and "--test" in args,
        program == "r" and part.words[:2] == ("CMD", "check"),
        # `Rscript -e 'devtools::test()'`, `julia -e 'Pkg.test()'`
        program in ("rscript", "julia", "r") and bool(re.search(r"\btest(?:_\w+)?\(", " ".join(args))),
        any(re.match(r"^-[XMA]:(?:\w+:)?test\w*$", a) for a in args),  # `clojure -X:test`, `clj -M:test`
        generic_sub(part, vocab.TEST_SUBCOMMANDS),
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
    if task_of(part) == "publish" and program not in vocab.PLATFORMS:
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
    if task_of(part) == "deploy" or (program in vocab.PLATFORMS and targets.platform_deploy(words)):
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
        lambda: program not in NOT_GENERIC and _compound_deploy(part),
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
        task_of(part) == "build" or vocab.PS_CMDLETS.get(program) == "build",
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
        generic_sub(part, vocab.BUILD_SUBCOMMANDS),
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
    found = fields.kind(part) or platforms.kind(part)
    found = found or next((kind for kind, applies in KINDS if applies(part)), None)
    found = found or ops.kind(part, task_kind)  # configuration runs, pipelines, mobile, fan-out shells
    if found is not None or part.program in TASK_RUNNERS or part.program in ops.OWN_WORDS:
        return found  # a task runner's words are task names, judged above
    return ecosystems.kind(part)  # an unknown tool, by the shape of its words
