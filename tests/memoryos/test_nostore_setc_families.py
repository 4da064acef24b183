"""The families fixed against the third independent corpus (set C), each with new examples of its
shape, never the corpus's own lines: the secret or personal value refused, its look-alikes let through."""

from __future__ import annotations

import pytest

from memoryos.policies.nostore import scan


def families(text: str) -> set[str]:
    return {detection.family for detection in scan(text)}


REFUSED: dict[str, tuple[str, ...]] = {
    "command_password": (
        "mariadb -h db2.lan -u backup -p'Tr0mb0ne!77' inventory",
        'sshpass -p "w1ndm1ll_44" scp dump.sql ops@10.1.4.9:/srv',
        "ldapmodify -H ldap://dir.example.lan -D cn=admin -w 'oR4nge#tree' -f add.ldif",
        "curl --user deployer:Gx7q!mzt2 https://ci.internal/api/build",
        "echo 'Pl4typus%81' | sudo -S apt-get upgrade",
        "net use Y: \\\\nas02\\media K9p&wQ2-xz /user:HOME\\media_svc",
        "sqlplus hr/Rvb8xq2ZnP@//orahost:1521/XEPDB1",
        "PGPASSWORD=Tr0ut!lake42 pg_dump ledger",
        "<settings><password>Halcyon%day42</password></settings>",
        "config.set('smtp_password', 'Marig0ld?skies')",
        "backup.lan:5432:ledger:reporter:Zq8!vv2Lp0",
        "mail:\n  user: noreply@shop.example\n  pass: Fv4#qq91Lz",
    ),
    "password_assignment": (
        "Banka şifreniz Kelebek2031! olarak değiştirildi.",
        "社内VPNのパスワード：Gq84mZt2pLx（月末に変更）",
        "Parolanız Kestane44x olarak ayarlandı",
    ),
    "credential_assignment": (
        "Azure DevOps PAT (read-only, project billing): 5ttq3vuxkz7ojnwmb2yfh4rdlc6ea9ips0gx1nk8r3jv5mqw2zto",
    ),
    "session_secret": (
        "Cookie: PHPSESSID=k3j9q0v7m2n8b5x1c4z6a8s0d2",
        "JSESSIONID=9F2C81AB44D07E6A5B3C2D1E0F9A8B7C; Path=/app",
        "laravel_session=eyJpdiI6Ik1rNk9aeUQ3bjV4Q0ZnPT0iLCJ2YWx1ZSI6IkF1",
        "https://bucket.s3.amazonaws.com/r.pdf?X-Amz-Expires=600&X-Amz-Signature=8c1f03b7e2d9a4f65c0e71b2",
        "https://cdn.example.net/a.mp4?Expires=1800000000&Signature=Qk3~xP0zL9aV2bN7mT4cW8eR1yU6iO5s"
        "&Key-Pair-Id=APKAEXAMPLE1",
        "https://team.chat.example/hooks/k8w3nq0zp5x7r2m9c4v6b1t0ya",
        "https://maker.ifttt.com/trigger/lamp_on/with/key/bT7-qp2Xz9LmWc4vRn8Ks",
    ),
    "health_id": (
        "NHS no. 5982597910 (GP practice in Leeds)",
        "KVNR meines Sohnes: M186091394",
        "Medicare MBI 7TW4-C02-PK53 for my dad's claim",
        "AHV-Nr. 756.0996.0308.23",
        "EHIC card no. for the trip: 80276001234567890123",
        "Patient number at St Mary's: 40918273",
        "Cigna member ID: U48213967",
    ),
    "national_id": (
        "personnummer: 19850412-3012",
        "Henkilötunnus: 150399-401K",
        "syntynyt 070907A5123",
        "passport MRZ: P<FRALAMBERT<<CLAIRE<<<<<<<<<<<<<<<<<<<<<<<<<\n"
        "X4RT8Q2LM2FRA8903174F3105227<<<<<<<<<<<<<<04",
    ),
    "postal_address": (
        "Mieszkam: ul. Polna 14/3, 31-042 Kraków",
        "Meu endereço: Avenida Paulista, 1578, apto 42, São Paulo - SP, 01310-200",
        "my place is 19 Maple Cres, Ottawa ON K1S 3Z2",
        "home: 7 Banksia St, Newtown NSW 2042",
        "Min adress: Kungsgatan 8 lgh 1103, 411 19 Göteborg",
    ),
    "one_time_code": (
        "Your Fabrikam sign-in code is 503917",
        "Ihr Bestätigungscode: 862 204",
        "Votre code de vérification est 719340",
        "Tu código de verificación es 284613",
        "【Acme】验证码：804516，5分钟内有效",
    ),
    "seed_phrase": (
        "mnemonic: ribbon orbit velvet canal throw mercy dash lunar pepper grape silent quote",
        "Seed words:\n1) honey\n2) parade\n3) tribe\n4) olive\n5) maple\n6) spider\n7) coral\n8) hazard"
        "\n9) velvet\n10) cabin\n11) nurse\n12) orbit",
    ),
    "recovery_codes": (
        "Recovery codes\n  7c1e9 40d2b\n  a83f0 5be71\n  06d4c e9a28",
        "BitLocker recovery key for DESK-22: 218130-437129-066297-551694-170786-381601-602195-403623",
        "gitlab-recovery-codes.txt\n5d2a9c31b7e04f68\n91cf07a2e8b34d15\n0e6b4f8a2c9d1735",
        "Authenticator setup key (type it in): k7dq 3mzp x2wn r5tb ya4c q6ve",
    ),
    "access_code": (
        "The gate code for the side entrance by the bins is 4417#",
        "Tresor-Kombination: 8-31-17",
    ),
    "wifi_password": ("WLAN-Schlüssel für die Gäste: 3012 7745 9981 2046 5530",),
    "spaced_token": (
        "token spaced out: g h p _ 4 k Q 9 z T m 2 W x 8 L c 5 V n 1 R b 7 Y s 3 D f 6 H j 0 P q",
        "the PAT in groups: glpat- Zk4W x9Lm Qr2T bV8n Y7cD",
    ),
}


@pytest.mark.parametrize(
    ("family", "text"), [(family, text) for family, texts in REFUSED.items() for text in texts]
)
def test_the_secret_or_personal_value_is_refused(family: str, text: str) -> None:
    assert scan(text), f"{family}: nothing refused"


ALLOWED: tuple[str, ...] = (
    # public key material, digests and inlined images
    "Repr-Digest: sha-512=:YmFzZTY0IGRpZ2VzdCBvZiB0aGUgcmVwcmVzZW50YXRpb24gYm9keQ==:",
    'jwks: {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "_m3Qv8ZfT0bXyLpK4wN9cR2sD7uE1aG6hJ5iO0qV3Y"}',
    "[Peer]\nPublicKey = Zx3vQk9LmT2pW8nB4cR7yU1sD6fG0hJ5aE9iO3qV2Xk=\nAllowedIPs = 10.9.0.0/24",
    "icon: url(data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==)",
    "SSN 000-41-7736 is a placeholder in the QA fixtures",
    # published company addresses
    "Impressum: Bergwerk Digital GmbH, Lindenallee 12, 50968 Köln, Amtsgericht Köln HRB 9912",
    "Contoso Ltd, 221 Harbour Road, Bristol BS1 4QA, United Kingdom (head office)",
    "Siège social : Atelier Morel SAS, 12 rue des Tanneurs, 69002 Lyon",
    # talk about commands and credentials without one
    "run mysql -u root -p and type the password at the prompt",
    "curl -u $API_USER:$API_TOKEN https://ci.internal/api/json",
    "<password>${SMTP_PASSWORD}</password>",
    "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
    "the boarding pass: gate B12, seat 31C",
    "session_id=7f3a9c21-5b8e-4d10-9a6f-2c4e8b1d0f37 in the agent trace",
    "The verification code expires after 10 minutes; request a new one if needed.",
    "Error code 500123 from the login service",
    "The seed phrase is stored in the safe at home and nobody should write it down on a shared drive.",
    "Stripe restricted keys start with rk_live_ and can be scoped per resource.",
    "patient numbers are assigned at admission",
    "patient ID: 12345678 (the example in the form's help text)",
    "boarding pass: QF1234 gate 7",
    "Seed phrase: never share these twelve words with anyone who asks for them over email chat",
)


@pytest.mark.parametrize("text", ALLOWED)
def test_a_look_alike_is_let_through(text: str) -> None:
    assert scan(text) == [], families(text)
