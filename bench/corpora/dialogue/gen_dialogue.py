#!/usr/bin/env python3
"""Held-out conversational recall corpus: dialogue6 / set A.

Deterministic (random.Random(20261207)), Python 3.11 standard library only.
Writes dialogue_set_a.json next to this file.  See WRITER.md.
"""
import datetime as dt
import json
import os
import random

SEED = 20261207
rng = random.Random(SEED)

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
NUMW = {2: "two", 3: "three", 4: "four", 5: "five"}


def fmt(d):
    return f"{WEEKDAYS[d.weekday()]} {d.day} {MONTHS[d.month - 1]} {d.year}"


def ordinal(n):
    suf = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suf}"


def past_rel(sd):
    """A past relative expression and the calendar date it denotes (sd = session date)."""
    k = rng.choice(["yesterday", "this morning", "ndays", "lastwd", "onwd"])
    if k == "yesterday":
        return "yesterday", sd - dt.timedelta(days=1)
    if k == "this morning":
        return "this morning", sd
    if k == "ndays":
        n = rng.choice([2, 3, 4])
        return f"{NUMW[n]} days ago", sd - dt.timedelta(days=n)
    back = rng.randint(2, 6)
    d = sd - dt.timedelta(days=back)
    if k == "lastwd":
        return f"last {WEEKDAYS[d.weekday()]}", d
    return f"on {WEEKDAYS[d.weekday()]}", d


def future_rel(sd):
    k = rng.choice(["tomorrow", "coming", "explicit"])
    if k == "tomorrow":
        return "tomorrow", sd + dt.timedelta(days=1)
    if k == "coming":
        d = sd + dt.timedelta(days=rng.randint(2, 6))
        return f"this coming {WEEKDAYS[d.weekday()]}", d
    d = sd + dt.timedelta(days=rng.randint(8, 20))
    if d.month == sd.month:
        return f"on the {ordinal(d.day)}", d
    return f"on the {ordinal(d.day)} of {MONTHS[d.month - 1]}", d


def when(d, sd):
    return f"{fmt(d)} (relative to the chat of {fmt(sd)})"


# --------------------------------------------------------------------------------------
# Generic chit-chat (speaker-agnostic; each item is a list of lines spoken alternately)
# --------------------------------------------------------------------------------------
GREET = [
    ["Hey! Got a minute?", "Always. What's up?"],
    ["Hiii, you around?", "Yep, just made tea. Go."],
    ["Morning! Or afternoon, whatever it is for you.", "Ha, it's a blur. Hi!"],
    ["Hey you. Long week?", "The longest. Talk to me about anything else."],
    ["Is this a good time?", "Perfect time, I'm hiding from laundry."],
    ["Hello stranger!", "I know, I know, I've been terrible at replying."],
    ["Hey, how are things?", "Pretty good actually! You?"],
    ["Yo. Quick catch-up?", "Yes please, I need a distraction."],
    ["Finally, a free evening. Hi!", "Hi! Same, the kettle's on."],
    ["Hey, sorry I missed your call.", "No worries at all, this is easier anyway."],
]
CLOSE = [
    ["Okay, I have to run. Talk soon?", "Definitely. Take care!"],
    ["Right, dinner's burning. Later!", "Go save it! Bye!"],
    ["I should sleep. Good talking to you.", "You too, night!"],
    ["Let's pick this up next week.", "Deal. Bye for now."],
    ["Gotta go, meeting in five.", "Good luck, chat later."],
    ["Okay, that's my break over.", "Back to it then. Bye!"],
    ["Thanks for listening, honestly.", "Anytime. Speak soon."],
    ["Alright, I'll let you go.", "Bye! Say hi to everyone."],
]
CHAT = [
    ["The weather has been so grim lately.", "Tell me about it, I haven't seen the sun in days.",
     "Spring can't come soon enough."],
    ["Did you watch anything good this week?", "Mostly rewatched old sitcoms, zero regrets.",
     "Comfort TV is valid."],
    ["I tried a new ramen place near the station.", "Any good?", "Broth was amazing, noodles a bit soft."],
    ["My phone screen cracked again.", "Again?! You need a real case.", "I know. Third time this year."],
    ["I've been sleeping terribly.", "Ugh. Too much screen time before bed?", "Probably. I keep doomscrolling."],
    ["Is it just me or is everything more expensive?", "Groceries are wild right now.",
     "I paid six euros for cheese yesterday."],
    ["I started a podcast about shipwrecks.", "That is so specifically you.", "It's weirdly calming."],
    ["Do you still have that houseplant I gave you?", "Barely. It's hanging on.", "That's all any of us can do."],
    ["I've been meaning to call my grandma more.", "You should, she'd love it.", "Yeah. Sunday, maybe."],
    ["Traffic this morning was absurd.", "Roadworks again?", "Of course."],
    ["I made soup for the whole week.", "Meal prep hero.", "Ask me again on Thursday when I'm sick of it."],
    ["My neighbour's been practising the trumpet.", "Oh no. At what time?", "Seven a.m. Every day."],
    ["I finally cleaned out my closet.", "How many bags?", "Four. I'm a new person."],
    ["Have you tried that word game everyone's playing?", "Every day. I got it in two yesterday.",
     "Show-off."],
    ["I'm so behind on emails.", "Declare bankruptcy, start over.", "Tempting, honestly."],
    ["The coffee machine at work broke.", "That's a crisis.", "Productivity has collapsed."],
    ["I want to learn to cook something fancy.", "Risotto? It's easier than it looks.", "Maybe. You'd have to supervise."],
    ["My laptop is making a weird noise.", "Back everything up now.", "Ugh, you're right."],
    ["I keep forgetting to drink water.", "Get one of those giant bottles with the times on it.",
     "I'd forget the bottle."],
    ["Saw a fox in the street last night.", "In the city?", "Bold as anything, just trotting along."],
    ["I got way too into a jigsaw puzzle.", "How many pieces?", "A thousand. Half of it is sky."],
    ["Do you have plans for the long weekend?", "Not yet. Sleeping, mostly.", "Honestly the dream."],
    ["I've been listening to so much jazz lately.", "Since when?", "No idea, it just happened."],
    ["We should do a video call with the old group.", "Yes! It's been ages.", "I'll make a poll."],
    ["I burned my hand on the oven tray.", "Ouch, are you okay?", "Fine, just stupid."],
    ["My bike got a flat on the way home.", "Did you have to walk it?", "All the way. In the rain."],
    ["How's your mum doing?", "She's good, busy with her garden.", "Tell her I said hi."],
    ["I can't believe it's already this late in the year.", "Time is fake.", "Completely."],
    ["I accidentally joined a choir rehearsal.", "How do you accidentally do that?", "Wrong door. I stayed for an hour."],
    ["The café on my street closed down.", "Noooo, the one with the cinnamon buns?", "That one. I'm in mourning."],
    ["I finally booked a dentist appointment.", "Brave.", "It's in March. Future me's problem."],
    ["Someone left a whole sofa on our pavement.", "Is it nice?", "It's damp. Very damp."],
    ["My friend roped me into a pub quiz.", "Did you win anything?", "Third place. A voucher for crisps."],
    ["I tried meditating this week.", "How did that go?", "I mostly made shopping lists in my head."],
    ["Power went out for two hours last night.", "What did you do?", "Candles and a very dramatic card game."],
    ["I think I'm addicted to oat lattes.", "There are worse things.", "My bank would disagree."],
    ["Went to a gig on a school night.", "Who'd you see?", "A band my flatmate likes. Loud. Good."],
    ["I've started writing a journal again.", "Paper or app?", "Paper. My handwriting is tragic."],
    ["My upstairs neighbours are moving furniture at midnight again.", "What are they even doing?", "Building a fort, I assume."],
    ["I got a parking ticket outside my own building.", "That's so unfair.", "Appealing it. With passion."],
    ["Have you been to the new market hall?", "Not yet, is it worth it?", "The dumpling stall alone, yes."],
    ["I fell asleep on the sofa at eight.", "Peak adulthood.", "Woke up at two, very confused."],
    ["The group chat is planning a reunion.", "Are you going?", "If it's not in a karaoke bar."],
    ["I repotted all my plants on Sunday.", "Any casualties?", "One cactus. It fought back."],
    ["I want a new haircut but I'm scared.", "Just do it, hair grows.", "That's what they always say."],
    ["My train was cancelled and I ended up sharing a taxi with strangers.", "Was it awkward?", "We're friends now. Sort of."],
    ["I found twenty euros in an old coat.", "Best feeling in the world.", "Spent it on pastries immediately."],
    ["I've been trying to learn a bit of Portuguese.", "Obrigado?", "That's about as far as I've got."],
]
REACT = ["Wait, really?", "Ha, of course.", "Okay, tell me more.", "Huh, okay.", "Oh wow.", "Noted!",
         "Ha. Go on.", "Oh?", "Mm, fair enough.", "Right, right."]
ASK = ["Anything new with you?", "So what's been going on?", "How was your week?",
       "Okay, your turn. News?", "What have you been up to?", "How are things on your end?"]


class Ev:
    """A block of lines. role 'H' = holder of the fact, 'O' = other speaker."""

    def __init__(self, lines, ask=None):
        lines = [tuple(l) + (None,) * (3 - len(l)) for l in lines]
        self.lines = lines          # list of (role, text, tag or None); starts with 'H', alternates
        self.ask = ask or rng.choice(ASK)
        self.flip = False
        assert lines[0][0] == "H"
        for i, l in enumerate(lines):
            assert l[0] == ("H" if i % 2 == 0 else "O"), lines


CLOSERS = ["Love it.", "Good.", "Ha, fair.", "Nice.", "Glad to hear it.", "Keep me posted.", "Sounds right.",
           "Good for you.", "Okay, I want updates."]


def cl_():
    return rng.choice(CLOSERS)


def re_(*extra):
    if extra and rng.random() < 0.75:
        return rng.choice(list(extra))
    return rng.choice(REACT)


# Extra topic chatter: same topic words recur in many sessions without new facts.
# 'H' lines are spoken by the arc holder; lines tagged flip=True are spoken by the OTHER speaker first.
EXTRA = {
    "hobby": [("H", "Bought new supplies for {h}, my wallet is crying.", "Worth it though?", "Ask me after class."),
              ("H", "Someone brought cake to {h} tonight. Best session ever.", "That's the real reason people go.", "Honestly, yes."),
              ("H", "I'm thinking about doing extra {h} practice at home.", "Do you have space for that?", "Not really. Details."),
              ("O", "I walked past a {h} place today and thought of you.", "Ha, was it any good?", "Looked fancy. Too fancy."),
              ("O", "My colleague just got into {h} too, apparently it's a whole trend.", "Tell them it's harder than it looks.", "I did, they didn't believe me.")],
    "pet": [("H", "{name} knocked my coffee over this morning.", "Classic {sp} behaviour.", "She looked so pleased with herself."),
            ("H", "I spent way too much on {sp} toys again.", "She deserves it.", "That's what I told the cashier."),
            ("O", "Saw a {sp} on the bus today that looked just like {name}.", "No way, a {sp} on the bus?", "Sitting in a basket like royalty."),
            ("H", "{name} has claimed my side of the bed.", "You live there now, she just lets you.", "Accurate.")],
    "job": [("H", "Friday drinks with work were surprisingly fun.", "Who knew.", "Don't tell anyone I said that."),
            ("H", "My inbox at work is a disaster zone.", "Filters. Ruthless filters.", "I'll try."),
            ("O", "My team got a reorg announcement today, everyone's panicking.", "Ugh, reorgs are the worst.", "We'll see how bad it is.")],
    "trip": [("H", "I'm already looking at the photos from {c2} again.", "Send me the best ones.", "There are four hundred."),
             ("O", "A friend of mine just got back from {c2} too.", "Did they love it?", "Wouldn't shut up about it."),
             ("H", "Packing lists are my love language.", "That's deeply weird.", "I know.")],
    "family": [("H", "{rname} sent me a voice note that was eleven minutes long.", "That's a podcast, not a voice note.", "It was mostly about parking."),
               ("O", "How's {rname} these days?", "Good, I think. Stressed but good.", "Send my love.")],
    "fitness": [("H", "Bought new running shoes, they feel like clouds.", "Break them in slowly!", "Yes, coach."),
                ("O", "I saw loads of runners by the river this morning and thought of you.", "Were they suffering?", "Visibly."),
                ("H", "My running app says I've done a hundred kilometres this month.", "That's wild.", "My knees agree.")],
    "home": [("H", "We finally hung some pictures in the flat in {hood}.", "It's a home now!", "Almost."),
             ("O", "Is {hood} nice for food?", "There's a great bakery on the corner.", "I'm coming over then."),
             ("H", "Assembled a wardrobe this weekend and nearly lost my mind.", "Flat-pack furniture is a test of friendship.", "It was just me. I failed.")],
    "book": [("H", "Book club is tomorrow and I'm only halfway through.", "Skim the ending, nobody will know.", "They always know."),
             ("O", "Can I join your book club one day?", "Of course, we're very chaotic.", "Perfect.")],
}


def extras(kind, **kw):
    out = []
    for role, a, b, c in EXTRA[kind]:
        ev = Ev([("H", a.format(**kw)), ("O", b.format(**kw)), ("H", c.format(**kw))])
        ev.flip = role == "O"
        out.append(ev)
    return out


# --------------------------------------------------------------------------------------
# Pools
# --------------------------------------------------------------------------------------
HOBBIES = [
    dict(h="pottery", alt="ceramics", cls="wheel-throwing class", venues=["Mudlark Studio", "the Clayhouse"],
         objs=["a set of four espresso cups", "a big speckled serving bowl", "a lopsided teapot"],
         chatter=["My bowl collapsed on the wheel again tonight.", "Glazing day, my hands are still blue.",
                  "Centering the clay is so much harder than it looks."]),
    dict(h="woodworking", alt="carpentry", cls="woodshop course", venues=["the Oakline Workshop", "Grain & Chisel"],
         objs=["a walnut cutting board", "a little oak bookshelf", "a spice rack with dovetail joints"],
         chatter=["Sanded for two hours straight, my arms are dead.", "Learned how to sharpen a chisel properly.",
                  "The workshop smells like sawdust and coffee, I love it."]),
    dict(h="watercolour painting", alt="painting", cls="watercolour class", venues=["the Harbour Arts Centre", "Studio Ochre"],
         objs=["a painting of the lighthouse", "a framed sketch of our old family house", "a set of hand-painted cards"],
         chatter=["My skies keep going muddy.", "We did wet-on-wet this week, total chaos.",
                  "I bought way too many brushes."]),
    dict(h="knitting", alt="knitwear", cls="beginners' knitting circle", venues=["Wool & Wander", "the Purl Room"],
         objs=["a mustard-yellow scarf", "a pair of fingerless gloves", "a chunky beanie"],
         chatter=["Dropped a stitch and had to unravel ten rows.", "Cabling is my new nemesis.",
                  "Knitting on the tram gets me so many looks."]),
    dict(h="stained glass", alt="glass art", cls="stained-glass workshop", venues=["Lumen Glassworks", "the Leadlight Loft"],
         objs=["a little suncatcher shaped like a fish", "a hanging panel with a tulip", "a geometric lamp shade"],
         chatter=["Cut myself on glass again, nothing serious.", "Soldering is weirdly meditative.",
                  "Came home with glitter-like shards in my sleeves."]),
    dict(h="bookbinding", alt="binding books by hand", cls="bookbinding evening course", venues=["the Paper Mill Studio", "Fold & Stitch"],
         objs=["a leather-bound travel journal", "a sketchbook with marbled covers", "a photo album with linen pages"],
         chatter=["Coptic stitch is harder than it has any right to be.", "My glue game is improving.",
                  "We marbled paper this week, my apron is ruined."]),
]
TEACHER_TRAITS = [
    ("used to be a set designer for the opera", "a set designer for the opera"),
    ("ran a bakery for twenty years before this", "ran a bakery"),
    ("was a paramedic until she retired", "a paramedic"),
    ("used to build boats in Norway", "a boat builder in Norway"),
    ("worked as an architect for ages", "an architect"),
    ("was a high-school chemistry teacher", "a high-school chemistry teacher"),
]
TEACHERS = ["Ines", "Bertrand", "Agnieszka", "Colm", "Yusuf", "Marguerite", "Tobias", "Delphine"]
RELS_GIFT = ["dad", "mum", "grandmother", "best friend", "boss", "aunt"]
SLOT_REASONS = ["the Tuesday group clashes with my new gym schedule",
                "the evening class finishes too late for the last bus",
                "the Thursday teacher keeps cancelling",
                "I want the Saturday group, it's calmer"]

PETS = [
    dict(sp="dog", breeds=["beagle", "border collie", "greyhound", "spaniel"], names=["Biscuit", "Pepper", "Juniper", "Olive"],
         quirks=["stealing socks", "barking at the vacuum", "sleeping upside down", "carrying a tennis ball everywhere"],
         vet=["ate half a corn cob and needed an X-ray", "had a torn dewclaw", "got an ear infection"],
         win=["passed puppy obedience class", "learned to ring a bell to go out", "finally walks nicely on the lead"]),
    dict(sp="cat", breeds=["tabby", "Maine Coon", "black shorthair", "ginger"], names=["Mochi", "Sardine", "Tofu", "Clementine"],
         quirks=["sitting in the sink", "knocking pens off the desk", "yelling at pigeons", "drinking from the shower"],
         vet=["had a bladder infection", "swallowed a hair tie", "needed two teeth pulled"],
         win=["finally uses the scratching post", "learned to open the cupboard", "made friends with the neighbour's cat"]),
    dict(sp="rabbit", breeds=["lop-eared", "Netherland dwarf", "Rex"], names=["Waffle", "Pumpernickel", "Nutmeg"],
         quirks=["chewing the skirting boards", "doing zoomies at midnight", "stealing lettuce off the counter"],
         vet=["had overgrown teeth", "stopped eating for a day", "had a gut slowdown"],
         win=["is litter trained now", "hops up onto the sofa", "lets us pick her up"]),
]

COMPANIES = ["Northwind Analytics", "Halden Logistics", "Bluefin Health", "Corvid Games", "Meridian Energy",
             "Pinecrest Bank", "Atlas Robotics", "Saltmarsh Publishing"]
ROLES = ["data analyst", "product manager", "UX researcher", "operations lead", "backend engineer",
         "marketing coordinator", "project manager", "technical writer"]
DELAYS = ["the background check took forever", "their office move got delayed",
          "my notice period turned out to be six weeks", "the team lead went on parental leave"]
COMMUTES = [("I cycle along the river now, twenty minutes", "by bike along the river"),
            ("it's a forty-minute train ride but I read the whole way", "by train"),
            ("it's a ferry across the harbour, which is ridiculous and wonderful", "by ferry"),
            ("I walk, it's like fifteen minutes", "on foot"),
            ("I take the tram, three stops", "by tram")]
MANAGERS = ["Ruth", "Dev", "Oksana", "Gareth", "Nadia", "Felipe", "Ama", "Lars"]

CITIES = [("Porto", "Portugal"), ("Kyoto", "Japan"), ("Ljubljana", "Slovenia"), ("Oaxaca", "Mexico"),
          ("Tbilisi", "Georgia"), ("Hanoi", "Vietnam"), ("Reykjavik", "Iceland"), ("Seville", "Spain"),
          ("Marrakesh", "Morocco"), ("Krakow", "Poland"), ("Valparaiso", "Chile"), ("Tallinn", "Estonia")]
CANCEL = ["flights doubled in price", "my passport won't be renewed in time",
          "there's a huge festival and everything's booked", "a friend's wedding landed on the same week",
          "work won't give me that week off"]
HIGHLIGHTS = ["a cooking class in someone's grandmother's kitchen", "a sunrise hike up to the old fortress",
              "a tiny jazz bar with about eight seats", "the night market, I ate everything",
              "a boat trip where we saw dolphins", "the hot springs outside town"]
COMPANIONS = ["my partner", "my cousin", "two friends from uni", "my mum", "my flatmate"]

RELATIVES = ["sister", "brother", "cousin"]
REL_NAMES = {"sister": ["Anya", "Beth", "Chiara", "Dani"], "brother": ["Felix", "Omar", "Rory", "Sami"],
             "cousin": ["Mira", "Theo", "Lucia", "Ike"], "best friend": ["Zara", "Kofi", "Imogen"],
             "old roommate": ["Petra", "Lukas", "Noor"]}
FIELDS = ["marine biology", "urban planning", "medieval history", "computational linguistics",
          "public health", "architecture"]
UNIS = [("ETH Zurich", "Switzerland"), ("TU Delft", "the Netherlands"), ("McGill", "Canada"),
        ("the University of Melbourne", "Australia"), ("Trinity College Dublin", "Ireland"),
        ("the University of Edinburgh", "Scotland (United Kingdom)")]
BABY = ["Iris", "Noah", "Wren", "Leo", "Ada", "Milo", "Hazel"]

RACES = ["the city half marathon", "the spring 10K", "a trail 25K", "the harbour marathon", "the river 15K"]
INJ = [("rolled my ankle on a kerb", "a rolled ankle"), ("my knee started clicking and the physio said runner's knee", "runner's knee"),
       ("pulled a calf muscle on a hill session", "a pulled calf muscle"), ("got shin splints from ramping up too fast", "shin splints")]
TIMES = ["58 minutes", "1:52", "2:04", "1:07", "47 minutes"]

HOODS = ["Eastgate", "Millbrook", "the Old Quarter", "Riverside", "Hollins Park", "Canal Row"]
FEATURES = ["a balcony that gets the evening sun", "a huge kitchen window", "high ceilings and old wooden floors",
            "a tiny garden", "a spare room I can use as an office"]
DOWNSIDES = ["the bathroom has no window", "it's on the fifth floor with no lift", "the trains run right behind it",
             "the heating is temperamental", "the landlord is very slow to answer"]
FIXES = ["boiler", "leaky shower", "broken intercom", "kitchen extractor fan", "front-door lock"]

BOOKS = [("Middlemarch", "George Eliot"), ("One Hundred Years of Solitude", "Gabriel García Márquez"),
         ("The Remains of the Day", "Kazuo Ishiguro"), ("Things Fall Apart", "Chinua Achebe"),
         ("Frankenstein", "Mary Shelley"), ("The Master and Margarita", "Mikhail Bulgakov"),
         ("Beloved", "Toni Morrison"), ("Jane Eyre", "Charlotte Brontë"), ("Dracula", "Bram Stoker"),
         ("The Left Hand of Darkness", "Ursula K. Le Guin"), ("Rebecca", "Daphne du Maurier")]
BOOK_OPS = ["it's slow but I'm weirdly hooked", "I keep falling asleep after ten pages",
            "it's so much funnier than I expected", "I'm underlining half of it", "honestly it's a slog"]


def take(pool, used):
    """Pick an item not yet used in this conversation."""
    choices = [p for p in pool if (p if isinstance(p, str) else json.dumps(p, sort_keys=True, default=str)) not in used]
    assert choices, pool
    p = rng.choice(choices)
    used.add(p if isinstance(p, str) else json.dumps(p, sort_keys=True, default=str))
    return p


# --------------------------------------------------------------------------------------
# Arcs. Each arc: build(X, Y, dates, used, ctx) -> (events, questions, fillers)
#   events: list of Ev, one per date (events[i] happens in the session of dates[i])
#   questions: (question, answer, [tags], category)
#   fillers: list of Ev (topic chatter without new facts; used after the first event)
# --------------------------------------------------------------------------------------

def arc_hobby(X, Y, ds, used, ctx, tag):
    hb = take(HOBBIES, used)
    venue = rng.choice(hb["venues"])
    teacher = take(TEACHERS, used)
    trait, trait_short = take(TEACHER_TRAITS, used)
    obj = rng.choice(hb["objs"])
    rel = take(RELS_GIFT, used)
    reason = rng.choice(SLOT_REASONS)
    h = hb["h"]
    p0, d0 = past_rel(ds[0])
    e = []
    e.append(Ev([("H", rng.choice([
        f"So I finally did it, I went to my first {hb['cls']} {p0}. It's at a place called {venue}.",
        f"Guess who signed up for {h}? Me. First session was {p0}, at {venue}.",
        f"I started {h}! Had the first {hb['cls']} {p0}, over at {venue}."]), f"{tag}.start"),
        ("O", re_("Wait, you actually went? Proud of you.", "Ooh, how was it?")),
        ("H", rng.choice(["Messy, humbling, I loved it.", "I was the worst in the room and didn't care.",
                          "Everyone else had done it before, but it was fun."]), None),
        ("O", re_("You'll have to show me what you make."))],
        ask=rng.choice(ASK + [f"Did you ever sign up for that {h} thing?"])))
    e.append(Ev([("H", rng.choice([
        f"The instructor at {h}, {teacher}, {trait}. You can totally tell.",
        f"Our teacher {teacher} {trait}, which explains how picky they are about everything.",
        f"Found out {teacher}, who runs the class, {trait}. Makes so much sense."]), f"{tag}.teacher"),
        ("O", re_("That's a great backstory.", "Ha, career changes are the best.")),
        ("H", "Yeah, I like the class a lot more since I learned that.", None),
        ("O", cl_())], ask=rng.choice(ASK + [f"How's {h} going these days?"])))
    e.append(Ev([("H", rng.choice([
        f"I gave my {rel} {obj} that I made in class. They pretended it was perfect.",
        f"Finished {obj} and gave it to my {rel} for their birthday!",
        f"My {rel} got {obj} from me, homemade, first thing I've made that I'm not embarrassed by."]), f"{tag}.gift"),
        ("O", re_("That's such a lovely present.", "Aw, did they love it?")),
        ("H", "I think so, it's already on display.", None),
        ("O", cl_())], ask=rng.choice(ASK + [f"Made anything good in {h} lately?"])))
    e.append(Ev([("H", rng.choice([
        f"I switched to a different {h} group because {reason}.",
        f"Small {h} update: changing class slots, {reason}."]), f"{tag}.slot"),
        ("O", re_("Makes sense.")), ("H", "Same studio though, just a different crowd.", None), ("O", cl_())],
        ask=rng.choice(ASK)))
    alt = hb["alt"]
    q = [
        (f"When did {X} go to their first {alt} class?", when(d0, ds[0]), [f"{tag}.start"], "temporal"),
        (f"What is the name of the place where {X} learns {alt}?", venue, [f"{tag}.start"], "single-hop"),
        (f"What did {X}'s {alt} instructor do before teaching?", f"{teacher} {trait}.", [f"{tag}.teacher"], "single-hop"),
        (f"What handmade present did {X} give their {rel}?", obj, [f"{tag}.gift"], "single-hop"),
        (f"Why did {X} move to another {alt} group?", reason, [f"{tag}.slot"], "single-hop"),
        (f"At which studio did {X} learn to make the gift for their {rel}, and what was the gift?",
         f"{venue}; {obj}", [f"{tag}.start", f"{tag}.gift"], "multi-hop"),
        (f"Who is the instructor of the class {X} started attending at {venue}, and what was their earlier career?",
         f"{teacher}, formerly {trait_short}", [f"{tag}.start", f"{tag}.teacher"], "multi-hop"),
    ]
    if "hobby" not in ctx["types"][Y]:
        q.append((f"What did {Y} make in their {alt} class for their {rel}?",
                  f"Nothing; {Y} never mentioned taking {h}. It was {X} who made {obj} for their {rel}.",
                  [f"{tag}.gift"], "adversarial"))
    f = [Ev([("H", c, None), ("O", re_("Ha, sounds about right.", "The struggle!"))],
            ask=f"How was {h} this week?") for c in hb["chatter"]]
    f.append(Ev([("H", f"Might skip {h} this week, I'm wiped.", None), ("O", "Fair, rest is important.")]))
    ctx["facts"][X]["hobby"] = dict(h=h, obj=obj, rel=rel, d0=d0)
    f += extras("hobby", h=h)
    return e, q, f


def arc_pet(X, Y, ds, used, ctx, tag):
    pt = take(PETS, used)
    sp = pt["sp"]
    breed = rng.choice(pt["breeds"])
    name = take(pt["names"], used)
    quirk = rng.choice(pt["quirks"])
    vet = rng.choice(pt["vet"])
    win = rng.choice(pt["win"])
    age = rng.choice(["about a year old", "two years old", "barely four months", "around three"])
    p0, d0 = past_rel(ds[0])
    p2, d2 = past_rel(ds[2])
    e = [
        Ev([("H", rng.choice([
            f"Okay big news: we adopted a {sp} {p0}! {breed.capitalize()} mix, {age}, and her name is {name}.",
            f"We brought home a rescue {sp} {p0}. A {breed} mix called {name}, {age}.",
            f"So... there's a {sp} in my flat now. Got her from the shelter {p0}. {name}, {breed} mix, {age}."]),
            f"{tag}.adopt"), ("O", re_("STOP. Send pictures immediately.", "Oh my god, congratulations!")),
            ("H", "Sending. She's settling in slowly.", None), ("O", re_("Cutest thing I've ever seen."))]),
        Ev([("H", rng.choice([f"{name} has developed an obsession with {quirk}.",
                              f"New {name} habit: {quirk}. Every single day."]), f"{tag}.quirk"),
            ("O", re_("Ha! Little menace.")), ("H", "I can't even be mad.", None), ("O", cl_())],
           ask=rng.choice(ASK + [f"How's the {sp} settling in?"])),
        Ev([("H", rng.choice([f"Rough week. Had to take {name} to the emergency vet {p2}, she {vet}.",
                              f"{name} is okay now but we were at the vet {p2}. She {vet}."]), f"{tag}.vet"),
            ("O", re_("Oh no, poor thing. Is she okay?")), ("H", "She's fine, just expensive and dramatic.", None),
            ("O", "Give her a cuddle from me.")]),
        Ev([("H", rng.choice([f"Proud pet parent moment: {name} {win}.", f"{name} {win}! I'm unreasonably proud."]),
             f"{tag}.win"), ("O", re_("Gold star for her.")), ("H", "She got extra treats.", None), ("O", cl_())],
           ask=rng.choice(ASK + [f"How's {name} doing?"])),
    ]
    weeks = (d2 - d0).days / 7
    q = [
        (f"What is the name of the {sp} {X} adopted?", name, [f"{tag}.adopt"], "single-hop"),
        (f"What breed mix is {X}'s {sp}?", f"a {breed} mix", [f"{tag}.adopt"], "single-hop"),
        (f"When did {X} bring their rescue {sp} home?", when(d0, ds[0]), [f"{tag}.adopt"], "temporal"),
        (f"What odd habit has {X}'s {sp} picked up?", quirk, [f"{tag}.quirk"], "single-hop"),
        (f"Why did {X}'s pet need an emergency vet visit?", vet, [f"{tag}.vet"], "single-hop"),
        (f"About how long after adopting {name} did {X} have to rush her to the vet?",
         f"about {round(weeks)} weeks ({fmt(d0)} to {fmt(d2)})", [f"{tag}.adopt", f"{tag}.vet"], "temporal"),
        (f"What achievement of {X}'s {sp} made them proud?", win, [f"{tag}.win"], "single-hop"),
    ]
    if "pet" not in ctx["types"][Y]:
        q.append((f"What is the name of {Y}'s {sp}?",
                  f"{Y} never mentioned having a {sp}; the {sp} {name} belongs to {X}.", [f"{tag}.adopt"], "adversarial"))
    f = [Ev([("H", f"{name} says hi, by the way. She's asleep on my feet.", None), ("O", "Tell her hi back!")]),
         Ev([("H", f"Looking after {name} is basically my whole personality now.", None),
             ("O", re_("Pet parent life."))], ask=f"How's the {sp}?"),
         Ev([("H", f"The {sp} woke me up at five again.", None), ("O", "Classic.")])]
    ctx["facts"][X]["pet"] = dict(name=name, sp=sp, d0=d0)
    f += extras("pet", name=name, sp=sp)
    return e, q, f


def arc_job(X, Y, ds, used, ctx, tag):
    co = take(COMPANIES, used)
    role = take(ROLES, used)
    delay = rng.choice(DELAYS)
    commute, commute_short = rng.choice(COMMUTES)
    mgr = take(MANAGERS, used)
    fut1, d1 = future_rel(ds[0])
    d_start1 = ds[2] + dt.timedelta(days=rng.randint(3, 8))
    room = (ds[3] - d_start1).days - 5
    assert room >= 7
    d_start2 = d_start1 + dt.timedelta(days=rng.randint(7, min(room, 30)))
    assert ds[2] < d_start1 < d_start2 <= ds[3] - dt.timedelta(days=5)
    e = [
        Ev([("H", rng.choice([
            f"I have a second interview {fut1} at {co}. It's for a {role} job.",
            f"Don't tell anyone at my work, but I've got an interview at {co} {fut1}. {role.capitalize()} position."]),
            f"{tag}.interview"), ("O", re_("Ooh! You'll smash it.", "Finally, you've been miserable there.")),
            ("H", "We'll see, I'm nervous.", None), ("O", "Prep your questions, you'll be fine.")],
           ask=rng.choice(ASK + ["How's the job hunt going?"])),
        Ev([("H", rng.choice([
            f"They offered me the {co} job! Start date is {fmt(d_start1)}.",
            f"I got it!! {co} want me to start on {fmt(d_start1)}."]), f"{tag}.offer"),
            ("O", re_("AAAH congratulations!")), ("H", "I handed in my notice this morning, terrifying.", None),
            ("O", "Drinks on me next time.")]),
        Ev([("H", rng.choice([
            f"The new job got pushed back, I'm now starting on {fmt(d_start2)} because {delay}.",
            f"Annoying: start date moved to {fmt(d_start2)}, {delay}."]), f"{tag}.delay"),
            ("O", re_("Ugh, limbo.", "At least you get a break?")), ("H", "True, a few weeks off is not the worst.", None),
            ("O", cl_())], ask=rng.choice(ASK + ["When do you start the new job?"])),
        Ev([("H", rng.choice([
            f"New job update: my manager {mgr} is lovely, and the commute is great, {commute}.",
            f"Week one done. {mgr}, my manager, seems great. And {commute}."]), f"{tag}.first"),
            ("O", re_("That sounds like a huge upgrade.")), ("H", "So far, so good. Ask me in a month.", None),
            ("O", cl_())], ask=rng.choice(ASK + ["So how's the new place?"])),
    ]
    q = [
        (f"What role did {X} interview for at {co}?", role, [f"{tag}.interview"], "single-hop"),
        (f"Which company hired {X} as a {role}?", co, [f"{tag}.interview", f"{tag}.offer"], "multi-hop"),
        (f"When did {X} actually start the new job?", f"{fmt(d_start2)} (moved from {fmt(d_start1)})",
         [f"{tag}.delay"], "temporal"),
        (f"What start date was {X} originally given?", fmt(d_start1), [f"{tag}.offer"], "temporal"),
        (f"Why was {X}'s start date postponed?", delay, [f"{tag}.delay"], "single-hop"),
        (f"How does {X} get to work at {co}?", commute_short, [f"{tag}.first"], "single-hop"),
        (f"Who manages {X} in the {role} job?", mgr, [f"{tag}.interview", f"{tag}.first"], "multi-hop"),
        (f"When was {X}'s second interview?", when(d1, ds[0]), [f"{tag}.interview"], "temporal"),
    ]
    if "job" not in ctx["types"][Y]:
        q.append((f"When did {Y} start working at {co}?",
                  f"{Y} never worked at {co}; it was {X}, who started on {fmt(d_start2)}.",
                  [f"{tag}.delay"], "adversarial"))
    f = [Ev([("H", "Work's been a slog this week, honestly.", None), ("O", "Hang in there.")], ask="How's work?"),
         Ev([("H", "Had the most pointless meeting of my life today.", None), ("O", "What was it about?"),
             ("H", "Nobody knows. That's the point.", None), ("O", "Ha.")]),
         Ev([("H", "I keep checking job listings at lunch.", None), ("O", "Anything promising?"),
             ("H", "A couple. We'll see.", None), ("O", cl_())])]
    ctx["facts"][X]["job"] = dict(co=co, d_start2=d_start2)
    f += extras("job")
    return e, q, f


def arc_trip(X, Y, ds, used, ctx, tag):
    c1, _k1 = take(CITIES, used)
    c2, k2 = take(CITIES, used)
    cancel = rng.choice(CANCEL)
    hl = rng.choice(HIGHLIGHTS)
    comp = rng.choice(COMPANIONS)
    month = MONTHS[(ds[2].month - 1) % 12]
    p2, d2 = past_rel(ds[2])
    e = [
        Ev([("H", rng.choice([
            f"We're thinking about {c1} for a holiday. I'd go with {comp}, who has always wanted to see it.",
            f"Holiday plan: {c1}! Going with {comp}. Nothing's booked yet."]), f"{tag}.plan"),
            ("O", re_("Oh, jealous.", "That sounds dreamy.")), ("H", "I need something to look forward to.", None),
            ("O", "Don't we all.")], ask=rng.choice(ASK + ["Any holiday plans this year?"])),
        Ev([("H", rng.choice([
            f"The {c1} trip is off, {cancel}. So we booked {c2} instead.",
            f"Change of plans, {cancel}, so no {c1}. We're doing {c2} instead!"]), f"{tag}.switch"),
            ("O", re_("Honestly that might be even better.")), ("H", "I think so too. Already making lists.", None),
            ("O", cl_())], ask=rng.choice(ASK + [f"How's the {c1} planning going?"])),
        Ev([("H", rng.choice([
            f"I'm back! Got home from {c2} {p2}. The best bit was {hl}.",
            f"Landed {p2}, still dreaming about {c2}. Highlight: {hl}."]), f"{tag}.back"),
            ("O", re_("Welcome back!! Tell me everything.")), ("H", "Photos incoming. So many photos.", None),
            ("O", "I expect a full slideshow.")], ask=rng.choice(ASK + ["Wait, are you back from your trip?"])),
    ]
    q = [
        (f"Why did {X} call off the {c1} holiday?", cancel, [f"{tag}.switch"], "single-hop"),
        (f"Where did {X} go on holiday instead of {c1}?", c2, [f"{tag}.switch"], "single-hop"),
        (f"Who was {X} planning to travel to {c1} with?", comp.replace("my ", f"{X}'s "), [f"{tag}.plan"], "single-hop"),
        (f"What was the highlight of the holiday {X} booked after dropping {c1}?", hl,
         [f"{tag}.switch", f"{tag}.back"], "multi-hop"),
        (f"Which country did {X} visit on holiday?", k2, [f"{tag}.back"], "open-domain"),
        (f"When did {X} get home from their holiday?", when(d2, ds[2]), [f"{tag}.back"], "temporal"),
        (f"What did {X} enjoy most about {c1}?",
         f"{X} never went to {c1}; that trip was cancelled ({cancel}) and they went to {c2}.",
         [f"{tag}.switch"], "adversarial"),
    ]
    f = [Ev([("H", f"Still thinking about {c2}, honestly.", None), ("O", "Post-holiday blues?")]),
         Ev([("H", "I've been looking at flights way too much.", None), ("O", "Same, it's a problem.")])]
    ctx["facts"][X]["trip"] = dict(c2=c2, k2=k2, d2=d2)
    f += extras("trip", c2=c2)
    _ = month
    return e, q, f


def arc_family(X, Y, ds, used, ctx, tag):
    # siblings share sisters, brothers and cousins, so they talk about friends instead
    rels = ["best friend", "old roommate"] if ctx["siblings"] else RELATIVES
    rel = rng.choice(rels)
    rname = take(REL_NAMES[rel], used)
    field = take(FIELDS, used)
    uni, country = take(UNIS, used)
    baby = take(BABY, used)
    pr = "she" if rel == "sister" or rname in ("Mira", "Lucia") else "he"
    p2, d2 = past_rel(ds[2])
    e = [
        Ev([("H", rng.choice([
            f"My {rel} {rname} got into a master's in {field} at {uni}!",
            f"Family news: {rname}, my {rel}, is off to {uni} in the autumn to do {field}."]), f"{tag}.uni"),
            ("O", re_("That's amazing, tell them congrats!")), ("H", "Everyone's so proud.", None), ("O", cl_())],
           ask=rng.choice(ASK + ["How's your family?"])),
        Ev([("H", f"{rname} and their partner are expecting a baby, by the way! Due later this year.", f"{tag}.expect"),
            ("O", re_("Oh wow, a baby in the family!")), ("H", "I'm already buying tiny socks.", None),
            ("O", "Of course you are.")]),
        Ev([("H", rng.choice([f"{rname}'s baby arrived {p2}! They named the little one {baby}.",
                              f"Baby {baby} was born {p2}. {rname} is exhausted but glowing."]), f"{tag}.baby"),
            ("O", re_("Congratulations to all of you!")), ("H", "I got to hold the baby already, I cried.", None),
            ("O", "Of course you did.")], ask=rng.choice(ASK + ["Any news on the baby?"])),
    ]
    q = [
        (f"What subject is {X}'s {rel} going to study?", field, [f"{tag}.uni"], "single-hop"),
        (f"In which country will {X}'s {rel} do their master's degree?", country, [f"{tag}.uni"], "open-domain"),
        (f"What is the name of {X}'s {rel}'s baby?", baby, [f"{tag}.uni", f"{tag}.baby"], "multi-hop"),
        (f"When did {X}'s {rel} {rname} have the baby?", when(d2, ds[2]), [f"{tag}.baby"], "temporal"),
        (f"Which university accepted {X}'s {rel}?", uni, [f"{tag}.uni"], "single-hop"),
    ]
    if "family" not in ctx["types"][Y]:
        q.append((f"What will {Y}'s {rel} study at {uni}?",
                  f"Nothing mentioned about {Y}'s {rel}; it is {X}'s {rel} {rname} who is going to {uni} for {field}.",
                  [f"{tag}.uni"], "adversarial"))
    f = [Ev([("H", f"Had a long call with {rname} last night.", None), ("O", "How are they doing?"),
             ("H", "Busy, happy, tired. The usual.", None), ("O", cl_())]),
         Ev([("H", "Family group chat has been chaos all week.", None), ("O", "What now?"),
             ("H", "Someone sent a blurry photo and forty people replied.", None), ("O", "Ha.")])]
    _ = pr
    f += extras("family", rname=rname)
    return e, q, f


def arc_fitness(X, Y, ds, used, ctx, tag):
    r1 = take(RACES, used)
    r2 = take(RACES, used)
    inj, inj_short = rng.choice(INJ)
    tm = rng.choice(TIMES)
    p1, d1 = past_rel(ds[1])
    e = [
        Ev([("H", rng.choice([f"I signed up for {r1}. No backing out now.",
                              f"Registered for {r1}! Training plan starts Monday."]), f"{tag}.reg"),
            ("O", re_("You're braver than me.")), ("H", "Or dumber. We'll see.", None), ("O", "Both can be true.")],
           ask=rng.choice(ASK + ["Are you still running?"])),
        Ev([("H", rng.choice([
            f"Bad news on the running front: {inj} {p1}. So I've dropped to {r2} instead.",
            f"I {inj} {p1}, so {r1} is out. Physio says {r2} is realistic."]), f"{tag}.injury"),
            ("O", re_("Oh no, that's so frustrating.")), ("H", "Could be worse. Rest and ice for now.", None),
            ("O", "Be nice to yourself.")], ask=rng.choice(ASK + ["How's training going?"])),
        Ev([("H", rng.choice([f"I did it, finished {r2} in {tm}!", f"Crossed the line at {r2}: {tm}. I'm broken and happy."]),
             f"{tag}.done"), ("O", re_("YES! Congrats!!")), ("H", "Can't feel my legs.", None), ("O", "Worth it.")],
           ask=rng.choice(ASK + ["Wait, wasn't your race this weekend?"])),
    ]
    q = [
        (f"Which race did {X} originally register for?", r1, [f"{tag}.reg"], "single-hop"),
        (f"What injury forced {X} to change races?", inj_short, [f"{tag}.injury"], "single-hop"),
        (f"When did {X} get hurt while training?", when(d1, ds[1]), [f"{tag}.injury"], "temporal"),
        (f"What was {X}'s finishing time in the race they ended up doing?", tm, [f"{tag}.injury", f"{tag}.done"], "multi-hop"),
        (f"What was {X}'s finishing time in {r1}?",
         f"{X} did not run {r1}; after {inj_short} they switched to {r2} and finished it in {tm}.",
         [f"{tag}.injury", f"{tag}.done"], "adversarial"),
    ]
    if "fitness" not in ctx["types"][Y]:
        q.append((f"Which race did {Y} run after getting injured?",
                  f"{Y} never mentioned racing or an injury; it was {X} who switched from {r1} to {r2} after {inj_short}.",
                  [f"{tag}.injury"], "adversarial"))
    f = [Ev([("H", "Did a long run this morning, legs are jelly.", None), ("O", "How far?"),
             ("H", "Far enough to regret it.", None), ("O", "Ha.")]),
         Ev([("H", "Foam rolling is my new religion.", None), ("O", "Painful religion.")]),
         Ev([("H", "Skipped running today, it was sleeting.", None), ("O", "Very reasonable.")])]
    f += extras("fitness")
    return e, q, f


def arc_home(X, Y, ds, used, ctx, tag):
    hood = take(HOODS, used)
    feat = rng.choice(FEATURES)
    down = rng.choice(DOWNSIDES)
    fix = rng.choice(FIXES)
    fut, dmove = future_rel(ds[0])
    e = [
        Ev([("H", rng.choice([f"We signed the lease on a flat in {hood}! Moving {fut}.",
                              f"Flat hunt is over: we got a place in {hood}, move-in is {fut}."]), f"{tag}.lease"),
            ("O", re_("Finally! After all those viewings.")), ("H", "I never want to see a listing again.", None),
            ("O", "I'll help you carry boxes.")], ask=rng.choice(ASK + ["Any luck with the flat hunting?"])),
        Ev([("H", f"The new place is lovely, {feat}. The catch is {down}.", f"{tag}.place"),
            ("O", re_("Every place has one catch.")), ("H", "Exactly. I can live with it.", None), ("O", cl_())],
           ask=rng.choice(ASK + ["How's the new flat?"])),
        Ev([("H", rng.choice([f"Small victory: the landlord finally fixed the {fix}.",
                              f"After three weeks of emails, someone came and repaired the {fix}."]), f"{tag}.fix"),
            ("O", re_("Hallelujah.")), ("H", "I nearly hugged the repair guy.", None), ("O", "Understandable.")]),
    ]
    q = [
        (f"Which neighbourhood did {X} move to?", hood, [f"{tag}.lease"], "single-hop"),
        (f"When was {X}'s moving day?", when(dmove, ds[0]), [f"{tag}.lease"], "temporal"),
        (f"What's the drawback of {X}'s new flat?", down, [f"{tag}.place"], "single-hop"),
        (f"What did {X}'s landlord eventually repair?", fix, [f"{tag}.fix"], "single-hop"),
        (f"What does {X} like about the flat in {hood}?", feat, [f"{tag}.lease", f"{tag}.place"], "multi-hop"),
    ]
    if "home" not in ctx["types"][Y]:
        q.append((f"Which neighbourhood did {Y} move to?",
                  f"{Y} did not mention moving; it was {X} who moved to {hood}.", [f"{tag}.lease"], "adversarial"))
    f = [Ev([("H", "Still living out of boxes, send help.", None), ("O", "Unpack one box a day. That's the rule.")]),
         Ev([("H", "Our new neighbours seem nice.", None), ("O", "That's half the battle.")])]
    f += extras("home", hood=hood)
    return e, q, f


def arc_book(X, Y, ds, used, ctx, tag):
    t1, a1 = take(BOOKS, used)
    t2, a2 = take(BOOKS, used)
    op = rng.choice(BOOK_OPS)
    e = [
        Ev([("H", rng.choice([f"Book club picked {t1} this month, {op}.", f"I'm reading {t1} for book club and {op}."]),
             f"{tag}.read"), ("O", re_("I've always meant to read that.")), ("H", "I'll lend it to you after.", None),
            ("O", cl_())], ask=rng.choice(ASK + ["Reading anything good?"])),
        Ev([("H", rng.choice([f"Finished {t1}! Next up for book club is {t2}.",
                              f"Book club voted, we're doing {t2} next. Glad to be done with {t1}."]), f"{tag}.next"),
            ("O", re_("Ooh, big one.")), ("H", "Yeah, I need to start early.", None), ("O", cl_())],
           ask=rng.choice(ASK + ["How was book club?"])),
    ]
    q = [
        (f"Who wrote the book {X} read for book club first?", a1, [f"{tag}.read"], "open-domain"),
        (f"What did {X}'s book club choose after {t1}?", t2, [f"{tag}.next"], "single-hop"),
        (f"Who is the author of the book {X}'s book club picked after {t1}?", a2, [f"{tag}.next"], "open-domain"),
        (f"What did {X} think of {t1} while reading it?", op, [f"{tag}.read"], "single-hop"),
    ]
    if "book" not in ctx["types"][Y]:
        q.append((f"What book did {Y}'s book club read after {t1}?",
                  f"{Y} never mentioned a book club; it was {X}'s book club that moved from {t1} to {t2}.",
                  [f"{tag}.next"], "adversarial"))
    f = [Ev([("H", "Book club was mostly wine and gossip this week.", None), ("O", "As it should be.")]),
         Ev([("H", "I read like three pages last night before falling asleep.", None), ("O", "Progress is progress.")])]
    f += extras("book")
    return e, q, f


ARCS = {"hobby": (arc_hobby, 4), "pet": (arc_pet, 4), "job": (arc_job, 4), "trip": (arc_trip, 3),
        "family": (arc_family, 3), "fitness": (arc_fitness, 3), "home": (arc_home, 3), "book": (arc_book, 2)}

CONVS = [
    ("Priya", "Tom", False), ("Lena", "Marcus", False), ("Sofia", "Daniel", False),
    ("Hannah", "Jude", True), ("Kenji", "Maya", False), ("Rosa", "Elliot", False),
]


def schedule(n_sess, arcs):
    """Assign sessions to arc events: increasing within an arc, at most 3 events per session."""
    for _attempt in range(2000):
        load = [0] * n_sess
        plan = {}
        ok = True
        for key, n in arcs:
            lo = rng.randint(0, max(0, n_sess // 3))
            span = list(range(lo, n_sess))
            if len(span) < n:
                ok = False
                break
            for _ in range(50):
                s = sorted(rng.sample(span, n))
                if all(b - a >= 2 for a, b in zip(s, s[1:])) and all(load[i] < 3 for i in s):
                    break
            else:
                ok = False
                break
            for i in s:
                load[i] += 1
            plan[key] = s
        if ok:
            return plan
    raise RuntimeError("schedule failed")


def build_conv(ci, A, B, siblings):
    cid = f"c{ci}"
    n_sess = rng.randint(16, 24)
    # dates
    d = dt.datetime(2026, 1, rng.randint(2, 12), rng.randint(8, 21), rng.choice([0, 15, 30, 45]))
    dates = []
    for _ in range(n_sess):
        dates.append(d)
        d = d + dt.timedelta(days=rng.randint(4, 19), hours=rng.randint(-3, 3), minutes=rng.choice([0, 10, 25, 40]))
        if d.hour < 8 or d.hour > 22:
            d = d.replace(hour=rng.randint(9, 21))
    types_all = list(ARCS)
    ta = rng.sample(types_all, 4)
    tb = rng.sample(types_all, 4)
    ctx = {"types": {A: set(ta), B: set(tb)}, "facts": {A: {}, B: {}}, "siblings": siblings}
    arc_list = [(f"{A}:{t}", ARCS[t][1]) for t in ta] + [(f"{B}:{t}", ARCS[t][1]) for t in tb]
    plan = schedule(n_sess, arc_list)
    used = set()
    sess_events = [[] for _ in range(n_sess)]
    fillers = []          # (first_session_allowed, holder, Ev)
    qs = []
    for key, _n in arc_list:
        holder, t = key.split(":")
        other = B if holder == A else A
        fn = ARCS[t][0]
        tag = f"{cid}:{holder}:{t}"
        evs, q, f = fn(holder, other, [dates[i].date() for i in plan[key]], used, ctx, tag)
        assert len(evs) == len(plan[key])
        for i, ev in zip(plan[key], evs):
            sess_events[i].append((holder, ev))
        for fe in f:
            fillers.append((plan[key][0] + 1, min(n_sess, plan[key][-1] + 8), holder, fe))
        qs.extend(q)
    sessions = []
    tag2turn = {}
    used_f = set()
    for si in range(n_sess):
        sid = f"{cid}-s{si + 1}"
        starter = A if rng.random() < 0.5 else B
        turns = []

        def say(spk, text, tg=None):
            exp = starter if len(turns) % 2 == 0 else (B if starter == A else A)
            assert spk == exp, (spk, exp)
            tid = f"{sid}-t{len(turns) + 1}"
            turns.append({"id": tid, "speaker": spk, "text": text})
            if tg:
                assert tg not in tag2turn
                tag2turn[tg] = tid

        def nxt():
            return starter if len(turns) % 2 == 0 else (B if starter == A else A)

        def put_ev(holder, ev):
            if nxt() != holder:
                say(nxt(), ev.ask)
            for role, text, tg in ev.lines:
                say(holder if role == "H" else (B if holder == A else A), text, tg)

        def put_chat(lines):
            for text in lines:
                say(nxt(), text)

        blocks = [("ev", h, ev) for h, ev in sess_events[si]]
        avail = [x for x in fillers if x[0] <= si <= x[1] and id(x[3]) not in used_f]
        rng.shuffle(avail)
        for _lo, _hi, h, fe in avail[:rng.randint(1, 3)]:
            used_f.add(id(fe))
            blocks.append(("ev", (B if h == A else A) if fe.flip else h, fe))
        chats = rng.sample(CHAT, 6)
        target = rng.randint(15, 28)
        n_fixed = len(blocks)
        # est: lower bound on turns (asks not counted); each ev block may add one ask line
        est = 4 + sum(len(b[2].lines) for b in blocks)
        while est + n_fixed > 30 and len(blocks) > len(sess_events[si]):
            blocks.pop()
            n_fixed -= 1
            est = 4 + sum(len(b[2].lines) for b in blocks)
        while chats and (est < 15 or (est < target and est + len(chats[-1]) + n_fixed <= 30)):
            c = chats.pop()
            blocks.append(("chat", None, c))
            est += len(c)
        rng.shuffle(blocks)
        put_chat(rng.choice(GREET))
        for kind, h, b in blocks:
            if kind == "ev":
                put_ev(h, b)
            else:
                put_chat(b)
        put_chat(rng.choice(CLOSE))
        # trim if too long: drop trailing chat by rebuilding is complex; just assert range
        assert 15 <= len(turns) <= 30, (sid, len(turns))
        sessions.append({"id": sid, "date": dates[si].strftime("%Y-%m-%dT%H:%M:00Z"), "turns": turns})
    questions = []
    for k, (qq, ans, tags, cat) in enumerate(qs):
        questions.append({"id": None, "question": qq, "answer": ans,
                          "evidence": [tag2turn[t] for t in tags], "category": cat})
    rng.shuffle(questions)
    for k, q in enumerate(questions):
        q["id"] = f"{cid}-q{k + 1}"
    return {"id": cid, "speakers": [A, B], "sessions": sessions, "questions": questions}


def main():
    convs = []
    for ci, (a, b, sib) in enumerate(CONVS, 1):
        for _try in range(50):
            state = rng.getstate()
            try:
                c = build_conv(ci, a, b, sib)
            except AssertionError:
                rng.setstate(state)
                rng.random()
                continue
            if 40 <= len(c["questions"]) <= 60:
                break
        else:
            raise SystemExit(f"could not build conversation {ci}")
        convs.append(c)
    # invariants
    total = 0
    cats = {}
    for c in convs:
        assert 15 <= len(c["sessions"]) <= 25
        ids = {}
        prev = None
        for s in c["sessions"]:
            assert prev is None or s["date"] > prev
            prev = s["date"]
            assert 15 <= len(s["turns"]) <= 30
            for i, t in enumerate(s["turns"]):
                assert t["speaker"] in c["speakers"]
                if i:
                    assert t["speaker"] != s["turns"][i - 1]["speaker"]
                ids[t["id"]] = t
        assert 40 <= len(c["questions"]) <= 60
        for q in c["questions"]:
            assert 1 <= len(q["evidence"]) <= 3 and len(set(q["evidence"])) == len(q["evidence"])
            assert all(e in ids for e in q["evidence"])
            assert q["category"] in ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")
            if q["category"] == "multi-hop":
                sess = {e.rsplit("-t", 1)[0] for e in q["evidence"]}
                assert len(sess) >= 2, q
            cats[q["category"]] = cats.get(q["category"], 0) + 1
        total += len(c["questions"])
    assert total >= 250
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dialogue_set_a.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"conversations": convs}, fh, ensure_ascii=False, indent=1)
    print("questions", total, cats)
    for c in convs:
        print(c["id"], c["speakers"], "sessions", len(c["sessions"]),
              "turns", sum(len(s["turns"]) for s in c["sessions"]), "questions", len(c["questions"]))


if __name__ == "__main__":
    main()
