"""No-store detector benchmark: recall and false positives on two corpora, each also obfuscated; speed.

Corpora:
- `project`: the generated corpus of `secrets_corpus.py` (written with the detector, so in-sample);
- `independent`: `corpora/secrets_independent.jsonl`, written by someone who had not read the detector,
  and its obfuscated variant `corpora/secrets_independent_obfuscated.jsonl`;
- `independent2 set A`: `corpora/independent2/secrets_set_a.jsonl`, a second such corpus (its README);
  `independent2 set B`: the same generator's other half (held out in the sixth session, fixed against by
  family in the seventh);
- `independent3 set C`: `corpora/independent3/secrets_set_c.jsonl`, a third corpus by yet another
  writer (85 secret families), held out in the seventh session, fixed against by family in the eighth;
- `independent4 set D (fixed against)`: `corpora/independent4/secrets_set_d.jsonl`, a fourth corpus by
  yet another writer (119 secret and 43 PII families), held out in the eighth session, fixed against by
  family in the ninth;
- `independent5 set E (held out)`: `corpora/independent5/secrets_set_e.jsonl`, a fifth corpus by yet
  another writer (52 secret and 73 PII families), written and held out in the ninth session;
- `project+obfuscation`: the project corpus with ZWSP, ZWJ, soft hyphen, BOM, NBSP, narrow NBSP or
  full-width forms put into each note (`obfuscated()` below).
- `uuid4 hex sentences`: benign notes each holding a random uuid4 hex, some after a national id's
  context word in its everyday sense ("shared on social media, post <hex>"); `--hex-notes` of them.

Run: `python bench/bench_secrets.py [--seed N] [--per-family N] [--benign N] [--limit N] [--no-write]
[--hex-notes N] [--min-recall R --max-fp F] [--before TREE] [--engine] [--out FILE]`. Writing
replaces only the file's generated section and keeps the sections appended after it. With the floors
given, it exits 1 when a corpus falls below them. `--before` scores another source tree's detector too, e.g.
the commit this branch started from: `git archive $(git merge-base main HEAD) memoryos | tar -x -C
/tmp/before`, then `--before /tmp/before`. `--engine` scores CredSweeper's own engine and ML model as
well (slow).
Speed is the median per-call cost of `scan()` over the corpus notes, and ms per KB (median over ~1 KB
chunks, best of 3 runs per chunk) as a ratio to a raw baseline measured in the same run: one compiled-
regex pass over the same chunks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import random
import re
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from secrets_corpus import Sample, build_corpus

from memoryos.policies.nostore import DEFAULT_FAMILIES, scan
from memoryos.policies.nostore_rules import installed_rules

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "secrets.md"
CORPORA = HERE / "corpora"
BASELINE = re.compile(r"AKIA[0-9A-Z]{16}")  # the cheapest meaningful scan: one literal-led regex
CORE = DEFAULT_FAMILIES - {"provider_token"}  # the detector without CredSweeper's provider rules


# --- obfuscation: what a copy-paste or an evasive writer puts inside a secret ---------------------

INVISIBLE = {"zwsp": "\u200b", "zwj": "\u200d", "soft_hyphen": "\u00ad", "bom": "\ufeff"}
SPACES = {"nbsp": "\u00a0", "narrow_nbsp": "\u202f"}
OBFUSCATIONS = (*INVISIBLE, *SPACES, "fullwidth")


def _fullwidth(text: str) -> str:
    """ASCII letters, digits and punctuation as their full-width forms (U+FF01..U+FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def obfuscate_text(
    text: str, span: tuple[int, int] | None, kind: str, rng: random.Random
) -> tuple[str, tuple[int, int] | None]:
    """The text with one obfuscation applied inside `span` (a random token of a benign note when None).

    Invisible characters go in the middle of the secret; space kinds replace every space of the text
    (inside card numbers and IBANs, and between a keyword and its value); full width rewrites the secret.
    """
    if span is None:
        tokens = list(re.finditer(r"\S{4,}", text))
        span = rng.choice(tokens).span() if tokens else (0, len(text))
    start, end = span
    if kind in SPACES:
        return text.replace(" ", SPACES[kind]), span
    if kind == "fullwidth":
        return text[:start] + _fullwidth(text[start:end]) + text[end:], span
    if end - start < 2:
        return text, span
    cut = rng.randint(start + 1, end - 1)
    return text[:cut] + INVISIBLE[kind] + text[cut:], (start, end + 1)


def obfuscated(samples: list[Sample], seed: int) -> list[tuple[str, Sample]]:
    """Each sample with one obfuscation, the kinds taken in turn: (kind, obfuscated sample)."""
    rng = random.Random(seed)
    result = []
    for index, sample in enumerate(samples):
        kind = OBFUSCATIONS[index % len(OBFUSCATIONS)]
        text, span = obfuscate_text(sample.text, sample.span, kind, rng)
        result.append((kind, Sample(text, sample.family, sample.lang, span)))
    return result


@dataclass
class Scored:
    """One corpus scored: per-family recall, false positives, and the ids of what went wrong."""

    name: str
    families: dict[str, list[int]] = field(default_factory=dict)  # family -> [n, detected]
    benign: int = 0
    flagged: int = 0
    fp_families: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    @property
    def secrets(self) -> int:
        return sum(n for n, _ in self.families.values())

    @property
    def detected(self) -> int:
        return sum(hit for _, hit in self.families.values())

    @property
    def recall(self) -> float:
        return self.detected / self.secrets if self.secrets else 1.0

    @property
    def fp_rate(self) -> float:
        return self.flagged / self.benign if self.benign else 0.0


@dataclass(frozen=True)
class Item:
    """A corpus note: `family` None for a benign one; `span` None when any detection counts."""

    ident: str
    text: str
    family: str | None
    span: tuple[int, int] | None


Detect = Callable[[str], list[Any]]  # text -> detections with .family, .start and .end


def _hit(item: Item, detect: Detect) -> list[str]:
    found = detect(item.text)
    if item.span is None:
        return [d.family for d in found]
    start, end = item.span
    return [d.family for d in found if d.start < end and start < d.end]


def score(name: str, items: list[Item], families: frozenset[str] = DEFAULT_FAMILIES) -> Scored:
    return score_with(name, items, lambda text: scan(text, families))


def score_with(name: str, items: list[Item], detect: Detect) -> Scored:
    scored = Scored(name)
    for item in items:
        hits = _hit(item, detect)
        if item.family is None:
            scored.benign += 1
            scored.flagged += bool(hits)
            scored.fp_families.update(hits)
            if hits:
                scored.false_positives.append(item.ident)
            continue
        row = scored.families.setdefault(item.family, [0, 0])
        row[0] += 1
        row[1] += bool(hits)
        if not hits:
            scored.misses.append(item.ident)
    return scored


def project_items(samples: list[Sample], prefix: str) -> list[Item]:
    return [Item(f"{prefix}{i}", s.text, s.family, s.span) for i, s in enumerate(samples)]


def read_jsonl(path: Path, limit: int | None) -> list[Item]:
    """Lines `{"id", "label": "secret"|"pii"|"benign", "family", "text"}`; pii counts as a secret."""
    items = []
    for line in path.read_text(encoding="utf-8").splitlines()[:limit]:
        if line.strip():
            record = json.loads(line)
            family = None if record["label"] == "benign" else str(record.get("family") or record["label"])
            items.append(Item(str(record["id"]), str(record["text"]), family, None))
    return items


# Benign notes that carry a random uuid4 hex, some after a word that is the context of a national id
# in its everyday sense ("social", "my number"): a digit run of the hex is no number of its own.
HEX_CORPUS = "uuid4 hex sentences"
HEX_SENTENCES = (
    "writer {w} turn {n} pid {p} {hex}",
    "writer {w} turn {n} {hex}",
    "turn {n} of process {p}: trace {hex}",
    "session {hex} started at turn {n}",
    "saved the run as {hex}.json after {n} steps",
    "shared on social media, post {hex}",
    "social security office visit, ticket {hex}",
    "ssn lookup request {hex} ok",
    "the bsn lookup job {hex} finished",
    "my number one suspect is job {hex}",
    "passport photo upload {hex} done",
)


def hex_items(seed: int, count: int) -> list[Item]:
    """`count` benign notes, the sentences taken in turn, each with a fresh uuid4 hex (seeded)."""
    rng = random.Random(seed)
    items = []
    for index in range(count):
        hex_token = uuid.UUID(int=rng.getrandbits(128), version=4).hex
        template = HEX_SENTENCES[index % len(HEX_SENTENCES)]
        text = template.format(
            hex=hex_token, w=rng.randint(0, 7), n=rng.randint(0, 50_000), p=rng.randint(1, 4_194_304)
        )
        items.append(Item(f"h{index}", text, None, None))
    return items


def corpora(args: argparse.Namespace) -> list[tuple[str, list[Item]]]:
    secrets, benign = build_corpus(args.seed, args.per_family, args.benign)
    mixed = obfuscated(secrets + benign, args.seed)
    found = [
        ("project", project_items(secrets + benign, "p")),
        ("project+obfuscation", [Item(f"o{i}:{kind}", *_fields(s)) for i, (kind, s) in enumerate(mixed)]),
    ]
    for name, file in (
        ("independent", "secrets_independent"),
        ("independent obfuscated", "secrets_independent_obfuscated"),
        ("independent2 set A", "independent2/secrets_set_a"),
        ("independent2 set B", "independent2/secrets_set_b"),
        ("independent3 set C", "independent3/secrets_set_c"),
        ("independent4 set D (fixed against)", "independent4/secrets_set_d"),
        (f"independent5 set E {HELD_OUT}", "independent5/secrets_set_e"),
    ):
        path = args.corpora / f"{file}.jsonl"
        if path.is_file():
            found.append((name, read_jsonl(path, args.limit)))
    if args.hex_notes:
        found.append((HEX_CORPUS, hex_items(args.seed, args.hex_notes)))
    return found


def _fields(sample: Sample) -> tuple[str, str | None, tuple[int, int] | None]:
    return sample.text, sample.family, sample.span


def _chunks(texts: list[str], size: int = 1024) -> list[str]:
    chunks, current = [], ""
    for text in texts:
        current += text + "\n"
        if len(current.encode()) >= size:
            chunks.append(current)
            current = ""
    return chunks


def _best_of(work: Callable[[str], object], text: str, repeats: int = 3) -> float:
    """As timeit does, the minimum of a few runs filters out the noise of other processes."""
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        work(text)
        best = min(best, time.perf_counter() - began)
    return best


def speed(texts: list[str]) -> dict[str, float]:
    """Median µs per `scan()` call over notes, ms/KB over ~1 KB chunks, and the same for the baseline."""
    chunks = _chunks(texts)
    for text in texts[:200]:
        scan(text)  # warm caches (the provider rules load on first use) before measuring
    kb = [len(chunk.encode()) / 1024 for chunk in chunks]
    return {
        "us_per_call": statistics.median(_best_of(scan, t) for t in texts) * 1e6,
        "core_us_per_call": statistics.median(_best_of(lambda t: scan(t, CORE), t) for t in texts) * 1e6,
        "ms_per_kb": statistics.median(_best_of(scan, c) * 1000 / k for c, k in zip(chunks, kb, strict=True)),
        "baseline_ms_per_kb": statistics.median(
            _best_of(BASELINE.findall, c) * 1000 / k for c, k in zip(chunks, kb, strict=True)
        ),
    }


def scan_from_tree(tree: Path) -> Detect:
    """`scan` of the memoryos in another source tree (an older commit, say), loaded beside this one.

    Its modules are imported under their own names with the tree first on the path, then this tree's
    modules are put back; the old functions keep the old modules they were bound to.
    """
    ours = {name: module for name, module in sys.modules.items() if name.partition(".")[0] == "memoryos"}
    for name in ours:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        detect: Detect = importlib.import_module("memoryos.policies.nostore").scan
    finally:
        sys.path.remove(str(tree))
        for name in [name for name in sys.modules if name.partition(".")[0] == "memoryos"]:
            del sys.modules[name]
        sys.modules.update(ours)
    return detect


def before_after(named: list[tuple[str, list[Item]]], tree: Path, label: str) -> list[str]:
    """The same corpora scored by the detector of `tree`, and the per-call cost of both, interleaved
    note by note (best of 3 each) so that the machine's load falls on both alike."""
    old = scan_from_tree(tree)
    lines = [
        f"### before: the detector of {label}",
        "",
        "| corpus | recall | false positives |",
        "|---|---:|---:|",
    ]
    for name, items in named:
        scored = score_with(name, items, old)
        lines.append(f"| {name} | {scored.recall:.1%} | {scored.fp_rate:.1%} |")
    texts = [item.text for _, items in named for item in items]
    for text in texts[:200]:
        old(text)
        scan(text)
    pairs = [(_best_of(old, text), _best_of(scan, text)) for text in texts]
    ratios = [after / before for before, after in pairs if before > 0]
    before_us = statistics.median(before for before, _ in pairs) * 1e6
    after_us = statistics.median(after for _, after in pairs) * 1e6
    lines += [
        "",
        f"- per `scan()` call over {len(texts)} notes of all corpora: median before {before_us:.0f} µs, "
        f"after {after_us:.0f} µs; median of per-note ratios after/before {statistics.median(ratios):.2f}",
        "",
    ]
    return lines


def credsweeper_engine() -> Detect:
    """CredSweeper's own engine with its ML validator, as a detector: the alternative to reading its
    rules that the README weighs (imported only for `--engine`; it needs `memoryos[secrets]`)."""
    import logging
    import warnings

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")  # its string provider warns that it will be refactored
    app = importlib.import_module("credsweeper.app")
    provider = importlib.import_module("credsweeper.file_handler.string_content_provider")
    sweeper = app.CredSweeper(ml_threshold=app.ThresholdPreset.medium)

    def detect(text: str) -> list[Any]:
        sweeper.credential_manager.set_credentials([])
        found = sweeper.file_scan(provider.StringContentProvider(text.splitlines()))
        sweeper.credential_manager.set_credentials(found)
        sweeper.post_processing(None)
        return [_Whole("credsweeper", len(text))] if sweeper.credential_manager.get_credentials() else []

    return detect


@dataclass(frozen=True)
class _Whole:
    """A detection covering the whole note: CredSweeper reports lines, not spans of our text."""

    family: str
    end: int
    start: int = 0


def engine_rows(named: list[tuple[str, list[Item]]]) -> list[str]:
    detect = credsweeper_engine()
    lines = [
        "### CredSweeper's engine alone (with its ML model)",
        "",
        "| corpus | recall | false positives |",
    ]
    lines.append("|---|---:|---:|")
    began, count = time.perf_counter(), 0
    for name, items in named:
        scored = score_with(name, items, detect)
        count += len(items)
        lines.append(f"| {name} | {scored.recall:.1%} | {scored.fp_rate:.1%} |")
    per_note = (time.perf_counter() - began) / max(count, 1) * 1000
    return [*lines, "", f"- {per_note:.2f} ms per note on average", ""]


def _summary(rows: list[tuple[Scored, Scored]]) -> list[str]:
    lines = [
        "| corpus | secrets | recall | benign | false positives | recall, core only | FP, core only |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for full, core in rows:
        lines.append(
            f"| {full.name} | {full.secrets} | {full.recall:.1%} | {full.benign} | {full.fp_rate:.1%} "
            f"| {core.recall:.1%} | {core.fp_rate:.1%} |"
        )
    return lines


def _families(scored: Scored) -> list[str]:
    lines = [
        f"### {scored.name}: recall by family",
        "",
        "| family | n | detected | recall |",
        "|---|---:|---:|---:|",
    ]
    for family, (n, hit) in sorted(scored.families.items()):
        lines.append(f"| {family} | {n} | {hit} | {hit / n:.1%} |")
    lines.append("")
    if scored.misses:
        lines.append(f"- missed ({len(scored.misses)}): {', '.join(scored.misses[:60])}")
    if scored.false_positives:
        lines.append(
            f"- false positives ({len(scored.false_positives)}): {', '.join(scored.false_positives[:60])}"
            f" (by family: {dict(scored.fp_families.most_common())})"
        )
    return [*lines, ""]


def _hex_lines(scored: Scored) -> list[str]:
    """The hex corpus has no secrets: only how many of its notes were refused, and which."""
    lines = [f"### {scored.name}: {scored.flagged} of {scored.benign} refused", ""]
    if scored.false_positives:
        lines += [
            f"- false positives: {', '.join(scored.false_positives[:60])}"
            f" (by family: {dict(scored.fp_families.most_common())})",
            "",
        ]
    return lines


def _by_kind(scored: Scored, items: list[Item]) -> list[str]:
    """Recall and false positives per obfuscation kind of the project corpus (ids end in `:kind`)."""
    missed, flagged = set(scored.misses), set(scored.false_positives)
    rows: dict[str, list[int]] = {}
    for item in items:
        kind = item.ident.rsplit(":", 1)[1]
        row = rows.setdefault(kind, [0, 0, 0, 0])
        if item.family is None:
            row[2] += 1
            row[3] += item.ident in flagged
        else:
            row[0] += 1
            row[1] += item.ident not in missed
    lines = [
        "### project+obfuscation: by kind",
        "",
        "| kind | secrets | recall | benign | FP |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, (n, hit, b, fp) in rows.items():
        lines.append(f"| {kind} | {n} | {hit / n:.1%} | {b} | {fp / b if b else 0:.1%} |")
    return [*lines, ""]


def report(args: argparse.Namespace) -> tuple[str, list[Scored]]:
    named = corpora(args)
    rows = [(score(name, items), score(name, items, CORE)) for name, items in named]
    timing = speed([item.text for item in named[0][1]])
    rules = installed_rules()
    lines = [
        "# No-store detector benchmark",
        "",
        f"- date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.machine()}, nproc {os.cpu_count()}, Python {platform.python_version()}",
        f"- project corpus: seed {args.seed}, {args.per_family} per family, {args.benign} benign notes",
        f"- provider rules from CredSweeper (`memoryos[secrets]`): {len(rules)} loaded"
        + ("" if rules else " (not installed: `core only` equals the full figures)"),
        "",
        *_summary(rows),
        "",
        f"- speed: median {timing['us_per_call']:.0f} µs per `scan()` call on a project note "
        f"({timing['core_us_per_call']:.0f} µs core only); median {timing['ms_per_kb']:.3f} ms/KB over ~1 KB "
        f"chunks; baseline one-regex pass {timing['baseline_ms_per_kb']:.4f} ms/KB; "
        f"ratio {timing['ms_per_kb'] / timing['baseline_ms_per_kb']:.0f}x",
        "",
        "A secret counts as detected when a detection overlaps it (project corpus, where the span is known)",
        "or when the note gets any detection (independent corpus, which gives no span); a benign note counts",
        "as a false positive when it gets any detection. `core only`: without the provider rules.",
        "",
    ]
    if args.before is not None:
        lines += before_after(named, args.before, args.before_name or f"`{args.before}`")
    if args.engine:
        lines += engine_rows(named)
    for (name, items), (full, _) in zip(named, rows, strict=True):
        if name == "project+obfuscation":
            lines += _by_kind(full, items)
        elif name == HEX_CORPUS:
            lines += _hex_lines(full)
        elif name != "project" or args.per_family <= 20:
            lines += _families(full)
    return "\n".join(lines) + "\n", [full for full, _ in rows]


HELD_OUT = "(held out)"  # a corpus no one who changed the detector has seen: measured, never a floor


def below_floors(scored: list[Scored], min_recall: float | None, max_fp: float | None) -> list[str]:
    """The floors guard the corpora the detector was developed against; a held-out row is the honest
    figure, reported as it falls (a floor on it would invite fixing against it)."""
    failures = []
    for row in scored:
        if row.name.endswith(HELD_OUT):
            continue
        if min_recall is not None and row.recall < min_recall:
            failures.append(f"{row.name}: recall {row.recall:.2%} < {min_recall:.2%}")
        if max_fp is not None and row.fp_rate > max_fp:
            failures.append(f"{row.name}: false positives {row.fp_rate:.2%} > {max_fp:.2%}")
    return failures


GENERATED_BEGIN = "<!-- bench_secrets.py: generated section; the sections after it are kept -->"
GENERATED_END = "<!-- bench_secrets.py: end of the generated section -->"


def merged_results(earlier: str | None, generated: str) -> str:
    """The results file with only its generated section replaced by `generated`.

    Engineers append dated sections ("## 2026-12-01 ...: ...") after the generated one; a run keeps
    them. The section is the part between the two markers; in a file written before the markers, it is
    everything before the first "## " heading (the layout those runs wrote). A file with neither gets
    the new section on top of what it holds.
    """
    section = f"{GENERATED_BEGIN}\n{generated.rstrip()}\n{GENERATED_END}\n"
    if not earlier:
        return section
    begin, end = earlier.find(GENERATED_BEGIN), earlier.find(GENERATED_END)
    if 0 <= begin < end:
        return earlier[:begin] + section + earlier[end + len(GENERATED_END) :].removeprefix("\n")
    if earlier.startswith(generated.partition("\n")[0]):
        heading = earlier.find("\n## ")
        return section + ("\n" + earlier[heading + 1 :] if heading >= 0 else "")
    return section + "\n" + earlier


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=20251129)
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--benign", type=int, default=2500)
    parser.add_argument("--corpora", type=Path, default=CORPORA, help="folder of the independent corpus")
    parser.add_argument("--limit", type=int, default=None, help="read only the first N lines of each file")
    parser.add_argument(
        "--hex-notes", type=int, default=11_000, help="benign notes with a random uuid4 hex (0: none)"
    )
    parser.add_argument(
        "--before", type=Path, default=None, help="also score the memoryos of this source tree, and time both"
    )
    parser.add_argument("--before-name", default=None, help="how the report names the --before tree")
    parser.add_argument("--engine", action="store_true", help="also score CredSweeper's own engine (slow)")
    parser.add_argument("--min-recall", type=float, default=None, help="exit 1 when a corpus recalls less")
    parser.add_argument("--max-fp", type=float, default=None, help="exit 1 when a corpus flags more benign")
    parser.add_argument(
        "--no-write", action="store_true", help="print only; do not update results/secrets.md"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS, help="the results file whose generated section is replaced"
    )
    args = parser.parse_args(argv)
    text, scored = report(args)
    print(text)
    if not args.no_write:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        earlier = args.out.read_text(encoding="utf-8") if args.out.exists() else None
        args.out.write_text(merged_results(earlier, text), encoding="utf-8")
    failures = below_floors(scored, args.min_recall, args.max_fp)
    for failure in failures:
        print(f"below floor: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
