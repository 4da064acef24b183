"""The canary gate reads the verdict a running `memoryos-audit watch --verdict FILE` left, instead of
auditing the store again, when that verdict can be trusted and is recent enough.

The file (`memoryos.audit-verdict/1`, auditor/watch.py) is a header line `{"mac", "schema"}` and a
body: `writtenAt`, `covered` (store path -> the outbox seq its audit read through) and `report` (the
audit report, as `memoryos-audit check` prints it). It is used only when

- its MAC verifies under the store's receipt key (a forged "healthy" cannot pass the gate), and
- the watcher has read this store through `seq` — the canary's own last receipt — and
- it was written at most `max_age` ago.

Until then the canary waits (a watcher passes every interval), up to `wait` seconds; then it says
why it could not use the file, and the caller audits in full. memoryos may not import the auditor
(DESIGN §2), so the format is read here from its documentation.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from receipts import parse_utc

__all__ = ["VERDICT_SCHEMA", "WatchVerdictUnusable", "await_verdict", "read_verdict"]

VERDICT_SCHEMA = "memoryos.audit-verdict/1"
POLL_SECONDS = 0.2


class WatchVerdictUnusable(Exception):
    """Why the watcher's verdict cannot stand for an audit (the canary then audits itself)."""


def read_verdict(path: Path, receipt_key: bytes) -> dict[str, Any]:
    try:
        head, _, raw = path.read_bytes().partition(b"\n")
        header = orjson.loads(head)
        body = orjson.loads(raw)
    except (OSError, orjson.JSONDecodeError) as exc:
        raise WatchVerdictUnusable(f"cannot read {path}: {exc}") from None
    if not isinstance(header, dict) or header.get("schema") != VERDICT_SCHEMA:
        raise WatchVerdictUnusable(f"{path} is not a {VERDICT_SCHEMA} file")
    key = hmac.digest(receipt_key, VERDICT_SCHEMA.encode(), "sha256")
    expected = hmac.digest(key, raw.rstrip(b"\n"), "sha256").hex()
    mac = header.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, expected):
        raise WatchVerdictUnusable(f"{path} does not verify under the store's receipt key")
    if not isinstance(body, dict) or not isinstance(body.get("report"), dict):
        raise WatchVerdictUnusable(f"{path} holds no report")
    return body


def _usable(body: dict[str, Any], store: Path, seq: int, now: datetime, max_age: timedelta) -> dict[str, Any]:
    covered = body.get("covered", {}).get(str(store.resolve()))
    if not isinstance(covered, int):
        raise WatchVerdictUnusable(f"the watcher does not audit {store}")
    if covered < seq:
        raise WatchVerdictUnusable(f"the watcher has audited {store} through seq {covered}, not {seq} yet")
    written = parse_utc(str(body.get("writtenAt")))
    if now - written > max_age:
        raise WatchVerdictUnusable(f"the watcher's verdict is older than {max_age}")
    report: dict[str, Any] = body["report"]
    return report


def await_verdict(
    path: Path,
    store: Path,
    receipt_key: bytes,
    seq: int,
    *,
    wait: float,
    max_age: timedelta,
    clock: Callable[[], datetime],
) -> dict[str, Any]:
    """The watcher's report once it covers `store` through `seq` (see the module docstring);
    WatchVerdictUnusable with the last reason after `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return _usable(read_verdict(path, receipt_key), store, seq, clock(), max_age)
        except (WatchVerdictUnusable, ValueError) as exc:
            if time.monotonic() >= deadline:
                raise WatchVerdictUnusable(str(exc)) from None
        time.sleep(POLL_SECONDS)
