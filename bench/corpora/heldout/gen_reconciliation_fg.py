#!/usr/bin/env python3
"""Generator for reconciliation_f.json and reconciliation_g.json.

Hand-written conversations. Every user turn carries its tags (subject, action, value) and its
distractor snippets; `expected` is built from the tags, so every statement of a fact is counted.
Written without reading any memoryos code or tests. Running it again gives the same files.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def U(text, tags=(), distractors=()):
    return {"role": "user", "text": text, "tags": list(tags), "distractors": list(distractors)}


def A(text):
    return {"role": "assistant", "text": text}


# --------------------------------------------------------------------------------------------
# f: long-haul truck driver turned dispatcher, Texas
# --------------------------------------------------------------------------------------------
JOB, EMP, LANE, CITY, SCHED = "job role", "employer", "route / lanes", "home city", "work schedule"
VEH, PHONE, SPOUSE, KIDS, DIET, HOBBY = ("vehicle", "phone", "spouse's name", "number of children",
                                         "diet", "hobby")

F_DRIVER, F_DISP = "long-haul truck driver", "dispatcher"
F_I10, F_PAN, F_DFW = ("I-10, El Paso to Houston", "Panhandle board (Amarillo, Lubbock, Dalhart)",
                       "DFW regional desk")
F_OTR = "two weeks on the road, four days home"
F_NIGHT = "night desk, 10 p.m. to 6 a.m., Sunday to Thursday"
F_DAY = "day desk, 6 a.m. to 2 p.m., Monday to Friday"

F_SESSIONS = [
    ("2026-01-08T12:40:00Z", [
        U("Mornin'. Setting you up on my phone at a truck stop outside Van Horn. I run OTR for Red "
          "Mesa Freight \u2014 mostly the I-10 run, El Paso to Houston and back, week in, week out.",
          [(JOB, "ADD", F_DRIVER), (EMP, "ADD", "Red Mesa Freight"), (LANE, "ADD", F_I10)]),
        A("Morning! Long-haul on I-10 for Red Mesa Freight \u2014 got it. What can I help with first?"),
        U("Mainly keeping my life straight. Home's Abilene. I'm out two weeks at a stretch, then home "
          "four days, so any reminders gotta line up with that.",
          [(CITY, "ADD", "Abilene"), (SCHED, "ADD", F_OTR)]),
        A("Understood \u2014 I'll plan reminders around your four days at home after each two-week run."),
        U("Wife is Rosa, and we've got two kids, 9 and 6. Anything family-related, flag it before I "
          "head out, not while I'm rolling.",
          [(SPOUSE, "ADD", "Rosa"), (KIDS, "ADD", "two")]),
        A("Will do \u2014 family reminders go out before you leave, never mid-run."),
        U("Food-wise I'm doing keto, about a year now, down 40 pounds. So if you ever suggest stops, "
          "think grilled meat and no buns.",
          [(DIET, "ADD", "keto")]),
        A("Nice work on the 40 pounds. For keto-friendly stops I'll look for steakhouses, barbecue "
          "joints and places that do bunless burgers."),
        U("Last thing \u2014 my phone's a Galaxy S21 with a cracked screen. Any good trucker apps for "
          "Android? Trucker Path is all I've got.",
          [(PHONE, "ADD", "Samsung Galaxy S21")]),
        A("Besides Trucker Path, a lot of drivers on Android like a dedicated weigh-station app and a "
          "truck-specific GPS that knows low bridges. Want me to compare a couple?"),
    ]),
    ("2026-01-29T03:10:00Z", [
        U("Laying over in Houston tonight, parked at the yard on the east side. Same old I-10 grind.",
          [(LANE, "REINFORCE", F_I10)],
          [("Laying over in Houston tonight", "temporary location on a run, NOT a home-city change")]),
        A("Sounds like a long day. Anything you want sorted while you're parked?"),
        U("Yeah. My days off are coming up and I'm itching to get the bass boat out on Lake Fort "
          "Phantom \u2014 fishing's about the only thing that clears my head. What's early February "
          "usually like back home in Abilene?",
          [(HOBBY, "ADD", "bass fishing"), (CITY, "REINFORCE", "Abilene")]),
        A("I can't pull a live forecast, but early February around Abilene swings a lot \u2014 cold "
          "fronts one day, 70s the next. Bass tend to hold deeper when it's cold."),
        U("My pickup, the old '14 F-150, started grinding when I brake. Pads or rotors, you think?",
          [(VEH, "ADD", "2014 Ford F-150")]),
        A("Grinding usually means the pads are worn down to the backing plate, which can score the "
          "rotors. Get it looked at before your next run."),
        U("Keto out here is rough, every truck stop is chicken-fried everything. Found a Buc-ee's "
          "brisket that saved me though.",
          [(DIET, "REINFORCE", "keto")]),
        A("Brisket's a solid keto pick. Want a short list of other low-carb options along I-10?"),
        U("Sure, thanks. Rosa says hi, by the way \u2014 the wife's the one who told me to try you. "
          "She's due in April, which is part of why I'm trying to get off the road.",
          [(SPOUSE, "REINFORCE", "Rosa")],
          [("She's due in April", "a baby on the way, NOT yet a change in the number of children "
            "(stays two until the birth is reported)"),
           ("trying to get off the road", "an intention, NOT a job change; still a long-haul driver")]),
        A("Congratulations to you both! Tell Rosa hi back. Here's that low-carb list..."),
    ]),
    ("2026-02-19T14:05:00Z", [
        U("Well, my back made the call for me. Doc said no more 11-hour days in the seat, so the "
          "company moved me into the office \u2014 I'm a dispatcher now, started Monday.",
          [(JOB, "UPDATE", F_DISP)]),
        A("That's a big change \u2014 I hope your back is holding up. Dispatcher it is. How's the "
          "first week going?"),
        U("Weird. I'm on the night desk, 10 p.m. to 6 a.m., Sunday through Thursday. Coffee's my new "
          "co-driver.",
          [(SCHED, "UPDATE", F_NIGHT)]),
        A("Got it \u2014 I'll move your reminders to your waking hours, afternoons and early evenings."),
        U("And instead of running I-10 myself I'm working the Panhandle board \u2014 Amarillo, "
          "Lubbock, Dalhart, lots of grain and feedlot freight.",
          [(LANE, "UPDATE", F_PAN)]),
        A("So you're booking the Panhandle loads now. Ag freight is seasonal, so expect spikes around "
          "harvest."),
        U("Best part is I'm home every day. The kids are less thrilled, now somebody's enforcing "
          "bedtime, lol."),
        A("Ha \u2014 the price of having you around. Anything I can take off your plate?"),
        U("Any headset you'd recommend? The one they handed me is killing my ears."),
        A("Look for a lightweight over-ear with a noise-cancelling boom mic; a lot of dispatchers like "
          "wireless ones so they can stand up and stretch."),
    ]),
    ("2026-03-19T08:20:00Z", [
        U("3 a.m. and quiet for once. A month of nights and my body still hasn't figured out the "
          "10-to-6.",
          [(SCHED, "REINFORCE", F_NIGHT)]),
        A("Nights take a while. Blackout curtains and a fixed sleep time on your days off help."),
        U("Heads up, I'm covering the day desk this Saturday for Marcus \u2014 one time thing, he's "
          "got a wedding.",
          [],
          [("covering the day desk this Saturday for Marcus",
            "one-off shift swap, NOT a schedule change; schedule stays the night desk")]),
        A("Noted for this Saturday only \u2014 I'll remind you Friday evening."),
        U("Oh, and the baby came early! Ana, born Sunday, 6 lb 10 oz. Three kids under one roof now, "
          "Lord help us.",
          [(KIDS, "UPDATE", "three")]),
        A("Congratulations! Welcome to the world, Ana. How are you all doing?"),
        U("Tired but good. Also traded in the F-150 this weekend, no way all the car seats fit in "
          "that regular cab. Got us a 2023 Silverado crew cab.",
          [(VEH, "UPDATE", "2023 Chevrolet Silverado crew cab")]),
        A("A crew cab makes sense with a newborn. Want a reminder for the first oil change?"),
        U("Sure. Haven't been out on the water since the baby came. Sleep is my new hobby, lol.",
          [],
          [("Sleep is my new hobby", "a joke, NOT a new hobby; hobby stays bass fishing")]),
        A("Totally fair. I'll set the oil-change reminder for about 5,000 miles."),
    ]),
    ("2026-04-22T19:30:00Z", [
        U("Finally off nights! They moved me to the day desk, 6 to 2, Monday through Friday. I feel "
          "like a person again.",
          [(SCHED, "UPDATE", F_DAY)]),
        A("That's great news. I'll shift your reminders back to normal hours."),
        U("Funny, back when I was driving I'd be somewhere past Fort Stockton right about now, two "
          "weeks out from home. Don't miss it one bit.",
          [],
          [("back when I was driving I'd be somewhere past Fort Stockton right about now, two weeks "
            "out from home", "past tense about the former job and schedule, NOT a revert of either")]),
        A("Sounds like the change suits you."),
        U("The wheat harvest is coming and the board's about to get crazy. Can you make me a "
          "checklist for booking hopper loads?"),
        A("Sure: confirm commodity and weight, check the elevator's hours, verify trailer "
          "cleanliness requirements, and lock in rates early."),
        U("Perfect. Unrelated \u2014 any good movies out this weekend? Need a date night."),
        A("A couple of crowd-pleasers just opened; want the short list with showtimes near you?"),
        U("Later. My brother-in-law Ray just bought a Tundra and won't shut up about it. I'll take my "
          "Silverado any day.",
          [(VEH, "REINFORCE", "2023 Chevrolet Silverado crew cab")],
          [("My brother-in-law Ray just bought a Tundra", "someone else's vehicle, NOT the user's")]),
        A("Ha, the eternal Chevy-versus-Toyota argument."),
    ]),
    ("2026-06-03T23:45:00Z", [
        U("Well, we did it. Closed on a house in Fort Worth and moved in over Memorial Day weekend. "
          "Boxes everywhere.",
          [(CITY, "UPDATE", "Fort Worth")]),
        A("Congratulations on the new house! Fort Worth \u2014 noted. How's the unpacking?"),
        U("Slow. Red Mesa let me transfer to their Alliance terminal, so same company, but now I'm on "
          "the DFW regional desk instead of the Panhandle.",
          [(EMP, "REINFORCE", "Red Mesa Freight"), (LANE, "UPDATE", F_DFW)]),
        A("Makes sense with the move. DFW regional is a lot more short-haul volume."),
        U("Hours didn't change, still 6 to 2 weekdays. Just a 15-minute commute now instead of 40.",
          [(SCHED, "REINFORCE", F_DAY)]),
        A("A shorter commute is a nice bonus."),
        U("The S21 finally died in the move, screen went black. Everybody else in the house is on "
          "iPhone so I caved and got an iPhone 15.",
          [(PHONE, "UPDATE", "iPhone 15")]),
        A("Welcome to iOS. Want help moving your trucker apps and contacts over?"),
        U("Yes please. Already scouted Eagle Mountain Lake too, 20 minutes from the new place. "
          "Supposed to be decent bass. Boat goes in Saturday.",
          [(HOBBY, "REINFORCE", "bass fishing")]),
        A("Nice! Early mornings are your best bet for bass in the summer heat."),
        U("If the company ever asks me to go to Houston, though, the answer's no. We're done moving "
          "for a good long while.",
          [],
          [("If the company ever asks me to go to Houston", "hypothetical, NOT a move; home city "
            "stays Fort Worth")]),
        A("Understood \u2014 Fort Worth is home."),
    ]),
    ("2026-07-09T21:00:00Z", [
        U("104 in the shade here in Fort Worth today. Y'all got tips for keeping the kids from "
          "melting at the splash pad?",
          [(CITY, "REINFORCE", "Fort Worth")]),
        A("Go early or after 6, bring frozen water bottles, and set up under a canopy."),
        U("Meal plan for next week please. I'm still keto, but my wife Rosa's decided to go "
          "vegetarian for the summer, so I need two versions of dinner.",
          [(DIET, "REINFORCE", "keto"), (SPOUSE, "REINFORCE", "Rosa")],
          [("Rosa's decided to go vegetarian for the summer", "someone else's diet, and temporary; "
            "the user's diet stays keto")]),
        A("Got it \u2014 keto mains with a vegetarian swap for each night."),
        U("Our oldest wants a phone for her 10th birthday. Would an iPhone SE work with the parental "
          "controls on my 15? And no, I'm not going back to Samsung, whatever my brother says.",
          [(PHONE, "REINFORCE", "iPhone 15")],
          [("Our oldest wants a phone", "a child's phone, NOT the user's phone"),
           ("I'm not going back to Samsung", "negated/rejected suggestion; phone stays iPhone 15")]),
        A("Yes \u2014 an SE works with Family Sharing and Screen Time from your iPhone."),
        U("DFW is a whole different animal from the Panhandle \u2014 tons of short hauls and "
          "drop-and-hooks. I like it though. Five months into dispatching and I don't miss the "
          "sleeper one bit.",
          [(LANE, "REINFORCE", F_DFW), (JOB, "REINFORCE", F_DISP)],
          [("a whole different animal from the Panhandle", "comparison with the former lane, NOT a "
            "revert; lanes stay DFW regional")]),
        A("Sounds like you've found your groove."),
        U("Coming up on five years with Red Mesa in August. Think I've got grounds to ask for a raise, "
          "three kids and a mortgage in?",
          [(EMP, "REINFORCE", "Red Mesa Freight"), (KIDS, "REINFORCE", "three")]),
        A("Five years plus a successful move into dispatch is a good case. Want help drafting the "
          "talking points?"),
    ]),
]

F_DESC = ("Scripted multi-session conversation for fact reconciliation (ADD / REINFORCE / UPDATE). "
          "Population: a long-haul truck driver in Texas who becomes a dispatcher (schedule, lanes, "
          "vehicle, family, diet, phone, hobby). Turn numbers are 1-based within a session. Written "
          "without reading memoryos code or tests.")

# --------------------------------------------------------------------------------------------
# g: PhD student in Germany, English with German phrases
# --------------------------------------------------------------------------------------------
UNI, SUP, TOPIC, GCITY, HOME = ("university / institution", "supervisor", "thesis topic", "city",
                                "living arrangement")
GER, L1, FUND, RES, SPORT, SUBMIT = ("German course level", "first language", "funding",
                                     "residence status", "sport", "planned thesis submission")

G_ALU, G_CHA = "Albert-Ludwigs-Universit\u00e4t Freiburg", "Charit\u00e9 \u2013 Universit\u00e4tsmedizin Berlin"
G_SOIL = "antibiotic resistance genes in soil bacteria"
G_PHAGE = "phage therapy against Pseudomonas aeruginosa"
G_WG = "shared flat (WG) with two flatmates"
G_ALONE = "own one-room flat (1-Zimmer-Wohnung), living alone"
G_16B = "student residence permit (\u00a716b)"
G_18D = "research residence permit (\u00a718d)"
G_TVL = "TV-L E13 65% contract"

G_SESSIONS = [
    ("2026-01-12T20:15:00Z", [
        U("Hallo! Okay, let's try this. I'm doing my PhD in microbiology at the "
          "Albert-Ludwigs-Universit\u00e4t, and my Doktormutter is Prof. Katrin Lehmann. Super kind, "
          "slightly chaotic.",
          [(UNI, "ADD", G_ALU), (SUP, "ADD", "Prof. Katrin Lehmann")]),
        A("Hallo! A microbiology PhD with Prof. Lehmann \u2014 nice. What's the thesis about?"),
        U("Antibiotic resistance in soil bacteria \u2014 how resistance genes jump between species in "
          "farmland. Lots of sequencing, lots of mud.",
          [(TOPIC, "ADD", G_SOIL)]),
        A("Horizontal gene transfer in agricultural soil, got it. Sounds messy in the best way."),
        U("I live in a WG in Freiburg-Wiehre with two Mitbewohner. They're half the reason my German "
          "is getting better, haha.",
          [(GCITY, "ADD", "Freiburg"), (HOME, "ADD", G_WG)]),
        A("Flatmates are the best language course. How's the German going otherwise?"),
        U("Speaking of which \u2014 I just started the A2 Deutschkurs at the VHS, Tuesdays and "
          "Thursdays after the lab. Spanish is my first language, so der/die/das is... a journey.",
          [(GER, "ADD", "A2"), (L1, "ADD", "Spanish")]),
        A("\u00a1\u00c1nimo! Articles are hard for everyone. I can quiz you on genders if you like."),
        U("Also, money-wise I'm on a DAAD scholarship, so nothing fancy please when you recommend "
          "restaurants.",
          [(FUND, "ADD", "DAAD scholarship")]),
        A("Budget-friendly it is \u2014 think Mensa-level prices, maybe a treat now and then."),
    ]),
    ("2026-02-03T07:40:00Z", [
        U("Guten Morgen! Had my Termin at the Ausl\u00e4nderbeh\u00f6rde yesterday. My "
          "Aufenthaltserlaubnis got renewed \u2014 still the student one, \u00a716b \u2014 for two "
          "more years. Puh.",
          [(RES, "ADD", G_16B)]),
        A("Congratulations on surviving the Ausl\u00e4nderbeh\u00f6rde! Student permit under \u00a716b, "
          "noted."),
        U("Btw I play Ultimate Frisbee with the Hochschulsport team on Wednesday evenings, so please "
          "never schedule anything then.",
          [(SPORT, "ADD", "Ultimate Frisbee")]),
        A("Wednesday evenings blocked for Ultimate."),
        U("Prof. Lehmann wants a first paper draft by Easter. If I want to hand in by September 2027 "
          "I really need to start publishing. Can you help me organise the intro?",
          [(SUP, "REINFORCE", "Prof. Katrin Lehmann"), (SUBMIT, "ADD", "September 2027")]),
        A("Of course. Let's start with the gap in the literature and work back from your main "
          "result."),
        U("My friend Sof\u00eda from the lab just switched her thesis to machine learning for "
          "microscopy images. Honestly jealous, her topic sounds more fun than mine right now.",
          [],
          [("Sof\u00eda from the lab just switched her thesis to machine learning",
            "someone else's thesis change, NOT the user's topic")]),
        A("Grass is always greener \u2014 your data will get more fun once the analysis works."),
        U("Danke! Okay, Mensa time, Dienstag is Schnitzel day. Bis sp\u00e4ter!"),
        A("Guten Appetit!"),
    ]),
    ("2026-03-10T16:30:00Z", [
        U("So... big pivot. After the Thesis Advisory Committee meeting we decided to drop the soil "
          "project, the metagenomes are a mess. New plan: my thesis is now on phage therapy against "
          "Pseudomonas aeruginosa.",
          [(TOPIC, "UPDATE", G_PHAGE)]),
        A("A big change! Phage therapy against P. aeruginosa \u2014 very topical. How do you feel?"),
        U("Relieved, actually, this is way more my thing. But it pushes my Abgabe back \u2014 "
          "realistically I'll hand in around March 2028, not September 2027.",
          [(SUBMIT, "UPDATE", "March 2028")]),
        A("Noted: submission target March 2028."),
        U("Also: I passed the A2 Pr\u00fcfung!! Started B1 at the VHS this week, same "
          "Tuesday/Thursday slot.",
          [(GER, "UPDATE", "B1")]),
        A("Herzlichen Gl\u00fcckwunsch! On to B1."),
        U("Last Wednesday Ultimate got cancelled because of the Sturm, so I went bouldering with a "
          "colleague instead. Once was enough, my forearms are dead.",
          [(SPORT, "REINFORCE", "Ultimate Frisbee")],
          [("went bouldering with a colleague instead. Once was enough",
            "one-off activity, NOT a new sport; sport stays Ultimate Frisbee")]),
        A("Bouldering is brutal on the forearms the first time."),
        U("And before you ask \u2014 no, I'm not switching supervisors. The committee added Dr. Jonas "
          "Weber from immunology as second reviewer, but Lehmann is still my Doktormutter.",
          [(SUP, "REINFORCE", "Prof. Katrin Lehmann")],
          [("added Dr. Jonas Weber from immunology as second reviewer",
            "second reviewer on the committee, explicitly NOT a new supervisor")]),
        A("Clear \u2014 Prof. Lehmann supervises, Dr. Weber reviews."),
        U("If this goes well, maybe a postdoc in Copenhagen one day. But that's "
          "Zukunftsmusik.",
          [],
          [("maybe a postdoc in Copenhagen one day", "hypothetical future, NOT a city or "
            "institution change")]),
        A("Good to keep in mind \u2014 one step at a time."),
    ]),
    ("2026-04-21T18:00:00Z", [
        U("Okay, wild news: Lehmann accepted a W3 professorship at the Charit\u00e9 and the whole AG "
          "is moving to Berlin in June. She asked if I'd come along \u2014 obviously ja!",
          [(SUP, "REINFORCE", "Prof. Katrin Lehmann")],
          [("the whole AG is moving to Berlin in June", "announced future move, NOT yet a change of "
            "city or institution (those change when the move is reported, session 5)")]),
        A("Wow, congratulations to her \u2014 and to you. Big move ahead."),
        U("Until then I'm still on the DAAD Stipendium, so I need to figure out money for the move.",
          [(FUND, "REINFORCE", "DAAD scholarship")]),
        A("Let's put together a moving budget. Some universities reimburse relocation for staff."),
        U("At least the timing works, my B1 course ends mid-May.",
          [(GER, "REINFORCE", "B1")]),
        A("Perfect timing."),
        U("Can you help me write a WG-Gesucht ad for Berlin? Something that makes a microbiologist "
          "sound like a fun person to live with.",
          [],
          [("write a WG-Gesucht ad for Berlin", "a flat search, NOT a move or a change in living "
            "arrangement")]),
        A("Sure! 'Friendly microbiologist, promises not to culture anything in the fridge'..."),
        U("Haha, perfect. Ay, and as a native Spanish speaker I keep saying 'ich bekomme ein Steak' "
          "like I'm turning into a steak. Es un desastre.",
          [(L1, "REINFORCE", "Spanish")]),
        A("The classic bekommen/become trap \u2014 you're in good company."),
    ]),
    ("2026-06-16T19:20:00Z", [
        U("Hallo aus Berlin! We moved two weeks ago, the lab is officially at the Charit\u00e9 now, "
          "Campus Virchow-Klinikum. Still unpacking pipettes.",
          [(GCITY, "UPDATE", "Berlin"), (UNI, "UPDATE", G_CHA)]),
        A("Willkommen in Berlin! Charit\u00e9, Campus Virchow \u2014 noted."),
        U("And I'm not a DAAD Stipendiatin anymore: the Charit\u00e9 hired me on a proper contract, "
          "TV-L E13 at 65%. Real salary, Rentenversicherung, the whole thing.",
          [(FUND, "UPDATE", G_TVL), (UNI, "REINFORCE", G_CHA)]),
        A("A real contract \u2014 congratulations. That changes your budget a lot."),
        U("Found a tiny 1-Zimmer-Wohnung in Wedding. No more WG life for me, though I miss my old "
          "Mitbewohner's cooking.",
          [(HOME, "UPDATE", G_ALONE)]),
        A("Your own place! Wedding has great food options too."),
        U("Next adventure: the Ausl\u00e4nderbeh\u00f6rde here. Since I'm employed now I'll have to "
          "switch to the \u00a718d research permit, my Termin is in August.",
          [],
          [("I'll have to switch to the \u00a718d research permit, my Termin is in August",
            "planned future change, NOT yet a new residence status (stays \u00a716b until reported)")]),
        A("I'll remind you a week before the appointment to gather the documents."),
        U("Do you know any Ultimate clubs here? I can't survive a summer without throwing a disc.",
          [(SPORT, "REINFORCE", "Ultimate Frisbee")]),
        A("Berlin has several Ultimate clubs; many train on open fields in the summer."),
    ]),
    ("2026-09-08T17:45:00Z", [
        U("Guten Abend! Update from the Ausl\u00e4nderbeh\u00f6rde: done, I have the \u00a718d "
          "Aufenthaltserlaubnis f\u00fcr Forschung now. Three hours in the waiting room, but fertig.",
          [(RES, "UPDATE", G_18D)]),
        A("Fertig! Research permit under \u00a718d, noted."),
        U("I joined a club that trains on the Tempelhofer Feld, Mondays and Thursdays. So Ultimate is "
          "back in my life, finally.",
          [(SPORT, "REINFORCE", "Ultimate Frisbee")]),
        A("Tempelhofer Feld is a great place for it."),
        U("A colleague keeps trying to recruit me for his rowing crew on the Spree. Nein danke, 6 a.m. "
          "on a Sunday is not for me.",
          [],
          [("trying to recruit me for his rowing crew", "rejected suggestion, NOT a new sport")]),
        A("Fair enough \u2014 sleep is sacred."),
        U("Presented my Pseudomonas phage data at the AG retreat and Lehmann was really happy. She "
          "thinks March 2028 for the Abgabe is realistic.",
          [(TOPIC, "REINFORCE", G_PHAGE), (SUP, "REINFORCE", "Prof. Katrin Lehmann"),
           (SUBMIT, "REINFORCE", "March 2028")]),
        A("That's great feedback. Want a timeline that works back from March 2028?"),
        U("Later! Got my B1 certificate in the post, by the way. Maybe I'll do B2 in the winter "
          "semester, we'll see.",
          [(GER, "REINFORCE", "B1")],
          [("Maybe I'll do B2 in the winter semester", "hypothetical, NOT a change of course level")]),
        A("Gl\u00fcckwunsch! B2 would help a lot with lab admin German."),
        U("Back in Freiburg I cycled everywhere, here the U-Bahn is faster. But honestly, Berlin is "
          "growing on me \u2014 and living alone too, nobody eats my Joghurt.",
          [(GCITY, "REINFORCE", "Berlin"), (HOME, "REINFORCE", G_ALONE)],
          [("Back in Freiburg I cycled everywhere", "past tense about the former city, NOT a revert")]),
        A("Sounds like you've settled in."),
    ]),
]

G_DESC = ("Scripted multi-session conversation for fact reconciliation (ADD / REINFORCE / UPDATE). "
          "Population: a PhD student in Germany (Freiburg, then Berlin) writing mostly in English with "
          "German phrases (supervisor, lab, city, visa status, sport, language course, flat, thesis "
          "topic). Turn numbers are 1-based within a session. Written without reading memoryos code "
          "or tests.")


def build(desc, sessions_src):
    sessions, facts, order, distractors = [], {}, [], []
    for si, (ts, turns) in enumerate(sessions_src, 1):
        out = []
        for ti, t in enumerate(turns, 1):
            assert (t["role"] == "user") == (ti % 2 == 1), (si, ti)
            out.append({"role": t["role"], "text": t["text"]})
            if t["role"] != "user":
                continue
            for subj, action, value in t["tags"]:
                if subj not in facts:
                    assert action == "ADD", (subj, si, ti)
                    facts[subj] = []
                    order.append(subj)
                else:
                    assert action != "ADD", (subj, si, ti)
                    cur = [e["value"] for e in facts[subj] if e["action"] != "REINFORCE"][-1]
                    if action == "REINFORCE":
                        assert value == cur, (subj, si, ti, value, cur)
                    else:
                        assert value != cur, (subj, si, ti)
                facts[subj].append({"session": si, "turn": ti, "action": action, "value": value})
            for snippet, note in t["distractors"]:
                assert snippet in t["text"], (si, ti, snippet)
                distractors.append({"session": si, "turn": ti, "text": snippet, "note": note})
        sessions.append({"session": si, "timestamp": ts, "turns": out})
    expected = []
    for subj in order:
        ev = facts[subj]
        hist = [e["value"] for e in ev if e["action"] in ("ADD", "UPDATE")]
        expected.append({"subject": subj, "final": hist[-1], "history": hist, "events": ev})
    return {"description": desc, "sessions": sessions, "expected": expected,
            "distractors": distractors}


def main():
    for name, desc, src in (("reconciliation_f.json", F_DESC, F_SESSIONS),
                            ("reconciliation_g.json", G_DESC, G_SESSIONS)):
        doc = build(desc, src)
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        n = {a: sum(e["action"] == a for f in doc["expected"] for e in f["events"])
             for a in ("ADD", "UPDATE", "REINFORCE")}
        print(name, len(doc["sessions"]), "sessions,", len(doc["expected"]), "facts,", n,
              len(doc["distractors"]), "distractors")


if __name__ == "__main__":
    main()
