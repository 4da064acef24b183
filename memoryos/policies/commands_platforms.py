"""What a command is on platforms whose CLIs say an action in their own nouns: a Salesforce package
version promoted (a release) or a check-only deploy that runs the org's tests, SQL given to a
CLI's query subcommand, a WordPress or Drupal site's database reached through its CLI, an Intune
app or profile assigned through Microsoft Graph, an installer packaged, an IIS application pool
recycled, a release tagged in Subversion, and a cache cleared (routine upkeep that teaches
nothing). Pure functions over `Simple`; asked by `commands_kinds.kind_of` with the fields' shapes
(`commands_fields`), and `routine_upkeep` / `tested_validation` by `commands_reads.is_read`.

Each shape asks for what makes the exit status mean the action happened: a validation counts only
when tests were asked for, a Graph call only when it POSTs an assignment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoryos.policies import commands_ecosystems as ecosystems
from memoryos.policies.commands_fields import site_words
from memoryos.policies.commands_targets import Simple


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _path_tokens(part: Simple, limit: int = 4) -> list[str]:
    """The subcommand path's words split at `:`, `.`, `-` and `_` (`force:package:version:promote`)."""
    return [t for w in ecosystems.path_words(part, limit) for t in re.split(r"[:._-]+", w.lower()) if t]


def _flag(args: tuple[str, ...], names: tuple[str, ...]) -> str | None:
    """The value of the first of `names` given (`--test-level X`, `--test-level=X`, `-l X`)."""
    for index, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if name.lower() in names:
            return value if equals else (args[index + 1] if index + 1 < len(args) else "")
    return None


# -- Salesforce -----------------------------------------------------------------------------------

_CHECK_ONLY = _set("--checkonly -c --check-only")
_TEST_LEVELS = ("--test-level", "--testlevel", "-l")


def tested_validation(part: Simple) -> bool:
    """`sf project deploy validate --test-level RunLocalTests`, `sfdx force:source:deploy --checkonly
    --testlevel RunAllTestsInOrg`: a check-only deploy that changes nothing and runs the org's Apex
    tests, so its success says the tests pass (a validation that runs none proves nothing)."""
    if part.program not in ("sf", "sfdx"):
        return False
    tokens = _path_tokens(part)
    checking = "validate" in tokens or bool(_CHECK_ONLY & {a.lower() for a in part.args})
    if not checking or "deploy" not in tokens:
        return False
    level = _flag(part.args, _TEST_LEVELS) or ""
    named = _flag(part.args, ("--tests", "-t", "--runtests", "-r"))
    return bool(named) or level.lower().startswith("run")


def _package_promote(part: Simple) -> bool:
    """`sf package version promote`, `sfdx force:package:version:promote`: a package version released
    (a version `create`d is only built)."""
    tokens = _path_tokens(part)
    return "promote" in tokens and bool({"package", "packages"} & set(tokens[: tokens.index("promote")]))


# -- SQL given to a query subcommand --------------------------------------------------------------

_SQL = re.compile(
    r"^\s*\(?\s*(?:select\s+\S|with\s+\w+\s+as\s*\(|insert\s+into\s|update\s+\w[\w.\"`]*\s+set\s|"
    r"delete\s+from\s|show\s+\w|describe\s+\w|explain\s+\w|call\s+\w)",
    re.IGNORECASE,
)
_QUERY_TOKENS = _set("query soql sql sqlq")
_NOT_QUERIES = _set("git hg svn gh glab curl wget http https xh grep rg echo printf")


def sql_query(part: Simple) -> bool:
    """`sf data query --query "SELECT ..."`, `wp db query "SELECT ..."`, `sqlite-utils query db "select
    ..."`, `aws athena start-query-execution --query-string "SELECT ..."`: a CLI's query subcommand
    given a SQL statement ran it against a database, so it reached that database."""
    if part.program in _NOT_QUERIES or not _QUERY_TOKENS & set(_path_tokens(part, 3)):
        return False
    return any(_SQL.match(a.split("=", 1)[1] if a.startswith("-") and "=" in a else a) for a in part.args)


# -- WordPress and Drupal sites -------------------------------------------------------------------

#: WP-CLI's `db` commands that open a connection to the site's database (`size`, `prefix` and
#: `tables` only report on it).
_WP_DB = _set("query export import cli check repair optimize")
#: Drush's SQL commands, in both spellings.
_DRUSH_SQL = _set(
    "sql:query sqlq sql-query sql:cli sqlc sql-cli sql:dump sql-dump sql:sync sql-sync sql:connect "
    "sql-connect"
)


def _site_database(part: Simple) -> bool:
    """`wp @staging db export -`, `wp db query "..."`, `drush @prod sql:dump`: the site's database."""
    words = site_words(part)
    if part.program == "wp":
        return words[:1] == ("db",) and len(words) > 1 and words[1] in _WP_DB
    return part.program == "drush" and bool(words) and words[0] in _DRUSH_SQL


#: The words of a cache's upkeep: `drush cache:rebuild`, `wp cache flush`, `bin/console cache:clear`.
_CACHE_VERBS = _set("clear flush rebuild purge clean cleanup warmup warm reset prune")


def routine_upkeep(part: Simple) -> bool:
    """A cache cleared, flushed or rebuilt (`drush cr`, `wp cache flush`, `php artisan cache:clear`,
    `bin/magento cache:flush`): routine, it proves no build, deploy or connection a reader would
    want to repeat."""
    if part.program == "drush" and site_words(part)[:1] in (("cr",), ("cc",)):
        return True
    words = [w.lower() for w in ecosystems.path_words(part, 3)]
    for index, word in enumerate(words[:2]):
        tokens = [t for t in re.split(r"[:._-]+", word) if t]
        if tokens[:1] == ["cache"]:
            rest = tokens[1:] or [t for w in words[index + 1 : index + 2] for t in re.split(r"[:._-]+", w)]
            return bool(rest) and rest[0] in _CACHE_VERBS
    return False


# -- Microsoft Graph: Intune assignments ----------------------------------------------------------

_GRAPH_CLIENTS = _set("invoke-mggraphrequest invoke-restmethod invoke-webrequest az")
_ASSIGN = re.compile(r"/device(?:App)?Management/[^?\s]+/assign/?(?:\?|$)", re.IGNORECASE)
#: `New-MgDeviceAppManagementMobileAppAssignment`, `New-MgBetaDeviceManagementDeviceConfigurationAssignment`.
_ASSIGNMENT_CMDLET = re.compile(r"^(?:new|set|update)-mg(?:beta)?device(?:app)?management\w*assignment$")


def _method(part: Simple) -> str:
    return (_flag(part.args, ("-method", "--method", "-x", "--request")) or "").upper()


def _intune_assignment(part: Simple) -> bool:
    """An app or a configuration profile assigned to devices or users through Graph: POST to its
    `/assign` action, or the Graph SDK's assignment cmdlet (it rolls software or settings out)."""
    if _ASSIGNMENT_CMDLET.match(part.program):
        return True
    if part.program not in _GRAPH_CLIENTS or _method(part) != "POST":
        return False
    if part.program == "az" and part.sub() != "rest":
        return False
    return any(_ASSIGN.search(a) for a in part.args)


# -- installers, IIS, Subversion, infrastructure tools --------------------------------------------

#: Programs that package an installer or an app bundle (Intune's `.intunewin`, MSIX, a JDK app image,
#: an AppImage, an Electron app).
_PACKAGERS = _set("intunewinapputil jpackage appimagetool electron-packager msixherocli")
#: A packager's subcommand that packs (`makeappx pack`, `snapcraft pack`; `snapcraft upload` publishes).
_PACKING = {"makeappx": _set("pack bundle build"), "snapcraft": _set("pack snap build")}


def _installer(part: Simple) -> bool:
    if part.program in _PACKAGERS:
        return bool(part.args)
    packing = _PACKING.get(part.program)
    if packing is None:
        return False
    return part.sub() in packing or (part.program == "snapcraft" and not part.words)


def _app_pool(part: Simple) -> bool:
    """`appcmd recycle apppool /apppool.name:Api`, `Restart-WebAppPool -Name Api`: the IIS worker
    processes of a site restarted on the new code (what follows a deploy to IIS)."""
    if part.program in ("restart-webapppool", "start-webapppool"):
        return True
    words = [w.lower() for w in part.words[:2]]
    return part.program == "appcmd" and words[:1] in (["recycle"], ["start"]) and words[1:2] == ["apppool"]


_TAG_PATH = re.compile(r"(?:^\^/|://\S*/)(?:\S*/)?tags/v?\d[\w.-]*/?$")
_TAGGING = re.compile(r"^\s*(?:tagging|tagged|tag)\s+(?:version\s+|release\s+)?v?\d+(?:\.\d+)+\S*\s*$", re.I)


_SVN_VALUED = _set("-m --message -F --file --username --password -r --revision --config-dir")


def _svn_tag(part: Simple) -> bool:
    """A release tagged in Subversion: a server-side copy into `tags/` (`svn cp ^/trunk
    ^/tags/3.2.0`), or the commit of a tag made in the working copy, by its message ("Tagging
    version 3.2.0", as the WordPress plugin directory's releases are made)."""
    if part.program != "svn":
        return False
    sub = part.sub()
    args = part.args
    targets = [
        a for i, a in enumerate(args) if not a.startswith("-") and (not i or args[i - 1] not in _SVN_VALUED)
    ]
    if sub in ("cp", "copy") and len(targets) > 2 and _TAG_PATH.search(targets[-1]):
        return True
    message = _flag(part.args, ("-m", "--message")) or ""
    return sub in ("ci", "commit") and bool(_TAGGING.match(message))


#: `<tool> <sub>` pairs whose words a reader of that tool knows: Juju refreshes a charm, Test
#: Kitchen and Molecule verify converged instances with their tests.
_PAIRS = {
    ("juju", "upgrade-charm"): "deploy",
    ("juju", "refresh"): "deploy",
    ("kitchen", "verify"): "test",
    ("molecule", "verify"): "test",
}


#: A stack of infrastructure created or changed from its template (`openstack stack update -t
#: stack.yaml web`, OpenStack Heat's counterpart of CloudFormation's `update-stack`); `stack list`,
#: `stack show` and `stack delete` are not.
_STACK_CHANGES = _set("create update deploy up apply")


def _stack_change(part: Simple) -> bool:
    words = [w.lower() for w in part.words[:2]]
    return (
        words[:1] == ["stack"]
        and words[1:2] != []
        and words[1] in _STACK_CHANGES
        and part.program not in (ecosystems.NOT_GENERIC - {"docker", "podman"})
    )


def _keystone_token(part: Simple) -> bool:
    """`openstack token issue`: Keystone issues a token, so the credentials in the environment log in."""
    return part.program == "openstack" and [w.lower() for w in part.words[:2]] == ["token", "issue"]


#: Each platform's shape with the kind it gives, the most telling first.
_SHAPES: tuple[tuple[str, Callable[[Simple], bool]], ...] = (
    ("test", tested_validation),
    ("publish", _package_promote),
    ("publish", _svn_tag),
    ("deploy", _intune_assignment),
    ("deploy", _app_pool),
    ("deploy", _stack_change),
    ("db_connect", _site_database),
    ("db_connect", sql_query),
    ("build", _installer),
    ("auth", _keystone_token),
)


def kind(part: Simple) -> str | None:
    """The kind one of this module's platforms gives `part`, or None."""
    found = _PAIRS.get((part.program, part.sub()))
    return found or next((name for name, applies in _SHAPES if applies(part)), None)
