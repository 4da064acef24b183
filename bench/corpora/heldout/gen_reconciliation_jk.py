#!/usr/bin/env python3
"""Generate reconciliation_j.json and reconciliation_k.json (held-out reconciliation corpora).

Hand-written conversations. Every user turn carries its tags: a list of (subject, action, value)
events and a list of (distractor snippet, note). `expected` and `distractors` are built from the
tags only, so every statement of a fact that the writer labelled is counted. Standard library
only, deterministic: `python3 gen_reconciliation_jk.py [OUTPUT_DIR]` (default: this folder).
"""
import json
import os
import sys
from datetime import datetime

A, U, R = "ADD", "UPDATE", "REINFORCE"

DESCRIPTION = (
    "Scripted multi-session conversation for fact reconciliation (ADD / REINFORCE / UPDATE). "
    "Turn numbers are 1-based within a session."
)

# ---------------------------------------------------------------------------------------------
# j: Larissa, a Brazilian cook from Belo Horizonte working in Lisbon restaurant kitchens.
#    English with (Brazilian) Portuguese words.
# ---------------------------------------------------------------------------------------------
J = [
    ("2026-01-12T22:41:00Z", [
        ("u", "Olá! My name is Larissa, I'm a cook from Belo Horizonte, two years in Lisbon now. "
              "I work as chef de partie on the grill at Tasca do Becco, in Príncipe Real.",
         [("hometown", A, "Belo Horizonte"), ("job role", A, "chef de partie"),
          ("employer", A, "Tasca do Becco")], []),
        ("a", "Olá Larissa, nice to meet you! Grill station at Tasca do Becco sounds intense. How can I help?"),
        ("u", "I rent a room in Arroios, close to the Mercado de Arroios, with two Brazilian guys. "
              "Small, but the rent is ok for Lisbon, né.",
         [("neighbourhood", A, "Arroios")], []),
        ("a", "Got it, a shared room in Arroios. Lisbon rents are brutal, so that sounds like a good deal."),
        ("u", "My folga is Monday and Tuesday, so all the boring papers I try to put on those days.",
         [("days off", A, "Monday and Tuesday")], []),
        ("a", "Noted: Monday and Tuesday off. I can help you plan errands for those days."),
        ("u", "Papers like AIMA, ai ai ai. My residence permit is still pending, I wait for the "
              "appointment since last year. I only have the manifestação de interesse receipt.",
         [("residence permit", A, "pending at AIMA")], []),
        ("a", "That wait is frustrating. I'll keep in mind that your residence permit is still pending at AIMA."),
        ("u", "One important thing for recipes you suggest: I'm allergic to cashew nuts. Funny for a "
              "Brazilian, I know, caju is everywhere back home.",
         [("allergy", A, "cashew nuts")], []),
        ("a", "Important, thank you. I'll never suggest anything with cashew nuts or cashew oil."),
        ("u", "Obrigada! Tchau, service starts in ten minutes.", [], []),
        ("a", "Boa sorte with the service, Larissa!"),
    ]),
    ("2026-02-09T16:05:00Z", [
        ("u", "Oi! I told you wrong last time: my days off are Sunday and Monday, not Monday and "
              "Tuesday. Tuesday is prep for the tasting menu, I confused it with my old schedule.",
         [("days off", U, "Sunday and Monday")], []),
        ("a", "Thanks for the correction: Sundays and Mondays off, Tuesday is prep day."),
        ("u", "On Saturdays, before dinner service, I sell pão de queijo at a little stall in LX "
              "Factory. My own small business, with my mãe's recipe.",
         [("side business", A, "pão de queijo stall at LX Factory")], []),
        ("a", "A pão de queijo stall at LX Factory! That must be popular. Do you bake them the same morning?"),
        ("u", "Yes, I wake up at six. My girlfriend Inês says I work too much. She's Portuguese, from "
              "Braga, and she makes fun of my accent every day.",
         [("partner", A, "Inês")],
         [("She's Portuguese, from Braga", "the girlfriend's origin, NOT the user's hometown")]),
        ("a", "Inês sounds fun. Braga vs Belo Horizonte accents must make for good arguments."),
        ("u", "Also, I smoke, sim, I know, a cook who smokes. Half a pack a day in the breaks, "
              "behind the kitchen door.",
         [("smoking", A, "smoker, half a pack a day")], []),
        ("a", "No judgment here. If you ever want help cutting down, just say so."),
        ("u", "Last night I watched the Galo game at a Brazilian bar here in the bairro, 2-0 against "
              "Cruzeiro! Atlético Mineiro forever, nossa, what a night.",
         [("football team", A, "Atlético Mineiro")], []),
        ("a", "Parabéns, a clássico win over Cruzeiro is the best kind!"),
    ]),
    ("2026-03-23T15:30:00Z", [
        ("u", "Boa notícia! Chef Rui promoted me to sous-chef at Tasca do Becco, starting this week. "
              "More money, more headache, hahaha.",
         [("job role", U, "sous-chef"), ("employer", R, "Tasca do Becco")], []),
        ("a", "Parabéns, Larissa! Sous-chef is a big step. What changes day to day?"),
        ("u", "Now I do the orders and the rota too. My days off stay Sunday and Monday, graças a Deus.",
         [("days off", R, "Sunday and Monday")], []),
        ("a", "Good that your Sundays and Mondays stay free. Ordering and rota work is a lot on top of service."),
        ("u", "Our pastry chef Beatriz is leaving to open her own place in Porto. If I had the money "
              "I would do the same, sinceramente.",
         [],
         [("Our pastry chef Beatriz is leaving to open her own place in Porto",
           "a colleague's job and city, NOT the user's employer or neighbourhood"),
          ("If I had the money I would do the same", "hypothetical, no change to employer or role")]),
        ("a", "That's a brave move for Beatriz. Maybe one day for you too."),
        ("u", "The pão de queijo stall had a line on Saturday, sold everything before three. Two "
              "hundred pieces!",
         [("side business", R, "pão de queijo stall at LX Factory")], []),
        ("a", "Two hundred pieces, impressive! Maybe it's time to bake more."),
        ("u", "Question: because of my cashew allergy, can you give me a moqueca recipe that is "
              "completely safe? Some Bahian recipes put castanha de caju in the farofa.",
         [("allergy", R, "cashew nuts")], []),
        ("a", "Of course. Here's a moqueca with a plain manioc farofa, no nuts at all: ..."),
    ]),
    ("2026-05-11T10:12:00Z", [
        ("u", "Big news, gente: I left Tasca do Becco. Since the first of May I'm the sous-chef at "
              "Mesa Aberta, the new restaurant in Campo de Ourique.",
         [("employer", U, "Mesa Aberta"), ("job role", R, "sous-chef")],
         [("the new restaurant in Campo de Ourique",
           "where the new restaurant is; her own move is reported only in the next turn")]),
        ("a", "Wow, a new kitchen! Mesa Aberta has great reviews already. How is the team?"),
        ("u", "The team is young and good. And I moved too! No more shared room in Arroios, I found "
              "a T1 in Campo de Ourique, ten minutes walking to work. Finally my own place.",
         [("neighbourhood", U, "Campo de Ourique")], []),
        ("a", "Your own T1 in Campo de Ourique, close to work, that's a big upgrade."),
        ("u", "At Mesa Aberta we close Tuesday and Wednesday, so those are my days off now. Sunday "
              "I work, the brunch is crazy.",
         [("days off", U, "Tuesday and Wednesday"), ("employer", R, "Mesa Aberta")], []),
        ("a", "Noted: days off are now Tuesdays and Wednesdays, and Sunday brunch is on."),
        ("u", "Because of that, the pão de queijo stall at LX Factory on Saturdays is harder, I do it "
              "alone before the evening shift.",
         [("side business", R, "pão de queijo stall at LX Factory")], []),
        ("a", "That's a long Saturday. Let me know if you want a prep plan to make it lighter."),
        ("u", "And AIMA finally wrote to me! The appointment is in July. Cross your fingers for me.",
         [],
         [("The appointment is in July",
           "an appointment is scheduled; the residence permit is still pending, NOT received")]),
        ("a", "Fingers crossed! Do you want a checklist of documents to bring?"),
    ]),
    ("2026-07-20T09:48:00Z", [
        ("u", "Larissa here, writing from my T1 in Campo de Ourique with a galão. The AIMA "
              "appointment went well, and yesterday the residence card came in the post! Two "
              "years of autorização de residência. I cried, sério.",
         [("neighbourhood", R, "Campo de Ourique"),
          ("residence permit", U, "residence card received")], []),
        ("a", "Que maravilha! Congratulations on the residence card, that's a huge weight off."),
        ("u", "Now with the card I can finally fly home to Belo Horizonte for a visit without fear "
              "of not getting back in. Maybe in December, for my mãe's birthday.",
         [("hometown", R, "Belo Horizonte")],
         [("Maybe in December, for my mãe's birthday",
           "a possible trip, not booked; no change to where she lives")]),
        ("a", "A December visit to your mother sounds perfect. Want me to watch flight prices?"),
        ("u", "Another thing: I quit smoking. Three weeks today without a cigarette. The patches "
              "help, and my palate is coming back, the tasting is different.",
         [("smoking", U, "none (quit smoking)")], []),
        ("a", "Three weeks, that's fantastic! And a better palate is a great bonus for a sous-chef."),
        ("u", "My girlfriend Inês is so proud. She promised me dinner at Belcanto if I reach three "
              "months, hahaha.",
         [("partner", R, "Inês")], []),
        ("a", "That's a very good motivation. Belcanto at three months, deal!"),
        ("u", "Do you think I should open a second stall, at the Mercado de Campo de Ourique? Or is "
              "it too much?",
         [],
         [("Do you think I should open a second stall",
           "a question about a possible second stall; the business does not change"),
          ("at the Mercado de Campo de Ourique",
           "where a possible stall would be, NOT a restatement of where she lives")]),
        ("a", "With your hours I'd be careful. Maybe test demand with pre-orders first?"),
    ]),
    ("2026-09-07T17:20:00Z", [
        ("u", "Oi! Summer was insane, full every night with tourists. I'm destroyed but happy.", [], []),
        ("a", "Sounds like a huge season. I hope you get some rest now."),
        ("u", "I closed the pão de queijo stall. Six days in the kitchen plus Saturday morning at LX "
              "Factory was killing me. I gave the spot to a friend from Goiás.",
         [("side business", U, "none (closed the stall)")],
         [("I gave the spot to a friend from Goiás",
           "someone else now runs a stall there; the user's business is closed")]),
        ("a", "That sounds like the right call for your health. Your friend is lucky to get the spot."),
        ("u", "Galo is terrible this season, I don't even want to talk about it. But Atlético Mineiro "
              "until I die.",
         [("football team", R, "Atlético Mineiro")], []),
        ("a", "Loyal fan through the bad seasons, respect."),
        ("u", "My brother in BH called and asked if I still smoke. He smokes two packs a day, coitado. "
              "I told him I quit in June and haven't touched a cigarette since.",
         [("smoking", R, "none (quit smoking)")],
         [("He smokes two packs a day", "the brother's habit, NOT the user's")]),
        ("a", "Almost three months, amazing. Maybe you'll inspire him."),
        ("u", "Back in Arroios I shared a bathroom with two guys and a cat, I don't miss it at all.",
         [],
         [("Back in Arroios I shared a bathroom with two guys and a cat",
           "past-tense story; does NOT restate or bring back the old neighbourhood")]),
        ("a", "Ha, I can imagine. Your own place must feel like luxury."),
        ("u", "About the days off: still Tuesday and Wednesday. Tuesday for the market, Wednesday to sleep.",
         [("days off", R, "Tuesday and Wednesday")], []),
        ("a", "A good split. Market Tuesdays, sleep Wednesdays."),
    ]),
    ("2026-10-26T11:02:00Z", [
        ("u", "Olá! My girlfriend Inês and I are thinking about living together, maybe in her flat in "
              "Alvalade next year. Nothing decided.",
         [("partner", R, "Inês")],
         [("maybe in her flat in Alvalade next year. Nothing decided",
           "an undecided plan; the user still lives in Campo de Ourique")]),
        ("a", "Exciting! Take your time deciding. Alvalade is nice and calm."),
        ("u", "Chef Rui, my old boss from Tasca do Becco, came to eat with us last week. He said I'm a "
              "better sous-chef than he ever was, what a liar, hahaha.",
         [("job role", R, "sous-chef")],
         [("my old boss from Tasca do Becco", "the former employer, mentioned in the past; NOT a change back")]),
        ("a", "That's high praise from your old boss!"),
        ("u", "With the residence card in my wallet, I'm thinking about asking for Portuguese "
              "nationality in a few years.",
         [("residence permit", R, "residence card received")],
         [("thinking about asking for Portuguese nationality in a few years",
           "an intention, no change to the permit")]),
        ("a", "That's a good long-term plan. I can look up the requirements when you're ready."),
        ("u", "Recipe help again: feijoada for forty people, for the staff party. And remember, no "
              "cashew anywhere near my plate, the allergy is serious.",
         [("allergy", R, "cashew nuts")], []),
        ("a", "Of course. Feijoada for forty, nut-free, and a caipirinha station without cashew fruit."),
        ("u", "Obrigada por tudo, até a próxima!", [], []),
        ("a", "De nada, Larissa, até a próxima!"),
    ]),
]

# ---------------------------------------------------------------------------------------------
# k: Mathieu, an electrician from Chicoutimi, working in Laval, later Sherbrooke (Québec).
#    English with Québécois French.
# ---------------------------------------------------------------------------------------------
K = [
    ("2026-01-26T23:10:00Z", [
        ("u", "Salut! Mathieu here. I'm an apprentice electrician, third period, and I work for "
              "Électro-Laurentides in Laval. Mostly commercial jobs, some condos.",
         [("trade status", A, "third-period apprentice"), ("employer", A, "Électro-Laurentides"),
          ("city", A, "Laval")], []),
        ("a", "Salut Mathieu! Third-period apprentice at Électro-Laurentides, got it. How can I help?"),
        ("u", "I'm from Chicoutimi originally, I came down for the job. My English is not perfect, "
              "sorry, I learned it on the chantiers.",
         [("hometown", A, "Chicoutimi")], []),
        ("a", "Your English is great. Chicoutimi to Laval is a big change!"),
        ("u", "Ma blonde Émilie and me, we have a little girl, Rosalie, she's four. And a big husky, "
              "Nanook, who sheds all over the place.",
         [("partner", A, "Émilie"), ("daughter", A, "Rosalie"), ("dog", A, "Nanook, a husky")], []),
        ("a", "Émilie, Rosalie and Nanook, lovely family. Huskies really do shed everywhere."),
        ("u", "Every morning it's the F-150 to the job site and a medium double-double at the Tim's "
              "on the way. Non-negotiable, hein.",
         [("truck", A, "Ford F-150"), ("coffee", A, "medium double-double")], []),
        ("a", "A classic morning routine: F-150 and a double-double."),
        ("u", "Wednesday nights is beer league hockey at the aréna, I play defence. Best night of "
              "the week.",
         [("hockey", A, "beer league, Wednesday nights")], []),
        ("a", "Nice! Defence in beer league, I'll remember Wednesdays are hockey nights."),
        ("u", "Merci, bonne soirée!", [], []),
        ("a", "Bonne soirée, Mathieu!"),
    ]),
    ("2026-03-02T21:35:00Z", [
        ("u", "Petite correction: Nanook is not a husky, he's a malamute. Everybody mixes them up, "
              "me too when I'm tired, but his papers say Alaskan malamute.",
         [("dog", U, "Nanook, a malamute")], []),
        ("a", "Thanks, noted: Nanook is an Alaskan malamute."),
        ("u", "Big weekend: we took the Ski-Doo up to the chalet at Lac-Saint-Jean. My daughter "
              "Rosalie loved the little sled behind it.",
         [("snowmobile", A, "Ski-Doo"), ("daughter", R, "Rosalie")], []),
        ("a", "Sounds like a perfect weekend at the chalet!"),
        ("u", "My buddy Steve wants me to do the compagnon exam with him in the spring. I'm not sure "
              "I'm ready, I still have hours to finish.",
         [],
         [("My buddy Steve wants me to do the compagnon exam with him in the spring",
           "a suggested exam, not taken; the user is still an apprentice")]),
        ("a", "You can decide once your hours are done. I can help you study if you want."),
        ("u", "Électro-Laurentides gave me a small raise, still apprentice pay but c'est correct.",
         [("employer", R, "Électro-Laurentides"), ("trade status", R, "third-period apprentice")], []),
        ("a", "A raise is always good news."),
        ("u", "Question: if I move to the Eastern Townships one day, is there a lot of electrical "
              "work out there? Just curious.",
         [],
         [("if I move to the Eastern Townships one day",
           "a hypothetical question; the city does not change")]),
        ("a", "Yes, there's steady residential and industrial work there, especially around Sherbrooke."),
    ]),
    ("2026-05-18T20:02:00Z", [
        ("u", "I PASSED! Examen de qualification, I'm a compagnon now, journeyman electrician, "
              "officially. Ma blonde Émilie made a cake shaped like a breaker panel, she's crazy.",
         [("trade status", U, "journeyman electrician"), ("partner", R, "Émilie")], []),
        ("a", "Félicitations, Mathieu! Journeyman electrician, and a breaker-panel cake, amazing."),
        ("u", "Bad news too: I tore my ACL at hockey in April. Surgery is done, and the doctor says "
              "no more contact sports, so I quit the beer league. Calvaire. At least the Ski-Doo "
              "doesn't need knees, hahaha.",
         [("hockey", U, "none (quit, knee injury)"), ("snowmobile", R, "Ski-Doo")], []),
        ("a", "Ouch, I'm sorry. Take care of that knee."),
        ("u", "After the surgery I also cut the sugar. No more double-double, it's black coffee now, "
              "even at Tim's.",
         [("coffee", U, "black coffee")], []),
        ("a", "Black coffee at Tim's, that's real commitment."),
        ("u", "Still at Électro-Laurentides, but now as a journeyman I run my own small jobs with an "
              "apprentice under me.",
         [("trade status", R, "journeyman electrician"), ("employer", R, "Électro-Laurentides")], []),
        ("a", "Running your own jobs already, nice."),
        ("u", "We're talking about leaving Laval, the rent is crazy. My blonde's parents are in "
              "Sherbrooke, so maybe there. Nothing signed yet.",
         [],
         [("We're talking about leaving Laval", "an undecided plan; the user still lives in Laval"),
          ("My blonde's parents are in Sherbrooke", "other people's city")]),
        ("a", "That could make sense with family nearby. Want me to compare rents?"),
    ]),
    ("2026-07-13T14:25:00Z", [
        ("u", "Salut from Sherbrooke! We did it, we moved at the start of July. Le 1er juillet, "
              "moving day, the whole province moves the same day, it was chaos.",
         [("city", U, "Sherbrooke")], []),
        ("a", "Welcome to Sherbrooke! Moving day in Québec is legendary chaos."),
        ("u", "I left Électro-Laurentides, too far now. Since Monday I work for Roy Électrique here, "
              "a family company, residential mostly.",
         [("employer", U, "Roy Électrique")], []),
        ("a", "A new job at Roy Électrique, residential work. How's the team?"),
        ("u", "Nanook loves the new backyard. A big malamute like him needs space, not a balcony in Laval.",
         [("dog", R, "Nanook, a malamute")],
         [("not a balcony in Laval", "past home mentioned in contrast; NOT a move back")]),
        ("a", "A backyard for a malamute, he must be thrilled."),
        ("u", "My brother Kevin just left for Fort McMurray, electrician in the oil sands. Big money, "
              "but no thanks, I stay in Québec.",
         [],
         [("My brother Kevin just left for Fort McMurray, electrician in the oil sands",
           "the brother's city and job, NOT the user's")]),
        ("a", "Fort McMurray is a big change. Good for him, and good that you're happy where you are."),
        ("u", "My daughter Rosalie starts maternelle in August, here in Sherbrooke, near the house. "
              "She's already excited.",
         [("daughter", R, "Rosalie"), ("city", R, "Sherbrooke")], []),
        ("a", "Maternelle already! I hope she loves it."),
    ]),
    ("2026-09-21T19:40:00Z", [
        ("u", "Bonjour! Two months in the new job already. Denis gives me the big renovation jobs, "
              "so I guess he's happy with me.", [], []),
        ("a", "Getting the big renovations is a good sign!"),
        ("u", "I sold the Ski-Doo. With the knee and the new house, we need the money more than the "
              "sled. A guy from Magog bought it.",
         [("snowmobile", U, "none (sold the Ski-Doo)")],
         [("A guy from Magog bought it", "the buyer now owns it; the user has no snowmobile")]),
        ("a", "Makes sense with the house. Maybe another one later."),
        ("u", "Ma blonde Émilie and I are thinking of getting married next summer, maybe at the "
              "chalet. Nothing official, no ring yet, don't tell anyone, hahaha.",
         [("partner", R, "Émilie")],
         [("thinking of getting married next summer", "a plan not made; the relationship does not change")]),
        ("a", "Your secret is safe with me. A chalet wedding sounds beautiful."),
        ("u", "Still black coffee every morning, I don't even like the double-double anymore. Four "
              "months without sugar in the coffee!",
         [("coffee", R, "black coffee")], []),
        ("a", "Four months, well done!"),
        ("u", "Do you think I should buy a RAM 1500 to replace the F-150? It has almost three hundred "
              "thousand km. I'm not decided.",
         [("truck", R, "Ford F-150")],
         [("Do you think I should buy a RAM 1500", "a question about a possible purchase; the truck does not change")]),
        ("a", "At that mileage it depends on repairs. Let's compare costs."),
        ("u", "Next month we go up to Chicoutimi for l'Action de grâce, back to my hometown to see "
              "my parents.",
         [("hometown", R, "Chicoutimi")],
         [("Next month we go up to Chicoutimi", "a trip; no change to where he lives")]),
        ("a", "Enjoy Thanksgiving with your parents up north!"),
    ]),
    ("2026-11-16T12:15:00Z", [
        ("u", "Salut! First snow today, the little one was outside in her habit de neige at six "
              "in the morning.", [], []),
        ("a", "First snow! Sounds like she loved it."),
        ("u", "I kept the F-150 finally. New tires and it's good for another winter, pas pire.",
         [("truck", R, "Ford F-150")], []),
        ("a", "Good choice, new tires make a big difference."),
        ("u", "No hockey for me this winter either, the knee is better but I quit the beer league "
              "for good. I coach skating for the kids on Saturdays instead.",
         [("hockey", R, "none (quit, knee injury)")], []),
        ("a", "Coaching the kids sounds like a great way to stay on the ice."),
        ("u", "Électro-Laurentides called to ask if I want to come back as foreman in Laval. I said "
              "non merci, Roy Électrique treats me well.",
         [("employer", R, "Roy Électrique")],
         [("Électro-Laurentides called to ask if I want to come back as foreman in Laval",
           "an offer declined; neither the employer nor the city changes")]),
        ("a", "It's nice to be wanted, and nicer to be happy where you are."),
        ("u", "One day I want my maître électricien licence and my own company. Not before the "
              "little one is bigger.",
         [],
         [("One day I want my maître électricien licence and my own company",
           "an intention; trade status stays journeyman, employer unchanged")]),
        ("a", "A good long-term goal. I can help you plan for the RBQ exam when the time comes."),
        ("u", "Bonne soirée!", [], []),
        ("a", "Bonne soirée, Mathieu!"),
    ]),
]


def build(convo):
    sessions, facts, order, distractors = [], {}, [], []
    last_ts = None
    for s_idx, (ts, items) in enumerate(convo, start=1):
        t = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")
        assert last_ts is None or t > last_ts, ts
        last_ts = t
        turns = []
        for t_idx, item in enumerate(items, start=1):
            role = item[0]
            assert role == ("u" if t_idx % 2 else "a"), (s_idx, t_idx)
            if role == "a":
                turns.append({"role": "assistant", "text": item[1]})
                continue
            _, text, events, dis = item
            turns.append({"role": "user", "text": text})
            seen = set()
            for subj, action, value in events:
                assert subj not in seen, (s_idx, t_idx, subj)
                seen.add(subj)
                f = facts.get(subj)
                if action == A:
                    assert f is None, ("second ADD", subj)
                    f = facts[subj] = {"subject": subj, "history": [value], "events": []}
                    order.append(subj)
                elif action == R:
                    assert f is not None and f["history"][-1] == value, ("bad REINFORCE", subj, value)
                else:
                    assert f is not None and value not in f["history"], ("bad UPDATE", subj, value)
                    f["history"].append(value)
                f["events"].append({"session": s_idx, "turn": t_idx, "action": action, "value": value})
            for snippet, note in dis:
                assert snippet in text, snippet
                distractors.append({"session": s_idx, "turn": t_idx, "text": snippet, "note": note})
        sessions.append({"session": s_idx, "timestamp": ts, "turns": turns})
    expected = []
    for subj in order:
        f = facts[subj]
        n_u = sum(e["action"] == U for e in f["events"])
        n_r = sum(e["action"] == R for e in f["events"])
        assert n_u <= 2 and 1 <= n_r <= 3, (subj, n_u, n_r)
        expected.append({"subject": subj, "final": f["history"][-1], "history": f["history"],
                         "events": f["events"]})
    assert 10 <= len(expected) <= 12
    assert 6 <= len(sessions) <= 7
    return {"description": DESCRIPTION, "sessions": sessions, "expected": expected,
            "distractors": distractors}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, convo in (("reconciliation_j.json", J), ("reconciliation_k.json", K)):
        doc = build(convo)
        with open(os.path.join(out, name), "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        ev = [e for f in doc["expected"] for e in f["events"]]
        print(name, "facts", len(doc["expected"]),
              {a: sum(e["action"] == a for e in ev) for a in (A, U, R)},
              "distractors", len(doc["distractors"]))


if __name__ == "__main__":
    main()
