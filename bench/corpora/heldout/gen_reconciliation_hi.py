#!/usr/bin/env python3
"""Generator for the held-out reconciliation corpora h and i.

Hand-written turns. Every user turn is tagged with the (subject, action, value) events it carries
(possibly none) and with the distractor snippets it contains (exact substrings, each with a note).
`expected` is built from the tags only, so every statement of a fact is counted; the
ADD / UPDATE / REINFORCE order is asserted. Standard library only; running it again gives
byte-identical files.

    python3 gen_reconciliation_hi.py [OUTPUT_DIR]     (default: the directory of this script)
"""
import json
import os
import sys

ADD, UPDATE, REINFORCE = "ADD", "UPDATE", "REINFORCE"

DESCRIPTION = (
    "Scripted multi-session conversation for fact reconciliation (ADD / REINFORCE / UPDATE). "
    "Turn numbers are 1-based within a session. "
)


def U(text, *events, d=()):
    """A user turn: events are (subject, action, value); d is ((exact substring, note), ...)."""
    return {"role": "user", "text": text, "events": list(events), "distractors": list(d)}


def A(text):
    return {"role": "assistant", "text": text}


# --------------------------------------------------------------------------------------------
# h: a Filipina live-in carer for a retired British couple on the Costa del Sol; English with
#    Spanish words and a little Tagalog. Whitfields (Marbella) -> Ortegas (Málaga).
# --------------------------------------------------------------------------------------------
EMP, CITY, LIV, SCHED = "employer", "city", "living arrangement", "work schedule"
ES, COORD, HUSB, HEALTH = "Spanish course level", "agency coordinator", "husband's name", "health condition"
PHONE, CHOIR, EXER = "phone", "choir rehearsal schedule", "exercise"

WHIT, ORT = "the Whitfields", "the Ortegas"
LIVE_IN = "live-in at the Whitfields' home"
SHARED = "shared piso in El Palo"
SCHED1 = "six days on, Sundays off"
SCHED2 = "weekdays, eight to four"
ZUMBA = "Zumba, Tuesday and Thursday"
NO_EXER = "none (gave up Zumba)"

H_SESSIONS = [
    ("2026-02-03T20:40:00Z", [
        U("Hello po! My daughter in Cebu told me to install you, she says you can help me with my "
          "Spanish and with papers. I'm Maricel. I work as a live-in carer for a retired English "
          "couple, the Whitfields, here in Marbella. Almost three years with them now.",
          (EMP, ADD, WHIT), (CITY, ADD, "Marbella"), (LIV, ADD, LIVE_IN)),
        A("Hello Maricel, mucho gusto! So you're a live-in carer for the Whitfields in Marbella. "
          "I'm happy to help with Spanish and with paperwork. What would be most useful first?"),
        U("Pues, first my timetable, so you know when I can chat. I'm on duty six days a week, "
          "my day off is Sunday — church, laundry, video call with the family. Most nights after "
          "nine I'm free in my room.",
          (SCHED, ADD, SCHED1)),
        A("Got it: six days on duty, Sunday off, and late evenings are best for you."),
        U("For Spanish I'm doing A2 at the Escuela Oficial de Idiomas, online classes Monday and "
          "Wednesday nights. Speaking I can manage, but writing, naku, disaster. The accents, "
          "¡Dios mío!",
          (ES, ADD, "A2"),
          d=(("online classes Monday and Wednesday nights",
              "the class timetable, not her work schedule"),)),
        A("A2 at the EOI is a good base. Send me anything you write and I'll correct it gently — "
          "accents included."),
        U("Salamat! Another thing: when I need to write to the agency, it's to Lucía, my coordinator "
          "at Cuidamos Costa del Sol. She always answers WhatsApp, even on Sunday.",
          (COORD, ADD, "Lucía")),
        A("Noted — Lucía at Cuidamos Costa del Sol is your coordinator. I can draft messages to her "
          "in Spanish or in English."),
        U("And my husband is Arnel, he's in Cebu with our two boys. We video call every night at ten "
          "my time, that's five in the morning for him, pobrecito.",
          (HUSB, ADD, "Arnel")),
        A("That's real dedication from both of you. Anything else you'd like me to keep in mind?"),
        U("That's all for tonight, I'm sleepy already. Buenas noches!"),
    ]),
    ("2026-03-10T20:15:00Z", [
        U("Buenas! Sorry if I type funny, my phone is an old Samsung Galaxy A12 and the screen is "
          "cracked in the corner, some letters don't work.",
          (PHONE, ADD, "Samsung Galaxy A12")),
        A("No worries, I can read you fine. If you want, I can look up what a screen repair usually "
          "costs."),
        U("Later. Today I took Mrs Whitfield to the centro de salud for her check-up, and I had my "
          "own appointment after hers. My blood results came back: pre-diabetes, my sugar is a "
          "little high. The médico de cabecera said walk 30 minutes every day and less rice.",
          (HEALTH, ADD, "pre-diabetes"),
          d=(("The médico de cabecera said walk 30 minutes every day",
              "doctor's advice, not a reported habit: exercise does not change"),)),
        A("Thank you for telling me. Pre-diabetes is common and often improves with small changes. "
          "Do you get any exercise at the moment?"),
        U("Oo, I already do Zumba, Tuesday and Thursday evenings at the polideportivo, Mrs Whitfield "
          "lets me go out from seven to eight. And every morning I push Mr Whitfield in his "
          "wheelchair along the paseo marítimo, that's my walking, haha.",
          (EXER, ADD, ZUMBA),
          d=(("every morning I push Mr Whitfield in his wheelchair along the paseo marítimo, that's "
              "my walking",
              "a work task she jokes about; her exercise is Zumba, no second exercise fact"),)),
        A("Zumba twice a week plus the daily walk with Mr Whitfield is a great start."),
        U("Rice is life for a Filipina, but okay, I'll survive. What keeps me sane is the choir: "
          "Friday nights we practise with the Filipino community choir in Málaga, one of the ates "
          "drives me there, and we sing at the Tagalog Mass on Sundays.",
          (CHOIR, ADD, "Friday evenings"),
          d=(("the Filipino community choir in Málaga",
              "where the choir meets, before her move: not a city change"),)),
        A("That sounds lovely — Friday practice, Sunday Mass. Noted."),
        U("The Whitfields are talking about maybe going back to England, their daughter wants them "
          "near her in Bristol. Nothing decided, so I try not to worry. For now I'm happy here in "
          "Marbella, the sun is a blessing.",
          (CITY, REINFORCE, "Marbella"),
          d=(("The Whitfields are talking about maybe going back to England",
              "an undecided plan of the couple: employer, city and living arrangement unchanged"),)),
        A("It makes sense to wait until they decide. If it happens, I can help you prepare a CV in "
          "Spanish and questions for the agency."),
        U("Salamat, you're very kind. Good night!"),
    ]),
    ("2026-04-21T18:05:00Z", [
        U("Hi! Semana Santa was so beautiful, the processions in the old town, I cried a little. "
          "Mr Whitfield insisted on seeing them so I pushed his wheelchair through all the crowds."),
        A("That sounds moving — and exhausting. I'm glad he got to see them."),
        U("Oh wait, I have to correct something I told you before. Choir is not Friday — it's "
          "Saturday evening! Friday is when the ates clean the church, I mixed them up. Saturday "
          "seven o'clock rehearsal, then Sunday Mass.",
          (CHOIR, UPDATE, "Saturday evenings")),
        A("Thanks for correcting me — choir rehearsal is Saturday at seven in the evening, not "
          "Friday."),
        U("And finally I bought a new phone, a Xiaomi Redmi Note 13. The Samsung died during Semana "
          "Santa, just black screen. Now the letters are big, I can read you without my glasses!",
          (PHONE, UPDATE, "Xiaomi Redmi Note 13")),
        A("Good timing, then. Enjoy the big screen!"),
        U("My Spanish teacher gave us homework: write an email to a landlord asking about a piso for "
          "rent, only for practice. Can you check? 'Estimado señor, estoy interesada en el piso de "
          "la calle Ancha. ¿Está disponible en junio?'",
          d=(("asking about a piso for rent, only for practice",
              "homework, hypothetical: living arrangement unchanged"),)),
        A("Very good! It's correct. To sound a little more formal you could add: 'Me gustaría saber "
          "el precio y las condiciones del alquiler.'"),
        U("Yay! My husband says hi, he heard me practising on our call and now he calls me 'Señora "
          "Maricel', haha."),
        A("Ha! Say hi back from me."),
        U("Tonight my Tuesday Zumba was crazy, the teacher played reggaeton for one hour straight. "
          "My legs!",
          (EXER, REINFORCE, ZUMBA)),
        A("Stretch before bed — your legs will thank you tomorrow."),
        U("Ay, and the serious news. My señores, the Whitfields, decided this weekend: they are "
          "moving to Bristol at the end of May, to be near their daughter. They will give me a very "
          "good reference, and the agency is already looking for a new family for me.",
          (EMP, REINFORCE, WHIT),
          d=(("they are moving to Bristol at the end of May",
              "announced future move of the couple: employer, city and living arrangement change "
              "only when the user reports them"),)),
        A("That's a lot to take in, Maricel. A good reference and the agency already searching is a "
          "strong position. Tell me when you want to prepare for interviews."),
    ]),
    ("2026-06-09T19:30:00Z", [
        U("Hola! Many changes. The Whitfields flew to Bristol on the 30th of May, very emotional "
          "goodbye, even Mr Whitfield cried. And since last Monday I work for a new couple, the "
          "Ortegas — Don Manuel and Doña Pilar. He was a pharmacist, she was a school nurse, both retired.",
          (EMP, UPDATE, ORT),
          d=(("The Whitfields flew to Bristol on the 30th of May",
              "the former employers' move, not the user's city"),)),
        A("What a big step. I hope the goodbye felt right. So now you're with Don Manuel and Doña "
          "Pilar Ortega."),
        U("And it's not live-in this time! I moved to Málaga, and I'm sharing a piso in El Palo with "
          "two other carers, a Colombian girl and a Romanian lady. My own room with a door that "
          "locks, imagine.",
          (CITY, UPDATE, "Málaga"), (LIV, UPDATE, SHARED)),
        A("Your own room! That's a real change after three years of living in."),
        U("The timetable is better too: only weekdays now, eight to four, and weekends are all "
          "mine. I don't know what to do with a free morning, honestly.",
          (SCHED, UPDATE, SCHED2)),
        A("Sleep in, maybe? And choir must be easier to reach from Málaga."),
        U("Yes! Saturday choir is only twenty minutes by bus now. Before it was one hour in Ate "
          "Joy's car, poor Ate Joy.",
          (CHOIR, REINFORCE, "Saturday evenings"),
          d=(("Before it was one hour in Ate Joy's car",
              "past-tense story about the commute, no change to any fact"),)),
        A("Twenty minutes — much better."),
        U("Lucía from the agency is a star — best coordinator, she found me this job super fast. "
          "I sent her flowers to the office.",
          (COORD, REINFORCE, "Lucía")),
        A("That's a lovely gesture."),
        U("Question: do I have to change my empadronamiento now that I live in Málaga? The "
          "Ayuntamiento website is confusing.",
          (CITY, REINFORCE, "Málaga")),
        A("Yes — when you move you register on the padrón of your new town hall. Usually you book an "
          "appointment and bring your ID and the rental contract or a letter from the owner. I can "
          "help you with the form."),
    ]),
    ("2026-07-16T18:10:00Z", [
        U("Qué calor! 34 degrees today and Don Manuel wanted to walk to the mercado at noon, "
          "imagine. I made him wear the hat at least."),
        A("Good call on the hat. Lots of water for both of you."),
        U("Results came out: I passed the B1 at the Escuela Oficial! Next year maybe B2, if God "
          "wills.",
          (ES, UPDATE, "B1"),
          d=(("Next year maybe B2, if God wills", "intention only: level stays B1"),)),
        A("¡Enhorabuena, Maricel! B1 is a big achievement."),
        U("About Zumba — I stopped. The polideportivo near me has the class only at nine at night, "
          "too late for me with work in the morning. Maybe I'll find something else.",
          (EXER, UPDATE, NO_EXER),
          d=(("Maybe I'll find something else.", "vague intention: no new exercise"),)),
        A("That's understandable. Would swimming appeal to you? The sea is right there, and it's "
          "gentle on the joints."),
        U("Swimming? Ay, no, I never learned to swim, I'm a Cebuana who is scared of the sea, haha. "
          "Walking on the beach, maybe.",
          d=(("Swimming? Ay, no, I never learned to swim", "assistant's suggestion rejected"),
             ("Walking on the beach, maybe.", "tentative, not a habit: exercise stays none"))),
        A("Beach walks in the evening are a great idea whenever you feel like it."),
        U("Also, new coordinator for me: Lucía moved to the agency's office in Sevilla, so now it's "
          "Nerea. She seems strict but fair.",
          (COORD, UPDATE, "Nerea"),
          d=(("Lucía moved to the agency's office in Sevilla",
              "another person's move, not the user's city"),)),
        A("Noted — Nerea is your coordinator now."),
        U("Last week the doctor checked my sugar again: still pre-diabetes, not worse, thanks God. "
          "He's happy I cut the rice at night.",
          (HEALTH, REINFORCE, "pre-diabetes")),
        A("That's good news — the changes are working."),
    ]),
    ("2026-09-22T19:00:00Z", [
        U("Hi! It's Arnel's birthday tomorrow. Can you help me write something sweet in Spanish for "
          "him? He doesn't understand it but he loves when I show off.",
          (HUSB, REINFORCE, "Arnel")),
        A("Of course: '¡Feliz cumpleaños, mi amor! Aunque estemos lejos, cada noche contigo es lo "
          "mejor de mi día.' Want it shorter?"),
        U("Ang ganda! With my B1 Spanish I can even argue with the internet provider now, "
          "haha. They wanted to charge me twice for August.",
          (ES, REINFORCE, "B1")),
        A("Ha, that's real-world Spanish! Did they fix the bill?"),
        U("Yes, finally. Other news: Doña Pilar slipped in the bathroom last week, nothing broken "
          "thanks God, but now I stay until five some days. Officially it's still weekdays, "
          "eight to four, and they pay the extra hour.",
          (SCHED, REINFORCE, SCHED2),
          d=(("now I stay until five some days", "occasional extra hour, not a schedule change"),)),
        A("I'm glad she's okay — and that the extra time is paid."),
        U("Question for you: if the agency offers me a live-in job again, with more money, should I "
          "take it? Honestly I love having my own room in the piso, and the girls are good company.",
          (LIV, REINFORCE, SHARED),
          d=(("if the agency offers me a live-in job again",
              "hypothetical: living arrangement and employer unchanged"),)),
        A("Only you can weigh it, but you sound happy where you are. More money is good; your own "
          "space and free weekends count too."),
        U("My friend Andreea just bought an iPhone 16 and she's showing off, but my Xiaomi takes "
          "better photos of the sea, I swear.",
          (PHONE, REINFORCE, "Xiaomi Redmi Note 13"),
          d=(("My friend Andreea just bought an iPhone 16", "another person's phone"),)),
        A("Loyal to the Xiaomi — I like it."),
    ]),
    ("2026-11-10T19:30:00Z", [
        U("Hello! Nerea called today, she wants to do my six-month review with the Ortegas next "
          "week. She says Don Manuel and Doña Pilar are very happy with me.",
          (COORD, REINFORCE, "Nerea"), (EMP, REINFORCE, ORT)),
        A("That's wonderful feedback. Want to prepare a few points for the review?"),
        U("Maybe later. And Arnel is coming for Christmas! First time in Spain. He lands in Málaga on "
          "the 20th of December and stays three weeks.",
          (HUSB, REINFORCE, "Arnel"),
          d=(("He lands in Málaga on the 20th of December and stays three weeks",
              "a visit by the husband: no change to any fact (not counted as restating the city)"),)),
        A("How exciting! Three weeks together after so long."),
        U("Can he stay with me in my room in the piso for three weeks? I have to ask my flatmates, "
          "and maybe the landlord too.",
          (LIV, REINFORCE, SHARED)),
        A("Asking both is wise. Many rental contracts allow short visits; a quick message to the "
          "landlord avoids surprises."),
        U("Also December is crazy with choir — the Christmas concert is on the 13th, so we rehearse "
          "Saturday evenings as usual and also Wednesdays this month.",
          (CHOIR, REINFORCE, "Saturday evenings"),
          d=(("also Wednesdays this month", "temporary extra rehearsals, not a schedule change"),)),
        A("Busy month! Good luck with the concert."),
        U("My friend Ate Joy was diagnosed with type 2 diabetes, the real one, not pre-diabetes like "
          "me. I told her about cutting the rice at night.",
          (HEALTH, REINFORCE, "pre-diabetes"),
          d=(("My friend Ate Joy was diagnosed with type 2 diabetes", "another person's condition"),)),
        A("She's lucky to have a friend who has been through the changes already."),
        U("Okay, I go to sleep, Doña Pilar has physio at nine tomorrow. Buenas noches!"),
    ]),
]

# --------------------------------------------------------------------------------------------
# i: a software tester from Pune who moves to Bengaluru; Indian English with Hinglish words.
# --------------------------------------------------------------------------------------------
ROLE, IEMP, ICITY, MGR = "job role", "employer", "city", "manager"
TOOL, VEH, DIET, IHEALTH = "test automation stack", "vehicle", "diet", "health condition"
SPORT, KAN, PARTNER = "sport schedule", "Kannada class level", "partner"

MANUAL, AUTO = "manual QA tester", "QA automation engineer"
SAH, ZES = "Sahyadri Infotech", "Zestiva Payments"
RAMESH, KAVYA = "Ramesh Iyer", "Kavya Reddy"
SEL, PW = "Selenium + Java", "Playwright + TypeScript"
ACTIVA, NO_VEH, ATHER = "Honda Activa", "none (sold the Activa)", "Ather 450X"
CRICKET, BADM = "cricket, Sunday 7 to 10 a.m.", "badminton, Tuesday and Thursday 7 p.m."
ENGAGED, MARRIED = "engaged to Sneha", "married to Sneha"

I_SESSIONS = [
    ("2026-01-19T16:30:00Z", [
        U("Hi, Aniket this side. Quick intro: I'm a manual tester at Sahyadri Infotech in "
          "Hinjewadi, Pune. Mostly regression testing for one US insurance client — full Excel "
          "sheet test cases types.",
          (ROLE, ADD, MANUAL), (IEMP, ADD, SAH), (ICITY, ADD, "Pune")),
        A("Hi Aniket! Manual regression testing at Sahyadri Infotech in Pune — noted. How can I "
          "help?"),
        U("Mainly status reports and test case writing. My manager is Ramesh Iyer, everyone calls "
          "him Ramesh sir. Good fellow, but he wants the daily status mail by 6 pm sharp, no "
          "excuses.",
          (MGR, ADD, RAMESH)),
        A("I can make you a template for the daily status mail: done today, planned tomorrow, "
          "blockers. Want it?"),
        U("Haan, please do the needful. Also on weekends I'm trying to learn Selenium, there's an "
          "internal automation team and I want to get in. Abhi toh bas YouTube tutorials, let's see.",
          d=(("on weekends I'm trying to learn Selenium, there's an internal automation team and I "
              "want to get in",
              "learning and ambition only: job role unchanged, no automation stack yet"),)),
        A("Here's the template. And for Selenium, a small project against a demo site teaches more "
          "than tutorials — happy to suggest one."),
        U("One more thing — I'm vegetarian, so if you suggest any recipes or restaurants, keep it veg "
          "only.",
          (DIET, ADD, "vegetarian")),
        A("Noted, vegetarian suggestions only."),
        U("Sunday mornings are fixed for cricket with the office gang at a ground in Wakad, 7 to 10. "
          "After that I'm dead for the whole day, haha.",
          (SPORT, ADD, CRICKET)),
        A("Sunday cricket, 7 to 10 — I'll keep Sunday mornings free of reminders."),
        U("And I go everywhere on my Activa, so if you ever see Hinjewadi Phase 1 traffic news, tell "
          "me. It's a daily war.",
          (VEH, ADD, ACTIVA)),
        A("Ha, will do. Ride safe."),
    ]),
    ("2026-02-23T15:45:00Z", [
        U("Arre, small correction from last time: I'm not pure veg actually, I'm eggetarian. Eggs "
          "chalega, chicken-mutton nahi. Egg bhurji is my comfort food.",
          (DIET, UPDATE, "eggetarian")),
        A("Thanks for correcting me — eggetarian: eggs yes, no meat or fish."),
        U("Today one more migraine attack, third this month. The doctor says it's screen time plus "
          "skipping lunch. I have to keep the tablets in my bag always now.",
          (IHEALTH, ADD, "migraine")),
        A("Sorry to hear that. Regular meals help, and so does the 20-20-20 rule: every 20 minutes, "
          "look at something 20 feet away for 20 seconds."),
        U("20-20-20 rule, accha, I'll try. My boss won't like me staring at the wall every 20 "
          "minutes though, lol.",
          d=(("20-20-20 rule, accha, I'll try",
              "assistant's suggestion, tentatively accepted: no change to the condition"),)),
        A("Twenty seconds is hardly a break — your test cases won't notice."),
        U("Good news also na — my engagement with Sneha is fixed! Ring ceremony was last Sunday, so "
          "no cricket that day. Wedding is planned for November, in Pune only.",
          (PARTNER, ADD, ENGAGED),
          d=(("so no cricket that day", "one-off: the Sunday cricket habit is unchanged"),
             ("Wedding is planned for November",
              "planned future event: partner stays engaged until the wedding is reported"))),
        A("Congratulations to you and Sneha! November will come fast."),
        U("Sneha's cousin is also a tester, at Infosys in Mysuru. He says Selenium is outdated and "
          "everyone is moving to Playwright. Is it true?",
          d=(("Sneha's cousin is also a tester, at Infosys in Mysuru",
              "another person's employer and city"),
             ("He says Selenium is outdated and everyone is moving to Playwright. Is it true?",
              "someone else's opinion and a question: no tool fact"))),
        A("Partly. Playwright is growing fast for new projects, but a lot of companies still run "
          "big Selenium suites. Learning either teaches you the same core ideas."),
    ]),
    ("2026-04-13T14:20:00Z", [
        U("Big news yaar — I cleared the internal interview! From this month I'm in the automation "
          "team, officially QA automation engineer now. No more Excel test cases.",
          (ROLE, UPDATE, AUTO)),
        A("Congratulations, Aniket! That's the move you wanted."),
        U("Stack is Selenium with Java, TestNG and a Jenkins pipeline. Ramesh sir is still my "
          "manager since he heads the whole QA practice, so that part didn't change.",
          (TOOL, ADD, SEL), (MGR, REINFORCE, RAMESH)),
        A("A classic stack. Good that you keep the same manager during the switch."),
        U("Can you explain explicit wait versus fluent wait? My flaky tests are killing me, every "
          "second run something fails."),
        A("An explicit wait polls one condition until a timeout; a fluent wait is the same idea but "
          "lets you set the polling interval and which exceptions to ignore. Flakiness usually means "
          "waiting on the wrong condition — wait for the element to be clickable, not just present."),
        U("Super clear, thanks. Sunday cricket got cancelled this week because of heat — 39 degrees "
          "here in Pune already in April!",
          (SPORT, REINFORCE, CRICKET), (ICITY, REINFORCE, "Pune"),
          d=(("Sunday cricket got cancelled this week", "one-off cancellation, habit unchanged"),)),
        A("39 in April is brutal. Stay hydrated."),
        U("One more thing, don't tell anyone, haha: a recruiter from a fintech in Bengaluru called "
          "yesterday. Maybe an offer will come. Notice period here is 90 days though, so nothing is "
          "happening soon.",
          d=(("a recruiter from a fintech in Bengaluru called yesterday. Maybe an offer will come.",
              "a possible offer: employer and city unchanged"),)),
        A("Your secret is safe. If the offer comes, I can help you compare it properly."),
    ]),
    ("2026-07-06T17:00:00Z", [
        U("Hello from my new PG in HSR Layout, Bengaluru! I joined Zestiva Payments last Monday. "
          "Same role, QA automation engineer, but payments domain — UPI, cards, all that.",
          (ICITY, UPDATE, "Bengaluru"), (IEMP, UPDATE, ZES), (ROLE, REINFORCE, AUTO)),
        A("Big move! Zestiva Payments in Bengaluru — congratulations on the new job."),
        U("My manager here is Kavya Reddy, very sharp, asks the right questions. And the stack is "
          "Playwright with TypeScript — no more Selenium, thank god. That Infosys guy was right.",
          (MGR, UPDATE, KAVYA), (TOOL, UPDATE, PW)),
        A("TypeScript will feel familiar after Java. Want a quick Playwright cheat sheet?"),
        U("I sold the Activa before leaving Pune. Traffic here on a scooter, no thanks. For now "
          "it's metro and Rapido only.",
          (VEH, UPDATE, NO_VEH),
          d=(("before leaving Pune", "past reference to the old city, no change back"),)),
        A("Fair enough — the metro is a sane choice."),
        U("Cricket is also finished for now, there's no team here. But the office has a badminton "
          "group, Tuesday and Thursday at 7 pm near Agara lake, so I joined that.",
          (SPORT, UPDATE, BADM)),
        A("Nice way to meet the new team too."),
        U("Sneha is a bit sad about the long distance, she's still in Pune with her job. After the "
          "wedding she'll shift here, her company allows remote.",
          (PARTNER, REINFORCE, ENGAGED),
          d=(("she's still in Pune with her job", "the partner's city, not the user's"),
             ("After the wedding she'll shift here", "another person's planned move"))),
        A("Long distance before a wedding is hard. Video calls and a countdown help."),
    ]),
    ("2026-08-24T16:10:00Z", [
        U("Hi! Kavya gave me ownership of the full checkout regression suite — 400 Playwright tests. "
          "Tension bhi hai, but good tension.",
          (MGR, REINFORCE, KAVYA), (TOOL, REINFORCE, PW)),
        A("Ownership of a whole suite in two months — she trusts you."),
        U("Also I joined a spoken Kannada class, beginner batch, Saturday mornings. My PG uncle "
          "speaks only Kannada and I want to say more than 'swalpa adjust maadi', haha.",
          (KAN, ADD, "beginner")),
        A("Good plan! 'Oota aayta?' (have you eaten?) will win him over."),
        U("Weirdly, the migraine is better after shifting. Maybe because no late-night calls with "
          "the US client anymore, or the weather here.",
          (IHEALTH, REINFORCE, "migraine")),
        A("Fewer late nights would do it. Keep the tablets handy anyway."),
        U("Question: for the wedding in November I need 10 days of leave. My manager is okay, but "
          "Zestiva HR says only 6 are available in the first year. Any jugaad?",
          (IEMP, REINFORCE, ZES)),
        A("Ask HR whether you can take leave in advance, or combine the 6 days with a few days of "
          "unpaid leave around a weekend."),
        U("Unpaid 4 days it is, chalo. Ek baar hi toh shaadi hoti hai, right?"),
        A("Exactly — worth every day."),
    ]),
    ("2026-10-05T15:30:00Z", [
        U("Accha listen, I bought a second-hand Ather 450X from a colleague, only 11k km done. Back "
          "in Pune my Activa did Hinjewadi in 20 minutes; here the metro was fine but the last mile "
          "was killing me.",
          (VEH, UPDATE, ATHER),
          d=(("Back in Pune my Activa did Hinjewadi in 20 minutes",
              "past-tense story: vehicle does not go back to the Activa, city stays Bengaluru"),)),
        A("An electric scooter for the last mile — smart. Congrats on the Ather."),
        U("Kannada update: I got promoted to the intermediate batch! The teacher says my pronunciation "
          "is better than some locals, she's just being nice.",
          (KAN, UPDATE, "intermediate")),
        A("Intermediate already — super!"),
        U("Tuesday badminton was epic, I beat our senior dev in straight sets. Rematch on Thursday, "
          "as usual.",
          (SPORT, REINFORCE, BADM)),
        A("Ha, careful — he'll be practising."),
        U("Wedding prep is in full swing — Sneha and both our mothers are doing the shopping in "
          "Pune. I'm just the ATM, lol.",
          (PARTNER, REINFORCE, ENGAGED),
          d=(("Sneha and both our mothers are doing the shopping in Pune",
              "other people's activity in Pune, not the user's city"),)),
        A("Every wedding needs one. Six weeks to go!"),
        U("My roommate in the PG says we should switch to Cypress because Playwright is overhyped. "
          "Bhai, our entire suite is Playwright, not happening.",
          (TOOL, REINFORCE, PW),
          d=(("My roommate in the PG says we should switch to Cypress",
              "someone else's suggestion, rejected: stack unchanged"),)),
        A("Migrating a working suite for a trend rarely pays off. Stick with it."),
    ]),
    ("2026-11-30T14:00:00Z", [
        U("I'm back in Bengaluru! Sneha and I got married on the 19th — chaotic, loud, beautiful. "
          "The functions were in Pune, so I was there a full week.",
          (PARTNER, UPDATE, MARRIED), (ICITY, REINFORCE, "Bengaluru"),
          d=(("The functions were in Pune, so I was there a full week",
              "a trip for the wedding, not a city change"),)),
        A("Congratulations to you both! Welcome back."),
        U("She shifts here in two weeks, with her laptop and all. Till then I'm in the PG only.",
          d=(("She shifts here in two weeks", "the wife's planned move, not a change for the user"),)),
        A("Two weeks will fly. Need help finding a flat for the two of you?"),
        U("Yes please, later. Anyway, the Ather is perfect for the ORR traffic, 35 minutes to the "
          "office door to door. Best decision this year, after the wedding of course.",
          (VEH, REINFORCE, ATHER)),
        A("Ha, correct order of priorities."),
        U("Wedding food was pure veg because my uncles insisted, but being eggetarian I managed fine "
          "— and the first thing back here was egg bhurji, obviously.",
          (DIET, REINFORCE, "eggetarian"),
          d=(("Wedding food was pure veg because my uncles insisted",
              "the family's choice for the event, not the user's diet"),)),
        A("Comfort food after a week of functions — well deserved."),
        U("Migraine tablets also got refilled, touch wood no attack since the wedding.",
          (IHEALTH, REINFORCE, "migraine")),
        A("Touch wood! Keep the regular meals going."),
        U("Kannada class homework for Saturday: ten sentences about my office in Kannada. "
          "Intermediate batch is no joke, help me na?",
          (KAN, REINFORCE, "intermediate")),
        A("Sure — start with 'Nanna office HSR Layout hattira ide' and we'll build from there."),
    ]),
]

CORPORA = [
    ("reconciliation_h.json",
     DESCRIPTION + "Population: a Filipina live-in carer for a retired British couple in Marbella "
     "who moves to a live-out job with a retired Spanish couple in Málaga; English with Spanish "
     "words and a little Tagalog.",
     H_SESSIONS),
    ("reconciliation_i.json",
     DESCRIPTION + "Population: a software tester from Pune who moves into test automation and "
     "then to a fintech in Bengaluru; Indian English with Hinglish words.",
     I_SESSIONS),
]


def build(description, sessions):
    out_sessions, facts, distractors = [], {}, []
    assert 6 <= len(sessions) <= 8, "6-8 sessions"
    last_ts = ""
    for s_no, (ts, turns) in enumerate(sessions, 1):
        assert ts > last_ts, f"timestamps must increase (session {s_no})"
        last_ts = ts
        out_turns = []
        for t_no, turn in enumerate(turns, 1):
            role = "user" if t_no % 2 == 1 else "assistant"
            assert turn["role"] == role, f"s{s_no}t{t_no}: expected a {role} turn"
            out_turns.append({"role": turn["role"], "text": turn["text"]})
            if role == "assistant":
                continue
            seen = set()
            for subject, action, value in turn["events"]:
                assert subject not in seen, f"s{s_no}t{t_no}: two events for {subject}"
                seen.add(subject)
                fact = facts.get(subject)
                if action == ADD:
                    assert fact is None, f"s{s_no}t{t_no}: second ADD for {subject}"
                    fact = facts[subject] = {"history": [value], "events": []}
                else:
                    assert fact is not None, f"s{s_no}t{t_no}: {action} before ADD for {subject}"
                    if action == UPDATE:
                        assert value not in fact["history"], f"s{s_no}t{t_no}: UPDATE to old value"
                        fact["history"].append(value)
                    elif action == REINFORCE:
                        assert value == fact["history"][-1], \
                            f"s{s_no}t{t_no}: REINFORCE of {value!r}, current is {fact['history'][-1]!r}"
                    else:
                        raise AssertionError(f"unknown action {action}")
                fact["events"].append({"session": s_no, "turn": t_no, "action": action,
                                       "value": value})
            for text, note in turn["distractors"]:
                assert text in turn["text"], f"s{s_no}t{t_no}: distractor not a substring: {text!r}"
                distractors.append({"session": s_no, "turn": t_no, "text": text, "note": note})
        out_sessions.append({"session": s_no, "timestamp": ts, "turns": out_turns})

    expected = []
    for subject, fact in facts.items():
        acts = [e["action"] for e in fact["events"]]
        assert acts[0] == ADD and acts.count(ADD) == 1
        assert acts.count(UPDATE) <= 2, f"{subject}: more than 2 UPDATEs"
        assert 1 <= acts.count(REINFORCE) <= 3, f"{subject}: needs 1-3 REINFORCEs"
        expected.append({"subject": subject, "final": fact["history"][-1],
                         "history": fact["history"], "events": fact["events"]})
    assert 10 <= len(expected) <= 12, "10-12 facts"
    return {"description": description, "sessions": out_sessions, "expected": expected,
            "distractors": distractors}


def counts(doc):
    evs = [e for f in doc["expected"] for e in f["events"]]
    user_turns = sum(1 for s in doc["sessions"] for t in s["turns"] if t["role"] == "user")
    turns = sum(len(s["turns"]) for s in doc["sessions"])
    return {"sessions": len(doc["sessions"]), "turns": turns, "user_turns": user_turns,
            "facts": len(doc["expected"]),
            "ADD": sum(e["action"] == ADD for e in evs),
            "UPDATE": sum(e["action"] == UPDATE for e in evs),
            "REINFORCE": sum(e["action"] == REINFORCE for e in evs),
            "distractors": len(doc["distractors"])}


def main(argv):
    out_dir = argv[0] if argv else os.path.dirname(os.path.abspath(__file__))
    for name, description, sessions in CORPORA:
        doc = build(description, sessions)
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(name, counts(doc))


if __name__ == "__main__":
    main(sys.argv[1:])
