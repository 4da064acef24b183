#!/usr/bin/env python3
"""Third independent no-store corpus (set C) generator.

Python 3.11 standard library only. Seeded and deterministic: two runs write
byte-identical output. Usage:  python3 generate3.py [--counts]

All values are random (seeded) in the published alphabet/length of their
format; checksums are computed where a public algorithm exists. Nothing is a
real credential or a real person's data.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import struct
import sys
import zlib
import random
import urllib.parse
from collections import Counter, OrderedDict

SEED = 20261203
R = random.Random(SEED)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "secrets_set_c.jsonl")

DIG = "0123456789"
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
LOW = "abcdefghijklmnopqrstuvwxyz"
UPP = LOW.upper()
B62 = DIG + UPP + LOW
B64URL = B62 + "-_"
B32 = UPP + "234567"
LOWNUM = LOW + DIG


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def rb(n):
    return R.randbytes(n)


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def pick(seq):
    return R.choice(seq)


# ---------------------------------------------------------------- checksums
def luhn_ok(s):
    d = [int(c) for c in s if c.isdigit()]
    tot = 0
    for i, x in enumerate(reversed(d)):
        if i % 2 == 1:
            x *= 2
            if x > 9:
                x -= 9
        tot += x
    return tot % 10 == 0


def luhn_complete(partial):
    for c in DIG:
        if luhn_ok(partial + c):
            return partial + c
    raise AssertionError


def iban_ok(iban):
    s = iban.replace(" ", "")
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s):
        return False
    s = s[4:] + s[:4]
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97 == 1


def iban_make(cc, bban):
    n = "".join(str(int(c, 36)) for c in bban + cc + "00")
    chk = 98 - int(n) % 97
    return f"{cc}{chk:02d}{bban}"


def iban_print(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


_VD = [[0,1,2,3,4,5,6,7,8,9],[1,2,3,4,0,6,7,8,9,5],[2,3,4,0,1,7,8,9,5,6],[3,4,0,1,2,8,9,5,6,7],
       [4,0,1,2,3,9,5,6,7,8],[5,9,8,7,6,0,4,3,2,1],[6,5,9,8,7,1,0,4,3,2],[7,6,5,9,8,2,1,0,4,3],
       [8,7,6,5,9,3,2,1,0,4],[9,8,7,6,5,4,3,2,1,0]]
_VP = [[0,1,2,3,4,5,6,7,8,9],[1,5,7,6,2,8,3,0,9,4],[5,8,0,3,7,9,6,1,4,2],[8,9,1,6,0,4,3,5,2,7],
       [9,4,5,3,1,2,6,8,7,0],[4,2,8,6,5,7,3,9,0,1],[2,7,9,3,8,0,6,4,1,5],[7,0,4,6,9,1,3,2,5,8]]
_VINV = [0,4,3,2,1,5,6,7,8,9]


def verhoeff_ok(s):
    c = 0
    for i, ch in enumerate(reversed(s)):
        c = _VD[c][_VP[i % 8][int(ch)]]
    return c == 0


def verhoeff_digit(s):
    c = 0
    for i, ch in enumerate(reversed(s)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def dni_letter(n):
    return "TRWAGMYFPDXBNJZSQVHLCKE"[int(n) % 23]


def nir_key(n13):
    return 97 - int(n13) % 97


def bsn_ok(s):
    w = [9, 8, 7, 6, 5, 4, 3, 2, -1]
    return sum(int(a) * b for a, b in zip(s, w)) % 11 == 0


def pesel_digit(s10):
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return str((10 - sum(int(a) * b for a, b in zip(s10, w)) % 10) % 10)


def cpf_digits(s9):
    d = [int(c) for c in s9]
    for k in (10, 11):
        r = sum(x * w for x, w in zip(d, range(k, 1, -1))) * 10 % 11
        d.append(0 if r == 10 else r)
    return "".join(map(str, d))


HETU_CH = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu_char(ddmmyy, nnn):
    return HETU_CH[int(ddmmyy + nnn) % 31]


def tfn_ok(s):
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    return sum(int(a) * b for a, b in zip(s, w)) % 11 == 0


def cn_check(s17):
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return "10X98765432"[sum(int(a) * b for a, b in zip(s17, w)) % 11]


def mynumber_check(s11):
    p = [int(c) for c in reversed(s11)]
    tot = sum(p[n - 1] * ((n + 1) if n <= 6 else (n - 5)) for n in range(1, 12))
    r = tot % 11
    return "0" if r <= 1 else str(11 - r)


_CF_ODD = {**dict(zip("0123456789", [1, 0, 5, 7, 9, 13, 15, 17, 19, 21])),
           **dict(zip(UPP, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))}


def cf_check(s15):
    tot = 0
    for i, c in enumerate(s15):
        if i % 2 == 0:
            tot += _CF_ODD[c]
        else:
            tot += int(c) if c.isdigit() else ord(c) - 65
    return chr(65 + tot % 26)


def nhs_check(s9):
    r = 11 - sum(int(a) * w for a, w in zip(s9, range(10, 1, -1))) % 11
    if r == 11:
        return "0"
    if r == 10:
        return None
    return str(r)


def kvnr_check(letter, s8):
    ds = f"{ord(letter) - 64:02d}" + s8
    tot = 0
    for i, c in enumerate(ds):
        x = int(c) * (1 if i % 2 == 0 else 2)
        tot += x // 10 + x % 10
    return str(tot % 10)


def mrz_check(s):
    val = {**{c: int(c) for c in DIG}, **{c: ord(c) - 55 for c in UPP}, "<": 0}
    w = [7, 3, 1]
    return str(sum(val[c] * w[i % 3] for i, c in enumerate(s)) % 10)


def s10_check(d8):
    w = [8, 6, 4, 2, 3, 5, 9, 7]
    r = 11 - sum(int(a) * b for a, b in zip(d8, w)) % 11
    return "0" if r == 10 else ("5" if r == 11 else str(r))


def isbn13_check(s12):
    return str((10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(s12)) % 10) % 10)


def be_rrn_check(s9, born2000=False):
    n = int(("2" if born2000 else "") + s9)
    return f"{97 - n % 97:02d}"


def es_ccc_dc(bank, branch, account):
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]

    def one(s):
        r = 11 - sum(int(a) * b for a, b in zip(s, w)) % 11
        return {10: 1, 11: 0}.get(r, r)
    return f"{one('00' + bank + branch)}{one(account)}"


def fr_rib_key(bank, branch, account):
    tr = {c: str(v) for c, v in zip(UPP, "12345678912345678923456789")}
    acc = "".join(tr.get(c, c) for c in account)
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acc)) % 97:02d}"


def crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def b62enc(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


# --------------------------------------------------------------- self tests
def self_test_algorithms():
    out = []
    t = [
        ("luhn 79927398713", luhn_ok("79927398713")),
        ("luhn 4111111111111111", luhn_ok("4111111111111111")),
        ("luhn rejects 79927398710", not luhn_ok("79927398710")),
        ("iban GB82WEST12345698765432", iban_ok("GB82WEST12345698765432")),
        ("iban DE89370400440532013000", iban_ok("DE89370400440532013000")),
        ("iban FR1420041010050500013M02606", iban_ok("FR1420041010050500013M02606")),
        ("iban make DE89", iban_make("DE", "370400440532013000") == "DE89370400440532013000"),
        ("iban rejects GB83WEST12345698765432", not iban_ok("GB83WEST12345698765432")),
        ("verhoeff 236 -> 3", verhoeff_digit("236") == "3" and verhoeff_ok("2363")),
        ("dni 12345678Z", dni_letter("12345678") == "Z"),
        ("bsn 111222333", bsn_ok("111222333")),
        ("nir 2 55 08 14 168 025 -> 38", nir_key("2550814168025") == 38),
        ("pesel 44051401359", pesel_digit("4405140135") == "9"),
        ("cpf 529.982.247-25", cpf_digits("529982247") == "52998224725"),
        ("hetu 131052-308T", hetu_char("131052", "308") == "T"),
        ("sin 046 454 286 luhn", luhn_ok("046454286")),
        ("personnummer 811218-9876 luhn", luhn_ok("8112189876")),
        ("tfn 123456782", tfn_ok("123456782")),
        ("cn id 11010519491231002X", cn_check("11010519491231002") == "X"),
        ("my number 12345678901 -> 8", mynumber_check("12345678901") == "8"),
        ("codice fiscale RSSMRA85T10A562S", cf_check("RSSMRA85T10A562") == "S"),
        ("nhs 943 476 5919", nhs_check("943476591") == "9"),
        ("kvnr A12345678 -> 0", kvnr_check("A", "12345678") == "0"),
        ("mrz L898902C3 -> 6", mrz_check("L898902C3") == "6"),
        ("mrz 740812 -> 2", mrz_check("740812") == "2"),
        ("mrz 120415 -> 9", mrz_check("120415") == "9"),
        ("mrz composite ICAO 9303 specimen -> 0",
         mrz_check("L898902C36" + "7408122" + "1204159" + "ZE184226B<<<<<1") == "0"),
        ("isbn 978030640615 -> 7", isbn13_check("978030640615") == "7"),
        ("es CCC 2100 0418 45 0200051332", es_ccc_dc("2100", "0418", "0200051332") == "45"),
        ("fr RIB 20041 01005 0500013M026 -> 06", fr_rib_key("20041", "01005", "0500013M026") == "06"),
        ("crc24 of empty = B704CE", crc24(b"") == 0xB704CE),
    ]
    for name, ok in t:
        out.append(("PASS " if ok else "FAIL ") + name)
        assert ok, name
    return out


# ----------------------------------------------------------- value helpers
WORDS = ["Kestrel", "Tannenbaum", "marmelade", "Orchidee", "velvet", "Lagune", "cobalt", "Falke",
         "nimbus", "Quartz", "pistache", "Aurora", "harbor", "Sirocco", "Kiwano", "tortuga", "Molinillo",
         "girasole", "Vlinder", "jaskolka", "Zeppelin", "ocelot", "Bergamot", "fjord", "Tamarind",
         "Pelikan", "saffron", "Marmota", "Brumby", "Cormoran"]
PP_WORDS = ["granite", "umbrella", "lantern", "copper", "meadow", "violin", "tundra", "pepper",
            "glacier", "walnut", "saddle", "mosaic", "quiver", "ember", "orbit", "parsley",
            "harvest", "falcon", "ribbon", "cactus", "anchor", "thimble", "zephyr", "basalt"]
SYM = "!#$%&*+-.=?^_~"
URLSYM = "!*-._~"


def human_pw(url_safe=False):
    sym = URLSYM if url_safe else SYM
    k = R.randrange(5)
    if k == 0:
        return pick(WORDS) + str(R.randrange(1960, 2026)) + pick(sym)
    if k == 1:
        w = pick(WORDS)
        w = w.replace("a", "4").replace("e", "3").replace("o", "0")
        return w + pick(sym) + rs(DIG, 2)
    if k == 2:
        return rs(B62, 1) + rs(B62 + sym, R.randrange(11, 17)) + rs(DIG, 1)
    if k == 3:
        return "-".join(pick(PP_WORDS) for _ in range(4)) + str(R.randrange(10, 99))
    return pick(WORDS) + pick(sym) + pick(WORDS).lower() + rs(DIG, 3)


def strong_pw(n=20):
    return rs(B62, 1) + rs(B62 + "!#%*+-._~", n - 2) + rs(DIG, 1)


def pin(n=4):
    while True:
        p = rs(DIG, n)
        if len(set(p)) < 3 or p in "0123456789" or p in "9876543210" or p[:2] in ("19", "20"):
            continue
        return p


def hexs(n, up=False):
    return rs(HEXU if up else HEXL, n)


def uuid4():
    h = list(hexs(32))
    h[12] = "4"
    h[16] = pick("89ab")
    h = "".join(h)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def pem(label, der):
    body = b64(der)
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def ssh_string(b):
    return struct.pack(">I", len(b)) + b


HOSTS = ["db-prod-01.internal", "pg.eu-central-1.rds.amazonaws.com", "10.20.3.14", "mysql-replica.corp.lan",
         "cluster0.x7kqp.mongodb.net", "redis-master.cache.svc.cluster.local", "172.16.8.21", "warehouse.int.acme-logistics.io"]
SVCUSERS = ["app", "svc_billing", "deploy", "etl_runner", "reporting", "backend", "admin", "grafana_ro", "orders_api"]


# ----------------------------------------------------------------- corpus
items = []


def add(label, family, text):
    items.append((label, family, text))


# ============================================================ SECRETS ====
def gh_classic(prefix="ghp_"):
    body = rs(B62, 30)
    return prefix + body + b62enc(zlib.crc32(body.encode()), 6)


def aws_pair(prefix="AKIA"):
    return prefix + rs(B32, 16), rs(B62 + "/+", 40)


def secret_api_tokens():
    S = "secret"
    # --- cloud
    for _ in range(3):
        kid, sec = aws_pair()
        add(S, "aws_access_key", pick([
            f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {sec}\nregion = eu-west-1",
            f"Found this in the old CI log: AWS_ACCESS_KEY_ID={kid} AWS_SECRET_ACCESS_KEY={sec}",
            f"boto3.client('s3', aws_access_key_id='{kid}', aws_secret_access_key='{sec}')",
        ]))
    kid, sec = aws_pair("ASIA")
    tok = "IQoJb3JpZ2luX2Vj" + rs(B62 + "/+", 300)
    add(S, "aws_access_key", f"temporary creds from sts assume-role:\nAccessKeyId: {kid}\nSecretAccessKey: {sec}\nSessionToken: {tok}")
    for t in [
        "Maps key for the store locator (unrestricted!): {k}",
        "curl \"https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent?key={k}\"",
    ]:
        add(S, "google_api_key", t.format(k="AIza" + rs(B64URL, 35)))
    sa_pem = pem("PRIVATE KEY", bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8") + rb(1192)).replace("\n", "\\n")
    add(S, "gcp_service_account", json.dumps(OrderedDict([
        ("type", "service_account"), ("project_id", "ledger-prod-4417"), ("private_key_id", hexs(40)),
        ("private_key", "@@PK@@"), ("client_email", "exporter@ledger-prod-4417.iam.gserviceaccount.com"),
        ("client_id", rs(DIG, 21)), ("token_uri", "https://oauth2.googleapis.com/token")]), indent=1).replace("@@PK@@", sa_pem))
    for t in [
        "DefaultEndpointsProtocol=https;AccountName=stinvoicesprod;AccountKey={k};EndpointSuffix=core.windows.net",
        "az storage blob upload --account-name backupsweu --account-key \"{k}\" -c nightly -f dump.sql.gz",
    ]:
        add(S, "azure_storage_key", t.format(k=b64(rb(64))))
    for _ in range(2):
        cs = rs(B62, 3) + R.choice(DIG) + "Q~" + rs(B62 + "~._-", 34)
        add(S, "azure_client_secret", pick([
            f"AZURE_TENANT_ID={uuid4()}\nAZURE_CLIENT_ID={uuid4()}\nAZURE_CLIENT_SECRET={cs}",
            f"App registration 'payroll-sync' client secret (expires 2027-06): {cs}",
        ]))
    add(S, "digitalocean_token", f"doctl auth init --access-token dop_v1_{hexs(64)}")
    add(S, "hetzner_token", f"hcloud context create prod  # token: {rs(B62, 64)}")
    add(S, "linode_token", f"LINODE_TOKEN={hexs(64)}  # full read/write personal access token")
    add(S, "cloudflare_token", f"Cloudflare API token with Zone:DNS:Edit for acme-shop.com: {rs(B64URL, 40)}")
    add(S, "cloudflare_token", f"X-Auth-Email: ops@acme-shop.com\nX-Auth-Key: {hexs(37)}")
    # --- source hosting / CI
    add(S, "github_token", f"git clone https://x-access-token:{gh_classic('ghs_')}@github.com/acme/billing.git")
    add(S, "github_token", f"export GITHUB_TOKEN={gh_classic()}")
    add(S, "github_token", f"gh auth login --with-token <<< github_pat_{rs(B62, 22)}_{rs(B62, 59)}")
    add(S, "gitlab_token", f"curl --header \"PRIVATE-TOKEN: glpat-{rs(B64URL, 20)}\" https://gitlab.acme.dev/api/v4/projects")
    add(S, "gitlab_token", f"gitlab-runner register --url https://gitlab.acme.dev --token glrt-{rs(B64URL, 20)}")
    add(S, "gitlab_token", f"deploy token for the registry: username gitlab+deploy-token-31, password gldt-{rs(B64URL, 20)}")
    add(S, "bitbucket_app_password", f"Bitbucket app password for the pipelines bot: ATBB{rs(B62, 28)}{hexs(8, True)}")
    add(S, "buildkite_token", f"BUILDKITE_API_TOKEN=bkua_{hexs(40)}")
    add(S, "terraform_cloud_token", "credentials \"app.terraform.io\" {\n  token = \"" + rs(B62, 14) + ".atlasv1." + rs(B62, 67) + "\"\n}")
    add(S, "doppler_token", f"DOPPLER_TOKEN=dp.st.prd.{rs(B62, 43)} doppler run -- ./server")
    add(S, "pulumi_token", f"export PULUMI_ACCESS_TOKEN=pul-{hexs(40)}")
    add(S, "netlify_token", f"netlify deploy --prod --auth nfp_{rs(B62, 36)}")
    add(S, "jenkins_token", f"curl -X POST -u ci-bot:11{hexs(32)} https://jenkins.acme.dev/job/release/build")
    add(S, "azure_devops_pat", f"Azure DevOps PAT (Code read/write), org acme-fin: {rs(LOW + '234567', 52)}")
    add(S, "sentry_token", f"SENTRY_AUTH_TOKEN=sntryu_{hexs(64)}")
    add(S, "vault_token", f"export VAULT_ADDR=https://vault.acme.dev:8200\nexport VAULT_TOKEN=hvs.{rs(B64URL, 24)}")
    # --- payments
    add(S, "stripe_key", f"STRIPE_SECRET_KEY=sk_live_51{rs(B62, 97)}")
    add(S, "stripe_key", f"stripe.api_key = \"rk_live_{rs(B62, 24)}\"  # restricted: charges read")
    add(S, "stripe_key", f"Webhook signing secret for /hooks/stripe: whsec_{rs(B62, 32)}")
    add(S, "square_token", f"SQUARE_ACCESS_TOKEN=EAAA{rs(B64URL, 60)}")
    add(S, "braintree_token", f"PAYPAL_ACCESS_TOKEN=access_token$production${rs(LOWNUM, 16)}${hexs(32)}")
    add(S, "razorpay_key", f"key_id: rzp_live_{rs(B62, 14)}\nkey_secret: {rs(B62, 24)}")
    add(S, "shopify_token", f"X-Shopify-Access-Token: shpat_{hexs(32)}")
    # --- chat
    add(S, "slack_token", f"SLACK_BOT_TOKEN=xoxb-{rs(DIG, 12)}-{rs(DIG, 13)}-{rs(B62, 24)}")
    add(S, "slack_token", f"app-level token for socket mode: xapp-1-A{rs(UPP + DIG, 10)}-{rs(DIG, 13)}-{hexs(64)}")
    add(S, "slack_token", f"slack_sdk.WebClient(token=\"xoxp-{rs(DIG, 12)}-{rs(DIG, 12)}-{rs(DIG, 13)}-{hexs(32)}\")")
    uid = str(R.randrange(10**17, 10**18 * 2))
    add(S, "discord_bot_token", f"DISCORD_TOKEN={b64u(uid.encode())}.{rs(B64URL, 6)}.{rs(B64URL, 38)}")
    add(S, "discord_bot_token", f"client.login('{b64u(str(R.randrange(10**17, 10**18)).encode())}.{rs(B64URL, 6)}.{rs(B64URL, 38)}');")
    add(S, "telegram_bot_token", f"BotFather gave me: {R.randrange(10**9, 8 * 10**9)}:AA{rs(B64URL, 33)} — use it for the alerts bot")
    add(S, "telegram_bot_token", f"curl https://api.telegram.org/bot{R.randrange(10**8, 10**9)}:AA{rs(B64URL, 33)}/getUpdates")
    add(S, "twilio_key", f"TWILIO_API_KEY=SK{hexs(32)}\nTWILIO_API_SECRET={rs(B62, 32)}")
    add(S, "twilio_key", f"client = Client(\"AC{hexs(32)}\", \"{hexs(32)}\")")
    # --- AI providers
    add(S, "openai_key", f"OPENAI_API_KEY=sk-proj-{rs(B64URL, 74)}T3BlbkFJ{rs(B64URL, 74)}")
    add(S, "openai_key", f"client = OpenAI(api_key=\"sk-svcacct-{rs(B64URL, 74)}T3BlbkFJ{rs(B64URL, 74)}\")")
    add(S, "openai_key", f"old key still works: sk-{rs(B62, 20)}T3BlbkFJ{rs(B62, 20)}")
    add(S, "anthropic_key", f"ANTHROPIC_API_KEY=sk-ant-api03-{rs(B64URL, 93)}AA")
    add(S, "anthropic_key", f"x-api-key: sk-ant-admin01-{rs(B64URL, 93)}AA")
    add(S, "groq_key", f"GROQ_API_KEY=gsk_{rs(B62, 52)}")
    add(S, "xai_key", f"export XAI_API_KEY=xai-{rs(B62, 80)}")
    add(S, "huggingface_token", f"huggingface-cli login --token hf_{rs(UPP + LOW, 34)}")
    add(S, "replicate_token", f"REPLICATE_API_TOKEN=r8_{rs(B62, 37)}")
    add(S, "perplexity_key", f"Authorization: Bearer pplx-{rs(B62, 48)}")
    add(S, "cohere_key", f"co = cohere.Client(\"{rs(B62, 40)}\")  # Cohere production API key")
    add(S, "mistral_key", f"MISTRAL_API_KEY={rs(B62, 32)}")
    # --- package registries
    add(S, "npm_token", f"//registry.npmjs.org/:_authToken=npm_{(lambda b: b + b62enc(zlib.crc32(b.encode()), 6))(rs(B62, 30))}")
    add(S, "pypi_token", "[pypi]\n  username = __token__\n  password = pypi-AgEIcHlwaS5vcmc" + b64u(rb(110)))
    add(S, "rubygems_key", f"---\n:rubygems_api_key: rubygems_{hexs(48)}")
    add(S, "nuget_key", f"dotnet nuget push Acme.Core.3.2.0.nupkg --api-key oy2{rs(LOWNUM, 43)} --source https://api.nuget.org/v3/index.json")
    add(S, "cratesio_token", "[registry]\ntoken = \"cio" + rs(B62, 32) + "\"")
    add(S, "dockerhub_token", f"echo dckr_pat_{rs(B64URL, 27)} | docker login -u acmebuild --password-stdin")
    add(S, "composer_auth", "{\"github-oauth\": {\"github.com\": \"" + gh_classic("gho_") + "\"}}")
    # --- SaaS / databases-as-a-service / observability
    add(S, "datadog_key", f"DD_API_KEY={hexs(32)}\nDD_APP_KEY={hexs(40)}")
    add(S, "newrelic_key", f"NEW_RELIC_API_KEY=NRAK-{rs(UPP + DIG, 27)}")
    add(S, "sendgrid_key", f"SENDGRID_API_KEY=SG.{rs(B64URL, 22)}.{rs(B64URL, 43)}")
    add(S, "mailgun_key", f"MAILGUN_API_KEY=key-{hexs(32)}")
    add(S, "mailchimp_key", f"Mailchimp API key: {hexs(32)}-us{R.randrange(1, 21)}")
    add(S, "postmark_token", f"X-Postmark-Server-Token: {uuid4()}")
    add(S, "algolia_key", f"ALGOLIA_APP_ID={rs(UPP + DIG, 10)}\nALGOLIA_ADMIN_API_KEY={hexs(32)}")
    add(S, "mapbox_secret", f"MAPBOX_DOWNLOADS_TOKEN=sk.{b64u(json.dumps({'u': 'acmemaps', 'a': rs(LOWNUM, 25)}).encode())}.{rs(B64URL, 22)}")
    add(S, "firebase_fcm_key", f"Authorization: key=AAAA{rs(B64URL, 7)}:APA91b{rs(B64URL, 134)}")
    add(S, "okta_token", f"Authorization: SSWS 00{rs(B64URL, 40)}")
    add(S, "planetscale_password", f"DATABASE_PASSWORD=pscale_pw_{rs(B64URL, 43)}")
    add(S, "supabase_key", f"SUPABASE_SERVICE_ROLE_KEY=sb_secret_{rs(B64URL, 31)}")
    add(S, "figma_token", f"X-Figma-Token: figd_{rs(B64URL, 40)}")
    add(S, "notion_token", f"NOTION_TOKEN=ntn_{rs(DIG, 11)}{rs(B62, 35)}")
    add(S, "linear_key", f"LINEAR_API_KEY=lin_api_{rs(B62, 40)}")
    add(S, "airtable_pat", f"Authorization: Bearer pat{rs(B62, 14)}.{hexs(64)}")
    add(S, "grafana_token", f"GRAFANA_SA_TOKEN=glsa_{rs(B62, 32)}_{hexs(8)}")
    add(S, "jwt_bearer", "Authorization: Bearer " + make_jwt())
    add(S, "jwt_bearer", "access_token=" + make_jwt(alg="RS256") + "; refresh it before 10:00")


def make_jwt(alg="HS256"):
    hdr = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    iat = 1795000000 + R.randrange(10**6)
    pl = b64u(json.dumps({"sub": "svc-" + rs(LOWNUM, 8), "scope": "orders:write admin", "iat": iat, "exp": iat + 86400}, separators=(",", ":")).encode())
    if alg == "HS256":
        sig = b64u(hmac.new(rb(32), f"{hdr}.{pl}".encode(), hashlib.sha256).digest())
    else:
        sig = b64u(rb(256))
    return f"{hdr}.{pl}.{sig}"


def secret_connection_strings():
    S, F = "secret", "connection_string"
    T = [
        "DATABASE_URL=postgresql://{u}:{p}@{h}:5432/orders?sslmode=require",
        "postgres://{u}:{pe}@{h}/analytics",
        "mysql://{u}:{p}@{h}:3306/shop",
        "SQLALCHEMY_DATABASE_URI = 'mariadb+pymysql://{u}:{p}@{h}/crm'",
        "MONGO_URI=mongodb+srv://{u}:{p}@cluster0.x7kqp.mongodb.net/prod?retryWrites=true&w=majority",
        "mongodb://{u}:{p}@mongo-0.mongo:27017,mongo-1.mongo:27017/admin?replicaSet=rs0",
        "REDIS_URL=rediss://:{p}@redis-master.cache.svc.cluster.local:6380/0",
        "CELERY_BROKER_URL=amqps://{u}:{p}@rabbit.internal:5671/jobs",
        "Server=tcp:sql-acme-prod.database.windows.net,1433;Initial Catalog=Billing;User ID={u};Password={p};Encrypt=True;",
        "jdbc:mysql://{h}:3306/inventory?user={u}&password={p}&useSSL=true",
        "spring.datasource.url=jdbc:postgresql://{h}:5432/ledger?user={u}&password={pe}",
        "jdbc:oracle:thin:{u}/{p}@//ora-prod.corp.lan:1521/FINPDB",
        "clickhouse://{u}:{p}@ch.internal:9000/events",
        "snowflake://{u}:{p}@acme-xy12345/ANALYTICS/PUBLIC?warehouse=COMPUTE_WH",
        "ldapsearch -x -H ldaps://ldap.corp.lan -D \"cn=svc-ldap,ou=services,dc=corp,dc=lan\" -w '{p}' \"(uid=*)\"",
        "ftp://{u}:{p}@ftp.acme-logistics.io/outgoing/",
        "smb://CORP;{u}:{p}@fileserver01/finance",
        "NEO4J_URI=neo4j+s://{u}:{p}@4f1c2e7a.databases.neo4j.io",
        "mqtt://{u}:{p}@broker.iot-fleet.net:1883",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{u}\" password=\"{p}\";",
        "ELASTICSEARCH_URL=https://elastic:{p}@es.internal:9200",
    ]
    for t in T:
        p = human_pw(url_safe=True)
        pe = urllib.parse.quote(human_pw(), safe="")
        add(S, F, t.format(u=pick(SVCUSERS), p=p, pe=pe, h=pick(HOSTS)))


def secret_private_keys():
    S = "secret"
    rsa = bytes.fromhex("308204a40201000282010100") + rb(0x4a4 + 4 - 12)
    add(S, "pem_private_key", pem("RSA PRIVATE KEY", rsa))
    ec = bytes.fromhex("30770201010420") + rb(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rb(64)
    add(S, "pem_private_key", "key.pem for the mTLS client:\n" + pem("EC PRIVATE KEY", ec))
    ed = bytes.fromhex("302e020100300506032b657004220420") + rb(32)
    add(S, "pem_private_key", "```\n" + pem("PRIVATE KEY", ed) + "\n```")
    p8 = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7") + rb(1191)
    add(S, "pem_private_key", "ssl_certificate_key content (paste into the secret):\n" + pem("PRIVATE KEY", p8))
    for comment in ["deploy@ci-runner-3", "backup-job"]:
        pub = rb(32)
        pubblob = ssh_string(b"ssh-ed25519") + ssh_string(pub)
        chk = rb(4)
        priv = chk + chk + ssh_string(b"ssh-ed25519") + ssh_string(pub) + ssh_string(rb(32) + pub) + ssh_string(comment.encode())
        pad = 1
        while len(priv) % 8:
            priv += bytes([pad])
            pad += 1
        blob = b"openssh-key-v1\x00" + ssh_string(b"none") + ssh_string(b"none") + ssh_string(b"") + struct.pack(">I", 1) + ssh_string(pubblob) + ssh_string(priv)
        body = b64(blob)
        txt = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body[i:i + 70] for i in range(0, len(body), 70)) + "\n-----END OPENSSH PRIVATE KEY-----"
        add(S, "openssh_private_key", (f"cat ~/.ssh/id_ed25519\n" if comment == "backup-job" else "") + txt)
    # PGP private key block with a real CRC24 armor checksum
    pk = b"\x95\x03\x98\x04" + rb(4) + b"\x16\x09\x2b\x06\x01\x04\x01\xda\x47\x0f\x01\x01\x07\x40" + rb(400)
    body = b64(pk)
    c = b64(crc24(pk).to_bytes(3, "big"))
    add(S, "pgp_private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) + f"\n={c}\n-----END PGP PRIVATE KEY BLOCK-----")
    add(S, "jwk_private", json.dumps({"kty": "EC", "crv": "P-256", "kid": "sig-2026-11", "use": "sig",
                                      "x": b64u(rb(32)), "y": b64u(rb(32)), "d": b64u(rb(32))}))
    add(S, "jwk_private", "signing key for the OIDC provider: " + json.dumps({"kty": "OKP", "crv": "Ed25519", "x": b64u(rb(32)), "d": b64u(rb(32))}))
    add(S, "jwk_private", json.dumps({"keys": [{"kty": "RSA", "kid": "k1", "n": b64u(rb(256)), "e": "AQAB", "d": b64u(rb(256)),
                                                "p": b64u(rb(128)), "q": b64u(rb(128)), "dp": b64u(rb(128)), "dq": b64u(rb(128)), "qi": b64u(rb(128))}]}))
    add(S, "wireguard_private_key", f"[Interface]\nPrivateKey = {b64(rb(32))}\nAddress = 10.8.0.7/32\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = {b64(rb(32))}\nEndpoint = vpn.acme-logistics.io:51820\nAllowedIPs = 0.0.0.0/0")
    pl = b64(rb(64))
    add(S, "putty_private_key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: jump-host\nPublic-Lines: 2\n"
        + "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rb(33))[:43] + "\n" + b64(rb(12)) + "\nPrivate-Lines: 1\n" + pl + f"\nPrivate-MAC: {hexs(64)}")


def secret_password_prose():
    S, F = "secret", "password_prose"
    T = [
        ("en", "My online banking password is {p} — writing it here so I stop forgetting it."),
        ("en", "note to self: the admin password for the staging Grafana is {p}"),
        ("de", "Mein Passwort für das Firmen-VPN lautet {p}."),
        ("de", "Das Kennwort für den Router im Keller ist {p}, bitte nicht weitergeben."),
        ("fr", "Mon mot de passe pour le compte Ameli, c'est {p}"),
        ("fr", "Le mot de passe du serveur de sauvegarde est {p} (à changer après l'audit)."),
        ("es", "Mi contraseña del correo del trabajo es {p}"),
        ("es", "La clave del panel de administración es {p}, no la compartas."),
        ("pt", "A minha senha do homebanking é {p}"),
        ("it", "La mia password di Gmail è {p}"),
        ("nl", "Mijn wachtwoord voor de NAS is {p}"),
        ("nl", "Het wachtwoord van het gedeelde boekhoudaccount is {p}."),
        ("pl", "Moje hasło do banku to {p}"),
        ("pl", "Hasło do serwera produkcyjnego: {p}"),
        ("ja", "私のパスワードは{p}です。"),
        ("ja", "管理画面のログインパスワード：{p}（絶対に共有しないこと）"),
        ("zh", "我的邮箱密码是{p}"),
        ("zh", "服务器的登录密码是 {p}，别告诉别人。"),
        ("ru", "Мой пароль от почты — {p}"),
        ("tr", "E-posta şifrem {p}, unutursam buraya bakarım."),
        ("ko", "회사 VPN 비밀번호는 {p} 입니다."),
        ("en", "user: ops-admin / pass: {p}"),
    ]
    for _, t in T:
        add(S, F, t.format(p=human_pw()))


def secret_password_config():
    S, F = "secret", "password_config"
    T = [
        "[database]\nhost = 10.20.3.14\nuser = app\npassword = {p}\n",
        "spring:\n  datasource:\n    username: orders\n    password: {p}",
        "{{\"db\": {{\"host\": \"db-prod-01.internal\", \"user\": \"reporting\", \"password\": \"{p}\"}}}}",
        "[server]\nadmin_user = \"ops\"\nadmin_password = \"{p}\"",
        "DB_HOST=db-prod-01.internal\nDB_USER=backend\nDB_PASSWORD={p}",
        "<server>\n  <id>nexus-releases</id>\n  <username>deploy</username>\n  <password>{p}</password>\n</server>",
        "resource \"aws_db_instance\" \"main\" {{\n  engine   = \"postgres\"\n  username = \"dbadmin\"\n  password = \"{p}\"\n}}",
        "FROM mysql:8.4\nENV MYSQL_ROOT_PASSWORD={p}\nCOPY schema.sql /docker-entrypoint-initdb.d/",
        "  512  mysql -u root -p'{p}' -h 127.0.0.1 shop",
        "  88  sshpass -p '{p}' ssh deploy@10.20.3.17",
        "curl -u admin:{pu} https://jenkins.acme.dev/api/json",
        "PGPASSWORD='{p}' psql -h db-prod-01.internal -U analytics -d warehouse",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  username: {bu}\n  password: {bp}",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\nstringData:\n  SMTP_PASSWORD: \"{p}\"",
        "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: \"{p}\"",
        "machine api.acme.dev\n  login ci-bot\n  password {p}",
        "db-prod-01.internal:5432:*:app:{p}",
        "ansible_user: deploy\nansible_become_password: \"{p}\"",
        "$pw = ConvertTo-SecureString \"{p}\" -AsPlainText -Force",
        "define( 'DB_PASSWORD', '{p}' );",
        "conn = psycopg2.connect(host=\"10.20.3.14\", user=\"etl_runner\", password=\"{p}\", dbname=\"dw\")",
        "\"ConnectionStrings\": {{ \"Default\": \"Host=db;Database=app;Username=app;Password={p}\" }}",
        "echo '{p}' | sudo -S systemctl restart nginx",
        "net use Z: \\\\fileserver01\\finance {p} /user:CORP\\svc_backup",
        "smtp:\n  host: smtp.mailgun.org\n  user: postmaster@mg.acme-shop.com\n  pass: {p}",
    ]
    for t in T:
        p = human_pw()
        add(S, F, t.format(p=p, pu=human_pw(url_safe=True), bu=b64(b"app"), bp=b64(p.encode())))


BIP39 = ["abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd", "abuse", "access",
         "accident", "account", "accuse", "achieve", "acid", "acoustic", "acquire", "across", "act", "action", "actor",
         "actress", "actual", "adapt", "add", "addict", "address", "adjust", "admit", "adult", "advance", "advice",
         "aerobic", "affair", "afford", "afraid", "again", "age", "agent", "agree", "ahead", "aim", "air", "airport",
         "aisle", "alarm", "album", "alcohol", "alert", "alien", "all", "alley", "allow", "almost", "alone", "alpha",
         "already", "also", "alter", "always", "amateur", "amazing", "among", "amount", "amused", "analyst", "anchor",
         "ancient", "anger", "angle", "angry", "animal", "ankle", "announce", "annual", "another", "answer", "antenna",
         "bridge", "cable", "canvas", "castle", "crystal", "dolphin", "eagle", "forest", "garden", "guitar", "hammer",
         "island", "jungle", "kitchen", "lemon", "marble", "napkin", "ocean", "orange", "panda", "pilot", "planet",
         "rabbit", "river", "rocket", "salmon", "shadow", "silver", "spider", "sugar", "tiger", "tomato", "tunnel",
         "velvet", "village", "winter", "zebra", "zero", "zone", "zoo", "wagon", "walnut", "warrior", "wealth", "weasel", "whisper", "window", "wolf"]


def secret_otp_recovery():
    S = "secret"
    add(S, "totp_seed", f"otpauth://totp/AcmeVPN:svc-oncall?secret={rs(B32, 32)}&issuer=AcmeVPN&algorithm=SHA1&digits=6&period=30")
    add(S, "totp_seed", f"2FA setup key for the shared AWS root account (enter manually): {' '.join(rs(B32.lower(), 4) for _ in range(8))}")
    codes = [f"{hexs(5)}-{hexs(5)}" for _ in range(16)]
    add(S, "recovery_codes", "github-recovery-codes.txt\n" + "\n".join(codes))
    add(S, "recovery_codes", "Google backup codes (each works once):\n" + "\n".join(f"{rs(DIG, 4)} {rs(DIG, 4)}" for _ in range(10)))
    add(S, "recovery_codes", "BitLocker recovery key for LAPTOP-FIN07: " + "-".join(f"{11 * R.randrange(1, 65535):06d}" for _ in range(8)))
    add(S, "recovery_codes", "Apple ID recovery key: " + "-".join(rs(UPP + DIG, 4) for _ in range(7)))
    add(S, "recovery_codes", "Microsoft account recovery code: " + "-".join(rs(UPP + DIG, 5) for _ in range(5)))
    add(S, "one_time_code", f"Your Acme Bank verification code is {pin(6)}. Never share this code with anyone.")
    add(S, "one_time_code", f"Dein Anmeldecode lautet {pin(6)}. Er ist 10 Minuten gültig.")
    add(S, "one_time_code", f"Code de connexion à usage unique : {pin(6)}")
    add(S, "seed_phrase", "wallet seed phrase (12 words): " + " ".join(R.sample(BIP39, 12)))
    add(S, "seed_phrase", "Recovery phrase, write down and keep offline:\n" + "\n".join(f"{i + 1}. {w}" for i, w in enumerate(R.sample(BIP39, 24))))


def secret_wifi():
    S, F = "secret", "wifi_password"
    add(S, F, f"WIFI:T:WPA;S:Bakery-Guest;P:{human_pw()};;")
    add(S, F, f"WIFI:S:FRITZ!Box 7590 KL;T:WPA;P:{rs(DIG, 20)};H:false;;")
    add(S, F, f"The wifi at the cabin is 'Seeblick' and the password is {human_pw()}")
    add(S, F, f"WLAN-Schlüssel fürs Büro: {rs(DIG, 4)} {rs(DIG, 4)} {rs(DIG, 4)} {rs(DIG, 4)}")
    add(S, F, f"network={{\n    ssid=\"ACME-Office\"\n    psk=\"{human_pw()}\"\n}}")
    add(S, F, f"interface=wlan0\nssid=warehouse-scanners\nwpa=2\nwpa_passphrase={human_pw()}")
    add(S, F, f"Contraseña del wifi de casa: {human_pw()}")
    add(S, F, f"ワイファイのパスワード：{rs(LOWNUM, 13)}")


def secret_pins():
    S, F = "secret", "pin_code"
    T = [
        "PIN for my debit card: {p4}",
        "The door code for the back entrance is {p4}#",
        "Alarmanlage Code {p4}, Notfall-Code {p4b}",
        "Le code de la porte de l'immeuble est {p4}B.",
        "El PIN de la tarjeta es {p4}",
        "SIM PIN {p4}, PUK {p8}",
        "Combinación de la caja fuerte: {c}",
        "暗証番号は{p4}です",
        "o código do portão é {p4}",
    ]
    for t in T:
        add(S, F, t.format(p4=pin(4), p4b=pin(4), p6=pin(6), p8=pin(8), c="-".join(str(R.randrange(1, 60)) for _ in range(3))))


def secret_cookies_headers():
    S = "secret"
    add(S, "session_cookie", f"Cookie: sessionid={rs(LOWNUM, 32)}; csrftoken={rs(B62, 64)}")
    add(S, "session_cookie", f"connect.sid=s%3A{rs(B64URL, 32)}.{rs(B62 + '+/', 43)}  <- copied from devtools, I'm logged in as admin with this")
    add(S, "session_cookie", f"PHPSESSID={rs('abcdefghijklmnopqrstuv0123456789', 26)} (session of the logged-in shop admin)")
    lv = b64(json.dumps({"iv": b64(rb(16)), "value": b64(rb(48)), "mac": hexs(64), "tag": ""}, separators=(",", ":")).encode())
    add(S, "session_cookie", f"Cookie: XSRF-TOKEN={rs(B64URL, 40)}; laravel_session={lv}")
    add(S, "session_cookie", f"_acme_session={b64(rb(120))}--{hexs(40)}")
    add(S, "session_cookie", f"JSESSIONID={hexs(32, True)}; Path=/portal; Secure; HttpOnly")
    add(S, "session_cookie", f"__Secure-next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..{b64u(rb(12))}.{b64u(rb(180))}.{b64u(rb(16))}")
    add(S, "session_cookie", f"Set-Cookie: .AspNetCore.Cookies=CfDJ8{rs(B64URL, 300)}; path=/; secure; samesite=lax; httponly")
    for u in ["deploy", "ci-bot", "scanner"]:
        cred = b64(f"{u}:{human_pw()}".encode())
        add(S, "basic_auth_header", pick([f"Authorization: Basic {cred}", f"curl -H 'Authorization: Basic {cred}' https://registry.acme.dev/v2/_catalog", f"Proxy-Authorization: Basic {cred}"]))
    add(S, "basic_auth_header", f"location /metrics {{ proxy_set_header Authorization \"Basic {b64(('prometheus:' + human_pw()).encode())}\"; }}")
    add(S, "bearer_token", f"Authorization: Bearer {rs(B62, 40)}   # Vercel token for the acme team")
    add(S, "bearer_token", f"requests.get(url, headers={{\"Authorization\": \"Token {hexs(40)}\"}})  # DRF token of the admin user")


def secret_signed_urls():
    S, F = "secret", "signed_url"
    kid = "AKIA" + rs(B32, 16)
    add(S, F, f"https://acme-exports.s3.eu-west-1.amazonaws.com/payroll/2026-11.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={kid}%2F20261201%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261201T091500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={hexs(64)}")
    add(S, F, f"https://storage.googleapis.com/acme-backups/db/2026-12-01.dump?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=backup%40acme-prod.iam.gserviceaccount.com%2F20261201%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261201T080000Z&X-Goog-Expires=86400&X-Goog-SignedHeaders=host&X-Goog-Signature={hexs(512)}")
    sig = urllib.parse.quote(b64(rb(32)), safe="")
    add(S, F, f"https://stinvoicesprod.blob.core.windows.net/invoices?sv=2022-11-02&ss=b&srt=sco&sp=rwdlacupx&se=2027-12-31T23:59:59Z&st=2026-12-01T00:00:00Z&spr=https&sig={sig}")
    add(S, F, f"https://d1x9k2examplecdn.cloudfront.net/videos/onboarding.mp4?Expires=1796000000&Signature={rs(B62 + '-~', 172)}__&Key-Pair-Id=K{rs(UPP + DIG, 13)}")


def secret_webhooks():
    S, F = "secret", "webhook_url"
    add(S, F, f"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T{rs(UPP + DIG, 10)}/B{rs(UPP + DIG, 10)}/{rs(B62, 24)}")
    add(S, F, f"https://discord.com/api/webhooks/{R.randrange(10**17, 10**18 * 2)}/{rs(B64URL, 68)}")
    add(S, F, f"https://acmefin.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}/IncomingWebhook/{hexs(32)}/{uuid4()}/V2{rs(B64URL, 43)}")
    add(S, F, f"https://chat.googleapis.com/v1/spaces/AAAA{rs(B64URL, 7)}/messages?key=AIza{rs(B64URL, 35)}&token={rs(B64URL, 43)}%3D")
    add(S, F, f"Mattermost incoming hook: https://chat.acme.dev/hooks/{rs(LOWNUM, 26)}")
    add(S, F, f"https://maker.ifttt.com/trigger/door_open/with/key/{rs(B64URL, 22)}")


def secret_obfuscated():
    S, F = "secret", "obfuscated"
    k = "sk_live_" + rs(B62, 24)
    add(S, F, "stripe key, spaced so the linter ignores it: " + " ".join(k))
    k = gh_classic()
    add(S, F, f"token part 1: {k[:20]}\ntoken part 2: {k[20:]}")
    kid, sec = aws_pair()
    add(S, F, f"aws_secret_access_key = {sec[:20]}\\\n    {sec[20:]}\naws_access_key_id = {kid}")
    add(S, F, "```bash\nexport ANTHROPIC_API_KEY=\"sk-ant-api03-" + rs(B64URL, 93) + "AA\"\npython agent.py\n```")
    add(S, F, f"[09:41] ops-bot: > here is the prod db password, delete after reading: {human_pw()}")
    add(S, F, f"> **on-call**: new webhook is https://hooks.slack.com/services/T{rs(UPP + DIG, 10)}/B{rs(UPP + DIG, 10)}/{rs(B62, 24)}\n> please don't paste it elsewhere")
    add(S, F, f"creds for the scanner (base64 of user:pass): {b64(('scanner:' + human_pw()).encode())}")
    add(S, F, f"echo {b64(('root:' + human_pw()).encode())} | base64 -d   # router login")
    body = rs(B62, 20)
    add(S, F, "GitLab token in groups so it doesn't autolink: glpat- " + " ".join(body[i:i + 4] for i in range(0, 20, 4)))
    add(S, F, f"Passwort (rückwärts, damit es keiner liest): {human_pw()[::-1]}")
    p = human_pw()
    add(S, F, f"the password is {p[:len(p) // 2]}\n...and continues with {p[len(p) // 2:]}")
    k = "xoxb-" + rs(DIG, 12) + "-" + rs(DIG, 13) + "-" + rs(B62, 24)
    add(S, F, f"\"text\": \"hey can you try with this token: `{k}`\"")
    add(S, F, "hex-encoded DB password: " + human_pw().encode().hex())
    k = "hf_" + rs(UPP + LOW, 34)
    add(S, F, f"<code>{k}</code> ← HF token for the private model")
    p = strong_pw(15)
    add(S, F, "mot de passe en morceaux : « " + " / ".join(p[i:i + 5] for i in range(0, 15, 5)) + " »")


# ================================================================ PII ====
FIRST = ["Lena", "Jonas", "Camille", "Mateo", "Sofia", "Wojciech", "Ingrid", "Tomasz", "Aiko", "Wei", "Priya",
         "Rafael", "Giulia", "Sven", "Maarten", "Chloé", "Diego", "Amara", "Hiroshi", "Elif", "Noah", "Beatriz"]
LAST = ["Hoffmann", "Dubois", "García", "Kowalski", "Lindqvist", "Tanaka", "Chen", "Sharma", "Oliveira", "Bianchi",
        "de Vries", "Nieminen", "Novak", "O'Connell", "Müller", "Rossi", "Moreau", "Jansen", "Yilmaz", "Park"]


def name():
    return f"{pick(FIRST)} {pick(LAST)}"


CARD_BRANDS = ["visa", "mastercard", "mastercard2", "amex", "discover", "jcb", "diners", "unionpay", "maestro"]
PUBLIC_TEST_CARDS = {"4242424242424242", "4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
                     "4000056655665556", "5105105105105100", "371449635398431", "30569309025904", "3530111333300000"}


def card(brand):
    while True:
        if brand == "visa":
            n = luhn_complete("4" + rs(DIG, 14))
        elif brand == "mastercard":
            n = luhn_complete(str(R.randrange(51, 56)) + rs(DIG, 13))
        elif brand == "mastercard2":
            n = luhn_complete(str(R.randrange(2221, 2721)) + rs(DIG, 11))
        elif brand == "amex":
            n = luhn_complete(pick(["34", "37"]) + rs(DIG, 12))
        elif brand == "discover":
            n = luhn_complete(pick(["6011", "65" + rs(DIG, 2)]) + rs(DIG, 11))
        elif brand == "jcb":
            n = luhn_complete(str(R.randrange(3528, 3590)) + rs(DIG, 11))
        elif brand == "diners":
            n = luhn_complete("36" + rs(DIG, 11))
        elif brand == "unionpay":
            n = luhn_complete("62" + rs(DIG, 16))
        else:
            n = luhn_complete(pick(["6759", "5018", "6304"]) + rs(DIG, 14))
        if n not in PUBLIC_TEST_CARDS:
            return n


def card_fmt(n):
    k = R.randrange(3)
    if len(n) == 15:
        return f"{n[:4]} {n[4:10]} {n[10:]}" if k else n
    if len(n) == 14:
        return f"{n[:4]} {n[4:10]} {n[10:]}" if k else n
    if len(n) == 16 and k == 1:
        return " ".join(n[i:i + 4] for i in range(0, 16, 4))
    if len(n) == 16 and k == 2:
        return "-".join(n[i:i + 4] for i in range(0, 16, 4))
    return n


def pii_cards():
    P, F = "pii", "payment_card"
    T = [
        "Card for the hotel deposit: {c}, exp {m:02d}/{y}",
        "Meine Kreditkartennummer ist {c}, gültig bis {m:02d}/{y}.",
        "Numéro de carte : {c} — expiration {m:02d}/{y}",
        "Pagué con la tarjeta {c}",
        "Please charge the renewal to {c} (expires {m:02d}{y})",
        "カード番号 {c} 有効期限 {m:02d}/{y}",
        "cartão de crédito: {c}",
        "Carta di credito aziendale di Marco: {c}",
        "billing: {{\"card_number\": \"{cc}\", \"exp_month\": {m}, \"exp_year\": 20{y}}}",
        "Dad's card in case the booking fails: {c}",
        "Kaart: {c} (vervalt {m:02d}-{y})",
        "numer karty {c}",
        "銀聯卡號 {c}",
        "Refund goes back to card {c}.",
        "Backup card (Amex) {c}",
        "Saved in my notes: Visa {c}",
    ]
    brands = ["visa", "mastercard", "visa", "mastercard2", "visa", "jcb", "maestro", "mastercard", "visa", "discover",
              "mastercard", "visa", "unionpay", "diners", "amex", "visa"]
    for t, b in zip(T, brands):
        n = card(b)
        add(P, F, t.format(c=card_fmt(n), cc=n, m=R.randrange(1, 13), y=R.randrange(27, 32)))


def iban_random(cc):
    if cc == "DE":
        b = rs(DIG, 18)
    elif cc == "GB":
        b = pick(["NWBK", "BARC", "MIDL", "LOYD", "HBUK"]) + rs(DIG, 14)
    elif cc == "FR":
        bank, br, acc = rs(DIG, 5), rs(DIG, 5), rs(DIG, 11)
        b = bank + br + acc + fr_rib_key(bank, br, acc)
    elif cc == "ES":
        bank, br, acc = rs(DIG, 4), rs(DIG, 4), rs(DIG, 10)
        b = bank + br + es_ccc_dc(bank, br, acc) + acc
    elif cc == "NL":
        while True:
            acc = rs(DIG, 10)
            if sum(int(a) * w for a, w in zip(acc, range(10, 0, -1))) % 11 == 0:
                break
        b = pick(["ABNA", "INGB", "RABO", "TRIO", "SNSB"]) + acc
    elif cc == "BE":
        x = rs(DIG, 10)
        k = int(x) % 97 or 97
        b = x + f"{k:02d}"
    elif cc == "PL":
        b = rs(DIG, 24)
    elif cc == "AT":
        b = rs(DIG, 16)
    elif cc == "CH":
        b = rs(DIG, 17)
    elif cc == "IT":
        b = pick(UPP) + rs(DIG, 10) + rs(DIG, 12)
    elif cc == "PT":
        b = rs(DIG, 21)
    elif cc == "IE":
        b = pick(["AIBK", "BOFI", "IPBS"]) + rs(DIG, 14)
    elif cc == "SE":
        b = rs(DIG, 20)
    elif cc == "FI":
        b = rs(DIG, 14)
    elif cc == "LU":
        b = rs(DIG, 3) + rs(UPP + DIG, 13)
    else:
        raise ValueError(cc)
    return iban_make(cc, b)


def pii_ibans():
    P, F = "pii", "iban"
    T = [
        ("DE", "Bitte überweise die Miete auf mein Konto: IBAN {i}"),
        ("GB", "My sort code and account are in the IBAN: {i}"),
        ("FR", "Mon RIB pour le remboursement : IBAN {i}"),
        ("ES", "Te paso mi cuenta para el bizum fallido: {i}"),
        ("NL", "Rekeningnummer van Sanne voor de tikkie: {i}"),
        ("BE", "Virement sur le compte de ma mère, {i}"),
        ("PL", "Numer konta do przelewu: {i}"),
        ("AT", "Gehalt bitte ab Jänner auf {i} überweisen."),
        ("CH", "Meine neue IBAN (Postfinance): {i}"),
        ("IT", "IBAN del conto personale: {i}"),
        ("PT", "o meu IBAN é {i}"),
        ("IE", "Pay my share of the holiday into {i}"),
        ("SE", "Mitt kontonummer i IBAN-format: {i}"),
        ("FI", "Tilinumero: {i}"),
        ("LU", "Salary account: {i}"),
        ("DE", "sepa_mandate: {{debtor: \"K. Brandt\", iban: \"{ic}\"}}"),
    ]
    for cc, t in T:
        i = iban_random(cc)
        add(P, F, t.format(i=iban_print(i) if R.random() < 0.6 else i, ic=i))


def rand_date(y0=1950, y1=2004):
    y = R.randrange(y0, y1)
    m = R.randrange(1, 13)
    d = R.randrange(1, 29)
    return y, m, d


def pii_national_ids():
    P = "pii"
    # US SSN
    def ssn():
        while True:
            a = R.randrange(1, 900)
            if a != 666:
                return f"{a:03d}-{R.randrange(1, 100):02d}-{R.randrange(1, 10000):04d}"
    for t in ["Social: {s} — needed for the lease application", "My SSN is {s}", "W-4 draft — Social Security number: {s}", "ssn: {s} (for the background check)"]:
        add(P, "us_ssn", t.format(s=ssn()))
    # UK NINO
    def nino():
        while True:
            a, b = pick("ABCEGHJKLMNOPRSTWXYZ"), pick("ABCEGHJKLMNPRSTWXYZ")
            if a + b in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
                continue
            d = rs(DIG, 6)
            return f"{a}{b} {d[:2]} {d[2:4]} {d[4:]} {pick('ABCD')}"
    for t in ["My National Insurance number is {n}", "NI number for payroll: {n}", "HMRC letter quotes NINO {n}"]:
        add(P, "uk_nino", t.format(n=nino() if "{n}" in t else ""))
    # ES DNI / NIE
    n = rs(DIG, 8)
    add(P, "es_dni", f"Mi DNI es {n}{dni_letter(n)}")
    n = rs(DIG, 7)
    p = pick("XYZ")
    add(P, "es_dni", f"NIE del inquilino: {p}-{n}-{dni_letter(str('XYZ'.index(p)) + n)}")
    # FR NIR
    for t in ["Mon numéro de sécurité sociale : {n}", "N° Sécu (carte Vitale) {n}"]:
        y, m, d = rand_date()
        base = f"{pick('12')}{y % 100:02d}{m:02d}{R.randrange(1, 96):02d}{R.randrange(1, 990):03d}{R.randrange(1, 999):03d}"
        k = nir_key(base)
        add(P, "fr_nir", t.format(n=f"{base[0]} {base[1:3]} {base[3:5]} {base[5:7]} {base[7:10]} {base[10:]} {k:02d}"))
    # NL BSN
    for t in ["Mijn BSN is {b}", "burgerservicenummer van de nieuwe medewerker: {b}"]:
        while True:
            b = str(R.randrange(1, 10)) + rs(DIG, 8)
            if bsn_ok(b):
                break
        add(P, "nl_bsn", t.format(b=b))
    # PL PESEL
    for t in ["Mój PESEL: {p}", "PESEL pacjenta {p}"]:
        y, m, d = rand_date(1950, 2010)
        mm = m + (20 if y >= 2000 else 0)
        s10 = f"{y % 100:02d}{mm:02d}{d:02d}{rs(DIG, 4)}"
        add(P, "pl_pesel", t.format(p=s10 + pesel_digit(s10)))
    # BR CPF
    for t in ["Meu CPF é {c}", "CPF para a nota fiscal: {c}"]:
        c = cpf_digits(rs(DIG, 9))
        add(P, "br_cpf", t.format(c=f"{c[:3]}.{c[3:6]}.{c[6:9]}-{c[9:]}"))
    # SE personnummer
    y, m, d = rand_date()
    s9 = f"{y % 100:02d}{m:02d}{d:02d}{rs(DIG, 3)}"
    add(P, "se_personnummer", f"Mitt personnummer är {s9[:6]}-{s9[6:]}{luhn_complete(s9)[-1]}")
    y, m, d = rand_date()
    s9 = f"{y % 100:02d}{m:02d}{d:02d}{rs(DIG, 3)}"
    add(P, "se_personnummer", f"personnummer {y}{s9[2:6]}-{s9[6:]}{luhn_complete(s9)[-1]} (för hyreskontraktet)")
    # FI HETU
    y, m, d = rand_date()
    dd = f"{d:02d}{m:02d}{y % 100:02d}"
    nnn = f"{R.randrange(2, 900):03d}"
    add(P, "fi_hetu", f"Henkilötunnukseni on {dd}-{nnn}{hetu_char(dd, nnn)}")
    # IN Aadhaar (Verhoeff)
    for t in ["My Aadhaar number is {a}", "Aadhaar for KYC: {a}"]:
        s = str(R.randrange(2, 10)) + rs(DIG, 10)
        s += verhoeff_digit(s)
        add(P, "in_aadhaar", t.format(a=f"{s[:4]} {s[4:8]} {s[8:]}"))
    # CA SIN
    s = luhn_complete(str(R.randrange(1, 8)) + rs(DIG, 7))
    add(P, "ca_sin", f"My SIN is {s[:3]} {s[3:6]} {s[6:]} if HR asks again")
    # AU TFN
    while True:
        s = rs(DIG, 9)
        if tfn_ok(s) and s[0] != "0":
            break
    add(P, "au_tfn", f"Tax file number: {s[:3]} {s[3:6]} {s[6:]}")
    # CN resident id
    for t in ["我的身份证号是{c}", "身份证号码：{c}"]:
        y, m, d = rand_date()
        s17 = pick(["110105", "310104", "440305", "510107", "330106"]) + f"{y}{m:02d}{d:02d}" + rs(DIG, 3)
        add(P, "cn_resident_id", t.format(c=s17 + cn_check(s17)))
    # JP My Number
    s = rs(DIG, 11)
    s += mynumber_check(s)
    add(P, "jp_my_number", f"マイナンバー：{s[:4]} {s[4:8]} {s[8:]}")
    s = rs(DIG, 11)
    s += mynumber_check(s)
    add(P, "jp_my_number", f"妻の個人番号は{s}です（年末調整用）")
    # IT codice fiscale
    months = "ABCDEHLMPRST"
    y, m, d = rand_date()
    s15 = rs("BCDFGLMNPRSTVZ", 6) + f"{y % 100:02d}" + months[m - 1] + f"{d + pick([0, 40]):02d}" + pick("ABCDEFGHLM") + rs(DIG, 3)
    add(P, "it_codice_fiscale", f"Il mio codice fiscale è {s15 + cf_check(s15)}")
    y, m, d = rand_date()
    s15 = rs("BCDFGLMNPRSTVZ", 6) + f"{y % 100:02d}" + months[m - 1] + f"{d + pick([0, 40]):02d}" + pick("ABCDEFGHLM") + rs(DIG, 3)
    add(P, "it_codice_fiscale", f"codice fiscale della badante per il contratto: {s15 + cf_check(s15)}")
    # BE national register number
    y, m, d = rand_date()
    s9 = f"{y % 100:02d}{m:02d}{d:02d}{R.randrange(1, 998):03d}"
    add(P, "be_rrn", f"Rijksregisternummer: {s9[:2]}.{s9[2:4]}.{s9[4:6]}-{s9[6:]}.{be_rrn_check(s9)}")


def pii_passports():
    P, F = "pii", "passport"
    add(P, F, f"Passport number for the visa form: {rs(DIG, 9)} (US)")
    add(P, F, f"Reisepassnummer: C{rs('CFGHJKLMNPRTVWXYZ0123456789', 8)}")
    add(P, F, f"Numéro de passeport : {rs(DIG, 2)}{rs(UPP, 2)}{rs(DIG, 5)}")
    add(P, F, f"旅券番号 T{pick(UPP)}{rs(DIG, 7)}")
    add(P, F, f"Mi pasaporte: {rs(UPP, 3)}{rs(DIG, 6)}")
    # full TD3 MRZ with correct check digits
    for cc, sur, giv in [("GBR", "WHITFIELD", "EMMA<JANE"), ("DEU", "KRAUSE", "FELIX"), ("NLD", "VAN<DIJK", "SANNE")]:
        doc = rs(UPP + DIG, 9)
        y, m, d = rand_date()
        dob = f"{y % 100:02d}{m:02d}{d:02d}"
        exp = f"{R.randrange(28, 36)}{R.randrange(1, 13):02d}{R.randrange(1, 29):02d}"
        line1 = f"P<{cc}{sur}<<{giv}".ljust(44, "<")[:44]
        pers = "<" * 14
        l2 = doc + mrz_check(doc) + cc + dob + mrz_check(dob) + pick("MF") + exp + mrz_check(exp) + pers + mrz_check(pers)
        comp = l2[0:10] + l2[13:20] + l2[21:43]
        l2 = l2 + mrz_check(comp)
        assert len(l2) == 44
        add(P, F, f"scan of my passport page (MRZ):\n{line1}\n{l2}")


def pii_phones():
    P, F = "pii", "phone"
    T = [
        lambda: f"Ruf mich an: 01{pick(['51', '52', '60', '62', '70', '71', '76'])} {rs(DIG, 7)}",
        lambda: f"meine Handynummer ist +49 1{pick(['51', '57', '72', '76'])} {rs(DIG, 8)}",
        lambda: f"Text me on 07{pick('3456789')}{rs(DIG, 2)} {rs(DIG, 6)}",
        lambda: f"My mobile: +44 7{pick('345789')}{rs(DIG, 2)} {rs(DIG, 3)} {rs(DIG, 3)}",
        lambda: "Mon portable : " + pick(["06 " + rs(DIG, 2), "07 " + pick("3456789") + rs(DIG, 1)]) + " " + " ".join(rs(DIG, 2) for _ in range(3)),
        lambda: "+33 " + pick("67") + " " + " ".join(rs(DIG, 2) for _ in range(4)) + " (Camille, perso)",
        lambda: f"Mi móvil es el 6{rs(DIG, 2)} {rs(DIG, 3)} {rs(DIG, 3)}",
        lambda: f"cell (415) {pick([x for x in range(201, 999) if x != 555])}-{rs(DIG, 4)} — call after 6pm",
        lambda: f"My number is +1 {pick(['312', '646', '206', '512'])}-{pick([x for x in range(201, 999) if x != 555])}-{rs(DIG, 4)}",
        lambda: f"携帯番号は090-{rs(DIG, 4)}-{rs(DIG, 4)}です",
        lambda: f"我的手机号是 13{rs(DIG, 1)} {rs(DIG, 4)} {rs(DIG, 4)}",
        lambda: f"Chiamami al {pick(['320', '328', '333', '338', '347', '349', '366', '380', '393'])} {rs(DIG, 3)} {rs(DIG, 4)}",
        lambda: f"Mijn 06: 06-{rs(DIG, 8)}",
        lambda: f"Meu celular: (11) 9{rs(DIG, 4)}-{rs(DIG, 4)}",
        lambda: f"WhatsApp: +91 9{rs(DIG, 4)} {rs(DIG, 5)}",
        lambda: f"mój numer: +48 5{rs(DIG, 2)} {rs(DIG, 3)} {rs(DIG, 3)}",
    ]
    for f in T:
        add(P, F, f())


def pii_emails():
    P, F = "pii", "personal_email"
    dom = ["gmail.com", "outlook.com", "web.de", "gmx.de", "yahoo.fr", "libero.it", "hotmail.es", "icloud.com", "proton.me", "wp.pl", "naver.com", "t-online.de"]
    T = ["my private email is {e}", "Schick es bitte an meine private Adresse {e}", "écris-moi sur {e}",
         "contact (personal): {e}", "meu e-mail pessoal é {e}", "Mi correo personal: {e}", "forward the receipts to {e}", "La mia email personale è {e}",
         "私用メール: {e}", "email prywatny: {e}", "reach me at {e} while I'm on leave"]
    for t in T:
        f, l = pick(FIRST), pick(LAST)
        local = pick([f"{f}.{l}", f"{f[0]}{l}{R.randrange(70, 99)}", f"{f}{l}.{R.randrange(1, 999)}", f"{l}_{f}"]).lower()
        local = local.replace(" ", "").replace("'", "").replace("é", "e").replace("í", "i").replace("ü", "ue").replace("ö", "o")
        add(P, F, t.format(e=f"{local}@{pick(dom)}"))


def pii_addresses():
    P, F = "pii", "home_address"
    T = [
        lambda: f"Ship it to my place: {R.randrange(100, 9999)} Maple Ridge Dr, Apt {R.randrange(1, 30)}{pick('ABC')}, Columbus, OH 432{rs(DIG, 2)}",
        lambda: f"Home address: Flat {R.randrange(1, 12)}, {R.randrange(2, 180)} Kingsley Road, Leeds LS6 {R.randrange(1, 9)}{pick('ABDEFGHJLNPQRSTUWXYZ')}{pick('ABDEFGHJLNPQRSTUWXYZ')}",
        lambda: f"Meine Adresse: {name()}, Lindenstraße {R.randrange(1, 120)}, 50{rs(DIG, 3)} Köln",
        lambda: f"J'habite au {R.randrange(1, 90)} rue des Lilas, 690{R.randrange(1, 10):02d} Lyon",
        lambda: f"Mi dirección: Calle de Alcalá {R.randrange(20, 400)}, {R.randrange(1, 9)}º {pick('ABCD')}, 280{R.randrange(1, 55):02d} Madrid",
        lambda: f"Abito in Via Garibaldi {R.randrange(1, 80)}, 201{R.randrange(21, 62)} Milano MI",
        lambda: f"Woonadres: Van Speijkstraat {R.randrange(1, 150)}-{pick(['I', 'II', 'III', 'hs'])}, 1057 {pick(UPP)}{pick(UPP)} Amsterdam",
        lambda: f"自宅住所：〒150-00{rs(DIG, 2)} 東京都渋谷区神宮前{R.randrange(1, 7)}-{R.randrange(1, 30)}-{R.randrange(1, 20)} サンハイツ{R.randrange(101, 510)}",
        lambda: f"adres domowy: ul. Długa {R.randrange(1, 90)}/{R.randrange(1, 20)}, 80-{R.randrange(800, 899)} Gdańsk",
        lambda: f"Moro na Rua das Flores, {R.randrange(10, 999)}, apto {R.randrange(11, 150)}, Curitiba - PR, 800{rs(DIG, 2)}-{rs(DIG, 3)}",
        lambda: f"Send the keys to {name()}, {R.randrange(2, 300)} Birchwood Cres, Toronto ON M4E {R.randrange(1, 9)}{pick('ABCEGHJK')}{R.randrange(1, 9)}",
        lambda: f"Our new home: {R.randrange(1, 99)} Wattle St, Fitzroy VIC 3065",
        lambda: f"Hemadress: Storgatan {R.randrange(1, 60)} lgh 1{rs(DIG, 3)}, 113 {rs(DIG, 2)} Stockholm",
        lambda: f"Meine Oma wohnt in der Bahnhofstraße {R.randrange(1, 60)}a, 8{rs(DIG, 4)} {pick(['Landshut', 'Rosenheim', 'Kempten'])}",
    ]
    for f in T:
        add(P, F, f())


def pii_dob():
    P, F = "pii", "date_of_birth"
    T = [
        lambda y, m, d: f"My date of birth is {y}-{m:02d}-{d:02d}",
        lambda y, m, d: f"Geburtsdatum: {d:02d}.{m:02d}.{y}",
        lambda y, m, d: f"Date de naissance : {d:02d}/{m:02d}/{y}",
        lambda y, m, d: f"Patient {name()}, DOB {m:02d}/{d:02d}/{y}",
        lambda y, m, d: f"Fecha de nacimiento de mi hijo: {d} de {['enero','febrero','marzo','abril','mayo','junio','julio','agosto','septiembre','octubre','noviembre','diciembre'][m - 1]} de {y}",
        lambda y, m, d: f"生年月日：{y}年{m}月{d}日",
        lambda y, m, d: f"born {d} {['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'][m - 1]} {y} — that's what the insurance form needs",
        lambda y, m, d: f"data di nascita: {d:02d}/{m:02d}/{y}",
        lambda y, m, d: f"Data urodzenia: {d:02d}.{m:02d}.{y} r.",
    ]
    for f in T:
        add(P, F, f(*rand_date(1940, 2006)))


def pii_medical():
    P, F = "pii", "medical_insurance_id"
    while True:
        s9 = str(R.randrange(4, 7)) + rs(DIG, 8)
        c = nhs_check(s9)
        if c:
            break
    n = s9 + c
    add(P, F, f"My NHS number is {n[:3]} {n[3:6]} {n[6:]}")
    while True:
        s9 = str(R.randrange(4, 7)) + rs(DIG, 8)
        c = nhs_check(s9)
        if c:
            break
    add(P, F, f"GP referral for {name()}, NHS no. {s9 + c}")
    L = pick(UPP)
    s8 = rs(DIG, 8)
    add(P, F, f"Krankenversichertennummer (TK): {L}{s8}{kvnr_check(L, s8)}")
    L = pick(UPP)
    s8 = rs(DIG, 8)
    add(P, F, f"KVNR meiner Tochter: {L}{s8}{kvnr_check(L, s8)}")
    A = "ACDEFGHJKMNPQRTUVWXY"
    mbi = str(R.randrange(1, 10)) + pick(A) + pick(A + DIG) + pick(DIG) + pick(A) + pick(A + DIG) + pick(DIG) + pick(A) + pick(A) + pick(DIG) + pick(DIG)
    add(P, F, f"Medicare card: MBI {mbi[:4]}-{mbi[4:7]}-{mbi[7:]}")
    add(P, F, f"Hospital MRN for my mother's admission: {rs(DIG, 8)}")
    add(P, F, f"Aetna member ID W{rs(DIG, 9)}, group {rs(DIG, 6)} — for my physio claim")
    add(P, F, f"Karta EKUZ mojego syna, numer identyfikacyjny karty: {rs(DIG, 20)}")
    add(P, F, ahv())


def ahv():
    s12 = "756" + rs(DIG, 9)
    chk = (10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(s12)) % 10) % 10
    s = s12 + str(chk)
    return f"Meine AHV-Nummer: {s[:3]}.{s[3:7]}.{s[7:11]}.{s[11:]}"


# ============================================================ BENIGN =====
def benign():
    B = "benign"
    for t in ["Fixed in {s}, cherry-picked onto release/2.4.", "git revert {s}", "The regression was introduced by commit {s7} (bisected).",
              "Merge pull request #{n} from acme/feature-x — HEAD is now {s}", "pinned the action to actions/checkout@{s}"]:
        add(B, "commit_sha", t.format(s=hexs(40), s7=hexs(7), n=R.randrange(100, 9999)))
    for t in ["request_id={u} status=502 upstream=payments", "Tenant {u} was migrated to the EU shard.",
              "INSERT INTO jobs (id, state) VALUES ('{u}', 'queued');", "Correlation-ID: {u}", "workspace id {u} (not secret, shown in the URL)"]:
        add(B, "uuid", t.format(u=uuid4()))
    for t in ["sha256sum: {h}  ubuntu-24.04.1-live-server-amd64.iso", "SHA-1 of the firmware blob: {h1}",
              "ETag: \"{m}\"", "\"integrity\": \"sha512-{i}\"", "Content-Digest: sha-256=:{d}:"]:
        add(B, "content_hash", t.format(h=hashlib.sha256(rb(16)).hexdigest(), h1=hashlib.sha1(rb(16)).hexdigest(),
                                         m=hashlib.md5(rb(16)).hexdigest(), i=b64(hashlib.sha512(rb(16)).digest()), d=b64(hashlib.sha256(rb(8)).digest())))
    for t in ["image: ghcr.io/acme/api@sha256:{h}", "docker pull postgres@sha256:{h}", "Digest: sha256:{h}\nStatus: Downloaded newer image for nginx:1.27",
              "FROM python:3.11-slim@sha256:{h}"]:
        add(B, "docker_digest", t.format(h=hexs(64)))
    for t in ["Upgraded to v2.14.3-rc.1+build.5813", "Kernel 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC", "Android build UQ1A.240205.004",
              "requires openssl>=3.0.13,<4", "Chrome 131.0.6778.86 (Official Build) (64-bit)"]:
        add(B, "version_string", t)
    add(B, "build_id", f"BuildID[sha1]={hexs(40)}, for GNU/Linux 3.2.0, stripped")
    add(B, "build_id", f"Build #{R.randrange(10000, 99999)} passed in 14m 03s (runner ci-linux-{R.randrange(1, 9)})")
    add(B, "build_id", f"GitHub Actions run {R.randrange(10**9, 9 * 10**9)} attempt 2 failed on macos-14")
    add(B, "build_id", f"Xcode build 16B40, CFBundleVersion {R.randrange(100, 999)}.{R.randrange(1, 99)}")
    add(B, "trace_id", f"traceparent: 00-{hexs(32)}-{hexs(16)}-01")
    add(B, "trace_id", f"X-B3-TraceId: {hexs(32)}\nX-B3-SpanId: {hexs(16)}\nX-B3-Sampled: 1")
    add(B, "trace_id", f"X-Amzn-Trace-Id: Root=1-{hexs(8)}-{hexs(24)};Parent={hexs(16)};Sampled=1")
    add(B, "trace_id", f"dd.trace_id={non_luhn_digits(19)} dd.span_id={non_luhn_digits(19)} slow query on /checkout")
    add(B, "trace_id", f"span {hexs(16)} took 812ms (parent {hexs(16)})")
    # public keys
    pub = ssh_string(b"ssh-ed25519") + ssh_string(rb(32))
    add(B, "public_key", f"Add this to authorized_keys: ssh-ed25519 {b64(pub)} deploy@ci")
    add(B, "public_key", pem("PUBLIC KEY", bytes.fromhex("302a300506032b6570032100") + rb(32)))
    add(B, "public_key", "SHA256 fingerprint of the server cert: " + ":".join(hexs(2, True) for _ in range(32)))
    add(B, "public_key", "ED25519 key fingerprint is SHA256:" + b64(rb(32)).rstrip("="))
    add(B, "public_key", "JWKS: " + json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "kid": "sig-2026-11", "use": "sig", "x": b64u(rb(32)), "y": b64u(rb(32))}]}))
    add(B, "public_key", pem("CERTIFICATE", bytes.fromhex("3082030d308201f5a003020102021400") + rb(700)))
    add(B, "public_key", "GPG key fingerprint: " + " ".join(hexs(4, True) for _ in range(10)))
    add(B, "public_key", f"[Peer]\nPublicKey = {b64(rb(32))}\nEndpoint = 203.0.113.7:51820\nAllowedIPs = 10.8.0.0/24")
    # placeholders / masked
    for t in ["export OPENAI_API_KEY=YOUR_API_KEY", "curl -H \"Authorization: Bearer <your-token>\" https://api.example.com/v1/me",
              "DATABASE_URL=postgres://<user>:<password>@<host>:5432/<db>", "password: ${DB_PASSWORD}", "password: {{ .Values.postgresql.auth.password }}",
              "STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX", "token: ${{ secrets.NPM_TOKEN }}", "AWS_SECRET_ACCESS_KEY=<redacted>",
              "The API key is shown once as sk-proj-…Xf3a; the rest is masked.", "Paid with the card ending in 4821.", "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
              "Passwort: ******** (siehe KeePass, Eintrag 'Router')", "IBAN: DE** **** **** **** **34 67", "api_key = \"replace-me-with-your-key\"",
              "-----BEGIN RSA PRIVATE KEY-----\n<paste your key here>\n-----END RSA PRIVATE KEY-----",
              "mysql -u root -p<password> -h db.example.com", "WIFI:T:WPA;S:<ssid>;P:<passphrase>;;"]:
        add(B, "placeholder", t)
    for t in ["Send bug reports to security@example.com.", "Mail relay is at 192.0.2.25, backup MX 198.51.100.40.", "Bind the test server to 203.0.113.10:8443.",
              "IPv6 docs prefix: 2001:db8:85a3::8a2e:370:7334", "Test login: user@example.org on https://app.example.com/login (docs screenshot).", "Webhooks are posted to https://hooks.example.org/inbound (docs sample).", "From: Jane Doe <jane.doe@example.net> (sample header in RFC style)"]:
        add(B, "doc_address", t)
    for t in ["I reset my password yesterday and now the VPN client keeps asking again.", "The password policy needs 12 characters, one digit and no reuse of the last 5.",
              "Ich habe mein Passwort vergessen und musste es zurücksetzen.", "J'ai changé mon mot de passe ce matin, tout marche.",
              "Olvidé mi contraseña otra vez; el enlace de recuperación llegó tarde.", "Esqueci a minha senha do banco, tive de ir ao balcão.",
              "Ho cambiato la password dopo il phishing, per sicurezza.", "Ik moet mijn wachtwoord elke 90 dagen wijzigen, irritant.",
              "Zmieniłem hasło do poczty po wycieku danych.", "パスワードを忘れたので再設定しました。", "我昨天改了密码，现在手机上也要重新登录。",
              "Rotate the Stripe key tomorrow; the old one leaks in the 2024 logs.", "The GitHub token expired, the nightly job failed with 401.",
              "Remember: never commit .env files; use the secret manager.", "PIN length for the new cards is 6 digits per the bank's letter.",
              "Wi-Fi password for guests is on the card at reception.", "Can you share the door code with the cleaner? (I'll text it to her.)",
              "Enable 2FA with an authenticator app and print the recovery codes.", "Tokens prefixed ghp_ are classic PATs, github_pat_ are fine-grained.",
              "Das WLAN-Passwort steht auf der Rückseite der Fritzbox.", "El banco me mandó el PIN nuevo por correo postal, llega el lunes.",
              "Le jeton d'accès expire au bout de 60 minutes, il faut le rafraîchir."]:
        add(B, "talk_about_secret", t)
    for t in ["class PasswordResetTokenGenerator(PasswordResetTokenGenerator):", "def rotate_api_key_if_expired(self, key_id: str, max_age_days: int = 90) -> bool:",
              "MAX_LOGIN_ATTEMPTS_BEFORE_LOCKOUT = 5", "AwsSecretsManagerCredentialsProviderFactory.create(region)",
              "const { getAccessTokenSilently } = useAuth0();", "secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>",
              "refresh_token_expiry_seconds_for_service_accounts = 3600", "password = getpass.getpass(\"DB password: \")",
              "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db-credentials, key: password}", "if not re.fullmatch(r\"ghp_[A-Za-z0-9]{36}\", token): raise ValueError"]:
        add(B, "code_identifier", t)
    for t in ["SKU WX-{a}-{d4}-ZB restocked (24 units)", "Part no. {A}{d4}-{A2} fits the 2019 model", "Artikelnummer {d3}.{d3}.{d2} (IKEA-style)",
              "Model HX-{d4}-{d3}-{A2}{d2} is discontinued", "EAN order code {A}{d6}{A2}"]:
        add(B, "product_sku", t.format(a=rs(UPP + DIG, 4), d4=rs(DIG, 4), A=rs(UPP, 2), A2=rs(UPP, 2), d3=rs(DIG, 3), d2=rs(DIG, 2), d6=rs(DIG, 6)))
    add(B, "tracking_number", f"UPS tracking 1Z{rs(UPP + DIG, 6)}{rs(DIG, 2)}{rs(DIG, 8)}")
    d8 = rs(DIG, 8)
    add(B, "tracking_number", f"Royal Mail tracked: {rs(UPP, 2)}{d8}{s10_check(d8)}GB")
    add(B, "tracking_number", f"DHL Sendungsnummer {rs(DIG, 10)} — Zustellung morgen")
    add(B, "tracking_number", f"USPS: 9400 1{rs(DIG, 3)} {rs(DIG, 4)} {rs(DIG, 4)} {rs(DIG, 4)} {rs(DIG, 2)}")
    add(B, "tracking_number", f"FedEx {rs(DIG, 12)} delivered to the front desk")
    for _ in range(4):
        while True:
            s12 = "978" + rs(DIG, 9)
            s = s12 + isbn13_check(s12)
            if not luhn_ok(s):
                break
        add(B, "isbn", pick(["Reading list: ISBN {i}", "ISBN {i} (2nd edition, paperback)", "Cite as ISBN {i}."]).format(i=f"{s[:3]}-{s[3]}-{s[4:8]}-{s[8:12]}-{s[12]}"))
    for t in ["created_at=2026-11-30T22:41:07.512Z", "Last-Modified: Tue, 01 Dec 2026 09:15:00 GMT", "epoch {e} -> 2026-12-01", "ts_ms={ms}", "cron: 0 3 * * 1-5 (03:00 UTC weekdays)"]:
        add(B, "timestamp", t.format(e=1796000000 + R.randrange(86400), ms=non_luhn_digits(13, "17960")))
    add(B, "tiny_base64_image", "<img src=\"data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7\" alt=\"\">")
    add(B, "tiny_base64_image", "background: url(data:image/png;base64," + tiny_png() + ");")
    add(B, "tiny_base64_image", "favicon: data:image/svg+xml;base64," + b64(b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'><rect width='1' height='1' fill='#0a7'/></svg>"))
    add(B, "lorem_ipsum", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.")
    add(B, "lorem_ipsum", "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor.")
    add(B, "lorem_ipsum", "Placeholder copy: Sed ut perspiciatis unde omnis iste natus error sit voluptatem accusantium doloremque laudantium.")
    for t in ["The key lives in ~/.ssh/id_ed25519 — make sure it's chmod 600.", "Credentials are read from ~/.aws/credentials (profile 'prod').",
              f"/var/lib/docker/overlay2/{hexs(64)}/merged", "C:\\Users\\Public\\Documents\\Invoices\\2026\\INV-0042.pdf",
              "/etc/ssl/private/ is root-only; certs go in /etc/ssl/certs/.", "~/Library/Application Support/Code/User/settings.json"]:
        add(B, "file_path", t)
    for t in ["$$\\hat{\\beta} = (X^\\top X)^{-1} X^\\top y$$", "\\begin{equation} e^{i\\pi} + 1 = 0 \\end{equation}",
              "\\frac{\\partial \\mathcal{L}}{\\partial w_{ij}} = \\delta_j x_i", "\\sum_{k=1}^{n} k^2 = \\frac{n(n+1)(2n+1)}{6}"]:
        add(B, "latex", t)
    add(B, "chess_pgn", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7")
    add(B, "chess_pgn", "[Event \"Club blitz\"]\n[Result \"0-1\"]\n1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. f3 O-O 6. Be3 e5 7. d5 Nh5 0-1")
    add(B, "chess_pgn", "FEN after the trap: r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    for _ in range(3):
        add(B, "dna_sequence", pick([">primer_fwd\n{s}", "Amplicon: {s}", "sgRNA target {s} (PAM NGG)"]).format(s=rs("ACGT", R.randrange(20, 90))))
    add(B, "dna_sequence", "protein: M" + rs("ACDEFGHIKLMNPQRSTVWY", 60))
    # invalid ids: fail their check
    for t in ["Gas meter serial {c}", "Loyalty member no. {c} (store card, not a payment card)", "Lot {c} recalled"]:
        c = non_luhn_digits(16)
        add(B, "invalid_checksum", t.format(c=" ".join(c[i:i + 4] for i in range(0, 16, 4)) if "Lot" not in t else c))
    while True:
        t = "Validator test: DE00 " + " ".join(rs(DIG, 4) for _ in range(4)) + " " + rs(DIG, 2) + " must be rejected (check digits 00)."
        if not valid_cards_in(t):
            break
    add(B, "invalid_checksum", t)
    bad = iban_random("NL")
    bad = bad[:2] + f"{(int(bad[2:4]) + 1 - 2) % 97 + 2:02d}" + bad[4:]
    assert not iban_ok(bad)
    add(B, "invalid_checksum", f"Form error: '{bad}' is not a valid IBAN (checksum mismatch).")
    add(B, "invalid_checksum", f"QA fixture: SSN 000-{rs(DIG, 2)}-{rs(DIG, 4)} is invalid by definition (area 000).")
    add(B, "invalid_checksum", "HMRC's example National Insurance number is QQ 12 34 56 C; it's never issued.")
    while True:
        b = str(R.randrange(1, 10)) + rs(DIG, 8)
        if not bsn_ok(b):
            break
    add(B, "invalid_checksum", f"Ticket #{b} closed as duplicate")
    while True:
        s = rs(DIG, 11)
        if pesel_digit(s[:10]) != s[10]:
            break
    add(B, "invalid_checksum", f"Zamówienie nr {s} wysłane")
    while True:
        s = "4" + rs(DIG, 15)
        if not luhn_ok(s):
            break
    add(B, "invalid_checksum", f"Order reference {s} (16 digits, starts with 4, fails Luhn)")
    while True:
        s12 = "756" + rs(DIG, 10)
        if (10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(s12[:12])) % 10) % 10 != int(s12[12]):
            break
    add(B, "invalid_checksum", f"Kundennummer {s12[:3]}.{s12[3:7]}.{s12[7:11]}.{s12[11:]} (EAN-Prüfziffer falsch, keine AHV-Nummer)")
    for t in ["Impressum: Nordlicht Software GmbH, Hafenstraße 7, 20457 Hamburg, HRB 181234, Geschäftsführer: A. Petersen",
              "Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA",
              "Microsoft Corporation, One Microsoft Way, Redmond, WA 98052-6399",
              "SAP SE, Dietmar-Hopp-Allee 16, 69190 Walldorf, Germany (registered office)",
              "Siège social : Boulangerie Lemaire SARL, 4 place du Marché, 35000 Rennes — ouvert du mardi au samedi",
              "Visit our showroom: Casa Verde Muebles S.L., Polígono Industrial Sur, Nave 12, 46980 Paterna (Valencia)"]:
        add(B, "business_address", t)


def non_luhn_digits(n, prefix=""):
    while True:
        s = prefix + rs(DIG, n - len(prefix))
        if s[0] != "0" and not luhn_ok(s):
            return s


def tiny_png():
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    raw = b"\x00\x00\x7a\xcc\xff"
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return b64(png)


# ========================================================= SELF-CHECK ====
DIGRUN = re.compile(r"(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])")
IBANRE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")


def valid_cards_in(text):
    out = []
    for m in DIGRUN.finditer(text):
        d = re.sub(r"\D", "", m.group())
        if 13 <= len(d) <= 19 and luhn_ok(d):
            out.append(d)
    return out


def valid_ibans_in(text):
    return [m.group() for m in IBANRE.finditer(text) if iban_ok(m.group())]


def build():
    secret_api_tokens()
    secret_connection_strings()
    secret_private_keys()
    secret_password_prose()
    secret_password_config()
    secret_otp_recovery()
    secret_wifi()
    secret_pins()
    secret_cookies_headers()
    secret_signed_urls()
    secret_webhooks()
    secret_obfuscated()
    pii_cards()
    pii_ibans()
    pii_national_ids()
    pii_passports()
    pii_phones()
    pii_emails()
    pii_addresses()
    pii_dob()
    pii_medical()
    benign()
    abbr = {"secret": "sec", "pii": "pii", "benign": "ben"}
    counters = Counter()
    rows = []
    for label, fam, text in items:
        counters[(label, fam)] += 1
        rows.append({"id": f"c-{abbr[label]}-{fam}-{counters[(label, fam)]:03d}", "label": label, "family": fam, "text": text})
    return rows


def self_check(rows):
    rep = []
    ids = [r["id"] for r in rows]
    texts = [r["text"] for r in rows]
    assert len(set(ids)) == len(ids), "duplicate ids"
    assert len(set(texts)) == len(texts), "duplicate texts"
    rep.append(f"PASS {len(rows)} rows, ids and texts unique")
    n_cards = n_ibans = 0
    for r in rows:
        cards = valid_cards_in(r["text"])
        ibans = valid_ibans_in(r["text"])
        if r["label"] == "benign":
            assert not cards, (r["id"], cards)
            assert not ibans, (r["id"], ibans)
        if r["family"] == "payment_card":
            assert len(cards) == 1, (r["id"], cards)
            n_cards += 1
        if r["family"] == "iban":
            assert len(ibans) == 1, (r["id"], ibans)
            n_ibans += 1
    rep.append(f"PASS every payment_card row holds exactly one Luhn-valid number ({n_cards} rows)")
    rep.append(f"PASS every iban row holds exactly one mod-97-valid IBAN ({n_ibans} rows)")
    rep.append("PASS no benign row holds a Luhn-valid 13-19 digit run or a mod-97-valid IBAN")
    # no secret row holds a card/IBAN (keep labels exclusive)
    for r in rows:
        if r["label"] == "secret":
            assert not valid_ibans_in(r["text"]), r["id"]
    rep.append("PASS no secret row holds a mod-97-valid IBAN")
    sec_cards = [r["id"] for r in rows if r["label"] == "secret" and valid_cards_in(r["text"])]
    rep.append(f"INFO secret rows with an accidental Luhn-valid 13-19 digit run (random digits inside tokens/codes): {sec_cards or 'none'}")
    # every national-id / medical-id / passport MRZ value re-parsed from its text and validated
    nid = 0
    for r in rows:
        f, t = r["family"], r["text"]
        ok = None
        if f == "nl_bsn":
            ok = bsn_ok(re.search(r"\b\d{9}\b", t).group())
        elif f == "pl_pesel":
            v = re.search(r"\b\d{11}\b", t).group()
            ok = pesel_digit(v[:10]) == v[10]
        elif f == "br_cpf":
            v = re.sub(r"\D", "", re.search(r"\d{3}\.\d{3}\.\d{3}-\d{2}", t).group())
            ok = cpf_digits(v[:9]) == v
        elif f == "se_personnummer":
            v = re.sub(r"\D", "", re.search(r"(?:\d{2})?\d{6}-\d{4}", t).group())[-10:]
            ok = luhn_ok(v)
        elif f == "fi_hetu":
            m = re.search(r"(\d{6})-(\d{3})([0-9A-Y])", t)
            ok = hetu_char(m.group(1), m.group(2)) == m.group(3)
        elif f == "in_aadhaar":
            ok = verhoeff_ok(re.sub(r"\D", "", re.search(r"\d{4} \d{4} \d{4}", t).group()))
        elif f == "ca_sin":
            ok = luhn_ok(re.search(r"\d{3} \d{3} \d{3}", t).group())
        elif f == "au_tfn":
            ok = tfn_ok(re.sub(r"\D", "", re.search(r"\d{3} \d{3} \d{3}", t).group()))
        elif f == "cn_resident_id":
            v = re.search(r"\d{17}[\dX]", t).group()
            ok = cn_check(v[:17]) == v[17]
        elif f == "jp_my_number":
            v = re.sub(r"\D", "", re.search(r"\d{4} ?\d{4} ?\d{4}", t).group())
            ok = mynumber_check(v[:11]) == v[11]
        elif f == "it_codice_fiscale":
            v = re.search(r"\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b", t).group()
            ok = cf_check(v[:15]) == v[15]
        elif f == "be_rrn":
            v = re.sub(r"\D", "", re.search(r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}", t).group())
            ok = be_rrn_check(v[:9]) == v[9:]
        elif f == "es_dni":
            m = re.search(r"([XYZ])?-?(\d{7,8})-?([A-Z])\b", t)
            num = (str("XYZ".index(m.group(1))) if m.group(1) else "") + m.group(2)
            ok = dni_letter(num) == m.group(3)
        elif f == "fr_nir":
            v = re.sub(r"\D", "", re.search(r"[12] \d{2} \d{2} \d{2} \d{3} \d{3} \d{2}", t).group())
            ok = nir_key(v[:13]) == int(v[13:])
        elif f == "medical_insurance_id" and "NHS" in t:
            v = re.sub(r"\D", "", re.search(r"\d{3} ?\d{3} ?\d{4}", t).group())
            ok = nhs_check(v[:9]) == v[9]
        elif f == "medical_insurance_id" and ("KVNR" in t or "Krankenversichertennummer" in t):
            v = re.search(r"\b[A-Z]\d{9}\b", t).group()
            ok = kvnr_check(v[0], v[1:9]) == v[9]
        elif f == "medical_insurance_id" and "AHV" in t:
            v = re.sub(r"\D", "", re.search(r"756\.\d{4}\.\d{4}\.\d{2}", t).group())
            ok = isbn13_check(v[:12]) == v[12]
        elif f == "passport" and "MRZ" in t:
            l2 = t.split("\n")[-1]
            ok = (mrz_check(l2[0:9]) == l2[9] and mrz_check(l2[13:19]) == l2[19] and mrz_check(l2[21:27]) == l2[27]
                  and mrz_check(l2[0:10] + l2[13:20] + l2[21:43]) == l2[43])
        if ok is not None:
            assert ok, r["id"]
            nid += 1
    rep.append(f"PASS {nid} national-id / health-id / MRZ values re-parsed from the text pass their check algorithm")
    consumer = re.compile(r"@(gmail|outlook|web|gmx|yahoo|libero|hotmail|icloud|proton|wp|naver|t-online|qq)\.")
    for r in rows:
        if r["label"] != "pii":
            assert not consumer.search(r["text"]), r["id"]
    rep.append("PASS no secret or benign row holds a consumer-mailbox email address")
    prefixes = re.compile(r"(sk_live_|sk-proj-|sk-ant-|ghp_|glpat-|xox[bpa]-|AKIA|AIza|-----BEGIN|password\s*[:=]|hooks\.slack)")
    for r in rows:
        if r["label"] == "pii":
            assert not prefixes.search(r["text"]), r["id"]
    rep.append("PASS no pii row holds a credential prefix, a key block or a password assignment")
    c = Counter(r["label"] for r in rows)
    tot = len(rows)
    rep.append("INFO labels: " + ", ".join(f"{k} {v} ({100 * v / tot:.1f}%)" for k, v in sorted(c.items())))
    for r in rows:
        assert "\r" not in r["text"]
    return rep


def main():
    alg = self_test_algorithms()
    rows = build()
    rep = self_check(rows)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("\n".join(alg + rep))
    if "--counts" in sys.argv:
        c = Counter((r["label"], r["family"]) for r in rows)
        for lab in ("secret", "pii", "benign"):
            fams = sorted((f, n) for (l, f), n in c.items() if l == lab)
            print(f"\n{lab}: {sum(n for _, n in fams)} rows, {len(fams)} families")
            for f, n in fams:
                print(f"  {f:28s} {n}")


if __name__ == "__main__":
    main()
