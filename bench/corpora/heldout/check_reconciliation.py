#!/usr/bin/env python3
"""Consistency checker for reconciliation corpora (reconciliation_*.json).

Usage: python3 check_reconciliation.py [file ...]   (default: reconciliation_f.json reconciliation_g.json)

Asserts, per file:
  * shape: exactly description / sessions / expected / distractors; 6-7 sessions numbered 1..n with
    increasing ISO timestamps; turns alternate user/assistant, users on odd (1-based) turns;
  * facts: 10-12 unique subjects; events in (session, turn) order, one ADD first, then only
    REINFORCE / UPDATE; a REINFORCE repeats the current value, an UPDATE gives a value never held
    before; history = distinct values in order (ADD + UPDATEs); final = last history value;
    at most one event per subject per turn;
  * counts: >= 6 UPDATE, 13-18 REINFORCE (about 15), >= 5 distractors;
  * every event and distractor points at a user turn; each event's turn text plausibly contains
    the value (one of the value's cue phrases, below); each distractor's text is a substring;
  * no secrets in any turn (e-mail addresses, phone numbers, long digit runs, password/PIN talk);
  * exhaustiveness: a user turn that mentions a cue of a subject but carries no event for it must
    carry a distractor or be whitelisted below with a reason.
Prints every event with its turn text for eyeballing.
"""
import json
import os
import re
import sys
from datetime import datetime

# value -> phrases, any of which (case-insensitive substring) makes the value "plausibly" present
VALUE_CUES = {
    # f
    "long-haul truck driver": ["otr", "long-haul", "trucking", "driving"],
    "dispatcher": ["dispatch"],
    "Red Mesa Freight": ["red mesa"],
    "I-10, El Paso to Houston": ["i-10"],
    "Panhandle board (Amarillo, Lubbock, Dalhart)": ["panhandle"],
    "DFW regional desk": ["dfw"],
    "Abilene": ["abilene"],
    "Fort Worth": ["fort worth"],
    "two weeks on the road, four days home": ["two weeks", "four days"],
    "night desk, 10 p.m. to 6 a.m., Sunday to Thursday": ["night desk", "10-to-6", "10 p.m."],
    "day desk, 6 a.m. to 2 p.m., Monday to Friday": ["6 to 2"],
    "2014 Ford F-150": ["f-150"],
    "2023 Chevrolet Silverado crew cab": ["silverado"],
    "Samsung Galaxy S21": ["galaxy s21", "s21"],
    "iPhone 15": ["iphone 15", "my 15"],
    "Rosa": ["rosa"],
    "two": ["two kids", "two children"],
    "three": ["three kids", "three children"],
    "keto": ["keto"],
    "bass fishing": ["bass", "fishing"],
    # g
    "Albert-Ludwigs-Universit\u00e4t Freiburg": ["albert-ludwigs"],
    "Charit\u00e9 \u2013 Universit\u00e4tsmedizin Berlin": ["charit\u00e9"],
    "Prof. Katrin Lehmann": ["lehmann"],
    "antibiotic resistance genes in soil bacteria": ["antibiotic resistance"],
    "phage therapy against Pseudomonas aeruginosa": ["phage"],
    "Freiburg": ["freiburg"],
    "Berlin": ["berlin"],
    "shared flat (WG) with two flatmates": ["wg ", "mitbewohner"],
    "own one-room flat (1-Zimmer-Wohnung), living alone": ["1-zimmer", "living alone"],
    "A2": ["a2"],
    "B1": ["b1"],
    "Spanish": ["spanish"],
    "DAAD scholarship": ["daad"],
    "TV-L E13 65% contract": ["tv-l"],
    "student residence permit (\u00a716b)": ["\u00a716b"],
    "research residence permit (\u00a718d)": ["\u00a718d"],
    "Ultimate Frisbee": ["ultimate"],
    "September 2027": ["september 2027"],
    "March 2028": ["march 2028"],
}

# subject -> extra words whose mention in a user turn should come with an event or a distractor
SUBJECT_CUES = {
    "job role": ["driv", "dispatch", "trucker", "otr"],
    "employer": ["red mesa", "company"],
    "route / lanes": ["i-10", "panhandle", "dfw", "lane"],
    "home city": ["abilene", "fort worth", "houston", "moved", "moving"],
    "work schedule": ["desk", "nights", "shift", "two weeks", "6 to 2", "10-to-6"],
    "vehicle": ["f-150", "silverado", "pickup", "tundra", "crew cab"],
    "phone": ["phone", "samsung", "galaxy", "iphone", "android", "s21"],
    "spouse's name": ["rosa", "wife"],
    "number of children": ["kids", "children", "baby"],
    "diet": ["keto", "carb", "vegetarian", "vegan"],
    "hobby": ["fishing", "bass", "boat", "hobby", "on the water"],
    "university / institution": ["universit", "charit\u00e9", "uni "],
    "supervisor": ["lehmann", "doktormutter", "supervisor", "prof."],
    "thesis topic": ["thesis", "phage", "soil", "resistance"],
    "city": ["freiburg", "berlin", "copenhagen", "moved", "moving"],
    "living arrangement": ["wg", "mitbewohner", "flat", "zimmer", "living alone"],
    "German course level": ["a2", "b1", "b2", "deutschkurs", "vhs"],
    "first language": ["spanish", "first language", "native"],
    "funding": ["daad", "stipend", "contract", "tv-l", "scholarship"],
    "residence status": ["\u00a7", "aufenthalt", "permit", "ausl\u00e4nderbeh\u00f6rde"],
    "sport": ["ultimate", "bouldering", "rowing", "frisbee"],
    "planned thesis submission": ["2027", "2028", "abgabe", "hand in", "submit"],
}

# (file basename, session, turn, subject) -> why a cue mention there is deliberately not an event
WHITELIST = {
    ("reconciliation_f.json", 1, 1, "home city"): "Houston is a route endpoint, not home",
    ("reconciliation_f.json", 1, 1, "phone"): "'on my phone': setting the assistant up, no model named",
    ("reconciliation_f.json", 1, 9, "job role"): "'trucker apps' presupposes the job, does not state it",
    ("reconciliation_f.json", 3, 1, "employer"): "'the company' names no employer (value not stated)",
    ("reconciliation_f.json", 3, 1, "home city"): "'moved me into the office' is the job change",
    ("reconciliation_f.json", 3, 3, "job role"): "'Coffee's my new co-driver' is a joke",
    ("reconciliation_f.json", 3, 7, "number of children"): "'the kids', no number stated",
    ("reconciliation_f.json", 4, 9, "number of children"): "'since the baby came', no number stated",
    ("reconciliation_f.json", 5, 1, "home city"): "'moved me to the day desk' is the schedule change",
    ("reconciliation_f.json", 6, 3, "work schedule"): "'DFW regional desk' is the lane, not hours",
    ("reconciliation_f.json", 6, 11, "employer"): "'the company' in a hypothetical, names nothing",
    ("reconciliation_f.json", 7, 1, "number of children"): "'the kids', no number stated",
}

SECRET_PATTERNS = [
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+"), "e-mail address"),
    (re.compile(r"\+?\d[\d ()./-]{8,}\d"), "phone-like number"),
    (re.compile(r"\d{9,}"), "long digit run"),
    (re.compile(r"\b(password|passwort|pin code|pin is|iban|ssn|social security|card number)\b",
                re.I), "secret talk"),
]


def cues_for_value(value):
    if value in VALUE_CUES:
        return VALUE_CUES[value]
    return [w.lower() for w in re.findall(r"[\w\u00c0-\u024f'-]{4,}", value)]


def check(path):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    fails = []

    def req(cond, msg):
        if not cond:
            fails.append(msg)
        return cond

    req(set(doc) == {"description", "sessions", "expected", "distractors"},
        f"top-level keys {sorted(doc)}")
    sessions = doc["sessions"]
    req(6 <= len(sessions) <= 7, f"{len(sessions)} sessions")
    turns = {}
    prev_ts = None
    for i, s in enumerate(sessions, 1):
        req(set(s) == {"session", "timestamp", "turns"}, f"session {i} keys {sorted(s)}")
        req(s["session"] == i, f"session numbered {s['session']} at position {i}")
        ts = datetime.fromisoformat(s["timestamp"].replace("Z", "+00:00"))
        req(prev_ts is None or ts > prev_ts, f"session {i} timestamp not increasing")
        prev_ts = ts
        for j, t in enumerate(s["turns"], 1):
            req(set(t) == {"role", "text"}, f"s{i}t{j} keys {sorted(t)}")
            req(t["role"] == ("user" if j % 2 else "assistant"), f"s{i}t{j} role {t['role']}")
            req(t["text"].strip() != "", f"s{i}t{j} empty")
            turns[(i, j)] = t
            for pat, what in SECRET_PATTERNS:
                m = pat.search(t["text"])
                req(not m, f"s{i}t{j} contains {what}: {m.group(0) if m else ''}")

    def user_turn(sess, turn, what):
        t = turns.get((sess, turn))
        if req(t is not None, f"{what}: no turn s{sess}t{turn}"):
            req(t["role"] == "user" and turn % 2 == 1, f"{what}: s{sess}t{turn} is not a user turn")
        return t

    expected = doc["expected"]
    req(10 <= len(expected) <= 12, f"{len(expected)} facts")
    subjects = [f["subject"] for f in expected]
    req(len(set(subjects)) == len(subjects), "duplicate subjects")
    counts = {"ADD": 0, "UPDATE": 0, "REINFORCE": 0}
    events_at = {}  # (session, turn) -> set of subjects
    print(f"\n===== {name}: events with their turn text =====")
    for f in expected:
        req(set(f) == {"subject", "final", "history", "events"}, f"{f.get('subject')} keys")
        ev = f["events"]
        print(f"\n--- {f['subject']}: {' -> '.join(f['history'])}")
        req(len(ev) >= 1 and ev[0]["action"] == "ADD", f"{f['subject']}: first event not ADD")
        hist, cur, last = [], None, (0, 0)
        for e in ev:
            req(set(e) == {"session", "turn", "action", "value"}, f"{f['subject']} event keys")
            pos = (e["session"], e["turn"])
            req(pos > last, f"{f['subject']}: events out of order / two on one turn at {pos}")
            last = pos
            counts[e["action"]] = counts.get(e["action"], 0) + 1
            a = e["action"]
            if a == "ADD":
                req(cur is None, f"{f['subject']}: second ADD at {pos}")
            elif a == "REINFORCE":
                req(e["value"] == cur, f"{f['subject']}: REINFORCE {e['value']!r} != current {cur!r}")
            elif a == "UPDATE":
                req(cur is not None and e["value"] != cur, f"{f['subject']}: UPDATE to same value")
                req(e["value"] not in hist, f"{f['subject']}: UPDATE back to an old value")
            else:
                req(False, f"{f['subject']}: unknown action {a}")
            if a in ("ADD", "UPDATE"):
                hist.append(e["value"])
                cur = e["value"]
            t = user_turn(e["session"], e["turn"], f"{f['subject']} {a}")
            events_at.setdefault(pos, set()).add(f["subject"])
            if t:
                cues = cues_for_value(e["value"])
                ok = any(c in t["text"].lower() for c in cues)
                req(ok, f"{f['subject']} s{pos[0]}t{pos[1]}: none of {cues} in turn text")
                print(f"  s{pos[0]}t{pos[1]:<2} {a:<9} {e['value']!r}{'' if ok else '  <-- ??'}\n"
                      f"             | {t['text']}")
        req(f["history"] == hist, f"{f['subject']}: history {f['history']} != {hist}")
        req(f["final"] == (hist[-1] if hist else None), f"{f['subject']}: final != last history")

    dis_at = {}
    print(f"\n===== {name}: distractors =====")
    for d in doc["distractors"]:
        req(set(d) == {"session", "turn", "text", "note"}, f"distractor keys {sorted(d)}")
        t = user_turn(d["session"], d["turn"], "distractor")
        if t:
            req(d["text"].lower() in t["text"].lower(),
                f"distractor s{d['session']}t{d['turn']}: text not in turn")
        req(d["note"].strip() != "", "distractor without note")
        dis_at.setdefault((d["session"], d["turn"]), []).append(d)
        print(f"  s{d['session']}t{d['turn']:<2} {d['text']!r}\n             -> {d['note']}")

    req(counts["UPDATE"] >= 6, f"only {counts['UPDATE']} UPDATE")
    req(13 <= counts["REINFORCE"] <= 18, f"{counts['REINFORCE']} REINFORCE (want about 15)")
    req(len(doc["distractors"]) >= 5, f"only {len(doc['distractors'])} distractors")

    # exhaustiveness scan
    print(f"\n===== {name}: cue mentions without an event (need a distractor or a whitelist) =====")
    used_wl = set()
    for (si, ti), t in sorted(turns.items()):
        if t["role"] != "user":
            continue
        low = t["text"].lower()
        for subj in subjects:
            if subj in events_at.get((si, ti), set()):
                continue
            cues = set(SUBJECT_CUES.get(subj, []))
            for v in next(f for f in expected if f["subject"] == subj)["history"]:
                cues.update(cues_for_value(v))
            hit = sorted(c for c in cues if re.search(r"(?<![a-z0-9])" + re.escape(c), low))
            if not hit:
                continue
            key = (name, si, ti, subj)
            if key in WHITELIST:
                used_wl.add(key)
                how = "whitelist: " + WHITELIST[key]
            elif (si, ti) in dis_at:
                how = "distractor: " + "; ".join(d["text"] for d in dis_at[(si, ti)])
            else:
                how = None
            print(f"  s{si}t{ti:<2} {subj:<26} {hit}  {how or '<-- UNLABELLED'}")
            req(how is not None, f"s{si}t{ti}: mentions {subj} {hit} with no event/distractor")
    for key in WHITELIST:
        if key[0] == name and key not in used_wl:
            print(f"  (unused whitelist entry {key})")

    n_user = sum(1 for t in turns.values() if t["role"] == "user")
    bare = sorted(k for k, t in turns.items()
                  if t["role"] == "user" and k not in events_at and k not in dis_at)
    print(f"\n{name}: {len(sessions)} sessions, {len(turns)} turns ({n_user} user), "
          f"{len(expected)} facts, ADD {counts['ADD']}, UPDATE {counts['UPDATE']}, "
          f"REINFORCE {counts['REINFORCE']}, {len(doc['distractors'])} distractors; "
          f"user turns with neither (small talk): {['s%dt%d' % k for k in bare]}")
    return fails


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    paths = argv or [os.path.join(here, n) for n in ("reconciliation_f.json", "reconciliation_g.json")]
    all_fails = {}
    for p in paths:
        fails = check(p)
        if fails:
            all_fails[p] = fails
    print()
    if all_fails:
        for p, fails in all_fails.items():
            for m in fails:
                print(f"FAIL {os.path.basename(p)}: {m}")
        sys.exit(1)
    print("OK: all checks passed for", ", ".join(os.path.basename(p) for p in paths))


if __name__ == "__main__":
    main(sys.argv[1:])
