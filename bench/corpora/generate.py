#!/usr/bin/env python3
# ruff: noqa
# fmt: off
# mypy: ignore-errors
# (These five lines were added when the file was copied into memoryos: the corpus author's file is kept as written, outside
# the project's lint, format and type gates.)
"""Independent test corpus for a "no-store" (secret / PII) detector.

Standard library only, deterministic (random.Random(20261201)).
Writes, next to this file:
  secrets_independent.jsonl             base items (secret / pii / benign)
  secrets_independent_obfuscated.jsonl  every secret + pii item again, with the
                                        sensitive token altered the way a
                                        copy-paste alters it.

Every token body is generated randomly with the provider's published alphabet,
length and (where one exists) checksum.  No real credential is copied.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string
import struct
import sys
import uuid
import zlib
from collections import Counter
from pathlib import Path

SEED = 20261201
R = random.Random(SEED)
HERE = Path(__file__).resolve().parent

DIGITS = string.digits
UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
LETTERS = string.ascii_letters
ALNUM = LETTERS + DIGITS
B62 = DIGITS + UPPER + LOWER
URLSAFE = ALNUM + "-_"
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B32 = UPPER + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def rs(alpha: str, n: int) -> str:
    return "".join(R.choice(alpha) for _ in range(n))


def rbytes(n: int) -> bytes:
    return bytes(R.getrandbits(8) for _ in range(n))


def ruuid() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


def b64url(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def b62(n: int, width: int) -> str:
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


def pick(seq):
    return R.choice(seq)


# --------------------------------------------------------------------------
# checksums
# --------------------------------------------------------------------------

def luhn_check_digit(partial: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch)
        if i % 2 == 0:  # will be doubled once the check digit is appended
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def luhn_ok(num: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(num)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_numeric(s: str) -> int:
    return int("".join(str(int(c, 36)) for c in s))


def iban_from_bban(cc: str, bban: str) -> str:
    check = 98 - iban_numeric(bban + cc + "00") % 97
    return f"{cc}{check:02d}{bban}"


def iban_ok(iban: str) -> bool:
    s = iban.replace(" ", "")
    return iban_numeric(s[4:] + s[:4]) % 97 == 1


# --------------------------------------------------------------------------
# names, hosts, misc vocab
# --------------------------------------------------------------------------

FIRST = ["anna", "lukas", "marie", "jonas", "sophie", "felix", "camille", "hugo",
         "lucia", "mateo", "giulia", "marco", "emma", "liam", "olivia", "noah",
         "yuki", "haruto", "wei", "li", "sanne", "daan", "priya", "arjun",
         "ingrid", "sven", "chloe", "theo", "ines", "pablo"]
LAST = ["schmidt", "mueller", "weber", "dubois", "lefevre", "garcia", "martinez",
        "rossi", "bianchi", "smith", "johnson", "brown", "tanaka", "sato",
        "zhang", "wang", "devries", "jansen", "patel", "sharma", "larsen",
        "nilsson", "moreau", "fernandez", "ricci", "walker", "kowalski",
        "novak", "becker", "fischer"]

HOSTS = ["db.internal.acme-corp.net", "10.20.3.17", "pg-main.prod.svc.cluster.local",
         "orders-db.c8x2kq1vzt4m.eu-west-1.rds.amazonaws.com", "mysql.staging.lan",
         "172.16.4.21", "analytics-db.corp.example-retail.de", "db-01.hetzner.intra"]


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def full_name() -> str:
    return f"{cap(pick(FIRST))} {cap(pick(LAST))}"


def human_password() -> str:
    style = R.randrange(5)
    words = ["Sonnenblume", "Kaffeetasse", "Bluebird", "Marmelade", "Papillon",
             "Girasol", "Fahrrad", "Tortuga", "Himbeere", "Lighthouse", "Tramonto",
             "Wolkenkratzer", "Pinguin", "Zanahoria", "Moonlight"]
    if style == 0:
        return pick(words) + str(R.randrange(1960, 2027)) + pick("!?#$%&*")
    if style == 1:
        w = pick(words).lower()
        leet = w.translate(str.maketrans({"a": "4", "e": "3", "o": "0", "i": "1", "s": "$"}))
        return cap(leet) + pick("#@!") + str(R.randrange(10, 99))
    if style == 2:
        return rs(ALNUM + "!#%&*+-=?@^_", R.randrange(12, 19))
    if style == 3:
        ws = [pick(words).lower() for _ in range(3)]
        return "-".join(ws) + "-" + str(R.randrange(10, 99))
    return rs(LETTERS, 2) + rs(DIGITS, 3) + pick("!$%") + rs(LETTERS, 4) + rs(DIGITS, 2)


def url_password() -> str:
    # passwords that can sit in a URL userinfo without percent-encoding
    if R.random() < 0.5:
        return rs(ALNUM, R.randrange(16, 29))
    return rs(ALNUM, 6) + pick("-_.~") + rs(ALNUM, 7) + pick("-_.~") + rs(ALNUM, 5)


# --------------------------------------------------------------------------
# SECRET generators.  Each returns a dict with at least "TOK" (the sensitive
# token exactly as it appears in the text; this is what the obfuscated file
# alters) and optionally other fields used by the templates.
# --------------------------------------------------------------------------

def gh_checksum_token(prefix: str) -> str:
    # GitHub / npm format: 30 chars of entropy + 6-char base62 CRC32 checksum
    body = rs(ALNUM, 30)
    return prefix + body + b62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def g_github_classic():
    return {"TOK": gh_checksum_token(pick(["ghp_"] * 5 + ["gho_", "ghu_", "ghs_", "ghr_"]))}


def g_github_fine():
    return {"TOK": "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59)}


def g_stripe():
    prefix = pick(["sk_live_"] * 3 + ["rk_live_"])
    n = pick([24, 24, 99])
    return {"TOK": prefix + ("51" + rs(ALNUM, n - 2) if n == 99 else rs(ALNUM, n))}


def g_stripe_whsec():
    return {"TOK": "whsec_" + rs(ALNUM, 32)}


def g_slack():
    kind = pick(["b", "b", "p", "a", "r"])
    t1 = rs(DIGITS, R.choice([10, 11, 12, 13]))
    t2 = rs(DIGITS, R.choice([10, 11, 12, 13]))
    if kind == "b":
        tok = f"xoxb-{t1}-{t2}-{rs(ALNUM, 24)}"
    elif kind == "p":
        tok = f"xoxp-{t1}-{t2}-{rs(DIGITS, 13)}-{rs(HEXL, 32)}"
    elif kind == "a":
        tok = f"xoxa-2-{t1}-{t2}-{rs(DIGITS, 13)}-{rs(HEXL, 64)}"
    else:
        tok = f"xoxr-{t1}-{t2}-{rs(DIGITS, 13)}-{rs(HEXL, 32)}"
    return {"TOK": tok}


def g_slack_webhook():
    sec = rs(ALNUM, 24)
    url = f"https://hooks.slack.com/services/T{rs(UPPER + DIGITS, 8)}/B{rs(UPPER + DIGITS, R.choice([8, 10]))}/{sec}"
    return {"TOK": sec, "URL": url}


def g_aws():
    temp = R.random() < 0.25
    kid = ("ASIA" if temp else "AKIA") + rs(B32, 16)
    secret = rs(ALNUM + "+/", 40)
    d = {"ID": kid, "TOK": secret}
    if temp:
        d["SESS"] = "IQoJb3JpZ2luX2VjE" + rs(ALNUM + "+/", 240) + "=="
    return d


def g_google_api():
    return {"TOK": "AIza" + rs(URLSAFE, 35)}


def g_google_oauth():
    cid = f"{rs(DIGITS, 12)}-{rs(LOWER + DIGITS, 32)}.apps.googleusercontent.com"
    return {"TOK": "GOCSPX-" + rs(URLSAFE, 28), "CID": cid}


def g_openai():
    k = R.randrange(3)
    if k == 0:
        tok = "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20)
    elif k == 1:
        tok = "sk-proj-" + rs(URLSAFE, 74) + "T3BlbkFJ" + rs(URLSAFE, 74)
    else:
        tok = "sk-svcacct-" + rs(URLSAFE, 74) + "T3BlbkFJ" + rs(URLSAFE, 74)
    return {"TOK": tok}


def g_anthropic():
    return {"TOK": "sk-ant-api03-" + rs(URLSAFE, 93) + "AA"}


def g_gitlab():
    return {"TOK": pick(["glpat-"] * 4 + ["gldt-", "glrt-"]) + rs(URLSAFE, 20)}


def g_npm():
    return {"TOK": gh_checksum_token("npm_")}


def g_pypi():
    mac = (b"\x02\x01\x08pypi.org\x02\x24" + ruuid().encode() + b"\x00\x02\x2a"
           + b'[1,{"version":1,"permissions":"user"}]' + b"\x00\x00\x06\x20" + rbytes(32))
    tok = "pypi-" + b64url(mac)
    assert tok.startswith("pypi-AgEIcHlwaS5vcmc")
    return {"TOK": tok}


def g_twilio():
    acct = "AC" + rs(HEXL, 32)
    if R.random() < 0.7:
        return {"ACCT": acct, "ID": acct, "TOK": rs(HEXL, 32), "IDKIND": "account SID",
                "IDVAR": "TWILIO_ACCOUNT_SID", "TOKVAR": "TWILIO_AUTH_TOKEN"}
    return {"ACCT": acct, "ID": "SK" + rs(HEXL, 32), "TOK": rs(ALNUM, 32), "IDKIND": "API key SID",
            "IDVAR": "TWILIO_API_KEY", "TOKVAR": "TWILIO_API_SECRET"}


def g_sendgrid():
    return {"TOK": "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43)}


def g_mailgun():
    return {"TOK": "key-" + rs(HEXL, 32)}


def g_shopify():
    return {"TOK": pick(["shpat_", "shpat_", "shpca_", "shppa_", "shpss_"]) + rs(HEXL, 32)}


def g_digitalocean():
    return {"TOK": pick(["dop_v1_", "dop_v1_", "doo_v1_", "dor_v1_"]) + rs(HEXL, 64)}


def g_hf():
    return {"TOK": "hf_" + rs(LETTERS, 34)}


def g_azure():
    acct = pick(["stprodbackups", "acmelogs01", "mediaassetsweu", "sttfstate42", "invoicearchive"])
    if R.random() < 0.75:
        key = b64(rbytes(64))
        cs = (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};"
              "EndpointSuffix=core.windows.net")
    else:
        key = b64(rbytes(32))
        ns = pick(["orders-bus", "acme-events", "telemetry-sb"])
        cs = (f"Endpoint=sb://{ns}.servicebus.windows.net/;SharedAccessKeyName="
              f"RootManageSharedAccessKey;SharedAccessKey={key}")
    return {"TOK": key, "CS": cs}


def g_jwt():
    alg = pick(["HS256", "HS256", "RS256"])
    header = {"alg": alg, "typ": "JWT"}
    iat = 1764000000 + R.randrange(0, 3_000_000)
    payload = {"sub": "usr_" + rs(ALNUM, 12), "iat": iat, "exp": iat + pick([900, 3600, 86400]),
               "scope": pick(["read:orders write:orders", "admin", "api", "openid profile"])}
    if R.random() < 0.5:
        payload["iss"] = pick(["https://auth.acme-corp.net/", "https://login.shopfront.io", "internal-sso"])
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")).encode())
    if alg == "HS256":
        sig = hmac.new(rbytes(32), signing_input.encode(), hashlib.sha256).digest()
    else:
        sig = rbytes(256)
    return {"TOK": signing_input + "." + b64url(sig)}


def _wrap64(s: str) -> list[str]:
    return [s[i:i + 64] for i in range(0, len(s), 64)]


def pem_block(kind: str) -> tuple[str, str]:
    if kind == "RSA PRIVATE KEY":
        der = bytes.fromhex("308204a40201000282010100") + rbytes(1180)
    elif kind == "EC PRIVATE KEY":
        der = (bytes.fromhex("30770201010420") + rbytes(32)
               + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(64))
    else:  # PKCS#8
        der = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7") + rbytes(1191)
    lines = _wrap64(b64(der))
    pem = f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"
    return pem, lines[1]


def g_pem():
    kind = pick(["RSA PRIVATE KEY", "RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"])
    pem, tok = pem_block(kind)
    return {"TOK": tok, "PEM": pem, "PEM_INDENTED": pem.replace("\n", "\n    ")}


def _sshstr(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def g_openssh():
    pub = rbytes(32)
    seed = rbytes(32)
    comment = pick(["deploy@ci-runner", "root@bastion", "backup-key", "github-actions", "jenkins@build01"]).encode()
    pubblob = _sshstr(b"ssh-ed25519") + _sshstr(pub)
    check = rbytes(4)
    priv = check + check + _sshstr(b"ssh-ed25519") + _sshstr(pub) + _sshstr(seed + pub) + _sshstr(comment)
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = (b"openssh-key-v1\x00" + _sshstr(b"none") + _sshstr(b"none") + _sshstr(b"")
            + struct.pack(">I", 1) + _sshstr(pubblob) + _sshstr(priv))
    lines = [b64(blob)[i:i + 70] for i in range(0, len(b64(blob)), 70)]
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END OPENSSH PRIVATE KEY-----"
    return {"TOK": lines[2], "PEM": pem}


def g_gcp_sa():
    pem, tok = pem_block("PRIVATE KEY")
    proj = pick(["acme-analytics-prod", "shopfront-392114", "ml-pipeline-dev", "data-lake-eu"])
    sa = {
        "type": "service_account",
        "project_id": proj,
        "private_key_id": rs(HEXL, 40),
        "private_key": pem + "\n",
        "client_email": f"{pick(['etl-runner', 'terraform', 'bq-reader'])}@{proj}.iam.gserviceaccount.com",
        "client_id": rs(DIGITS, 21),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return {"TOK": tok, "JSON": json.dumps(sa, indent=2)}


_DB_KIND = iter(range(10**6))
_DISCORD_KIND = iter(range(10**6))


def g_dburl():
    pw = url_password()
    user = pick(["app", "admin", "orders_rw", "postgres", "root", "svc_backend", "analytics"])
    host = pick(HOSTS)
    db = pick(["orders", "app_prod", "crm", "billing", "events"])
    k = next(_DB_KIND) % 7
    if k == 0:
        url = f"postgresql://{user}:{pw}@{host}:5432/{db}"
    elif k == 1:
        url = f"postgres://{user}:{pw}@{host}/{db}?sslmode=require"
    elif k == 2:
        url = f"mysql://{user}:{pw}@{host}:3306/{db}"
    elif k == 3:
        url = f"mongodb+srv://{user}:{pw}@cluster0.{rs(LOWER + DIGITS, 5)}.mongodb.net/{db}?retryWrites=true&w=majority"
    elif k == 4:
        url = f"redis://default:{pw}@{host}:6379/0"
    elif k == 5:
        url = f"amqp://{user}:{pw}@{host}:5672/{db}"
    else:
        url = (f"Server=tcp:{pick(['sql-prod', 'crm-sql'])}.database.windows.net,1433;Database={db};"
               f"User ID=sqladmin;Password={pw};Encrypt=true;")
    return {"TOK": pw, "URL": url}


def g_basic_auth():
    pw = url_password()
    k = R.randrange(8)
    forms = [
        f"git remote set-url origin https://deploy:{pw}@git.acme-corp.net/platform/api.git",
        f"pip install --index-url https://ci-reader:{pw}@pypi.acme-corp.net/simple/ acme-sdk",
        f"Jenkins with creds baked in: https://admin:{pw}@jenkins.acme-corp.net/job/nightly/",
        f"ftp://backup:{pw}@ftp.acme-corp.net/dumps/2026-11/",
        f"proxy for the build agents: http://svc-proxy:{pw}@proxy.corp.local:3128",
        f"Kibana läuft unter https://elastic:{pw}@logs.acme-corp.net:9243/app/discover",
        f"curl -s https://registry-user:{pw}@registry.acme-corp.net/v2/_catalog",
        f"URL del webhook: https://hook:{pw}@n8n.acme-corp.net/webhook/orders",
    ]
    return {"TOK": pw, "URL": forms[k]}


def g_password():
    return {"TOK": human_password()}


def g_pin():
    while True:
        p = rs(DIGITS, pick([4, 4, 6]))
        if p not in ("1234", "0000", "123456", "1111") and len(set(p)) > 2:
            return {"TOK": p}


def g_telegram():
    return {"TOK": f"{R.randrange(10**8, 10**10)}:AA{rs(URLSAFE, 33)}"}


def g_discord():
    if next(_DISCORD_KIND) % 2 == 0:
        uid = str(R.randrange(10**17, 10**18 * 2))
        tok = b64url(uid.encode()) + "." + rs(URLSAFE, 6) + "." + rs(URLSAFE, 38)
        return {"TOK": tok, "KIND": "bot"}
    sec = rs(URLSAFE, 68)
    return {"TOK": sec, "KIND": "webhook",
            "URL": f"https://discord.com/api/webhooks/{R.randrange(10**17, 10**18 * 2)}/{sec}"}


def g_vault():
    return {"TOK": "hvs." + rs(URLSAFE, 24) if R.random() < 0.4 else
            "hvs.CAESI" + rs(URLSAFE, 43) + "Gh4KHGh2cy5" + rs(URLSAFE, 27)}


def g_databricks():
    return {"TOK": "dapi" + rs(HEXL, 32) + pick(["", "", "-2", "-3"])}


def g_postman():
    return {"TOK": f"PMAK-{rs(HEXL, 24)}-{rs(HEXL, 34)}"}


def _bech32_polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((top >> i) & 1) else 0
    return chk


def bech32_encode(hrp: str, data: bytes) -> str:
    acc, bits, five = 0, 0, []
    for b in data:
        acc = (acc << 8) | b
        bits += 8
        while bits >= 5:
            bits -= 5
            five.append((acc >> bits) & 31)
    if bits:
        five.append((acc << (5 - bits)) & 31)
    hrp_exp = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = _bech32_polymod(hrp_exp + five + [0] * 6) ^ 1
    checksum = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32[d] for d in five + checksum)


def g_age():
    # age spec: Bech32, HRP "AGE-SECRET-KEY-", 32-byte X25519 scalar, upper-cased
    return {"TOK": bech32_encode("age-secret-key-", rbytes(32)).upper(),
            "PUB": bech32_encode("age", rbytes(32))[4:]}


def g_linear():
    return {"TOK": "lin_api_" + rs(ALNUM, 40)}


def g_notion():
    return {"TOK": "secret_" + rs(ALNUM, 43) if R.random() < 0.5 else "ntn_" + rs(DIGITS, 11) + rs(ALNUM, 35)}


def g_square():
    k = R.randrange(3)
    if k == 0:
        return {"TOK": "sq0atp-" + rs(URLSAFE, 22)}
    if k == 1:
        return {"TOK": "sq0csp-" + rs(URLSAFE, 43)}
    return {"TOK": "EAAA" + rs(URLSAFE, 60)}


def g_datadog():
    return {"TOK": rs(HEXL, 32), "APP": rs(HEXL, 40)}


def g_grafana():
    return {"TOK": "glsa_" + rs(ALNUM, 32) + "_" + rs(HEXL, 8)}


# --------------------------------------------------------------------------
# SECRET templates
# --------------------------------------------------------------------------

G_TOKEN = [
    "Remember my {PROV} key: {TOK}",
    "export {VAR}={TOK}",
    'export {VAR}="{TOK}"',
    "```bash\n{VAR}={TOK}\nnpm run deploy\n```\nthis is what worked on staging, save it",
    'Config for the integration:\n```json\n{"{JKEY}": "{TOK}", "timeout": 30}\n```',
    "Put this in config.yaml for me:\n```yaml\n{JKEY}: {TOK}\nretries: 3\n```",
    "{TOK} is the new {PROV} token, the old one was revoked yesterday",
    "Hier ist der {PROV}-Token fürs Deployment: {TOK}",
    "Voici la clé {PROV} de prod : {TOK} — merci de la garder en mémoire",
    'La clave de {PROV} es "{TOK}", guárdala para la próxima vez',
    "{PROV}のAPIキーは {TOK} です。次回のために覚えておいてください。",
    "帮我记一下 {PROV} 的密钥：{TOK}",
    "can you save this for later — {PROV} token '{TOK}'",
    "note to self: {PROV} creds = {TOK}",
    "docker run -e {VAR}='{TOK}' -p 8080:8080 registry.acme-corp.net/app:1.4.2",
    'In settings.py I have `{VAR} = "{TOK}"`, keep that in mind when we debug',
    "The CI job failed because {VAR} was stale. Correct value: {TOK}",
    "Authorization for the {PROV} API: `{TOK}`",
    "Für später: {VAR}={TOK} (nicht committen!)",
    "Je te laisse le token ici {TOK} pour le script de synchro",
    "Mi token personal de {PROV}: {TOK}",
    "新しい{PROV}トークン：「{TOK}」",
    "{PROV} 令牌已更新为 {TOK}，旧的已作废",
    "heroku config:set {VAR}={TOK}",
    'gh secret set {VAR} --body "{TOK}"',
    "{VAR}: {TOK}",
    "ok so the {PROV} key is {TOK} if anyone asks",
]

G_PASSWORD = [
    "my password for the VPN is {TOK}",
    "Gmail password: {TOK}",
    "remember: the admin password for the staging box is {TOK}",
    "wifi password at the office is {TOK}",
    "login for the NAS is admin / {TOK}",
    "Mein Passwort fürs Firmen-VPN ist {TOK}",
    "Das WLAN-Passwort lautet {TOK}",
    "Kennwort für den Router: {TOK}",
    "Mon mot de passe Netflix c'est {TOK}",
    "le mot de passe du serveur est « {TOK} »",
    "Mi contraseña del banco es {TOK}",
    "La contraseña del wifi es {TOK}",
    "La mia password di Outlook è {TOK}",
    "Minha senha do e-mail é {TOK}",
    "Mijn wachtwoord voor de NAS is {TOK}",
    "私のパスワードは {TOK} です",
    "VPNのパスワード：{TOK}",
    "我的邮箱密码是 {TOK}",
    "服务器 root 密码：{TOK}",
    "Мой пароль от почты: {TOK}",
    "sudo password on the build box = {TOK}",
    "{TOK} — that's the password for the shared Figma account",
    'password: "{TOK}"',
]

G_PIN = [
    "my debit card PIN is {TOK}",
    "Die PIN für die neue SIM-Karte ist {TOK}",
    "el PIN de la alarma de casa es {TOK}",
    "Code PIN de la carte bleue : {TOK}",
    "暗証番号は{TOK}です",
]

G_URLSECRET = [
    "save this for me: {URL}",
    "{VAR}={URL}",
    "prod: {URL}",
    "Die Verbindung läuft über {URL}",
    "L'URL complète avec les identifiants : {URL}",
    "usa esto: {URL}",
    "接続先は {URL} です",
    "连接地址：{URL}",
    "```\n{URL}\n```\nkeep this one, it's the only way in right now",
    'psql "{URL}"',
    "services:\n  api:\n    environment:\n      - {VAR}={URL}",
    '```python\nengine = create_engine("{URL}")\n```',
]

SECRET_FAMILIES = [
    # family, provider name, env var, json key, generator, count, extra templates
    ("github_pat_classic", "GitHub", "GITHUB_TOKEN", "github_token", g_github_classic, 9, [
        "git clone https://{TOK}@github.com/acme/infra.git",
        "curl -H 'Authorization: token {TOK}' https://api.github.com/user/repos",
        "GH PAT for the release bot (repo + workflow scope): {TOK}",
    ]),
    ("github_pat_fine_grained", "GitHub", "GH_TOKEN", "token", g_github_fine, 7, [
        "fine-grained PAT, expires in 90 days: {TOK}",
        'curl -H "Authorization: Bearer {TOK}" https://api.github.com/repos/acme/web/issues',
    ]),
    ("stripe_secret_key", "Stripe", "STRIPE_SECRET_KEY", "stripe_secret_key", g_stripe, 9, [
        "curl https://api.stripe.com/v1/charges -u {TOK}:",
        "stripe.api_key = '{TOK}'",
        "Stripe live key for the shop backend → {TOK}",
    ]),
    ("stripe_webhook_secret", "Stripe webhook", "STRIPE_WEBHOOK_SECRET", "webhook_secret", g_stripe_whsec, 6, [
        "endpoint signing secret from the Stripe dashboard: {TOK}",
        "event = stripe.Webhook.construct_event(payload, sig_header, '{TOK}')",
    ]),
    ("slack_token", "Slack", "SLACK_BOT_TOKEN", "slack_token", g_slack, 9, [
        'curl -H "Authorization: Bearer {TOK}" https://slack.com/api/chat.postMessage',
        "app = App(token=\"{TOK}\")",
    ]),
    ("slack_webhook", "Slack webhook", "SLACK_WEBHOOK_URL", "webhook_url", g_slack_webhook, 7, [
        "Incoming webhook for #deploys: {URL}",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' {URL}",
        "SLACK_WEBHOOK_URL={URL}",
        "Webhook für den #alerts-Kanal: {URL}",
        "L'URL du webhook Slack : {URL}",
        "usa este webhook para las alertas: {URL}",
        "Slackの通知用Webhook：{URL}",
    ]),
    ("aws_access_key", "AWS", None, None, g_aws, 10, [
        "[default]\naws_access_key_id = {ID}\naws_secret_access_key = {TOK}\nregion = eu-central-1",
        "export AWS_ACCESS_KEY_ID={ID}\nexport AWS_SECRET_ACCESS_KEY={TOK}",
        "AWS creds for the backup bucket: key id {ID}, secret {TOK}",
        "Zugangsdaten für S3: Access Key {ID} / Secret {TOK}",
        "aws configure → {ID} / {TOK} / us-east-1",
        "IAM user deploy-bot: {ID} {TOK}",
        "Clé d'accès AWS {ID}, clé secrète {TOK}",
        "AWSのアクセスキーID {ID}、シークレットアクセスキー {TOK}",
        "AWS 访问密钥 ID：{ID}，私有访问密钥：{TOK}",
        "Credenciales de AWS: {ID} y la secreta es {TOK}",
    ]),
    ("google_api_key", "Google Maps", "GOOGLE_MAPS_API_KEY", "apiKey", g_google_api, 8, [
        "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={TOK}",
        '<script src="https://maps.googleapis.com/maps/api/js?key={TOK}&callback=initMap"></script>',
        "const firebaseConfig = { apiKey: \"{TOK}\", authDomain: \"acme-app.firebaseapp.com\" };",
    ]),
    ("google_oauth_client_secret", "Google OAuth", "GOOGLE_CLIENT_SECRET", "client_secret", g_google_oauth, 6, [
        '{"web": {"client_id": "{CID}", "client_secret": "{TOK}", "redirect_uris": ["https://app.acme-corp.net/oauth/callback"]}}',
        "OAuth client {CID} → secret {TOK}",
    ]),
    ("openai_api_key", "OpenAI", "OPENAI_API_KEY", "openai_api_key", g_openai, 9, [
        'curl https://api.openai.com/v1/chat/completions -H "Authorization: Bearer {TOK}"',
        'client = OpenAI(api_key="{TOK}")',
    ]),
    ("anthropic_api_key", "Anthropic", "ANTHROPIC_API_KEY", "anthropic_api_key", g_anthropic, 8, [
        'curl https://api.anthropic.com/v1/messages -H "x-api-key: {TOK}" -H "anthropic-version: 2023-06-01"',
        'client = anthropic.Anthropic(api_key="{TOK}")',
    ]),
    ("gitlab_token", "GitLab", "GITLAB_TOKEN", "gitlab_token", g_gitlab, 8, [
        "git clone https://oauth2:{TOK}@gitlab.com/acme/backend.git",
        'curl --header "PRIVATE-TOKEN: {TOK}" "https://gitlab.com/api/v4/projects"',
    ]),
    ("npm_token", "npm", "NPM_TOKEN", "npmToken", g_npm, 7, [
        "//registry.npmjs.org/:_authToken={TOK}",
        "my ~/.npmrc:\n```\n//registry.npmjs.org/:_authToken={TOK}\n```",
    ]),
    ("pypi_token", "PyPI", "TWINE_PASSWORD", "pypi_token", g_pypi, 7, [
        "~/.pypirc:\n[pypi]\n  username = __token__\n  password = {TOK}",
        "twine upload -u __token__ -p {TOK} dist/*",
    ]),
    ("twilio", "Twilio", None, None, g_twilio, 8, [
        "{IDVAR}={ID}\n{TOKVAR}={TOK}",
        "Twilio: {IDKIND} {ID}, secret {TOK}",
        'client = Client("{ID}", "{TOK}")',
        "curl -X POST https://api.twilio.com/2010-04-01/Accounts/{ACCT}/Messages.json -u {ID}:{TOK}",
        "Twilio-Zugang: SID {ID} und Token {TOK}",
        "Identifiants Twilio : {ID} / {TOK}",
        "Twilioの認証情報 {IDVAR}={ID} {TOKVAR}={TOK}",
        "Twilio 凭据：{ID}，令牌 {TOK}",
    ]),
    ("sendgrid_api_key", "SendGrid", "SENDGRID_API_KEY", "sendgrid_api_key", g_sendgrid, 7, [
        'curl --request POST --url https://api.sendgrid.com/v3/mail/send --header "Authorization: Bearer {TOK}"',
    ]),
    ("mailgun_api_key", "Mailgun", "MAILGUN_API_KEY", "mailgun_key", g_mailgun, 6, [
        "curl -s --user 'api:{TOK}' https://api.mailgun.net/v3/mg.acme-corp.net/messages",
    ]),
    ("shopify_token", "Shopify", "SHOPIFY_ACCESS_TOKEN", "access_token", g_shopify, 7, [
        "X-Shopify-Access-Token: {TOK}",
        "Admin API token for acme-store.myshopify.com: {TOK}",
    ]),
    ("digitalocean_token", "DigitalOcean", "DIGITALOCEAN_TOKEN", "do_token", g_digitalocean, 7, [
        "doctl auth init -t {TOK}",
        'provider "digitalocean" {\n  token = "{TOK}"\n}',
    ]),
    ("huggingface_token", "Hugging Face", "HF_TOKEN", "hf_token", g_hf, 8, [
        "huggingface-cli login --token {TOK}",
        "login(token=\"{TOK}\")  # write access to the org",
    ]),
    ("azure_connection_string", None, "AZURE_STORAGE_CONNECTION_STRING", None, g_azure, 7, [
        'AZURE_STORAGE_CONNECTION_STRING="{CS}"',
        '{"ConnectionStrings": {"Blob": "{CS}"}}',
        "conn string for the blob container: {CS}",
        "Verbindungszeichenfolge aus dem Portal: {CS}",
        "chaîne de connexion Azure : {CS}",
        "cadena de conexión: {CS}",
        "Azureの接続文字列 {CS}",
    ]),
    ("jwt", "JWT", "API_TOKEN", "access_token", g_jwt, 8, [
        "Authorization: Bearer {TOK}",
        "access_token from the login response: {TOK}",
        "localStorage.setItem('token', '{TOK}')",
        "Cookie: session={TOK}; Path=/; HttpOnly",
        "Bearer-Token für die interne API: {TOK}",
        "le jeton de session de l'admin : {TOK}",
        "token de acceso (caduca en 24h): {TOK}",
        "認証トークン：{TOK}",
    ]),
    ("pem_private_key", None, None, None, g_pem, 8, [
        "Here's the deploy key, keep it:\n{PEM}",
        "```\n{PEM}\n```\nthat's the TLS key for api.acme-corp.net",
        "Privater Schlüssel für den Server:\n{PEM}",
        "clé privée du certificat :\n{PEM}",
        "cat > key.pem <<'EOF'\n{PEM}\nEOF",
        "秘密鍵です：\n{PEM}",
        "私钥如下\n{PEM}",
        "tls:\n  cert: /etc/ssl/api.crt\n  key: |\n    {PEM_INDENTED}",
    ]),
    ("openssh_private_key", None, None, None, g_openssh, 6, [
        "~/.ssh/id_ed25519 of the bastion, store it please:\n{PEM}",
        "```\n{PEM}\n```",
        "SSH-Key für den Backup-Server:\n{PEM}",
        "la clé SSH du runner :\n{PEM}",
        "clave SSH privada del servidor de CI\n{PEM}",
        "SSH 私钥：\n{PEM}",
    ]),
    ("gcp_service_account", None, None, None, g_gcp_sa, 5, [
        "service account key for the ETL job:\n```json\n{JSON}\n```",
        "{JSON}",
        "Schlüsseldatei vom Dienstkonto:\n{JSON}",
        "credentials.json :\n{JSON}",
        "サービスアカウントキー\n{JSON}",
    ]),
    ("database_url", None, "DATABASE_URL", None, g_dburl, 12, []),
    ("basic_auth_url", None, "REPO_URL", None, g_basic_auth, 8, ["{URL}"]),
    ("password_statement", None, None, None, g_password, 18, []),
    ("pin_code", None, None, None, g_pin, 4, []),
    ("telegram_bot_token", "Telegram bot", "TELEGRAM_BOT_TOKEN", "bot_token", g_telegram, 6, [
        'bot = telebot.TeleBot("{TOK}")',
        "https://api.telegram.org/bot{TOK}/getUpdates",
    ]),
    ("discord", "Discord", "DISCORD_TOKEN", "token", g_discord, 6, []),
    ("hashicorp_vault_token", "Vault", "VAULT_TOKEN", "vault_token", g_vault, 5, [
        "vault login {TOK}",
    ]),
    ("databricks_token", "Databricks", "DATABRICKS_TOKEN", "token", g_databricks, 5, [
        "databricks configure --token → host https://adb-1234567890123456.7.azuredatabricks.net, token {TOK}",
    ]),
    ("postman_api_key", "Postman", "POSTMAN_API_KEY", "apikey", g_postman, 5, [
        'curl https://api.getpostman.com/collections -H "X-Api-Key: {TOK}"',
    ]),
    ("age_secret_key", "age", "SOPS_AGE_KEY", "age_key", g_age, 4, [
        "# created: 2026-11-02T10:11:12+01:00\n# public key: age1{PUB}\n{TOK}",
        "sops age key (keys.txt): {TOK}",
    ]),
    ("linear_api_key", "Linear", "LINEAR_API_KEY", "linearApiKey", g_linear, 4, []),
    ("notion_token", "Notion", "NOTION_TOKEN", "notion_token", g_notion, 5, [
        "const notion = new Client({ auth: \"{TOK}\" })",
    ]),
    ("square_token", "Square", "SQUARE_ACCESS_TOKEN", "square_access_token", g_square, 5, []),
    ("datadog_api_key", "Datadog", "DD_API_KEY", "api_key", g_datadog, 5, [
        "DD_API_KEY={TOK}\nDD_SITE=datadoghq.eu",
        "Datadog agent: api_key: {TOK}",
        "datadog: API key {TOK} (app key is separate)",
        "Der Datadog-API-Key für das Agent-Setup ist {TOK}",
        'helm install datadog-agent datadog/datadog --set datadog.apiKey={TOK}',
    ]),
    ("grafana_service_account_token", "Grafana", "GRAFANA_TOKEN", "grafana_token", g_grafana, 4, [
        'curl -H "Authorization: Bearer {TOK}" https://grafana.acme-corp.net/api/dashboards/home',
    ]),
]

DISCORD_T = [
    "client.run('{TOK}')",
    "DISCORD_TOKEN={TOK}",
    "Bot-Token für den Community-Server: {TOK}",
    "Webhook del canal #anuncios: {URL}",
    "webhook for #deploy-log → {URL}",
    "DiscordのWebhook: {URL}",
    "DISCORD_WEBHOOK={URL}",
    "token du bot Discord : {TOK}",
]


def fill(tpl: str, fields: dict) -> str:
    out = tpl
    for k, v in fields.items():
        out = out.replace("{" + k + "}", str(v))
    assert "{TOK}" not in out and "{URL}" not in out and "{PEM" not in out, tpl
    return out


def build_secrets() -> list[dict]:
    items = []
    for fam, prov, var, jkey, gen, count, extras in SECRET_FAMILIES:
        if fam == "password_statement":
            pool = R.sample(G_PASSWORD, len(G_PASSWORD))
        elif fam == "pin_code":
            pool = R.sample(G_PIN, len(G_PIN))
        elif fam in ("database_url",):
            pool = R.sample(G_URLSECRET, len(G_URLSECRET))
        elif fam == "discord":
            pool = None
        elif prov is None or fam in ("aws_access_key", "twilio", "jwt", "slack_webhook", "datadog_api_key"):
            pool = list(extras)
        else:
            pool = list(extras) + R.sample(G_TOKEN, len(G_TOKEN))
        for i in range(count):
            f = gen()
            if fam == "discord":
                choices = [t for t in DISCORD_T if ("{URL}" in t) == (f["KIND"] == "webhook")]
                tpl = choices[(i // 2) % len(choices)]
            elif fam == "age_secret_key":
                tpl = pool[i % len(pool)]
            elif fam == "database_url":
                j = i
                while True:
                    tpl = pool[j % len(pool)]
                    if "psql" in tpl and not f["URL"].startswith("postgres"):
                        j += 1
                    elif "create_engine" in tpl and not f["URL"].startswith(("postgres", "mysql")):
                        j += 1
                    else:
                        break
            else:
                tpl = pool[i % len(pool)]
            fields = {"PROV": prov or "", "VAR": var or "", "JKEY": jkey or ""}
            fields.update(f)
            text = fill(tpl, fields)
            assert text.count(f["TOK"]) == 1, (fam, text)
            items.append({"id": f"sec-{fam}-{i + 1:03d}", "label": "secret", "family": fam,
                          "text": text, "_tok": f["TOK"]})
    return items


# --------------------------------------------------------------------------
# PII generators
# --------------------------------------------------------------------------

KNOWN_TEST_CARDS = {"4111111111111111", "4242424242424242", "5555555555554444", "378282246310005",
                    "6011111111111117", "4000056655665556", "5105105105105100", "371449635398431",
                    "3530111333300000", "30569309025904", "6200000000000005"}


def card(brand: str) -> str:
    while True:
        if brand == "visa":
            p, n = "4", 16
        elif brand == "mastercard":
            p, n = (pick(["51", "52", "53", "54", "55"]), 16) if R.random() < 0.7 else (str(R.randrange(2221, 2721)), 16)
        elif brand == "amex":
            p, n = pick(["34", "37"]), 15
        elif brand == "discover":
            p, n = pick(["6011", "65"]), 16
        elif brand == "jcb":
            p, n = str(R.randrange(3528, 3590)), 16
        elif brand == "diners":
            p, n = "36", 14
        else:  # unionpay
            p, n = "62" + pick(["12", "22", "28", "58"]), 16
        partial = p + rs(DIGITS, n - len(p) - 1)
        num = partial + luhn_check_digit(partial)
        assert luhn_ok(num)
        if num not in KNOWN_TEST_CARDS and len(set(num)) > 4:
            return num


def fmt_card(num: str, brand: str) -> str:
    style = R.randrange(4)
    if style == 0:
        return num
    sep = " " if style in (1, 2) else "-"
    if brand == "amex":
        groups = [num[:4], num[4:10], num[10:]]
    elif brand == "diners":
        groups = [num[:4], num[4:10], num[10:]]
    else:
        groups = [num[i:i + 4] for i in range(0, len(num), 4)]
    return sep.join(groups)


def bban(cc: str) -> str:
    if cc == "DE":
        return rs(DIGITS, 8) + rs(DIGITS, 10)
    if cc == "GB":
        return pick(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + rs(DIGITS, 6) + rs(DIGITS, 8)
    if cc == "FR":
        b, g, a = rs(DIGITS, 5), rs(DIGITS, 5), rs(DIGITS, 11)
        key = 97 - ((89 * int(b) + 15 * int(g) + 3 * int(a)) % 97)
        return f"{b}{g}{a}{key:02d}"
    if cc == "ES":
        bank, branch, acct = rs(DIGITS, 4), rs(DIGITS, 4), rs(DIGITS, 10)
        w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]

        def dc(s):
            d = 11 - sum(int(x) * y for x, y in zip(s, w)) % 11
            return 0 if d == 11 else 1 if d == 10 else d
        return f"{bank}{branch}{dc('00' + bank + branch)}{dc(acct)}{acct}"
    if cc == "IT":
        abi, cab, acct = rs(DIGITS, 5), rs(DIGITS, 5), rs(DIGITS, 12)
        odd = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]
        s = abi + cab + acct
        tot = 0
        for i, ch in enumerate(s):
            v = int(ch) if ch.isdigit() else ord(ch) - 65
            tot += odd[v] if i % 2 == 0 else v
        return chr(65 + tot % 26) + s
    if cc == "NL":
        while True:
            acct = rs(DIGITS, 10)
            if acct[0] != "0" and sum(int(d) * (10 - i) for i, d in enumerate(acct)) % 11 == 0:
                break
        return pick(["ABNA", "INGB", "RABO", "TRIO", "SNSB", "KNAB"]) + acct
    if cc == "BE":
        n = rs(DIGITS, 10)
        c = int(n) % 97 or 97
        return f"{n}{c:02d}"
    if cc == "CH":
        return rs(DIGITS, 5) + rs(DIGITS, 12)
    if cc == "AT":
        return rs(DIGITS, 5) + rs(DIGITS, 11)
    if cc == "PL":
        return rs(DIGITS, 8) + rs(DIGITS, 16)
    raise ValueError(cc)


IBAN_LEN = {"DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "BE": 16, "CH": 21, "AT": 20, "PL": 28}

KNOWN_EXAMPLE_IBANS = {"DE89370400440532013000", "GB29NWBK60161331926819", "FR1420041010050500013M02606"}


def iban(cc: str) -> str:
    while True:
        s = iban_from_bban(cc, bban(cc))
        assert len(s) == IBAN_LEN[cc] and iban_ok(s), s
        if s not in KNOWN_EXAMPLE_IBANS:
            return s


def fmt_iban(s: str) -> str:
    if R.random() < 0.65:
        return " ".join(s[i:i + 4] for i in range(0, len(s), 4))
    return s


def ssn() -> str:
    while True:
        a = R.randrange(1, 900)
        if a == 666:
            continue
        g = R.randrange(1, 100)
        s = R.randrange(1, 10000)
        v = f"{a:03d}-{g:02d}-{s:04d}"
        if v not in ("078-05-1120", "123-45-6789", "219-09-9999"):
            return v


def nino() -> str:
    bad = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}
    while True:
        p = pick("ABCEGHJKLMNOPRSTWXYZ") + pick("ABCEGHJKLMNPRSTWXYZ")
        if p not in bad and p != "QQ":
            break
    d = rs(DIGITS, 6)
    suf = pick("ABCD")
    if R.random() < 0.5:
        return f"{p} {d[:2]} {d[2:4]} {d[4:]} {suf}"
    return f"{p}{d}{suf}"


EMAIL_DOMAINS = ["gmail.com", "outlook.de", "web.de", "gmx.net", "yahoo.fr", "orange.fr", "hotmail.es",
                 "icloud.com", "yahoo.co.jp", "qq.com", "163.com", "proton.me", "libero.it", "t-online.de"]


def email() -> str:
    f, l = pick(FIRST), pick(LAST)
    k = R.randrange(4)
    local = [f"{f}.{l}", f"{f}{l}{R.randrange(70, 100)}", f"{f[0]}.{l}", f"{f}_{l}{R.randrange(1, 30)}"][k]
    return f"{local}@{pick(EMAIL_DOMAINS)}"


def phone() -> str:
    c = pick(["DE", "UK", "FR", "ES", "US", "JP", "CN", "IT", "NL", "CH", "IN", "BR"])
    d = lambda n: rs(DIGITS, n)
    if c == "DE":
        return pick([f"+49 15{pick('1279')} {d(8)}", f"+49 (0)17{pick('1256')} {d(7)}", f"+49 16{pick('023')} {d(3)} {d(4)}"])
    if c == "UK":
        return f"+44 7{pick('456789')}{d(2)} {d(6)}"
    if c == "FR":
        return f"+33 {pick('67')} " + " ".join(d(2) for _ in range(4))
    if c == "ES":
        return f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}"
    if c == "US":
        area = pick(["212", "415", "617", "312", "206", "512", "303"])
        ex = str(R.randrange(200, 1000))
        while ex == "555":
            ex = str(R.randrange(200, 1000))
        return pick([f"+1 ({area}) {ex}-{d(4)}", f"+1-{area}-{ex}-{d(4)}", f"+1 {area} {ex} {d(4)}"])
    if c == "JP":
        return f"+81 {pick(['90', '80', '70'])}-{d(4)}-{d(4)}"
    if c == "CN":
        return f"+86 1{pick('3589')}{d(1)} {d(4)} {d(4)}"
    if c == "IT":
        return f"+39 3{d(2)} {d(3)} {d(4)}"
    if c == "NL":
        return f"+31 6 {d(8)}"
    if c == "CH":
        return f"+41 7{pick('6789')} {d(3)} {d(2)} {d(2)}"
    if c == "IN":
        return f"+91 9{d(4)} {d(5)}"
    return f"+55 11 9{d(4)}-{d(4)}"


def passport() -> tuple[str, str]:
    c = pick(["US", "UK", "DE", "FR", "ES", "JP", "CN"])
    if c == "US":
        return c, pick([rs(DIGITS, 9), pick(UPPER) + rs(DIGITS, 8)])
    if c == "UK":
        return c, rs(DIGITS, 9)
    if c == "DE":
        return c, pick("CFGHJK") + rs("CFGHJKLMNPRTVWXYZ0123456789", 8)
    if c == "FR":
        return c, rs(DIGITS, 2) + rs(UPPER, 2) + rs(DIGITS, 5)
    if c == "ES":
        return c, rs(UPPER, 3) + rs(DIGITS, 6)
    if c == "JP":
        return c, pick(["TK", "TR", "MZ", "TZ"]) + rs(DIGITS, 7)
    return c, "E" + rs(DIGITS, 8)


def es_dni() -> str:
    n = R.randrange(10**7, 10**8)
    return f"{n:08d}" + "TRWAGMYFPDXBNJZSQVHLCKE"[n % 23]


def fr_nir() -> str:
    sex = pick("12")
    yy = f"{R.randrange(50, 100):02d}" if R.random() < 0.6 else f"{R.randrange(0, 6):02d}"
    mm = f"{R.randrange(1, 13):02d}"
    dep = f"{pick([75, 69, 13, 33, 59, 31, 44, 67, 92, 93]):02d}"
    com = f"{R.randrange(1, 990):03d}"
    order = f"{R.randrange(1, 1000):03d}"
    base = sex + yy + mm + dep + com + order
    key = 97 - int(base) % 97
    return f"{sex} {yy} {mm} {dep} {com} {order} {key:02d}" if R.random() < 0.6 else f"{base}{key:02d}"


def nl_bsn() -> str:
    while True:
        d = [R.randrange(10) for _ in range(8)]
        if d[0] == 0:
            continue
        s = sum(x * w for x, w in zip(d, range(9, 1, -1)))
        last = s % 11
        if last < 10:
            v = "".join(map(str, d)) + str(last)
            if (s - last) % 11 == 0:
                return v


def cn_id() -> str:
    area = pick(["110101", "310104", "440305", "510107", "330106", "420106"])
    y = R.randrange(1960, 2005)
    m = R.randrange(1, 13)
    dd = R.randrange(1, 29)
    body = f"{area}{y}{m:02d}{dd:02d}{R.randrange(0, 1000):03d}"
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body + "10X98765432"[sum(int(a) * b for a, b in zip(body, w)) % 11]


def jp_my_number() -> str:
    base = rs(DIGITS, 11)
    s = 0
    for n in range(1, 12):
        p = int(base[11 - n])
        q = n + 1 if n <= 6 else n - 5
        s += p * q
    r = s % 11
    cd = 0 if r <= 1 else 11 - r
    num = base + str(cd)
    return f"{num[:4]} {num[4:8]} {num[8:]}" if R.random() < 0.5 else num


ADDRESSES = [
    ("Hauptstraße {n}, 10115 Berlin", "de"), ("{n} rue de la République, 69002 Lyon", "fr"),
    ("Calle de Alcalá {n}, 3ºB, 28009 Madrid", "es"), ("{n} Elm Street, Apt 4C, Brooklyn, NY 11215", "en"),
    ("Via Garibaldi {n}, 10122 Torino", "it"), ("Keizersgracht {n}-II, 1016 CZ Amsterdam", "nl"),
    ("東京都世田谷区三軒茶屋2-{n}-5", "ja"), ("上海市徐汇区漕溪北路{n}号 3单元 502室", "zh"),
]

PII_T = {
    "credit_card": [
        "my card number is {TOK}, exp {EXP}",
        "{BRAND}: {TOK} exp {EXP} CVC {CVC}",
        "Kreditkarte für die Hotelbuchung: {TOK}, gültig bis {EXP}",
        "Numéro de carte : {TOK} (exp. {EXP})",
        "Paga con mi tarjeta {TOK}, caduca {EXP}",
        "カード番号は{TOK}、有効期限{EXP}です",
        "我的信用卡号是 {TOK}，有效期 {EXP}",
        "{TOK} is the company {BRAND}, use it for the AWS bill",
        "card on file: {TOK}",
        "La mia carta: {TOK} scad. {EXP}",
        '{"card_number": "{TOK}", "exp": "{EXP}", "holder": "{NAME}"}',
        "Please remember my {BRAND} {TOK} for the travel bookings",
        "Meine {BRAND}-Nummer ist {TOK}",
    ],
    "iban": [
        "My IBAN is {TOK}",
        "Bitte überweise die Miete auf {TOK} (Kontoinhaber {NAME})",
        "IBAN : {TOK} — c'est mon compte perso",
        "Mi IBAN es {TOK}",
        "Pagamento su IBAN {TOK} intestato a {NAME}",
        "Rekeningnummer (IBAN): {TOK}",
        "振込先IBAN：{TOK}",
        "refund to {TOK} please",
        "Bankverbindung: {TOK}",
        "my salary account: {TOK}",
        '{"iban": "{TOK}", "name": "{NAME}"}',
    ],
    "us_ssn": [
        "My SSN is {TOK}", "SSN: {TOK} (for the W-9)", "social security number {TOK}",
        "Número de Seguro Social: {TOK}", "put my social {TOK} on the tax form",
        "{NAME}, SSN {TOK}, DOB 1987-03-14",
    ],
    "uk_nino": [
        "My National Insurance number is {TOK}", "NI number: {TOK}", "NINO {TOK} for the payroll form",
        "remember my national insurance no. {TOK}",
    ],
    "email": [
        "My personal email is {TOK}", "Meine private E-Mail: {TOK}", "Écris-moi à {TOK}",
        "Mi correo es {TOK}", "メールアドレスは {TOK} です", "我的邮箱是 {TOK}",
        "contact for the landlord: {NAME} <{TOK}>", "cc my wife at {TOK}",
        "{TOK} is my private address, don't use the work one", "La mia email: {TOK}",
    ],
    "phone": [
        "Call me at {TOK}", "Meine Handynummer: {TOK}", "Mon portable : {TOK}", "Mi móvil es el {TOK}",
        "携帯番号は{TOK}です", "我的手机号是 {TOK}", "WhatsApp: {TOK}", "Il mio cellulare: {TOK}",
        "{NAME}'s mobile is {TOK}", "Telefon privat {TOK}", "text me on {TOK} when you land",
        "mijn nummer is {TOK}",
    ],
    "passport": [
        "my passport number is {TOK}", "Reisepassnummer: {TOK}", "numéro de passeport {TOK}",
        "Número de pasaporte: {TOK}", "旅券番号は{TOK}です", "护照号码：{TOK}",
        "{NAME}, passport no. {TOK}, expires 2031", "Passport ({CC}): {TOK}",
    ],
    "es_dni": ["Mi DNI es {TOK}", "DNI: {TOK} ({NAME})", "remember my Spanish DNI {TOK}", "NIF {TOK} para la factura"],
    "fr_nir": ["Mon numéro de sécurité sociale : {TOK}", "NIR {TOK}", "numéro de sécu de {NAME} : {TOK}", "carte Vitale n° {TOK}"],
    "nl_bsn": ["Mijn BSN is {TOK}", "BSN: {TOK}", "burgerservicenummer van {NAME}: {TOK}", "my Dutch BSN {TOK}"],
    "cn_resident_id": ["我的身份证号是 {TOK}", "身份证号码：{TOK}", "{NAME} 的身份证 {TOK}", "Chinese ID card no. {TOK}"],
    "jp_my_number": ["マイナンバーは{TOK}です", "個人番号：{TOK}", "my My Number (Japan) is {TOK}", "{NAME}さんのマイナンバー {TOK}"],
    "postal_address": [
        "Lieferadresse privat: {NAME}, {TOK}", "J'habite au {TOK}", "Envíalo a {NAME}, {TOK}",
        "My home address: {NAME}, {TOK}", "indirizzo di casa: {TOK}", "mijn huisadres: {NAME}, {TOK}",
        "自宅住所：{TOK}", "我家地址：{TOK}",
    ],
}

PII_COUNTS = {"credit_card": 22, "iban": 18, "us_ssn": 8, "uk_nino": 7, "email": 10, "phone": 12,
              "passport": 8, "es_dni": 4, "fr_nir": 4, "nl_bsn": 4, "cn_resident_id": 4,
              "jp_my_number": 4, "postal_address": 7}

BRANDS = ["visa", "visa", "mastercard", "mastercard", "amex", "discover", "jcb", "diners", "unionpay"]
BRAND_NAME = {"visa": "Visa", "mastercard": "Mastercard", "amex": "Amex", "discover": "Discover",
              "jcb": "JCB", "diners": "Diners Club", "unionpay": "UnionPay"}
IBAN_CCS = ["DE", "GB", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "PL"]


def build_pii() -> list[dict]:
    items = []
    for kind, count in PII_COUNTS.items():
        pool = R.sample(PII_T[kind], len(PII_T[kind]))
        for i in range(count):
            f = {"NAME": full_name()}
            sub = ""
            if kind == "credit_card":
                brand = BRANDS[i % len(BRANDS)]
                num = card(brand)
                f.update(TOK=fmt_card(num, brand), BRAND=BRAND_NAME[brand],
                         EXP=f"{R.randrange(1, 13):02d}/{R.randrange(27, 32)}",
                         CVC=rs(DIGITS, 4 if brand == "amex" else 3))
                sub = brand
            elif kind == "iban":
                cc = IBAN_CCS[i % len(IBAN_CCS)]
                f["TOK"] = fmt_iban(iban(cc))
                sub = cc.lower()
            elif kind == "us_ssn":
                v = ssn()
                f["TOK"] = pick([v, v, v.replace("-", " ")])
            elif kind == "uk_nino":
                f["TOK"] = nino()
            elif kind == "email":
                f["TOK"] = email()
            elif kind == "phone":
                f["TOK"] = phone()
            elif kind == "passport":
                cc, num = passport()
                f.update(TOK=num, CC=cc)
                sub = cc.lower()
            elif kind == "es_dni":
                f["TOK"] = es_dni()
            elif kind == "fr_nir":
                f["TOK"] = fr_nir()
            elif kind == "nl_bsn":
                f["TOK"] = nl_bsn()
            elif kind == "cn_resident_id":
                f["TOK"] = cn_id()
            elif kind == "jp_my_number":
                f["TOK"] = jp_my_number()
            elif kind == "postal_address":
                addr, lang = ADDRESSES[i % len(ADDRESSES)]
                f["TOK"] = addr.replace("{n}", str(R.randrange(2, 140)))
                sub = lang
            tpl = pool[i % len(pool)]
            if kind == "postal_address":
                # keep language of template and address roughly compatible
                tpl = PII_T[kind][i % len(PII_T[kind])]
            text = fill(tpl, f)
            assert text.count(f["TOK"]) == 1, text
            iid = f"pii-{kind}-{sub + '-' if sub else ''}{i + 1:03d}"
            items.append({"id": iid, "label": "pii", "family": kind, "text": text, "_tok": f["TOK"]})
    return items


# --------------------------------------------------------------------------
# BENIGN
# --------------------------------------------------------------------------

def isbn13() -> str:
    core = "978" + rs(DIGITS, 9)
    s = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(core))
    cd = (10 - s % 10) % 10
    full = core + str(cd)
    return f"{full[:3]}-{full[3]}-{full[4:7]}-{full[7:12]}-{full[12]}"


def ean13(prefix: str) -> str:
    core = prefix + rs(DIGITS, 12 - len(prefix))
    s = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(core))
    return core + str((10 - s % 10) % 10)


def ups_tracking() -> str:
    body = rs(UPPER + DIGITS, 6) + pick(["01", "02", "03", "12", "13"]) + rs(DIGITS, 7)
    tot = 0
    for i, ch in enumerate(body):
        v = int(ch) if ch.isdigit() else (ord(ch) - 63) % 10
        tot += v * (2 if i % 2 else 1)
    return "1Z" + body + str((10 - tot % 10) % 10)


def non_luhn(n: int) -> str:
    while True:
        s = str(R.randrange(1, 10)) + rs(DIGITS, n - 1)
        if not luhn_ok(s):
            return s


def ssh_ed25519_pub() -> str:
    blob = _sshstr(b"ssh-ed25519") + _sshstr(rbytes(32))
    return "ssh-ed25519 " + b64(blob)


def ssh_rsa_pub() -> str:
    blob = _sshstr(b"ssh-rsa") + _sshstr(b"\x01\x00\x01") + _sshstr(b"\x00" + rbytes(256))
    return "ssh-rsa " + b64(blob)


def build_benign() -> list[dict]:
    B: list[tuple[str, str]] = []

    def add(fam, text):
        B.append((fam, text))

    # --- talk about secrets, no secret value --------------------------------
    for t in [
        "Rotate the Stripe key tomorrow morning before the release.",
        "The GitHub token expired again, I need to generate a new one with repo scope.",
        "Reminder: the AWS access keys for the CI user are due for rotation on Friday.",
        "We moved all API keys into Vault; nobody should keep them in .env files anymore.",
        "Don't paste your OpenAI key into the chat, use the secrets manager instead.",
        "The Slack bot token was revoked after the offboarding, ask IT for a new one.",
        "I forgot my password for the HR portal, the reset link is in my inbox.",
        "Password reset emails are landing in spam for some users since Tuesday.",
        "The JWT expiry is set to 15 minutes; refresh tokens last 30 days.",
        "Der API-Schlüssel für Google Maps muss bis Ende des Monats erneuert werden.",
        "Das Token ist abgelaufen, deshalb schlägt der Nightly-Build fehl.",
        "Il faut régénérer la clé SSH du serveur de build, l'ancienne a été exposée dans un log.",
        "Le jeton d'accès a expiré, je relance l'authentification demain matin.",
        "Hay que rotar la clave de la API de SendGrid esta semana.",
        "La contraseña del wifi de invitados cambia cada lunes; pregunta en recepción.",
        "トークンの有効期限が切れたので、明日再発行します。",
        "APIキーは環境変数から読み込むようにしてください。",
        "API 密钥下周轮换，记得更新 CI 配置。",
        "The private key for the TLS cert lives only on the load balancer; never copy it elsewhere.",
        "Use a fine-grained personal access token instead of a classic one for the release bot.",
        "Stripe restricted keys start with rk_live_ and can be scoped per resource.",
        "GitHub classic tokens start with ghp_ and fine-grained ones with github_pat_.",
        "Our secret scanner flags anything that looks like AKIA followed by 16 characters.",
        "Hugging Face tokens begin with hf_; make sure yours only has read access.",
        "npm automation tokens bypass 2FA, so keep their scope minimal.",
        "Set the database password via the DB_PASSWORD env var, not in the YAML.",
        "The Twilio auth token was rotated on 2026-11-14 by the on-call engineer.",
        "Revoke the PyPI API token once the release workflow uses trusted publishing.",
        "The Azure storage account keys were regenerated, so update the connection string in Key Vault.",
        "Our password manager is 1Password; the shared vault is called 'Platform'.",
        "Mot de passe oublié ? Le lien de réinitialisation est valable 24 heures.",
        "Bitte keine Passwörter per E-Mail verschicken, nur über den Passwortmanager.",
        "No guardes contraseñas en notas, usa el gestor de contraseñas.",
        "二要素認証を有効にしてからパスワードを変更してください。",
        "The Anthropic key in staging has a monthly spend limit of $200.",
        "I think the 401 comes from the bearer token missing the 'Bearer ' prefix.",
        "Ask Ops to issue a new deploy key; the old SSH key was removed from the repo settings.",
        "Quand le token GitLab expire, le runner affiche 'HTTP Basic: Access denied'.",
    ]:
        add("talk_about_secret", t)

    # --- placeholders / redacted / masked -----------------------------------
    for t in [
        "Set STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX in your .env (replace with your own key).",
        "export OPENAI_API_KEY=<your-api-key>",
        'curl -H "Authorization: Bearer ${GITHUB_TOKEN}" https://api.github.com/user',
        "- name: Publish\n  run: npm publish\n  env:\n    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "In the README the token is shown as ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx — just a placeholder.",
        "[default]\naws_access_key_id = YOUR_ACCESS_KEY_ID\naws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
        "DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
        "password: ********",
        'The log line now shows "api_key": "[REDACTED]" after the fix.',
        "SLACK_BOT_TOKEN=xoxb-your-bot-token-here",
        "HF_TOKEN=hf_**********************************",
        "The dashboard only shows the key as sk-proj-…3fQa (last four characters).",
        'ANTHROPIC_API_KEY="sk-ant-..."  # fill in locally, never commit',
        "Authorization: Bearer <token>",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n<paste your key here>\n-----END OPENSSH PRIVATE KEY-----",
        "Template for the runner: GITLAB_TOKEN=glpat-XXXXXXXXXXXXXXXXXXXX",
        "Replace YOUR_GOOGLE_API_KEY in index.html with the key from the Cloud console.",
        "sendgrid:\n  api_key: ${SENDGRID_API_KEY}",
        "AccountKey=<storage-account-key>;EndpointSuffix=core.windows.net",
        "PGPASSWORD=$(vault kv get -field=password secret/db) psql -h db -U app",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX is the example URL from the Slack docs.",
        "Passwort: (siehe KeePass, Eintrag 'NAS')",
        "mot de passe : voir le coffre Bitwarden de l'équipe",
        "パスワード：社内Wikiを参照",
        "密码：请向管理员索取",
        "The JWT format is header.payload.signature, e.g. xxxxx.yyyyy.zzzzz.",
        "stripe.api_key = os.environ['STRIPE_KEY']  # sk_live_... in prod, sk_test_... locally",
        "token = \"REPLACE_ME\"",
        "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----  ← the file should look like this",
        "twine upload -u __token__ -p $PYPI_TOKEN dist/*",
        "git clone https://oauth2:${CI_JOB_TOKEN}@gitlab.com/acme/backend.git",
    ]:
        add("placeholder", t)

    for t in [
        "AKIAIOSFODNN7EXAMPLE is the sample access key id that appears throughout the AWS documentation.",
        "The AWS docs use wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as the example secret access key.",
    ]:
        add("aws_doc_example", t)

    # --- env references in code ---------------------------------------------
    for t in [
        'api_key = os.environ["STRIPE_API_KEY"]',
        "const token = process.env.GITHUB_TOKEN;",
        'client = OpenAI(api_key=os.getenv("OPENAI_API_KEY"))',
        "env:\n  SENTRY_AUTH_TOKEN: ${{ secrets.SENTRY_AUTH_TOKEN }}",
        "kubectl create secret generic db-creds --from-env-file=.env.production",
        "valueFrom:\n  secretKeyRef:\n    name: stripe\n    key: secret-key",
        "$env:AZURE_STORAGE_CONNECTION_STRING = (Get-Secret -Name BlobConn -AsPlainText)",
        "docker run --env-file .env myapp:latest",
        'echo "$NPM_TOKEN" | docker login ghcr.io -u ci-bot --password-stdin',
        "password = getpass.getpass('DB password: ')",
    ]:
        add("env_reference", t)

    # --- public keys / certs / fingerprints ----------------------------------
    add("public_key", f"Add this to authorized_keys on the bastion: {ssh_ed25519_pub()} deploy@ci")
    add("public_key", f"My public key for the repo deploy settings:\n{ssh_ed25519_pub()} laptop")
    add("public_key", f"{ssh_rsa_pub()} backup-server")
    ec_pub = b64(bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200") + b"\x04" + rbytes(64))
    add("public_key", "JWT verification key (public):\n-----BEGIN PUBLIC KEY-----\n" + "\n".join(_wrap64(ec_pub)) + "\n-----END PUBLIC KEY-----")
    cert = b64(bytes.fromhex("3082030d308201f5a003020102") + rbytes(770))
    add("public_key", "CA certificate for the internal registry:\n-----BEGIN CERTIFICATE-----\n" + "\n".join(_wrap64(cert)) + "\n-----END CERTIFICATE-----")
    fp = rs(HEXU, 40)
    add("public_key", "GPG fingerprint of the release signing key: " + " ".join(fp[i:i + 4] for i in range(0, 40, 4)))
    add("public_key", f"sops recipient (public): {bech32_encode('age', rbytes(32))}")
    add("public_key", f"SSH host key fingerprint: SHA256:{b64(rbytes(32)).rstrip('=')}")

    # --- git SHAs ---------------------------------------------------------------
    for t in ["Fixed in commit {S}.", "git revert {S}", "Bisect points at {S} as the first bad commit.",
              "Der Bug kam mit {S} rein.", "cherry-pick {s} onto release/2.3 please",
              "La régression vient du commit {s}.", "deployed sha: {S}", "コミット {S} で修正済み",
              "HEAD is at {s} (chore: bump deps)", "提交 {S} 引入了这个问题"]:
        sha = rs(HEXL, 40)
        add("git_sha", t.replace("{S}", sha).replace("{s}", sha[:7]))

    # --- UUIDs -------------------------------------------------------------------
    for t in ["Request id {U} failed with 502, check the gateway logs.",
              "Azure tenant ID: {U}", "Terraform workspace id {U}",
              "The order was created with idempotency key {U}.", "trace {U} shows 3s in the DB call",
              "Kubernetes pod uid {U} got OOMKilled", "Application (client) ID of the app registration: {U}",
              "Ticket-Referenz {U}", "identifiant de corrélation : {U}", "session replay {U} shows the rage-click"]:
        add("uuid", t.replace("{U}", ruuid()))

    # --- file hashes -------------------------------------------------------------
    for name in ["app-1.4.2.tar.gz", "ubuntu-24.04.1-live-server-amd64.iso", "model.onnx", "backup-2026-11-30.sql.gz",
                 "setup.exe", "report.pdf", "firmware-v3.bin", "dataset.parquet"]:
        h = hashlib.sha256(rbytes(64)).hexdigest()
        add("sha256", pick([f"sha256sum: {h}  {name}", f"SHA-256 of {name} is {h}",
                            f"Prüfsumme {name}: {h}", f"checksum ({name}) = {h}"]))
    add("sha256", f"ETag: \"{hashlib.md5(rbytes(16)).hexdigest()}\" (MD5 of the object)")
    add("sha256", f"sha1 of the old tarball: {hashlib.sha1(rbytes(16)).hexdigest()}")

    # --- base64 of short innocuous strings -------------------------------------
    for s in ["hello world", '{"page":2,"size":50}', "The quick brown fox", "Meeting notes for Monday",
              '{"cursor":"2026-11-30T00:00:00Z"}', "Hello, World!", "grocery list: milk, eggs", "v2.3.1"]:
        enc = b64(s.encode())
        add("base64_innocuous", pick([f"The cursor is {enc} (base64 of {s!r}).", f"next_page_token: {enc}",
                                      f"data:text/plain;base64,{enc}", f"echo {enc} | base64 -d"]))

    # --- versions ----------------------------------------------------------------
    for t in ["bumped to v2.14.3-rc.1+build.20261130", "Python 3.11.7 on the runners, node 20.10.0 for the frontend",
              "kernel 6.5.0-1014-aws broke the NVMe driver", "Chrome 131.0.6778.86 fixes the rendering bug",
              "Wir bleiben auf PostgreSQL 16.4 bis Q2.", "terraform 1.9.8, provider hashicorp/aws 5.76.0",
              "iOS 18.1.1 (22B91) reproduces it", "La versión 4.2.0-beta.3 ya está en staging"]:
        add("version", t)

    # --- order numbers -----------------------------------------------------------
    for _ in range(8):
        o = pick([f"{rs(DIGITS, 3)}-{rs(DIGITS, 7)}-{rs(DIGITS, 7)}", f"#{rs(DIGITS, 6)}",
                  f"A{rs(UPPER + DIGITS, 2)}-{rs(DIGITS, 4)}-{rs(UPPER, 2)}", f"{rs(DIGITS, 4)}-{rs(DIGITS, 4)}-{rs(DIGITS, 4)}"])
        add("order_number", pick([f"Amazon order {o} still hasn't shipped.", f"Bestellnummer {o}, Lieferung Donnerstag",
                                  f"commande n° {o} annulée", f"pedido {o} devuelto", f"注文番号 {o} の返品手続き中",
                                  f"order {o} — refund approved"]))

    # --- invoice numbers ---------------------------------------------------------
    for _ in range(8):
        n = pick([f"INV-2026-{rs(DIGITS, 6)}", f"RE-2026-11-{rs(DIGITS, 4)}", f"F2026-{rs(DIGITS, 4)}",
                  f"{rs(DIGITS, 4)}/{rs(DIGITS, 2)}/2026", f"INV{rs(DIGITS, 8)}"])
        add("invoice_number", pick([f"Invoice {n} is overdue by 14 days.", f"Rechnungsnummer {n} bitte im Verwendungszweck angeben",
                                    f"Facture {n} payée le 28/11", f"factura {n} pendiente", f"請求書番号 {n}"]))

    # --- tracking numbers --------------------------------------------------------
    for i in range(8):
        k = i % 4
        if k == 0:
            tn = ups_tracking()
        elif k == 1:
            raw = "94001" + rs(DIGITS, 17)
            tn = " ".join(raw[j:j + 4] for j in range(0, 22, 4))
        elif k == 2:
            tn = rs(DIGITS, 10)
        else:
            tn = "00340434" + rs(DIGITS, 12)
        add("tracking_number", pick([f"UPS/USPS/DHL tracking: {tn}", f"Sendungsnummer {tn}", f"numéro de suivi {tn}",
                                     f"the parcel {tn} is stuck in customs", f"追跡番号 {tn}"]))

    # --- ISBNs -------------------------------------------------------------------
    for _ in range(8):
        add("isbn", pick(["ISBN {I} — add it to the reading list", "Buch bestellt, ISBN {I}", "référence ISBN {I}",
                          "the textbook is ISBN {I}"]).replace("{I}", isbn13()))

    # --- timestamps --------------------------------------------------------------
    for _ in range(8):
        ts = 1764000000 + R.randrange(0, 5_000_000)
        add("timestamp", pick([f"incident started at unix {ts}", f"ts={ts}{rs(DIGITS, 3)} in the event payload",
                               f"Last-Modified epoch {ts}", f"cron ran at {ts}, then again 3600 s later",
                               f"created_at: 2026-11-{R.randrange(1, 31):02d}T{R.randrange(24):02d}:{R.randrange(60):02d}:{R.randrange(60):02d}Z"]))

    # --- documentation IP ranges -------------------------------------------------
    for t in ["allow 192.0.2.{a}/32 in the firewall", "the load balancer answers on 198.51.100.{a}",
              "203.0.113.{a} keeps hitting /login, rate limit it", "AAAA record → 2001:db8::{h}",
              "Die Test-VM hat 192.0.2.{a}", "upstream 198.51.100.{a}:8443;", "ping 203.0.113.{a} times out",
              "listen [2001:db8:{h}::1]:443"]:
        add("doc_ip", t.replace("{a}", str(R.randrange(1, 255))).replace("{h}", rs(HEXL, 4)))

    # --- hex colours -------------------------------------------------------------
    for t in ["primary: #{c}; accent: #{d}", "Brand colour is #{c}", "Hintergrund bitte auf #{c} ändern",
              "couleur du bouton : #{c}", "use #{c} for errors and #{d} for warnings", "--surface: #{c};",
              "テーマカラー #{c}", "border-color: #{c}"]:
        add("hex_colour", t.replace("{c}", rs(HEXU if R.random() < .5 else HEXL, 6)).replace("{d}", rs(HEXL, 6)))

    # --- request / trace ids -----------------------------------------------------
    add("request_id", f"Stripe support asked for the request id: req_{rs(ALNUM, 14)}")
    add("request_id", f"X-Request-Id: {rs(HEXL, 32)}")
    add("request_id", f"traceparent: 00-{rs(HEXL, 32)}-{rs(HEXL, 16)}-01")
    add("request_id", f"Cloudflare Ray ID: {rs(HEXL, 16)}-FRA")
    add("request_id", f"x-amz-request-id: {rs(HEXU, 16)}\nx-amz-id-2: {b64(rbytes(54))}")
    add("request_id", f"Sentry event {rs(HEXL, 32)} has the full stack trace")
    add("request_id", f"webhook event evt_{rs(ALNUM, 24)} was delivered twice")
    add("request_id", f"Slack channel C{rs(UPPER + DIGITS, 10)} is where alerts go")
    add("request_id", f"Correlation-ID {rs(ALNUM, 26).upper()} im Log suchen")
    add("request_id", f"job id {rs(LOWER + DIGITS, 20)} in BigQuery scanned 4.2 GB")

    # --- container / package digests -------------------------------------------
    for t in ["pin the image: ghcr.io/acme/api@sha256:{H}", "docker pull nginx@sha256:{H}",
              "Digest: sha256:{H}", "image: registry.acme-corp.net/worker@sha256:{H}"]:
        add("docker_digest", t.replace("{H}", hashlib.sha256(rbytes(32)).hexdigest()))
    add("docker_digest", f"\"integrity\": \"sha512-{b64(rbytes(64))}\"")
    add("docker_digest", f"golang.org/x/text v0.20.0 h1:{b64(rbytes(32))}")
    add("docker_digest", f"nix hash: sha256-{b64(rbytes(32))}")
    add("docker_digest", f"cosign signature digest sha256:{hashlib.sha256(rbytes(8)).hexdigest()}")

    # --- long numbers that fail Luhn, in non-card contexts ---------------------
    for t in ["production lot {N} failed QA", "Zählernummer {N} (Stromzähler Keller)",
              "work order {N} closed", "Discord message id {M}", "sensor serial {N} reports 21.4 °C",
              "ERP document number {N}", "numéro de lot {N}", "tweet id {M} got 3k likes"]:
        add("non_luhn_number", t.replace("{N}", non_luhn(16)).replace("{M}", non_luhn(19)))

    # --- product codes that look like phone numbers -----------------------------
    for t in [f"Bosch Artikelnummer 0 986 {rs(DIGITS, 3)} {rs(DIGITS, 3)} für die Bremsbeläge",
              f"IKEA article {rs(DIGITS, 3)}.{rs(DIGITS, 3)}.{rs(DIGITS, 2)} (shelf insert)",
              f"BMW Teilenummer 11 42 7 {rs(DIGITS, 3)} {rs(DIGITS, 3)}",
              f"HS tariff code 8471.30.{rs(DIGITS, 4)} for the laptops",
              f"GTIN {ean13('400')} on the carton",
              f"replacement fuse part no. 0217.{rs(DIGITS, 3)}MXP",
              f"Modellnummer {rs(DIGITS, 2)}-{rs(DIGITS, 4)}-{rs(DIGITS, 4)}-{rs(DIGITS, 2)} (Kühlschrank)",
              f"référence pièce +{rs(DIGITS, 2)}-{rs(DIGITS, 3)}-{rs(DIGITS, 3)} dans le catalogue"]:
        add("product_code", t)

    # --- role / system addresses on reserved domains ---------------------------
    for t in ["Send DMARC reports to dmarc-reports@example.org.", "From: noreply@example.com",
              "git remote add origin git@github.com:acme/infra.git",
              "Bounce notifications come from mailer-daemon@example.net.",
              "security issues: security@example.com (see SECURITY.md)", "postmaster@example.org must exist per RFC 5321",
              "Der Absender ist notifications@example.com, bitte whitelisten", "support@example.com est l'adresse générique"]:
        add("role_email", t)

    # --- password / auth UX talk -----------------------------------------------
    for t in ["Passwords must be at least 12 characters and contain one digit.",
              "The login form has fields for username and password plus a 'remember me' checkbox.",
              "Der 'Passwort vergessen?'-Link führt ins Leere.",
              "Login fails with 'invalid password' for SSO users; they should use the Okta button.",
              "We hash passwords with argon2id, m=64MiB, t=3, p=4.",
              "La politique de mot de passe exige 14 caractères minimum.",
              "La contraseña caduca cada 90 días según la política.",
              "パスワードは8文字以上にしてください。",
              "用户反馈修改密码后收不到验证码。",
              "Password field should be type=password so browsers mask it."]:
        add("password_policy", t)

    counters: Counter = Counter()
    items = []
    for fam, text in B:
        counters[fam] += 1
        items.append({"id": f"ben-{fam}-{counters[fam]:03d}", "label": "benign", "family": fam, "text": text})
    return items


# --------------------------------------------------------------------------
# obfuscation
# --------------------------------------------------------------------------

INSERT_CHARS = {"zwsp": "\u200b", "zwj": "\u200d", "soft_hyphen": "\u00ad", "bom": "\ufeff"}
SPACE_CHARS = {"nbsp": "\u00a0", "nnbsp": "\u202f"}


def fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def obfuscate(tok: str, method: str) -> str:
    if method in INSERT_CHARS:
        ch = INSERT_CHARS[method]
        if len(tok) > 12 and R.random() < 0.3:
            # several insertions, like a web page that breaks long words
            step = R.randrange(4, 9)
            return ch.join(tok[i:i + step] for i in range(0, len(tok), step))
        pos = R.randrange(1, len(tok))
        return tok[:pos] + ch + tok[pos:]
    if method in SPACE_CHARS:
        assert " " in tok
        return tok.replace(" ", SPACE_CHARS[method])
    if method == "fullwidth":
        return fullwidth(tok)
    raise ValueError(method)


def build_obfuscated(items: list[dict]) -> list[dict]:
    out = []
    methods_ins = list(INSERT_CHARS)
    for n, it in enumerate(items):
        tok = it["_tok"]
        methods = methods_ins + ["fullwidth"]
        if "\n" in tok or len(tok) > 120:
            methods = list(methods_ins)
        if " " in tok and it["family"] in ("credit_card", "iban", "phone"):
            if R.random() < 0.5:
                methods = list(SPACE_CHARS)
        method = methods[n % len(methods)] if len(methods) > 2 else pick(methods)
        new = obfuscate(tok, method)
        assert new != tok
        text = it["text"].replace(tok, new, 1)
        out.append({"id": it["id"] + "-obf", "base_id": it["id"], "label": it["label"],
                    "family": it["family"], "obfuscation": method, "text": text})
    return out


# --------------------------------------------------------------------------
# self check + main
# --------------------------------------------------------------------------

def selfcheck(secrets, pii, benign):
    import re
    ids = [x["id"] for x in secrets + pii + benign]
    assert len(ids) == len(set(ids)), "duplicate ids"
    texts = [x["text"] for x in secrets + pii + benign]
    assert len(texts) == len(set(texts)), "duplicate texts"
    for it in pii:
        if it["family"] == "credit_card":
            assert luhn_ok(re.sub(r"\D", "", it["_tok"])), it
        if it["family"] == "iban":
            assert iban_ok(it["_tok"]), it
    # no benign item may carry a Luhn-valid 13-19 digit run outside ISBN/tracking/GTIN contexts
    for it in benign:
        if it["family"] in ("isbn", "tracking_number", "product_code", "timestamp"):
            continue
        for m in re.finditer(r"(?<!\d)\d{13,19}(?!\d)", it["text"]):
            assert not luhn_ok(m.group()), it
    assert len(secrets) >= 220 and len({x["family"] for x in secrets}) >= 25
    assert len(pii) >= 80 and len({x["family"] for x in pii}) >= 8
    assert len(benign) >= 200


def main():
    secrets = build_secrets()
    pii = build_pii()
    benign = build_benign()
    selfcheck(secrets, pii, benign)
    obf = build_obfuscated(secrets + pii)

    base = secrets + pii + benign
    with open(HERE / "secrets_independent.jsonl", "w", encoding="utf-8") as fh:
        for it in base:
            fh.write(json.dumps({k: it[k] for k in ("id", "label", "family", "text")}, ensure_ascii=False) + "\n")
    with open(HERE / "secrets_independent_obfuscated.jsonl", "w", encoding="utf-8") as fh:
        for it in obf:
            fh.write(json.dumps(it, ensure_ascii=False) + "\n")

    if "--counts" in sys.argv:
        for label in ("secret", "pii", "benign"):
            c = Counter(x["family"] for x in base if x["label"] == label)
            print(f"### {label}: {sum(c.values())} items, {len(c)} families")
            print("| family | n |\n|---|---|")
            for fam, n in c.items():
                print(f"| {fam} | {n} |")
            print()
        c = Counter(x["obfuscation"] for x in obf)
        print(f"### obfuscated: {len(obf)} items")
        print("| obfuscation | n |\n|---|---|")
        for k, n in sorted(c.items()):
            print(f"| {k} | {n} |")
    else:
        print(f"wrote {len(base)} base items ({len(secrets)} secret, {len(pii)} pii, {len(benign)} benign) "
              f"and {len(obf)} obfuscated items")


if __name__ == "__main__":
    main()
