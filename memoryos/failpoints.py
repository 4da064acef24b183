"""Named failpoints, armed through MEMORYOS_FAILPOINTS (DESIGN §8).

Syntax: a comma-separated list of `name=action`, action one of `kill`, `raise`, `sleep(MS)`, with an
optional `N*` prefix meaning "fire on the N-th hit only" (e.g. `stm_to_mtm.before_commit=3*kill`).
Unarmed, `failpoint()` costs one truthiness check of an empty dict.
"""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass

from memoryos.errors import ConfigError, InjectedFault
from memoryos.settings import ENV_FAILPOINTS

#: Every failpoint in the code, so that a harness can sweep them all and a typo is an error.
POINTS = (
    "store.before_commit",
    "store.after_commit",
    "stm_to_mtm.begin",
    "stm_to_mtm.after_pages",
    "stm_to_mtm.after_release",
    "stm_to_mtm.after_receipts",
    "stm_to_mtm.before_commit",
    "stm_to_mtm.after_commit",
    "mtm_evict.after_delete",
    "mtm_to_lpm.after_intent",
    "mtm_to_lpm.after_distill",
    "mtm_to_lpm.after_records",
    "mtm_to_lpm.before_commit",
    "mtm_to_lpm.after_commit",
    "lpm_evict.after_delete",
    "expire.after_delete",
    "forget.after_delete",
    "decay.before_commit",
    "summaries.after_notes",
    "summaries.before_commit",
    "recovery.begin",
    "recovery.after_reconcile",
    "recovery.before_commit",
    "export.after_write",
    "export.before_cursor",
    "export.after_cursor",
)
_SPEC = re.compile(r"^(?:(?P<nth>[1-9][0-9]*)\*)?(?P<action>kill|raise|sleep\((?P<ms>[0-9]{1,7})\))$")


@dataclass
class _Armed:
    action: str
    nth: int | None
    sleep_ms: int
    hits: int = 0


_armed: dict[str, _Armed] = {}


def parse(spec: str) -> dict[str, _Armed]:
    armed: dict[str, _Armed] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, action = item.partition("=")
        match = _SPEC.match(action.strip())
        if name.strip() not in POINTS or match is None:
            raise ConfigError(
                f"{ENV_FAILPOINTS}: cannot arm {item!r}; names are in memoryos.failpoints.POINTS"
            )
        nth = int(match["nth"]) if match["nth"] else None
        kind = match["action"].split("(")[0]
        armed[name.strip()] = _Armed(kind, nth, int(match["ms"] or 0))
    return armed


def arm(spec: str) -> None:
    """Replace the armed set (tests); the environment is read once at import."""
    _armed.clear()
    _armed.update(parse(spec))


def failpoint(name: str) -> None:
    if _armed:
        _fire(name)


def _fire(name: str) -> None:
    point = _armed.get(name)
    if point is None:
        return
    point.hits += 1
    if point.nth is not None and point.hits != point.nth:
        return
    if point.action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif point.action == "raise":
        raise InjectedFault(f"failpoint {name} fired (armed through {ENV_FAILPOINTS})")
    else:
        time.sleep(point.sleep_ms / 1000)


arm(os.environ.get(ENV_FAILPOINTS, ""))
