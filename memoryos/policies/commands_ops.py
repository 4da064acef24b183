"""Operations vocabulary of `memoryos.policies.commands`: configuration management (Salt, Puppet,
Chef, Bolt), delivery pipelines and bundles (Spinnaker, Tekton, Databricks, Astronomer, MLflow and
the model-serving CLIs), artifact and data publishing (Firebase App Distribution, DVC, Hugging
Face, GitHub releases, conda), mobile toolchains (fastlane actions, xcodebuild, Gradle tasks) and
fan-out remote shells (pssh, pdsh, clush, knife ssh). Pure functions over `Simple`.

Written from what each tool does, not from any corpus line. A configuration run converges real
machines, so it is a deploy; the same run in its rehearsal mode (`test=True`, `--noop`,
`--why-run`) is no evidence and is refused like any dry run.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoryos.policies.commands_targets import Simple

# -- configuration management --------------------------------------------------------------------

#: Salt functions that converge a minion to its states (`salt '*' state.apply`, `salt-call
#: state.highstate`, `salt-run state.orchestrate`).
_SALT_STATES = frozenset(
    "state.apply state.highstate state.sls state.sls_id state.single state.orchestrate state.orch".split()
)
_SALT = frozenset({"salt", "salt-call", "salt-ssh", "salt-run"})
#: Programs that converge the machine they run on, whatever their arguments.
_CONVERGERS = frozenset({"chef-client", "chef-solo", "chef-apply", "chef-run", "ansible-pull", "cinc-client"})


def _config_run(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program in _SALT:
        return any(a.lower() in _SALT_STATES for a in part.args)
    if program == "puppet":
        # `puppet agent -t` is `--test`: one verbose run that applies the catalogue (not a dry run)
        return sub == "apply" or (
            sub == "agent" and any(a in ("-t", "--test", "--onetime", "-o") for a in part.args)
        )
    if program == "bolt":
        return sub in ("apply",) or (sub == "plan" and part.sub(1) == "run")
    if program in ("knife", "knife-zero"):
        return sub == "bootstrap" or (sub == "zero" and part.sub(1) in ("bootstrap", "converge"))
    if program == "pyinfra":  # `pyinfra inventory.py deploy.py`: operations run on the inventory
        return len(part.words) > 1
    return program in _CONVERGERS or (program, sub) in _CONVERGING_PAIRS


#: `r10k deploy`, `kapp deploy -a web`, `flux reconcile kustomization apps`, `mkdocs gh-deploy`.
_CONVERGING_PAIRS = frozenset(
    {("r10k", "deploy"), ("kapp", "deploy"), ("flux", "reconcile"), ("mkdocs", "gh-deploy")}
)
#: PowerShell DSC applies a configuration to the node (`Start-DscConfiguration -Path .\Web -Wait`).
_DSC_APPLY = frozenset({"start-dscconfiguration", "update-dscconfiguration", "publish-dscconfiguration"})


#: Programs whose `-n` is a dry run, also inside a cluster of short flags (`rsync -avzn`, `make -nB`).
_DASH_N_DRY = frozenset({"rsync", "make", "gmake", "snakemake"})
_SHORT_CLUSTER_N = re.compile(r"^-[A-Za-z0-9]*n[A-Za-z0-9]*$")


def rehearsal(part: Simple) -> bool:
    """A rehearsal: Salt's `test=True`, Chef's `--why-run`/`-W`, rsync's and make's `-n` wherever it
    stands among combined short flags."""
    if part.program in _DASH_N_DRY and any(_SHORT_CLUSTER_N.match(a) for a in part.args):
        return True
    if part.program in _SALT and any(a.lower() in ("test=true", "test=1") for a in part.args):
        return True
    if part.program == "pyinfra" and "--dry" in part.args:
        return True
    return part.program in _CONVERGERS and any(a in ("-W", "--why-run") for a in part.args)


# -- pipelines, bundles and model serving ---------------------------------------------------------


def _pipeline_kind(part: Simple, task_kind: Callable[[str], str | None]) -> str | None:
    """`spin pipeline execute --name deploy-prod`, `tkn pipeline start build-and-test`: a delivery
    pipeline started by name is what its name says, a deploy when it says nothing else
    (a Spinnaker pipeline deploys)."""
    program, args = part.program, part.args
    if program == "spin" and part.words[:2] == ("pipeline", "execute"):
        named = task_kind(_flag(args, ("--name", "-n")) or "")
        return named if named in ("test", "build") else "deploy"
    if program == "tkn" and part.sub() in ("pipeline", "p") and part.sub(1) == "start":
        words = part.words
        return task_kind(words[2]) if len(words) > 2 else None
    return None


def _flag(args: tuple[str, ...], flags: tuple[str, ...]) -> str | None:
    for index, arg in enumerate(args):
        name, _, value = arg.partition("=")
        if name in flags:
            return value or (args[index + 1] if index + 1 < len(args) else None)
    return None


#: Data and ML platforms whose `deploy` subcommand ships (`astro deploy`, `modal deploy app.py`,
#: `prefect deploy`, `databricks bundle deploy`, `databricks apps deploy`).
_DEPLOYING = frozenset(
    {"astro", "modal", "prefect", "bentoml", "beam", "dagster-cloud", "databricks", "truss"}
)


def _platform_deploy(part: Simple) -> bool:
    program, words = part.program, [w.lower() for w in part.words[:2]]
    if program in _DEPLOYING and ("deploy" in words or (program == "truss" and words[:1] == ["push"])):
        return True
    if program == "mlflow":  # `mlflow deployments create -t sagemaker`, `mlflow sagemaker deploy`
        return (words[:1] == ["deployments"] and part.sub(1) in ("create", "update")) or words == [
            "sagemaker",
            "deploy",
        ]
    if program == "ghp-import":  # a built site pushed to GitHub Pages, as `mkdocs gh-deploy` does
        return "-p" in part.args or "--push" in part.args
    return program in ("levant", "nomad-pack") and words[:1] in (["deploy"], ["run"])


# -- publishing artifacts and data ----------------------------------------------------------------


def _publishes(part: Simple) -> bool:
    program, sub, words = part.program, part.sub(), part.words
    checks = (
        # `firebase appdistribution:distribute app.apk`, `appcenter distribute release`
        program == "firebase" and sub == "appdistribution:distribute",
        program == "appcenter" and sub == "distribute",
        program == "dvc" and sub == "push",  # data and models to the remote store
        program in ("huggingface-cli", "hf") and sub in ("upload", "upload-large-folder"),
        program in ("gh", "glab") and words[:2] == ("release", "upload"),
        program == "anaconda" and sub == "upload",
        program == "kaggle"
        and sub in ("datasets", "kernels", "models")
        and part.sub(1) in ("create", "version", "push"),
        program == "wandb" and sub == "artifact" and part.sub(1) == "put",
        program == "cog" and sub == "push",
        # configuration code to its server or hub: `knife cookbook upload`, `berks upload`,
        # `ansible-galaxy collection publish`, `knife supermarket share`
        program == "knife" and words[:2] in (("cookbook", "upload"), ("supermarket", "share")),
        program == "berks" and sub == "upload",
        program == "ansible-galaxy" and "publish" in words[:2],
        program == "gcloud" and sub == "artifacts" and "upload" in words[:4],
        program == "altool" and any(a in ("--upload-app", "--upload-package") for a in part.args),
        # Hackage: `cabal upload` sends a candidate unless `--publish`; `stack upload` publishes
        # unless `--candidate`
        program == "cabal" and sub == "upload" and ("--publish" in part.args or "-p" in part.args),
        program == "stack" and sub == "upload" and "--candidate" not in part.args,
    )
    return any(checks)


# -- mobile toolchains ------------------------------------------------------------------------------

#: fastlane actions run by name (`fastlane gym`, `fastlane run upload_to_testflight`).
_FASTLANE_ACTIONS = {
    **dict.fromkeys("gym build_app build_ios_app build_android_app build_mac_app".split(), "build"),
    **dict.fromkeys("scan run_tests".split(), "test"),
    **dict.fromkeys("pilot upload_to_testflight deliver upload_to_app_store supply".split(), "deploy"),
    **dict.fromkeys("upload_to_play_store appcenter_upload firebase_app_distribution".split(), "deploy"),
    "spaceauth": "auth",  # a session for Apple's portals
    "beta": "deploy",  # the lane fastlane's own Fastfile template ships to testers
}
_PLATFORM_WORDS = frozenset({"ios", "android", "mac"})


def _fastlane(part: Simple, task_kind: Callable[[str], str | None]) -> str | None:
    """`fastlane ios beta`, `bundle exec fastlane android deploy`, `fastlane gym`: an action by its
    kind, a lane by its name."""
    words = [w for w in part.words if w.lower() not in _PLATFORM_WORDS]
    if words[:1] == ["run"]:
        words = words[1:]
    if not words or "=" in words[0]:
        return None
    return _FASTLANE_ACTIONS.get(words[0].lower()) or task_kind(words[0])


_XCODE_READS = frozenset({"-list", "-showsdks", "-version", "-showbuildsettings", "-showdestinations"})


def xcode_read(part: Simple) -> bool:
    """`xcodebuild -list`, `-showsdks`, `-showBuildSettings`: the project or SDKs described."""
    return part.program == "xcodebuild" and any(a.lower() in _XCODE_READS for a in part.args)


_GRADLE = frozenset({"gradle", "gradlew"})
#: Programs whose every word this module judges (tasks, lanes): no other reading applies.
OWN_WORDS = _GRADLE | {"fastlane", "cabal", "stack"}  # Hackage's candidate uploads are not publishes
_GRADLE_TEST = re.compile(r"(?:Test|Tests|Check)$")
_ORDER = ("deploy", "publish", "test", "build")


def _gradle(part: Simple, task_kind: Callable[[str], str | None]) -> str | None:
    """Every task a Gradle run names (`./gradlew clean assembleDebug`, `:app:connectedCheck`,
    `testDebugUnitTest`, `connectedAndroidTest`), the most telling first."""
    kinds = []
    for word in part.words:
        task = word.split(":")[-1]
        kind = task_kind(task) or ("test" if _GRADLE_TEST.search(task) else None)
        if kind is not None:
            kinds.append(kind)
    return min(kinds, key=_ORDER.index) if kinds else None


# -- fan-out remote shells ------------------------------------------------------------------------

#: Programs that run a command on many hosts over ssh: each run is a connection to them.
FANOUT_SHELLS = frozenset(
    {"pssh", "parallel-ssh", "pdsh", "clush", "dsh", "mussh", "cssh", "clusterssh", "pdcp", "prsync"}
)


def _remote_fanout(part: Simple) -> bool:
    program, sub = part.program, part.sub()
    if program in FANOUT_SHELLS:
        return bool(part.args)
    if program == "knife":
        return sub in ("ssh", "winrm")
    if program == "salt-ssh":  # a state run is a deploy (above); anything else runs over ssh
        return len(part.words) > 1
    return program == "bolt" and sub in ("command", "script") and part.sub(1) == "run"


def _device_tests(part: Simple) -> bool:
    """Tests run on a device or simulator: `adb shell am instrument -w ...`, `flutter drive`."""
    if part.program == "adb":
        return part.words[:3] == ("shell", "am", "instrument")
    return part.program == "flutter" and part.sub() == "drive"


#: Godot's headless exports write a game's release or debug build (`godot --export-release Web`).
_GODOT_EXPORTS = frozenset({"--export-release", "--export-debug", "--export-pack", "--export"})


def _pio_clean(part: Simple) -> bool:
    """`pio run -t clean`: the build folder removed, nothing compiled."""
    args = part.args
    return any(a in ("-t", "--target") and args[i + 1 : i + 2] == ("clean",) for i, a in enumerate(args)) or (
        "--target=clean" in args
    )


_SBT_BUILDS = frozenset({"assembly", "stage", "dist", "packageBin", "compile", "package"})


def _builds(part: Simple) -> bool:
    program = part.program
    checks = (
        program in ("conda-build", "conda-mambabuild", "boa"),
        # PlatformIO compiles the firmware of each environment (`pio run -e esp32`)
        program in ("pio", "platformio") and part.sub() == "run" and not _pio_clean(part),
        # sbt's packaging tasks after others (`sbt clean assembly`, `sbt test:compile stage`)
        program == "sbt" and any(w.split(":")[-1] in _SBT_BUILDS for w in part.words),
        program.startswith("godot") and any(a.split("=", 1)[0] in _GODOT_EXPORTS for a in part.args),
    )
    return any(checks)


def _db_shell(part: Simple) -> bool:
    """Framework CLIs that open the project's database shell: `wp db cli`, `php artisan db` (never
    `artisan db:seed` or `wp db export`, which run a task against it)."""
    words = part.words
    if part.program == "artisan" or (part.program == "php" and words[:1] == ("artisan",)):
        return words[1 if part.program == "php" else 0 :][:1] == ("db",)
    return part.program == "wp" and words[:2] == ("db", "cli")


#: The folders a static site generator or a bundler writes its output to.
_BUILD_OUTPUTS = frozenset(
    "dist build public out _site site www html _build storybook-static .output output".split()
)
_RCLONE_COPIES = frozenset({"sync", "copy", "copyto", "move"})
_REMOTE_PATH = re.compile(r"^[A-Za-z0-9][\w.-]+:")  # `name:path`; a drive letter `C:` is one character


def _site_sync(part: Simple) -> bool:
    """`rclone sync dist/ r2:site`: a build's output folder copied to a remote's bucket is a deploy of
    the site (a copy of other local files to a remote is a backup, one from a remote a download)."""
    paths = part.words[1:]
    if part.program != "rclone" or part.sub() not in _RCLONE_COPIES or len(paths) != 2:
        return False
    source, destination = paths
    folder = source.rstrip("/*").rsplit("/", 1)[-1].lower()
    local = not _REMOTE_PATH.match(source)
    return bool(_REMOTE_PATH.match(destination)) and local and folder in _BUILD_OUTPUTS


def _deploys(part: Simple) -> bool:
    return _config_run(part) or _platform_deploy(part) or part.program in _DSC_APPLY or _site_sync(part)


#: Each kind with the test that says a command is of it, the most telling first.
_KINDS: tuple[tuple[str, Callable[[Simple], bool]], ...] = (
    ("deploy", _deploys),
    ("publish", _publishes),
    ("test", _device_tests),
    ("build", _builds),
    ("db_connect", _db_shell),
    ("auth", _remote_fanout),
)


def kind(part: Simple, task_kind: Callable[[str], str | None]) -> str | None:
    """The kind of action `part` is in this vocabulary, or None when it says nothing about it."""
    if part.program in _GRADLE or part.program == "sbt":  # every task of the run, as Gradle's
        return _gradle(part, task_kind)
    if part.program == "fastlane":
        return _fastlane(part, task_kind)
    found = _pipeline_kind(part, task_kind)
    return found or next((name for name, applies in _KINDS if applies(part)), None)
