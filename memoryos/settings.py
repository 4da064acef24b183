"""Configuration as data, and every environment variable memoryos reads, in one place.

Precedence, stated once: defaults < environment < arguments. Constructor arguments are the API; the
environment only supplies what the host did not pass.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

import orjson

from memoryos.errors import ConfigError

#: Path of the store used by the CLI when --db is not given.
ENV_DB = "MEMORYOS_DB"
#: Failpoints to arm, e.g. "stm_to_mtm.before_commit=kill,evict.after_delete=2*raise".
ENV_FAILPOINTS = "MEMORYOS_FAILPOINTS"
#: "full" (default) or "normal": see Config.durability.
ENV_DURABILITY = "MEMORYOS_DURABILITY"

#: "otlp" turns on OpenTelemetry traces and metrics, exported as the standard OTEL_* variables say.
ENV_TELEMETRY = "MEMORYOS_TELEMETRY"
#: OpenAI-compatible chat-completions base URL (e.g. http://127.0.0.1:8080/v1); unset: no model.
ENV_LLM_URL = "MEMORYOS_LLM_URL"
#: The model name sent to that endpoint.
ENV_LLM_MODEL = "MEMORYOS_LLM_MODEL"
#: The API key for that endpoint; never logged.
ENV_LLM_API_KEY = "MEMORYOS_LLM_API_KEY"
#: Seconds before a model call times out (default 10).
ENV_LLM_TIMEOUT = "MEMORYOS_LLM_TIMEOUT"

DEFAULT_DB = "memoryos.db"
Durability = Literal["full", "normal"]
NoStoreMode = Literal["reject", "redact"]
#: One distillation's pages are listed in its receipts' derivedFrom (about 41 bytes each).
MAX_DISTILL_BATCH = 64
#: What typed extraction can extract (one handler each, memoryos.extraction); all on by default.
EXTRACTION_KINDS = ("semantic", "episodic", "procedural", "taxonomic")
#: What a captured candidate can be; `auto_approve_kinds` names those that skip the approval gate.
CANDIDATE_KINDS = ("capability", "procedure", "rule", "fact")
_KIND_SETS: dict[str, tuple[str, ...]] = {
    "extraction_kinds": EXTRACTION_KINDS,
    "auto_approve_kinds": CANDIDATE_KINDS,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "durability": ("full", "normal"),
    "no_store_mode": ("reject", "redact"),
}


@dataclass(frozen=True)
class Config:
    """Every tunable of a store. The fields marked in HASHED change behaviour and are recorded."""

    stm_capacity: int = 7
    stm_idle_seconds: float = 30 * 60
    mtm_capacity: int = 200
    lpm_list_capacity: int = 100
    heat_alpha: float = 1.0
    heat_beta: float = 1.0
    heat_gamma: float = 1.0
    heat_mu_seconds: float = 1e7
    heat_threshold: float = 5.0
    segment_similarity: float = 0.2
    segment_max_pages: int = 256  # a full segment takes no more pages: one topic continues in a new one
    distill_batch_pages: int = 32  # pages one distillation reads at most (oldest undistilled first)
    durability: Durability = "full"
    no_store_mode: NoStoreMode = "reject"
    no_store_families: frozenset[str] | None = None  # None: every family of the detector
    max_text_bytes: int = 64 * 1024
    max_scope_id_chars: int = 256
    busy_timeout_ms: int = 5000
    intent_grace_seconds: float = 300.0
    background_interval_seconds: float = 5.0
    stale_after_days: float = 90.0
    retired_after_days: float = 180.0
    # Disabling a kind stops only its automatic extraction: the host can still put() that kind.
    # (Tuples in a fixed order, so that a Config is plain JSON data; any list or set of names is taken.)
    extraction_kinds: tuple[str, ...] = EXTRACTION_KINDS
    # Explicit policy: candidates of these kinds are approved as they are proposed. Empty by default.
    auto_approve_kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name in _CHOICES:
                if value not in _CHOICES[spec.name]:
                    raise ConfigError(f"config {spec.name} must be one of {', '.join(_CHOICES[spec.name])}")
            elif spec.name == "no_store_families":
                self._check_families(value)
            elif spec.name in _KIND_SETS:
                object.__setattr__(self, spec.name, _kinds(spec.name, value))
            elif isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
                raise ConfigError(f"config {spec.name} must be a finite number, got {value!r}"[:200])
            elif value <= 0 and spec.name != "segment_similarity":
                raise ConfigError(f"config {spec.name} must be positive, got {value!r}"[:200])
            elif value > _limit(spec.name):
                raise ConfigError(
                    f"config {spec.name} must be at most {_limit(spec.name):g}, got {value:.3g}"
                )
        if not 0 <= self.segment_similarity <= 1:
            raise ConfigError("config segment_similarity must be between 0 and 1")
        if self.distill_batch_pages > MAX_DISTILL_BATCH:
            raise ConfigError(
                f"config distill_batch_pages must be at most {MAX_DISTILL_BATCH}: a distilled record's"
                " receipt lists the pages it was built from, and a receipt line stays under 4 KB"
            )
        if self.retired_after_days <= self.stale_after_days:
            raise ConfigError("config retired_after_days must exceed stale_after_days")

    @staticmethod
    def _check_families(value: object) -> None:
        from memoryos.policies.nostore import FAMILIES

        if value is None:
            return
        if not isinstance(value, frozenset) or not value <= FAMILIES.keys():
            raise ConfigError(
                "config no_store_families must be a frozenset of names in memoryos.policies.nostore.FAMILIES"
            )

    def fingerprint(self) -> str:
        """A short hash of everything that changes capacities, heat, thresholds, durability, retrieval."""
        data = asdict(self)
        if self.no_store_families is not None:
            data["no_store_families"] = sorted(self.no_store_families)
        return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]

    def with_overrides(self, **changes: Any) -> Config:
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ConfigError(f"unknown config fields: {', '.join(sorted(unknown))}")
        return replace(self, **changes)


def _kinds(name: str, value: object) -> tuple[str, ...]:
    """Some of the kinds `name` allows, in their canonical order."""
    allowed = _KIND_SETS[name]
    if isinstance(value, str) or not isinstance(value, tuple | list | set | frozenset):
        raise ConfigError(f"config {name} must be a list of some of {', '.join(allowed)}")
    if not set(value) <= set(allowed):
        raise ConfigError(f"config {name} must name only some of {', '.join(allowed)}")
    return tuple(kind for kind in allowed if kind in value)


# Upper bounds by unit, so that every derived time stays a datetime and every count a 64-bit integer.
_LIMITS = {"_seconds": 1e10, "_days": 1e5, "_ms": 2**31 - 1}
_ANY_LIMIT = float(2**53)


def _limit(name: str) -> float:
    return next((limit for suffix, limit in _LIMITS.items() if name.endswith(suffix)), _ANY_LIMIT)


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def from_environment(base: Config | None = None) -> Config:
    """Apply the environment to `base` (defaults when None)."""
    config = base or Config()
    durability = os.environ.get(ENV_DURABILITY)
    if durability:
        config = config.with_overrides(durability=durability.strip().lower())
    return config


def default_db_path() -> str:
    return os.environ.get(ENV_DB) or DEFAULT_DB


def config_from_file(path: str | None) -> Config | None:
    """A JSON file of Config fields over the defaults and the environment (None: no file given)."""
    if path is None:
        return None
    try:
        fields_ = orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc}") from None
    if not isinstance(fields_, dict):
        raise ConfigError(f"{path} must hold a JSON object of memoryos.Config fields")
    if isinstance(fields_.get("no_store_families"), list):
        fields_["no_store_families"] = frozenset(fields_["no_store_families"])
    try:
        return from_environment().with_overrides(**fields_)
    except TypeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
