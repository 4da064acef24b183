#!/usr/bin/env python3
"""Set D of the independent no-store corpus (secrets / pii / benign).

Python 3.11 standard library only. Seeded with random.Random(20261204), deterministic.
Run:  python3 generate4.py            -> self-check, then writes secrets_set_d.jsonl
      python3 generate4.py --counts   -> also prints per-family counts
Every value is random and synthetic.
"""
import base64, binascii, hashlib, hmac, json, os, re, struct, sys, uuid, zlib
import random
from collections import Counter, defaultdict

R = random.Random(20261204)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "secrets_set_d.jsonl")

ROWS = []          # dicts: label, family, text
CHECKED = []       # (kind, value, row_index) re-validated by the self-check

def add(label, family, text, checks=()):
    ROWS.append({"label": label, "family": family, "text": text})
    for kind, value in checks:
        CHECKED.append((kind, value, len(ROWS) - 1))

# ---------------------------------------------------------------- alphabets
DIG = "0123456789"
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
AN = UP + LO + DIG
ANL = LO + DIG
ANU = UP + DIG
B64URL = AN + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))

def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))

def b64(b):
    return base64.b64encode(b).decode()

def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")

def pick(seq):
    return R.choice(seq)

def digits(n, first_nonzero=False):
    s = rs(DIG, n)
    if first_nonzero and s[0] == "0":
        s = pick("123456789") + s[1:]
    return s

def wrap(s, n=64):
    return "\n".join(s[i:i + n] for i in range(0, len(s), n))

def uuid4():
    return str(uuid.UUID(bytes=rbytes(16), version=4))

# ---------------------------------------------------------------- check algorithms
def luhn_ok(num):
    d = [int(c) for c in num]
    s = 0
    for i, x in enumerate(reversed(d)):
        if i % 2 == 1:
            x *= 2
            if x > 9:
                x -= 9
        s += x
    return s % 10 == 0

def luhn_digit(partial):
    for c in DIG:
        if luhn_ok(partial + c):
            return c

def iban_ok(iban):
    s = iban.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s):
        return False
    s = s[4:] + s[:4]
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97 == 1

def iban_make(cc, bban):
    n = "".join(str(int(c, 36)) for c in bban + cc + "00")
    return cc + "%02d" % (98 - int(n) % 97) + bban

def iban_print(i):
    return " ".join(i[k:k + 4] for k in range(0, len(i), 4))

def mod11_710(ten):  # ISO 7064 MOD 11,10 (HR OIB, DE Steuer-ID)
    a = 10
    for c in ten:
        a = (a + int(c)) % 10
        if a == 0:
            a = 10
        a = (a * 2) % 11
    c = 11 - a
    return 0 if c == 10 else c

def wsum(ds, ws):
    return sum(int(d) * w for d, w in zip(ds, ws))

# --- national ids: each has make_* (generator) and ok_* (validator, used by the self-check)
def ok_kr_rrn(s):
    d = s.replace("-", "")
    if len(d) != 13: return False
    c = (11 - wsum(d[:12], [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]) % 11) % 10
    return c == int(d[12])

def ok_tr_tckn(s):
    d = [int(c) for c in s]
    if len(d) != 11 or d[0] == 0: return False
    c10 = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    c11 = sum(d[:10]) % 10
    return d[9] == c10 and d[10] == c11

def _no_k(ds, ws):
    k = 11 - wsum(ds, ws) % 11
    return 0 if k == 11 else k  # 10 -> invalid

def ok_no_fnr(s):
    d = s.replace(" ", "")
    if len(d) != 11: return False
    k1 = _no_k(d[:9], [3, 7, 6, 1, 8, 9, 4, 5, 2])
    k2 = _no_k(d[:10], [5, 4, 3, 2, 7, 6, 5, 4, 3, 2])
    return k1 != 10 and k2 != 10 and k1 == int(d[9]) and k2 == int(d[10])

def rut_dv(body):
    s, m = 0, 2
    for c in reversed(body):
        s += int(c) * m
        m = 2 if m == 7 else m + 1
    r = 11 - s % 11
    return "0" if r == 11 else "K" if r == 10 else str(r)

def ok_cl_rut(s):
    body, dv = s.replace(".", "").split("-")
    return rut_dv(body) == dv

def ok_ar_cuil(s):
    d = s.replace("-", "")
    if len(d) != 11: return False
    c = 11 - wsum(d[:10], [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11
    c = 0 if c == 11 else c
    return c != 10 and c == int(d[10])

CURP_ALPHA = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
def curp_dv(s17):
    t = sum(CURP_ALPHA.index(c) * (18 - i) for i, c in enumerate(s17))
    return str((10 - t % 10) % 10)

def ok_mx_curp(s):
    return len(s) == 18 and curp_dv(s[:17]) == s[17]

def ok_il_tz(s):
    return len(s) == 9 and luhn_ok(s)

def ok_za_id(s):
    d = s.replace(" ", "")
    return len(d) == 13 and luhn_ok(d)

def ok_pt_nif(s):
    d = s.replace(" ", "")
    c = 11 - wsum(d[:8], [9, 8, 7, 6, 5, 4, 3, 2]) % 11
    c = 0 if c >= 10 else c
    return len(d) == 9 and c == int(d[8])

def ok_ro_cnp(s):
    c = wsum(s[:12], [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9]) % 11
    c = 1 if c == 10 else c
    return len(s) == 13 and c == int(s[12])

def ok_bg_egn(s):
    c = wsum(s[:9], [2, 4, 8, 5, 10, 9, 7, 3, 6]) % 11
    c = 0 if c == 10 else c
    return len(s) == 10 and c == int(s[9])

def ok_cz_rc(s):
    d = s.replace("/", "")
    return len(d) == 10 and int(d) % 11 == 0

def ok_gr_amka(s):
    return len(s) == 11 and luhn_ok(s)

def ok_sg_nric(s):
    w = wsum(s[1:8], [2, 7, 6, 5, 4, 3, 2]) + (4 if s[0] in "TG" else 0)
    return "JZIHGFEDCBA"[w % 11] == s[8]

HK_VAL = {c: 10 + i for i, c in enumerate(UP)}
def hkid_check(prefix, six):
    if len(prefix) == 1:
        t = 36 * 9 + HK_VAL[prefix] * 8
    else:
        t = HK_VAL[prefix[0]] * 9 + HK_VAL[prefix[1]] * 8
    t += wsum(six, [7, 6, 5, 4, 3, 2])
    r = 11 - t % 11
    return "0" if r == 11 else "A" if r == 10 else str(r)

def ok_hkid(s):
    m = re.fullmatch(r"([A-Z]{1,2})(\d{6})\(([0-9A])\)", s)
    return bool(m) and hkid_check(m.group(1), m.group(2)) == m.group(3)

TW_L = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36)))
def ok_tw_id(s):
    if not re.fullmatch(r"[A-Z][12]\d{8}", s): return False
    L = TW_L[s[0]]
    t = (L // 10) + (L % 10) * 9 + wsum(s[1:], [8, 7, 6, 5, 4, 3, 2, 1, 1])
    return t % 10 == 0

def ok_ee_ik(s):
    c = wsum(s[:10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 1]) % 11
    if c == 10:
        c = wsum(s[:10], [3, 4, 5, 6, 7, 8, 9, 1, 2, 3]) % 11
        c = 0 if c == 10 else c
    return len(s) == 11 and c == int(s[10])

def ok_hr_oib(s):
    return len(s) == 11 and mod11_710(s[:10]) == int(s[10])

def ok_de_stid(s):
    d = s.replace(" ", "")
    if len(d) != 11 or d[0] == "0": return False
    cnt = Counter(d[:10])
    rep = [k for k, v in cnt.items() if v > 1]
    if len(rep) != 1 or cnt[rep[0]] not in (2, 3): return False
    return mod11_710(d[:10]) == int(d[10])

def ok_is_kt(s):
    d = s.replace("-", "")
    r = 11 - wsum(d[:8], [3, 2, 7, 6, 5, 4, 3, 2]) % 11
    r = 0 if r == 11 else r
    return len(d) == 10 and r != 10 and r == int(d[8]) and d[9] in "90"

def ok_ie_ppsn(s):
    r = wsum(s[:7], [8, 7, 6, 5, 4, 3, 2]) % 23
    return len(s) == 8 and "WABCDEFGHIJKLMNOPQRSTUV"[r] == s[7]

def ok_at_svnr(s):
    d = s.replace(" ", "")
    c = (wsum(d[:3], [3, 7, 9]) + wsum(d[4:], [5, 8, 4, 2, 1, 6])) % 11
    return len(d) == 10 and c != 10 and c == int(d[3])

def ok_dk_cpr(s):
    d = s.replace("-", "")
    return len(d) == 10 and wsum(d, [4, 3, 2, 7, 6, 5, 4, 3, 2, 1]) % 11 == 0

def ok_th_id(s):
    d = s.replace("-", "").replace(" ", "")
    c = (11 - wsum(d[:12], range(13, 1, -1)) % 11) % 10
    return len(d) == 13 and c == int(d[12])

def ok_sa_nid(s):
    return len(s) == 10 and s[0] in "12" and luhn_ok(s)

def ok_uk_nhs(s):
    d = s.replace(" ", "")
    c = 11 - wsum(d[:9], range(10, 1, -1)) % 11
    c = 0 if c == 11 else c
    return len(d) == 10 and c != 10 and c == int(d[9])

def ok_au_medicare(s):
    d = s.replace(" ", "")
    return len(d) in (10, 11) and d[0] in "23456" and wsum(d[:8], [1, 3, 7, 9, 1, 3, 7, 9]) % 10 == int(d[8])

def ok_ca_ohip(s):
    d = s.replace("-", "").replace(" ", "")[:10]
    return luhn_ok(d)

def kvnr_check(letter, eight):
    v = "%02d" % (UP.index(letter) + 1) + eight
    t = 0
    for i, c in enumerate(v):
        p = int(c) * (1 if i % 2 == 0 else 2)
        t += p // 10 + p % 10
    return str(t % 10)

def ok_de_kvnr(s):
    return re.fullmatch(r"[A-Z]\d{9}", s) is not None and kvnr_check(s[0], s[1:9]) == s[9]

def ok_fr_nir(s):
    d = s.replace(" ", "")
    return len(d) == 15 and 97 - int(d[:13]) % 97 == int(d[13:])

def ok_es_dni(s):
    return "TRWAGMYFPDXBNJZSQVHLCKE"[int(s[:8]) % 23] == s[8]

def mrz_cd(s):
    w = [7, 3, 1]
    t = 0
    for i, c in enumerate(s):
        v = 0 if c == "<" else int(c) if c.isdigit() else ord(c) - 55
        t += v * w[i % 3]
    return str(t % 10)

def ok_mrz_td3(line2):
    if len(line2) != 44: return False
    ok = mrz_cd(line2[0:9]) == line2[9] and mrz_cd(line2[13:19]) == line2[19] \
        and mrz_cd(line2[21:27]) == line2[27] and mrz_cd(line2[28:42]) == line2[42]
    comp = line2[0:10] + line2[13:20] + line2[21:43]
    return ok and mrz_cd(comp) == line2[43]

def isbn13_ok(s):
    d = s.replace("-", "")
    return len(d) == 13 and sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(d)) % 10 == 0

VALIDATORS = {
    "luhn": lambda v: luhn_ok(re.sub(r"\D", "", v)), "iban": iban_ok, "kr_rrn": ok_kr_rrn,
    "tr_tckn": ok_tr_tckn, "no_fnr": ok_no_fnr, "cl_rut": ok_cl_rut, "ar_cuil": ok_ar_cuil,
    "mx_curp": ok_mx_curp, "il_tz": ok_il_tz, "za_id": ok_za_id, "pt_nif": ok_pt_nif,
    "ro_cnp": ok_ro_cnp, "bg_egn": ok_bg_egn, "cz_rc": ok_cz_rc, "gr_amka": ok_gr_amka,
    "sg_nric": ok_sg_nric, "hkid": ok_hkid, "tw_id": ok_tw_id, "ee_ik": ok_ee_ik,
    "hr_oib": ok_hr_oib, "de_stid": ok_de_stid, "is_kt": ok_is_kt, "ie_ppsn": ok_ie_ppsn,
    "at_svnr": ok_at_svnr, "dk_cpr": ok_dk_cpr, "th_id": ok_th_id, "sa_nid": ok_sa_nid,
    "uk_nhs": ok_uk_nhs, "au_medicare": ok_au_medicare, "ca_ohip": ok_ca_ohip,
    "de_kvnr": ok_de_kvnr, "fr_nir": ok_fr_nir, "es_dni": ok_es_dni, "mrz": ok_mrz_td3,
    "isbn13": isbn13_ok,
}

def algorithm_selftest():
    """Published specimen values, checked before anything is generated."""
    tests = [
        ("luhn 79927398713", luhn_ok("79927398713")),
        ("luhn rejects 79927398710", not luhn_ok("79927398710")),
        ("iban GB82WEST12345698765432", iban_ok("GB82WEST12345698765432")),
        ("iban rejects GB83WEST12345698765432", not iban_ok("GB83WEST12345698765432")),
        ("iban_make reproduces GB82", iban_make("GB", "WEST12345698765432") == "GB82WEST12345698765432"),
        ("tckn 10000000146", ok_tr_tckn("10000000146")),
        ("rut 12.345.678-5", ok_cl_rut("12.345.678-5")),
        ("za id 8001015009087 (Luhn)", ok_za_id("8001015009087")),
        ("sg nric S1234567D", ok_sg_nric("S1234567D")),
        ("hkid A123456(3)", ok_hkid("A123456(3)")),
        ("tw id A123456789", ok_tw_id("A123456789")),
        ("ee 37605030299", ok_ee_ik("37605030299")),
        ("hr oib 69435151530", ok_hr_oib("69435151530")),
        ("ie ppsn 1234567T", ok_ie_ppsn("1234567T")),
        ("uk nhs 943 476 5919", ok_uk_nhs("943 476 5919")),
        ("es dni 12345678Z", ok_es_dni("12345678Z")),
        ("mrz doc L898902C3 -> 6", mrz_cd("L898902C3") == "6"),
        ("mrz ICAO specimen line 2", ok_mrz_td3("L898902C36UTO7408122F1204159ZE184226B<<<<<10")),
        ("isbn 9780306406157", isbn13_ok("9780306406157")),
        ("pt nif 123456789", ok_pt_nif("123456789")),
        ("at svnr 1237 010180", ok_at_svnr("1237 010180")),
    ]
    bad = [n for n, ok in tests if not ok]
    for n, ok in tests:
        print(("PASS " if ok else "FAIL ") + n)
    return bad

# ================================================================= token formats
B62 = DIG + UP + LO
def base62(n, width=6):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")

def crc_tok(prefix, n=30):
    body = rs(AN, n)
    return prefix + body + base62(zlib.crc32(body.encode()))

def tok_github():
    return crc_tok(pick(["ghp_", "ghp_", "gho_", "ghs_", "ghu_"]))
def tok_github_pat():
    return "github_pat_11" + rs(ANU, 20) + "_" + rs(AN, 59)
def tok_jwt(claims, key=None, alg="HS256"):
    h = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(json.dumps(claims, separators=(",", ":")).encode())
    if alg == "HS256":
        sig = hmac.new(key or rbytes(32), (h + "." + p).encode(), hashlib.sha256).digest()
    else:
        sig = rbytes(256)
    return h + "." + p + "." + b64u(sig)

def tok_openai():
    k = pick(["proj", "proj", "svcacct", "admin"])
    return "sk-%s-" % k + rs(B64URL, 58) + "T3BlbkFJ" + rs(B64URL, 58)
def tok_anthropic():
    return pick(["sk-ant-api03-"] * 4 + ["sk-ant-admin01-"]) + rs(B64URL, 93) + "AA"
def tok_slack_bot():
    return "xoxb-%s-%s-%s" % (digits(12, True), no_luhn(13), rs(AN, 24))
def tok_slack_user():
    return "xoxp-%s-%s-%s-%s" % (digits(12, True), digits(12, True), no_luhn(13), rs(HEXL, 32))
def tok_slack_app():
    return "xapp-1-A%s-%s-%s" % (rs(ANU, 10), no_luhn(13), rs(HEXL, 64))
def pypi_token():
    # macaroon: version 2, location "pypi.org", identifier (uuid), a caveat, 32-byte signature
    cav = json.dumps({"version": 1, "permissions": "user"}).encode()
    body = b"\x02\x01\x08pypi.org\x02\x24" + uuid4().encode() + b"\x00\x02" + bytes([len(cav)]) + cav + b"\x00\x00\x06\x20" + rbytes(32)
    return "pypi-" + b64u(body)
def jfrog_ref():
    return b64(("reftkn:01:%s:%s" % (digits(10, True), rs(AN, 32))).encode()).rstrip("=")
def intercom_tok():
    return b64(("tok:%s:1:0" % uuid4().replace("-", "_")).encode())
def grafana_cloud():
    j = json.dumps({"o": digits(6, True), "n": "stack-%s-deploy" % digits(6, True), "k": rs(AN, 24),
                    "m": {"r": pick(["prod-eu-west-2", "prod-us-east-0"])}}, separators=(",", ":"))
    return "glc_" + b64(j.encode()).rstrip("=")
def onepassword_sa():
    j = json.dumps({"signInAddress": "my.1password.eu", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256",
                    "iterations": 650000, "salt": b64u(rbytes(16))}, "email": "%s@%s.1passwordserviceaccounts.eu" % (rs(ANL, 14), rs(ANL, 13)),
                    "srpX": rs(HEXL, 64), "muk": {"alg": "A256GCM", "ext": True, "k": b64u(rbytes(32)), "key_ops": ["encrypt", "decrypt"],
                    "kty": "oct", "kid": "mp"}, "secretKey": "A3-%s-%s-%s-%s-%s-%s" % tuple(rs(ANU, k) for k in (6, 6, 5, 5, 5, 5)),
                    "throttleSecret": {"seed": rs(HEXL, 64), "uuid": rs(ANU, 26)}, "deviceUuid": rs(ANL, 26)}, separators=(",", ":"))
    return "ops_" + b64u(j.encode())
def mapbox_sk():
    return "sk.eyJ1IjoiZGVwbG95LWJvdCIsImEiOiI" + rs(AN, 22) + "In0." + rs(B64URL, 22)

# vendor -> (display name, ENV var, config key, token factory, header template or None, api host)
V = {
 # --- cloud
 "gcp_api_key": ("Google Cloud API key", "GOOGLE_API_KEY", "api_key", lambda: "AIza" + rs(B64URL, 35), "x-goog-api-key: {t}", "generativelanguage.googleapis.com"),
 "google_oauth_secret": ("Google OAuth client secret", "GOOGLE_CLIENT_SECRET", "client_secret", lambda: "GOCSPX-" + rs(B64URL, 28), None, "oauth2.googleapis.com"),
 "google_oauth_access": ("Google OAuth access token", "GOOGLE_ACCESS_TOKEN", "access_token", lambda: "ya29.a0" + rs(B64URL, 150), "Authorization: Bearer {t}", "www.googleapis.com"),
 "azure_client_secret": ("Azure AD client secret", "AZURE_CLIENT_SECRET", "client_secret", lambda: rs(AN, 3) + pick(DIG) + "Q~" + rs(AN + "_.~-", 34), None, "login.microsoftonline.com"),
 "digitalocean_token": ("DigitalOcean token", "DIGITALOCEAN_TOKEN", "token", lambda: pick(["dop_v1_", "doo_v1_"]) + rs(HEXL, 64), "Authorization: Bearer {t}", "api.digitalocean.com"),
 "ibm_cloud_api_key": ("IBM Cloud API key", "IBMCLOUD_API_KEY", "ibmcloud_api_key", lambda: rs(B64URL, 44), None, "iam.cloud.ibm.com"),
 "cloudflare_api_token": ("Cloudflare API token", "CLOUDFLARE_API_TOKEN", "api_token", lambda: rs(B64URL, 40), "Authorization: Bearer {t}", "api.cloudflare.com"),
 "hetzner_token": ("Hetzner Cloud API token", "HCLOUD_TOKEN", "hcloud_token", lambda: rs(AN, 64), "Authorization: Bearer {t}", "api.hetzner.cloud"),
 "tailscale_key": ("Tailscale auth key", "TS_AUTHKEY", "authkey", lambda: "tskey-auth-k" + rs(AN, 10) + "CNTRL-" + rs(AN, 32), None, "api.tailscale.com"),
 # --- payments
 "stripe_secret": ("Stripe secret key", "STRIPE_SECRET_KEY", "secret_key", lambda: pick(["sk_live_51", "rk_live_51"]) + rs(AN, 97), "Authorization: Bearer {t}", "api.stripe.com"),
 "stripe_webhook": ("Stripe webhook signing secret", "STRIPE_WEBHOOK_SECRET", "webhook_secret", lambda: "whsec_" + rs(AN, 32), None, "api.stripe.com"),
 "braintree_token": ("Braintree access token", "BRAINTREE_ACCESS_TOKEN", "access_token", lambda: "access_token$production$" + rs(ANL, 16) + "$" + rs(HEXL, 32), None, "api.braintreegateway.com"),
 "square_token": ("Square access token", "SQUARE_ACCESS_TOKEN", "access_token", lambda: "EAAA" + rs(B64URL, 60), "Authorization: Bearer {t}", "connect.squareup.com"),
 "adyen_api_key": ("Adyen API key", "ADYEN_API_KEY", "api_key", lambda: "AQE" + rs(AN, 5) + "K" + rs(AN + "+/", 140) + "=", "X-API-Key: {t}", "checkout-live.adyen.com"),
 "paystack_secret": ("Paystack secret key", "PAYSTACK_SECRET_KEY", "secret_key", lambda: "sk_live_" + rs(HEXL, 40), "Authorization: Bearer {t}", "api.paystack.co"),
 "mollie_key": ("Mollie live API key", "MOLLIE_API_KEY", "api_key", lambda: "live_" + rs(AN, 30), "Authorization: Bearer {t}", "api.mollie.com"),
 "flutterwave_secret": ("Flutterwave secret key", "FLW_SECRET_KEY", "secret_key", lambda: "FLWSECK-" + rs(HEXL, 32) + "-X", "Authorization: Bearer {t}", "api.flutterwave.com"),
 # --- ci/cd, source hosting, infra-as-code
 "github_token": ("GitHub token", "GITHUB_TOKEN", "token", tok_github, "Authorization: token {t}", "api.github.com"),
 "github_fine_grained_pat": ("GitHub fine-grained PAT", "GH_PAT", "token", tok_github_pat, "Authorization: Bearer {t}", "api.github.com"),
 "gitlab_token": ("GitLab token", "GITLAB_TOKEN", "private_token", lambda: pick(["glpat-", "glpat-", "gldt-"]) + rs(B64URL, 20), "PRIVATE-TOKEN: {t}", "gitlab.com"),
 "gitlab_trigger_token": ("GitLab pipeline trigger token", "TRIGGER_TOKEN", "trigger_token", lambda: "glptt-" + rs(HEXL, 40), None, "gitlab.com"),
 "atlassian_api_token": ("Atlassian API token", "JIRA_API_TOKEN", "api_token", lambda: "ATATT3xFfGF0" + rs(B64URL, 170) + "=" + rs(HEXU, 8), None, "acme-tools.atlassian.net"),
 "circleci_token": ("CircleCI personal API token", "CIRCLE_TOKEN", "circle_token", lambda: "CCIPAT_" + rs(AN, 22) + "_" + rs(HEXL, 40), "Circle-Token: {t}", "circleci.com"),
 "buildkite_token": ("Buildkite API token", "BUILDKITE_API_TOKEN", "api_token", lambda: "bkua_" + rs(HEXL, 40), "Authorization: Bearer {t}", "api.buildkite.com"),
 "jenkins_api_token": ("Jenkins API token", "JENKINS_API_TOKEN", "api_token", lambda: "11" + rs(HEXL, 32), None, "ci.corp.internal"),
 "sonarqube_token": ("SonarQube token", "SONAR_TOKEN", "sonar.token", lambda: pick(["squ_", "sqa_", "sqp_"]) + rs(HEXL, 40), None, "sonar.corp.internal"),
 "dockerhub_pat": ("Docker Hub access token", "DOCKERHUB_TOKEN", "token", lambda: "dckr_pat_" + rs(B64URL, 27), None, "hub.docker.com"),
 "terraform_cloud_token": ("Terraform Cloud API token", "TFE_TOKEN", "token", lambda: rs(AN, 14) + ".atlasv1." + rs(AN, 67), "Authorization: Bearer {t}", "app.terraform.io"),
 "pulumi_token": ("Pulumi access token", "PULUMI_ACCESS_TOKEN", "access_token", lambda: "pul-" + rs(HEXL, 40), None, "api.pulumi.com"),
 "vault_token": ("Vault token", "VAULT_TOKEN", "token", lambda: pick(["hvs.", "hvs.CAESI"]) + rs(B64URL, 90 if R.random() < .5 else 24), "X-Vault-Token: {t}", "vault.corp.internal:8200"),
 "doppler_token": ("Doppler service token", "DOPPLER_TOKEN", "token", lambda: pick(["dp.st.prd.", "dp.st.stg.", "dp.pt."]) + rs(AN, 43), None, "api.doppler.com"),
 "onepassword_sa_token": ("1Password service account token", "OP_SERVICE_ACCOUNT_TOKEN", "service_account_token", onepassword_sa, None, "my.1password.eu"),
 # --- observability
 "newrelic_key": ("New Relic user API key", "NEW_RELIC_API_KEY", "api_key", lambda: "NRAK-" + rs(ANU, 27), "Api-Key: {t}", "api.eu.newrelic.com"),
 "newrelic_license": ("New Relic license key", "NEW_RELIC_LICENSE_KEY", "license_key", lambda: rs(HEXL, 36) + "NRAL", None, "collector.eu01.nr-data.net"),
 "grafana_token": ("Grafana service account token", "GRAFANA_TOKEN", "token", lambda: "glsa_" + rs(AN, 32) + "_" + rs(HEXL, 8), "Authorization: Bearer {t}", "grafana.corp.internal"),
 "grafana_cloud_token": ("Grafana Cloud access policy token", "GRAFANA_CLOUD_TOKEN", "token", grafana_cloud, None, "grafana.net"),
 "sentry_token": ("Sentry auth token", "SENTRY_AUTH_TOKEN", "auth_token", lambda: "sntryu_" + rs(HEXL, 64), "Authorization: Bearer {t}", "sentry.io"),
 "dynatrace_token": ("Dynatrace API token", "DT_API_TOKEN", "api_token", lambda: "dt0c01." + rs(ANU, 24) + "." + rs(ANU, 64), "Authorization: Api-Token {t}", "abc12345.live.dynatrace.com"),
 "splunk_hec_token": ("Splunk HEC token", "SPLUNK_HEC_TOKEN", "hec_token", uuid4, "Authorization: Splunk {t}", "splunk.corp.internal:8088"),
 "elastic_api_key": ("Elastic API key", "ELASTIC_API_KEY", "api_key", lambda: b64((rs(B64URL, 20) + ":" + rs(B64URL, 22)).encode()), "Authorization: ApiKey {t}", "es.corp.internal:9243"),
 # --- AI APIs
 "openai_key": ("OpenAI API key", "OPENAI_API_KEY", "api_key", tok_openai, "Authorization: Bearer {t}", "api.openai.com"),
 "anthropic_key": ("Anthropic API key", "ANTHROPIC_API_KEY", "api_key", tok_anthropic, "x-api-key: {t}", "api.anthropic.com"),
 "groq_key": ("Groq API key", "GROQ_API_KEY", "api_key", lambda: "gsk_" + rs(AN, 52), "Authorization: Bearer {t}", "api.groq.com"),
 "huggingface_token": ("Hugging Face token", "HF_TOKEN", "token", lambda: "hf_" + rs(UP + LO, 34), "Authorization: Bearer {t}", "huggingface.co"),
 "replicate_token": ("Replicate API token", "REPLICATE_API_TOKEN", "api_token", lambda: "r8_" + rs(AN, 37), "Authorization: Bearer {t}", "api.replicate.com"),
 "perplexity_key": ("Perplexity API key", "PERPLEXITY_API_KEY", "api_key", lambda: "pplx-" + rs(AN, 48), "Authorization: Bearer {t}", "api.perplexity.ai"),
 "xai_key": ("xAI API key", "XAI_API_KEY", "api_key", lambda: "xai-" + rs(AN, 80), "Authorization: Bearer {t}", "api.x.ai"),
 "openrouter_key": ("OpenRouter API key", "OPENROUTER_API_KEY", "api_key", lambda: "sk-or-v1-" + rs(HEXL, 64), "Authorization: Bearer {t}", "openrouter.ai"),
 "langsmith_key": ("LangSmith API key", "LANGSMITH_API_KEY", "api_key", lambda: pick(["lsv2_pt_", "lsv2_sk_"]) + rs(HEXL, 32) + "_" + rs(HEXL, 10), "x-api-key: {t}", "api.smith.langchain.com"),
 "pinecone_key": ("Pinecone API key", "PINECONE_API_KEY", "api_key", lambda: "pcsk_" + rs(AN, 5) + "_" + rs(AN, 63), "Api-Key: {t}", "api.pinecone.io"),
 "deepseek_key": ("DeepSeek API key", "DEEPSEEK_API_KEY", "api_key", lambda: "sk-" + rs(HEXL, 32), "Authorization: Bearer {t}", "api.deepseek.com"),
 "cohere_key": ("Cohere API key", "CO_API_KEY", "api_key", lambda: rs(AN, 40), "Authorization: Bearer {t}", "api.cohere.com"),
 "mistral_key": ("Mistral API key", "MISTRAL_API_KEY", "api_key", lambda: rs(AN, 32), "Authorization: Bearer {t}", "api.mistral.ai"),
 # --- messaging / email
 "slack_token": ("Slack token", "SLACK_BOT_TOKEN", "bot_token", lambda: pick([tok_slack_bot, tok_slack_bot, tok_slack_user, tok_slack_app])(), "Authorization: Bearer {t}", "slack.com"),
 "telegram_bot_token": ("Telegram bot token", "TELEGRAM_BOT_TOKEN", "bot_token", lambda: digits(10, True) + ":AA" + rs(B64URL, 33), None, "api.telegram.org"),
 "discord_bot_token": ("Discord bot token", "DISCORD_TOKEN", "token", lambda: b64(digits(19, True).encode()).rstrip("=") + "." + rs(B64URL, 6) + "." + rs(B64URL, 38), "Authorization: Bot {t}", "discord.com"),
 "sendgrid_key": ("SendGrid API key", "SENDGRID_API_KEY", "api_key", lambda: "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43), "Authorization: Bearer {t}", "api.sendgrid.com"),
 "mailgun_key": ("Mailgun API key", "MAILGUN_API_KEY", "api_key", lambda: pick(["key-" + rs(HEXL, 32), rs(HEXL, 32) + "-" + rs(HEXL, 8) + "-" + rs(HEXL, 8)]), None, "api.eu.mailgun.net"),
 "postmark_token": ("Postmark server token", "POSTMARK_SERVER_TOKEN", "server_token", uuid4, "X-Postmark-Server-Token: {t}", "api.postmarkapp.com"),
 "mailchimp_key": ("Mailchimp API key", "MAILCHIMP_API_KEY", "api_key", lambda: rs(HEXL, 32) + "-us" + str(R.randint(2, 21)), None, "us14.api.mailchimp.com"),
 "brevo_key": ("Brevo API key", "BREVO_API_KEY", "api_key", lambda: "xkeysib-" + rs(HEXL, 64) + "-" + rs(AN, 16), "api-key: {t}", "api.brevo.com"),
 # --- package registries
 "npm_token": ("npm token", "NPM_TOKEN", "_authToken", lambda: crc_tok("npm_"), None, "registry.npmjs.org"),
 "pypi_token": ("PyPI API token", "TWINE_PASSWORD", "password", pypi_token, None, "upload.pypi.org"),
 "rubygems_key": ("RubyGems API key", "GEM_HOST_API_KEY", "api_key", lambda: "rubygems_" + rs(HEXL, 48), "Authorization: {t}", "rubygems.org"),
 "nuget_key": ("NuGet API key", "NUGET_API_KEY", "api_key", lambda: "oy2" + rs(ANL, 43), "X-NuGet-ApiKey: {t}", "www.nuget.org"),
 "cratesio_token": ("crates.io token", "CARGO_REGISTRY_TOKEN", "token", lambda: "cio" + rs(AN, 32), None, "crates.io"),
 "jfrog_token": ("JFrog Artifactory token", "ARTIFACTORY_TOKEN", "token", lambda: pick(["AKCp" + rs(AN, 69), jfrog_ref()]), "X-JFrog-Art-Api: {t}", "acme.jfrog.io"),
 # --- SaaS admin APIs
 "shopify_token": ("Shopify Admin API token", "SHOPIFY_ACCESS_TOKEN", "access_token", lambda: pick(["shpat_", "shpat_", "shpss_", "shpca_"]) + rs(HEXL, 32), "X-Shopify-Access-Token: {t}", "acme-store.myshopify.com"),
 "okta_token": ("Okta API token", "OKTA_API_TOKEN", "api_token", lambda: "00" + rs(B64URL, 40), "Authorization: SSWS {t}", "acme.okta.com"),
 "linear_key": ("Linear API key", "LINEAR_API_KEY", "api_key", lambda: "lin_api_" + rs(AN, 40), "Authorization: {t}", "api.linear.app"),
 "notion_token": ("Notion integration token", "NOTION_TOKEN", "token", lambda: "ntn_" + digits(11, True) + rs(AN, 35), "Authorization: Bearer {t}", "api.notion.com"),
 "airtable_pat": ("Airtable personal access token", "AIRTABLE_TOKEN", "token", lambda: "pat" + rs(AN, 14) + "." + rs(HEXL, 64), "Authorization: Bearer {t}", "api.airtable.com"),
 "hubspot_token": ("HubSpot private app token", "HUBSPOT_TOKEN", "access_token", lambda: pick(["pat-na1-", "pat-eu1-"]) + uuid4(), "Authorization: Bearer {t}", "api.hubapi.com"),
 "salesforce_token": ("Salesforce access token", "SF_ACCESS_TOKEN", "access_token", lambda: "00D" + rs(AN, 12) + "!AQ" + rs(AN, 4) + "AQ" + rs(AN + "._", 92), "Authorization: Bearer {t}", "acme.my.salesforce.com"),
 "figma_token": ("Figma personal access token", "FIGMA_TOKEN", "token", lambda: "figd_" + rs(B64URL, 40), "X-Figma-Token: {t}", "api.figma.com"),
 "intercom_token": ("Intercom access token", "INTERCOM_ACCESS_TOKEN", "access_token", intercom_tok, "Authorization: Bearer {t}", "api.intercom.io"),
 "clickup_token": ("ClickUp API token", "CLICKUP_TOKEN", "api_token", lambda: "pk_" + digits(8, True) + "_" + rs(ANU, 32), "Authorization: {t}", "api.clickup.com"),
 "contentful_token": ("Contentful management token", "CONTENTFUL_MANAGEMENT_TOKEN", "management_token", lambda: "CFPAT-" + rs(B64URL, 43), "Authorization: Bearer {t}", "api.contentful.com"),
 "planetscale_token": ("PlanetScale service token", "PLANETSCALE_TOKEN", "token", lambda: pick(["pscale_tkn_", "pscale_pw_"]) + rs(B64URL, 43), None, "api.planetscale.com"),
 "mapbox_secret": ("Mapbox secret token", "MAPBOX_SECRET_TOKEN", "access_token", mapbox_sk, None, "api.mapbox.com"),
 "dropbox_token": ("Dropbox access token", "DROPBOX_TOKEN", "access_token", lambda: "sl.u." + rs(B64URL, 140), "Authorization: Bearer {t}", "api.dropboxapi.com"),
 "meta_access_token": ("Meta Graph API page token", "FB_PAGE_TOKEN", "access_token", lambda: "EAA" + pick("BGI") + rs(AN, 180), None, "graph.facebook.com"),
 "asana_pat": ("Asana personal access token", "ASANA_PAT", "token", lambda: "2/" + no_luhn(16) + "/" + no_luhn(16) + ":" + rs(HEXL, 32), "Authorization: Bearer {t}", "app.asana.com"),
 "zendesk_token": ("Zendesk API token", "ZENDESK_API_TOKEN", "api_token", lambda: rs(AN, 40), None, "acme.zendesk.com"),
}

# ================================================================= generic contexts for a named token
def ts():
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23),
                                                   R.randint(0, 59), R.randint(0, 59), R.randint(0, 999))

def section_of(fam):
    return fam.split("_")[0]

def pascal(s):
    return "".join(w.capitalize() for w in re.split(r"[_.]", s))

CHAT = {
 "en": ["Note for later: the {name} for the staging project is {t}, don't lose it.",
        "can you remember this for me? {name} (prod) = {t}"],
 "de": ["Bitte merken: der {name} für Prod lautet {t}", "Kurze Notiz, {name} fürs Testsystem: {t} (läuft Ende Q2 ab)"],
 "fr": ["À retenir : la clé « {name} » de prod est {t}", "Note perso : {name} pour la préprod → {t}"],
 "es": ["Guárdame esto: {name} de producción = {t}", "Apunta el {name} del entorno de pruebas: {t}"],
 "it": ["Segnati il {name} di staging: {t}", "Promemoria: {name} produzione {t}"],
 "pt": ["Anota aí o {name} do ambiente de produção: {t}", "Lembrete: {name} da homologação é {t}"],
 "nl": ["Onthoud even: de {name} voor acceptatie is {t}"],
 "pl": ["Zapisz proszę {name} do produkcji: {t}"],
 "ru": ["Запомни, пожалуйста: {name} для продакшена — {t}"],
 "uk": ["Запам'ятай: {name} для продакшну — {t}"],
 "ja": ["{name}（本番用）は {t} です。メモしておいてください。"],
 "zh": ["帮我记一下，生产环境的 {name} 是 {t}"],
 "ko": ["운영 환경 {name}: {t} 기억해 줘"],
 "ar": ["احفظ هذا من فضلك: {name} الخاص بالإنتاج هو {t}"],
 "he": ["תזכור בבקשה: ה-{name} של הפרודקשן הוא {t}"],
 "hi": ["याद रखना, प्रोडक्शन का {name} है {t}"],
 "tr": ["Şunu kaydet: prod ortamının {name} değeri {t}"],
 "sv": ["Kom ihåg: {name} för produktion är {t}"],
 "el": ["Θυμήσου: το {name} της παραγωγής είναι {t}"],
 "vi": ["Ghi nhớ giúp mình: {name} môi trường production là {t}"],
 "th": ["ช่วยจำไว้หน่อย {name} ของ production คือ {t}"],
 "mix": ["ok also der {name} für staging ist {t}, bitte nicht committen lol",
         "bhai ye {name} save kar lo, kal deploy ke liye chahiye: {t}",
         "el {name} de prod is {t}, lo necesito mañana for the migration",
         "prod の {name} is {t}、rotate は来週"],
}
LANGS = list(CHAT)

def hdr(v, t):
    h = v[4] or "Authorization: Bearer {t}"
    return h.format(t=t)

def c_shell(fam, v, t):
    n = R.randint(200, 1900)
    return "  %d  export %s=%s\n  %d  ./scripts/smoke-test.sh --env prod\n  %d  history | tail -3" % (n, v[1], t, n + 1, n + 2)
def c_dotenv(fam, v, t):
    return "# %s (prod, do not share)\n%s=%s\nLOG_LEVEL=info\nPORT=8080" % (v[0], v[1], t)
def c_yaml(fam, v, t):
    return "%s:\n  enabled: true\n  %s: \"%s\"\n  timeout_s: 30\n  base_url: https://%s" % (section_of(fam), v[2], t, v[5])
def c_toml(fam, v, t):
    return "[integrations.%s]\n%s = \"%s\"\nregion = \"eu\"\nretries = 3" % (section_of(fam), v[2].replace(".", "_"), t)
def c_hcl(fam, v, t):
    return 'variable "%s_%s" {\n  type      = string\n  sensitive = true\n  default   = "%s"\n}' % (section_of(fam), v[2].replace(".", "_"), t)
def c_json(fam, v, t):
    return json.dumps({"service": section_of(fam), "credentials": {v[2]: t}, "retries": 3}, indent=2)
def c_xml(fam, v, t):
    return '<configuration>\n  <appSettings>\n    <add key="%s%s" value="%s" />\n    <add key="RetryCount" value="3" />\n  </appSettings>\n</configuration>' % (pascal(section_of(fam)), pascal(v[2]), t)
def c_ini(fam, v, t):
    return "[%s]\n%s = %s\nendpoint = https://%s" % (section_of(fam), v[2], t, v[5])
def c_chat(fam, v, t):
    lang = LANGS[R.randrange(len(LANGS))]
    return pick(CHAT[lang]).format(name=v[0], t=t)
def c_cilog(fam, v, t):
    return "%s ##[group]Run ./deploy.sh\n%s + curl -fsS -H '%s' https://%s/\n%s HTTP/2 200\n%s ##[endgroup]" % (ts(), ts(), hdr(v, t), v[5], ts(), ts())
def c_pytrace(fam, v, t):
    return ("Traceback (most recent call last):\n  File \"/srv/app/sync.py\", line %d, in push\n    resp.raise_for_status()\n"
            "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://%s/\n"
            "DEBUG sent headers: {'%s', 'User-Agent': 'python-requests/2.32.3'}" % (R.randint(20, 300), v[5], hdr(v, t).replace(": ", "': '", 1)))
def c_javalog(fam, v, t):
    return "%s WARN  [pool-3-thread-%d] c.a.i.%sClient - 401 from https://%s, retrying with %s=%s" % (ts(), R.randint(1, 9), pascal(section_of(fam)), v[5], v[2], t)
def c_ticket(fam, v, t):
    return ("[OPS-%d] %s integration failing on staging\nPriority: P2\nDescription: the nightly job gets 401s. I regenerated the %s, new value is %s, "
            "please update the secret store and close." % (R.randint(100, 9999), pascal(section_of(fam)), v[0], t))
def c_email(fam, v, t):
    return ("Subject: new %s for the reporting job\n\nHi team,\n\nhere is the new %s, the old one is revoked:\n\n    %s\n\nThanks,\nPlatform on-call" % (v[0], v[0], t))
def c_docker(fam, v, t):
    return "docker run -d --name worker -e %s=%s -e TZ=UTC registry.corp.internal/worker:1.8.2" % (v[1], t)
def c_kubectl(fam, v, t):
    return "kubectl -n prod create secret generic %s-creds --from-literal=%s='%s'" % (section_of(fam), v[2].replace("_", "-").lower(), t)
def c_gha(fam, v, t):
    return "jobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n      %s: %s\n    steps:\n      - uses: actions/checkout@v4" % (v[1], t)
def c_code(fam, v, t):
    return pick(['client = %sClient(%s="%s", timeout=30)' % (pascal(section_of(fam)), v[2].replace(".", "_"), t),
                 'const client = new %sClient({ %s: "%s" });' % (pascal(section_of(fam)), v[2].replace(".", "_"), t),
                 'cfg := %s.Config{Token: "%s", Timeout: 30 * time.Second}' % (section_of(fam), t)])
def c_props(fam, v, t):
    return "# application-prod.properties\n%s.%s=%s\n%s.timeout-ms=5000" % (section_of(fam), v[2].replace("_", "-"), t, section_of(fam))
def c_pwsh(fam, v, t):
    return "PS C:\\deploy> $env:%s = \"%s\"\nPS C:\\deploy> .\\publish.ps1 -Environment Production" % (v[1], t)
def c_curl(fam, v, t):
    return "curl -s https://%s/ \\\n  -H '%s' \\\n  -H 'Content-Type: application/json'" % (v[5], hdr(v, t))

CTX = [c_shell, c_dotenv, c_yaml, c_toml, c_hcl, c_json, c_xml, c_ini, c_chat, c_cilog, c_pytrace, c_javalog,
       c_ticket, c_email, c_docker, c_kubectl, c_gha, c_code, c_props, c_pwsh, c_curl, c_chat]

# contexts that fit particular vendors better than the generic ones
NATIVE = {
 "npm_token": [lambda t: "$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=%s\nsave-exact=true" % t],
 "pypi_token": [lambda t: "# ~/.pypirc\n[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = %s" % t],
 "cratesio_token": [lambda t: "# ~/.cargo/credentials.toml\n[registry]\ntoken = \"%s\"" % t],
 "rubygems_key": [lambda t: "$ cat ~/.gem/credentials\n---\n:rubygems_api_key: %s" % t],
 "nuget_key": [lambda t: "dotnet nuget push bin/Release/Acme.Core.3.4.1.nupkg --api-key %s --source https://api.nuget.org/v3/index.json" % t],
 "dockerhub_pat": [lambda t: "echo '%s' | docker login -u acmebuild --password-stdin" % t],
 "github_token": [lambda t: "git remote set-url origin https://x-access-token:%s@github.com/acme/platform.git" % t,
                  lambda t: "$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    oauth_token: %s\n    git_protocol: https\n    user: acme-bot" % t],
 "gitlab_token": [lambda t: "git clone https://oauth2:%s@gitlab.com/acme/infra/terraform-modules.git" % t],
 "terraform_cloud_token": [lambda t: "# ~/.terraform.d/credentials.tfrc.json\n" + json.dumps({"credentials": {"app.terraform.io": {"token": t}}}, indent=2)],
 "vault_token": [lambda t: "$ vault login %s\nSuccess! You are now authenticated." % t],
 "slack_token": [lambda t: "curl -X POST https://slack.com/api/chat.postMessage -H 'Authorization: Bearer %s' -d channel=C0%s -d text=deploy-done" % (t, rs(ANU, 9))],
 "telegram_bot_token": [lambda t: "curl 'https://api.telegram.org/bot%s/sendMessage?chat_id=-100%s&text=backup+ok'" % (t, digits(10, True))],
 "huggingface_token": [lambda t: "$ huggingface-cli login --token %s\nToken is valid (permission: write)." % t],
 "stripe_secret": [lambda t: "curl https://api.stripe.com/v1/charges -u %s: -d amount=2000 -d currency=eur" % t],
 "sonarqube_token": [lambda t: "mvn -B verify sonar:sonar -Dsonar.host.url=https://sonar.corp.internal -Dsonar.token=%s" % t],
 "jenkins_api_token": [lambda t: "curl -X POST https://ci.corp.internal/job/release/build --user deploy-bot:%s" % t],
 "zendesk_token": [lambda t: "curl https://acme.zendesk.com/api/v2/tickets.json -u support-bot/token:%s" % t],
 "mailgun_key": [lambda t: "curl -s --user 'api:%s' https://api.eu.mailgun.net/v3/mg.acme-mail.net/messages -F to=ops@acme-mail.net" % t],
 "tailscale_key": [lambda t: "sudo tailscale up --authkey=%s --advertise-tags=tag:ci" % t],
 "pulumi_token": [lambda t: "PULUMI_ACCESS_TOKEN=%s pulumi up --stack acme/prod --yes" % t],
 "gcp_api_key": [lambda t: "GET https://maps.googleapis.com/maps/api/geocode/json?address=Hauptbahnhof&key=%s" % t],
 "meta_access_token": [lambda t: "curl -G https://graph.facebook.com/v19.0/me/accounts -d access_token=%s" % t],
 "mapbox_secret": [lambda t: "MAPBOX_DOWNLOADS_TOKEN=%s  # needed by gradle to pull the SDK" % t],
}

def vendor_rows(fam, n):
    v = V[fam]
    used = set()
    natives = list(NATIVE.get(fam, []))
    for i in range(n):
        t = v[3]()
        if natives and (i == 0 or R.random() < .5):
            add("secret", fam, natives.pop(0)(t))
            continue
        while True:
            c = pick(CTX)
            if c.__name__ not in used or c is c_chat:
                break
        used.add(c.__name__)
        add("secret", fam, c(fam, v, t))

# rows per vendor family (default 1)
VN = {"openai_key": 3, "anthropic_key": 3, "github_token": 3, "stripe_secret": 3, "slack_token": 3, "gcp_api_key": 3,
      "gitlab_token": 3, "npm_token": 2, "pypi_token": 2, "huggingface_token": 2, "sendgrid_key": 2, "telegram_bot_token": 2,
      "discord_bot_token": 2, "github_fine_grained_pat": 2, "azure_client_secret": 2, "digitalocean_token": 2,
      "dockerhub_pat": 2, "vault_token": 2, "groq_key": 2, "shopify_token": 2, 
      "cloudflare_api_token": 2}

# ---- vendors whose credential has several parts
def aws_pair():
    return pick(["AKIA", "AKIA", "ASIA"]) + rs(B32, 16), rs(AN + "+/", 40)

def multi_part_rows():
    for i in range(4):
        kid, sec = aws_pair()
        sess = "\naws_session_token = IQoJb3JpZ2luX2VjE" + rs(AN + "+/", 300) if kid.startswith("ASIA") else ""
        tpl = [
            "[profile prod-admin]\naws_access_key_id = %s\naws_secret_access_key = %s%s\nregion = eu-central-1" % (kid, sec, sess),
            "AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s aws s3 sync ./dist s3://acme-static-prod --delete" % (kid, sec),
            "s3 = boto3.client(\n    \"s3\",\n    aws_access_key_id=\"%s\",\n    aws_secret_access_key=\"%s\",\n)" % (kid, sec),
            "Merci de garder ça quelque part : clé d'accès AWS %s / secret %s (compte de facturation)" % (kid, sec),
        ][i]
        add("secret", "aws_access_key", tpl)
    a, s = "LTAI" + rs(AN, 20), rs(AN, 30)
    add("secret", "alibaba_access_key", "# ~/.aliyun/config.json 片段\n" + json.dumps({"mode": "AK", "access_key_id": a, "access_key_secret": s, "region_id": "cn-hangzhou"}, indent=2, ensure_ascii=False))
    a, s = "AKID" + rs(AN, 32), rs(AN, 32)
    add("secret", "tencent_cloud_key", "腾讯云 API 密钥（生产）：SecretId=%s SecretKey=%s，别发群里" % (a, s))
    a, s = "SCW" + rs(ANU, 17), uuid4()
    add("secret", "scaleway_key", "export SCW_ACCESS_KEY=%s\nexport SCW_SECRET_KEY=%s\nexport SCW_DEFAULT_PROJECT_ID=%s" % (a, s, uuid4()))
    for i in range(2):
        sid, tok = ("AC" if i == 0 else "SK") + rs(HEXL, 32), rs(HEXL if i == 0 else AN, 32)
        add("secret", "twilio_credentials", [
            "TWILIO_ACCOUNT_SID=%s\nTWILIO_AUTH_TOKEN=%s\nTWILIO_MESSAGING_SERVICE_SID=MG%s" % (sid, tok, rs(HEXL, 32)),
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC%s/Messages.json -u %s:%s --data-urlencode Body=test" % (rs(HEXL, 32), sid, tok)][i])
    add("secret", "razorpay_key", "razorpay:\n  key_id: rzp_live_%s\n  key_secret: %s" % (rs(AN, 14), rs(AN, 24)))
    add("secret", "vonage_credentials", "Vonage SMS API → api_key %s, api_secret %s (Konto Marketing)" % (rs(HEXL, 8), rs(AN, 16)))
    for i in range(2):
        a, b = rs(HEXL, 32), rs(HEXL, 40)
        add("secret", "datadog_keys", [
            "datadog:\n  site: datadoghq.eu\n  api_key: %s\n  app_key: %s" % (a, b),
            "curl -X GET https://api.datadoghq.eu/api/v1/monitor -H 'DD-API-KEY: %s' -H 'DD-APPLICATION-KEY: %s'" % (a, b)][i])
    add("secret", "paypal_client_secret", "PAYPAL_CLIENT_ID=A%s\nPAYPAL_CLIENT_SECRET=E%s\nPAYPAL_MODE=live" % (rs(B64URL, 79), rs(B64URL, 79)))
    add("secret", "azure_storage_key", "DefaultEndpointsProtocol=https;AccountName=acmeprodlogs;AccountKey=%s;EndpointSuffix=core.windows.net" % b64(rbytes(64)))
    add("secret", "supabase_service_role", "SUPABASE_URL=https://%s.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=%s" % (rs(LO, 20),
        tok_jwt({"iss": "supabase", "ref": rs(LO, 20), "role": "service_role", "iat": 1735689600, "exp": 2051222400})))
    add("secret", "teams_webhook", "Teams-Webhook für #deployments: https://acme.webhook.office.com/webhookb2/%s@%s/IncomingWebhook/%s/%s/V2%s" % (uuid4(), uuid4(), rs(HEXL, 32), uuid4(), rs(AN, 43)))
    add("secret", "slack_webhook", "alerting:\n  slack_url: https://hooks.slack.com/services/T%s/B%s/%s" % (rs(ANU, 10), rs(ANU, 10), rs(AN, 24)))
    add("secret", "discord_webhook", "webhook do servidor (não compartilhar): https://discord.com/api/webhooks/%s/%s" % (no_luhn(19), rs(B64URL, 68)))
    add("secret", "twitter_bearer", "X_BEARER_TOKEN=AAAAAAAAAAAAAAAAAAAAA%sAAAAAAA%s%%3D%s" % (rs(AN, 15), rs(AN, 20), rs(AN, 50)))

# ================================================================= passwords and other non-vendor secrets
WORDS = ["Sonnenblume", "Kaffeetasse", "papillon", "girasol", "Tramonto", "Fahrrad", "lighthouse", "Marmelade", "orquidea",
         "Himbeere", "falcon", "Pinguin", "cerezo", "montagne", "Kirschbaum", "tangerine", "Wolke", "azulejo", "Gewitter", "copper"]
SYMS = "!#$%&*?@+-_."

def human_pw():
    k = R.randrange(5)
    if k == 0:
        return pick(WORDS) + str(R.randint(1970, 2025)) + pick(SYMS)
    if k == 1:
        w = pick(WORDS)
        return w.replace("a", "4").replace("e", "3").replace("o", "0").capitalize() + pick(SYMS) + digits(2)
    if k == 2:
        return rs(AN + "!#%&*+-=?@^_", R.randint(14, 20))
    if k == 3:
        return "-".join(pick(WORDS).lower() for _ in range(4)) + digits(1)
    return pick(WORDS)[:5] + pick(SYMS) + pick(WORDS)[-4:].upper() + digits(3)

def url_pw():  # password usable inside a URL without escaping
    return rs(AN, R.randint(14, 22))

PW_CHAT = [
 ("en", "Wi-Fi at the cabin: network \"Fjellhytta\", password {p}"),
 ("de", "Mein Passwort fürs Firmen-VPN ist {p}, bitte in den Passwortmanager übernehmen."),
 ("fr", "Mot de passe du compte admin WordPress : {p}"),
 ("es", "la contraseña del correo de la oficina es {p}"),
 ("it", "La password del NAS è {p}, non cambiarla prima di venerdì"),
 ("pl", "Hasło do panelu hostingu: {p}"),
 ("tr", "Muhasebe sisteminin şifresi {p}, kimseyle paylaşma"),
 ("ru", "Пароль от почты бухгалтерии: {p}"),
 ("el", "Ο κωδικός πρόσβασης του router είναι {p}"),
 ("ar", "كلمة المرور لحساب الخادم هي {p}"),
 ("he", "הסיסמה לחשבון הניהול היא {p}"),
 ("hi", "सर्वर का पासवर्ड {p} है, किसी को मत बताना"),
 ("ja", "社内Wi-Fiのパスワードは {p} です"),
 ("zh", "服务器 root 密码：{p}"),
 ("ko", "관리자 계정 비밀번호는 {p} 입니다"),
 ("th", "รหัสผ่านเข้าระบบบัญชีคือ {p}"),
 ("mix", "passwort für den jump host ist {p}, same as last time but mit neuem suffix"),
 ("mix", "yaar router ka password {p} hai, note kar lena"),
]

DIGW = {
 "en": "zero one two three four five six seven eight nine".split(),
 "de": "null eins zwei drei vier fünf sechs sieben acht neun".split(),
 "fr": "zéro un deux trois quatre cinq six sept huit neuf".split(),
 "es": "cero uno dos tres cuatro cinco seis siete ocho nueve".split(),
 "it": "zero uno due tre quattro cinque sei sette otto nove".split(),
 "nl": "nul een twee drie vier vijf zes zeven acht negen".split(),
}
NATO = dict(zip(LO, "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey x-ray yankee zulu".split()))

def nontrivial_pin(n):
    while True:
        p = digits(n)
        if len(set(p)) >= 3 and p not in "0123456789" and p not in "9876543210" and not re.fullmatch(r"(19|20)\d\d", p):
            return p

def spell(p, lang):
    return " ".join(DIGW[lang][int(c)] for c in p)

def spell_pw(pw):
    out = []
    for c in pw:
        if c.isupper():
            out.append("capital " + NATO[c.lower()])
        elif c.islower():
            out.append(NATO[c])
        elif c.isdigit():
            out.append(DIGW["en"][int(c)])
        else:
            out.append({"!": "exclamation mark", "#": "hash", "-": "dash", "_": "underscore", ".": "dot", "@": "at sign"}.get(c, c))
    return ", ".join(out)

def other_secret_rows():
    # --- password_chat: passwords stated in chat/e-mail/notes, many languages
    for lang, tpl in PW_CHAT:
        add("secret", "password_chat", tpl.format(p=human_pw()))
    # --- voice_transcribed: secrets dictated to a voice assistant
    v = [
        "my pin is %s" % spell(nontrivial_pin(4), "en"),
        "okay so the alarm code for the office is %s and then press set" % spell(nontrivial_pin(4), "en"),
        "meine PIN fürs Handy ist %s" % spell(nontrivial_pin(6), "de"),
        "le code de la porte de l'immeuble c'est %s" % spell(nontrivial_pin(4), "fr"),
        "el pin de la tarjeta es %s" % spell(nontrivial_pin(4), "es"),
        "de pincode van de kluis is %s" % spell(nontrivial_pin(4), "nl"),
    ]
    for i in range(2):
        pw = rs(AN, 6) + pick("!#-_.") + digits(2)
        v.append(pick(["the wifi password is ", "new vpn password, spelled out: ", "password for the shared drive is "]) + spell_pw(pw))
    for t in v:
        add("secret", "voice_transcribed", t)
    # --- pin / door codes written normally
    for t in ["Türcode Keller: %s#" % nontrivial_pin(4), "SIM-PIN %s, PUK %s (Diensthandy)" % (nontrivial_pin(4), nontrivial_pin(8)),
              "código do alarme de casa: %s" % nontrivial_pin(6)]:
        add("secret", "pin_code", t)
    # --- connection strings (few: set C covered them in depth)
    u = url_pw()
    add("secret", "connection_string", "spring:\n  datasource:\n    url: jdbc:postgresql://db-prod.corp.internal:5432/billing?user=billing_app&password=%s&ssl=true" % u)
    add("secret", "connection_string", "CELERY_BROKER_URL=amqps://worker:%s@mq.corp.internal:5671/prod" % url_pw())
    add("secret", "connection_string", "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=crm;User ID=crm_rw;Password=%s;Encrypt=True;" % human_pw().replace(";", ""))
    add("secret", "connection_string", "mongosh \"mongodb+srv://analytics:%s@cluster0.%s.mongodb.net/reporting?retryWrites=true\"" % (url_pw(), rs(ANL, 5)))
    add("secret", "connection_string", "redis-cli -h cache.corp.internal -p 6380 --tls -a '%s' PING" % url_pw())
    # --- totp seeds and recovery codes
    add("secret", "totp_seed", "otpauth://totp/Acme%%20VPN:ops-shared?secret=%s&issuer=Acme%%20VPN&digits=6" % rs(B32, 32))
    add("secret", "totp_seed", "2FA-Einrichtungsschlüssel für das Buchhaltungskonto: %s" % " ".join(rs(B32, 4).lower() for _ in range(8)))
    add("secret", "recovery_codes", "Backup codes (admin console), keep offline:\n" + "\n".join("%s-%s" % (rs(ANL, 5), rs(ANL, 5)) for _ in range(8)))
    while True:  # 48 digits; no 13-19-digit group run may pass Luhn (keeps secret rows free of card-like numbers)
        bl = "-".join("%06d" % (11 * R.randint(0, 65535)) for _ in range(8))
        if not any(luhn_ok(d) for d in digit_runs(bl)):
            break
    add("secret", "recovery_codes", "BitLocker-Wiederherstellungsschlüssel Laptop IT-04: " + bl)

# ================================================================= credentials in URLs, headers, cookies
def transport_rows():
    q = [
        "GET /v2/forecast?lat=52.52&lon=13.40&units=metric&apikey=%s HTTP/1.1  (weather provider, paid plan key)" % rs(HEXL, 32),
        "webhook target: https://hooks.partner-crm.io/inbound?access_token=%s&source=shop" % rs(B64URL, 48),
        "nginx access log: 203.0.113.7 - - [12/Mar/2026:10:04:11 +0000] \"GET /api/export.csv?token=%s HTTP/1.1\" 200 48211" % rs(AN, 40),
        "https://acmeprodlogs.blob.core.windows.net/exports/q1.parquet?sv=2022-11-02&ss=b&srt=o&sp=rl&se=2026-12-31T00:00:00Z&sig=%s" % (rs(AN + "%", 44) + "%3D"),
        "https://acme-artifacts.s3.eu-central-1.amazonaws.com/builds/app-1.9.0.apk?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%s%%2F20260310%%2Feu-central-1%%2Fs3%%2Faws4_request&X-Amz-Date=20260310T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=%s" % (rs(B32, 16), rs(HEXL, 64)),
        "Grafana datasource URL: https://prometheus.corp.internal/api/v1/query?auth_token=%s" % rs(HEXL, 40),
        "JS error report: Failed to fetch https://api.acme-internal.net/v1/me?session_token=%s (CORS)" % rs(B64URL, 43),
        "redis://:%s@cache-01.corp.internal:6379/2?ssl_cert_reqs=required" % url_pw(),
        "Den Link nicht weitergeben, der enthält den Schlüssel: https://api.geo-tiles.eu/tiles/{z}/{x}/{y}.png?key=%s" % rs(AN, 28),
    ]
    for t in q:
        add("secret", "url_query_credential", t)
    ui = [
        "git remote -v\norigin  https://deploy-bot:%s@git.corp.internal/platform/infra.git (fetch)" % url_pw(),
        "pip install --index-url https://ci-reader:%s@nexus.corp.internal/repository/pypi-all/simple acme-core==4.2.0" % url_pw(),
        "export HTTPS_PROXY=http://svc-proxy:%s@proxy.corp.internal:3128" % url_pw(),
        "[Unit]\nDescription=nightly backup\n[Service]\nExecStart=/usr/bin/rclone sync /srv/data ftp://backup:%s@nas.corp.internal/data" % url_pw(),
        "Jenkins Git SCM: https://jenkins-ro:%s@bitbucket.corp.internal/scm/app/mobile.git" % url_pw(),
        "ELASTICSEARCH_HOSTS=https://elastic:%s@es-prod.corp.internal:9200" % url_pw(),
        "composer config repositories.private composer https://packagist-ro:%s@repo.corp.internal" % url_pw(),
        "докер-реестр: https://ci:%s@registry.corp.internal/v2/ (только чтение)" % url_pw(),
    ]
    for t in ui:
        add("secret", "url_userinfo_credential", t)
    bas = lambda: b64(("%s:%s" % (pick(["deploy", "svc-backup", "grafana", "ci-bot", "reporter"]), url_pw())).encode())
    hd = [
        "curl -H 'Authorization: Basic %s' https://registry.corp.internal/v2/_catalog" % bas(),
        "Request headers (copied from DevTools):\n:authority: api.acme-internal.net\naccept: application/json\nauthorization: Bearer %s\nuser-agent: Mozilla/5.0" % rs(B64URL, 64),
        "proxy_set_header Authorization \"Basic %s\";" % bas(),
        "X-API-Key: %s   <- key for the partner inventory API (prod)" % rs(AN, 40),
        "HTTP/1.1 request dump\nPOST /graphql HTTP/1.1\nHost: api.acme-internal.net\nAuthorization: Token %s\nContent-Type: application/json" % rs(HEXL, 40),
        "Postman environment export: " + json.dumps({"name": "prod", "values": [{"key": "base_url", "value": "https://api.acme-internal.net"}, {"key": "bearer", "value": rs(B64URL, 56), "type": "secret"}]}),
        "wget --header=\"Authorization: Bearer %s\" https://files.corp.internal/releases/latest.tar.gz" % rs(AN, 48),
        "httpie: http POST https://api.acme-internal.net/v1/jobs X-Auth-Token:%s name=reindex" % rs(HEXL, 48),
        "Laut Log schickt der Client 'Authorization: Basic %s' an den alten Endpunkt" % bas(),
    ]
    for t in hd:
        add("secret", "auth_header", t)
    ck = [
        "Cookie: sessionid=%s; csrftoken=%s" % (rs(ANL, 32), rs(AN, 64)),
        "Set-Cookie: __Host-session=%s; Path=/; Secure; HttpOnly; SameSite=Lax" % rs(B64URL, 43),
        "curl -b 'laravel_session=%s' https://admin.acme-internal.net/orders/export" % b64(json.dumps({"iv": b64(rbytes(16)), "value": b64(rbytes(48)), "mac": rs(HEXL, 64)}).encode()),
        "# Netscape HTTP Cookie File\n.acme-internal.net\tTRUE\t/\tTRUE\t1798761600\tremember_user_token\t%s--%s" % (b64(rbytes(60)), rs(HEXL, 40)),
        "HAR entry: " + json.dumps({"request": {"method": "GET", "url": "https://portal.acme-internal.net/dashboard", "cookies": [{"name": "JSESSIONID", "value": rs(HEXU, 32)}]}}),
        "wp admin still logged in: wordpress_logged_in_%s=editor%%7C1798761600%%7C%s%%7C%s" % (rs(HEXL, 32), rs(AN, 43), rs(HEXL, 64)),
        "Cookie: ASP.NET_SessionId=%s; .AspNetCore.Cookies=CfDJ8%s" % (rs(ANL, 24), rs(B64URL, 300)),
        "セッションCookie（管理画面）: PHPSESSID=%s" % rs(ANL, 26),
    ]
    for t in ck:
        add("secret", "session_cookie", t)

# ================================================================= split or wrapped secrets
def split_rows():
    t = tok_openai()
    a, b = t[:len(t) // 2], t[len(t) // 2:]
    add("secret", "split_wrapped", 'OPENAI_KEY = (\n    "%s"\n    "%s"\n)' % (a, b))
    t = crc_tok("ghp_")
    add("secret", "split_wrapped", "PAT in two messages because the chat cuts it:\n1/2: %s\n2/2: %s" % (t[:18], t[18:]))
    t = "sk_live_51" + rs(AN, 97)
    add("secret", "split_wrapped", "const key = '%s' +\n  '%s' +\n  '%s';" % (t[:40], t[40:80], t[80:]))
    t = "xoxb-%s-%s-%s" % (digits(12, True), no_luhn(13), rs(AN, 24))
    add("secret", "split_wrapped", "SLACK_TOKEN_PART1=%s\nSLACK_TOKEN_PART2=%s\n# app concatenates PART1+PART2" % (t[:25], t[25:]))
    t = "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43)
    add("secret", "split_wrapped", "Content-Transfer-Encoding: quoted-printable\n\nNew SendGrid key for the newsletter: %s=\n%s\n" % (t[:40], t[40:]))
    t = "sk-ant-api03-" + rs(B64URL, 93) + "AA"
    add("secret", "split_wrapped", "| env | key |\n|-----|-----|\n| prod | `%s` |\n| dev | (none) |" % t)
    pw = human_pw()
    add("secret", "split_wrapped", "password=%s (url-encoded in the DSN, decode before using)" % "".join("%%%02X" % ord(c) if not c.isalnum() else c for c in pw + "!"))
    t = "glpat-" + rs(B64URL, 20)
    add("secret", "split_wrapped", json.dumps({"token_chunks": [t[:9], t[9:18], t[18:]], "join": ""}))
    t = "hf_" + rs(UP + LO, 34)
    add("secret", "split_wrapped", "HF_TOKEN=\"\\\n%s\\\n%s\"" % (t[:20], t[20:]))
    kid, sec = aws_pair()
    add("secret", "split_wrapped", "aws creds base64'd so the linter stops complaining: %s" % b64(("%s:%s" % (kid, sec)).encode()))
    t = "dop_v1_" + rs(HEXL, 64)
    add("secret", "split_wrapped", "<pre>\n%s\n%s\n</pre>  (DigitalOcean token, wrapped by the wiki)" % (t[:36], t[36:]))
    t = rs(HEXL, 32)
    add("secret", "split_wrapped", "Datadog API key (written in groups so I can read it out): %s" % " ".join(t[i:i + 4] for i in range(0, 32, 4)))

# ================================================================= private keys in different containers
def der_len(n):
    if n < 128: return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b

def rsa_pkcs1_der():
    return bytes.fromhex("308204a4020100028201010000") + rbytes(1179)

def pkcs8_rsa_der():
    return bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100") + rbytes(1180)

def ec_sec1_der():
    return bytes.fromhex("30770201010420") + rbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(64)

def ed25519_pkcs8_der():
    return bytes.fromhex("302e020100300506032b657004220420") + rbytes(32)

def pem(label, der):
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, wrap(b64(der), 64), label)

def sshstr(b):
    return struct.pack(">I", len(b)) + b

def openssh_ed25519(comment):
    seed, pub = rbytes(32), rbytes(32)
    pubblob = sshstr(b"ssh-ed25519") + sshstr(pub)
    chk = rbytes(4)
    priv = chk + chk + sshstr(b"ssh-ed25519") + sshstr(pub) + sshstr(seed + pub) + sshstr(comment.encode())
    i = 1
    while len(priv) % 8:
        priv += bytes([i]); i += 1
    blob = b"openssh-key-v1\0" + sshstr(b"none") + sshstr(b"none") + sshstr(b"") + struct.pack(">I", 1) + sshstr(pubblob) + sshstr(priv)
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----" % wrap(b64(blob), 70)

def crc24(data):
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF

def pgp_secret():
    body = bytes.fromhex("9458") + b"\x04" + rbytes(4) + bytes.fromhex("16092b06010401da470f01010740") + rbytes(80)
    return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PRIVATE KEY BLOCK-----" % (wrap(b64(body), 64), b64(crc24(body).to_bytes(3, "big")))

def key_rows():
    add("secret", "private_key_pem", "$ cat deploy/certs/api.key\n" + pem("RSA PRIVATE KEY", rsa_pkcs1_der()))
    add("secret", "private_key_pem", "ssl_certificate_key の中身（本番）:\n" + pem("EC PRIVATE KEY", ec_sec1_der()))
    add("secret", "private_key_pem", "```\n" + pem("PRIVATE KEY", ed25519_pkcs8_der()) + "\n```\nsigning key for the release job")
    add("secret", "private_key_pem", pem("PRIVATE KEY", pkcs8_rsa_der()))
    pk = pem("PRIVATE KEY", pkcs8_rsa_der())
    add("secret", "private_key_escaped", json.dumps({"type": "service_account", "project_id": "acme-analytics-prod", "private_key_id": rs(HEXL, 40),
        "private_key": pk + "\n", "client_email": "etl-runner@acme-analytics-prod.iam.gserviceaccount.com", "client_id": digits(21, True)}, indent=2))
    add("secret", "private_key_escaped", "JWT_PRIVATE_KEY=\"%s\"" % pem("RSA PRIVATE KEY", rsa_pkcs1_der()).replace("\n", "\\n"))
    add("secret", "private_key_escaped", "terraform output -json | jq .tls_private_key\n\"%s\\n\"" % pem("EC PRIVATE KEY", ec_sec1_der()).replace("\n", "\\n"))
    add("secret", "private_key_base64", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ingress-tls\ntype: kubernetes.io/tls\ndata:\n  tls.crt: %s\n  tls.key: %s" % (
        b64(("-----BEGIN CERTIFICATE-----\n" + wrap(b64(rbytes(600))) + "\n-----END CERTIFICATE-----\n").encode()), b64((pem("PRIVATE KEY", pkcs8_rsa_der()) + "\n").encode())))
    add("secret", "private_key_base64", "SSH_KEY_B64=%s  # base64 of id_ed25519 for the GitLab runner" % b64((openssh_ed25519("gitlab-runner@build-07") + "\n").encode()))
    add("secret", "private_key_embedded", "signing:\n  key_id: release-2026\n  private_key: |\n" + "\n".join("    " + l for l in pem("EC PRIVATE KEY", ec_sec1_der()).split("\n")))
    add("secret", "private_key_embedded", 'resource "tls_self_signed_cert" "internal" {\n  private_key_pem = <<EOT\n%s\nEOT\n  validity_period_hours = 8760\n}' % pem("RSA PRIVATE KEY", rsa_pkcs1_der()))
    lines = pem("PRIVATE KEY", ed25519_pkcs8_der()).split("\n")
    add("secret", "private_key_embedded", "\n".join("%s [deploy] %s" % (ts(), l) for l in ["+ echo \"$SIGNING_KEY\""] + lines))
    add("secret", "openssh_private_key", "$ cat ~/.ssh/id_ed25519\n" + openssh_ed25519("ops@bastion-01"))
    add("secret", "openssh_private_key", "Ansible:\n  ansible_ssh_private_key: |\n" + "\n".join("    " + l for l in openssh_ed25519("ansible@ctl").split("\n")))
    pub, prv = b64(rbytes(279)), b64(rbytes(660))
    add("secret", "putty_private_key", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20260114\nPublic-Lines: %d\n%s\nPrivate-Lines: %d\n%s\nPrivate-MAC: %s" % (
        len(wrap(pub).split("\n")), wrap(pub), len(wrap(prv).split("\n")), wrap(prv), rs(HEXL, 40)))
    el = lambda n: b64(rbytes(n))
    add("secret", "xml_rsa_private_key", "<RSAKeyValue><Modulus>%s</Modulus><Exponent>AQAB</Exponent><P>%s</P><Q>%s</Q><DP>%s</DP><DQ>%s</DQ><InverseQ>%s</InverseQ><D>%s</D></RSAKeyValue>" % (
        el(256), el(128), el(128), el(128), el(128), el(128), el(256)))
    add("secret", "jwk_private_key", "OIDC_SIGNING_JWK='%s'" % json.dumps({"kty": "EC", "crv": "P-256", "kid": "sig-2026-01", "use": "sig",
        "x": b64u(rbytes(32)), "y": b64u(rbytes(32)), "d": b64u(rbytes(32))}, separators=(",", ":")))
    add("secret", "pgp_private_key", "gpg --export-secret-keys --armor release@acme-build.net\n" + pgp_secret())

# ================================================================= PII
def dob(y0=1950, y1=2004):
    return R.randint(y0, y1), R.randint(1, 12), R.randint(1, 28)

def luhn_complete(prefix, length):
    p = prefix + digits(length - len(prefix) - 1)
    return p + luhn_digit(p)

def make_kr_rrn():
    y, m, d = dob(1950, 1999)
    body = "%02d%02d%02d%d%s" % (y % 100, m, d, pick([1, 2]), digits(5))
    c = (11 - wsum(body, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]) % 11) % 10
    return body[:6] + "-" + body[6:] + str(c)

def make_tr():
    d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(8)]
    d.append(((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10)
    d.append(sum(d) % 10)
    return "".join(map(str, d))

def make_no():
    while True:
        y, m, d = dob(1955, 1999)
        b = "%02d%02d%02d%s" % (d, m, y % 100, digits(3))
        k1 = _no_k(b, [3, 7, 6, 1, 8, 9, 4, 5, 2])
        if k1 == 10: continue
        k2 = _no_k(b + str(k1), [5, 4, 3, 2, 7, 6, 5, 4, 3, 2])
        if k2 == 10: continue
        return b + str(k1) + str(k2)

def make_rut():
    body = str(R.randint(8_000_000, 24_999_999))
    return "%s.%s.%s-%s" % (body[:-6], body[-6:-3], body[-3:], rut_dv(body))

def make_cuil():
    while True:
        b = pick(["20", "27"]) + digits(8, True)
        c = 11 - wsum(b, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11
        c = 0 if c == 11 else c
        if c != 10:
            return "%s-%s-%d" % (b[:2], b[2:], c)

def make_curp():
    y, m, d = dob(1960, 1999)
    cons = "BCDFGHJKLMNPQRSTVWXYZ"
    s = pick("GMRSLHP") + pick("AEIOU") + pick("GMRSLHP") + pick("AJMLRC") + "%02d%02d%02d" % (y % 100, m, d) + pick("HM") + \
        pick(["DF", "JC", "NL", "PL", "VZ", "YN", "GT"]) + rs(cons, 3) + pick(DIG)
    return s + curp_dv(s)

def make_ilz():
    return luhn_complete(pick("0123"), 9)

def make_za():
    y, m, d = dob(1960, 2001)
    return luhn_complete("%02d%02d%02d%s%d8" % (y % 100, m, d, digits(4), 0), 13)

def make_pt_nif():
    b = pick("123") + digits(7)
    c = 11 - wsum(b, [9, 8, 7, 6, 5, 4, 3, 2]) % 11
    return b + str(0 if c >= 10 else c)

def make_ro():
    y, m, d = dob(1950, 1999)
    b = "%d%02d%02d%02d%02d%s" % (pick([1, 2]), y % 100, m, d, R.randint(1, 46), digits(3))
    c = wsum(b, [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9]) % 11
    return b + str(1 if c == 10 else c)

def make_bg():
    y, m, d = dob(1950, 1999)
    b = "%02d%02d%02d%s" % (y % 100, m, d, digits(3))
    c = wsum(b, [2, 4, 8, 5, 10, 9, 7, 3, 6]) % 11
    return b + str(0 if c == 10 else c)

def make_cz():
    while True:
        y, m, d = dob(1955, 1999)
        b = "%02d%02d%02d%s" % (y % 100, m + pick([0, 50]), d, digits(3))
        c = int(b) % 11
        if c != 10:
            c = (11 - c) % 11
            s = b + str(c) if c < 10 else None
            if s and int(s) % 11 == 0:
                return s[:6] + "/" + s[6:]

def make_amka():
    y, m, d = dob(1950, 2000)
    return luhn_complete("%02d%02d%02d" % (d, m, y % 100), 11)

def make_nric():
    p = pick("ST")
    ds = digits(7)
    w = wsum(ds, [2, 7, 6, 5, 4, 3, 2]) + (4 if p == "T" else 0)
    return p + ds + "JZIHGFEDCBA"[w % 11]

def make_hkid():
    p, six = pick(UP.replace("I", "").replace("O", "")), digits(6)
    return "%s%s(%s)" % (p, six, hkid_check(p, six))

def make_tw():
    L = pick("ABCDEFGHJKLMNPQRSTUVXYWZ")
    while True:
        s = L + pick("12") + digits(7)
        for c in DIG:
            if ok_tw_id(s + c):
                return s + c

def make_ee():
    y, m, d = dob(1950, 1999)
    b = "%d%02d%02d%02d%s" % (pick([3, 4]), y % 100, m, d, digits(3))
    c = wsum(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 1]) % 11
    if c == 10:
        c = wsum(b, [3, 4, 5, 6, 7, 8, 9, 1, 2, 3]) % 11
        c = 0 if c == 10 else c
    return b + str(c)

def make_oib():
    b = digits(10, True)
    return b + str(mod11_710(b))

def make_stid():
    while True:
        ds = R.sample(DIG, 9)
        rep = pick(ds)
        lst = ds + [rep]
        R.shuffle(lst)
        if lst[0] != "0":
            b = "".join(lst)
            return b + str(mod11_710(b))

def make_kt():
    while True:
        y, m, d = dob(1950, 1999)
        b = "%02d%02d%02d%s" % (d, m, y % 100, digits(2, True))
        r = 11 - wsum(b, [3, 2, 7, 6, 5, 4, 3, 2]) % 11
        r = 0 if r == 11 else r
        if r != 10:
            return b[:6] + "-" + b[6:] + str(r) + "9"

def make_ppsn():
    b = digits(7)
    return b + "WABCDEFGHIJKLMNOPQRSTUV"[wsum(b, [8, 7, 6, 5, 4, 3, 2]) % 23]

def make_svnr():
    while True:
        y, m, d = dob(1950, 1999)
        n, dd = digits(3, True), "%02d%02d%02d" % (d, m, y % 100)
        c = (wsum(n, [3, 7, 9]) + wsum(dd, [5, 8, 4, 2, 1, 6])) % 11
        if c != 10:
            return "%s%d %s" % (n, c, dd)

def make_cpr():
    while True:
        y, m, d = dob(1950, 1999)
        b = "%02d%02d%02d%s" % (d, m, y % 100, digits(3))
        for c in DIG:
            if wsum(b + c, [4, 3, 2, 7, 6, 5, 4, 3, 2, 1]) % 11 == 0:
                return b[:6] + "-" + b[6:] + c

def make_th():
    b = pick("1358") + digits(11)
    c = (11 - wsum(b, range(13, 1, -1)) % 11) % 10
    s = b + str(c)
    return "%s-%s-%s-%s-%s" % (s[0], s[1:5], s[5:10], s[10:12], s[12])

def make_sa():
    return luhn_complete(pick("12"), 10)

def make_nhs():
    while True:
        b = digits(9, True)
        c = 11 - wsum(b, range(10, 1, -1)) % 11
        c = 0 if c == 11 else c
        if c != 10:
            s = b + str(c)
            return "%s %s %s" % (s[:3], s[3:6], s[6:])

def make_medicare():
    b = pick("23456") + digits(7)
    c = wsum(b, [1, 3, 7, 9, 1, 3, 7, 9]) % 10
    s = b + str(c) + pick("123")
    return "%s %s %s" % (s[:4], s[4:9], s[9])

def make_ohip():
    s = luhn_complete(pick("123456789"), 10)
    return "%s-%s-%s-%s" % (s[:4], s[4:7], s[7:], rs(UP, 2))

def make_kvnr():
    L, e = pick(UP), digits(8)
    return L + e + kvnr_check(L, e)

def make_nir():
    y, m, _ = dob(1950, 1999)
    b = "%d%02d%02d%02d%03d%03d" % (pick([1, 2]), y % 100, m, R.randint(1, 95), R.randint(1, 990), R.randint(1, 999))
    k = 97 - int(b) % 97
    return "%s %s %s %s %s %s %02d" % (b[0], b[1:3], b[3:5], b[5:7], b[7:10], b[10:13], k)

def make_mbi():
    L = "ACDEFGHJKMNPQRTUVWXY"
    s = pick("123456789") + pick(L) + pick(L + DIG) + pick(DIG) + pick(L) + pick(L + DIG) + pick(DIG) + pick(L) + pick(L) + digits(2)
    return "%s-%s-%s" % (s[:4], s[4:7], s[7:])

def make_mrz(cc, sur, given, sex):
    doc = rs(ANU, 9)
    y, m, d = dob(1960, 2000)
    b = "%02d%02d%02d" % (y % 100, m, d)
    e = "%02d%02d%02d" % (R.randint(27, 35), R.randint(1, 12), R.randint(1, 28))
    pn = "<" * 14
    l2 = doc + mrz_cd(doc) + cc + b + mrz_cd(b) + sex + e + mrz_cd(e) + pn + mrz_cd(pn)
    comp = l2[0:10] + l2[13:20] + l2[21:43]
    l2 += mrz_cd(comp)
    l1 = ("P<" + cc + sur + "<<" + given.replace(" ", "<")).ljust(44, "<")[:44]
    return l1, l2

CARD_BRANDS = [("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15), ("6011", 16), ("3530", 16), ("62", 16), ("6759", 19)]
def make_card(prefix, length):
    while True:
        c = luhn_complete(prefix + digits(2), length)
        if not c.startswith(("4242", "4111", "5555", "4000", "3782", "6011111")):
            return c

IBAN_SPEC = {  # cc: BBAN generator (shape per ISO 13616 registry)
    "NO": lambda: digits(11), "DK": lambda: digits(14), "CZ": lambda: digits(20), "HU": lambda: digits(24),
    "RO": lambda: rs(UP, 4) + rs(ANU, 16), "GR": lambda: digits(7) + rs(ANU, 16), "TR": lambda: digits(5) + "0" + rs(ANU, 16),
    "SA": lambda: digits(2) + rs(ANU, 18), "AE": lambda: digits(19), "IL": lambda: digits(19), "BR": lambda: digits(23) + pick("CP") + pick(ANU),
    "HR": lambda: digits(17), "UA": lambda: digits(6) + digits(19), "LT": lambda: digits(16), "SK": lambda: digits(20), "QA": lambda: rs(UP, 4) + rs(ANU, 21),
}

def fmt_phone_digits(s):
    return s

PHONES = [  # (country, generator) -> national-format personal mobile numbers
    ("de", lambda: pick(["0%s %s" % (pick(["151", "152", "157", "160", "162", "176"]), digits(8)), "0%s %s" % (pick(["170", "171", "172", "175"]), digits(7))])),
    ("ch", lambda: "0%s %s %s %s" % (pick(["76", "77", "78", "79"]), digits(3), digits(2), digits(2))),
    ("fr", lambda: "0%s %s %s %s %s" % (pick("67"), digits(2), digits(2), digits(2), digits(2))),
    ("nl", lambda: "06-%s" % digits(8, True)),
    ("uk", lambda: "07%s %s" % (pick(["4", "5", "8", "9"]) + digits(2), digits(6))),
    ("es", lambda: "%s%s %s %s %s" % (pick("67"), digits(2), digits(2), digits(2), digits(2))),
    ("it", lambda: "3%s %s %s" % (digits(2), digits(3), digits(4))),
    ("pt", lambda: "9%s %s %s" % (pick("1236") + digits(1), digits(3), digits(3))),
    ("pl", lambda: "%s%s %s %s" % (pick("5678"), digits(2), digits(3), digits(3))),
    ("se", lambda: "07%s-%s %s %s" % (pick("0236"), digits(3), digits(2), digits(2))),
    ("cz", lambda: "%s%s %s %s" % (pick("67"), digits(2), digits(3), digits(3))),
    ("tr", lambda: "05%s %s %s %s" % (pick(["32", "33", "35", "42", "44", "53", "55"]), digits(3), digits(2), digits(2))),
    ("ru", lambda: "8 (9%s) %s-%s-%s" % (digits(2), digits(3), digits(2), digits(2))),
    ("ua", lambda: "0%s %s %s %s" % (pick(["50", "63", "66", "67", "68", "73", "93", "95", "97"]), digits(3), digits(2), digits(2))),
    ("gr", lambda: "69%s %s %s" % (pick("3479"), digits(3), digits(4))),
    ("us", lambda: "(%s) %s-%s" % (pick(["415", "206", "312", "617", "512", "303"]), pick("2346789") + digits(2), digits(4))),
    ("br", lambda: "(%s) 9%s-%s" % (pick(["11", "21", "31", "41", "51"]), digits(4), digits(4))),
    ("jp", lambda: "0%s0-%s-%s" % (pick("789"), digits(4), digits(4))),
    ("kr", lambda: "010-%s-%s" % (digits(4), digits(4))),
    ("cn", lambda: "1%s %s %s" % (pick(["38", "39", "58", "86", "88"]) , digits(4), digits(4))),
    ("in", lambda: "%s%s %s" % (pick("6789"), digits(4), digits(5))),
    ("au", lambda: "04%s %s %s" % (pick(["12", "13", "22", "38", "57", "66"]), digits(3), digits(3))),
    ("za", lambda: "0%s %s %s" % (pick(["72", "73", "76", "82", "83", "84"]), digits(3), digits(4))),
    ("il", lambda: "05%s-%s-%s" % (pick("02348"), digits(3), digits(4))),
    ("sa", lambda: "05%s %s %s" % (pick("0345"), digits(3), digits(4))),
]
PHONE_TPL = {
    "de": "Handynummer von Frau Krüger (privat): {v}", "at": "Ruf mich am besten am Handy an: {v}",
    "ch": "Meine Natelnummer ist {v}", "fr": "Mon portable perso : {v}", "be": "Mijn gsm-nummer is {v}",
    "nl": "Mijn mobiele nummer is {v}, bel gerust na zes uur", "uk": "my mobile is {v} if the landlord asks",
    "ie": "Text me on {v} when you land", "es": "Mi móvil es el {v}", "it": "Il mio cellulare: {v}",
    "pt": "O meu telemóvel é {v}", "pl": "Mój numer komórki to {v}", "se": "Mitt mobilnummer är {v}",
    "no": "Mobilnummeret mitt er {v}", "cz": "Moje číslo na mobil je {v}", "tr": "Cep telefonum: {v}",
    "ru": "Мой мобильный: {v}", "ua": "Мій номер телефону: {v}", "gr": "Το κινητό μου είναι {v}",
    "us": "Call my cell at {v} after 5pm", "br": "Meu celular é {v}, pode chamar no WhatsApp",
    "mx": "Mi celular es {v}", "jp": "私の携帯番号は {v} です", "kr": "제 휴대폰 번호는 {v} 입니다",
    "cn": "我的手机号是 {v}", "in": "Mera mobile number {v} hai, WhatsApp bhi isi pe", "au": "my mobile's {v}, ring anytime",
    "za": "My cell number is {v}", "il": "המספר הנייד שלי הוא {v}", "sa": "رقم جوالي الشخصي {v}",
}

NAT_ID = [  # family, maker, check kind, template
    ("kr_rrn", make_kr_rrn, "kr_rrn", "주민등록번호: {v} (보험 가입용으로 기억해 둬)"),
    ("kr_rrn", make_kr_rrn, "kr_rrn", "my Korean resident registration number is {v}"),
    ("tr_tckn", make_tr, "tr_tckn", "TC kimlik numaram {v}, kargo formu için lazım"),
    ("tr_tckn", make_tr, "tr_tckn", "Hasta kaydı — T.C. Kimlik No: {v}"),
    ("no_fodselsnummer", make_no, "no_fnr", "Fødselsnummeret mitt er {v}"),
    ("cl_rut", make_rut, "cl_rut", "Mi RUT es {v}, lo piden para la boleta"),
    ("ar_cuil", make_cuil, "ar_cuil", "CUIL del empleado nuevo: {v}"),
    ("mx_curp", make_curp, "mx_curp", "Mi CURP es {v}"),
    ("il_teudat_zehut", make_ilz, "il_tz", "מספר תעודת הזהות שלי: {v}"),
    ("za_id_number", make_za, "za_id", "My SA ID number is {v}, needed for the FICA form"),
    ("pt_nif", make_pt_nif, "pt_nif", "O meu NIF é {v}, mete na fatura por favor"),
    ("ro_cnp", make_ro, "ro_cnp", "CNP-ul meu este {v}"),
    ("bg_egn", make_bg, "bg_egn", "ЕГН: {v} (за договора с банката)"),
    ("cz_rodne_cislo", make_cz, "cz_rc", "Moje rodné číslo je {v}"),
    ("gr_amka", make_amka, "gr_amka", "Ο ΑΜΚΑ μου είναι {v}"),
    ("sg_nric", make_nric, "sg_nric", "NRIC for the tenancy form: {v}"),
    ("hk_hkid", make_hkid, "hkid", "我的香港身份證號碼係 {v}"),
    ("tw_national_id", make_tw, "tw_id", "我的身分證字號是 {v}"),
    ("ee_isikukood", make_ee, "ee_ik", "Minu isikukood on {v}"),
    ("hr_oib", make_oib, "hr_oib", "Moj OIB je {v}"),
    ("de_steuer_id", make_stid, "de_stid", "Meine Steuer-ID (steuerliche Identifikationsnummer) lautet {v}"),
    ("is_kennitala", make_kt, "is_kt", "Kennitalan mín er {v}"),
    ("ie_ppsn", make_ppsn, "ie_ppsn", "my PPS number is {v}, for the Revenue form"),
    ("at_svnr", make_svnr, "at_svnr", "Sozialversicherungsnummer (e-card): {v}"),
    ("dk_cpr", make_cpr, "dk_cpr", "Mit CPR-nummer er {v}"),
    ("th_national_id", make_th, "th_id", "เลขบัตรประชาชนของฉันคือ {v}"),
    ("sa_national_id", make_sa, "sa_nid", "رقم الهوية الوطنية الخاص بي هو {v}"),
    ("es_dni", lambda: (lambda n: n + "TRWAGMYFPDXBNJZSQVHLCKE"[int(n) % 23])(digits(8, True)), "es_dni", "DNI del inquilino: {v}"),
]

HEALTH = [
    ("uk_nhs_number", make_nhs, "uk_nhs", "My NHS number is {v}, the GP surgery asked for it"),
    ("uk_nhs_number", make_nhs, "uk_nhs", "Patient: NHS no. {v}, referral to cardiology"),
    ("au_medicare", make_medicare, "au_medicare", "Medicare card number {v} (for the physio booking)"),
    ("ca_health_card", make_ohip, "ca_ohip", "Ontario health card: {v}"),
    ("de_kvnr", make_kvnr, "de_kvnr", "Krankenversichertennummer meiner Tochter: {v}"),
    ("fr_nir", make_nir, "fr_nir", "Numéro de sécurité sociale (carte Vitale) : {v}"),
    ("us_medicare_mbi", make_mbi, None, "Medicare Beneficiary Identifier for Dad: {v}"),
    ("health_record", lambda: "MRN %s" % digits(8, True), None, "Hospital wristband says {v}, allergic to penicillin"),
]

FIRST = ["Lena", "Jonas", "Camille", "Mateo", "Giulia", "Bram", "Zofia", "Astrid", "Emre", "Olga", "Yuki", "Wei", "Min-jun",
         "Priya", "Noa", "Lucía", "Tomás", "Ingrid", "Dimitra", "Aoife"]
LAST = ["Krüger", "Lindqvist", "Moreau", "Ferreira", "Bianchi", "de Vries", "Kowalczyk", "Haugen", "Yılmaz", "Sokolova",
        "Tanaka", "Zhang", "Park", "Sharma", "Levi", "Navarro", "Costa", "Berg", "Papadopoulou", "Murphy"]

ADDR = [
    "Meine Adresse: Lindenstraße %d, %s Leipzig" % (R.randint(1, 120), digits(5, True)),
    "Home address for the courier: Flat %d, %d Wellington Road, Sheffield S%d %d%s" % (R.randint(1, 30), R.randint(2, 200), R.randint(1, 20), R.randint(1, 9), rs("ABDEFGHJLNPQRSTUWXYZ", 2)),
    "j'habite au %d rue des Tilleuls, %s Nantes" % (R.randint(1, 90), "44%03d" % R.randint(0, 300)),
    "Vivo en Calle de la Alameda %d, %dº %s, 280%02d Madrid" % (R.randint(1, 80), R.randint(1, 8), pick("ABCD"), R.randint(1, 55)),
    "Il mio indirizzo di casa è Via dei Mille %d, 20%03d Milano" % (R.randint(1, 150), R.randint(100, 162)),
    "Woonadres: Keizersgracht-zijstraat? nee, Populierstraat %d, %d %s Utrecht" % (R.randint(1, 200), R.randint(3500, 3585), rs("ABCDEGHJKLMNPRSTVWXZ", 2)),
    "Mój adres domowy: ul. Kwiatowa %d/%d, %02d-%03d Kraków" % (R.randint(1, 90), R.randint(1, 40), 30 + R.randint(0, 9), R.randint(0, 999)),
    "私の住所は〒%03d-%04d 東京都世田谷区桜丘%d丁目%d-%dです" % (R.randint(150, 159), R.randint(0, 9999), R.randint(1, 5), R.randint(1, 30), R.randint(1, 20)),
    "我家地址：上海市徐汇区漕溪北路%d弄%d号%d室" % (R.randint(10, 600), R.randint(1, 40), R.randint(101, 2405)),
    "우리 집 주소는 서울특별시 마포구 월드컵로%d길 %d, %d동 %d호야" % (R.randint(1, 40), R.randint(1, 90), R.randint(101, 115), R.randint(101, 1503)),
    "Мой домашний адрес: г. Казань, ул. Баумана, д. %d, кв. %d" % (R.randint(1, 80), R.randint(1, 200)),
    "I live at %d Maple Grove Ave, Apt %d, Columbus, OH 432%02d" % (R.randint(100, 9999), R.randint(1, 40), R.randint(1, 40)),
    "Endereço residencial: Rua das Acácias, %d, apto %d, São Paulo - SP, 0%d-%03d" % (R.randint(10, 2000), R.randint(11, 190), R.randint(1000, 5999), R.randint(0, 999)),
    "Ev adresim: Bağdat Caddesi No:%d D:%d, Kadıköy/İstanbul" % (R.randint(1, 400), R.randint(1, 30)),
]

DOB_TPL = [
    "my date of birth is %(d)02d/%(m)02d/%(y)d (UK format) for the insurance quote",
    "Geburtsdatum: %(d)02d.%(m)02d.%(y)d",
    "Date de naissance : %(d)d %(mfr)s %(y)d",
    "Fecha de nacimiento: %(d)02d/%(m)02d/%(y)d",
    "DOB %(m)02d/%(d)02d/%(y)d, in case the pharmacy asks",
    "生年月日：%(y)d年%(m)d月%(d)d日",
    "出生日期：%(y)d年%(m)d月%(d)d日",
    "생년월일: %(y)d.%(m)02d.%(d)02d",
    "Дата рождения: %(d)02d.%(m)02d.%(y)d",
    "Doğum tarihim %(d)02d.%(m)02d.%(y)d",
    "Data di nascita %(d)02d/%(m)02d/%(y)d",
    "תאריך הלידה שלי %(d)02d/%(m)02d/%(y)d",
]
MFR = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split()

EMAIL_DOM = ["gmail.com", "outlook.com", "web.de", "gmx.at", "orange.fr", "libero.it", "wp.pl", "seznam.cz", "naver.com",
             "qq.com", "yandex.ru", "yahoo.co.jp", "icloud.com", "hotmail.es", "proton.me"]

def pii_rows():
    for fam, mk, kind, tpl in NAT_ID:
        v = mk()
        add("pii", fam, tpl.format(v=v), [(kind, v)])
    for fam, mk, kind, tpl in HEALTH:
        v = mk()
        add("pii", fam, tpl.format(v=v), [(kind, v)] if kind else [])
    # IBANs
    langs = {"NO": "Kontonummer/IBAN for lønn: {v}", "DK": "Min IBAN er {v}", "CZ": "Číslo účtu (IBAN): {v}",
             "HU": "A bankszámlaszámom IBAN formátumban: {v}", "RO": "IBAN-ul meu personal: {v}", "GR": "Ο IBAN μου: {v}",
             "TR": "Maaş hesabımın IBAN'ı {v}", "SA": "رقم الآيبان الخاص بي {v}", "AE": "my salary account IBAN is {v}",
             "IL": "מספר IBAN של החשבון שלי {v}", "BR": "IBAN da minha conta (para transferência do exterior): {v}",
             "HR": "IBAN za povrat novca: {v}", "UA": "Мій IBAN для переказу: {v}", "LT": "Mano sąskaitos IBAN: {v}",
             "SK": "Môj IBAN je {v}", "QA": "Rent refund should go to my IBAN {v}"}
    for cc, tpl in langs.items():
        i = iban_make(cc, IBAN_SPEC[cc]())
        v = iban_print(i) if R.random() < .6 else i
        add("pii", "iban", tpl.format(v=v), [("iban", i)])
    # cards
    ctpl = ["Meine Kreditkarte: {v}, gültig bis {e}", "card on file for the hotel: {v} exp {e}", "カード番号 {v} 有効期限 {e}",
            "número da cartão {v} validade {e}", "Numer karty: {v}", "信用卡号 {v}，有效期 {e}", "Kart numaram {v} son kullanma {e}",
            "Номер карты {v}, срок {e}"]
    for i, (pfx, ln) in enumerate(CARD_BRANDS[:len(ctpl)]):
        c = make_card(pfx, ln)
        v = " ".join(c[k:k + 4] for k in range(0, len(c), 4)) if R.random() < .6 else c
        add("pii", "payment_card", ctpl[i].format(v=v, e="%02d/%02d" % (R.randint(1, 12), R.randint(27, 31))), [("luhn", c)])
    # phones in national formats
    for cc, mk in PHONES:
        add("pii", "phone_national", PHONE_TPL[cc].format(v=mk()))
    # phone numbers dictated (voice transcription style)
    add("pii", "phone_spoken", "my number is oh seven nine %s, that's my mobile" % spell(digits(8), "en"))
    add("pii", "phone_spoken", "meine Handynummer ist null eins sieben sechs %s" % spell(digits(8), "de"))
    add("pii", "phone_spoken", "mon portable c'est zéro six %s" % " ".join(pick(["douze", "trente-quatre", "cinquante-six", "soixante-dix-huit", "vingt-et-un", "quarante-trois", "quatre-vingt-dix", "dix-sept"]) for _ in range(4)))
    add("pii", "phone_spoken", "call me on four one five %s" % spell(pick("2346789") + digits(6), "en"))
    # personal e-mail
    for i in range(8):
        f, l = pick(FIRST), pick(LAST)
        norm = lambda x: re.sub(r"[^a-z]", "", x.lower().replace("ü", "ue").replace("ı", "i").replace("í", "i").replace("á", "a"))
        loc = norm(f) + pick([".", "_", ""]) + norm(l) + pick(["", digits(2), str(R.randint(1970, 2004))])
        add("pii", "personal_email", pick(["my private email is {e}", "Private Mail: {e}", "mon adresse perso : {e}", "私用メール: {e}",
                                           "pode mandar para {e}", "Prywatny e-mail: {e}", "email cá nhân của mình là {e}", "ईमेल: {e}"]).format(e="%s@%s" % (loc, pick(EMAIL_DOM))))
    for a in ADDR:
        add("pii", "home_address", a.replace("Keizersgracht-zijstraat? nee, ", ""))
    for t in R.sample(DOB_TPL, 10):
        y, m, d = dob()
        add("pii", "date_of_birth", t % {"y": y, "m": m, "d": d, "mfr": MFR[m - 1]})
    # passports stated as such, one full MRZ
    pp = [("Passport no. (Canada) %s%s" % (rs(UP, 2), digits(6)), "passport_number"),
          ("भारतीय पासपोर्ट नंबर: %s%s" % (pick("JKLMNPRSTUVWZ"), digits(7, True)), "passport_number"),
          ("여권번호 M%s%s" % (digits(3), rs(UP, 1) + digits(4)), "passport_number"),
          ("Número do passaporte: %s%s" % (rs(UP, 2), digits(6)), "passport_number"),
          ("Reisepassnummer: C%s" % rs("CFGHJKLMNPRTVWXYZ0123456789", 8), "passport_number")]
    for t, fam in pp:
        add("pii", fam, t)
    l1, l2 = make_mrz("AUS", "NGUYEN", "THI MAI", "F")
    add("pii", "passport_mrz", "scan of the passport page, bottom lines:\n%s\n%s" % (l1, l2), [("mrz", l2)])
    # driving licence numbers stated as such
    sur = "BERGS"
    y, m, d = dob(1960, 1999)
    uk_dl = "%s%d%02d%02d%d%s%s%s" % (sur[:5], y // 10 % 10, m + pick([0, 50]), d, y % 10, "LK", "9", rs(ANU, 2))
    add("pii", "driving_licence", "UK driving licence number: %s" % uk_dl[:16])
    add("pii", "driving_licence", "Führerscheinnummer: B%s%s" % (digits(2), rs(ANU, 8)))
    add("pii", "driving_licence", "California DL# %s%s, for the rental form" % (pick(UP), digits(7)))

# ================================================================= benign hard negatives
def no_luhn(n, first_nonzero=True):
    while True:
        s = digits(n, first_nonzero)
        if not luhn_ok(s):
            return s

def ssh_ed25519_pub(comment):
    return "ssh-ed25519 " + b64(sshstr(b"ssh-ed25519") + sshstr(rbytes(32))) + " " + comment

def benign_rows():
    B = lambda fam, t: add("benign", fam, t)
    talk = [
        "Reminder: rotate the Stripe secret key before the audit on Friday, and update it in Vault, not in the repo.",
        "The GitHub token expired again, that's why the nightly build failed. I'll ask IT for a new one.",
        "Ich habe mein Passwort gestern zurückgesetzt, das neue steht im Passwortmanager.",
        "Les tokens Slack commencent par xoxb- pour les bots et xoxp- pour les utilisateurs, bon à savoir pour le scanner.",
        "La contraseña del wifi la tiene Marta, pregúntale a ella, no la pongas en el chat.",
        "Policy: passwords must be at least 14 characters, no reuse of the last 5, MFA mandatory for admins.",
        "パスワードを忘れたので、明日ITにリセットをお願いする。",
        "API 密钥不要写进代码里，统一放到 KMS 里管理。",
        "비밀번호는 다음 주에 변경 예정입니다. 새 비밀번호는 공유하지 마세요.",
        "Пароль от сервера поменяли, новый спросишь у дежурного админа лично.",
        "كلمة المرور الجديدة ستصلك في رسالة منفصلة، لا ترسلها عبر البريد.",
        "הטוקן של ה-CI פג תוקף, צריך לבקש חדש מהצוות של הפלטפורמה.",
        "Ο κωδικός του Wi-Fi είναι γραμμένος στο ρούτερ, δεν τον στέλνω εδώ.",
        "bhai password mat bhejna WhatsApp pe, 1Password share link bhej dena.",
        "Wachtwoorden nooit in Jira zetten; gebruik de gedeelde kluis van het team.",
        "PIN kartu ATM jangan pernah dicatat di ponsel — the bank says the new card's PIN arrives by post.",
        "Yeni şifre kuralları: en az 12 karakter, büyük harf ve sembol zorunlu.",
        "Der API-Key für OpenAI läuft über das Team-Konto; jeder bekommt einen eigenen Projektschlüssel.",
        "Note to self: the AWS access keys for the old account were deactivated on 3 March, nothing to migrate.",
        "We use short-lived OIDC tokens in GitHub Actions now, so there is no long-lived cloud key anywhere.",
        "पासवर्ड बदलने का लिंक ईमेल पर आया है, कल बदल दूँगा।",
    ]
    for t in talk:
        B("talk_about_secret", t)
    ph = [
        "export OPENAI_API_KEY=sk-proj-...your-key-here...",
        "STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
        "curl -H \"Authorization: Bearer <YOUR_TOKEN>\" https://api.example.com/v1/items",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "DATABASE_URL=postgres://<user>:<password>@<host>:5432/<db>",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "password: \"<set-me-in-vault>\"",
        "ANTHROPIC_API_KEY=your-anthropic-key",
        "slack_webhook: https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
        "-----BEGIN PRIVATE KEY-----\n<paste the key from the vault here>\n-----END PRIVATE KEY-----",
        "Setze TELEGRAM_BOT_TOKEN auf den Wert von @BotFather (Format 123456:ABC-DEF...).",
        "api_key = \"REPLACE_ME\"  # TODO: read from env",
    ]
    for t in ph:
        B("placeholder", t)
    red = [
        "Authorization: Bearer [REDACTED]",
        "2026-03-04T10:22:11Z  + docker login -u acmebuild -p *** registry.corp.internal",
        "sk_live_••••••••••••••••••••4f2a (shown in the dashboard, last 4 only)",
        "password=******** user=billing_app host=db-prod",
        "glpat-<redacted by scanner>",
        "IBAN: DE** **** **** **** **34 12 (masked on the invoice)",
        "card ending in 4821, expires 09/28",
        "Token: hf_****************************Qx",
    ]
    for t in red:
        B("redacted", t)
    refs = [
        "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "password: !Ref DbPassword",
        "\"MasterUserPassword\": \"{{resolve:secretsmanager:prod/rds/admin:SecretString:password}}\"",
        "token = var.cloudflare_api_token",
        "api_key = os.environ[\"MISTRAL_API_KEY\"]",
        "stripe.api_key = ENV.fetch(\"STRIPE_SECRET_KEY\")",
        "DATABASE_URL=%env(resolve:DATABASE_URL)%",
        "- name: AZURE_CLIENT_SECRET\n  value: $(AZURE_CLIENT_SECRET)",
        "OP_REF=op://Platform/Datadog/api-key",
        "env:\n  - name: REDIS_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: redis\n        key: password",
        "withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN')]) { sh 'mvn sonar:sonar' }",
        "token: \"{{ .Values.grafana.adminToken }}\"",
    ]
    for t in refs:
        B("variable_reference", t)
    for i in range(6):
        sha = rs(HEXL, 40)
        B("commit_sha", pick(["fixed in commit %s" % sha, "git cherry-pick %s" % sha[:12], "Merge pull request #%d from acme/feature-x (%s)" % (R.randint(100, 9000), sha[:7]),
                              "git revert %s --no-edit" % sha, "deployed build from %s to staging" % sha[:10], "bisect says the first bad commit is %s" % sha]))
    for i in range(6):
        B("uuid", pick(["tenant_id: %s", "Workspace %s was archived.", "\"correlationId\": \"%s\"", "Azure subscription %s (non-prod)",
                        "job %s finished in 41s", "Idempotency-Key: %s"]) % uuid4())
    rq = [
        "traceparent: 00-%s-%s-01" % (rs(HEXL, 32), rs(HEXL, 16)),
        "X-Amzn-Trace-Id: Root=1-%s-%s" % (rs(HEXL, 8), rs(HEXL, 24)),
        "cf-ray: %s-FRA" % rs(HEXL, 16),
        "Stripe request id req_%s, event evt_%s" % (rs(AN, 14), rs(AN, 24)),
        "x-request-id: %s" % uuid4(),
        "X-Cloud-Trace-Context: %s/%s;o=1" % (rs(HEXL, 32), no_luhn(19)),
        "Sentry event %s grouped under ISSUE-%d" % (rs(HEXL, 32), R.randint(1000, 99999)),
        "x-ms-request-id: %s, x-ms-correlation-request-id: %s" % (uuid4(), uuid4()),
    ]
    for t in rq:
        B("request_id", t)
    hs = [
        "%s  ubuntu-24.04-live-server-amd64.iso" % rs(HEXL, 64),
        "sha256:%s" % rs(HEXL, 64),
        "MD5 (backup.tar.gz) = %s" % rs(HEXL, 32),
        "integrity \"sha512-%s\"" % b64(rbytes(64)),
        "SHA1 fingerprint of the release artifact: %s" % ":".join(rs(HEXU, 2) for _ in range(20)),
        "ETag: \"%s\"" % rs(HEXL, 32),
    ]
    for t in hs:
        B("content_hash", t)
    b6 = [
        "next_cursor: %s" % b64(json.dumps({"page": R.randint(2, 40), "limit": 50, "sort": "created_at"}).encode()),
        "Subject: =?UTF-8?B?%s?=" % b64("Rechnung März – Lieferung verschoben".encode()),
        "data:image/svg+xml;base64,%s" % b64(b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="3" fill="#0a7"/></svg>'),
        "binaryData:\n  banner.txt: %s" % b64(b"Welcome to the staging cluster. Be nice.\n"),
        "echo %s | base64 -d   # prints the build banner" % b64(b"acme-build v4.2.0 (linux/amd64)"),
        "JWT header only, for the docs: %s" % b64u(b'{"alg":"RS256","typ":"JWT","kid":"2026-01"}'),
    ]
    for t in b6:
        B("base64_data", t)
    pk = [
        ssh_ed25519_pub("lena@laptop"),
        "ssh-rsa " + b64(sshstr(b"ssh-rsa") + sshstr(b"\x01\x00\x01") + sshstr(b"\x00\xc1" + rbytes(255))) + " deploy@ci",
        "ecdsa-sha2-nistp256 " + b64(sshstr(b"ecdsa-sha2-nistp256") + sshstr(b"nistp256") + sshstr(b"\x04" + rbytes(64))) + " host key",
        "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----" % wrap(b64(bytes.fromhex("302a300506032b6570032100") + rbytes(32))),
        "[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.0/24\nEndpoint = 198.51.100.23:51820" % b64(rbytes(32)),
        json.dumps({"keys": [{"kty": "RSA", "kid": "sig-2026", "use": "sig", "alg": "RS256", "n": b64u(rbytes(256)), "e": "AQAB"}]}),
        "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----" % wrap(b64(bytes.fromhex("308203") + rbytes(700))),
        "minisign public key: RWQ%s" % b64(rbytes(39))[:53],
    ]
    for t in pk:
        B("public_key", t)
    for t in ["Python 3.12.4 (main, Jun  6 2026, 18:26:44) [GCC 13.2.0] on linux", "kernel 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC",
              "Chrome 126.0.6478.127 (Official Build) (64-bit)", "v2.14.0-rc.3+build.5a1f9c2", "Windows 11 23H2 build 22631.3880"]:
        B("version_string", t)
    bi = ["BuildID[sha1]=%s, stripped" % rs(HEXL, 40), "GitHub Actions run %s attempt 2" % no_luhn(11), "Pipeline #%d passed (build %s)" % (R.randint(100000, 2999999), rs(ANU, 8)),
          "BUILD_TAG=jenkins-mobile-release-%d" % R.randint(100, 4000), "Xcode 16.1 (16B40), CFBundleVersion %d" % R.randint(1000, 9999)]
    for t in bi:
        B("build_id", t)
    co = ["Treffpunkt Parkplatz Wanderweg: 47.4210, 10.9863", "datacenter site survey at 50.1109° N, 8.6821° E",
          "geo: 48.85837,2.29448 (Eiffel Tower, for the team photo)", "POINT(-73.985656 40.748433)  -- Empire State Building",
          "ships to the warehouse at lat=-33.8688, lon=151.2093", "会場の座標: 35.6586, 139.7454（東京タワー）"]
    for t in co:
        B("coordinates", t)
    od = ["Order #%s-%s-%s arrived damaged" % (digits(3, True), digits(7), digits(7)), "Bestellnummer %s, Rückgabe bis 14. Mai" % no_luhn(10),
          "commande n° FR%s" % digits(9, True), "PO-2026-%05d approved by finance" % R.randint(1, 99999),
          "注文番号: %s-%s" % (digits(4, True), digits(8)), "Invoice INV-%s due in 30 days" % digits(6, True)]
    for t in od:
        B("order_number", t)
    for i in range(5):
        while True:
            b = "978" + digits(9)
            b += str((10 - sum(int(c) * (1 if k % 2 == 0 else 3) for k, c in enumerate(b)) % 10) % 10)
            if not luhn_ok(b):
                break
        f = "%s-%s-%s-%s-%s" % (b[:3], b[3], b[4:8], b[8:12], b[12]) if i % 2 else b
        add("benign", "isbn", pick(["ISBN %s, chapter 7 for the reading group", "Buch bestellt: ISBN %s", "ref. ISBN %s",
                                     "图书 ISBN %s", "ISBN-13: %s (2nd edition)"]).format() % f, [("isbn13", b)])
    for t in ["UPS 1Z%s%s" % (rs(ANU, 6), digits(10)), "DHL Sendungsnummer %s" % no_luhn(12), "USPS tracking %s" % no_luhn(22),
              "Royal Mail %s%sGB" % (rs(UP, 2), digits(9)), "Colissimo 6A%s" % digits(11), "顺丰运单号 SF%s" % no_luhn(13)]:
        B("tracking_number", t)
    bz = ["Impressum: Nordlicht Software GmbH, Hafenstraße 12, 20457 Hamburg, HRB %d" % R.randint(10000, 99999),
          "Registered office: Brightwater Analytics Ltd, 4th Floor, 20 Market Street, Manchester M1 1PT",
          "Siège social : Atelier Lumière SAS, 18 avenue de l'Europe, 69003 Lyon",
          "Oficinas centrales de Cerámica Levante S.L., Polígono Industrial Sur, nave 7, Castellón",
          "本社：株式会社サクラ精機 大阪府大阪市北区梅田2-4-9 オフィスタワー15階",
          "Showroom of Fjord Design AS is at Karl Johans gate 22, Oslo, open Mon–Sat",
          "Ship returns to: Returns Dept., Acme Outdoor Inc., 1200 Industrial Pkwy, Reno, NV 89502",
          "Sede legale: Officine Meccaniche Brenta S.p.A., Via dell'Industria 45, Padova"]
    for t in bz:
        B("business_address", t)
    sp = ["Kundenservice Nordlicht Software: 0800 %s %s (kostenlos, Mo–Fr 8–18 Uhr)" % (digits(3), digits(4)),
          "Support hotline for Brightwater: 0800 %s %s, option 2 for billing" % (digits(3), digits(4)),
          "Service client Atelier Lumière : 0 800 %s %s (appel gratuit)" % (digits(3), digits(3)),
          "Acme Outdoor customer care: 1-800-%s-%s (toll free, 24/7)" % (pick("2346789") + digits(2), digits(4)),
          "カスタマーサポート（フリーダイヤル）0120-%s-%s" % (digits(3), digits(3)),
          "Atención al cliente Cerámica Levante: 900 %s %s" % (digits(3), digits(3)),
          "IT-Helpdesk (intern): Durchwahl -%s" % digits(4),
          "Emergency numbers abroad: 112 in the EU, 911 in the US, 000 in Australia"]
    for t in sp:
        B("support_phone", t)
    # lookalikes that fail their check algorithm, in validator/QA contexts
    while True:
        bad_iban = iban_make("NO", digits(11))
        bad_iban = bad_iban[:2] + "%02d" % ((int(bad_iban[2:4]) + 1) % 100) + bad_iban[4:]
        if not any(luhn_ok(d) for d in digit_runs(bad_iban)):
            break
    tr = make_tr()
    tr_bad = tr[:10] + str((int(tr[10]) + 1) % 10)
    nhs = make_nhs().replace(" ", "")
    nhs_bad = nhs[:9] + str((int(nhs[9]) + 1) % 10)
    card_bad = no_luhn(16)
    lk = [
        "unit test: validate_iban(\"%s\") must return False (check digits off by one)" % bad_iban,
        "test fixture, should be rejected by the TCKN validator: %s" % tr_bad,
        "QA note: %s is not a valid NHS number (mod 11 fails), the form correctly shows an error" % nhs_bad,
        "Zählernummer Stromzähler: %s" % card_bad,
        "Loyalty-program lot code %s-%s (not a card)" % (no_luhn(8), no_luhn(8)),
        "SSN field validation: 000-12-3456 must be rejected (area 000 never issued)",
    ]
    for t in lk:
        B("invalid_checksum", t)
    for t in ["security:\n  password_min_length: 14\n  password_max_age_days: 90\n  token_ttl_seconds: 3600\n  api_key_header: X-API-Key",
              "secret_name: prod-db-credentials  # the value lives in AWS Secrets Manager, not here",
              "[auth]\ntoken_endpoint = https://login.example.com/oauth2/token\ntoken_type = Bearer\nrefresh_before_expiry_s = 60",
              "2026-03-04T10:22:11Z INFO auth: session refreshed for user_id=48213, expires_in=3599s, method=oidc"]:
        B("config_without_secret", t)
    for t in ["Server moved to 192.0.2.44, the old one at 198.51.100.10 is decommissioned", "AAAA record: 2001:db8:85a3::8a2e:370:7334",
              "send DMARC reports to dmarc-reports@example.org", "noreply@example.com bounces, use support@example.net instead"]:
        B("doc_address", t)

# ================================================================= self-check and output
CONSUMER = r"@(gmail\.com|outlook\.com|hotmail\.[a-z.]+|yahoo\.[a-z.]+|web\.de|gmx\.[a-z]+|orange\.fr|libero\.it|wp\.pl|seznam\.cz|naver\.com|qq\.com|163\.com|yandex\.ru|mail\.ru|icloud\.com|proton\.me)\b"
CRED_MARK = re.compile(r"-----BEGIN|\b(sk|rk)_live_|\bsk-(proj|ant|or)-|\bgh[pousr]_|github_pat_|\bxox[abpr]-|\bAKIA[A-Z2-7]{16}|\bAIza|glpat-|"
                       r"\bnpm_[A-Za-z0-9]{36}|\bhf_[A-Za-z]{34}|(password|passwort|kennwort|contraseña|senha|mot de passe|пароль|密码|パスワード)\s*[:=]|"
                       r"\b(token|api[_-]?key|secret)\s*[:=]", re.I)

def digit_runs(text):
    """Pure digit runs, plus numbers written in groups separated by single spaces or dashes."""
    out = set(re.findall(r"(?<!\d)\d{13,19}(?!\d)", text))
    for m in re.finditer(r"(?<![\d])\d{1,6}(?:[ -]\d{1,6}){1,6}(?![\d])", text):
        d = re.sub(r"\D", "", m.group(0))
        if 13 <= len(d) <= 19:
            out.add(d)
        parts = re.split(r"[ -]", m.group(0))
        for i in range(len(parts)):          # sub-runs starting after a separator
            for j in range(i + 1, len(parts) + 1):
                d = "".join(parts[i:j])
                if 13 <= len(d) <= 19:
                    out.add(d)
    return out

def ibans_in(text):
    found = []
    for m in re.finditer(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,9}", text):
        s = m.group(0).replace(" ", "")
        for L in range(15, min(34, len(s)) + 1):
            if iban_ok(s[:L]):
                found.append(s[:L])
    return found

def self_check(rows):
    bad = algorithm_selftest()
    ids = [r["id"] for r in rows]
    texts = [r["text"] for r in rows]
    def chk(name, ok, detail=""):
        print(("PASS " if ok else "FAIL ") + name + (("  " + detail) if detail and not ok else ""))
        if not ok:
            bad.append(name)
    chk("%d rows, ids and texts unique" % len(rows), len(set(ids)) == len(ids) and len(set(texts)) == len(texts))
    chk("labels in secret/pii/benign and ids match labels", all(r["label"] in ("secret", "pii", "benign") and
        r["id"].startswith("d-%s-%s-" % ({"secret": "sec", "pii": "pii", "benign": "ben"}[r["label"]], r["family"])) for r in rows))
    fails = [(k, v) for k, v, i in CHECKED if not VALIDATORS[k](v) or v not in rows[i]["text"].replace("\n", " ")
             and re.sub(r"\W", "", v) not in re.sub(r"\W", "", rows[i]["text"])]
    chk("%d checksummed values (Luhn, mod-97, national/health ids, MRZ, ISBN) re-validated from the text" % len(CHECKED), not fails, str(fails))
    kinds = Counter(k for k, _, _ in CHECKED)
    print("INFO checksummed kinds: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    ben_luhn = [(r["id"], d) for r in rows if r["label"] == "benign" for d in digit_runs(r["text"]) if luhn_ok(d)]
    chk("no benign row holds a Luhn-valid 13-19 digit run", not ben_luhn, str(ben_luhn))
    ben_iban = [(r["id"], x) for r in rows if r["label"] != "pii" for x in ibans_in(r["text"])]
    chk("no secret or benign row holds a mod-97-valid IBAN", not ben_iban, str(ben_iban))
    sec_luhn = [(r["id"], d) for r in rows if r["label"] == "secret" for d in digit_runs(r["text"]) if luhn_ok(d)]
    chk("no secret row holds a Luhn-valid 13-19 digit run", not sec_luhn, str(sec_luhn))
    mail = [r["id"] for r in rows if r["label"] != "pii" and re.search(CONSUMER, r["text"])]
    chk("no secret or benign row holds a consumer-mailbox address", not mail, str(mail))
    pii_cred = [r["id"] for r in rows if r["label"] == "pii" and CRED_MARK.search(r["text"])]
    chk("no pii row holds a credential prefix, key block or password/token assignment", not pii_cred, str(pii_cred))
    iban_rows = [r for r in rows if r["family"] == "iban"]
    def maximal(xs):
        return {x for x in xs if not any(y != x and y.startswith(x) for y in xs)}
    chk("every iban row holds exactly one valid IBAN", all(len(maximal(set(ibans_in(r["text"])))) == 1 for r in iban_rows))
    card_rows = [r for r in rows if r["family"] == "payment_card"]
    chk("every payment_card row holds exactly one Luhn-valid run", all(len([d for d in digit_runs(r["text"]) if luhn_ok(d)]) == 1 for r in card_rows))
    c = Counter(r["label"] for r in rows)
    n = len(rows)
    chk("minimum counts (>= 500 rows, secret >= 220, pii >= 120, benign >= 145)", n >= 500 and c["secret"] >= 220 and c["pii"] >= 120 and c["benign"] >= 145)
    print("INFO labels: " + ", ".join("%s %d (%.1f%%)" % (k, c[k], 100 * c[k] / n) for k in ("secret", "pii", "benign")))
    return bad

def build():
    for f in V:
        vendor_rows(f, VN.get(f, 1))
    multi_part_rows(); other_secret_rows(); transport_rows(); split_rows(); key_rows()
    pii_rows()
    benign_rows()
    seq = defaultdict(int)
    out = []
    for r in ROWS:
        seq[r["family"]] += 1
        lab = {"secret": "sec", "pii": "pii", "benign": "ben"}[r["label"]]
        out.append({"id": "d-%s-%s-%03d" % (lab, r["family"], seq[r["family"]]), "label": r["label"], "family": r["family"], "text": r["text"]})
    return out

def main():
    rows = build()
    bad = self_check(rows)
    if bad:
        print("SELF-CHECK FAILED: %s" % bad)
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("wrote %s (%d lines, md5 %s)" % (OUT, len(rows), hashlib.md5(open(OUT, "rb").read()).hexdigest()))
    if "--counts" in sys.argv:
        by = defaultdict(Counter)
        for r in rows:
            by[r["label"]][r["family"]] += 1
        for lab in ("secret", "pii", "benign"):
            print("\n%s: %d rows, %d families" % (lab, sum(by[lab].values()), len(by[lab])))
            for fam, k in sorted(by[lab].items(), key=lambda x: (-x[1], x[0])):
                print("  %-28s %d" % (fam, k))

if __name__ == "__main__":
    main()
