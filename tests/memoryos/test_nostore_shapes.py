"""Shapes of the no-store rule added for the independent corpus' second set, and their neighbours.

Each positive names the family that must cover the value; each near miss is a note that must stay
accepted. The values were written for these tests, not copied from any corpus.
"""

from __future__ import annotations

import re

import pytest

from memoryos.policies.nostore import scan
from memoryos.policies.nostore_entropy import dotted_identifier, token_is_secret
from memoryos.policies.nostore_rules import MAX_HINT_REPEATS, ProviderRule, RuleTable, anchored_run


def _covered(text: str, secret: str) -> set[str]:
    start = text.index(secret)
    end = start + len(secret)
    return {d.family for d in scan(text) if d.start <= start and d.end >= end}


POSITIVES = [
    # Backup codes after an aside in parentheses and a dash ("keep safe")
    (
        "Backup codes (Contoso) – keep safe: 4417 2093, 6610 5821, 3358 9042",
        "4417 2093, 6610 5821, 3358 9042",
        "recovery_codes",
    ),
    (
        "Recovery codes (GitLab) — store offline: k2m9x-p4q7z, w8n3c-r5t1v",
        "k2m9x-p4q7z, w8n3c-r5t1v",
        "recovery_codes",
    ),
    (
        "Códigos de respaldo (Google) – guárdalos: 5521 8834 1290 7765",
        "5521 8834 1290 7765",
        "recovery_codes",
    ),
    # Wi-Fi QR code text, fields in any order, an escaped ";" in the network name
    ("WIFI:T:WPA;S:Maison_Dupont;P:Cerise2021!;;", "Cerise2021!", "wifi_password"),
    ("WIFI:S:Lab\\;5G;T:WPA2;P:Qn7vLx2mRt;H:false;;", "Qn7vLx2mRt", "wifi_password"),
    # otpauth URIs hold the TOTP/HOTP seed
    (
        "scan this: otpauth://totp/Acme:ops?secret=MZXW6YTBOI3DGNBVGY3TQOJQ&issuer=Acme",
        "MZXW6YTBOI3DGNBVGY3TQOJQ",
        "recovery_codes",
    ),
    (
        "otpauth://hotp/Corp?issuer=Corp&counter=0&secret=KRSXG5CTMVRXEZLUKN2XAZLSKNSX",
        "KRSXG5CTMVRXEZLUKN2XAZLSKNSX",
        "recovery_codes",
    ),
    # a TOTP seed printed in groups of four for typing in
    ("Authenticator setup key: MZXW 6YTB OI3D GNBV", "MZXW 6YTB OI3D GNBV", "recovery_codes"),
    ("2FA seed (key) for the ops account: KRSX G5CT MVRX EZLU", "KRSX G5CT MVRX EZLU", "recovery_codes"),
    # "pw" and arrows of other lengths and scripts
    ("pw for grafana admin -> Tamb0ur1ne%12", "Tamb0ur1ne%12", "password_assignment"),
    ("pw for the nas --> cobalt-otter-meadow-42", "cobalt-otter-meadow-42", "password_assignment"),
    ("password for prod → Lq8#vNz3ke", "Lq8#vNz3ke", "password_assignment"),
    ("Passwort fürs VPN ⇒ Hafen2017$", "Hafen2017$", "password_assignment"),
    # a question, then its answer
    (
        "Ma nouvelle passe pour le Wi-Fi? Non, pour le compte Azure: Givre2016&",
        "Givre2016&",
        "password_assignment",
    ),
    (
        "password for the VPN? No, the one for the AWS console: Saffron1988#",
        "Saffron1988#",
        "password_assignment",
    ),
    ("¿La contraseña del wifi? No, la de GitLab: Naranja2015!", "Naranja2015!", "password_assignment"),
    ("Passwort fürs WLAN? Nein, fürs Jira-Konto: Tanne2020!", "Tanne2020!", "password_assignment"),
    # French and Spanish drop the preposition between the code and what it opens
    ("code portail résidence : 4719", "4719", "access_code"),
]

NEAR_MISSES = [
    # dotted code names (Unity, .NET) are not secrets
    "Run Unity with -executeMethod BuildScript.PerformBuild in batch mode.",
    "Call UnityEditor.BuildPipeline.BuildPlayer from CI.BuildScript.PerformBuild",
    "System.IO.FileSystemWatcher.EnableRaisingEvents stays false",
    # a flag whose value is a path, before a closing backtick
    "log in with `vault login -token-sink-file=$HOME/.vault-token`",
    "run `vault login -method=userpass -token-sink-file=$HOME/.config/vault/token`",
    # ray and trace ids
    "trace=5bd4f0a1c29e7d33-AMS status=502",
    "cf-ray 7c1e9b05d2a4f6e8-LHR",
    "CF-Ray: 8a2c7d4e6f10b3a9-SJC",
    # questions without a credential answer, arrows without a value
    "what is the password? No idea: ask Bob",
    "should I rotate the password? yes: done",
    "il se passe quoi -> rien",
    "pw: see 1password",
    "WIFI:T:nopass;S:Guest;;",
    "otpauth://totp/X?secret=EXAMPLE",
    "Backup codes (Microsoft) – keep safe: in the vault",
    "MFA rollout: WEEK FOUR DONE, TEAM BLUE NEXT",
    "part numbers AB12 CD34 EF56 GH72 for the rack",
]


@pytest.mark.parametrize(("text", "secret", "family"), POSITIVES)
def test_the_new_shapes_are_refused_by_their_family(text: str, secret: str, family: str) -> None:
    assert family in _covered(text, secret)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_their_neighbours_in_code_and_logs_are_accepted(text: str) -> None:
    assert scan(text) == []


def test_dotted_identifiers_are_code_but_random_dotted_letters_are_not() -> None:
    assert dotted_identifier("BuildScript.PerformBuild")
    assert dotted_identifier("System.IO.File")
    assert not dotted_identifier("QvXkbnPa.LqWmxztRe")
    assert not dotted_identifier("Build2Script.Perform")
    assert token_is_secret("aZxQpLmNqWeRtYuIoPas.dfGhJk")


def test_a_leading_class_run_is_anchored_at_the_start_of_the_run() -> None:
    assert anchored_run("(?P<value>[0-9A-Za-z_/+-]{0,8000}LS0t)") == (
        "(?<![0-9A-Za-z_/+-])(?P<value>[0-9A-Za-z_/+-]{0,8000}LS0t)"
    )
    assert anchored_run("(?P<value>eyJ[A-Za-z]{15,})") == "(?P<value>eyJ[A-Za-z]{15,})"


def test_a_rule_whose_hint_repeats_too_often_is_not_run() -> None:
    rule = ProviderRule("jwt-like", re.compile(r"(?P<value>eyJ[A-Za-z0-9]{15,})"), ("eyj",))
    table = RuleTable.of((rule,))
    assert table.applicable("token eyJhbGciOiJIUzI1NiJ9") == [rule]
    assert table.applicable("eyJ" * (MAX_HINT_REPEATS + 1)) == []
