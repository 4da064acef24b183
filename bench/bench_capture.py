"""Capture and extraction benchmark: candidate classification on an independent activity log,
reconciliation on a scripted multi-session conversation, and the cost of one extraction pass.

1. **Classification.** `corpora/activity_log.jsonl` (441 labelled events, written by someone who had
   not read the classifier) goes through `Memory.observe()` on a fresh store. Reported per kind
   (capability, procedure, rule) and for candidate creation as a whole: precision and recall, and how
   many candidates carry a secret (a candidate made from a line labelled `credential`, or one in
   which the no-store rule finds anything). Goal: precision >= 95%, recall >= 90%, 0 secrets.
2. **Reconciliation.** `corpora/reconciliation.json` (6 sessions, 10 facts with their changes and
   restatements) is driven through the public API (`remember`, `end_session`, `maintain`), without a
   model and with the fake model of memoryos.testing. Reported: facts whose final value is the one
   active record of their key, changes seen as UPDATEs with history, restatements seen as
   REINFORCEs, duplicates (more than one active record for a fact).
3. **Extraction cost.** One maintain() pass that extracts a snapshot of 8 new pages, from segments
   already holding N pages (N = 64 .. 2048): the pass time should stay flat as N grows, since a pass
   reads only the pages added since the last extraction. The raw baseline, measured interleaved in
   the same run, is one INSERT of 8 rows into a plain SQLite table; the ratio is reported.

Run: `python bench/bench_capture.py [--no-write] [--quick] [--before TREE] [--reconciliation PATH]
[--reconciliation-only]`; `--reconciliation` adds a held-out conversation's rows beside the
in-sample ones. `--before` scores the
classifier of another source tree too (e.g. `git archive main memoryos | tar -x -C /tmp/before`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

import memoryos
from memoryos.policies import nostore
from memoryos.store.sqlite import SQLiteStore
from memoryos.testing import FakeClock, FakeLLMServer

HERE = Path(__file__).resolve().parent
CORPORA = HERE / "corpora"
RESULTS = HERE / "results" / "capture.md"
KINDS = ("capability", "procedure", "rule")
SCOPE = memoryos.Scope(user="bench", assistant="capture")
EXTRACT = memoryos.Scope(user="bench", assistant="extract")


# -- 1. classification --------------------------------------------------------------------------


def _sqlite(mem: memoryos.Memory) -> SQLiteStore:
    """The SQLite store under a Memory: the reconciliation pass reads its tables directly."""
    assert isinstance(mem.store, SQLiteStore), "bench_capture runs on a SQLite store"
    return mem.store


def load_log(path: Path = CORPORA / "activity_log.jsonl") -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def classify_all(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each line's outcome through the public API: the candidate's kind (or None) and any secret."""
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder, memoryos.open(Path(folder) / "c.db") as mem:
        for index, line in enumerate(lines):
            scope = memoryos.Scope(user="bench", assistant="capture", session=f"s{index}")
            try:
                found = mem.observe(scope, line["event"])
            except memoryos.MemoryOSError as exc:
                out.append({"kind": None, "error": type(exc).__name__, "texts": []})
                continue
            texts = [] if found is None else [found.key, found.body, found.proof or ""]
            out.append({"kind": None if found is None else found.kind, "error": None, "texts": texts})
            if found is not None:  # keep keys from colliding across lines: one pending key per scope
                mem.reject(scope, found.candidate_id)
    return out


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def score(lines: list[dict[str, Any]], outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    per_kind = {kind: Score() for kind in (*KINDS, "any")}
    misses: Counter[str] = Counter()
    wrong: list[str] = []
    secrets = 0
    for line, outcome in zip(lines, outcomes, strict=True):
        expected, got = line["expect"]["kind"] if line["expect"]["candidate"] else None, outcome["kind"]
        for kind in KINDS:
            per_kind[kind].tp += expected == kind and got == kind
            per_kind[kind].fp += got == kind and expected != kind
            per_kind[kind].fn += expected == kind and got != kind
        per_kind["any"].tp += expected is not None and got is not None
        per_kind["any"].fp += expected is None and got is not None
        per_kind["any"].fn += expected is not None and got is None
        if got is not None and (
            line["expect"]["category"] == "credential" or any(nostore.scan(t) for t in outcome["texts"])
        ):
            secrets += 1
        if expected != got:
            misses[f"{line['expect']['category']}: expected {expected}, got {got}"] += 1
            wrong.append(line["id"])
    return {"scores": per_kind, "secrets": secrets, "misses": misses, "wrong": wrong}


def score_tree(tree: Path) -> dict[str, Any]:
    """The same classification, by another source tree's memoryos (run in a child process)."""
    code = (
        "import sys, orjson; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
        "import bench_capture as b; lines = b.load_log();"
        "print(orjson.dumps([o['kind'] for o in b.classify_all(lines)]).decode())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree), str(HERE)], capture_output=True, check=True, timeout=600
    )
    kinds = orjson.loads(done.stdout.splitlines()[-1])
    lines = load_log()
    return score(lines, [{"kind": k, "texts": []} for k in kinds])


# -- 2. reconciliation ----------------------------------------------------------------------------


def _at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(dt.UTC)


def drive_conversation(script: dict[str, Any], folder: Path) -> dict[str, list[memoryos.Record]]:
    """Every session's turns remembered, the session ended, maintenance run; then each fact key's
    history. The store's own keys are found by the fact's words: the bench does not tell it."""
    clock = FakeClock(_at(script["sessions"][0]["timestamp"]) if script["sessions"] else None)
    with memoryos.open(folder / "r.db", clock=clock, heat_threshold=1.0) as mem:
        for session in script["sessions"]:
            clock.now = max(clock.now, _at(session["timestamp"]))
            scope = memoryos.Scope(user="dana", assistant="helper", session=f"s{session['session']}")
            for turn in session["turns"]:
                mem.remember(scope, turn["text"], role=turn["role"])
            mem.end_session(scope)
            mem.maintain()
        keys = (
            _sqlite(mem)
            ._live()
            .execute("SELECT DISTINCT key FROM units WHERE tier = 'lpm' AND key IS NOT NULL")
            .fetchall()
        )
        everything = memoryos.Scope(user="dana", assistant="helper")
        return {key: mem.history(everything, key) for (key,) in keys}


_MONTHS = "January February March April May June July August September October November December".split()


def value_words(value: str) -> list[str]:
    """The words a record must contain to hold an expected value: its words outside parentheses
    ("Biscuit (dog, beagle)" is held by "my dog Biscuit"), but for a value given up, "none (sold the
    Activa)", the words inside them (nothing says "none"); an ISO date as its month and day
    ("2026-03-28": "March", "28"), lower-cased."""
    plain = re.sub(r"\([^)]*\)", " ", value)
    if plain.strip().lower() == "none" and "(" in value:
        # "none (sold the Activa)": a fact given up is held by the words that give it up
        plain = value[value.index("(") + 1 : value.rindex(")")]
    plain = re.sub(
        r"\b\d{4}-(\d{2})-(\d{2})\b", lambda m: f"{_MONTHS[int(m.group(1)) - 1]} {int(m.group(2))}", plain
    )
    return re.findall(r"[\w'-]+", plain.lower())


def holds(body: str, value: str) -> bool:
    words = set(re.findall(r"[\w'-]+", body.lower()))
    wanted = value_words(value)
    return bool(wanted) and all(w in words for w in wanted)


CURRENT = ("active", "stale")  # stale: the current version, not restated for a while (still recalled)


def reconcile_score(script: dict[str, Any], histories: dict[str, list[memoryos.Record]]) -> dict[str, Any]:
    """Per expected fact: the key whose versions hold its values, and what the store did. A value
    is held by a record that contains its words (`holds`); a fact's current record is its key's
    version that is active or stale."""
    found = {"facts": 0, "final_right": 0, "updates": 0, "reinforces": 0, "adds": 0, "duplicates": 0}
    expected_counts: Counter[str] = Counter()
    for fact in script["expected"]:
        events = fact["events"]
        expected_counts.update(e["action"] for e in events)
        found["facts"] += 1
        values = list(dict.fromkeys(e["value"] for e in events))
        holding = {
            key: versions
            for key, versions in histories.items()
            if any(holds(r.body, v) for r in versions for v in values)
        }
        current = [(key, r) for key, versions in holding.items() for r in versions if r.status in CURRENT]
        right = [key for key, r in current if holds(r.body, fact["final"])]
        found["final_right"] += bool(right)
        found["duplicates"] += max(0, len(current) - 1)
        best = max(holding.values(), key=len, default=[])
        found["adds"] += bool(best)
        found["updates"] += min(len(best) - 1, sum(e["action"] == "UPDATE" for e in events)) if best else 0
        reinforced = max((r.reinforced for r in best), default=0)
        found["reinforces"] += (
            min(sum(r.reinforced for r in best), sum(e["action"] == "REINFORCE" for e in events))
            if reinforced
            else 0
        )
    found["distractor_updates"] = distractor_updates(script, histories)
    return {"found": found, "expected": dict(expected_counts)}


def distractor_updates(script: dict[str, Any], histories: dict[str, list[memoryos.Record]]) -> int:
    """Versions after the first (UPDATEs) whose body holds most of a distractor's words (a
    temporary state, a side job, a trip or a rejected suggestion taken for a change) and none of
    the values an expected UPDATE brings (a turn may hold a distractor and a real change)."""
    changes = [e["value"] for fact in script["expected"] for e in fact["events"] if e["action"] == "UPDATE"]
    count = 0
    for distractor in script.get("distractors", []):
        words = [w for w in re.findall(r"[\w'-]+", distractor["text"].lower()) if len(w) > 3]
        for versions in histories.values():
            for record in versions[1:]:
                body = set(re.findall(r"[\w'-]+", record.body.lower()))
                like = bool(words) and sum(w in body for w in words) >= max(2, len(words) // 2)
                count += like and not any(holds(record.body, value) for value in changes)
    return count


def reconciliation(
    script: dict[str, Any], *, model: bool, diagnose: list[str] | None = None
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, _model_env(model):
        histories = drive_conversation(script, Path(folder))
    if diagnose is not None:
        diagnose += diagnosis(script, histories)
    return reconcile_score(script, histories)


def diagnosis(script: dict[str, Any], histories: dict[str, list[memoryos.Record]]) -> list[str]:
    """Per expected fact (`--diagnose`; it reads what reconcile_score reads and scores nothing):
    its events, then every key whose versions hold one of its values, each version with its status,
    reinforced count and body; then every UPDATE a distractor caused."""
    out: list[str] = []
    turns = {
        (s["session"], i + 1): t["text"]
        for s in script["sessions"]
        for i, t in enumerate(t for t in s["turns"])
    }
    for fact in script["expected"]:
        values = list(dict.fromkeys(e["value"] for e in fact["events"]))
        out.append(f"### {fact['subject']} (final: {fact['final']})")
        for e in fact["events"]:
            said = turns.get((e["session"], e["turn"]), "?")
            out.append(f"- s{e['session']}t{e['turn']} {e['action']} {e['value']!r}: {said[:160]!r}")
        for key, versions in histories.items():
            if not any(holds(r.body, v) for r in versions for v in values):
                continue
            out.append(f"  key {key}:")
            for r in versions:
                out.append(f"    v{r.version} {r.status} x{r.reinforced}: {r.body[:140]!r}")
    for distractor in script.get("distractors", []):
        alone = {**script, "distractors": [distractor]}
        if distractor_updates(alone, histories):
            out.append(
                f"DISTRACTOR UPDATE s{distractor['session']}t{distractor['turn']}: {distractor['text']!r}"
            )
    return out


@contextmanager
def _model_env(model: bool) -> Iterator[None]:
    if not model:
        yield
        return
    with FakeLLMServer("normal") as server:
        saved = {k: os.environ.get(k) for k in ("MEMORYOS_LLM_URL", "MEMORYOS_LLM_MODEL")}
        os.environ.update({"MEMORYOS_LLM_URL": server.url, "MEMORYOS_LLM_MODEL": "fake"})
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


# -- 3. extraction cost -----------------------------------------------------------------------------


def _raw_insert(conn: sqlite3.Connection, rows: int) -> float:
    started = time.perf_counter()
    with conn:
        conn.executemany("INSERT INTO t (body) VALUES (?)", [(f"raw row {i}",) for i in range(rows)])
    return time.perf_counter() - started


def _filled(folder: Path, size: int) -> tuple[memoryos.Memory, FakeClock]:
    """A store whose one segment holds `size` pages, every one of them distilled already."""
    clock = FakeClock()
    mem = memoryos.open(
        folder / f"e{size}.db",
        clock=clock,
        stm_capacity=8,
        heat_threshold=4.0,
        segment_max_pages=4096,
        mtm_capacity=10_000,
        durability="normal",  # fsync noise on a shared disk would drown what is measured here
    )
    for i in range(size):
        mem.remember(EXTRACT, f"the blyck release pipeline runs make release, note {i}")
    while mem.maintain().distilled_segments:
        pass  # a batch a pass, until the next pass can only see new pages
    return mem, clock


def _pages_read(mem: memoryos.Memory) -> int:
    """How many pages the newest distillation said it would read (its `started` receipt)."""
    rows = _sqlite(mem)._live().execute("SELECT body FROM receipt_outbox ORDER BY seq DESC LIMIT 400")
    started = (orjson.loads(body) for (body,) in rows)
    newest = next(r for r in started if r["boundary"] == "mtm_to_lpm" and r["status"] == "started")
    return len(newest["derivedFrom"])


def extraction_cost(sizes: list[int], repeats: int) -> list[dict[str, Any]]:
    """Median time of a maintain() pass that extracts 8 new pages, against segment size. The
    sizes are measured interleaved (a round over every store, `repeats` times), each beside a raw
    8-row insert, so that the machine's noise falls on every size alike."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        raw = sqlite3.connect(folder / "raw.db")
        raw.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
        stores = {size: _filled(folder, size) for size in sizes}
        passes: dict[int, list[float]] = {size: [] for size in sizes}
        bases: dict[int, list[float]] = {size: [] for size in sizes}
        read: dict[int, set[int]] = {size: set() for size in sizes}
        try:
            for r in range(repeats):
                for size, (mem, _) in stores.items():
                    for i in range(8):
                        text = f"the blyck release pipeline runs make release. My home airport is OAK {r}{i}"
                        mem.remember(EXTRACT, text)
                    bases[size].append(_raw_insert(raw, 8))
                    started = time.perf_counter()
                    done = mem.maintain()
                    passes[size].append(time.perf_counter() - started)
                    assert done.distilled_segments >= 1, done
                    read[size].add(_pages_read(mem))
        finally:
            for mem, _ in stores.values():
                mem.close()
    out = []
    for size in sizes:
        pass_ms, base_ms = statistics.median(passes[size]) * 1000, statistics.median(bases[size]) * 1000
        out.append(
            {
                "pages": size,
                "pass_ms": pass_ms,
                "raw_ms": base_ms,
                "ratio": pass_ms / base_ms,
                "read": read[size],
            }
        )
    return out


# -- report -----------------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def reconciliation_section(args: argparse.Namespace) -> list[str]:
    """The reconciliation table: the in-sample corpus, and each `--reconciliation PATH` beside it."""
    corpora = [
        ("in-sample", CORPORA / "reconciliation.json"),
        *(("held-out", Path(p)) for p in args.reconciliation),
    ]
    parts = ["", "## Reconciliation: " + ", ".join(f"`{path.name}` ({label})" for label, path in corpora), ""]
    parts += [
        "| corpus | path | facts | final value current | ADD | UPDATE | REINFORCE | duplicates |"
        " distractor UPDATEs |"
    ]
    parts += ["|---|---|---|---|---|---|---|---|---|"]
    for label, path in corpora:
        script = orjson.loads(path.read_bytes())
        for model in (False, True):
            diagnosed: list[str] | None = [] if args.diagnose else None
            result = reconciliation(script, model=model, diagnose=diagnosed)
            if diagnosed is not None:
                print(
                    f"## diagnosis: {path.name}, {'fake model' if model else 'no model'}",
                    *diagnosed,
                    sep="\n",
                )
            f, e = result["found"], result["expected"]
            path_name = "fake model" if model else "no model"
            parts.append(
                f"| {label} | {path_name} | {f['facts']} | {f['final_right']} |"
                f" {f['adds']}/{e.get('ADD', 0)} | {f['updates']}/{e.get('UPDATE', 0)} |"
                f" {f['reinforces']}/{e.get('REINFORCE', 0)} | {f['duplicates']} |"
                f" {f['distractor_updates']} |"
            )
    return parts


def report(args: argparse.Namespace) -> str:
    if args.reconciliation_only:
        return "\n".join(["# Capture benchmark (reconciliation only)", *reconciliation_section(args)]) + "\n"
    lines = load_log()
    classified = score(lines, classify_all(lines))
    rows = ["| kind | precision | recall | tp | fp | fn |", "|---|---|---|---|---|---|"]
    for kind, s in classified["scores"].items():
        rows.append(f"| {kind} | {_pct(s.precision)} | {_pct(s.recall)} | {s.tp} | {s.fp} | {s.fn} |")
    parts = [
        "# Capture benchmark",
        "",
        f"{dt.date.today().isoformat()}, {platform.machine()}, Python {platform.python_version()},"
        f" {os.cpu_count()} cores (shared). `python bench/bench_capture.py`.",
        "",
        f"## Classification: `corpora/activity_log.jsonl` ({len(lines)} events, independent labels)",
        "",
        *rows,
        "",
        f"Candidates carrying a secret: **{classified['secrets']}**.",
        "",
        "Disagreements by category (expected vs got):",
        "",
        *[f"- {what}: {n}" for what, n in classified["misses"].most_common()],
    ]
    for extra in args.log:
        more = load_log(Path(extra))
        got = score(more, classify_all(more))
        parts += ["", f"Another log, `{Path(extra).name}` ({len(more)} events):", ""]
        parts += ["| kind | precision | recall | tp | fp | fn |", "|---|---|---|---|---|---|"]
        parts += [
            f"| {k} | {_pct(s.precision)} | {_pct(s.recall)} | {s.tp} | {s.fp} | {s.fn} |"
            for k, s in got["scores"].items()
        ]
        parts += ["", f"Candidates carrying a secret: **{got['secrets']}**."]
    for tree in args.before:
        before = score_tree(Path(tree))
        parts += ["", f"Before (`{tree}`):", "", "| kind | precision | recall |", "|---|---|---|"]
        parts += [f"| {k} | {_pct(s.precision)} | {_pct(s.recall)} |" for k, s in before["scores"].items()]
        parts += ["", f"Candidates from lines labelled `credential` before: {before['secrets']}."]
    parts += reconciliation_section(args)
    if args.reconciliation_only:
        return "\n".join(parts) + "\n"
    sizes = [64, 256] if args.quick else [64, 256, 1024, 2048]
    cost = extraction_cost(sizes, 3 if args.quick else 7)
    parts += [
        "",
        "## Extraction cost per maintain() pass (8 new pages) against segment size",
        "",
        "| pages in the segment | pages one pass read | pass ms (median) | raw 8-row insert ms | ratio |",
        "|---|---|---|---|---|",
        *[
            f"| {c['pages']} | {sorted(c['read'])} | {c['pass_ms']:.2f} | {c['raw_ms']:.3f}"
            f" | {c['ratio']:.1f} |"
            for c in cost
        ],
        "",
        f"Largest / smallest pass time: {cost[-1]['pass_ms'] / cost[0]['pass_ms']:.2f}x"
        f" for {cost[-1]['pages'] // cost[0]['pages']}x the pages.",
    ]
    return "\n".join(parts) + "\n" + NOTES


NOTES = """
## Reading these figures

- **In-sample after the fixes.** The classifier was written before the corpus was read (the
  "Before (`/tmp/precorpus`)" rows: `git archive 31f5985 memoryos receipts`); its misses were then
  fixed by general rules (quote-aware splitting, shells' `-c`, flag values, task and script names,
  Windows scripts, `python -m`, cloud logins, read-only subcommand pairs, standing-order markers and
  one-off phrasings), so the top table is in-sample. `tests/memoryos/test_capture_policy.py`
  (`TestRawCommandsBeyondTheCorpus`) holds cases written afterwards, outside the corpus. The
  "Before (`/tmp/before`)" rows are main's classifier (`git archive main memoryos receipts`).
- **The two misses** are refused by the no-store rule, not by the classifier: `kinit
  jdoe@CORP.EXAMPLE.COM` (a Kerberos principal has the shape of an e-mail address) and `aws ecr
  get-login-password | docker login --password-stdin ...` (the detector reads
  `--password-stdin <registry>` as a password assignment).
- **Reconciliation without a model** reads subjects by sentence shapes (memoryos/policies/
  subjects.py) and restatements by value (memoryos/policies/mentions.py): a user's later
  statement that mentions a fact's current value (its proper nouns, or a short value's words)
  reinforces it, and one that retires a value ("goodbye X", "X is retired") updates the fact
  holding it. What remains: restatements of lower-case values inside long statements, aliases
  ("nvim" for Neovim), and facts no shape reads. UPDATE counts the versions of the fact's record
  (capped at the expected number); REINFORCE counts `Record.reinforced` on the key with the most
  versions among those holding the fact's values; duplicates are active records beyond one per
  fact. The fake model echoes each page as a record of every kind, so its rows measure matching
  on raw page text, not what a real model would extract.
- **Extraction cost**: every pass reads exactly the 8 new pages ("pages one pass read"), whatever the
  segment holds. What still grows with the segment in a maintain() pass is the notes refresh:
  `newest_pages()` sorts the whole segment by `created_at` (`units_segment` indexes `segment_id`
  only), which is outside extraction.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", action="append", default=[], help="another source tree to score")
    parser.add_argument(
        "--reconciliation",
        action="append",
        default=[],
        metavar="PATH",
        help="another scripted conversation in the format of corpora/reconciliation.json, reported beside it",
    )
    parser.add_argument(
        "--log",
        action="append",
        default=[],
        metavar="PATH",
        help="another activity log in the format of corpora/activity_log.jsonl, scored beside it",
    )
    parser.add_argument(
        "--reconciliation-only",
        action="store_true",
        help="only the reconciliation table (implies --no-write)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="print, per expected fact of each conversation, the records holding its values (scores nothing)",
    )
    args = parser.parse_args()
    text = report(args)
    print(text)
    if not args.no_write and not args.reconciliation_only:
        RESULTS.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
