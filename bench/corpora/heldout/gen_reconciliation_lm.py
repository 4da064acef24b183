#!/usr/bin/env python3
"""Generate reconciliation_l.json and reconciliation_m.json (held-out, written without reading memoryos).

Every user turn is written with its tags: events (subject, action, value) and distractors
(snippet, note). `expected` and `distractors` are built from the tags only. Standard library,
deterministic: running it again writes byte-identical files.
Usage: python3 gen_reconciliation_lm.py [DIR]   (default: this script's folder)
"""
import json
import os
import sys

A, U, R = "ADD", "UPDATE", "REINFORCE"

ACKS = [
    "Thanks for telling me, noted.",
    "Got it.",
    "That makes sense.",
    "Understood, thank you.",
    "Good to know.",
    "I see, thanks for the update.",
    "Okay, I'll keep that in mind.",
]

# ---------------------------------------------------------------- l: Emeka, retired engineer, Manchester
L_DESC = ("Held-out reconciliation corpus l: Emeka, a retired Nigerian civil engineer in Manchester "
          "(Didsbury, then Stockport); British English with Nigerian English and Pidgin.")
L = [
    ("2026-01-10T10:05:00Z", [
        ("Good morning o. I'm Emeka, retired civil engineer. Forty years on bridges, first in Enugu where I was born and raised, then with Network Rail here in England.",
         [("hometown", A, "Enugu"), ("occupation", A, "retired civil engineer")], []),
        ("My wife Ngozi and I live in Didsbury, near the library, since the children left home.",
         [("wife", A, "Ngozi"), ("city", A, "Didsbury")], []),
        ("I keep a plot at Fog Lane allotments. On a dry day that is where you will find me: tomatoes, ugu, garden egg when the summer is kind.",
         [("allotment", A, "Fog Lane allotments")], []),
        ("Still driving the old Toyota Avensis. She no dey fail me, that car.",
         [("car", A, "Toyota Avensis")], []),
        ("Our daughter Adaeze is a pharmacist in Leeds. She has given us two grandchildren, both boys.",
         [("daughter", A, "Adaeze"), ("grandchildren", A, "two grandchildren")], []),
        ("On Thursday evenings I play at the Withington chess club. The young ones think an old man is easy. They learn.",
         [("chess", A, "Thursday evenings")], []),
    ]),
    ("2026-02-14T18:20:00Z", [
        ("Eh, I told you Thursday for chess. It is Tuesday evenings. Thursday was the old schedule, I mixed them up.",
         [("chess", U, "Tuesday evenings")], []),
        ("Arsenal drew again on Saturday. Na wa. I have supported Arsenal since I was a student in Nsukka, listening on a neighbour's radio.",
         [("football", A, "Arsenal")], []),
        ("Ngozi says I spend more time at Fog Lane than in the house. My wife is not wrong.",
         [("wife", R, "Ngozi"), ("allotment", R, "Fog Lane allotments")], []),
        ("My friend Chidi just bought a Honda Jazz. Should I get one too, you think?",
         [], [("My friend Chidi just bought a Honda Jazz", "another person's car, and a question; the Avensis is unchanged")]),
        ("I still use my old Nokia, the small one with buttons. My grandson laughs at me.",
         [("phone", A, "Nokia")], []),
    ]),
    ("2026-04-03T09:40:00Z", [
        ("Big news! Arup called. They want an old hand to review bridge inspection reports two days a week, so I am out of retirement: a part-time consultant at Arup now.",
         [("occupation", U, "part-time consultant at Arup")], []),
        ("And my daughter Adaeze delivered a baby girl last week, Chiamaka. So three grandchildren now, God is good.",
         [("daughter", R, "Adaeze"), ("grandchildren", U, "three grandchildren")], []),
        ("Finally I have given up the Nokia. My son-in-law set me up with a Samsung Galaxy and I am learning WhatsApp, slowly slowly.",
         [("phone", U, "Samsung Galaxy")], []),
        ("If Arsenal win the league this year I will throw a party for the whole street.",
         [], [("If Arsenal win the league this year", "a hypothetical about the team, no new fact")]),
        ("We are thinking of moving closer to Leeds one day, but Ngozi loves her church here.",
         [], [("We are thinking of moving closer to Leeds one day", "a plan not carried out; still in Didsbury")]),
    ]),
    ("2026-06-20T14:10:00Z", [
        ("We have done it: sold the house and moved to Stockport. A bungalow, no stairs for my knees.",
         [("city", U, "Stockport")], [("sold the house", "the house was sold, not the car")]),
        ("With the move I kept my plot at Fog Lane allotments. Fifteen minutes' drive, worth every minute.",
         [("allotment", R, "Fog Lane allotments")], []),
        ("The Avensis is serving me well for that drive, no complaints.",
         [("car", R, "Toyota Avensis")], []),
        ("Chess is still Tuesday evenings. I drive back to Withington for it.",
         [("chess", R, "Tuesday evenings")], []),
        ("Ngozi's sister visited from Lagos; she lives in Ikeja with her husband.",
         [], [("Ngozi's sister visited from Lagos; she lives in Ikeja", "another person's home; Emeka's hometown and city unchanged")]),
        ("Arup extended my contract to December, so the consulting continues.",
         [("occupation", R, "part-time consultant at Arup")], []),
    ]),
    ("2026-09-05T11:30:00Z", [
        ("I sold the Avensis last month. My wife drives when we need, and I have my bus pass.",
         [("car", U, "none (sold the car)")], []),
        ("Three grandchildren, and all of them want the Samsung to play their games. Na so.",
         [("grandchildren", R, "three grandchildren"), ("phone", R, "Samsung Galaxy")], []),
        ("Back when we were in Didsbury I could walk to chess; from Stockport it is the bus now.",
         [("city", R, "Stockport")], [("Back when we were in Didsbury I could walk to chess", "the past described in passing; chess day unchanged")]),
        ("Through all of it I have supported Arsenal. Nothing changes that.",
         [("football", R, "Arsenal")], []),
        ("Tell me, if I travel to Enugu for Christmas, what is the best way to ship a parcel ahead?",
         [], [("if I travel to Enugu for Christmas", "a hypothetical trip, and a question")]),
    ]),
    ("2026-11-28T16:00:00Z", [
        ("I have finished with Arup. Two days a week became four, and my wife Ngozi said enough. Fully retired again, this time for good.",
         [("occupation", U, "fully retired"), ("wife", R, "Ngozi")], []),
        ("Home is Enugu, Manchester is where I live. That is how I answer when people ask where I am from.",
         [("hometown", R, "Enugu")], []),
        ("Adaeze, my daughter, is bringing the three grandchildren for Christmas to our bungalow in Stockport.",
         [("daughter", R, "Adaeze"), ("grandchildren", R, "three grandchildren"), ("city", R, "Stockport")], []),
        ("My chess friend Paul has moved his game to Wednesdays; I am staying with the Tuesday evenings group.",
         [("chess", R, "Tuesday evenings")], [("My chess friend Paul has moved his game to Wednesdays", "another person's schedule")]),
        ("Maybe next year I will give up the allotment and rest. Maybe.",
         [], [("Maybe next year I will give up the allotment", "a plan not carried out; the plot is kept")]),
    ]),
]

# ---------------------------------------------------------------- m: Ji-woo, grad student, Daejeon
M_DESC = ("Held-out reconciliation corpus m: Ji-woo, a Korean chemical-engineering grad student in Daejeon "
          "(KAIST); English with Korean words, Hangul and romanized slang.")
M = [
    ("2026-02-02T13:00:00Z", [
        ("annyeong! I'm Ji-woo, first-year master's student in chemical engineering at KAIST. 진짜 tired already ㅋㅋ",
         [("degree", A, "master's student")], [("chemical engineering at KAIST", "the university, not the scholarship")]),
        ("My gyosunim is Professor Han, the electrolyte lab. I work on lithium-ion electrolytes, basically making liquids that don't catch fire.",
         [("advisor", A, "Professor Han"), ("research topic", A, "lithium-ion electrolytes")], []),
        ("I live in the dormitory, Sarang-gwan. Roommate snores, 아이고.",
         [("housing", A, "dormitory")], []),
        ("For snack money I do math tutoring for a high-schooler in Dunsan-dong on weekends.",
         [("part-time job", A, "math tutoring")], []),
        ("Originally from Busan, so Daejeon food is... 음, let's say different.",
         [("hometown", A, "Busan")], []),
        ("My sunbae says everyone in the lab switches topic at least once. Is that normal?",
         [], [("My sunbae says everyone in the lab switches topic at least once", "another person's claim, and a question")]),
    ]),
    ("2026-03-15T21:45:00Z", [
        ("Correction from last time: the tutoring is English, not math. Her mom wanted conversation practice. 제가 헷갈렸어요.",
         [("part-time job", U, "English tutoring")], []),
        ("My boyfriend Minho came down from Seoul on the KTX and we ate tteokbokki at the market until we couldn't move. Best food in the world, no debate.",
         [("boyfriend", A, "Minho"), ("favourite food", A, "tteokbokki")], []),
        ("I joined the badminton club! Tuesday and Friday nights at the sports complex.",
         [("sport", A, "badminton club")], []),
        ("The BK21 stipend came in, so dormitory fees are covered this semester.",
         [("scholarship", A, "BK21 stipend"), ("housing", R, "dormitory")], []),
        ("If I had a car I would drive to Busan every weekend lol.",
         [], [("If I had a car I would drive to Busan every weekend", "a hypothetical; hometown unchanged")]),
    ]),
    ("2026-05-09T10:15:00Z", [
        ("Daebak news: I moved out of the dorm! A small one-room in Gung-dong near the back gate. 원룸 but it's mine.",
         [("housing", U, "one-room in Gung-dong")], []),
        ("And I adopted a cat from the shelter, her name is Dubu because she's white and soft like tofu.",
         [("cat", A, "Dubu")], []),
        ("Professor Han says my lithium-ion electrolytes data is okay but not publishable yet. 흑.",
         [("advisor", R, "Professor Han"), ("research topic", R, "lithium-ion electrolytes")], []),
        ("My boyfriend Minho wants to move to Daejeon but his company is in Seoul, so it's just talk for now.",
         [("boyfriend", R, "Minho")], [("wants to move to Daejeon but his company is in Seoul", "another person's plan, not carried out")]),
        ("I quit the English tutoring. Midterms are killing me, 시간이 없어요.",
         [("part-time job", U, "none (quit tutoring)")], []),
    ]),
    ("2026-07-21T16:30:00Z", [
        ("Big change: Professor Han is leaving for industry, so I transferred to Professor Seo's lab. Solid-state batteries now, a totally new field for me.",
         [("advisor", U, "Professor Seo"), ("research topic", U, "solid-state batteries")], []),
        ("My old labmates are still doing electrolytes with the postdoc who stayed.",
         [], [("My old labmates are still doing electrolytes", "other people's research, not hers")]),
        ("Badminton club is my therapy, honestly. Tuesday and Friday no matter what.",
         [("sport", R, "badminton club")], []),
        ("Dubu knocked my lab notebook off the desk again, 진짜.",
         [("cat", R, "Dubu")], []),
        ("Should I go back to tutoring for extra money? Be honest.",
         [], [("Should I go back to tutoring for extra money?", "a question, no change")]),
    ]),
    ("2026-09-30T20:00:00Z", [
        ("I passed the qualifying exam, so they converted me to the integrated track: officially a PhD student now!! 화이팅 to me.",
         [("degree", U, "PhD student")], []),
        ("With that came the KAIST presidential fellowship instead of BK21, so more money, less stress.",
         [("scholarship", U, "KAIST presidential fellowship")], []),
        ("Professor Seo took the whole lab out for samgyeopsal to celebrate.",
         [("advisor", R, "Professor Seo")], []),
        ("My roommate from the dorm days is in Gwangju now, doing her postdoc.",
         [], [("My roommate from the dorm days is in Gwangju now", "another person's move, and the past in passing")]),
        ("No tutoring since I quit in May, and I don't miss it at all.",
         [("part-time job", R, "none (quit tutoring)")], []),
        ("For Chuseok I'm going home to Busan, my mom's cooking, finally.",
         [("hometown", R, "Busan")], [("For Chuseok I'm going", "a trip, not a move")]),
    ]),
    ("2026-12-05T22:10:00Z", [
        ("Still in my one-room in Gung-dong, and the presidential fellowship makes the heating bill okay.",
         [("housing", R, "one-room in Gung-dong"), ("scholarship", R, "KAIST presidential fellowship")], []),
        ("Minho, my boyfriend, wants a trip to Jeju in spring. We'll see.",
         [("boyfriend", R, "Minho")], [("wants a trip to Jeju in spring", "a plan, not a move")]),
        ("Solid-state batteries are hard but I love them. Professor Seo says a PhD student needs patience first.",
         [("research topic", R, "solid-state batteries"), ("advisor", R, "Professor Seo"), ("degree", R, "PhD student")], []),
        ("Nothing beats tteokbokki after a failed experiment.",
         [("favourite food", R, "tteokbokki")], []),
        ("If the fellowship ever ends I'd have to tutor again, 무서워.",
         [], [("If the fellowship ever ends I'd have to tutor again", "a hypothetical")]),
        ("Dubu is sleeping on my laptop as I type this.",
         [("cat", R, "Dubu")], []),
    ]),
]


def build(desc, spec):
    sessions, facts, order, distractors = [], {}, [], []
    ack = 0
    last_ts = ""
    for si, (ts, users) in enumerate(spec, 1):
        assert ts > last_ts, ts
        last_ts = ts
        turns = []
        for text, events, dists in users:
            turns.append({"role": "user", "text": text})
            tno = len(turns)
            seen = set()
            for subj, action, value in events:
                assert subj not in seen, (si, tno, subj)
                seen.add(subj)
                f = facts.get(subj)
                if f is None:
                    assert action == A, (subj, action)
                    f = facts[subj] = {"subject": subj, "final": value, "history": [value], "events": []}
                    order.append(subj)
                else:
                    assert action != A, (subj, "second ADD")
                    if action == R:
                        assert value == f["final"], (subj, value, f["final"])
                    else:
                        assert action == U and value not in f["history"], (subj, value)
                        f["history"].append(value)
                        f["final"] = value
                f["events"].append({"session": si, "turn": tno, "action": action, "value": value})
            for snippet, note in dists:
                assert snippet in text, snippet
                distractors.append({"session": si, "turn": tno, "text": snippet, "note": note})
            turns.append({"role": "assistant", "text": ACKS[ack % len(ACKS)]})
            ack += 1
        sessions.append({"session": si, "timestamp": ts, "turns": turns})
    expected = [facts[s] for s in order]
    assert 6 <= len(sessions) <= 7 and 10 <= len(expected) <= 12
    nu = sum(1 for f in expected for e in f["events"] if e["action"] == U)
    nr = sum(1 for f in expected for e in f["events"] if e["action"] == R)
    for f in expected:
        u = sum(1 for e in f["events"] if e["action"] == U)
        r = sum(1 for e in f["events"] if e["action"] == R)
        assert u <= 2 and 1 <= r <= 3, (f["subject"], u, r)
    assert nu >= 6 and 13 <= nr <= 18 and len(distractors) >= 5, (nu, nr, len(distractors))
    return {"description": desc, "sessions": sessions, "expected": expected, "distractors": distractors}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, desc, spec in (("reconciliation_l.json", L_DESC, L), ("reconciliation_m.json", M_DESC, M)):
        data = build(desc, spec)
        with open(os.path.join(out, name), "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        nu = sum(1 for f in data["expected"] for e in f["events"] if e["action"] == U)
        nr = sum(1 for f in data["expected"] for e in f["events"] if e["action"] == R)
        print(name, "facts", len(data["expected"]), "UPDATE", nu, "REINFORCE", nr, "distractors", len(data["distractors"]))


if __name__ == "__main__":
    main()
