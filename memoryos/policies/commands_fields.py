"""What a command is in the fields whose tools say it in words no other table reads: a CMS's live
site brought up to date (`wp plugin update`, `drush cim`, `bin/magento setup:upgrade`), a firmware
upload by a build tool's target (`pio run -t upload`, `make flash`), a batch job waited for on a
cluster (`sbatch --wait tests/regression.slurm`), a build from source by a package manager that
builds (`spack install`), a release tag pushed (`git push origin v2.4.0`), a deploy hook
called with an HTTP client that fails on an HTTP error (`curl -fsS -X POST .../deploy/...`), and a
program named for its action (`catkin_make`, `run-tests`). Pure functions over `Simple`; asked by
`commands.kind_of` before its own tables, after reads and rehearsals are refused.

Each shape asks for what makes the exit status mean the action happened: `sbatch` without
`--wait` only queues a job, `curl` without `--fail` exits 0 on an HTTP 500, `wp plugin list` reads.
"""

from __future__ import annotations

import re

from memoryos.policies.commands_targets import Simple


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- content management systems --------------------------------------------------------------------

#: `wp <object> <verb>`: WP-CLI's verbs that change the site it is pointed at.
_WP_OBJECTS = _set("core plugin theme language")
_WP_CHANGES = _set("update activate")
#: Drush's commands that bring a Drupal site to the code's state (config import, database updates).
_DRUSH_DEPLOYS = _set("deploy cim config:import config-import updb updatedb updatedb:batch-process entup")
#: Magento's, Craft's and Shopware's commands that apply the code's schema and assets to the store.
_STORE_DEPLOYS = {
    "magento": _set("setup:upgrade setup:static-content:deploy deploy:mode:set"),
    "craft": _set("up migrate/all project-config/apply"),
    "console": _set("system:update:finish theme:compile"),
}


def _odoo(part: Simple) -> bool:
    """`odoo-bin -c prod.conf -u sale -d prod --stop-after-init`: modules updated on a database."""
    if part.program not in ("odoo", "odoo-bin", "openerp-server"):
        return False
    flags = {a.split("=", 1)[0] for a in part.args}
    return bool(flags & {"-u", "--update", "-i", "--init"}) and bool(flags & {"-d", "--database"})


def site_words(part: Simple) -> tuple[str, ...]:
    """A site CLI's words without its site alias: `wp @production plugin update` is about `plugin
    update`, `drush @prod cim` about `cim` (WP-CLI and Drush both name a site `@alias` first)."""
    words = tuple(w.lower() for w in part.words)
    while words and words[0].startswith("@"):
        words = words[1:]
    return words


def _cms(part: Simple) -> bool:
    if _odoo(part):
        return True
    words = site_words(part)[:2]
    if part.program == "wp":
        return len(words) == 2 and words[0] in _WP_OBJECTS and words[1] in _WP_CHANGES
    if part.program == "drush":
        return any(w in _DRUSH_DEPLOYS for w in words)
    deploys = _STORE_DEPLOYS.get(part.program)
    return deploys is not None and bool(words) and words[0] in deploys


# -- firmware --------------------------------------------------------------------------------------

_UPLOAD_TARGETS = _set("upload program uploadfs flash upload-fs")


def _firmware_target(part: Simple) -> bool:
    """`pio run -e esp32dev -t upload`: PlatformIO's build run with an upload target writes the
    firmware to the board."""
    if part.program not in ("pio", "platformio") or part.sub() != "run":
        return False
    args = part.args
    given = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-t", "--target")]
    given += [a.split("=", 1)[1] for a in args if a.startswith("--target=")]
    return any(t.lower() in _UPLOAD_TARGETS for t in given)


# -- batch schedulers ------------------------------------------------------------------------------

#: A scheduler's flags that make it wait for the job, so its exit status is the job's.
_WAITING = {
    "sbatch": ("--wait", "-W"),
    "qsub": ("-sync", "-Wblock=true", "block=true"),
    "bsub": ("-K",),
}
_TEST_PATH = re.compile(r"(?:^|[/\\])(?:tests?|spec|regression|e2e)(?:[/\\_.-]|$)|_tests?\.|test_", re.I)
_BUILD_PATH = re.compile(r"(?:^|[/\\_.-])(?:build|compile)(?:[/\\_.-]|$)", re.I)


def _batch_job(part: Simple) -> str | None:
    """`sbatch --wait tests/run_regression.slurm`, `srun ./unit_tests`: a job waited for on a cluster,
    of the kind its script is named for."""
    if part.program == "srun":
        waited = True
    elif part.program in _WAITING:
        waited = any(a in _WAITING[part.program] or a.startswith("--wait") for a in part.args)
    else:
        return None
    script = next((w for w in part.words if "/" in w or "." in w), "")
    if not waited or not script:
        return None
    if _TEST_PATH.search(script):
        return "test"
    return "build" if _BUILD_PATH.search(script) else None


# -- software repositories of managed machines ----------------------------------------------------

#: Mac and Windows fleet tools that import a package into the repository the fleet installs from.
_FLEET_PUBLISHERS = _set("munkiimport makecatalogs")


def _fleet_publish(part: Simple) -> bool:
    """`munkiimport Firefox.dmg`, `autopkg run Firefox.munki`: software made available to a fleet."""
    if part.program in _FLEET_PUBLISHERS:
        return bool(part.words) or part.program == "makecatalogs"
    recipes = [w for w in part.words if w.endswith((".munki", ".jss", ".intune"))]
    return part.program == "autopkg" and part.sub() == "run" and bool(recipes)


# -- builds from source ----------------------------------------------------------------------------

#: Package managers that compile what they install (Spack, Portage, pkgsrc) and environment
#: builders whose file is the project's recipe (`conda env create -f environment.yml`).
_SOURCE_BUILDS = {
    ("spack", "install"),
    ("emerge",),
    ("conda", "env", "create"),
    ("mamba", "env", "create"),
    ("micromamba", "create"),
    ("conda-build",),
    ("conda", "build"),
    ("rattler-build", "build"),
    ("bitbake",),
}


def _source_build(part: Simple) -> bool:
    words = (part.program, *(w.lower() for w in part.words[:2]))
    if any(words[: len(k)] == k for k in _SOURCE_BUILDS):
        env_create = words[1:3] == ("env", "create") or part.program == "micromamba"
        return not env_create or any(a in ("-f", "--file") or a.startswith("--file=") for a in part.args)
    return False


# -- release tags --------------------------------------------------------------------------------

_VERSION_TAG = re.compile(r"^(?:refs/tags/\S+|v?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?)$")


def _release_push(part: Simple) -> bool:
    """`git push origin v2.4.0`, `git push --tags`: a release tag pushed (what starts a release
    pipeline); a branch pushed (or `p4 submit`, a changelist) is code shared, not a release."""
    if part.program != "git" or part.sub() != "push" or {"-d", "--delete"} & set(part.args):
        return False
    refs = part.words[2:]  # after `push` and the remote
    return "--tags" in part.args or any(_VERSION_TAG.match(r.split(":")[-1]) for r in refs)


# -- deploy hooks ----------------------------------------------------------------------------------

_HTTP_CLIENTS = _set("curl wget http https xh")
_HOOK_PATH = re.compile(
    r"(?:^|[/._-])(?:deploy|deploys|redeploy|build_hooks|deploy_hooks)(?:[/?._-]|$)", re.IGNORECASE
)


def _fails_on_error(part: Simple) -> bool:
    """The client's exit status says whether the server accepted: curl with `--fail`, HTTPie with
    `--check-status`, wget always."""
    if part.program == "wget":
        return True
    if part.program == "curl":
        return any(
            a in ("--fail", "--fail-with-body") or re.match(r"^-[a-zA-Z]*f[a-zA-Z]*$", a) for a in part.args
        )
    return "--check-status" in part.args


def _posts(part: Simple) -> bool:
    args = part.args
    lowered = [a.lower() for a in args]
    if part.program in ("http", "https", "xh"):
        return "post" in lowered[:3]
    if part.program == "wget":
        return any(a.startswith(("--post-data", "--post-file")) for a in args)
    for index, arg in enumerate(args):
        if arg in ("-X", "--request") and index + 1 < len(args) and args[index + 1].upper() == "POST":
            return True
        if arg in ("-XPOST", "--request=POST") or arg.startswith(("-d", "--data", "--json", "-F", "--form")):
            return True
    return False


def _deploy_hook(part: Simple) -> bool:
    """`curl -fsS -X POST https://api.example.com/deploy/srv-1?key=$KEY`: a deploy hook called, its
    answer checked."""
    if part.program not in _HTTP_CLIENTS or not _posts(part) or not _fails_on_error(part):
        return False
    urls = [a for a in part.args if re.match(r"^https?://", a)]
    return any(_HOOK_PATH.search(re.sub(r"^https?://[^/]+", "", u)) for u in urls)


# -- releases deployed by a flag, images copied into a registry ----------------------------------------

_DEPLOY_TO = re.compile(r"^--?(?:deploy-?to|promote-?to)(?:=\S+)?$", re.IGNORECASE)
_REGISTRY_REF = re.compile(r"^docker://[a-z0-9][a-z0-9.-]*\.[a-z]{2,}(?::\d+)?/\S+$")


def _deployed_to(part: Simple) -> bool:
    """`octo create-release --project web --deployto Production`: a release created and deployed."""
    return any(_DEPLOY_TO.match(a) for a in part.args)


def _registry_copy(part: Simple) -> bool:
    """`skopeo copy docker://local/api:1 docker://registry.example.io/api:1`: an image into a registry."""
    refs = [w for w in part.words if w.startswith("docker://")]
    return (
        part.program == "skopeo"
        and part.sub() == "copy"
        and len(refs) == 2
        and bool(_REGISTRY_REF.match(refs[1]))
    )


# -- programs named for their action ---------------------------------------------------------------

_NAMED_ACTIONS = {
    "make": "build",
    "build": "build",
    "test": "test",
    "tests": "test",
    "deploy": "deploy",
    "release": "publish",  # `bloom-release`, `semantic-release`: a release tool releases
}
#: A first word that makes a `*-release` program a step before the release (`prepare-release`,
#: `check-release`), not the release itself.
_BEFORE_RELEASE = _set("prepare pre create make new draft bump check verify validate lint plan list show get")
_NAME_TOKENS = re.compile(r"[_-]")


def _named_program(part: Simple) -> str | None:
    """`catkin_make`, `run-tests`, `app-deploy`: an unknown program whose name ends with the action
    it takes (never a script: `commands` reads those by their names already)."""
    if part.script:
        return None
    tokens = _NAME_TOKENS.split(part.program)
    if len(tokens) < 2 or not all(tokens):
        return None
    if tokens[-1] == "release" and (tokens[0] in _BEFORE_RELEASE or not part.args):
        return None  # `prepare-release`; a release tool run bare mostly prints its usage
    return _NAMED_ACTIONS.get(tokens[-1])


def kind(part: Simple) -> str | None:
    """The kind one of this module's fields gives `part`, or None."""
    if _cms(part) or _firmware_target(part) or _deploy_hook(part) or _deployed_to(part):
        return "deploy"
    if _release_push(part) or _fleet_publish(part) or _registry_copy(part):
        return "publish"
    if _source_build(part):
        return "build"
    return _batch_job(part) or _named_program(part)
