"""Recall quality benchmark (issue 12): evidence recall@k, hit@k and MRR on generated conversations.

Conversations are generated (seeded): several users, each with several sessions of chit-chat in
which personal facts are stated once, by the user, then asked about in later sessions with other
inflections and other words around them ("We camped at Lake Bled" ... "Where did we go camping?").
Every user's facts come from the same templates with other values, so other scopes are full of
the same words (distractors), and assistants echo facts back (near-misses that are not evidence).
Some questions need two turns of different sessions (multi-hop).

The protocol mirrors the held-out benchmark's: every turn goes through `remember(..., at=session
time)`, `maintain()` runs at each session end, each question goes through `recall(k=10)`, hits are
flattened to their turns through `source_ids`, and the first 10 distinct turns are scored. The
baselines rank the same user's raw turns: a plain Okapi BM25 (lowercase words, a plural stemmer)
and a plain SQLite FTS5 table with the porter tokenizer. Ratios are memoryos / baseline, one run.

    python bench/bench_recall.py                                  # full run: bench/results/recall.md
    python bench/bench_recall.py --users 3 --sessions 4 --out ''  # a quick slice
    python bench/bench_recall.py --corpus FILE --out ''          # a written corpus (JSON, below)

A written corpus (`--corpus`, e.g. bench/corpora/dialogue/dialogue_set_a.json) is JSON:
`{"conversations": [{"id", "speakers": [A, B], "sessions": [{"id", "date", "turns": [{"id", "speaker",
"text"}]}], "questions": [{"id", "question", "evidence": [turn ids], "category"}]}]}`. Each turn is
stored as "Speaker: text", the first speaker's as the user role; a question whose evidence spans two
sessions counts as multi-hop; one with no evidence (an adversarial question) is not scored.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import memoryos
from memoryos.testing import FakeClock

sys.path.insert(0, str(Path(__file__).parent))
import dialogue_corpus  # a sibling module: bench/ is not a package
from dialogue_corpus import Question, Turn

# (statement by the user, question asked later, slots). A question shares some words with its
# statement, usually in another inflection, and rarely all of them.
FACTS: tuple[tuple[str, str], ...] = (
    (
        "I adopted a {animal} last {season}, we named her {name}.",
        "What name did we give the {animal} I adopted?",
    ),
    ("My sister {name} lives in {city} and works as a {job}.", "What does my sister do for work?"),
    ("We camped at {place} during the {season} holidays.", "Where did we go camping?"),
    ("These days I'm reading {book}, it is really gripping.", "Which book have I been reading lately?"),
    ("The {team} team meetings happen every {day} at {hour}.", "When does the {team} team meet?"),
    ("I started learning the {instrument} with a teacher called {name}.", "Who teaches me the {instrument}?"),
    ("My favourite restaurant is {restaurant}, near the old harbour.", "Which restaurant is my favourite?"),
    ("I booked flights to {city} for the trip in {month}.", "Where is the trip I booked for {month}?"),
    ("Our daughter {name} turns {age} in {month}.", "How old is {name} turning?"),
    ("I switched my phone plan to {carrier} because it was cheaper.", "Which phone carrier did I switch to?"),
    ("The office printer jams whenever someone prints {thing}.", "What makes the office printer jam?"),
    ("I paid the {bill} invoice, it was {amount} euros.", "How much was the {bill} invoice I paid?"),
    ("My doctor recommended {exercise} for my back pain.", "What did the doctor recommend for my back?"),
    ("I'm allergic to {food}, so I always avoid it.", "Which food am I allergic to?"),
    ("I bought a used {color} {car} from a neighbour.", "What colour is the car I bought?"),
    ("My brother {name} is getting married in {city} next {season}.", "Where is my brother's wedding?"),
    ("I volunteer at the animal shelter every {day} morning.", "Which day do I volunteer at the shelter?"),
    ("The password manager we use at work is {tool}.", "Which password manager do we use at work?"),
)
# Two-turn facts: the first sets a value, the second (a later session) says something about it.
HOPS: tuple[tuple[str, str, str], ...] = (
    (
        "I moved to {city} in {year}.",
        "The library in {city} opens at {hour}.",
        "When does the library open in the city I moved to?",
    ),
    (
        "My best friend is {name}.",
        "{name} just started a job as a {job}.",
        "What job did my best friend start?",
    ),
    (
        "We are renovating the kitchen this {season}.",
        "The renovation contractor is {company}.",
        "Which contractor renovates our kitchen?",
    ),
)
SLOTS: dict[str, tuple[str, ...]] = {
    "animal": ("cat", "dog", "rabbit", "parrot", "hamster"),
    "season": ("spring", "summer", "autumn", "winter"),
    "name": ("Miso", "Luna", "Oskar", "Priya", "Tomas", "Ines", "Kenji", "Amara", "Leo", "Sofia"),
    "city": ("Lisbon", "Porto", "Utrecht", "Krakow", "Osaka", "Valencia", "Tallinn", "Ghent"),
    "job": ("nurse", "architect", "baker", "pilot", "teacher", "lawyer"),
    "place": ("Lake Bled", "the Dolomites", "Loch Ness", "Zion canyon", "the Black Forest"),
    "book": ("Dune", "Middlemarch", "The Overstory", "Piranesi", "Solaris"),
    "team": ("design", "platform", "billing", "mobile"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"),
    "hour": ("nine", "ten thirty", "noon", "four"),
    "instrument": ("cello", "piano", "violin", "banjo"),
    "restaurant": ("Casa Lupo", "The Green Fig", "Sakura House", "Le Petit Zinc"),
    "month": ("March", "May", "July", "October", "December"),
    "age": ("five", "seven", "ten", "twelve"),
    "carrier": ("Vodafone", "Orange", "Telia", "Mint"),
    "thing": ("envelopes", "photos", "labels", "double-sided pages"),
    "bill": ("electricity", "water", "internet", "gas"),
    "amount": ("forty", "ninety", "sixty-five", "one hundred and twenty"),
    "exercise": ("swimming", "pilates", "yoga", "cycling"),
    "food": ("peanuts", "shellfish", "sesame", "kiwis"),
    "color": ("red", "blue", "green", "silver"),
    "car": ("Volvo", "Fiat", "Toyota", "Skoda"),
    "tool": ("Bitwarden", "1Password", "KeePass"),
    "year": ("2019", "2020", "2021", "2022"),
    "company": ("Brick and Beam", "Nordbau", "HomeCraft"),
}
CHATTER = (
    "Today was busy, lots of meetings and emails at work.",
    "I need to remember to call my mother this week.",
    "The weather has been strange, warm and then suddenly cold.",
    "Can you suggest a good recipe for dinner tonight?",
    "I watched a documentary about whales yesterday.",
    "My phone battery drains really fast lately.",
    "I'm thinking about taking a short trip somewhere quiet.",
    "Work has been stressful, the project deadline moved again.",
    "I tried a new coffee place near the office, it was fine.",
    "Do you have tips for sleeping better?",
    "We had friends over for dinner on the weekend.",
    "I should book a dentist appointment soon.",
    "The neighbours are renovating and it's loud all day.",
    "I finally cleaned the garage, it took hours.",
    "My back hurts a little after the long drive.",
    "I'm trying to read more books this year.",
    "The team lunch was nice, we went to a new restaurant.",
    "I lost my keys again this morning.",
    # Near-misses: the questions' words in turns that answer nothing.
    "What was the name of that song on the radio?",
    "My sister called me about some work stuff.",
    "We should go camping again sometime, maybe with the kids.",
    "I have been reading the news far too much.",
    "The team meet-up got cancelled because of the rain.",
    "Who teaches the evening class at the gym, do you know?",
    "My favourite season is probably autumn.",
    "The trip to the coast was fully booked.",
    "The phone carrier sent me another survey.",
    "The office coffee machine is broken again.",
    "I paid far too much for parking in town.",
    "The doctor's office never answers the phone.",
    "Which food goes well with a red wine?",
    "The car needs new tyres before winter.",
    "The wedding photos from last year finally arrived.",
    "Volunteering sounds rewarding, I should try it.",
    "I forgot my password at work again.",
    "The library was closed when I got there.",
    "My best friend and I watched a film.",
    "The kitchen light keeps flickering.",
    "Which book should I take on holiday?",
    "My brother is moving flats this month.",
    "The printer at home is out of ink.",
    "The invoice for the internet was late.",
    "I bought new running shoes.",
    "The cat next door sits on our car.",
    "Learning a new language takes patience.",
    "The restaurant by the station closed down.",
)
REPLIES = (
    "That sounds like a lot. How are you feeling about it?",
    "Good idea, tell me more about it.",
    "I can help with that. What would you like to do first?",
    "Interesting! What did you like most about it?",
    "Noted. Is there anything else on your mind?",
)
ECHO = "Nice, I'll remember that: {fact}"
# Chatter is varied so that verbatim repeats are rare, as in real conversations.
OPENERS = ("", "", "Honestly, ", "Anyway, ", "By the way, ", "Ugh, ", "So, ", "Funny thing: ")
CLOSERS = ("", "", " Again.", " Not sure why.", " Typical.", " Anyway.", " What a week.")


@dataclass
class Conversation:
    user: str
    sessions: list[list[Turn]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def _fill(template: str, values: dict[str, str]) -> str:
    return template.format(**values)


def _chatter(rng: random.Random) -> str:
    line = rng.choice(CHATTER)
    opener = rng.choice(OPENERS)
    return f"{opener}{line[0].lower() if opener else line[0]}{line[1:]}{rng.choice(CLOSERS)}"


def generate(users: int, sessions: int, rng: random.Random, chatter: int = 20) -> list[Conversation]:
    conversations = []
    for u in range(users):
        convo = Conversation(f"user-{u}")
        values = {slot: rng.choice(options) for slot, options in SLOTS.items()}
        plan: list[list[tuple[str, str | None]]] = [[] for _ in range(sessions)]
        for n, (statement, _) in enumerate(FACTS):
            plan[n % max(1, sessions - 1)].append((_fill(statement, values), f"fact{n}"))
        for n, (first, second, _) in enumerate(HOPS):
            at = rng.randrange(max(1, sessions - 2))
            plan[at].append((_fill(first, values), f"hop{n}a"))
            plan[at + 1].append((_fill(second, values), f"hop{n}b"))
        evidence: dict[str, str] = {}
        for s, facts in enumerate(plan):
            turns: list[Turn] = []
            items: list[tuple[str, str | None]] = [*facts, *((_chatter(rng), None) for _ in range(chatter))]
            rng.shuffle(items)
            for text, tag in items:
                turn = Turn(f"{convo.user}/s{s}/t{len(turns)}", "user", text)
                turns.append(turn)
                if tag:
                    evidence[tag] = turn.turn_id
                reply = ECHO.format(fact=text.lower()) if tag and rng.random() < 0.3 else rng.choice(REPLIES)
                turns.append(Turn(f"{convo.user}/s{s}/t{len(turns)}", "assistant", reply))
            convo.sessions.append(turns)
        for n, (_, question) in enumerate(FACTS):
            convo.questions.append(Question(_fill(question, values), {evidence[f"fact{n}"]}, 1))
        for n, (_, _, question) in enumerate(HOPS):
            both = {evidence[f"hop{n}a"], evidence[f"hop{n}b"]}
            convo.questions.append(Question(_fill(question, values), both, 2, "multi_hop"))
        conversations.append(convo)
    return conversations


Ranker = Callable[[str], list[str]]  # question -> turn ids, best first
AnyConversation = Conversation | dialogue_corpus.Conversation


START = datetime(2026, 1, 5, 9, tzinfo=UTC)


def session_times(convo: Conversation | dialogue_corpus.Conversation) -> list[datetime]:
    """When each session starts: a dialogue's own dates, else one session every three days."""
    if isinstance(convo, dialogue_corpus.Conversation):
        return convo.dates
    return [START + timedelta(days=3 * s) for s in range(len(convo.sessions))]


def memoryos_rankers(conversations: Sequence[AnyConversation], folder: Path) -> dict[str, Ranker]:
    """Every turn through remember(at=session time), maintain() at each session end."""
    clock = FakeClock(start=START, tick=timedelta(0))
    mem = memoryos.open(folder / "recall.db", clock=clock, durability="normal")
    ids: dict[str, str] = {}
    rankers: dict[str, Ranker] = {}
    for convo in conversations:
        scope = memoryos.Scope(user=convo.user, assistant="bench")
        sessions: Sequence[Sequence[Turn]] = convo.sessions
        for turns, at in zip(sessions, session_times(convo), strict=True):
            for i, turn in enumerate(turns):
                clock.now = at + timedelta(seconds=30 * i)
                stored = mem.remember(scope, turn.text, role=turn.role, at=clock.now)
                ids[stored.memory_id] = turn.turn_id
            clock.now = at + timedelta(hours=2)
            mem.maintain(now=clock.now)
        rankers[convo.user] = _memoryos_ranker(mem, scope, ids)
    clock.now = max(session_times(c)[-1] for c in conversations) + timedelta(days=1)
    return rankers


def _memoryos_ranker(mem: memoryos.Memory, scope: memoryos.Scope, ids: dict[str, str]) -> Ranker:
    def rank(question: str) -> list[str]:
        flat: list[str] = []
        for hit in mem.recall(scope, question, k=10).hits:
            flat.extend(ids[s] for s in hit.source_ids if s in ids)
        return list(dict.fromkeys(flat))

    return rank


_WORD = re.compile(r"\w+")


def _plural(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    return [_plural(w.lower()) for w in _WORD.findall(text)]


def bm25_ranker(turns: Sequence[Turn], k1: float = 1.2, b: float = 0.75) -> Ranker:
    """Plain Okapi BM25 over one user's raw turns (lowercase words, a plural stemmer)."""
    docs = [Counter(_words(t.text)) for t in turns]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths)
    df = Counter(w for d in docs for w in d)

    def rank(question: str) -> list[str]:
        terms = set(_words(question))
        scores = []
        for i, doc in enumerate(docs):
            total = 0.0
            for term in terms & doc.keys():
                weight = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                tf = doc[term]
                total += weight * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / average))
            if total > 0:
                scores.append((-total, -i))
        return [turns[-i].turn_id for _, i in sorted(scores)[:10]]

    return rank


def fts5_ranker(turns: Sequence[Turn]) -> Ranker:
    """A plain SQLite FTS5 table with the porter tokenizer over one user's raw turns."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = 'porter unicode61')")
    conn.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", [(i, t.text) for i, t in enumerate(turns)])

    def rank(question: str) -> list[str]:
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (match,))
        return [turns[r[0]].turn_id for r in rows]

    return rank


@dataclass
class Scores:
    recall: list[float] = field(default_factory=list)
    hit: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)
    multi_hop: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def add(self, ranked: Sequence[str], question: Question, k: int) -> None:
        top = list(ranked)[:k]
        found = len(question.evidence & set(top)) / len(question.evidence)
        self.recall.append(found)
        self.hit.append(float(found > 0))
        first = next((i for i, t in enumerate(top) if t in question.evidence), None)
        self.rr.append(0.0 if first is None else 1.0 / (first + 1))
        if question.hops > 1:
            self.multi_hop.append(found)
        self.by_kind.setdefault(question.kind, []).append(found)

    def summary(self) -> dict[str, float]:
        return {
            "recall": statistics.fmean(self.recall),
            "hit": statistics.fmean(self.hit),
            "mrr": statistics.fmean(self.rr),
            "multi_hop_recall": statistics.fmean(self.multi_hop) if self.multi_hop else 0.0,
            **{f"kind:{kind}": statistics.fmean(found) for kind, found in sorted(self.by_kind.items())},
        }


def evaluate(conversations: Sequence[AnyConversation], k: int, folder: Path) -> dict[str, dict[str, float]]:
    started = time.perf_counter()
    ours = memoryos_rankers(conversations, folder)
    scores = {"memoryos": Scores(), "bm25": Scores(), "fts5_porter": Scores()}
    for convo in conversations:
        turns = [t for session in convo.sessions for t in session]
        rankers = {
            "memoryos": ours[convo.user],
            "bm25": bm25_ranker(turns),
            "fts5_porter": fts5_ranker(turns),
        }
        for question in convo.questions:
            for name, rank in rankers.items():
                scores[name].add(rank(question.text), question, k)
    results = {name: s.summary() for name, s in scores.items()}
    results["_run"] = {"seconds": time.perf_counter() - started}
    return results


def load_corpus(path: Path) -> list[dialogue_corpus.Conversation]:
    """A written corpus (module docstring) as dialogue conversations, one scope each."""
    data = json.loads(path.read_text(encoding="utf-8"))
    conversations = []
    for convo in data["conversations"]:
        speakers = list(convo["speakers"])
        sessions: list[list[Turn]] = []
        dates: list[datetime] = []
        where: dict[str, int] = {}
        for index, session in enumerate(convo["sessions"]):
            turns = [
                Turn(
                    str(t["id"]),
                    "user" if t["speaker"] == speakers[0] else "assistant",
                    f"{t['speaker']}: {t['text']}",
                )
                for t in session["turns"]
            ]
            where.update((turn.turn_id, index) for turn in turns)
            sessions.append(turns)
            dates.append(datetime.fromisoformat(str(session["date"]).replace("Z", "+00:00")))
        questions = [
            Question(
                str(q["question"]),
                set(q["evidence"]),
                len({where[e] for e in q["evidence"]}),
                str(q["category"]),
            )
            for q in convo["questions"]
            if q["evidence"]
        ]
        conversations.append(dialogue_corpus.Conversation(str(convo["id"]), sessions, dates, questions))
    return conversations


def _setup(args: argparse.Namespace, turns: int, questions: int) -> list[str]:
    if args.corpus is not None:
        return [
            f"Command: `python bench/bench_recall.py --corpus {args.corpus} --k {args.k}`",
            f"Data: {args.corpus}, written by a helper who never read the code (its WRITER.md),"
            f" {turns:,} turns, {questions:,} scored questions.",
        ]
    if args.shape == "dialogue":
        return [
            f"Command: `python bench/bench_recall.py --shape dialogue --conversations {args.conversations}"
            f" --seed {args.seed} --k {args.k}`",
            f"Data: {args.conversations} generated two-person conversations (bench/dialogue_corpus.py),"
            f" {turns:,} turns, {questions:,} questions.",
        ]
    return [
        f"Command: `python bench/bench_recall.py --users {args.users} --sessions {args.sessions}"
        f" --chatter {args.chatter} --seed {args.seed} --k {args.k}`",
        f"Data: {args.users} generated users, {args.sessions} sessions each, {turns:,} turns,"
        f" {questions:,} questions ({len(HOPS)} of each user's need two turns).",
    ]


def report(results: dict[str, dict[str, float]], args: argparse.Namespace, turns: int, questions: int) -> str:
    ours = results["memoryos"]
    lines = [
        f"# Recall quality benchmark — {datetime.now(UTC):%Y-%m-%d}",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()},"
        f" SQLite {sqlite3.sqlite_version}.",
        *_setup(args, turns, questions),
        "Protocol of the held-out benchmark: remember(at=session time), maintain() at each session end,"
        f" recall(k=10), hits flattened through source_ids, the first {args.k} distinct turns scored.",
        "",
        f"| ranker | evidence recall@{args.k} | hit@{args.k} | MRR | multi-hop recall@{args.k} |",
        "|---|---|---|---|---|",
    ]
    rankers = ("memoryos", "bm25", "fts5_porter")
    for name in rankers:
        r = results[name]
        lines.append(
            f"| {name} | {r['recall']:.3f} | {r['hit']:.3f} | {r['mrr']:.3f} | {r['multi_hop_recall']:.3f} |"
        )
    lines += ["", "| ratio (memoryos / baseline) | recall | hit | MRR |", "|---|---|---|---|"]
    for name in ("bm25", "fts5_porter"):
        base = results[name]
        cells = " | ".join(
            f"{ours[m] / base[m]:.2f}x" if base[m] else "n/a" for m in ("recall", "hit", "mrr")
        )
        lines.append(f"| vs {name} | {cells} |")
    kinds = sorted(m for m in ours if m.startswith("kind:"))
    lines += ["", "| recall@k by question kind | " + " | ".join(rankers) + " |", "|---|---|---|---|"]
    for kind in kinds:
        lines.append(f"| {kind[5:]} | " + " | ".join(f"{results[n][kind]:.3f}" for n in rankers) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shape",
        choices=("facts", "dialogue"),
        default="facts",
        help="facts: users telling an assistant facts (default); dialogue: LoCoMo-shaped two-person"
        " conversations (bench/dialogue_corpus.py)",
    )
    parser.add_argument("--users", type=int, default=12, help="facts: generated users (scopes)")
    parser.add_argument("--sessions", type=int, default=8, help="facts: sessions per user")
    parser.add_argument("--chatter", type=int, default=24, help="facts: chit-chat turns per session")
    parser.add_argument("--conversations", type=int, default=10, help="dialogue: conversations (scopes)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--corpus", type=Path, default=None, help="a written corpus (JSON) instead of --shape"
    )
    parser.add_argument("--k", type=int, default=10, help="distinct turns scored per question")
    parser.add_argument("--out", default="bench/results/recall.md", help="markdown results file ('' to skip)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    conversations: Sequence[AnyConversation] = (
        load_corpus(args.corpus)
        if args.corpus is not None
        else dialogue_corpus.generate(args.conversations, rng)
        if args.shape == "dialogue"
        else generate(args.users, args.sessions, rng, args.chatter)
    )
    with tempfile.TemporaryDirectory(prefix="memoryos-recall-") as folder:
        results = evaluate(conversations, args.k, Path(folder))
    turns = sum(len(s) for c in conversations for s in c.sessions)
    questions = sum(len(c.questions) for c in conversations)
    text = report(results, args, turns, questions)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
