"""`memoryos demo`: a scripted multi-session agent conversation on an embedded store.

It runs on a simulated clock (two sessions a day apart, starting two days ago) so that idle
promotion and heat show up in seconds, and it prints where every memory and receipt went. It ends
as a host's day ends: the last turns go idle and `maintain()` moves them out of STM, so every
expected transition has happened and the audit it suggests says `healthy` (exit 0), at the real
time or at the demo's.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import memoryos

SESSIONS: tuple[tuple[str, ...], ...] = (
    (
        "user: Hi, I'm Alice. I work on blyck, a static site generator written in Rust.",
        "assistant: Nice to meet you, Alice. What do you need help with on blyck?",
        "user: I deploy blyck with make release, then publish the docs with make docs.",
        "assistant: Got it: make release deploys blyck and make docs publishes the documentation.",
        "user: I prefer short answers and I like code examples in Rust.",
        "assistant: Understood, short answers with Rust examples.",
        "user: The blyck release needs the staging database to be migrated first.",
        "assistant: So migrate the staging database before running make release for blyck.",
    ),
    (
        "user: Yesterday's blyck release failed because the staging database migration timed out.",
        "assistant: Then raise the migration timeout before the next blyck release.",
        "user: Good idea. The migration timeout is now 120 seconds.",
    ),
)


class DemoClock:
    """Twenty seconds per reading, from two days ago: the demo's evidence is recent and in the past,
    so the auditor, at the real time, sees no wait window still open."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=20)
        return self.now


def _say(text: str) -> None:
    print(text, flush=True)


def _tiers(mem: memoryos.Memory) -> str:
    tiers = mem.status()["tiers"]
    return (
        f"STM {tiers['stm']} turns | MTM {tiers['mtm_pages']} pages in {tiers['mtm_segments']} segments"
        f" | LPM {tiers['lpm']} records"
    )


def _converse(mem: memoryos.Memory, scope: memoryos.Scope, lines: tuple[str, ...]) -> None:
    for line in lines:
        role, _, text = line.partition(": ")
        stored = mem.remember(scope, text, role=role)
        _say(f"  remember {role:9} -> {stored.ref[:13]}…  [{_tiers(mem)}]")


def run_demo(folder: str) -> None:
    root = Path(folder)
    if root.exists():
        if not (root / ".memoryos-demo").exists():
            raise memoryos.InvalidInput(f"{root} exists and is not a demo folder: pass --dir NEW_FOLDER")
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / ".memoryos-demo").touch()
    db, receipts_file = root / "demo.db", root / "receipts.jsonl"
    clock = DemoClock()
    alice = memoryos.Scope(user="alice@example.com", assistant="coder", session="s-1")
    bob = memoryos.Scope(user="bob@example.com", assistant="coder")

    _say(
        f"memoryos {memoryos.__version__} demo — store {db}\n\n"
        "Session 1 (STM holds 7 turns; a full STM moves to MTM):"
    )
    with memoryos.open(db, clock=clock) as mem:
        _converse(mem, alice, SESSIONS[0])
        mem.put(
            alice,
            "deploy:blyck",
            "make release (after migrating staging)",
            kind="procedure",
            proof="ran make release on 2026-11-02, exit 0",
        )
        _say("  put      procedure deploy:blyck into the typed drawer (LPM)")
        try:
            mem.remember(alice, "my password is hunter2-Secret!")
        except memoryos.Rejected as exc:
            _say(f"  remember a password -> refused by the no-store rule ({exc.reason}); only a receipt kept")

    clock.now += timedelta(days=1)
    _say("\nSession 2, a day later (the process restarted; maintain() promotes idle turns):")
    with memoryos.open(db, clock=clock) as mem:
        done = mem.maintain()
        _say(
            f"  maintain -> {done.promoted_turns} idle turns promoted, {done.distilled_segments} hot segs "
            f"distilled into {done.lpm_records} LPM records  [{_tiers(mem)}]"
        )
        _converse(mem, alice, SESSIONS[1])
        recall = mem.recall(alice, "how do I release blyck?", k=3)
        _say("  recall 'how do I release blyck?' ->")
        for hit in recall.hits:
            _say(
                f"    [{hit.tier}] {hit.text[:70]!r}\n           ref {hit.ref}, built from turns "
                f"{', '.join(s[:13] + '…' for s in hit.source_ids[:3])}"
            )
        mem.generated(alice, recall.run_id, depends_on=recall.refs)
        _say(f"  generated(depends_on={len(recall.refs)} refs) -> a generate receipt ties the answer to them")
        mem.recall(alice, "staging database migration", k=3)
        done = mem.maintain()
        _say(
            f"  recalls heat the segments they hit; maintain -> {done.distilled_segments} hot segs distilled"
            f" into {done.lpm_records} LPM records  [{_tiers(mem)}]"
        )
        for topic in mem.topics(alice, limit=2):
            _say(f"  topic ({topic.pages} pages, heat {topic.heat:.1f}): {topic.summary[:90]!r}")
        other = mem.recall(bob, "blyck release", k=3)
        _say(f"  recall by another user for 'blyck release' -> {len(other.hits)} hits (scopes never mix)")
        record = mem.get(alice, "deploy:blyck")
        _say(
            f"  get deploy:blyck -> v{record.version if record else '?'} {record.body if record else None!r}"
        )
        mem.correct(alice, "deploy:blyck", "make release (staging migration timeout 120 s)")
        _say(f"  correct deploy:blyck -> {len(mem.history(alice, 'deploy:blyck'))} versions kept in history")

        clock.now += timedelta(seconds=mem.config.stm_idle_seconds + 60)
        done = mem.maintain()
        _say(
            f"\nThe session ends; its turns go idle: maintain -> {done.promoted_turns} idle turns promoted"
            f"  [{_tiers(mem)}]"
        )

        exported = mem.export_receipts(receipts_file)
        findings = mem.check()
        _say(f"\nReceipts: {exported} content-free receipts exported to {receipts_file}")
        _say(f"  check() -> {findings or 'no findings'}")
        _say(
            f"  audit them:  memoryos-audit check {receipts_file} --format text   (or --db {db})\n"
            "    expect `healthy` (exit 0): every turn has left STM and every promotion committed. A store\n"
            "    audited while turns sit in STM says `waiting` (exit 1) until their window ends, then\n"
            "    `promotion_missing` (exit 3) if nothing (maintain(), a worker) moved them in time."
        )
        _say(f"  inspect:     memoryos status --db {db} --table")
