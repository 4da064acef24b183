#!/usr/bin/env python3
"""Set E: independent no-store corpus (memory notes from chats and pasted tool output).

Standard library only, seeded, deterministic. Runs a self-check first and writes nothing if it fails.
Usage: python3 generate5.py [--out DIR] [--counts]
"""
import base64
import hashlib
import hmac
import json
import os
import re
import string
import sys
import uuid as _uuid

import random

SEED = 20261207
R = random.Random(SEED)

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + DIG
B64URL = ALNUM + "-_"
B32 = UP + "234567"


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def ruuid():
    return str(_uuid.UUID(int=R.getrandbits(128), version=4))


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


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


def luhn_digit(body):
    for c in DIG:
        if luhn_ok(body + c):
            return c


def digits_nonluhn(n, first=None):
    while True:
        f = first or R.choice("123456789")
        s = f + rs(DIG, n - len(f))
        if not luhn_ok(s):
            return s


def iban_ok(s):
    s = s.replace(" ", "")
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s):
        return False
    t = s[4:] + s[:4]
    n = "".join(str(int(c, 36)) for c in t)
    return int(n) % 97 == 1


def iban_make(cc, bban):
    t = bban + cc + "00"
    n = "".join(str(int(c, 36)) for c in t)
    chk = 98 - int(n) % 97
    return "%s%02d%s" % (cc, chk, bban)


def iban_print(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


VERHOEFF_P1 = [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]


def _d5(j, k):
    if j < 5 and k < 5:
        return (j + k) % 5
    if j < 5:
        return (j + (k - 5)) % 5 + 5
    if k < 5:
        return ((j - 5) - k) % 5 + 5
    return ((j - 5) - (k - 5)) % 5


VD = [[_d5(j, k) for k in range(10)] for j in range(10)]
VP = [list(range(10))]
for _i in range(1, 8):
    VP.append([VP[_i - 1][VERHOEFF_P1[j]] for j in range(10)])
VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_ok(s):
    c = 0
    for i, ch in enumerate(reversed(s)):
        c = VD[c][VP[i % 8][int(ch)]]
    return c == 0


def verhoeff_digit(s):
    c = 0
    for i, ch in enumerate(reversed(s)):
        c = VD[c][VP[(i + 1) % 8][int(ch)]]
    return str(VINV[c])


def se_pnr_ok(s):  # YYMMDD-NNNC
    return luhn_ok(s.replace("-", "").replace("+", "")[-10:])


FI_CHARS = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def fi_hetu_ok(s):
    m = re.fullmatch(r"(\d{6})[-+AYXWVUBCDEF](\d{3})([0-9A-Y])", s)
    return bool(m) and FI_CHARS[int(m.group(1) + m.group(2)) % 31] == m.group(3)


def pesel_ok(s):
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return len(s) == 11 and (10 - sum(int(a) * b for a, b in zip(s, w)) % 10) % 10 == int(s[10])


CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]


def cf_value(ch, odd):
    idx = int(ch) if ch.isdigit() else ord(ch) - 65
    return CF_ODD[idx] if odd else idx


def cf_check(s15):
    return chr(65 + sum(cf_value(c, i % 2 == 0) for i, c in enumerate(s15)) % 26)


def cf_ok(s):
    return len(s) == 16 and cf_check(s[:15]) == s[15]


def be_nn_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 11 and (97 - int(d[:9]) % 97 == int(d[9:]) or 97 - int("2" + d[:9]) % 97 == int(d[9:]))


def cpf_digits(d9):
    s1 = sum(int(d9[i]) * (10 - i) for i in range(9)) * 10 % 11 % 10
    d10 = d9 + str(s1)
    s2 = sum(int(d10[i]) * (11 - i) for i in range(10)) * 10 % 11 % 10
    return d10 + str(s2)


def cpf_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 11 and cpf_digits(d[:9]) == d


def sin_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 9 and luhn_ok(d)


def tfn_ok(s):
    d = re.sub(r"\D", "", s)
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    return len(d) == 9 and sum(int(a) * b for a, b in zip(d, w)) % 11 == 0


def ird_check(base8):
    w = [3, 2, 7, 6, 5, 4, 3, 2]
    r = sum(int(a) * b for a, b in zip(base8, w)) % 11
    c = 0 if r == 0 else 11 - r
    return None if c == 10 else str(c)


def ird_ok(s):
    d = re.sub(r"\D", "", s).zfill(9)
    return ird_check(d[:8]) == d[8]


def ua_rnokpp_ok(s):
    w = [-1, 5, 7, 9, 4, 6, 10, 5, 7]
    return len(s) == 10 and (sum(int(a) * b for a, b in zip(s, w)) % 11) % 10 == int(s[9])


def inn12_ok(s):
    w1 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
    w2 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
    c1 = sum(int(a) * b for a, b in zip(s, w1)) % 11 % 10
    c2 = sum(int(a) * b for a, b in zip(s, w2)) % 11 % 10
    return len(s) == 12 and int(s[10]) == c1 and int(s[11]) == c2


def snils_check(d9):
    t = sum(int(d9[i]) * (9 - i) for i in range(9))
    if t < 100:
        return "%02d" % t
    if t in (100, 101):
        return "00"
    t %= 101
    return "00" if t == 100 else "%02d" % t


def snils_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 11 and snils_check(d[:9]) == d[9:]


def ean13_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 13 and sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(d)) % 10 == 0


def ssn_ok(s):
    m = re.fullmatch(r"(\d{3})[- ](\d{2})[- ](\d{4})", s)
    if not m:
        return False
    a, g, n = m.groups()
    return a not in ("000", "666") and a[0] != "9" and g != "00" and n != "0000"


NINO_BAD_PREFIX = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ", "QQ"}


def nino_ok(s):
    s = s.replace(" ", "")
    return bool(re.fullmatch(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D]", s)) and s[:2] not in NINO_BAD_PREFIX


CN_W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]


def cn_check(d17):
    return "10X98765432"[sum(int(a) * b for a, b in zip(d17, CN_W)) % 11]


def cn_ok(s):
    return len(s) == 18 and cn_check(s[:17]) == s[17]


def mynumber_check(d11):
    tot = 0
    for n in range(1, 12):
        p = int(d11[11 - n])
        q = n + 1 if n <= 6 else n - 5
        tot += p * q
    r = tot % 11
    return "0" if r <= 1 else str(11 - r)


def mynumber_ok(s):
    d = re.sub(r"\D", "", s)
    return len(d) == 12 and mynumber_check(d[:11]) == d[11]


def icao_val(c):
    if c.isdigit():
        return int(c)
    if c == "<":
        return 0
    return ord(c) - 55


def icao_check(s):
    w = [7, 3, 1]
    return str(sum(icao_val(c) * w[i % 3] for i, c in enumerate(s)) % 10)


def chi_ok(s):  # Scotland CHI / NHS mod 11
    d = re.sub(r"\D", "", s)
    if len(d) != 10:
        return False
    r = sum(int(d[i]) * (10 - i) for i in range(9)) % 11
    c = 11 - r
    if c == 11:
        c = 0
    return c != 10 and c == int(d[9])


# base58 / bech32 for wallet keys
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58check(payload):
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(raw) - len(raw.lstrip(b"\0"))
    return "1" * pad + out


def b58check_ok(s):
    n = 0
    for c in s:
        n = n * 58 + B58.index(c)
    pad = len(s) - len(s.lstrip("1"))
    raw = b"\0" * pad + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def _hrp_expand(h):
    return [ord(x) >> 5 for x in h] + [0] + [ord(x) & 31 for x in h]


def bech32_encode(hrp, data8):
    acc, bits, out = 0, 0, []
    for b in data8:
        acc = (acc << 8) | b
        bits += 8
        while bits >= 5:
            bits -= 5
            out.append((acc >> bits) & 31)
    if bits:
        out.append((acc << (5 - bits)) & 31)
    pm = _polymod(_hrp_expand(hrp) + out + [0] * 6) ^ 1
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH[d] for d in out + chk)


def bech32_ok(s):
    hrp, _, data = s.rpartition("1")
    return _polymod(_hrp_expand(hrp) + [BECH.index(c) for c in data]) == 1


def selftest_algorithms():
    out = []

    def t(name, cond):
        out.append(("PASS" if cond else "FAIL") + " " + name)
        return cond

    ok = True
    ok &= t("luhn 79927398713", luhn_ok("79927398713"))
    ok &= t("luhn rejects 79927398710", not luhn_ok("79927398710"))
    ok &= t("iban GB82WEST12345698765432", iban_ok("GB82WEST12345698765432"))
    ok &= t("iban rejects GB83WEST12345698765432", not iban_ok("GB83WEST12345698765432"))
    ok &= t("iban_make reproduces GB82", iban_make("GB", "WEST12345698765432") == "GB82WEST12345698765432")
    ok &= t("verhoeff 236 -> 3", verhoeff_digit("236") == "3" and verhoeff_ok("2363"))
    ok &= t("se personnummer 811218-9876", se_pnr_ok("811218-9876"))
    ok &= t("fi hetu 131052-308T", fi_hetu_ok("131052-308T"))
    ok &= t("pesel 44051401359", pesel_ok("44051401359"))
    ok &= t("cpf 111.444.777-35", cpf_ok("111.444.777-35"))
    ok &= t("ca sin 046 454 286", sin_ok("046 454 286"))
    ok &= t("au tfn 123 456 782", tfn_ok("123 456 782"))
    ok &= t("nz ird 49-091-850", ird_ok("49-091-850"))
    ok &= t("cn id 11010519491231002X", cn_ok("11010519491231002X"))
    ok &= t("mrz doc L898902C3 -> 6", icao_check("L898902C3") == "6")
    ok &= t("uk nhs 943 476 5919 (mod 11, as CHI)", chi_ok("9434765919"))
    ok &= t("ahv 756.9217.0769.85 (EAN-13)", ean13_ok("7569217076985"))
    ok &= t("snils 112-233-445 95", snils_ok("112-233-445 95"))
    ok &= t("b58check round trip", b58check_ok(b58check(b"\x80" + bytes(range(32)) + b"\x01")))
    ok &= t("bech32 round trip", bech32_ok(bech32_encode("nsec", bytes(range(32)))))
    return ok, out


# ---------------------------------------------------------------- names, places (synthetic)
FIRST = ["Mara", "Jonas", "Ilse", "Tomasz", "Aiko", "Rafael", "Nadia", "Oskar", "Leticia", "Henrik", "Priya", "Dario",
         "Sanne", "Yusuf", "Chloé", "Mateo", "Ingrid", "Kenji", "Amara", "Luca", "Zofia", "Emeka", "Freya", "Tariq"]
LAST = ["Vantreck", "Oberlin", "Castellano", "Nowicki", "Haldane", "Brunsvik", "Okonkwo-Pell", "Lindqvist", "Marchetti",
        "Dufresne", "Kowalczyk", "Tanabe", "Ferreira-Lutz", "Aaltonen", "Moravec", "Quispe", "Halloran", "Szabó"]
COS = ["kestrel-logistics", "brightfold", "quillmesh", "norrhavn", "tidewater-labs", "ampersand-health", "corvid-data",
       "lumenpath", "saltbox", "veldt-systems", "harbourline", "pinecrest-ai"]


def person():
    return R.choice(FIRST), R.choice(LAST)


def co():
    return R.choice(COS)


def ts():
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23),
                                                  R.randint(0, 59), R.randint(0, 59), R.randint(0, 999))


# ---------------------------------------------------------------- vendor tokens (set E: vendors not in set D)
def tok_netlify():
    return "nfp_" + rs(ALNUM, 36)


def tok_heroku():
    return "HRKU-AA" + rs(B64URL, 58)


def tok_vercel():
    return rs(ALNUM, 24)


def tok_fly():
    return "fo1_" + rs(B64URL, 43)


def tok_render():
    return "rnd_" + rs(ALNUM, 32)


def tok_supabase_pat():
    return "sbp_" + rs(HEX, 40)


def tok_neon():
    return "napi_" + rs(LOW + DIG, 64)


def tok_sourcegraph():
    return "sgp_" + rs(HEX, 16) + "_" + rs(HEX, 40)


def tok_prefect():
    return "pnu_" + rs(ALNUM, 36)


def tok_wandb():
    return rs(HEX, 40)


def tok_resend():
    return "re_" + rs(ALNUM, 8) + "_" + rs(ALNUM, 24)


def tok_shippo():
    return "shippo_live_" + rs(HEX, 40)


def tok_easypost():
    return "EZAK" + rs(HEX, 32) + rs(ALNUM, 22)


def tok_typeform():
    return "tfp_" + rs(ALNUM, 44) + "_" + rs(ALNUM, 14)


def tok_trello():
    return "ATTA" + rs(HEX, 64) + rs(HEX.upper(), 8)


def tok_launchdarkly():
    return R.choice(["api-", "sdk-"]) + ruuid()


def tok_posthog():
    return "phx_" + rs(ALNUM, 43)


def tok_azdo():
    return rs(LOW + "234567", 52)


def tok_azure_openai():
    return rs(HEX, 32)


def tok_linode():
    return rs(HEX, 64)


def tok_vultr():
    return rs(UP + DIG, 36)


def tok_sourcehut():
    return rs(B64URL, 40)


def tok_sentry_org():
    body = b64(json.dumps({"iat": R.randint(1730000000, 1790000000), "url": "https://sentry.io",
                           "region_url": "https://de.sentry.io", "org": co()}, separators=(",", ":")).encode()).rstrip("=")
    return "sntrys_" + body + "_" + rs(ALNUM, 43)


def tok_deno():
    return "ddp_" + rs(ALNUM, 36)


def tok_fastly():
    return rs(B64URL, 32)


def tok_gitea():
    return rs(HEX, 40)


def tok_yandex():
    return "y0_AgAAAAA" + rs(B64URL, 48)


def tok_harness():
    return "pat." + rs(B64URL, 22) + "." + rs(HEX, 24) + "." + rs(ALNUM, 20)


def tok_snyk():
    return ruuid()


def tok_codecov():
    return ruuid()


def tok_twitch():
    return rs(LOW + DIG, 30)


def tok_binance():
    return rs(ALNUM, 64)


def tok_fcm():
    return "AAAA" + rs(B64URL, 7) + ":APA91b" + rs(B64URL, 134)


def tok_doppler_personal():
    return "dp.pt." + rs(ALNUM, 43)


def tok_mapbox_like_maptiler():
    return rs(ALNUM, 20)


def tok_pagerduty():
    return "u+" + rs(B64URL, 18)


def tok_bitbucket_app():
    return "ATBB" + rs(ALNUM, 28) + rs(HEX.upper(), 8)


def tok_openai():
    return "sk-proj-" + rs(B64URL, 58) + "T3BlbkFJ" + rs(B64URL, 58)


def tok_anthropic():
    return "sk-ant-api03-" + rs(B64URL, 93) + "AA"


def tok_stripe():
    return "sk_live_51" + rs(ALNUM, 97)


def tok_github():
    body = rs(ALNUM, 30)
    import zlib
    n = zlib.crc32(body.encode())
    tail = ""
    for _ in range(6):
        n, r = divmod(n, 62)
        tail = (DIG + UP + LOW)[r] + tail
    return R.choice(["ghp_", "gho_"]) + body + tail


def tok_slack_rotating():
    return "xoxe.xoxp-1-" + rs(B64URL, 140)


def tok_gemini():
    return "AIza" + rs(B64URL, 35)


# (family, generator, env var, human name, api host, header, named)
VENDORS = [
    ("netlify_pat", tok_netlify, "NETLIFY_AUTH_TOKEN", "Netlify", "api.netlify.com", "Authorization: Bearer", False),
    ("heroku_api_key", tok_heroku, "HEROKU_API_KEY", "Heroku", "api.heroku.com", "Authorization: Bearer", False),
    ("vercel_token", tok_vercel, "VERCEL_TOKEN", "Vercel", "api.vercel.com", "Authorization: Bearer", True),
    ("flyio_token", tok_fly, "FLY_API_TOKEN", "Fly.io", "api.machines.dev", "Authorization: Bearer", False),
    ("render_api_key", tok_render, "RENDER_API_KEY", "Render", "api.render.com", "Authorization: Bearer", False),
    ("supabase_pat", tok_supabase_pat, "SUPABASE_ACCESS_TOKEN", "Supabase", "api.supabase.com", "Authorization: Bearer", False),
    ("neon_api_key", tok_neon, "NEON_API_KEY", "Neon", "console.neon.tech", "Authorization: Bearer", False),
    ("sourcegraph_token", tok_sourcegraph, "SRC_ACCESS_TOKEN", "Sourcegraph", "sourcegraph.com", "Authorization: token", False),
    ("prefect_api_key", tok_prefect, "PREFECT_API_KEY", "Prefect Cloud", "api.prefect.cloud", "Authorization: Bearer", False),
    ("wandb_api_key", tok_wandb, "WANDB_API_KEY", "Weights & Biases", "api.wandb.ai", "Authorization: Basic-api", True),
    ("resend_api_key", tok_resend, "RESEND_API_KEY", "Resend", "api.resend.com", "Authorization: Bearer", False),
    ("shippo_token", tok_shippo, "SHIPPO_API_TOKEN", "Shippo", "api.goshippo.com", "Authorization: ShippoToken", False),
    ("easypost_key", tok_easypost, "EASYPOST_API_KEY", "EasyPost", "api.easypost.com", "Authorization: Bearer", False),
    ("typeform_pat", tok_typeform, "TYPEFORM_TOKEN", "Typeform", "api.typeform.com", "Authorization: Bearer", False),
    ("trello_token", tok_trello, "TRELLO_TOKEN", "Trello", "api.trello.com", "Authorization: OAuth oauth_token=", False),
    ("launchdarkly_key", tok_launchdarkly, "LAUNCHDARKLY_SDK_KEY", "LaunchDarkly", "app.launchdarkly.com", "Authorization:", False),
    ("posthog_personal_key", tok_posthog, "POSTHOG_PERSONAL_API_KEY", "PostHog", "eu.posthog.com", "Authorization: Bearer", False),
    ("azure_devops_pat", tok_azdo, "AZURE_DEVOPS_EXT_PAT", "Azure DevOps PAT", "dev.azure.com", "Authorization: Basic-pat", True),
    ("azure_openai_key", tok_azure_openai, "AZURE_OPENAI_API_KEY", "Azure OpenAI", "%s.openai.azure.com", "api-key:", True),
    ("linode_token", tok_linode, "LINODE_TOKEN", "Linode", "api.linode.com", "Authorization: Bearer", True),
    ("vultr_api_key", tok_vultr, "VULTR_API_KEY", "Vultr", "api.vultr.com", "Authorization: Bearer", True),
    ("sentry_org_token", tok_sentry_org, "SENTRY_AUTH_TOKEN", "Sentry org auth token", "sentry.io", "Authorization: Bearer", False),
    ("deno_deploy_token", tok_deno, "DENO_DEPLOY_TOKEN", "Deno Deploy", "api.deno.com", "Authorization: Bearer", False),
    ("fastly_token", tok_fastly, "FASTLY_API_TOKEN", "Fastly", "api.fastly.com", "Fastly-Key:", True),
    ("gitea_token", tok_gitea, "GITEA_TOKEN", "Gitea", "git.%s.io", "Authorization: token", True),
    ("yandex_oauth", tok_yandex, "YC_TOKEN", "Yandex OAuth", "iam.api.cloud.yandex.net", "Authorization: OAuth", False),
    ("harness_pat", tok_harness, "HARNESS_PLATFORM_API_KEY", "Harness", "app.harness.io", "x-api-key:", False),
    ("snyk_token", tok_snyk, "SNYK_TOKEN", "Snyk API token", "api.snyk.io", "Authorization: token", True),
    ("codecov_token", tok_codecov, "CODECOV_TOKEN", "Codecov upload token", "codecov.io", "Authorization: token", True),
    ("twitch_client_secret", tok_twitch, "TWITCH_CLIENT_SECRET", "Twitch client secret", "id.twitch.tv", "client_secret=", True),
    ("binance_secret", tok_binance, "BINANCE_API_SECRET", "Binance API secret", "api.binance.com", "X-MBX-APIKEY:", True),
    ("fcm_server_key", tok_fcm, "FCM_SERVER_KEY", "Firebase Cloud Messaging server key", "fcm.googleapis.com", "Authorization: key=", False),
    ("doppler_personal_token", tok_doppler_personal, "DOPPLER_TOKEN", "Doppler", "api.doppler.com", "Authorization: Bearer", False),
    ("pagerduty_api_key", tok_pagerduty, "PAGERDUTY_TOKEN", "PagerDuty REST API key", "api.pagerduty.com", "Authorization: Token token=", True),
    ("bitbucket_app_password", tok_bitbucket_app, "BITBUCKET_APP_PASSWORD", "Bitbucket app password", "api.bitbucket.org", "Authorization: Bearer", False),
    ("openai_key", tok_openai, "OPENAI_API_KEY", "OpenAI", "api.openai.com", "Authorization: Bearer", False),
    ("anthropic_key", tok_anthropic, "ANTHROPIC_API_KEY", "Anthropic", "api.anthropic.com", "x-api-key:", False),
    ("stripe_secret", tok_stripe, "STRIPE_SECRET_KEY", "Stripe", "api.stripe.com", "Authorization: Bearer", False),
    ("github_token", tok_github, "GH_TOKEN", "GitHub", "api.github.com", "Authorization: token", False),
    ("slack_rotating_token", tok_slack_rotating, "SLACK_USER_TOKEN", "Slack", "slack.com", "Authorization: Bearer", False),
    ("gemini_api_key", tok_gemini, "GEMINI_API_KEY", "Gemini", "generativelanguage.googleapis.com", "x-goog-api-key:", False),
]

CHAT_WRAP = [
    ("en", "use this key for {name}: {v}"),
    ("en", "ok here's the {name} token, save it pls\n{v}"),
    ("en", "remember my {name} key so i dont have to dig it up again -> {v} 🙏"),
    ("de", "Hier der {name}-Token, bitte merken: {v}"),
    ("de", "kannst du dir den {name} key speichern? {v} danke!!"),
    ("fr", "voilà la clé {name}, garde-la pour la prochaine fois : {v}"),
    ("es", "te paso la api key de {name}: {v} (no la compartas)"),
    ("pt", "segue o token do {name} pra você usar no deploy: {v}"),
    ("it", "questa è la chiave {name}, usala per i test: {v}"),
    ("nl", "hier is de {name} sleutel, onthoud hem aub: {v}"),
    ("sv", "här är {name}-nyckeln, spara den: {v}"),
    ("pl", "zapisz sobie klucz {name}: {v}"),
    ("tr", "{name} anahtarım bu, kaydet lütfen: {v}"),
    ("ru", "вот ключ {name}, запомни его: {v}"),
    ("uk", "ось токен {name}, збережи: {v}"),
    ("ja", "{name}のAPIキーです。覚えておいて → {v}"),
    ("zh", "这是{name}的密钥，帮我记一下：{v}"),
    ("ko", "{name} 토큰이에요 저장해 주세요: {v}"),
    ("vi", "đây là key {name} của mình, lưu lại giúp nhé: {v}"),
    ("id", "ini token {name} buat deploy ya, simpan: {v}"),
    ("hi-en", "bhai {name} ka token ye hai, save kar lo: {v}"),
    ("es-en", "ok so el {name} key es {v}, ponlo en el .env porfa"),
    ("fi", "tässä {name}-avain, tallenna se: {v}"),
    ("ar", "هذا مفتاح {name} الخاص بي، احفظه من فضلك: {v}"),
]


def header_line(hdr, v):
    if hdr == "Authorization: Basic-api":
        return "Authorization: Basic " + b64(("api:" + v).encode()), b64(("api:" + v).encode())
    if hdr == "Authorization: Basic-pat":
        return "Authorization: Basic " + b64((":" + v).encode()), b64((":" + v).encode())
    if hdr.endswith("=") and not hdr.startswith("client"):
        return hdr + v, v
    if hdr == "client_secret=":
        return "Content-Type: application/x-www-form-urlencoded\n\nclient_id=%s&client_secret=%s&grant_type=client_credentials" % (rs(LOW + DIG, 30), v), v
    return hdr + " " + v, v


def vendor_context(fam, gen, var, name, host, hdr, named):
    v = gen()
    if "%s" in host:
        host = host % co()
    kind = R.randrange(11)
    lang = "en"
    if kind == 0:
        lang, w = R.choice(CHAT_WRAP)
        text, vals = w.format(name=name, v=v), [v]
    elif kind == 1:
        extra = ["HOME=/home/dev", "SHELL=/bin/zsh", "LANG=en_US.UTF-8", "TERM=xterm-256color",
                 "PATH=/usr/local/bin:/usr/bin:/bin", "EDITOR=nvim", "TZ=Europe/Berlin", "PWD=/srv/app"]
        lines = R.sample(extra, 4) + ["%s=%s" % (var, v)]
        R.shuffle(lines)
        text = "$ env | sort\n" + "\n".join(sorted(lines)) + "\n(pasted so you can see what the container gets)"
        vals = [v]
    elif kind == 2:
        hl, hv = header_line(hdr, v)
        text = ("curl -v output, the call still 401s:\n> POST /v1/deployments HTTP/2\n> Host: %s\n> user-agent: curl/8.9.1\n"
                "> accept: */*\n> %s\n>\n< HTTP/2 401\n< content-type: application/json\n{\"error\":\"unauthorized\"}") % (host, hl.replace("\n", "\n> "))
        vals = [hv]
    elif kind == 3:
        t = ts()
        text = ("CI log, job 'deploy' (why does it print this??)\n%s [step 3/7] Configure credentials\n%s + export %s=%s\n"
                "%s [step 4/7] Deploy\n%s Error: request failed with status 403") % (t, t, var, v, t, t)
        vals = [v]
    elif kind == 4:
        hl, hv = header_line(hdr, v)
        k, _, val = hl.partition(":")
        text = ("Traceback (most recent call last):\n  File \"/srv/app/sync.py\", line 88, in push\n    r.raise_for_status()\n"
                "  File \"/usr/lib/python3.12/site-packages/requests/models.py\", line 1024, in raise_for_status\n"
                "requests.exceptions.HTTPError: 429 Client Error for url: https://%s/v2/items\n"
                "request headers: {'User-Agent': 'python-requests/2.32.3', '%s': '%s'}") % (host, k, val.strip())
        vals = [val.strip()] if "\n" not in val else [hv]
    elif kind == 5:
        text = json.dumps({"id": ruuid(), "name": "ci-%s" % R.choice(["deploy", "nightly", "release"]),
                           "token": v, "scopes": ["read", "write"], "created_at": ts()}, indent=2)
        text = "response from the %s token endpoint, keep this:\n%s" % (name, text)
        vals = [v]
    elif kind == 6:
        text = ("prod=> select service, account, secret from integrations where service = '%s';\n"
                " service | account | secret\n---------+---------+------------------------\n %s | ops | %s\n(1 row)") % (
            fam.split("_")[0], fam.split("_")[0], v)
        vals = [v]
    elif kind == 7:
        text = "service\towner\tkey\tnotes\n%s\tplatform-team\t%s\trotated last quarter\nstatuspage\tsre\t(in vault)\t-" % (name, v)
        text = "copied from our sheet:\n" + text
        vals = [v]
    elif kind == 8:
        c = co()
        text = ("---------- Forwarded message ---------\nFrom: IT Operations <it-ops@%s.io>\nDate: Tue, %d Nov 2026 09:%02d\n"
                "Subject: %s access for the new pipeline\n\nHi team,\nthe %s credential for the pipeline is below.\n\n    %s\n\n"
                "Regards,\nIT Operations\n%s.io") % (c, R.randint(1, 28), R.randint(0, 59), name, name, v, c)
        vals = [v]
    elif kind == 9:
        enc = b64(v.encode())
        text = ("$ kubectl get secret %s-creds -o yaml\napiVersion: v1\ndata:\n  %s: %s\nkind: Secret\nmetadata:\n"
                "  name: %s-creds\n  namespace: prod\ntype: Opaque") % (fam.split("_")[0], var.lower(), enc, fam.split("_")[0])
        vals = [enc]
    else:
        text = ("$ docker inspect api-worker --format '{{json .Config.Env}}'\n[\"NODE_ENV=production\",\"PORT=8080\",\"%s=%s\"]"
                % (var, v))
        vals = [v]
    if named and name.split()[0].lower() not in text.lower() and var not in text:
        text = "(%s) " % name + text
    return text, vals, lang


# ---------------------------------------------------------------- non-vendor secrets
WORDS = ["harbor", "velvet", "quokka", "lantern", "marzipan", "tundra", "cobalt", "pickle", "saffron", "orbit", "juniper",
         "walrus", "meadow", "cactus", "zephyr", "biscuit", "granite", "falcon", "noodle", "ember"]


def human_pw():
    k = R.randrange(4)
    if k == 0:
        return R.choice(WORDS).capitalize() + str(R.randint(1971, 2025)) + R.choice("!?#$%&*")
    if k == 1:
        w = R.choice(WORDS)
        return w.replace("a", "@").replace("o", "0").replace("e", "3").capitalize() + str(R.randint(10, 99)) + R.choice("!#.")
    if k == 2:
        return rs(ALNUM + "!#%*+-_", R.randint(13, 19))
    return "-".join(R.sample(WORDS, 4))


def pin(n=4):
    while True:
        p = rs(DIG, n)
        if len(set(p)) > 2 and p not in "0123456789" and p not in "9876543210" and not p.startswith(("19", "20")):
            return p


PW_PROSE = [
    "my wifi password is {p} (network {ssid})",
    "the wifi at my parents' place: {ssid} / {p}",
    "hey can u remember my netflix password? its {p}",
    "new laptop login password = {p}  — dont forget it this time lol",
    "Mein WLAN-Passwort ist {p}, Netz heißt {ssid}",
    "le mot de passe du wifi c'est {p} (réseau {ssid})",
    "la contraseña de mi correo es {p}",
    "a senha do wifi do escritório é {p}",
    "la password del router è {p}",
    "мой пароль от почты {p}",
    "wifiのパスワードは {p} です（{ssid}）",
    "我的路由器密码是 {p}",
    "비밀번호 바꿨어: {p}",
    "şifrem {p}, unutursam bana hatırlat",
    "hasło do banku to {p}",
    "wachtwoord van de nas is {p}",
    "mật khẩu wifi nhà mình là {p}",
    "kata sandi email saya {p}",
    "ye mera gmail ka password hai {p} yaad rakhna",
    "passord til ruteren: {p}",
]


def g_password_prose():
    p = human_pw()
    ssid = R.choice(["FRITZ!Box 7590 QX", "Vodafone-8C21", "TP-Link_4F2A", "casa_rossi_5G", "Livebox-91E0", "NETGEAR-5G-77"])
    return R.choice(PW_PROSE).format(p=p, ssid=ssid), [p]


def g_wifi_config():
    p = human_pw()
    ssid = R.choice(["HomeNet-%d" % R.randint(10, 99), "Zuhause_%s" % rs(UP, 3), "Apt%dB" % R.randint(2, 40)])
    k = R.randrange(3)
    if k == 0:
        t = "$ nmcli dev wifi show-password\nSSID: %s\nSecurity: WPA\nPassword: %s" % (ssid, p)
    elif k == 1:
        t = "wpa_supplicant.conf on the pi:\nnetwork={\n    ssid=\"%s\"\n    psk=\"%s\"\n    key_mgmt=WPA-PSK\n}" % (ssid, p)
    else:
        t = "decoded the wifi QR code from the fridge: WIFI:T:WPA;S:%s;P:%s;;" % (ssid, p)
    return t, [p]


SPOKEN = {"0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
          "8": "eight", "9": "nine"}
SPOKEN_DE = {"0": "null", "1": "eins", "2": "zwei", "3": "drei", "4": "vier", "5": "fünf", "6": "sechs", "7": "sieben",
             "8": "acht", "9": "neun"}


def g_code_prose():
    n = R.choice([4, 4, 5, 6])
    p = pin(n)
    k = R.randrange(10)
    if k == 0:
        return "door code changed to %s# btw, the old one doesn't work anymore" % p, [p]
    if k == 1:
        sp = " ".join(SPOKEN[c] for c in p)
        return "[voice memo, transcribed] okay so the garage code is %s, %s, got it" % (sp, sp), [sp]
    if k == 2:
        sp = " ".join(SPOKEN_DE[c] for c in p)
        return "[Sprachnachricht] der Code für den Schlüsselkasten ist %s" % sp, [sp]
    if k == 3:
        return "my bank card pin is %s, remind me if i ask" % p, [p]
    if k == 4:
        return "phone unlock pin: %s (the work phone, not mine)" % p, [p]
    if k == 5:
        return "alarm panel disarm code %s — the installer said to keep it safe" % p, [p]
    if k == 6:
        return "el código del portal es %s" % p, [p]
    if k == 7:
        return "金庫の暗証番号は%sです" % p, [p]
    if k == 8:
        return "Code d'accès de l'immeuble : %s, puis 2e étage gauche" % p, [p]
    return "sim pin %s, puk %s" % (pin(4), p), [p]


def g_otp():
    code = rs(DIG, 6)
    while len(set(code)) < 3:
        code = rs(DIG, 6)
    k = R.randrange(5)
    if k == 0:
        return "the code they sent me is %s %s, can you enter it for me" % (code[:3], code[3:]), [code[:3] + " " + code[3:]]
    if k == 1:
        return "fwd sms: \"%s is your Brightfold verification code. It expires in 10 minutes. Don't share it.\"" % code, [code]
    if k == 2:
        return "Dein Anmeldecode: %s — einfach ins Formular kopieren" % code, [code]
    if k == 3:
        return "2FA code from the authenticator right now: %s (use it quick)" % code, [code]
    return "验证码 %s，五分钟内有效" % code, [code]


def g_recovery():
    k = R.randrange(5)
    if k == 0:
        codes = ["%s %s" % (rs(DIG, 4), rs(DIG, 4)) for _ in range(10)]
        return "Google backup codes, print later:\n" + "\n".join(codes), codes
    if k == 1:
        key = "-".join(rs(UP + DIG, 4) for _ in range(7))
        return "Apple account recovery key: %s (store offline!!)" % key, [key]
    if k == 2:
        sk = "A3-" + rs(UP + DIG, 6) + "-" + rs(UP + DIG, 6) + "-" + "-".join(rs(UP + DIG, 5) for _ in range(4))
        return "1Password emergency kit\nSign-in address: my.1password.eu\nSecret Key: %s" % sk, [sk]
    if k == 3:
        c = rs(UP + DIG, 32)
        return "bitwarden two-step login recovery code: %s" % " ".join(c[i:i + 4] for i in range(0, 32, 4)), \
            [" ".join(c[i:i + 4] for i in range(0, 32, 4))]
    c = "-".join(rs(UP + DIG, 5) for _ in range(5))
    return "Microsoft account recovery code (new one after I used the old): %s" % c, [c]


BIP39 = ["abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd", "abuse", "access",
         "accident", "account", "accuse", "achieve", "acid", "acoustic", "acquire", "across", "act", "action", "actor",
         "actress", "actual", "adapt", "add", "addict", "address", "adjust", "admit", "adult", "advance", "advice",
         "aerobic", "affair", "afford", "afraid", "again", "age", "agent", "agree", "ahead", "aim", "air", "airport",
         "aisle", "alarm", "album", "alcohol", "alert", "alien", "all", "alley", "allow", "almost", "alone", "alpha",
         "already", "also", "alter", "always", "amateur", "amazing", "among", "amount", "amused", "analyst", "anchor",
         "ancient", "anger", "angle", "angry", "animal", "ankle", "announce", "annual", "another", "answer", "antenna",
         "antique", "anxiety", "any", "apart", "apology", "appear", "apple", "approve", "april", "arch", "arctic",
         "area", "arena", "argue", "arm", "armed", "armor", "army", "around", "arrange", "arrest", "arrive", "arrow",
         "art", "artefact", "artist", "artwork", "ask", "aspect", "assault", "asset", "assist", "assume", "asthma",
         "athlete", "atom", "attack", "attend", "attitude", "attract", "auction", "audit", "august", "aunt", "author",
         "auto", "autumn", "average", "avocado", "avoid", "awake", "aware", "away", "awesome", "awful", "awkward",
         "axis", "baby", "bachelor", "bacon", "badge", "bag", "balance", "balcony", "ball", "bamboo", "banana",
         "banner", "bar", "barely", "bargain", "barrel", "base", "basic", "basket", "battle", "beach", "bean",
         "beauty", "because", "become", "beef", "before", "begin", "behave", "behind", "believe", "below", "belt",
         "bench", "benefit", "best", "betray", "better", "between", "beyond", "bicycle", "bid", "bike", "bind",
         "biology", "bird", "birth", "bitter", "black", "blade", "blame", "blanket", "blast", "bleak", "bless"]


def g_crypto():
    k = R.randrange(6)
    if k == 0:
        ws = " ".join(R.sample(BIP39, 12))
        return "my metamask seed phrase (write it on paper later): %s" % ws, [ws]
    if k == 1:
        ws = R.sample(BIP39, 24)
        t = "Ledger recovery sheet:\n" + "\n".join("%2d. %s" % (i + 1, w) for i, w in enumerate(ws))
        return t, [" %s" % ws[0]] + ["%d. %s" % (i + 1, w) for i, w in enumerate(ws)][1:]
    if k == 2:
        h = "0x" + rs(HEX, 64)
        return "export the deployer wallet private key into hardhat: PRIVATE_KEY=%s" % h, [h]
    if k == 3:
        w = b58check(b"\x80" + rbytes(32) + b"\x01")
        return "bitcoin core dumpprivkey output: %s  (the savings wallet)" % w, [w]
    if k == 4:
        arr = json.dumps(list(rbytes(64)), separators=(",", ""))
        return "$ cat ~/.config/solana/id.json\n" + arr.replace(",", ","), [arr]
    n = bech32_encode("nsec", rbytes(32))
    return "my nostr key so you can post for me: %s" % n, [n]


def g_cookie():
    k = R.randrange(6)
    if k == 0:
        v = "s%3A" + rs(B64URL, 32) + "." + rs(ALNUM + "%2F", 43)
        return "copied from devtools → Application → Cookies: connect.sid=%s" % v, [v]
    if k == 1:
        v = "eyJ" + rs(B64URL, 60) + "." + rs(B64URL, 6) + "." + rs(B64URL, 27)
        return "Cookie: session=%s; theme=dark" % v, [v]
    if k == 2:
        v = rs(B64URL, 120) + ".." + rs(B64URL, 22)
        return "set-cookie: __Secure-next-auth.session-token=%s; Path=/; HttpOnly; Secure; SameSite=Lax" % v, [v]
    if k == 3:
        v = rs(ALNUM + "%", 180) + "--" + rs(HEX, 40)
        return "rails log dump\nCookie: _shopfront_session=%s" % v, [v]
    if k == 4:
        v = rs(HEX, 32)
        return "grafana_session=%s  <- paste this into the browser to skip login" % v, [v]
    v = rs(HEX, 48)
    return "jupyter is up: http://127.0.0.1:8888/lab?token=%s" % v, [v]


def g_signed_url():
    k = R.randrange(3)
    if k == 0:
        sig = rs(HEX, 512)
        url = ("https://storage.googleapis.com/%s-exports/q3/report.csv?X-Goog-Algorithm=GOOG4-RSA-SHA256"
               "&X-Goog-Credential=exporter%%40%s.iam.gserviceaccount.com%%2F20261130%%2Fauto%%2Fstorage%%2Fgoog4_request"
               "&X-Goog-Date=20261130T101500Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature=%s") % (co(), co(), sig)
        return "download link for the accountant (valid a week): " + url, [sig]
    if k == 1:
        sig = rs(B64URL.replace("-", "~"), 170)
        url = "https://d%s.cloudfront.net/videos/onboarding.mp4?Expires=%d&Signature=%s&Key-Pair-Id=K%s" % (
            rs(LOW + DIG, 13), R.randint(1790000000, 1800000000), sig, rs(UP + DIG, 13))
        return url, [sig]
    sig = rs(ALNUM + "%2B", 28)
    url = "https://%s-backups.s3.amazonaws.com/db.dump.gz?AWSAccessKeyId=AKIA%s&Expires=%d&Signature=%s%%3D" % (
        co(), rs(B32, 16), R.randint(1790000000, 1800000000), sig)
    return "old style presigned url from the script: " + url, [sig]


def g_connection():
    pw = human_pw().replace("@", "!").replace("/", "_").replace(":", ".").replace("#", "!").replace("%", "!")
    u = R.choice(["svc_reporting", "etl", "app_rw", "analytics", "backup"])
    h = "%s.%s.internal" % (R.choice(["db1", "warehouse", "pg-main", "ora"]), co())
    k = R.randrange(10)
    forms = [
        "snowflake://%s:%s@%s-eu/ANALYTICS/PUBLIC?warehouse=COMPUTE_WH" % (u, pw, co()),
        "clickhouse://%s:%s@%s:9440/default?secure=true" % (u, pw, h),
        "sqlplus %s/%s@//%s:1521/ORCLPDB1" % (u, pw, h),
        "$ PGPASSWORD='%s' psql -h %s -U %s -d billing" % (pw, h, u),
        "~/.pgpass\n%s:5432:billing:%s:%s" % (h, u, pw),
        "~/.netrc\nmachine %s\n  login %s\n  password %s" % (h, u, pw),
        "sudo mount -t cifs //nas.%s.lan/media /mnt/media -o username=%s,password=%s,vers=3.0" % (co(), u, pw),
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:%s,1433;Database=crm;Uid=%s;Pwd=%s;Encrypt=yes;" % (h, u, pw),
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";" % (u, pw),
        "$ ldapsearch -x -H ldaps://%s -D \"cn=%s,ou=svc,dc=corp\" -w '%s' '(uid=*)'" % (h, u, pw),
    ]
    return forms[k], [pw]


def der_b64_lines(der, w=64):
    s = b64(der)
    return [s[i:i + w] for i in range(0, len(s), w)]


def ec_p8():
    return (bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420") + rbytes(32)
            + bytes.fromhex("a14403420004") + rbytes(64))


def ed_p8():
    return bytes.fromhex("302e020100300506032b657004220420") + rbytes(32)


def rsa_p1():
    return bytes.fromhex("308204a40201000282010100") + rbytes(1180)


def g_private_key():
    k = R.randrange(7)
    if k == 0:
        ls = der_b64_lines(ec_p8())
        pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(ls) + "\n-----END PRIVATE KEY-----"
        kid = rs(UP + DIG, 10)
        return "APNs auth key AuthKey_%s.p8 (key id %s, team %s):\n%s" % (kid, kid, rs(UP + DIG, 10), pem), ls
    if k == 1:
        ls = der_b64_lines(ed_p8())
        pem = "-----BEGIN PRIVATE KEY----- " + " ".join(ls) + " -----END PRIVATE KEY-----"
        return "pasting the signing key, sorry chat ate the newlines: " + pem, ls
    if k == 2:
        ls = der_b64_lines(rsa_p1())
        pem = "-----BEGIN RSA PRIVATE KEY-----\\n" + "\\n".join(ls) + "\\n-----END RSA PRIVATE KEY-----\\n"
        return "$ vault kv get -format=json secret/tls/api\n{\"data\": {\"data\": {\"tls.key\": \"%s\"}}}" % pem, ls[:3]
    if k == 3:
        key = b64(rbytes(32))
        return ("[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = %s\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = %s\n"
                "Endpoint = vpn.%s.net:51820\nAllowedIPs = 0.0.0.0/0") % (key, b64(rbytes(32)), co()), [key]
    if k == 4:
        ls = der_b64_lines(rsa_p1())
        pem = "\n".join(ls)
        return ("deploy_key = \"\"\"\n-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\n\"\"\"  # config.toml"
                % pem), ls[:3]
    if k == 5:
        ls = der_b64_lines(ec_p8())
        pem = "\\n".join(["-----BEGIN PRIVATE KEY-----"] + ls + ["-----END PRIVATE KEY-----"])
        return ("  File \"/app/auth.py\", line 41, in load_signer\n    key = serialization.load_pem_private_key(raw)\n"
                "ValueError: Could not deserialize key data. raw=b'%s'" % pem), ls[:2]
    blob = b64(b"Ed" + rbytes(72))
    return ("untrusted comment: minisign encrypted secret key\nRWRTY0Iy%s" % blob), [blob]


def g_split():
    k = R.randrange(5)
    v = tok_openai() if k < 2 else tok_github()
    if k == 0:
        a, b = v[:40], v[40:]
        return "key part 1: %s\n(next message) part 2: %s" % (a, b), [a, b]
    if k == 1:
        return "OPENAI_API_KEY=%s\\\n%s" % (v[:60], v[60:]), [v[:60], v[60:]]
    if k == 2:
        esc = v.replace("_", "\\_")
        return "from the markdown export: token is %s" % esc, [esc]
    if k == 3:
        enc = b64(("x-access-token:" + v).encode())
        return "git config http.extraheader \"AUTHORIZATION: basic %s\"" % enc, [enc]
    rev = v[::-1]
    return "stored it reversed so scanners dont catch it lol: %s (reverse it)" % rev, [rev]


# ---------------------------------------------------------------- personal data
def rdate(y0=1950, y1=2004):
    return R.randint(y0, y1), R.randint(1, 12), R.randint(1, 28)


def name():
    f, l = person()
    return f + " " + l


def g_national_id():
    k = R.randrange(20)
    n = name()
    y, m, d = rdate()
    if k == 0:
        while True:
            a = R.randint(1, 899)
            if a != 666:
                break
        v = "%03d-%02d-%04d" % (a, R.randint(1, 99), R.randint(1, 9999))
        return "w-2 form says SSN %s, can you fill that into the tax form for me" % v, [v], "us_ssn", ssn_ok
    if k == 1:
        while True:
            v = R.choice("ABCEGHJKLMNOPRSTWXYZ") + R.choice("ABCEGHJKLMNPRSTWXYZ") + rs(DIG, 6) + R.choice("ABCD")
            if nino_ok(v):
                break
        vv = "%s %s %s %s %s" % (v[:2], v[2:4], v[4:6], v[6:8], v[8])
        return "my NI number is %s (for the payroll form)" % vv, [vv], "uk_nino", nino_ok
    if k == 2:
        body = R.choice("23456789") + rs(DIG, 10)
        v = body + verhoeff_digit(body)
        vv = "%s %s %s" % (v[:4], v[4:8], v[8:])
        return "aadhaar for the KYC: %s — %s" % (vv, n), [vv], "in_aadhaar", lambda s: verhoeff_ok(s.replace(" ", ""))
    if k == 3:
        v = rs(UP, 3) + "P" + R.choice(UP) + rs(DIG, 4) + R.choice(UP)
        return "PAN card no. %s, name as on card: %s" % (v, n.upper()), [v], "in_pan", lambda s: bool(re.fullmatch(r"[A-Z]{3}P[A-Z]\d{4}[A-Z]", s))
    if k == 4:
        v = cpf_digits(rs(DIG, 9))
        vv = "%s.%s.%s-%s" % (v[:3], v[3:6], v[6:9], v[9:])
        return "meu CPF é %s, pode colocar no cadastro" % vv, [vv], "br_cpf", cpf_ok
    if k == 5:
        area = R.choice(["110105", "310104", "440305", "510107", "330106"])
        body = area + "%04d%02d%02d" % (y, m, d) + rs(DIG, 3)
        v = body + cn_check(body)
        return "身份证号：%s，订机票用" % v, [v], "cn_resident_id", cn_ok
    if k == 6:
        body = rs(DIG, 11)
        v = body + mynumber_check(body)
        vv = "%s %s %s" % (v[:4], v[4:8], v[8:])
        return "マイナンバーは %s です（年末調整用）" % vv, [vv], "jp_my_number", mynumber_ok
    if k == 7:
        al = "CFGHJKLMNPRTVWXYZ0123456789"
        body = R.choice("LMNPRTVWXY") + "".join(R.choice(al) for _ in range(8))
        v = body + icao_check(body)
        return "Personalausweisnummer für die Anmeldung: %s (%s)" % (v, n), [v], "de_personalausweis", lambda s: icao_check(s[:9]) == s[9]
    if k == 8:
        while True:
            body = "%02d%02d%02d" % (y % 100, m, d) + rs(DIG, 3)
            v = body + luhn_digit(body)
            if se_pnr_ok(v[:6] + "-" + v[6:]):
                break
        vv = v[:6] + "-" + v[6:]
        return "mitt personnummer är %s om du behöver det till bokningen" % vv, [vv], "se_personnummer", se_pnr_ok
    if k == 9:
        body = "%02d%02d%02d" % (d, m, y % 100)
        ind = "%03d" % R.randint(2, 899)
        sep = "-" if y < 2000 else "A"
        v = body + sep + ind + FI_CHARS[int(body + ind) % 31]
        return "henkilötunnukseni on %s" % v, [v], "fi_hetu", fi_hetu_ok
    if k == 10:
        body = "%02d%02d%02d" % (y % 100, m + (20 if y >= 2000 else 0), d) + rs(DIG, 4)
        w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
        v = body + str((10 - sum(int(a) * b for a, b in zip(body, w)) % 10) % 10)
        return "PESEL: %s — %s, do umowy najmu" % (v, n), [v], "pl_pesel", pesel_ok
    if k == 11:
        s15 = rs(UP, 6) + "%02d" % (y % 100) + "ABCDEHLMPRST"[m - 1] + "%02d" % (d + R.choice([0, 40])) + R.choice(UP) + rs(DIG, 3)
        v = s15 + cf_check(s15)
        return "codice fiscale %s, serve per il contratto della luce" % v, [v], "it_codice_fiscale", cf_ok
    if k == 12:
        body = "%02d%02d%02d" % (y % 100, m, d) + "%03d" % R.randint(1, 997)
        if y >= 2000:
            cc = 97 - int("2" + body) % 97
        else:
            cc = 97 - int(body) % 97
        v = "%s.%s.%s-%s.%02d" % (body[:2], body[2:4], body[4:6], body[6:9], cc)
        return "rijksregisternummer / numéro national : %s" % v, [v], "be_national_number", be_nn_ok
    if k == 13:
        while True:
            body = R.choice("1234567") + rs(DIG, 7)
            v = body + luhn_digit(body)
            break
        vv = "%s %s %s" % (v[:3], v[3:6], v[6:])
        return "my SIN is %s, the accountant needs it" % vv, [vv], "ca_sin", sin_ok
    if k == 14:
        w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
        while True:
            v = rs(DIG, 9)
            if v[0] != "0" and sum(int(a) * b for a, b in zip(v, w)) % 11 == 0:
                break
        vv = "%s %s %s" % (v[:3], v[3:6], v[6:])
        return "TFN for the super fund form: %s" % vv, [vv], "au_tfn", tfn_ok
    if k == 15:
        while True:
            base = "%08d" % R.randint(10000000, 14999999)
            c = ird_check(base)
            if c:
                break
        v = base + c
        vv = "%s-%s-%s" % (v[:3], v[3:6], v[6:])
        return "IRD number %s (mine, for the KiwiSaver form)" % vv, [vv], "nz_ird", ird_ok
    if k == 16:
        w = [-1, 5, 7, 9, 4, 6, 10, 5, 7]
        body = rs(DIG, 9)
        v = body + str((sum(int(a) * b for a, b in zip(body, w)) % 11) % 10)
        return "мій РНОКПП (ІПН): %s" % v, [v], "ua_rnokpp", ua_rnokpp_ok
    if k == 17:
        body = R.choice(["77", "50", "78", "66"]) + rs(DIG, 8)
        w1 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        c1 = sum(int(a) * b for a, b in zip(body, w1)) % 11 % 10
        b11 = body + str(c1)
        w2 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        v = b11 + str(sum(int(a) * b for a, b in zip(b11, w2)) % 11 % 10)
        return "ИНН физлица %s, %s" % (v, n), [v], "ru_inn", inn12_ok
    if k == 18:
        while True:
            d9 = rs(DIG, 9)
            if int(d9) > 1001998:
                break
        v = "%s-%s-%s %s" % (d9[:3], d9[3:6], d9[6:], snils_check(d9))
        return "СНИЛС: %s" % v, [v], "ru_snils", snils_ok
    body = "756" + rs(DIG, 9)
    c = (10 - sum(int(x) * (1 if i % 2 == 0 else 3) for i, x in enumerate(body)) % 10) % 10
    v = body + str(c)
    vv = "%s.%s.%s.%s" % (v[:3], v[3:7], v[7:11], v[11:])
    return "AHV-Nummer für die Krankenkasse: %s" % vv, [vv], "ch_ahv", ean13_ok


def g_health():
    k = R.randrange(3)
    if k == 0:
        body = "800360" + rs(DIG, 9)
        v = body + luhn_digit(body)
        vv = " ".join(v[i:i + 4] for i in range(0, 16, 4))
        return "my IHI (individual healthcare identifier) is %s" % vv, [vv], "au_ihi", luhn_ok
    if k == 1:
        y, m, d = rdate()
        while True:
            b = "%02d%02d%02d" % (d, m, y % 100) + rs(DIG, 3)
            r = sum(int(b[i]) * (10 - i) for i in range(9)) % 11
            c = 11 - r
            if c == 11:
                c = 0
            if c != 10:
                break
        v = b + str(c)
        return "CHI number %s %s %s for the GP surgery form" % (v[:3], v[3:6], v[6:]), ["%s %s %s" % (v[:3], v[3:6], v[6:])], \
            "scot_chi", chi_ok
    v = "80" + rs(DIG, 18)
    return "Tarjeta sanitaria europea (TSE), número de identificación de la tarjeta: %s — la mía, por si me la piden en el viaje" % v, \
        [v], "ehic_card", lambda s: len(s) == 20


PASSPORTS = [
    ("IT", lambda: rs(UP, 2) + rs(DIG, 7), "numero di passaporto: {v}"),
    ("NL", lambda: rs("ABCDEFGHIJKLMNPQRSTUVWXYZ", 2) + rs("ABCDEFGHIJKLMNPQRSTUVWXYZ0123456789", 6) + rs(DIG, 1), "paspoortnummer {v}"),
    ("SE", lambda: rs(DIG, 8), "passnummer {v}"),
    ("AU", lambda: "P" + R.choice("ABCDEFGHJKLMNRU") + rs(DIG, 7), "passport no {v} (Australian)"),
    ("MX", lambda: R.choice("GN") + rs(DIG, 8), "mi número de pasaporte es {v}"),
    ("PL", lambda: rs(UP, 2) + rs(DIG, 7), "numer paszportu: {v}"),
    ("ZA", lambda: "A" + rs(DIG, 8), "here's my passport number for the booking: {v}"),
    ("NG", lambda: "A" + rs(DIG, 8), "passport number {v}, expires 2031"),
    ("US", lambda: R.choice("ACE") + rs(DIG, 8), "here's my passport number for the hotel booking: {v}"),
]


def g_passport():
    cc, gen, w = R.choice(PASSPORTS)
    v = gen()
    return "%s\n— %s" % (w.format(v=v), name()), [v], "passport_" + cc.lower(), None


def g_driving():
    k = R.randrange(4)
    if k == 0:
        v = "%s%02d %d%07d" % (R.choice(["MH", "KA", "DL", "TN"]), R.randint(1, 50), R.randint(2005, 2024), R.randint(1, 9999999))
        return "driving licence no. %s (for the car rental)" % v, [v], "in_driving_licence"
    if k == 1:
        v = rs(DIG, 3) + " " + rs(DIG, 3) + " " + rs(DIG, 3)
        return "my NY driver license ID is %s" % v, [v], "us_ny_driver_license"
    if k == 2:
        v = rs(DIG, 12)
        return "numéro de permis de conduire : %s (le mien)" % v, [v], "fr_permis"
    v = R.choice(UP) + rs(DIG, 12)
    return "FL DL# %s-%s-%s-%s-%s" % (v[:4], v[4:7], v[7:9], v[9:12], v[12:]), ["%s-%s-%s-%s-%s" % (v[:4], v[4:7], v[7:9], v[9:12], v[12:])], "us_fl_driver_license"


PHONES = [
    ("MX", lambda: "+52 55 %s %s" % (rs(DIG, 4), rs(DIG, 4)), "mi cel es {v}, mándame whats"),
    ("AR", lambda: "+54 9 11 %s-%s" % (rs(DIG, 4), rs(DIG, 4)), "mi número es {v}"),
    ("CO", lambda: "+57 3%s %s %s" % (rs(DIG, 2), rs(DIG, 3), rs(DIG, 4)), "llámame al {v}"),
    ("PH", lambda: "0917 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "text me at {v} po"),
    ("VN", lambda: "09%s %s %s" % (rs(DIG, 1), rs(DIG, 3), rs(DIG, 4)), "sđt của mình: {v}"),
    ("ID", lambda: "+62 812-%s-%s" % (rs(DIG, 4), rs(DIG, 4)), "nomor hp saya {v}"),
    ("TH", lambda: "08%s-%s-%s" % (rs(DIG, 1), rs(DIG, 3), rs(DIG, 4)), "เบอร์โทรของฉัน {v}"),
    ("NG", lambda: "+234 803 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "my number is {v}, call after 6"),
    ("KE", lambda: "0722 %s %s" % (rs(DIG, 3), rs(DIG, 3)), "my safaricom line {v}"),
    ("EG", lambda: "+20 10 %s %s" % (rs(DIG, 4), rs(DIG, 4)), "رقم موبايلي {v}"),
    ("PK", lambda: "0300-%s" % rs(DIG, 7), "mera number {v} hai"),
    ("NZ", lambda: "021 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "flick me a text on {v}"),
    ("IE", lambda: "087 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "my mobile is {v}"),
    ("AT", lambda: "+43 664 %s" % rs(DIG, 7), "meine Handynummer: {v}"),
    ("BE", lambda: "0470 %s %s %s" % (rs(DIG, 2), rs(DIG, 2), rs(DIG, 2)), "mon gsm : {v}"),
    ("FI", lambda: "040 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "puhelinnumeroni on {v}"),
    ("HU", lambda: "+36 30 %s %s" % (rs(DIG, 3), rs(DIG, 4)), "a mobilszámom {v}"),
    ("US", lambda: "(%d) %d%s-%s ext. %s" % (R.randint(201, 989), R.randint(2, 9), rs(DIG, 2), rs(DIG, 4), rs(DIG, 3)),
     "my direct line at the office is {v}, ask for me"),
    ("SG", lambda: "+65 9%s %s" % (rs(DIG, 3), rs(DIG, 4)), "my hp: {v}"),
    ("MA", lambda: "06 %s %s %s %s" % (rs(DIG, 2), rs(DIG, 2), rs(DIG, 2), rs(DIG, 2)), "mon numéro perso {v}"),
]


def g_phone():
    k = R.randrange(5)
    if k == 0:
        digits = "0176" + rs(DIG, 7)
        sp = " ".join(SPOKEN[c] for c in digits)
        return "[transcribed] call me back on oh one seven six %s" % " ".join(SPOKEN[c] for c in digits[4:]), \
            [" ".join(SPOKEN[c] for c in digits[4:])], "phone_spoken"
    cc, gen, w = R.choice(PHONES)
    v = gen()
    if k == 1:
        f, l = person()
        c = co()
        return ("--\n%s %s\nSenior Buyer | %s\nmobile: %s\n%s.io" % (f, l, c.title(), v, c)), [v], "phone_signature_" + cc.lower()
    return w.format(v=v), [v], "phone_" + cc.lower()


MAILHOSTS = ["outlook.com", "icloud.com", "proton.me", "yandex.ru", "mail.ru", "hotmail.co.uk", "t-online.de", "free.fr",
             "laposte.net", "wp.pl", "o2.pl", "rediffmail.com", "163.com", "seznam.cz", "bluewin.ch"]


def g_email():
    f, l = person()
    local = R.choice(["%s.%s", "%s%s", "%s_%s"]) % (f.lower().replace("é", "e"), l.lower().replace("ó", "o").replace("-", ""))
    v = local + str(R.randint(1, 99)) + "@" + R.choice(MAILHOSTS)
    k = R.randrange(3)
    if k == 0:
        return "send the invoice to my private address pls: %s" % v, [v]
    if k == 1:
        return "> On Mon, %d Nov 2026, %s %s <%s> wrote:\n> sounds good, see you thursday" % (R.randint(1, 28), f, l, v), [v]
    return "contact\tpersonal email\n%s %s\t%s" % (f, l, v), [v]


ADDR = [
    ("at", lambda: "ich wohn in der %sgasse %d/%d, %d Wien" % (R.choice(["Linden", "Schotten", "Kirch"]), R.randint(2, 60), R.randint(1, 20), R.choice([1050, 1070, 1160]))),
    ("ch", lambda: "Meine Adresse: %sstrasse %d, %d Zürich" % (R.choice(["Birmensdorfer", "Hohl", "Seefeld"]), R.randint(2, 200), R.choice([8003, 8004, 8008]))),
    ("se", lambda: "bor på %svägen %d, lgh %d, %d %d Malmö" % (R.choice(["Björk", "Lund", "Hav"]), R.randint(2, 80), R.randint(1001, 1402), R.randint(211, 217), R.randint(10, 99))),
    ("ca", lambda: "ship it to my place: %d Maple Crescent, Unit %d, Ottawa ON K%dA %d%s%d" % (R.randint(10, 990), R.randint(1, 30), R.randint(1, 2), R.randint(1, 9), R.choice(UP), R.randint(1, 9))),
    ("au", lambda: "home address is %d/%d Wattle St, Newtown NSW 2042" % (R.randint(1, 20), R.randint(2, 90))),
    ("ie", lambda: "i live at %d Oakfield Park, Ballincollig, Co. Cork P31 %s" % (R.randint(1, 90), rs(UP + DIG, 4))),
    ("in", lambda: "my address: Flat %d, %s Apartments, 4th Cross, Indiranagar, Bengaluru 5600%02d" % (R.randint(101, 904), R.choice(["Lotus", "Sai Krupa", "Green Glen"]), R.randint(1, 99))),
    ("mx", lambda: "mi dirección: Calle %s %d int. %d, Col. Roma Norte, CDMX, C.P. 06700" % (R.choice(["Orizaba", "Tabasco", "Colima"]), R.randint(10, 300), R.randint(1, 12))),
    ("ar", lambda: "vivo en Av. Corrientes %d, piso %d depto %s, CABA" % (R.randint(1000, 6000), R.randint(1, 15), R.choice("ABCD"))),
    ("za", lambda: "my home address is %d Jacaranda Ave, Parkhurst, Johannesburg 2193" % R.randint(2, 90)),
    ("sg", lambda: "Blk %d Tampines St %d, #%02d-%d, Singapore 52%04d (home)" % (R.randint(100, 900), R.randint(11, 90), R.randint(2, 20), R.randint(100, 999), R.randint(0, 9999))),
    ("vn", lambda: "nhà mình ở số %d ngõ %d Kim Mã, Ba Đình, Hà Nội" % (R.randint(2, 80), R.randint(10, 300))),
    ("pt", lambda: "moro na Rua da %s, %d, %dº esq., 1100-%03d Lisboa" % (R.choice(["Graça", "Madalena", "Prata"]), R.randint(2, 150), R.randint(1, 6), R.randint(1, 999))),
    ("cz", lambda: "bydlím na adrese %s %d/%d, 130 00 Praha 3" % (R.choice(["Seifertova", "Husinecká", "Bořivojova"]), R.randint(100, 2000), R.randint(1, 90))),
    ("gr", lambda: "η διεύθυνσή μου: %s %d, 106 %02d Αθήνα" % (R.choice(["Σκουφά", "Ασκληπιού", "Μαυρομιχάλη"]), R.randint(2, 90), R.randint(71, 82))),
    ("fi", lambda: "kotiosoite: %skatu %d A %d, 00%d0 Helsinki" % (R.choice(["Fleminginkatu", "Kalevan", "Porthanin"]), R.randint(2, 40), R.randint(1, 30), R.randint(10, 99))),
]


def g_address():
    cc, gen = R.choice(ADDR)
    v = gen()
    return v + "\n(" + name() + ")", [v], "home_address_" + cc


def g_dob():
    f, l = person()
    y, m, d = rdate()
    k = R.randrange(5)
    if k == 0:
        v = "%02d/%02d/%d" % (m, d, y)
        return "%s %s, DOB %s — for the insurance quote" % (f, l, v), [v]
    if k == 1:
        v = "%02d.%02d.%d" % (d, m, y)
        return "%s %s, geb. %s" % (f, l, v), [v]
    if k == 2:
        v = "%d-%02d-%02d" % (y, m, d)
        return "passenger: %s %s\tdate_of_birth: %s" % (l.upper(), f.upper(), v), [v]
    if k == 3:
        v = "%d de %s de %d" % (d, ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                                   "octubre", "noviembre", "diciembre"][m - 1], y)
        return "%s %s nació el %s" % (f, l, v), [v]
    v = "%d年%d月%d日" % (y, m, d)
    return "%s %sさんの生年月日は%sです" % (f, l, v), [v]


IBANS = [("PT", lambda: rs(DIG, 21)), ("IE", lambda: rs(UP, 4) + rs(DIG, 14)), ("FI", lambda: rs(DIG, 14)),
         ("SE", lambda: rs(DIG, 20)), ("LU", lambda: rs(DIG, 3) + rs(UP + DIG, 13)), ("LV", lambda: rs(UP, 4) + rs(DIG, 13)),
         ("EE", lambda: rs(DIG, 16)), ("SI", lambda: "56" + rs(DIG, 13)), ("BG", lambda: rs(UP, 4) + rs(DIG, 6) + rs(DIG, 8)),
         ("CY", lambda: rs(DIG, 8) + rs(DIG, 16)), ("MT", lambda: rs(UP, 4) + rs(DIG, 5) + rs(DIG, 18)),
         ("IS", lambda: rs(DIG, 22)), ("LI", lambda: rs(DIG, 5) + rs(DIG, 12)), ("KW", lambda: rs(UP, 4) + rs(DIG, 22)),
         ("JO", lambda: rs(UP, 4) + rs(DIG, 22)), ("PK", lambda: rs(UP, 4) + rs(DIG, 16)), ("GE", lambda: rs(UP, 2) + rs(DIG, 16)),
         ("BH", lambda: rs(UP, 4) + rs(DIG, 14)), ("CR", lambda: "0" + rs(DIG, 17)), ("KZ", lambda: rs(DIG, 3) + rs(DIG, 13)),
         ("DE", lambda: rs(DIG, 18)), ("FR", lambda: rs(DIG, 23))]


def g_iban():
    cc, gen = R.choice(IBANS)
    v = iban_make(cc, gen())
    if R.random() < 0.6:
        v = iban_print(v)
    k = R.randrange(4)
    if k == 0:
        return "pay my share to this IBAN: %s (%s)" % (v, name()), [v], "iban_" + cc.lower()
    if k == 1:
        return "Name\tIBAN\tAmount\n%s\t%s\t€%d.00" % (name(), v, R.randint(20, 900)), [v], "iban_" + cc.lower()
    if k == 2:
        return "salary account for the new contract: %s, holder %s" % (v, name()), [v], "iban_" + cc.lower()
    return "meine Kontonummer (IBAN) ist %s" % v, [v], "iban_" + cc.lower()


TEST_CARDS = {"4242424242424242", "4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
              "4000056655665556", "5105105105105100", "4012888888881881"}


def g_card():
    brand, pre, ln = R.choice([("visa", "4", 16), ("mc", R.choice(["51", "53", "55", "2221", "2720"]), 16),
                               ("amex", R.choice(["34", "37"]), 15), ("discover", "6011", 16), ("jcb", "3530", 16),
                               ("unionpay", "62", 16), ("maestro", "6759", 19)])
    while True:
        body = pre + rs(DIG, ln - len(pre) - 1)
        v = body + luhn_digit(body)
        if v not in TEST_CARDS:
            break
    if ln == 15:
        vv = "%s %s %s" % (v[:4], v[4:10], v[10:])
    elif ln == 19:
        vv = "%s %s %s %s %s" % (v[:4], v[4:8], v[8:12], v[12:16], v[16:])
    else:
        vv = R.choice([" ", "-", ""]).join(v[i:i + 4] for i in range(0, 16, 4))
    exp = "%02d/%02d" % (R.randint(1, 12), R.randint(27, 31))
    k = R.randrange(4)
    if k == 0:
        t = "card for the booking: %s exp %s" % (vv, exp)
    elif k == 1:
        t = "my visa is %s, expires %s, use it for the renewal" % (vv, exp) if brand == "visa" else "card %s valid thru %s" % (vv, exp)
    elif k == 2:
        t = "Kartennummer %s, gültig bis %s" % (vv, exp)
    else:
        t = "payment_method\tnumber\texpiry\ncard\t%s\t%s" % (vv, exp)
    return t, [vv], "card_" + brand


# ---------------------------------------------------------------- benign hard negatives
def g_benign():
    k = R.randrange(16)
    if k == 0:
        return R.choice(["use this key: <YOUR_NETLIFY_TOKEN>", "HEROKU_API_KEY=changeme-in-ci", "export OPENAI_API_KEY=sk-proj-...your-key-here...",
                         "RESEND_API_KEY=re_xxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxx", "wifi password: ******** (ask me in person)"]) + " #" + rs(LOW, 4), "placeholder"
    if k == 1:
        return "Authorization: Bearer [REDACTED] (scrubbed by the log shipper, req %s)" % ruuid(), "redacted"
    if k == 2:
        return R.choice(["token: ${{ secrets.FLY_API_TOKEN }}", "api_key = os.environ[\"VERCEL_TOKEN\"]", "password: !vault | $ANSIBLE_VAULT",
                         "key: process.env.RESEND_API_KEY", "PGPASSWORD=$(op read op://infra/pg/password)"]) + "  # step %d" % R.randint(1, 99), "variable_reference"
    if k == 3:
        return R.choice(["i changed my wifi password yesterday, remind me to update the tv",
                         "ich muss mein Passwort morgen zurücksetzen", "the Netlify token expired, I'll make a new one later",
                         "mot de passe oublié encore une fois 🙃", "パスワードを変更しました", "kode OTP belum masuk"]) + " (%d)" % R.randint(1, 999), "talk_about_secret"
    if k == 4:
        return "commit %s merged into main" % rs(HEX, 40), "commit_sha"
    if k == 5:
        return "tenant_id: %s\nworkspace: %s" % (ruuid(), ruuid()), "uuid"
    if k == 6:
        return "%s  release-%d.%d.%d.tar.gz" % (hashlib.sha256(rbytes(16)).hexdigest(), R.randint(1, 9), R.randint(0, 20), R.randint(0, 9)), "content_hash"
    if k == 7:
        s = R.choice([b"page=3&sort=desc", b"hello from the build box", b'{"theme":"dark","lang":"de"}'])
        return "cursor: %s" % b64(s + rs(LOW, 3).encode()), "base64_data"
    if k == 8:
        return "ssh-ed25519 %s deploy@ci-runner" % b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rbytes(32)), "public_key"
    if k == 9:
        return "Our office: %s GmbH, Hafenstraße %d, 20457 Hamburg. Support hotline 0800 %s %s (toll-free)" % (
            co().title(), R.randint(1, 90), rs(DIG, 3), rs(DIG, 4)), "business_address"
    if k == 10:
        return "order #%s shipped, invoice INV-2026-%05d, total €%d.%02d" % (rs(DIG, 9), R.randint(1, 99999), R.randint(5, 900), R.randint(0, 99)), "order_invoice"
    if k == 11:
        return "python %d.%d.%d, node v%d.%d.%d, build %s" % (3, R.randint(8, 13), R.randint(0, 9), R.randint(18, 23), R.randint(0, 12), R.randint(0, 9), rs(DIG, 8)), "version_build"
    if k == 12:
        return "meet at %.5f, %.5f at %02d:%02d" % (R.uniform(40, 55), R.uniform(-5, 20), R.randint(7, 20), R.choice([0, 15, 30, 45])), "coordinates"
    if k == 13:
        return "event ts=%d (epoch ms %d) latency=%dms" % (R.randint(1700000000, 1800000000), int(digits_nonluhn(13, "17")), R.randint(3, 900)), "timestamp"
    if k == 14:
        return "[%s] INFO password policy: min length %d, rotation %d days, lockout after %d attempts" % (ts(), R.randint(10, 16), R.randint(60, 365), R.randint(3, 10)), "password_policy"
    return "card ending in %s was charged €%d.%02d" % (rs(DIG, 4), R.randint(1, 300), R.randint(0, 99)), "redacted"


# ---------------------------------------------------------------- assembly and self-check
LUHN_RUN = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
IBAN_RUN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}")
CONSUMER = re.compile(r"@(?:%s)\b" % "|".join(re.escape(h) for h in MAILHOSTS + ["gmail.com", "yahoo.com"]))


def has_luhn(t):
    for m in LUHN_RUN.finditer(t):
        d = re.sub(r"\D", "", m.group())
        for i in range(len(d)):
            for j in range(i + 13, len(d) + 1):
                if j - i <= 19 and luhn_ok(d[i:j]):
                    return True
    return False


def has_iban(t):
    for m in IBAN_RUN.finditer(t):
        s = m.group().replace(" ", "")
        for L in range(15, min(34, len(s)) + 1):
            if iban_ok(s[:L]):
                return True
    return False


def build():
    rows, seen = [], set()
    counters = {}

    def add(label, fam, text, vals):
        if text in seen or (label == "secret" and has_luhn(text)):
            return False
        seen.add(text)
        counters[(label, fam)] = counters.get((label, fam), 0) + 1
        pre = {"secret": "sec", "pii": "pii", "benign": "ben"}[label]
        rows.append({"id": "e-%s-%s-%03d" % (pre, fam, counters[(label, fam)]), "label": label, "family": fam,
                     "text": text, "_vals": vals})
        return True

    for vend in VENDORS:
        n = 0
        while n < 3:
            t, v, _ = vendor_context(*vend)
            n += add("secret", vend[0], t, v)
    special = [("password_prose", g_password_prose, 13), ("wifi_config", g_wifi_config, 8), ("code_prose", g_code_prose, 16),
               ("one_time_code", g_otp, 8), ("recovery_codes", g_recovery, 8), ("crypto_wallet_secret", g_crypto, 10),
               ("session_cookie", g_cookie, 10), ("signed_url", g_signed_url, 6), ("connection_string", g_connection, 12),
               ("private_key_container", g_private_key, 12), ("split_encoded", g_split, 8)]
    for fam, fn, n in special:
        c = 0
        while c < n:
            t, v = fn()
            c += add("secret", fam, t, v)
    while sum(1 for r in rows if r["label"] == "secret") < 234:
        t, v, _ = vendor_context(*R.choice(VENDORS[-6:]))
        fam = "vendor_new_context"
        add("secret", fam, t, v)
    pii_checks = {}
    plan = [(g_national_id, 40), (g_health, 8), (g_passport, 9), (g_driving, 5), (g_phone, 22), (g_email, 8),
            (g_address, 16), (g_dob, 8), (g_iban, 8), (g_card, 6)]
    for fn, n in plan:
        c = 0
        while c < n:
            out = fn()
            if fn in (g_email, g_dob):
                t, v = out
                fam = "personal_email" if fn is g_email else "date_of_birth"
                chk = None
            elif fn in (g_national_id, g_health, g_passport):
                t, v, fam, chk = out
            else:
                t, v, fam = out
                chk = None
                if fn is g_iban:
                    chk = iban_ok
                if fn is g_card:
                    chk = luhn_ok
            if add("pii", fam, t, v):
                c += 1
                if chk:
                    pii_checks[rows[-1]["id"]] = chk
    while sum(1 for r in rows if r["label"] == "benign") < 156:
        t, fam = g_benign()
        add("benign", fam, t, [])
    return rows, pii_checks


def selfcheck(rows, pii_checks):
    ok, out = selftest_algorithms()
    fails = []
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids) or len(set(r["text"] for r in rows)) != len(rows):
        fails.append("duplicate ids or texts")
    allvals = []
    for r in rows:
        pre = {"secret": "sec", "pii": "pii", "benign": "ben"}.get(r["label"])
        if not pre or not re.fullmatch(r"e-%s-[a-z0-9_]+-\d{3}" % pre, r["id"]):
            fails.append("bad id/label " + r["id"])
        if r["label"] != "benign" and not r["_vals"]:
            fails.append("no value " + r["id"])
        for v in r["_vals"]:
            if v not in r["text"]:
                fails.append("value not in text " + r["id"])
            allvals.append(v)
        if r["id"] in pii_checks and not pii_checks[r["id"]](r["_vals"][0]):
            fails.append("check digit " + r["id"])
        if r["label"] != "pii" and CONSUMER.search(r["text"]):
            fails.append("consumer email outside pii " + r["id"])
        if r["label"] in ("secret", "benign") and has_iban(r["text"]):
            fails.append("iban outside pii " + r["id"])
        if r["label"] in ("benign", "secret") and has_luhn(r["text"]):
            fails.append("luhn in benign " + r["id"])
    for r in rows:
        if r["label"] == "benign":
            for v in allvals:
                if len(v) >= 6 and v in r["text"]:
                    fails.append("sensitive value in benign " + r["id"])
    for f in fails[:20]:
        out.append("FAIL " + f.replace("luhn in benign", "luhn outside pii"))
    if not fails:
        out.append("PASS %d rows; ids, labels, values, check digits, benign/secret scans" % len(rows))
    return ok and not fails, out


def main():
    outdir = os.path.dirname(os.path.abspath(__file__))
    if "--out" in sys.argv:
        outdir = sys.argv[sys.argv.index("--out") + 1]
    rows, checks = build()
    ok, out = selfcheck(rows, checks)
    print("\n".join(out))
    if not ok:
        print("self-check failed; nothing written")
        sys.exit(1)
    from collections import Counter
    lab = Counter(r["label"] for r in rows)
    print("INFO labels: " + ", ".join("%s %d (%.1f%%)" % (k, lab[k], 100 * lab[k] / len(rows)) for k in ("secret", "pii", "benign")))
    if "--counts" in sys.argv:
        fc = Counter((r["label"], r["family"]) for r in rows)
        for (l, f), n in sorted(fc.items()):
            print("%s\t%s\t%d" % (l, f, n))
    with open(os.path.join(outdir, "secrets_set_e.jsonl"), "w", encoding="utf-8", newline="\n") as fh:
        for r in rows:
            fh.write(json.dumps({k: r[k] for k in ("id", "label", "family", "text")}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
