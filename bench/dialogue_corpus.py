"""Long two-person conversations shaped like the public LoCoMo set, generated from a seed.

bench_recall.py's default corpus (one user telling an assistant facts) is too easy to tell rankers
apart: a question shares its words with its evidence. Real long dialogues do not. Here two named
friends talk over 20-30 dated sessions (~500-600 turns), mostly chit-chat, and the questions are
worded the way LoCoMo's are:

- a question names the speaker ("What did Maria paint?") while the evidence is her own
  first-person turn ("Maria: Finally finished the painting of the harbour ...");
- the answer turn often holds none of the query's words: they are in the other speaker's
  question just before it ("Jon: What have you been researching?" -> "Maria: Adoption agencies,
  mostly."), and only the answer is evidence;
- other inflections and paraphrases (camped / camping, grandma / grandmother, got / get);
- multi-hop questions need two turns of different sessions;
- temporal questions ("When did Maria go to the support group?") whose evidence says "yesterday";
- the other speaker reacts with the same words and the speaker's name (near-misses that are not
  evidence), and both speakers talk about the same everyday things.

Each turn's text is "Name: words", as a host that stores a two-person transcript would write it;
the first speaker's turns are remembered with role "user", the second's with "assistant".
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

NAMES = (
    "Maria",
    "Jon",
    "Caroline",
    "Melanie",
    "Gina",
    "Andrew",
    "Audrey",
    "Nate",
    "Joanna",
    "Tim",
    "Evan",
    "Sam",
    "Deborah",
    "Jolene",
    "Calvin",
    "Dave",
    "John",
    "Priya",
    "Omar",
    "Lena",
)
SLOTS: dict[str, tuple[str, ...]] = {
    "scene": ("the harbour at dusk", "a field of sunflowers", "my grandmother's garden", "a stormy lake"),
    "research": ("Adoption agencies", "Solar panel grants", "Graduate programs in counseling", "Dog breeds"),
    "place": ("Lake Tahoe", "the Redwoods", "Yosemite", "a spot near the river", "the coast"),
    "job": ("nurse", "graphic designer", "data analyst", "chef", "teacher", "mechanic"),
    "company": ("a small studio", "the city hospital", "a startup downtown", "the high school"),
    "pet": ("dog", "cat", "parrot", "rabbit"),
    "petname": ("Oscar", "Luna", "Biscuit", "Pepper", "Max", "Mochi"),
    "course": ("pottery", "salsa", "photography", "woodworking", "watercolor"),
    "book": ("Becoming", "The Night Circus", "Educated", "Circe", "A Little Life"),
    "race": ("half marathon", "charity 10k", "triathlon", "trail race"),
    "heirloom": ("necklace", "pocket watch", "quilt", "ring"),
    "instrument": ("guitar", "violin", "piano", "cello", "drums"),
    "shelter_pet": ("puppy", "kitten", "senior dog", "pair of guinea pigs"),
    "venue": ("the food bank", "the animal shelter", "the youth center", "the library"),
    "chore": ("sorting donations", "walking the dogs", "tutoring kids", "cooking meals"),
    "hobby": ("fishing", "hiking", "baking", "chess", "birdwatching"),
    "mentor": ("My dad, honestly", "An old neighbour of ours", "My aunt", "A teacher in high school"),
    "age": ("five", "seven", "ten", "thirteen"),
    "weekday": ("Saturday", "Sunday", "Friday"),
    "language": ("Spanish", "Japanese", "Italian", "Portuguese", "German"),
    "relax": ("Long walks with music", "Yoga in the morning", "Gardening", "Painting by the window"),
    "meal": ("lasagna", "chicken curry", "paella", "dumplings", "tacos"),
    "friend": ("Rachel", "Marcus", "Tina", "Derek", "Sofia"),
    "event": ("LGBTQ support group", "charity gala", "poetry reading", "pride parade", "career fair"),
    "adj": ("powerful", "inspiring", "moving", "fun", "exhausting"),
    "talk_venue": ("a local school", "the community center", "a tech meetup", "the town hall"),
    "topic": ("mental health", "recycling", "starting a business", "my journey"),
    "cert": ("first aid", "yoga teacher", "project management", "scuba diving"),
    "relative": ("cousin", "brother", "sister", "niece"),
    "relname": ("Ben", "Clara", "Theo", "Nina", "Ruth"),
    "act1": ("to the beach", "swimming", "to the zoo", "on a bike ride"),
    "act2": ("pottery", "rock climbing", "kayaking", "volunteering"),
    "project": ("treehouse", "garden", "bathroom", "bookshelf"),
    "part": ("painting", "the roof", "the tiles", "the doors"),
}
WHEN = ("yesterday", "last week", "last Saturday", "two weeks ago", "last Friday", "the other day")


@dataclass(frozen=True)
class Fact:
    """One thing a speaker tells, and how it is asked about later.

    `ask` is the other speaker's prompt just before the evidence (None: the speaker brings it up),
    `say` the evidence turn (first person), `question` names the speaker as {S}; `kind` is
    single, temporal or paraphrase (the question shares almost no word with either turn)."""

    say: str
    question: str
    kind: str = "single"
    ask: str | None = None


FACTS: tuple[Fact, ...] = (
    Fact(
        "Finally finished the painting of {scene} I told you about, it took me weeks!", "What did {S} paint?"
    ),
    Fact(
        "{research}, mostly. It's been on my mind for ages.",
        "What did {S} research?",
        ask="What have you been researching lately?",
    ),
    Fact("We camped at {place} last weekend, the kids loved the marshmallows.", "Where did {S} go camping?"),
    Fact(
        "Really well! Working as a {job} at {company} is exactly what I hoped for.",
        "What is {S}'s job?",
        ask="How's the new job going?",
    ),
    Fact("My {pet} {petname} keeps me company while I work from home.", "What is the name of {S}'s {pet}?"),
    Fact(
        "I signed up for a {course} class at the community center, first lesson is Thursday.",
        "What class did {S} sign up for?",
    ),
    Fact(
        "Yes, {book}. I can't put it down, I stay up way too late with it.",
        "What book is {S} reading?",
        ask="Are you reading anything good at the moment?",
    ),
    Fact(
        "I'm running every morning to get ready for the {race} in the fall.", "What race is {S} training for?"
    ),
    Fact(
        "My grandma gave me this {heirloom} before she passed, it means the world to me.",
        "What did {S}'s grandmother give her?",
        kind="paraphrase",
    ),
    Fact(
        "The {instrument}! I've played since I was twelve.",
        "What instrument does {S} play?",
        ask="Do you play any instruments?",
    ),
    Fact(
        "We adopted a {shelter_pet} from the shelter, and it's settling in nicely.", "What pet did {S} adopt?"
    ),
    Fact("I volunteer at {venue} on Saturdays, mostly {chore}.", "Where does {S} volunteer?"),
    Fact(
        "{mentor}. He took me every weekend when I was little.",
        "Who got {S} into {hobby}?",
        ask="What got you into {hobby}?",
    ),
    Fact("Our daughter's party is on {weekday}, she's turning {age}!", "How old is {S}'s daughter turning?"),
    Fact(
        "I've been learning {language} on an app, about twenty minutes a day.",
        "What language is {S} learning?",
    ),
    Fact(
        "{relax}. It clears my head like nothing else.",
        "What does {S} do to relax?",
        ask="What do you do to unwind after a long week?",
    ),
    Fact("Honestly, my favorite meal is {meal}, my mom's recipe.", "What is {S}'s favorite food?"),
    Fact(
        "Guess who I ran into at the market: {friend} from college!", "Who did {S} bump into at the market?"
    ),
    Fact(
        "Just got back from the trip, the views from {place} were unreal.",
        "Where did {S} travel recently?",
        kind="paraphrase",
    ),
    Fact(
        "I went to a {event} {when} and it was so {adj}.", "When did {S} go to the {event}?", kind="temporal"
    ),
    Fact(
        "{When} I gave a talk at {talk_venue} about {topic}.",
        "When did {S} give a talk about {topic}?",
        kind="temporal",
    ),
    Fact(
        "We finally moved into the new house {when}! Boxes everywhere.",
        "When did {S} move to the new house?",
        kind="temporal",
    ),
    Fact(
        "I got my {cert} certificate {when}, so relieved.",
        "When did {S} get the {cert} certification?",
        kind="temporal",
    ),
)
# Two turns of different sessions: the first introduces something, the second says more of it.
HOPS: tuple[tuple[str, str, str], ...] = (
    (
        "My {relative} {relname} is staying with us for a while.",
        "{relname} found a job as a {job} downtown.",
        "What job did {S}'s {relative} find?",
    ),
    (
        "Took the kids {act1} this weekend, they were exhausted.",
        "I tried {act2} for the first time, so much fun!",
        "What activities has {S} done recently?",
    ),
    (
        "I started building a {project} at home, my first big project.",
        "Almost done with the {project}, just {part} left.",
        "What is left to do on {S}'s {project}?",
    ),
)
# Chit-chat: both speakers, the everyday words the questions also use.
CHAT = (
    "How have you been? It feels like ages since we talked.",
    "Work has been crazy this week, so many meetings.",
    "The kids are keeping me busy as always.",
    "I really need a vacation, maybe somewhere by the water.",
    "That's so cool! I love hearing about this stuff.",
    "Wow, that sounds amazing. I'm really happy for you.",
    "I've been trying to read more, but time just disappears.",
    "We should paint the fence one of these days, it looks awful.",
    "My job is fine, nothing new really.",
    "Did you watch the game last night? What a finish!",
    "I made pancakes for everyone this morning.",
    "Family dinners are the best part of my week.",
    "I'm thinking of taking a class or something, just to meet people.",
    "The weather has been so strange lately.",
    "I need to get better at going to bed early.",
    "Running errands all day, I'm exhausted.",
    "We went to the park with the dog, it was lovely.",
    "I love that for you! You deserve it.",
    "Music always helps me when I'm stressed.",
    "What have you been up to since we last talked?",
    "My mom called, she wants us to visit next month.",
    "It's been a rough few days, but I'm hanging in there.",
    "Camping sounds fun, but I'm more of a hotel person.",
    "I want to learn to cook something new this year.",
    "Friends from college are planning a reunion.",
    "Our neighbour's garden looks incredible this time of year.",
    "I'm so proud of the kids, they worked hard at school.",
    "Have you ever thought about moving somewhere new?",
    "That reminds me, I still have to return your book.",
    "Thanks for always listening, it means a lot.",
    "The traffic downtown was terrible today.",
    "I tried a new recipe, it turned out okay.",
    "Volunteering is something I've always wanted to try.",
    "The shelter near us is always looking for help.",
    "My phone died in the middle of the call, sorry!",
    "I can't believe how fast this year is going.",
    "Honestly, I just want a quiet weekend at home.",
    "We're thinking about getting a pet for the kids.",
    "A friend of mine is training for a marathon, crazy.",
    "I bumped into an old teacher at the store today.",
)
FOLLOW_UPS = (
    "That's awesome, {S}! How did it feel?",
    "Wow, {S}, tell me more about it!",
    "I love that. What made you decide?",
    "No way! That's so great to hear.",
    "Really? That's amazing, {S}.",
)
ECHOES = (  # the other speaker repeats the words: a near-miss, not evidence
    "Wow {S}, {echo}? That's so cool!",
    "I'd love to hear more about {echo} sometime.",
)
OPENERS = ("", "", "", "Oh, ", "Haha, ", "Honestly, ", "Yeah, ", "Hey! ", "So, ")


@dataclass
class Turn:
    turn_id: str
    role: str
    text: str


@dataclass
class Question:
    text: str
    evidence: set[str]
    hops: int
    kind: str = "single"


@dataclass
class Conversation:
    user: str
    sessions: list[list[Turn]]
    dates: list[datetime]
    questions: list[Question]


def _chat(rng: random.Random) -> str:
    line = rng.choice(CHAT)
    if rng.random() < 0.4:
        line = f"{line} {rng.choice(CHAT)}"
    opener = rng.choice(OPENERS)
    keep = not opener or line.startswith(("I ", "I'"))
    return f"{opener}{line[0] if keep else line[0].lower()}{line[1:]}"


def _values(rng: random.Random) -> dict[str, str]:
    values = {slot: rng.choice(options) for slot, options in SLOTS.items()}
    when = rng.choice(WHEN)
    return {**values, "when": when, "When": when[0].upper() + when[1:]}


def _echo(text: str, rng: random.Random) -> str:
    """A few of the evidence's words, as the other speaker would repeat them."""
    words = [w.strip(",.!?") for w in text.split() if len(w.strip(",.!?")) > 4]
    start = rng.randrange(max(1, len(words) - 2))
    return " ".join(words[start : start + 2]).lower() or "that"


class _Builder:
    """Lays out one conversation's sessions and records where each evidence turn landed."""

    def __init__(self, user: str, speakers: tuple[str, str], sessions: int, rng: random.Random) -> None:
        self.user = user
        self.speakers = speakers
        self.rng = rng
        self.sessions: list[list[Turn]] = [[] for _ in range(sessions)]
        self.next_speaker = [0] * sessions

    def line(self, s: int, speaker: int, text: str) -> str:
        """One turn by `speaker` in session `s`; chit-chat by the other fills in so speakers alternate."""
        if self.next_speaker[s] != speaker:
            self.line(s, 1 - speaker, _chat(self.rng))
        turns = self.sessions[s]
        turn = Turn(
            f"{self.user}/s{s}/t{len(turns)}",
            ("user", "assistant")[speaker],
            f"{self.speakers[speaker]}: {text}",
        )
        turns.append(turn)
        self.next_speaker[s] = 1 - speaker
        return turn.turn_id

    def tell(self, s: int, speaker: int, say: str, ask: str | None) -> str:
        """The other speaker's prompt (if any), the evidence turn, then a reaction to it."""
        other, name = 1 - speaker, self.speakers[speaker]
        if ask is not None:
            self.line(s, other, ask)
        evidence = self.line(s, speaker, say)
        reaction = self.rng.choice(FOLLOW_UPS if self.rng.random() < 0.6 else ECHOES)
        self.line(s, other, reaction.format(S=name, echo=_echo(say, self.rng)))
        return evidence

    def chatter(self, s: int, count: int) -> None:
        for _ in range(count):
            self.line(s, self.next_speaker[s], _chat(self.rng))


def conversation(index: int, rng: random.Random) -> Conversation:
    """One LoCoMo-shaped conversation: 20-30 dated sessions, ~500-600 turns, ~50 questions."""
    speakers = tuple(rng.sample(NAMES, 2))
    assert len(speakers) == 2
    sessions = rng.randint(20, 30)
    target = rng.randint(500, 600)
    user = f"dialogue-{index}"
    build = _Builder(user, (speakers[0], speakers[1]), sessions, rng)
    start = datetime(2023, 1, 8, 13, 56, tzinfo=UTC) + timedelta(days=rng.randrange(200))
    dates = [start + timedelta(days=sum(rng.randint(4, 21) for _ in range(n))) for n in range(sessions)]
    dates = sorted(dates)
    plan: list[list[tuple[int, str, str | None, str]]] = [[] for _ in range(sessions)]
    questions: list[Question] = []
    pending: list[tuple[str, str, int, str]] = []  # (question, tag, hops, kind)
    for speaker, name in enumerate(speakers):
        values = _values(rng)
        for n, fact in enumerate(rng.sample(FACTS, rng.randint(16, len(FACTS)))):
            s = rng.randrange(sessions)
            tag = f"{speaker}f{n}"
            plan[s].append((speaker, fact.say.format(**values), fact.ask and fact.ask.format(**values), tag))
            pending.append((fact.question.format(S=name, **values), tag, 1, fact.kind))
        for n, (first, second, question) in enumerate(HOPS):
            a = rng.randrange(sessions - 3)
            b = rng.randrange(a + 1, sessions)
            plan[a].append((speaker, first.format(**values), None, f"{speaker}h{n}a"))
            plan[b].append((speaker, second.format(**values), None, f"{speaker}h{n}b"))
            pending.append((question.format(S=name, **values), f"{speaker}h{n}", 2, "multi_hop"))
    told = sum(len(p) for p in plan)
    gap = max(1, round((target - 3 * told) / (told + sessions)))  # chit-chat turns between two told facts
    where: dict[str, str] = {}
    for s, items in enumerate(plan):
        rng.shuffle(items)
        build.chatter(s, rng.randint(0, 2 * gap))
        for speaker, say, ask, tag in items:
            where[tag] = build.tell(s, speaker, say, ask)
            build.chatter(s, rng.randint(0, 2 * gap))
    for text, tag, hops, kind in pending:
        evidence = {where[tag]} if hops == 1 else {where[f"{tag}a"], where[f"{tag}b"]}
        questions.append(Question(text, evidence, hops, kind))
    return Conversation(user, build.sessions, dates, questions)


def generate(conversations: int, rng: random.Random) -> list[Conversation]:
    return [conversation(i, rng) for i in range(conversations)]
