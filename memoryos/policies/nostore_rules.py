"""Provider token formats from a maintained rule set: CredSweeper's, when `memoryos[secrets]` is installed.

The detector's own table knows the providers agents meet most; new providers and new token formats
appear every month, and keeping up with them by hand is how coverage rots. CredSweeper (Samsung, MIT)
ships its rules as package data (`credsweeper/rules/config.yaml`), updated with each release. This
module reads that file, without importing CredSweeper's engine, its ML model or their dependencies,
and keeps the rules that name a provider's own token format:

- `type: pattern` (one regex), meant for documents as well as code (`target` has `doc`);
- applied by CredSweeper itself without its ML validator (`use_ml` unset): the format alone is the proof;
- `confidence` strong or moderate, and `severity` above `info` (UUIDs and bucket names are not secrets).

Keyword rules ("password = ...") are left out: the detector's multilingual keyword finder covers them
with its own placeholder tests. Without CredSweeper installed, or with a rules file this code cannot
read, the family finds nothing and the rest of the detector is unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memoryos.policies.nostore_entropy import inside, public_blocks

KEPT_CONFIDENCE = frozenset({"strong", "moderate"})
# Values shorter than this are never a token worth refusing on a format match alone.
MIN_VALUE_LENGTH = 16
# More occurrences of a rule's hint than this in one text and the rule is not run (`RuleTable.applicable`).
MAX_HINT_REPEATS = 64


@dataclass(frozen=True)
class ProviderRule:
    """One provider's token format; `hints` are lower-case substrings one of which must occur."""

    name: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]


def rules_path() -> Path | None:
    """Where the installed CredSweeper keeps its rules, found without importing the package."""
    try:
        spec = importlib.util.find_spec("credsweeper")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "rules" / "config.yaml"
    return path if path.is_file() else None


def kept(rule: Mapping[str, Any]) -> bool:
    """Whether a CredSweeper rule is a provider format this detector applies (see the module doc)."""
    return (
        rule.get("type") == "pattern"
        and not rule.get("use_ml")
        and "doc" in (rule.get("target") or ())
        and rule.get("confidence") in KEPT_CONFIDENCE
        and rule.get("severity") not in (None, "info")
        and bool(rule.get("values"))
    )


# A value that opens with a run of a character class ("[0-9A-Za-z_/+-]{0,8000}LS0t..."): the regex
# engine starts it at every character of a long run of that class and scans up to 8000 characters from
# each, 10 s on 64 KiB of base64. Such a value can only start where the run does, so a lookbehind on the
# class makes the run one start (the same matches while the run before the literal is within the bound).
_LEADING_RUN = re.compile(r"\(\?P<value>(\[(?:\\.|[^\]\\])+\])(?:\{0?,\d+\}|\*)")


def anchored_run(source: str) -> str:
    """The rule's regex with a leading class run anchored at the start of the run (see above)."""
    leading = _LEADING_RUN.match(source)
    return f"(?<!{leading.group(1)}){source}" if leading else source


def _compiled(rule: Mapping[str, Any]) -> ProviderRule | None:
    """The rule ready to run, or None when its regex does not compile or has no `value` group."""
    try:
        pattern = re.compile(anchored_run(str(rule["values"][0])))
    except (re.error, TypeError, KeyError, IndexError):
        return None
    if "value" not in pattern.groupindex:
        return None
    hints = tuple(str(hint).lower() for hint in rule.get("required_substrings") or ())
    return ProviderRule(str(rule.get("name", "?")), pattern, hints)


def parse_rules(document: object) -> tuple[ProviderRule, ...]:
    """The kept, compilable rules of a parsed rules file; anything unexpected is skipped, not raised."""
    if not isinstance(document, list):
        return ()
    chosen = (_compiled(rule) for rule in document if isinstance(rule, Mapping) and kept(rule))
    return tuple(rule for rule in chosen if rule is not None)


def load_rules(path: Path | None) -> tuple[ProviderRule, ...]:
    if path is None:
        return ()
    try:
        # CredSweeper depends on PyYAML, so it is there whenever the rules file is; imported by name
        # because memoryos itself neither needs it nor has its type stubs.
        yaml = importlib.import_module("yaml")
    except ImportError:
        return ()
    try:
        # libyaml's loader, where PyYAML was built with it, reads the 60 KB file ten times faster.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ()
    return parse_rules(document)


@dataclass(frozen=True)
class RuleTable:
    """Rules indexed by their hints, so one call tests each distinct hint once, not once per rule."""

    rules: tuple[ProviderRule, ...]
    hints: tuple[str, ...]  # every distinct hint
    by_hint: Mapping[str, tuple[int, ...]]  # hint -> indices of the rules that name it
    unhinted: tuple[int, ...]  # rules without hints run on every text

    @classmethod
    def of(cls, rules: tuple[ProviderRule, ...]) -> RuleTable:
        by_hint: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            for hint in rule.hints:
                by_hint.setdefault(hint, []).append(index)
        unhinted = tuple(index for index, rule in enumerate(rules) if not rule.hints)
        frozen = {hint: tuple(indices) for hint, indices in by_hint.items()}
        return cls(rules, tuple(frozen), frozen, unhinted)

    def applicable(self, text: str) -> list[ProviderRule]:
        """The rules one of whose hints occurs in the text, and not more than `MAX_HINT_REPEATS` times:
        a rule led by its hint ("eyJ...") is tried from every occurrence, and one occurrence every few
        characters ("eyJeyJeyJ...") made CredSweeper's JWT rule scan 8000 characters from each (15 s
        on 64 KiB). A note holding a hint that often is a dump, not a message; the table's own families
        (`jwt`, `private_key`, ...) still run on it."""
        folded = text.lower()
        chosen = set(self.unhinted)
        for hint in self.hints:
            if 0 < folded.count(hint) <= MAX_HINT_REPEATS:  # one pass: `in` and a count read it twice
                chosen.update(self.by_hint[hint])
        return [self.rules[index] for index in sorted(chosen)]


@cache
def installed_table() -> RuleTable:
    """The rules of the installed CredSweeper, read once per process (empty without it)."""
    return RuleTable.of(load_rules(rules_path()))


def installed_rules() -> tuple[ProviderRule, ...]:
    return installed_table().rules


def _random_looking(value: str) -> bool:
    """A format match whose value is a word, a run of one character or an example is not a token."""
    if len(value) < MIN_VALUE_LENGTH or len(set(value)) < 6:
        return False
    return any(c.isdigit() for c in value) or (value.lower() != value and value.upper() != value)


def find_with(table: RuleTable, text: str) -> Iterator[tuple[int, int]]:
    """Values of the applicable rules, except inside certificates and public keys, which are public
    whatever format a rule sees in their base64 (CredSweeper decodes them to tell; this does not).
    URLs are not excluded: a token in a query string or a webhook path is still a token."""
    found = [
        match.span("value")
        for rule in table.applicable(text)
        for match in rule.pattern.finditer(text)
        if _random_looking(match.group("value"))
    ]
    if not found:
        return
    public = public_blocks(text)  # only when there is something to exclude: most notes have no match
    public_starts = [span[0] for span in public]
    yield from (span for span in found if not inside(public, public_starts, span[0]))


def find_provider_tokens(text: str) -> Iterator[tuple[int, int]]:
    if not (table := installed_table()).rules:
        return iter(())
    return find_with(table, text)
