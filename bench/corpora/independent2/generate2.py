#!/usr/bin/env python3
"""Independent no-store corpus, second generation (sets A and B).

Python 3.11 stdlib only. Deterministic: random.Random(20261202).
Writes secrets_set_a.jsonl and secrets_set_b.jsonl next to this file after a self-check.
Set A and set B share families but use different sentence templates (index 0 / 1) and
different random values.  Run:  python3 generate2.py [--counts]
"""
import base64, hashlib, hmac, json, os, re, string, sys, random

R = random.Random(20261202)
HERE = os.path.dirname(os.path.abspath(__file__))
UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG
B64U = AN + "-_"
HEX = "0123456789abcdef"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
CROCK = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def rs(n, alpha=AN):
    return "".join(R.choice(alpha) for _ in range(n))


def ch(seq):
    return R.choice(seq)


def b64(nbytes):
    return base64.b64encode(R.randbytes(nbytes)).decode()


def b64u(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# ---------------------------------------------------------------- checksums
def luhn_ok(num):
    s, alt = 0, False
    for c in reversed(num):
        d = int(c)
        if alt:
            d *= 2
            if d > 9:
                d -= 9
        s += d
        alt = not alt
    return s % 10 == 0


def luhn_digit(payload):
    for d in "0123456789":
        if luhn_ok(payload + d):
            return d


IBAN_LEN = {"DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "BE": 16, "AT": 20, "CH": 21,
            "PL": 28, "PT": 25, "SE": 24, "DK": 18, "NO": 15, "FI": 18, "IE": 22, "LU": 20, "CZ": 24,
            "HU": 28, "RO": 24, "GR": 27, "HR": 21, "SK": 24, "SI": 19, "BG": 22, "LT": 20, "LV": 21,
            "EE": 20, "MT": 31, "CY": 28, "SA": 24, "AE": 23, "TR": 26, "BR": 29, "IS": 26, "LI": 21}


def iban_ok(iban):
    iban = iban.replace(" ", "")
    if len(iban) < 5 or IBAN_LEN.get(iban[:2]) != len(iban):
        return False
    s = iban[4:] + iban[:4]
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97 == 1


def make_iban(cc):
    L = IBAN_LEN[cc] - 4
    letters4 = {"GB", "NL", "IE", "RO", "BG"}
    if cc in letters4:
        bban = rs(4, UP) + rs(L - 4, DG)
    elif cc == "IT":
        bban = ch(UP) + rs(L - 1, DG)
    elif cc in ("MT",):
        bban = rs(4, UP) + rs(L - 4, DG)
    elif cc == "BR":
        bban = rs(L - 2, DG) + "C1"
    else:
        bban = rs(L, DG)
    n = "".join(str(int(c, 36)) for c in bban + cc + "00")
    chk = 98 - int(n) % 97
    return f"{cc}{chk:02d}{bban}"


def group4(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


VD = [[0,1,2,3,4,5,6,7,8,9],[1,2,3,4,0,6,7,8,9,5],[2,3,4,0,1,7,8,9,5,6],[3,4,0,1,2,8,9,5,6,7],
      [4,0,1,2,3,9,5,6,7,8],[5,9,8,7,6,0,4,3,2,1],[6,5,9,8,7,1,0,4,3,2],[7,6,5,9,8,2,1,0,4,3],
      [8,7,6,5,9,3,2,1,0,4],[9,8,7,6,5,4,3,2,1,0]]
VP = [[0,1,2,3,4,5,6,7,8,9],[1,5,7,6,2,8,3,0,9,4],[5,8,0,3,7,9,6,1,4,2],[8,9,1,6,0,4,3,5,2,7],
      [9,4,5,3,1,2,7,6,8,0],[4,2,8,6,5,7,3,9,0,1],[2,7,9,3,8,0,6,4,1,5],[7,0,4,6,9,1,3,2,5,8]]
VINV = [0,4,3,2,1,5,6,7,8,9]


def verhoeff_ok(num):
    c = 0
    for i, d in enumerate(reversed(num)):
        c = VD[c][VP[i % 8][int(d)]]
    return c == 0


def verhoeff_digit(payload):
    c = 0
    for i, d in enumerate(reversed(payload)):
        c = VD[c][VP[(i + 1) % 8][int(d)]]
    return str(VINV[c])


DNI_L = "TRWAGMYFPDXBNJZSQVHLCKE"
CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                  [1,0,5,7,9,13,15,17,19,21,1,0,5,7,9,13,15,17,19,21,2,4,18,20,11,3,6,8,12,14,16,10,22,25,24,23]))
CF_EVEN = {**{str(i): i for i in range(10)}, **{c: i for i, c in enumerate(UP)}}


def cf_check(s15):
    t = sum(CF_ODD[c] if i % 2 == 0 else CF_EVEN[c] for i, c in enumerate(s15))
    return UP[t % 26]


def nif_pt_ok(n):
    s = sum(int(n[i]) * (9 - i) for i in range(8))
    c = 11 - s % 11
    return int(n[8]) == (0 if c >= 10 else c)


def pesel_ok(n):
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return (10 - sum(int(n[i]) * w[i] for i in range(10)) % 10) % 10 == int(n[10])


def cpf_ok(c):
    d = [int(x) for x in re.sub(r"\D", "", c)]
    if len(set(d)) == 1:
        return False
    d1 = sum(d[i] * (10 - i) for i in range(9)) * 10 % 11 % 10
    d2 = sum(d[i] * (11 - i) for i in range(10)) * 10 % 11 % 10
    return d[9] == d1 and d[10] == d2


def tfn_ok(t):
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    return sum(int(t[i]) * w[i] for i in range(9)) % 11 == 0


def isbn13_digit(p12):
    return str((10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(p12)) % 10) % 10)


# ---------------------------------------------------------------- common data
FIRST = ["Lena", "Jonas", "Camille", "Théo", "Lucía", "Mateo", "Giulia", "Marco", "Inês", "Tiago", "Zofia",
         "Kacper", "Elsa", "Oskar", "Priya", "Arjun", "Ana Clara", "Rafael", "Chloé", "Liam", "Aiko", "Haruto",
         "Mei", "Wei", "Olga", "Dmitri", "Thandi", "Sipho", "Noah", "Amelia", "Siobhan", "Ravi"]
LAST = ["Brandt", "Hoffmann", "Morel", "Garnier", "Navarro", "Ortega", "Ricci", "Conti", "Carvalho", "Sousa",
        "Nowak", "Wiśniewski", "Lindqvist", "Berg", "Iyer", "Menon", "Souza", "Barbosa", "Tremblay", "Walsh",
        "Sato", "Kobayashi", "Zhang", "Liu", "Volkova", "Petrov", "Nkosi", "Dlamini", "Fischer", "Clarke"]
HOSTS = ["db-prod-2.internal", "pg.eu-west.acme-corp.net", "10.12.4.7", "orders-db.svc.cluster.local",
         "analytics.rds.lumenhq.io", "cache01.tallyapp.dev", "mq.brightline.cloud", "db.northwind-ops.com"]
USERS = ["app", "svc_orders", "reporting", "etl_job", "billing_rw", "api", "deployer", "metrics"]
WORDS = ["falcon", "tundra", "marble", "ginger", "copper", "harbor", "lantern", "violet", "quartz", "maple",
         "orbit", "saffron", "pebble", "walrus", "cobalt", "meadow", "thistle", "zephyr", "juniper", "canyon"]


def person():
    return f"{ch(FIRST)} {ch(LAST)}"


def human_password():
    k = R.randrange(4)
    if k == 0:
        return ch(WORDS).capitalize() + str(R.randrange(1975, 2026)) + ch("!#$%&*?@")
    if k == 1:
        w = ch(WORDS) + ch(WORDS)
        return w.replace("a", "4").replace("e", "3").replace("o", "0").capitalize() + ch("!$%") + str(R.randrange(10, 99))
    if k == 2:
        return rs(R.randrange(12, 19), AN + "!@#$%^&*-_+=")
    return "-".join(ch(WORDS) for _ in range(4)) + str(R.randrange(10))


def strong_pw():
    return rs(R.randrange(16, 25), AN + "!#%^*-_+=~")


# ---------------------------------------------------------------- generic wrappers for prefixed tokens
# each wrapper: (name, ENV, tok) -> text.  set A uses WRAP[0], set B uses WRAP[1]
WRAP = [
    [
        lambda n, e, t: f"Here's the {n} for staging: {t}",
        lambda n, e, t: f"export {e}={t}",
        lambda n, e, t: f"credentials:\n  {e.lower()}: {t}\n  region: eu-central-1",
        lambda n, e, t: json.dumps({e.lower(): t, "env": "prod"}),
        lambda n, e, t: f'{e} = "{t}"  # TODO move to vault',
        lambda n, e, t: f"2026-03-04T10:22:01Z DEBUG client init {e.lower()}={t}",
        lambda n, e, t: f"### Setup\n\nPaste `{t}` as the {n} in settings.",
        lambda n, e, t: f"{e}={t}\nLOG_LEVEL=info\nPORT=8080",
        lambda n, e, t: f"Der {n} lautet {t}, bitte nicht weitergeben.",
        lambda n, e, t: f"fyi the new {n} is {t} (old one revoked)",
    ],
    [
        lambda n, e, t: f"remember: {n} = {t}",
        lambda n, e, t: f"[auth]\n{e.lower()} = \"{t}\"\ntimeout = 30",
        lambda n, e, t: f"const {e.lower().replace('_', '')} = '{t}';",
        lambda n, e, t: f'\t{e.title().replace("_", "")} := "{t}"',
        lambda n, e, t: f"# {n}\n{e}=\"{t}\"",
        lambda n, e, t: f"apiVersion: v1\nkind: Secret\nstringData:\n  {e.lower()}: \"{t}\"",
        lambda n, e, t: f"[worker-3] WARN falling back to cached {n} {t}",
        lambda n, e, t: f"Voici le {n} : {t}",
        lambda n, e, t: f"El {n} de producción es {t}",
        lambda n, e, t: f"Hi team,\n\nrotated {n} below:\n\n{t}\n\nthanks!",
        lambda n, e, t: f"docker run -e {e}={t} ghcr.io/acme/worker:1.4",
    ],
]


def wrap(s, name, env, tok):
    return ch(WRAP[s])(name, env, tok)


# ---------------------------------------------------------------- secret families
def s_gitlab(s):
    p = ch(["glpat-", "glpat-", "gldt-", "glrt-"])
    tok = p + rs(20, B64U)
    name = {"glpat-": "GitLab personal access token", "gldt-": "GitLab deploy token", "glrt-": "GitLab runner token"}[p]
    if R.random() < 0.3:
        return [f"git clone https://oauth2:{tok}@gitlab.com/acme/infra.git",
                f"curl --header \"PRIVATE-TOKEN: {tok}\" https://gitlab.example-corp.io/api/v4/projects"][s]
    return wrap(s, name, "GITLAB_TOKEN", tok)


def s_hf(s):
    return wrap(s, "Hugging Face token", "HF_TOKEN", "hf_" + rs(34, UP + LO))


def s_anthropic(s):
    return wrap(s, "Anthropic API key", "ANTHROPIC_API_KEY", "sk-ant-api03-" + rs(93, B64U) + "AA")


def s_openai(s):
    p = ch(["sk-proj-", "sk-svcacct-", "sk-admin-"])
    tok = p + rs(74, B64U) + "T3BlbkFJ" + rs(74, B64U)
    return wrap(s, "OpenAI key", "OPENAI_API_KEY", tok)


def s_google_api(s):
    tok = "AIza" + rs(35, B64U)
    if R.random() < 0.3:
        return [f"<script src=\"https://maps.googleapis.com/maps/api/js?key={tok}&callback=initMap\"></script>",
                f"firebaseConfig = {{ apiKey: \"{tok}\", projectId: \"lumen-prod\" }}"][s]
    return wrap(s, "Google API key", "GOOGLE_API_KEY", tok)


def s_google_oauth(s):
    cid = f"{R.randrange(10**11, 10**12)}-{rs(32, DG + LO)}.apps.googleusercontent.com"
    sec = "GOCSPX-" + rs(28, B64U)
    return [f"OAuth client: {cid}\nclient secret: {sec}",
            json.dumps({"web": {"client_id": cid, "client_secret": sec, "redirect_uris": ["https://app.lumenhq.io/cb"]}})][s]


def s_azure_conn(s):
    acct = ch(["stlumenprod", "acmelogs01", "tallyblobs", "nwbackups"])
    key = b64(64)
    cs = f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};EndpointSuffix=core.windows.net"
    return [f"AZURE_STORAGE_CONNECTION_STRING=\"{cs}\"",
            f"\"ConnectionStrings\": {{ \"Blob\": \"{cs}\" }}"][s]


def s_azure_sas(s):
    acct = ch(["stlumenprod", "acmelogs01", "tallyblobs"])
    sig = b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    url = (f"https://{acct}.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=sco&sp=rl"
           f"&se=2027-0{R.randrange(1, 9)}-15T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={sig}")
    return [f"Download link (SAS, valid 30 days): {url}", f"azcopy copy \"{url}\" ./report.csv"][s]


def s_shopify(s):
    p = ch(["shpat_", "shpss_", "shpat_"])
    return wrap(s, "Shopify admin token" if p == "shpat_" else "Shopify shared secret", "SHOPIFY_TOKEN", p + rs(32, HEX))


def s_square(s):
    tok = ch(["EAAA" + rs(60, B64U), "sq0atp-" + rs(22, B64U), "sq0csp-" + rs(43, B64U)])
    return wrap(s, "Square access token", "SQUARE_ACCESS_TOKEN", tok)


def s_paypal(s):
    tok = f"access_token$production${rs(16, DG + LO)}${rs(32, HEX)}"
    return wrap(s, "Braintree/PayPal access token", "BRAINTREE_ACCESS_TOKEN", tok)


def s_sendgrid(s):
    return wrap(s, "SendGrid API key", "SENDGRID_API_KEY", f"SG.{rs(22, B64U)}.{rs(43, B64U)}")


def s_mailgun(s):
    tok = "key-" + rs(32, HEX)
    if R.random() < 0.4:
        return [f"curl -s --user 'api:{tok}' https://api.mailgun.net/v3/mg.lumenhq.io/messages",
                f"mailgun:\n  domain: mg.tallyapp.dev\n  api_key: {tok}"][s]
    return wrap(s, "Mailgun API key", "MAILGUN_API_KEY", tok)


def s_twilio(s):
    sid, sec = "SK" + rs(32, HEX), rs(32, AN)
    return [f"TWILIO_API_KEY={sid}\nTWILIO_API_SECRET={sec}",
            f"client = Client(\"{sid}\", \"{sec}\", account_sid)  # twilio api key + secret"][s]


def s_discord(s):
    uid = str(R.randrange(10**17, 10**18 * 2))
    tok = f"{b64u(uid.encode())}.{rs(6, B64U)}.{rs(38, B64U)}"
    if R.random() < 0.3:
        url = f"https://discord.com/api/webhooks/{uid}/{rs(68, B64U)}"
        return [f"alerts go to {url}", f"DISCORD_WEBHOOK_URL={url}"][s]
    return wrap(s, "Discord bot token", "DISCORD_BOT_TOKEN", tok)


def s_telegram(s):
    tok = f"{R.randrange(10**7, 10**10)}:AA{rs(33, B64U)}"
    if R.random() < 0.3:
        return [f"curl https://api.telegram.org/bot{tok}/sendMessage -d chat_id=@ops_alerts -d text=deploy-ok",
                f"bot = telebot.TeleBot(\"{tok}\")"][s]
    return wrap(s, "Telegram bot token", "TELEGRAM_BOT_TOKEN", tok)


def s_slack(s):
    k = R.randrange(3)
    if k == 0:
        tok = f"xoxb-{R.randrange(10**10, 10**13)}-{R.randrange(10**10, 10**13)}-{rs(24)}"
        return wrap(s, "Slack bot token", "SLACK_BOT_TOKEN", tok)
    if k == 1:
        tok = f"xoxp-{R.randrange(10**10, 10**13)}-{R.randrange(10**10, 10**13)}-{R.randrange(10**10, 10**13)}-{rs(32, HEX)}"
        return wrap(s, "Slack user token", "SLACK_USER_TOKEN", tok)
    url = f"https://hooks.slack.com/services/T{rs(8, UP + DG)}/B{rs(10, UP + DG)}/{rs(24)}"
    return [f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' {url}",
            f"notifications:\n  slack_webhook: {url}"][s]


def s_npm(s):
    tok = "npm_" + rs(36)
    if R.random() < 0.4:
        return [f"//registry.npmjs.org/:_authToken={tok}", f"echo \"//registry.npmjs.org/:_authToken={tok}\" > ~/.npmrc"][s]
    return wrap(s, "npm token", "NPM_TOKEN", tok)


def s_pypi(s):
    body = b64u(b"\x01\x08pypi.org\x02\x25\x08\x01\x12\x20" + R.randbytes(80) + b"\x00\x06 " + R.randbytes(32))
    tok = "pypi-AgEIcHlwaS5vcmc" + body[20:]
    if R.random() < 0.4:
        return [f"[pypi]\n  username = __token__\n  password = {tok}", f"twine upload -u __token__ -p {tok} dist/*"][s]
    return wrap(s, "PyPI API token", "TWINE_PASSWORD", tok)


def s_docker(s):
    tok = "dckr_pat_" + rs(27, B64U)
    if R.random() < 0.4:
        return [f"docker login -u acmebuild -p {tok}", f"echo done; DOCKERHUB_TOKEN={tok} make push"][s]
    return wrap(s, "Docker Hub access token", "DOCKERHUB_TOKEN", tok)


def s_do(s):
    return wrap(s, "DigitalOcean token", "DIGITALOCEAN_TOKEN", ch(["dop_v1_", "doo_v1_"]) + rs(64, HEX))


def s_doppler(s):
    return wrap(s, "Doppler service token", "DOPPLER_TOKEN", ch(["dp.pt.", "dp.st.prd."]) + rs(43))


def s_vault(s):
    tok = ch(["hvs." + rs(24), "hvs.CAESI" + rs(R.randrange(80, 100), B64U)])
    if R.random() < 0.3:
        return [f"vault login {tok}", f"VAULT_ADDR=https://vault.lumenhq.io VAULT_TOKEN={tok} vault kv get secret/app"][s]
    return wrap(s, "Vault token", "VAULT_TOKEN", tok)


def s_terraform(s):
    tok = f"{rs(14)}.atlasv1.{rs(67)}"
    if R.random() < 0.4:
        return [f"credentials \"app.terraform.io\" {{\n  token = \"{tok}\"\n}}",
                json.dumps({"credentials": {"app.terraform.io": {"token": tok}}}, indent=2)][s]
    return wrap(s, "Terraform Cloud token", "TF_TOKEN_app_terraform_io", tok)


def s_linear(s):
    return wrap(s, "Linear API key", "LINEAR_API_KEY", "lin_api_" + rs(40))


def s_notion(s):
    return wrap(s, "Notion integration token", "NOTION_TOKEN", ch(["secret_" + rs(43), "ntn_" + rs(11, DG) + rs(35)]))


def s_atlassian(s):
    tok = "ATATT3xFfGF0" + rs(R.randrange(170, 190), B64U) + "=" + rs(8, HEX.upper())
    if R.random() < 0.4:
        return [f"curl -u ci-bot:{tok} https://lumenhq.atlassian.net/rest/api/3/myself",
                f"jira:\n  url: https://acme.atlassian.net\n  user: ci-bot\n  api_token: {tok}"][s]
    return wrap(s, "Atlassian API token", "JIRA_API_TOKEN", tok)


def s_jwt(s):
    alg = ch(["HS256", "RS256"])
    h = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(json.dumps({"sub": f"svc-{rs(6, LO)}", "iat": 1764000000 + R.randrange(10**6),
                         "exp": 1800000000 + R.randrange(10**6), "scope": "read write"}, separators=(",", ":")).encode())
    if alg == "HS256":
        sig = b64u(hmac.new(R.randbytes(32), f"{h}.{p}".encode(), hashlib.sha256).digest())
    else:
        sig = b64u(R.randbytes(256))
    tok = f"{h}.{p}.{sig}"
    return [ch([f"Authorization: Bearer {tok}", f"use this bearer token for the staging API: {tok}"]),
            ch([f"curl -H \"Authorization: Bearer {tok}\" https://api.tallyapp.dev/v2/invoices",
                f"headers = {{\"Authorization\": \"Bearer {tok}\"}}"])][s]


def pem_lines(raw):
    t = base64.b64encode(raw).decode()
    return "\n".join(t[i:i + 64] for i in range(0, len(t), 64))


def s_pem(s):
    k = R.randrange(4)
    if k == 0:
        lab, raw = "RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100") + R.randbytes(1180)
    elif k == 1:
        lab, raw = "PRIVATE KEY", bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7") + R.randbytes(1180)
    elif k == 2:
        lab, raw = "EC PRIVATE KEY", bytes.fromhex("307702010104") + b"\x20" + R.randbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + R.randbytes(65)
    else:
        lab = "OPENSSH PRIVATE KEY"
        pub = R.randbytes(32)
        def st(b): return len(b).to_bytes(4, "big") + b
        pk = st(b"ssh-ed25519") + st(pub)
        ci = R.randbytes(4)
        priv = ci + ci + pk + st(R.randbytes(32) + pub) + st(b"deploy@ci") + b"\x01\x02\x03"
        raw = b"openssh-key-v1\0" + st(b"none") + st(b"none") + st(b"") + (1).to_bytes(4, "big") + st(pk) + st(priv)
        body = base64.b64encode(raw).decode()
        block = f"-----BEGIN {lab}-----\n" + "\n".join(body[i:i + 70] for i in range(0, len(body), 70)) + f"\n-----END {lab}-----"
        return [f"here is the deploy key:\n{block}", f"```\n{block}\n```\nsave as ~/.ssh/id_ed25519"][s]
    block = f"-----BEGIN {lab}-----\n{pem_lines(raw)}\n-----END {lab}-----"
    return [ch([block, f"tls:\n  key: |\n" + "\n".join("    " + l for l in block.split("\n"))]),
            ch([f"cat > server.key <<'EOF'\n{block}\nEOF", f"private_key = \"\"\"{block}\"\"\""])][s]


def s_pgp(s):
    raw = b"\x95\x03\xc6\x04" + R.randbytes(900)
    crc = base64.b64encode(R.randbytes(3)).decode()
    block = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{pem_lines(raw)}\n={crc}\n-----END PGP PRIVATE KEY BLOCK-----"
    return [f"Backup of the release signing key:\n{block}", f"gpg --import <<'KEY'\n{block}\nKEY"][s]


def s_netrc(s):
    host = ch(["api.heroku.com", "git.lumenhq.io", "ftp.acme-corp.net", "nexus.tallyapp.dev", "artifactory.brightline.cloud"])
    pw = ch([strong_pw(), human_password()])
    return [f"~/.netrc:\nmachine {host}\n  login {ch(USERS)}\n  password {pw}",
            f"machine {host} login {ch(USERS)} password {pw}"][s]


def s_dsn(s):
    pw = ch([strong_pw(), human_password()]).replace("@", "%40").replace("#", "%23").replace("/", "%2F").replace(":", "%3A").replace("?", "%3F")
    u, h = ch(USERS), ch(HOSTS)
    k = R.randrange(6)
    url = [f"postgres://{u}:{pw}@{h}:5432/orders?sslmode=require",
           f"postgresql://{u}:{pw}@{h}/analytics",
           f"mysql://{u}:{pw}@{h}:3306/shop",
           f"mongodb+srv://{u}:{pw}@cluster0.{rs(5, LO + DG)}.mongodb.net/app?retryWrites=true",
           f"redis://:{pw}@{h}:6379/0",
           f"amqp://{u}:{pw}@{h}:5672/%2F"][k]
    return [ch([f"DATABASE_URL={url}", f"db:\n  url: \"{url}\"", f"connecting with {url}"]),
            ch([f"SQLALCHEMY_DATABASE_URI = \"{url}\"", f"psql-ish dsn for the job: {url}", json.dumps({"dsn": url})])][s]


def s_basic_auth(s):
    pw = strong_pw().replace("@", "").replace("#", "").replace("/", "").replace(":", "").replace("?", "")
    u = ch(USERS)
    url = ch([f"https://{u}:{pw}@nexus.lumenhq.io/repository/pypi/simple",
              f"https://{u}:{pw}@jenkins.acme-corp.net/job/deploy/build",
              f"http://{u}:{pw}@proxy.tallyapp.dev:3128",
              f"https://{u}:{pw}@grafana.brightline.cloud/api/dashboards"])
    return [ch([f"pip install --index-url {url} internal-lib", f"proxy url: {url}"]),
            ch([f"git remote set-url origin {url}", f"HTTPS_PROXY={url}"])][s]


PW_PROSE = [
    [  # set A
        "my password for the NAS is {p}",
        "Mein Passwort für das Firmenkonto ist {p}",
        "Mon mot de passe Netflix est {p}",
        "Mi contraseña del banco es {p}",
        "A minha senha do e-mail é {p}",
        "私のパスワードは {p} です",
        "我的密码是 {p}",
        "Мой пароль от почты: {p}",
        "login for the admin panel: user ops, pass {p}",
        "Das neue Kennwort für den Router lautet „{p}“.",
        "le mot de passe du compte admin : {p}",
        "la contraseña de la VPN es {p} (no la compartas)",
    ],
    [  # set B
        "pw for jenkins admin -> {p}",
        "Passwort vom Server: {p} – nicht ins Wiki schreiben",
        "Voici mon mot de passe pour le portail RH : {p}",
        "Contraseña nueva del correo: {p}",
        "Senha do servidor de arquivos: {p}",
        "サーバーのパスワード：{p}",
        "数据库密码：{p}",
        "Пароль администратора — {p}",
        "password: {p}\nusername: backup-operator",
        "the root password on the old box is still {p}",
        "Ma nouvelle passe pour le Wi-Fi du bureau? Non, pour le compte AWS console: {p}",
        "Mi clave de acceso al portal es {p}",
    ],
]


def s_password(s):
    return ch(PW_PROSE[s]).format(p=human_password())


def s_wifi(s):
    ssid = ch(["Fritzbox-7590", "Livebox-4A2C", "HomeNet_5G", "Vodafone-B3F1", "TP-Link_9C20", "Casa_Garcia"])
    pw = ch([human_password(), rs(16, AN)])
    return [ch([f"Wi-Fi for guests: {ssid} / {pw}", f"WLAN-Passwort: {pw} (Netz {ssid})"]),
            ch([f"WIFI:T:WPA;S:{ssid};P:{pw};;", f"el wifi es {ssid}, clave {pw}"])][s]


def pin(n):
    while True:
        p = rs(n, DG)
        if len(set(p)) > 2 and p not in ("1234", "123456", "4321", "654321"):
            return p


def s_code(s):
    A = ["the door code for the back entrance is {c}#", "alarm disarm code: {c}", "my bank card PIN is {c}",
         "Türcode Haus 2: {c}", "le code de la porte d'entrée est {c}", "SIM PIN {c}, PUK is in the drawer"]
    B = ["garage keypad code = {c}", "PIN für die EC-Karte: {c}", "código de la alarma: {c}",
         "暗証番号は {c} です", "code alarme maison : {c}", "phone unlock PIN is {c}"]
    return ch([A, B][s]).format(c=pin(ch([4, 4, 6, 5])))


def s_totp(s):
    sec = rs(32, B32)
    issuer = ch(["GitHub", "AWS", "Okta", "Cloudflare", "Proton", "Binance"])
    uri = f"otpauth://totp/{issuer}:ops-admin?secret={sec}&issuer={issuer}&algorithm=SHA1&digits=6&period=30"
    return [ch([f"2FA seed for the shared admin: {uri}", f"scan this into the authenticator: {uri}"]),
            ch([f"totp_uri: \"{uri}\"", f"MFA backup (key): {' '.join(sec[i:i+4] for i in range(0, 32, 4))} for {issuer} ops-admin"])][s]


def s_recovery(s):
    k = R.randrange(2)
    if k == 0:
        codes = [f"{rs(5, LO + DG)}-{rs(5, LO + DG)}" for _ in range(8)]
    else:
        codes = [rs(4, DG) + " " + rs(4, DG) for _ in range(8)]
    svc = ch(["GitHub", "Google", "Microsoft", "Dropbox", "1Password", "Discord"])
    return [f"{svc} recovery codes:\n" + "\n".join(codes),
            f"Backup codes ({svc}) – keep safe: " + ", ".join(codes)][s]


SECRET_FAMILIES = {
    "gitlab_token": (s_gitlab, 8), "huggingface_token": (s_hf, 6), "anthropic_api_key": (s_anthropic, 6),
    "openai_project_key": (s_openai, 7), "google_api_key": (s_google_api, 6), "google_oauth_secret": (s_google_oauth, 5),
    "azure_storage_connection": (s_azure_conn, 6), "azure_sas_token": (s_azure_sas, 6), "shopify_token": (s_shopify, 6),
    "square_token": (s_square, 5), "paypal_braintree_token": (s_paypal, 5), "sendgrid_api_key": (s_sendgrid, 5),
    "mailgun_api_key": (s_mailgun, 5), "twilio_api_key": (s_twilio, 5), "discord_token": (s_discord, 6),
    "telegram_bot_token": (s_telegram, 6), "slack": (s_slack, 8), "npm_token": (s_npm, 5), "pypi_token": (s_pypi, 5),
    "dockerhub_pat": (s_docker, 5), "digitalocean_token": (s_do, 5), "doppler_token": (s_doppler, 5),
    "vault_token": (s_vault, 5), "terraform_cloud_token": (s_terraform, 5), "linear_api_key": (s_linear, 5),
    "notion_token": (s_notion, 5), "atlassian_api_token": (s_atlassian, 5), "jwt_bearer": (s_jwt, 6),
    "pem_private_key": (s_pem, 9), "pgp_private_key": (s_pgp, 4), "netrc": (s_netrc, 5), "dsn_with_password": (s_dsn, 10),
    "basic_auth_url": (s_basic_auth, 6), "password_prose": (s_password, 16), "wifi_password": (s_wifi, 5),
    "door_code_pin": (s_code, 7), "totp_seed": (s_totp, 5), "recovery_codes": (s_recovery, 5),
}

# ---------------------------------------------------------------- PII
CHECKS = []  # (kind, value) recorded per item


def chk(kind, v):
    CHECKS.append((kind, v))
    return v


TEST_CARDS = {"4242424242424242", "4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
              "4000056655665556", "5105105105105100", "3530111333300000", "30569309025904"}


def p_card(s):
    brand = ch(["visa", "mastercard", "mastercard2", "amex", "discover", "jcb", "diners", "unionpay", "maestro"])
    ln = 16
    if brand == "visa": pre = "4"
    elif brand == "mastercard": pre = str(R.randrange(51, 56))
    elif brand == "mastercard2": pre = str(R.randrange(2221, 2721))
    elif brand == "amex": pre, ln = ch(["34", "37"]), 15
    elif brand == "discover": pre = ch(["6011", "65"])
    elif brand == "jcb": pre = str(R.randrange(3528, 3590))
    elif brand == "diners": pre, ln = "36", 14
    elif brand == "unionpay": pre, ln = "62", ch([16, 19])
    else: pre, ln = ch(["6759", "5018", "6304"]), ch([16, 19])
    while True:
        body = pre + rs(ln - len(pre) - 1, DG)
        n = body + luhn_digit(body)
        if n not in TEST_CARDS:
            break
    chk("luhn", n)
    st = R.randrange(3)
    if ln == 15:
        f = [n, f"{n[:4]} {n[4:10]} {n[10:]}", f"{n[:4]}-{n[4:10]}-{n[10:]}"][st]
    elif ln == 14:
        f = [n, f"{n[:4]} {n[4:10]} {n[10:]}", f"{n[:4]}-{n[4:10]}-{n[10:]}"][st]
    else:
        f = [n, group4(n), "-".join(n[i:i + 4] for i in range(0, ln, 4))][st]
    exp = f"{R.randrange(1, 13):02d}/{R.randrange(27, 32)}"
    A = ["card on file: {f} exp {e}", "Meine Kreditkarte: {f}, gültig bis {e}", "pay with {f} please",
         "billing:\n  card_number: \"{f}\"\n  expiry: \"{e}\""]
    B = ["Numéro de carte : {f} (exp. {e})", "use my card {f}, expires {e}", "tarjeta {f} cad {e}",
         "{{\"pan\": \"{f}\", \"exp\": \"{e}\"}}"]
    return ch([A, B][s]).format(f=f, e=exp), brand


def p_iban(s):
    cc = ch(list(IBAN_LEN))
    ib = chk("iban", make_iban(cc))
    f = ch([ib, group4(ib)])
    A = ["IBAN for my salary: {f}", "Bitte überweise auf {f} (Kontoinhaber {n})", "refund to IBAN {f}",
         "bank:\n  holder: {n}\n  iban: {f}"]
    B = ["mon IBAN : {f}", "IBAN de {n}: {f}", "wire it to {f}, account holder {n}", "iban={f}"]
    return ch([A, B][s]).format(f=f, n=person()), cc


def p_ssn(s):
    while True:
        a = R.randrange(1, 900)
        if a != 666:
            break
    v = f"{a:03d}-{R.randrange(1, 100):02d}-{R.randrange(1, 10000):04d}"
    v = ch([v, v.replace("-", " ")])
    return ch([["my SSN is {v}", "SSN: {v} ({n})"], ["Social Security number {v} for {n}", "ssn={v}"]][s]).format(v=v, n=person()), None


def p_nino(s):
    bad1, bad2 = set("DFIQUV"), set("DFIQUVO")
    while True:
        a, b = ch(UP), ch(UP)
        if a not in bad1 and b not in bad2 and a + b not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
            break
    d = rs(6, DG)
    v = ch([f"{a}{b}{d}{ch('ABCD')}", f"{a}{b} {d[:2]} {d[2:4]} {d[4:]} {ch('ABCD')}"])
    return ch([["National Insurance number: {v}", "my NI number is {v}"], ["NINO {v} for payroll", "NI no. {v} ({n})"]][s]).format(v=v, n=person()), None


def p_dni(s):
    n = R.randrange(10**7, 10**8)
    v = f"{n:08d}{DNI_L[n % 23]}"
    chk("dni", v)
    return ch([["Mi DNI es {v}", "DNI: {v}"], ["número de DNI {v}", "DNI del titular: {v} ({n})"]][s]).format(v=v, n=person()), None


def p_nie(s):
    p = ch("XYZ")
    d = rs(7, DG)
    v = f"{p}{d}{DNI_L[int(str('XYZ'.index(p)) + d) % 23]}"
    chk("nie", v)
    return ch([["NIE: {v}", "mi NIE es {v}"], ["NIE del trabajador: {v}", "Tengo el NIE {v}"]][s]).format(v=v), None


def p_cf(s):
    day = R.randrange(1, 29) + ch([0, 40])
    s15 = rs(6, "BCDFGHLMNPRSTVZ") + rs(2, DG) + ch("ABCDEHLMPRST") + f"{day:02d}" + ch(["H501", "F205", "L219", "G273", "A662", "D612"])
    v = s15 + cf_check(s15)
    chk("cf", v)
    return ch([["Il mio codice fiscale è {v}", "codice fiscale: {v}"], ["CF {v} – {n}", "C.F. del cliente: {v}"]][s]).format(v=v, n=person()), None


def p_nif(s):
    while True:
        b = ch("123") + rs(7, DG)
        sm = sum(int(b[i]) * (9 - i) for i in range(8))
        c = 11 - sm % 11
        v = b + str(0 if c >= 10 else c)
        if nif_pt_ok(v):
            break
    chk("nif", v)
    return ch([["O meu NIF é {v}", "NIF: {v}"], ["contribuinte n.º {v}", "NIF do cliente {n}: {v}"]][s]).format(v=v, n=person()), None


def p_pesel(s):
    y = R.randrange(1950, 2010)
    m = R.randrange(1, 13) + (20 if y >= 2000 else 0)
    b = f"{y % 100:02d}{m:02d}{R.randrange(1, 29):02d}{rs(4, DG)}"
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    v = b + str((10 - sum(int(b[i]) * w[i] for i in range(10)) % 10) % 10)
    chk("pesel", v)
    return ch([["Mój PESEL: {v}", "PESEL {v}"], ["numer PESEL pacjenta: {v}", "PESEL: {v} ({n})"]][s]).format(v=v, n=person()), None


def p_pnr(s):
    b = f"{R.randrange(40, 100):02d}{R.randrange(1, 13):02d}{R.randrange(1, 29):02d}{rs(3, DG)}"
    v = b + luhn_digit(b)
    chk("luhn", v)
    f = f"{v[:6]}-{v[6:]}"
    return ch([["mitt personnummer är {f}", "personnummer: {f}"], ["Personnr {f} ({n})", "personal id (SE) {f}"]][s]).format(f=f, n=person()), None


def p_aadhaar(s):
    p = ch("23456789") + rs(10, DG)
    v = p + verhoeff_digit(p)
    chk("verhoeff", v)
    f = ch([v, f"{v[:4]} {v[4:8]} {v[8:]}"])
    return ch([["Aadhaar: {f}", "my Aadhaar number is {f}"], ["Aadhaar no. {f} for KYC", "आधार संख्या {f}"]][s]).format(f=f), None


def p_pan(s):
    v = rs(3, UP) + "P" + ch(UP) + rs(4, DG) + ch(UP)
    return ch([["PAN: {v}", "my PAN card number is {v}"], ["PAN {v} for TDS", "Income-tax PAN of {n}: {v}"]][s]).format(v=v, n=person()), None


def p_cpf(s):
    while True:
        d = [R.randrange(10) for _ in range(9)]
        if len(set(d)) > 1:
            break
    d.append(sum(d[i] * (10 - i) for i in range(9)) * 10 % 11 % 10)
    d.append(sum(d[i] * (11 - i) for i in range(10)) * 10 % 11 % 10)
    n = "".join(map(str, d))
    chk("cpf", n)
    f = ch([n, f"{n[:3]}.{n[3:6]}.{n[6:9]}-{n[9:]}"])
    return ch([["Meu CPF é {f}", "CPF: {f}"], ["CPF do titular {f}", "cpf={f} ({n})"]][s]).format(f=f, n=person()), None


def p_sin(s):
    b = ch("1234567") + rs(7, DG)
    v = b + luhn_digit(b)
    chk("luhn", v)
    f = ch([v, f"{v[:3]} {v[3:6]} {v[6:]}", f"{v[:3]}-{v[3:6]}-{v[6:]}"])
    return ch([["my SIN is {f}", "SIN: {f}"], ["Social Insurance Number {f} ({n})", "NAS / SIN {f}"]][s]).format(f=f, n=person()), None


def p_tfn(s):
    while True:
        b = rs(8, DG)
        w = [1, 4, 3, 7, 5, 8, 6, 9]
        d = sum(int(b[i]) * w[i] for i in range(8)) % 11
        if d < 10 and b[0] != "0":
            break
    v = b + str(d)
    chk("tfn", v)
    f = ch([v, f"{v[:3]} {v[3:6]} {v[6:]}"])
    return ch([["my TFN is {f}", "Tax File Number: {f}"], ["TFN {f} for the ATO form", "TFN of {n}: {f}"]][s]).format(f=f, n=person()), None


def p_za(s):
    b = f"{R.randrange(50, 100):02d}{R.randrange(1, 13):02d}{R.randrange(1, 29):02d}{rs(4, DG)}{ch('01')}8"
    v = b + luhn_digit(b)
    chk("luhn", v)
    return ch([["SA ID number: {v}", "my ID number is {v} (South Africa)"], ["RSA identity number {v}", "ID no {v} – {n}"]][s]).format(v=v, n=person()), None


PROVIDERS = ["gmail.com", "outlook.com", "hotmail.com", "yahoo.com", "icloud.com", "proton.me", "protonmail.com",
             "gmx.de", "gmx.net", "web.de", "yandex.ru", "qq.com", "naver.com", "yahoo.co.jp", "mail.ru", "orange.fr"]


def p_email(s):
    f, l = ch(FIRST).lower().replace(" ", "").replace("é", "e").replace("ê", "e"), ch(LAST).lower().replace("ś", "s")
    prov = ch(PROVIDERS)
    loc = ch([f"{f}.{l}", f"{f}{l}{R.randrange(70, 100)}", f"{f[0]}{l}{R.randrange(1, 999)}", f"{l}_{f}"])
    if prov == "qq.com":
        loc = str(R.randrange(10**8, 10**10))
    e = f"{loc}@{prov}"
    return ch([["my personal email is {e}", "write to me at {e}", "Kontakt privat: {e}"],
               ["email perso : {e}", "contact: {e} (private)", "correo personal: {e}"]][s]).format(e=e), prov.split(".")[0]


def _nz(n):
    return ch("123456789") + rs(n - 1, DG)


def p_phone(s):
    c = ch(["DE", "UK", "FR", "ES", "IT", "US", "JP", "CN", "IN", "BR", "AU", "NL", "PL", "SE", "MX", "KR"])
    e164 = R.random() < 0.5
    if c == "DE":
        m, r = ch(["151", "160", "170", "176", "157"]), rs(8, DG); v = f"+49 {m} {r}" if e164 else f"0{m} {r[:4]} {r[4:]}"
    elif c == "UK":
        r = "7" + ch("4579") + rs(8, DG); v = f"+44 {r[:4]} {r[4:]}" if e164 else f"0{r[:4]} {r[4:]}"
    elif c == "FR":
        r = ch("67") + rs(8, DG); v = f"+33 {r[0]} {r[1:3]} {r[3:5]} {r[5:7]} {r[7:]}" if e164 else f"0{r[0]} {r[1:3]} {r[3:5]} {r[5:7]} {r[7:]}"
    elif c == "ES":
        r = ch("67") + rs(8, DG); v = f"+34 {r[:3]} {r[3:6]} {r[6:]}" if e164 else f"{r[:3]} {r[3:6]} {r[6:]}"
    elif c == "IT":
        r = "3" + rs(9, DG); v = f"+39 {r[:3]} {r[3:6]} {r[6:]}" if e164 else f"{r[:3]} {r[3:]}"
    elif c == "US":
        a, x = ch(["212", "312", "415", "617", "206", "512", "303"]), ch("23456789") + rs(2, DG)
        if x == "555": x = "556"
        l4 = rs(4, DG); v = f"+1{a}{x}{l4}" if e164 else f"({a}) {x}-{l4}"
    elif c == "JP":
        m, r = ch(["90", "80", "70"]), rs(8, DG); v = f"+81 {m}-{r[:4]}-{r[4:]}" if e164 else f"0{m}-{r[:4]}-{r[4:]}"
    elif c == "CN":
        r = "1" + ch(["38", "39", "58", "86", "77"]) + rs(8, DG); v = f"+86 {r[:3]} {r[3:7]} {r[7:]}" if e164 else r
    elif c == "IN":
        r = ch("6789") + rs(9, DG); v = f"+91 {r[:5]} {r[5:]}" if e164 else f"0{r}"
    elif c == "BR":
        r = "9" + rs(8, DG); v = f"+55 11 {r[:5]}-{r[5:]}" if e164 else f"(11) {r[:5]}-{r[5:]}"
    elif c == "AU":
        r = "4" + rs(8, DG); v = f"+61 {r[:3]} {r[3:6]} {r[6:]}" if e164 else f"0{r[:3]} {r[3:6]} {r[6:]}"
    elif c == "NL":
        r = rs(8, DG); v = f"+31 6 {r}" if e164 else f"06-{r}"
    elif c == "PL":
        r = ch("5678") + rs(8, DG); v = f"+48 {r[:3]} {r[3:6]} {r[6:]}" if e164 else f"{r[:3]}-{r[3:6]}-{r[6:]}"
    elif c == "SE":
        r = rs(7, DG); v = f"+46 70 {r[:3]} {r[3:5]} {r[5:]}" if e164 else f"070-{r[:3]} {r[3:5]} {r[5:]}"
    elif c == "MX":
        r = rs(8, DG); v = f"+52 55 {r[:4]} {r[4:]}" if e164 else f"55 {r[:4]} {r[4:]}"
    else:
        r = rs(8, DG); v = f"+82 10-{r[:4]}-{r[4:]}" if e164 else f"010-{r[:4]}-{r[4:]}"
    n = person()
    return ch([["call me on my mobile {v}", "{n}'s cell: {v}", "Handynummer von {n}: {v}"],
               ["mon portable : {v}", "text me at {v}", "móvil de {n}: {v}"]][s]).format(v=v, n=n), c.lower()


def p_passport(s):
    c = ch(["US", "UK", "DE", "FR", "IT", "ES", "IN", "CA", "AU", "JP"])
    v = {"US": rs(9, DG), "UK": rs(9, DG), "DE": ch("CFGHJK") + rs(8, "CFGHJKLMNPRTVWXYZ0123456789"),
         "FR": rs(2, DG) + rs(2, UP) + rs(5, DG), "IT": rs(2, UP) + rs(7, DG), "ES": rs(3, UP) + rs(6, DG),
         "IN": ch(UP) + rs(7, DG), "CA": rs(2, UP) + rs(6, DG), "AU": "P" + ch(UP) + rs(7, DG), "JP": rs(2, UP) + rs(7, DG)}[c]
    return ch([["my passport number is {v} ({c})", "Reisepassnummer: {v}", "passport no. {v}, issued {c}"],
               ["numéro de passeport : {v}", "{n} – passport {v} ({c})", "número de pasaporte {v}"]][s]).format(v=v, c=c, n=person()), c.lower()


ADDR = {
    "de": lambda: f"{ch(['Lindenstraße', 'Am Mühlbach', 'Goethestr.', 'Bahnhofstraße'])} {R.randrange(1, 120)}, {R.randrange(10000, 99999)} {ch(['Leipzig', 'Köln', 'Freiburg', 'Kassel'])}",
    "fr": lambda: f"{R.randrange(1, 90)} rue {ch(['des Lilas', 'Victor Hugo', 'de la Paix', 'du Moulin'])}, {R.randrange(10000, 95999)} {ch(['Lyon', 'Nantes', 'Rennes', 'Lille'])}",
    "es": lambda: f"Calle {ch(['Mayor', 'de Alcalá', 'del Sol', 'Real'])} {R.randrange(1, 200)}, {R.randrange(1, 9)}º {ch('ABCD')}, {R.randrange(10000, 52999):05d} {ch(['Sevilla', 'Valencia', 'Zaragoza'])}",
    "en": lambda: f"{R.randrange(10, 9999)} {ch(['Maple Ave', 'Oak Street', 'Cedar Lane', 'Birch Rd'])}, {ch(['Springfield, IL 627', 'Portland, OR 972', 'Austin, TX 787'])}{R.randrange(10, 99)}",
    "uk": lambda: f"{R.randrange(1, 200)} {ch(['Church Lane', 'Victoria Road', 'Mill Street'])}, {ch(['Leeds LS6', 'Bristol BS7', 'York YO10'])} {R.randrange(1, 9)}{rs(2, 'ABDEFGHJLNPQRSTUWXYZ')}",
    "it": lambda: f"Via {ch(['Garibaldi', 'Roma', 'dei Mille', 'Mazzini'])} {R.randrange(1, 150)}, {R.randrange(10100, 98199)} {ch(['Torino', 'Bologna', 'Napoli'])}",
    "pt": lambda: f"Rua {ch(['das Flores', 'Augusta', 'do Carmo'])}, {R.randrange(1, 300)}, {R.randrange(1000, 4999)}-{R.randrange(100, 999)} {ch(['Lisboa', 'Porto', 'Braga'])}",
    "ja": lambda: f"〒{R.randrange(100, 999)}-{R.randrange(1000, 9999)} {ch(['東京都世田谷区', '大阪府大阪市北区', '神奈川県横浜市'])}{R.randrange(1, 9)}丁目{R.randrange(1, 30)}-{R.randrange(1, 20)}",
}


def p_address(s):
    lang = ch(list(ADDR))
    a = ADDR[lang]()
    n = person()
    return ch([["my home address is {a}", "Privatadresse von {n}: {a}", "ship to {n}, {a} (home)"],
               ["J'habite au {a}", "{n} lives at {a}", "dirección de casa: {a}"]][s]).format(a=a, n=n), lang


def p_dob(s):
    n = person()
    y, m, d = R.randrange(1950, 2006), R.randrange(1, 13), R.randrange(1, 29)
    return ch([["{n} was born on {y}-{m:02d}-{d:02d}", "{n}, geboren am {d:02d}.{m:02d}.{y}", "DOB of {n}: {m:02d}/{d:02d}/{y}"],
               ["{n} est né(e) le {d:02d}/{m:02d}/{y}", "date of birth: {d:02d} {mon} {y} ({n})", "fecha de nacimiento de {n}: {d}/{m}/{y}"]][s]).format(
        n=n, y=y, m=m, d=d, mon=["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][m - 1]), None


PII_FAMILIES = {
    "credit_card": (p_card, 16), "iban": (p_iban, 16), "us_ssn": (p_ssn, 5), "uk_nino": (p_nino, 5), "es_dni": (p_dni, 4),
    "es_nie": (p_nie, 3), "it_codice_fiscale": (p_cf, 4), "pt_nif": (p_nif, 4), "pl_pesel": (p_pesel, 4),
    "se_personnummer": (p_pnr, 4), "in_aadhaar": (p_aadhaar, 4), "in_pan": (p_pan, 4), "br_cpf": (p_cpf, 4),
    "ca_sin": (p_sin, 4), "au_tfn": (p_tfn, 4), "za_id": (p_za, 4), "personal_email": (p_email, 10),
    "phone": (p_phone, 12), "passport": (p_passport, 6), "home_address": (p_address, 7), "date_of_birth": (p_dob, 5),
}

# ---------------------------------------------------------------- benign
SVC = ["GitLab", "Hugging Face", "Anthropic", "OpenAI", "Stripe", "Slack", "Twilio", "SendGrid", "npm", "PyPI",
       "Docker Hub", "Vault", "Shopify", "Notion", "Linear", "Jira", "Discord", "Telegram"]
ENVS = ["GITLAB_TOKEN", "HF_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SLACK_BOT_TOKEN", "NPM_TOKEN",
        "DATABASE_URL", "DB_PASSWORD", "SENDGRID_API_KEY", "VAULT_TOKEN", "DOCKERHUB_TOKEN", "TELEGRAM_BOT_TOKEN"]


def b_placeholder(s):
    ph = ch(["<YOUR_TOKEN>", "<your-api-key>", "xxxx", "sk-...", "glpat-xxxxxxxxxxxxxxxxxxxx", "hf_XXXXXXXXXXXX",
             "YOUR_API_KEY_HERE", "<password>", "REPLACE_ME", "sk-ant-api03-...", "xoxb-your-token", "{{API_KEY}}",
             "npm_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "dckr_pat_<token>", "<redacted>", "TODO"])
    e = ch(ENVS)
    return ch([[f"export {e}={ph}", f"# set {e} to {ph} before running", f"{e.lower()}: \"{ph}\"  # fill in", f"Replace {ph} with your {ch(SVC)} key."],
               [f"{e}={ph}  # placeholder, real value in the vault", f"api_key = \"{ph}\"  # example only",
                f"In the docs the token is shown as {ph}.", f"curl -H 'Authorization: Bearer {ph}' https://api.example.com/v1/me"]][s])


def b_env_ref(s):
    e = ch(ENVS)
    return ch([[f"token = os.environ[\"{e}\"]", f"const key = process.env.{e};", f"password: ${{{e}}}",
                f"key := os.Getenv(\"{e}\")", f"env:\n  - name: {e}\n    valueFrom:\n      secretKeyRef: {{name: app, key: {e.lower()}}}"],
               [f"api_key = os.getenv(\"{e}\", \"\")", f"with: {{ token: ${{{{ secrets.{e} }}}} }}", f"let t = std::env::var(\"{e}\")?;",
                f"auth: \"${{env:{e}}}\"", f"if [ -z \"${e}\" ]; then echo \"{e} is not set\"; exit 1; fi"]][s])


def b_secret_ref(s):
    n = ch(["db-password", "stripe-key", "gitlab-ci", "smtp", "hf-token", "openai"])
    return ch([[f"password: op://Engineering/{n}/password", f"token: vault:secret/data/prod/{n}#value",
                f"gcloud secrets versions access latest --secret={n}", f"Key Vault reference: @Microsoft.KeyVault(SecretUri=https://kv-prod.vault.azure.net/secrets/{n}/)"],
               [f"aws secretsmanager get-secret-value --secret-id prod/{n} --query SecretString", f"doppler secrets get {n.upper().replace('-', '_')} --plain",
                f"sops -d secrets/{n}.enc.yaml | kubectl apply -f -", f"value_from: ssm:/prod/app/{n}"]][s])


def b_masked(s):
    l4 = rs(4, DG)
    v = ch([f"****{l4}", f"**** **** **** {l4}", "ghp_****", f"sk-ant-…{rs(4)}", f"glpat-****{rs(4)}", f"IBAN DE** **** **** **** **{l4[:2]} {l4[2:]}",
            "xoxb-***", f"hf_…{rs(4)}", "••••••••", f"sk-proj-…{rs(4)}"])
    return ch([[f"card ending {v} was charged", f"token {v} (masked in logs)", f"Stored credential: {v}"],
               [f"[audit] key={v} rotated by admin", f"Zahlung mit {v} erfolgreich", f"display value: {v}"]][s])


def b_hash(s):
    k = R.randrange(4)
    h = [hashlib.sha256(R.randbytes(16)).hexdigest(), hashlib.sha1(R.randbytes(16)).hexdigest(),
         hashlib.md5(R.randbytes(16)).hexdigest(), hashlib.sha1(R.randbytes(9)).hexdigest()[:ch([7, 12, 40])]][k]
    return ch([[f"digest: {h}  release.tar.gz", f"fixed in commit {h}", f"ETag: \"{h}\""],
               [f"checksum {h} verified", f"git cherry-pick {h}", f"{h}  dist/app-linux-amd64"]][s])


def uuid4():
    b = bytearray(R.randbytes(16)); b[6] = (b[6] & 0x0F) | 0x40; b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def b_uuid(s):
    u = uuid4()
    return ch([[f"tenant_id: {u}", f"workspace {u} was archived"], [f"correlation id {u}", f"{{\"session\": \"{u}\"}}"]][s])


def b_ulid(s):
    u = ch("01") + rs(25, CROCK)
    return ch([[f"event id {u}", f"created job {u}"], [f"ulid={u}", f"outbox message {u} delivered"]][s])


def b_reqid(s):
    k = R.randrange(4)
    v = [f"00-{rs(32, HEX)}-{rs(16, HEX)}-01", f"req_{rs(14)}", f"{rs(16, HEX)}-FRA", rs(20, UP + DG)][k]
    return ch([[f"traceparent: {v}", f"X-Request-Id: {v}", f"failed request {v}"], [f"trace={v} status=500", f"support ticket mentions request {v}", f"cf-ray {v}"]][s])


def b_base64(s):
    t = ch(["hello world", "page=3&size=50", '{"cursor":42}', "not a secret", "Guten Morgen", "offset:1200", "v=2;lang=en"])
    e = base64.b64encode(t.encode()).decode()
    return ch([[f"next_cursor: {e}", f"echo {e} | base64 -d"], [f"pagination token {e}", f"data:text/plain;base64,{e}"]][s])


def b_pubkey(s):
    k = R.randrange(3)
    if k == 0:
        v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + base64.b64encode(b"\x00" * 0 + R.randbytes(32)).decode().rstrip("=")[:43] + f" {ch(USERS)}@laptop"
    elif k == 1:
        v = "-----BEGIN PUBLIC KEY-----\n" + pem_lines(bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200") + R.randbytes(65)) + "\n-----END PUBLIC KEY-----"
    else:
        v = "-----BEGIN CERTIFICATE-----\n" + pem_lines(b"\x30\x82\x03\x1d" + R.randbytes(400)) + "\n-----END CERTIFICATE-----"
    return ch([[f"add this to authorized_keys:\n{v}", f"public key for verification:\n{v}"], [f"ca.pem contents:\n{v}", f"our public key (safe to share):\n{v}"]][s])


def b_example_domain(s):
    n = ch(["alice", "bob", "user", "jane.doe", "test", "noreply", "admin"])
    d = ch(["example.com", "example.org", "example.net", "test.example"])
    return ch([[f"e.g. send to {n}@{d}", f"curl https://api.{d}/v1/users/{R.randrange(1, 999)}", f"MAIL_FROM={n}@{d}"],
               [f"sample user: {n}@{d}", f"webhook url in the docs: https://hooks.{d}/incoming", f"Reply-To: {n}@{d}"]][s])


def b_order(s):
    k = R.randrange(4)
    v = [f"ORD-{R.randrange(2024, 2027)}-{rs(6, DG)}", f"INV-{rs(5, DG)}", f"1Z{rs(6, UP + DG)}{rs(10, DG)}", f"#{rs(7, DG)}"][k]
    return ch([[f"order {v} shipped", f"invoice {v} is overdue", f"tracking number {v}"], [f"Bestellung {v} storniert", f"ref {v} refunded", f"numéro de commande {v}"]][s])


def b_isbn(s):
    p = ch(["978", "979"]) + rs(9, DG)
    v = p + isbn13_digit(p)
    f = ch([v, f"{v[:3]}-{v[3]}-{v[4:8]}-{v[8:12]}-{v[12]}"])
    return ch([[f"ISBN {f}", f"book: ISBN-13 {f}"], [f"isbn: {f}", f"Buch mit ISBN {f} bestellt"]][s])


def b_version(s):
    v = ch([f"v{R.randrange(0, 20)}.{R.randrange(0, 40)}.{R.randrange(0, 100)}", f"{R.randrange(1, 9)}.{R.randrange(0, 30)}.{R.randrange(0, 9)}-rc.{R.randrange(1, 5)}",
            f"6.{R.randrange(1, 12)}.{R.randrange(0, 80)}-generic", f"build {R.randrange(2024, 2027)}.{R.randrange(1, 13):02d}.{R.randrange(100, 999)}"])
    return ch([[f"upgraded to {v}", f"running {v} in prod"], [f"version: {v}", f"release notes for {v}"]][s])


def b_timestamp(s):
    k = R.randrange(3)
    v = [str(R.randrange(1700000000, 1800000000)), str(R.randrange(1700000000000, 1800000000000)),
         f"2026-{R.randrange(1, 13):02d}-{R.randrange(1, 29):02d}T{R.randrange(24):02d}:{R.randrange(60):02d}:{R.randrange(60):02d}Z"][k]
    return ch([[f"created_at={v}", f"last run at {v}"], [f"\"timestamp\": \"{v}\"", f"expires {v} (epoch/iso)"]][s])


def b_sku(s):
    v = ch([f"SKU-{rs(3, UP)}-{rs(4, DG)}", f"{rs(2, UP)}{rs(5, DG)}-{rs(2, UP)}", f"{R.randrange(100, 999)}.{R.randrange(100, 999)}.{R.randrange(10, 99)}",
            f"P/N {rs(4, DG)}-{rs(3, DG)}-{rs(2, UP)}"])
    return ch([[f"restock {v} (x{R.randrange(2, 50)})", f"product {v} discontinued"], [f"Artikelnummer {v}", f"sku: {v}"]][s])


def b_hex(s):
    c = "#" + rs(6, "0123456789abcdef" if R.random() < 0.5 else "0123456789ABCDEF")
    return ch([[f"primary colour {c}", f"background: {c};"], [f"--accent: {c};", f"brand palette uses {c}"]][s])


def b_snowflake(s):
    while True:
        v = str(R.randrange(10**17, 2 * 10**18))
        if not luhn_ok(v):
            break
    return ch([[f"Discord channel id {v}", f"tweet id {v}"], [f"guild_id: {v}", f"message {v} pinned"]][s])


def b_docip(s):
    ip = ch([f"192.0.2.{R.randrange(1, 255)}", f"198.51.100.{R.randrange(1, 255)}", f"203.0.113.{R.randrange(1, 255)}", f"2001:db8::{rs(4, HEX)}"])
    return ch([[f"allowlist {ip}", f"ssh ops@{ip}"], [f"server_name {ip};", f"blocked {ip} after 50 failed logins"]][s])


ABOUT_A = ["I rotated the {svc} token this morning", "never paste your {svc} API key into chat", "the {svc} key expired, need a new one",
           "where do we keep the {svc} credentials?", "Passwort vergessen – Reset-Link angefordert", "le mot de passe doit contenir 12 caractères",
           "necesito cambiar la contraseña del {svc}", "パスワードを変更しました", "密码已经重置了", "пароль нужно сменить до пятницы",
           "{svc} tokens start with a fixed prefix", "ask Lena for the {svc} password, don't post it here", "my PIN got blocked after three tries",
           "add 2FA recovery codes to the password manager", "we should never store IBANs in plain text"]
ABOUT_B = ["revoked the leaked {svc} key, incident closed", "who has access to the {svc} admin token?", "the {svc} secret lives in Vault now",
           "password policy: min 14 chars, no reuse", "J'ai oublié mon mot de passe {svc}", "Die PIN wird per Post verschickt",
           "la clave del wifi está en la nevera (no, en el gestor)", "APIキーは環境変数で渡してください", "请不要把令牌写进代码",
           "токен {svc} истёк", "how long should {svc} PATs live?", "store card numbers only via the tokenization service",
           "Telegram bot tokens look like digits, a colon, then 35 characters", "rotate DB passwords quarterly", "SSN fields must be encrypted at rest"]


def b_about(s):
    return ch([ABOUT_A, ABOUT_B][s]).format(svc=ch(SVC))


def b_stdin(s):
    return ch([[f"echo \"$DOCKERHUB_TOKEN\" | docker login -u {ch(USERS)} --password-stdin",
                f"curl -d @{ch(['creds.json', 'token.txt', 'payload.json'])} https://api.example.com/v1/login",
                f"gh auth login --with-token < ~/.config/{ch(WORDS)}.token", "read -s -p 'Password: ' PW"],
               [f"kubectl create secret generic app --from-file=token=./{ch(WORDS)}.txt",
                f"psql \"host=db.internal user={ch(USERS)} passfile=~/.pgpass\"",
                f"cat /run/secrets/{ch(['db_password', 'api_key', 'smtp'])} | xargs -I{{}} ./migrate --token {{}}",
                f"mysql --defaults-extra-file=~/.my.{ch(WORDS)}.cnf -e 'select 1'"]][s])


def b_code_env(s):
    e = ch(ENVS)
    return ch([[f"import os\n\nclient = Client(api_key=os.environ.get(\"{e}\"))\nif client is None:\n    raise SystemExit(\"missing {e}\")",
                f"func main() {{\n\ttoken := os.Getenv(\"{e}\")\n\tif token == \"\" {{ log.Fatal(\"{e} unset\") }}\n}}"],
               [f"const {{ {e} }} = process.env;\nif (!{e}) throw new Error('{e} required');",
                f"password = getpass.getpass(\"{ch(SVC)} password: \")\nlogin(user, password)"]][s])


BENIGN_FAMILIES = {
    "placeholder": (b_placeholder, 9), "env_reference": (b_env_ref, 8), "secret_manager_ref": (b_secret_ref, 7),
    "masked_value": (b_masked, 8), "hash": (b_hash, 8), "uuid": (b_uuid, 6), "ulid": (b_ulid, 5),
    "request_trace_id": (b_reqid, 7), "base64_harmless": (b_base64, 6), "public_key_cert": (b_pubkey, 6),
    "example_domain": (b_example_domain, 7), "order_invoice_tracking": (b_order, 8), "isbn": (b_isbn, 5),
    "version": (b_version, 5), "timestamp": (b_timestamp, 6), "product_sku": (b_sku, 6), "hex_colour": (b_hex, 5),
    "snowflake_id": (b_snowflake, 6), "doc_ip": (b_docip, 6), "prose_about_secrets": (b_about, 12),
    "stdin_or_file_secret": (b_stdin, 7), "code_reads_env": (b_code_env, 7),
}

# ---------------------------------------------------------------- self-check helpers
DIGIT_RUN = re.compile(r"(?<![\dA-Za-z])\d(?:[ -]?\d){12,18}(?![\d])")
CONTIG = re.compile(r"(?<!\d)\d{13,19}(?!\d)")
IBAN_RE = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30})")


def benign_clean(text):
    for m in CONTIG.finditer(text):
        if luhn_ok(m.group()):
            return False
    for m in DIGIT_RUN.finditer(text):
        d = re.sub(r"\D", "", m.group())
        if 13 <= len(d) <= 19 and luhn_ok(d):
            return False
    for m in IBAN_RE.finditer(text):
        c = m.group(1).replace(" ", "")
        L = IBAN_LEN.get(c[:2])
        if L and len(c) >= L and iban_ok(c[:L]):
            return False
    return True


def build(s):
    tag = "ab"[s]
    items, n = [], 0
    for fam, (fn, cnt) in SECRET_FAMILIES.items():
        for i in range(cnt):
            items.append({"id": f"{tag}-sec-{fam}-{i + 1:03d}", "label": "secret", "family": fam, "text": fn(s), "_chk": []})
    for fam, (fn, cnt) in PII_FAMILIES.items():
        for i in range(cnt):
            CHECKS.clear()
            text, sub = fn(s)
            iid = f"{tag}-pii-{fam}" + (f"-{sub}" if sub else "") + f"-{i + 1:03d}"
            items.append({"id": iid, "label": "pii", "family": fam, "text": text, "_chk": list(CHECKS)})
    for fam, (fn, cnt) in BENIGN_FAMILIES.items():
        seen = set()
        for i in range(cnt):
            for _ in range(200):
                t = fn(s)
                if benign_clean(t) and t not in seen:
                    break
            seen.add(t)
            items.append({"id": f"{tag}-ben-{fam}-{i + 1:03d}", "label": "benign", "family": fam, "text": t, "_chk": []})
    return items


VALIDATORS = {"luhn": luhn_ok, "iban": iban_ok, "verhoeff": verhoeff_ok, "pesel": pesel_ok, "nif": nif_pt_ok,
              "cpf": cpf_ok, "tfn": tfn_ok,
              "dni": lambda v: DNI_L[int(v[:8]) % 23] == v[8],
              "nie": lambda v: DNI_L[int(str("XYZ".index(v[0])) + v[1:8]) % 23] == v[8],
              "cf": lambda v: cf_check(v[:15]) == v[15]}


def self_check(sets):
    # algorithm sanity on published examples
    assert verhoeff_digit("236") == "3" and verhoeff_ok("2363")
    assert iban_ok("GB82 WEST 1234 5698 7654 32") and luhn_ok("79927398713")
    assert cpf_ok("529.982.247-25") and tfn_ok("123456782") and cf_check("RSSMRA85T10A562") == "S"
    all_ids, all_texts = set(), set()
    for items in sets:
        for it in items:
            assert it["id"] not in all_ids, it["id"]
            assert it["text"] not in all_texts, it["text"]
            all_ids.add(it["id"]); all_texts.add(it["text"])
            for kind, v in it["_chk"]:
                assert VALIDATORS[kind](v), (it["id"], kind, v)
                assert v in it["text"].replace(" ", "").replace("-", "").replace(".", "") or v in it["text"], (it["id"], v)
            if it["label"] == "pii" and it["family"] in ("credit_card", "iban"):
                assert it["_chk"], it["id"]
            if it["label"] == "benign":
                assert benign_clean(it["text"]), it
                assert "changeme" not in it["text"].lower()
        labs = [it["label"] for it in items]
        n = len(items)
        assert 450 <= n <= 560, n
        for lab, lo, hi in (("secret", .40, .50), ("pii", .20, .30), ("benign", .25, .35)):
            assert lo <= labs.count(lab) / n <= hi, (lab, labs.count(lab), n)
        fams = {}
        for it in items:
            fams[(it["label"], it["family"])] = fams.get((it["label"], it["family"]), 0) + 1
        for tbl, lab in ((SECRET_FAMILIES, "secret"), (PII_FAMILIES, "pii"), (BENIGN_FAMILIES, "benign")):
            for f, (_, c) in tbl.items():
                assert fams.get((lab, f), 0) >= c, (lab, f)
    assert {(i["label"], i["family"]) for i in sets[0]} == {(i["label"], i["family"]) for i in sets[1]}


def main():
    a, b = build(0), build(1)
    self_check([a, b])
    for name, items in (("secrets_set_a.jsonl", a), ("secrets_set_b.jsonl", b)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            for it in items:
                fh.write(json.dumps({k: it[k] for k in ("id", "label", "family", "text")}, ensure_ascii=False) + "\n")
    if "--counts" in sys.argv:
        for name, items in (("A", a), ("B", b)):
            labs = {}
            for it in items:
                labs[it["label"]] = labs.get(it["label"], 0) + 1
            print(name, len(items), labs)
    print("ok")


if __name__ == "__main__":
    main()
