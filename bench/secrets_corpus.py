"""A deterministic, generated corpus for the no-store benchmark: secrets in prose, and risky-looking notes.

Secrets are generated, not listed: random key material in each provider's documented format, passwords
of several styles, keywords, connectors and surrounding prose drawn at random from per-language pools.
The benign notes are what an agent writes all day and that a naive scanner refuses: ids, hashes, URLs,
versions, dates, paths, digests, code that *handles* passwords, and prose about resetting them.
"""

# ruff: noqa: E501 - the templates below are data; wrapping each f-string would hide the shape of the note
from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits
LANGS = ("en", "es", "fr", "de", "pt", "ja")


@dataclass(frozen=True)
class Sample:
    text: str
    family: str | None  # the family the embedded secret belongs to; None for a benign note
    lang: str
    span: tuple[int, int] | None  # where the secret sits in text


def _chars(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


WORDS = (
    "sunshine dragon monkey shadow master summer winter autumn falcon tiger purple orange coffee pizza "
    "guitar rocket silver golden forest river castle island planet garden yellow bottle window mirror "
    "casa perro gato playa verano luna sol estrella maison soleil chien jardin fleur hiver sommer katze "
    "himmel blume wasser sonne praia gato verde cidade sakura neko yama umi hikari kaze batata"
).split()
NAMES = "ana bob carla dmitri elena farid gabi hiro ines jonas kim lucia marco nadia olaf pia quentin rosa sven".split()
SURNAMES = "smith garcia dupont müller silva tanaka rossi novak berg costa martin weber lopez sato".split()


# --- secret material, one generator per family -------------------------------------------------


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "$"})
# Password styles and how often people use them; style 6, a bare pair of lower-case words, is the
# hardest case for any detector and is kept on purpose.
PASSWORD_STYLES: tuple[tuple[int, Callable[[random.Random, str], str]], ...] = (
    (20, lambda r, w: _chars(r, B62 + "!@#$%^&*-_=+?", r.randint(8, 22))),  # fully random
    (18, lambda r, w: w.capitalize() + str(r.randint(1, 2030)) + r.choice("!?#$*.@")),  # Word2024!
    (12, lambda r, w: w.translate(_LEET) + r.choice(["", "!", "#", str(r.randint(0, 99))])),  # leetspeak
    (10, lambda r, w: r.choice("-_.").join(r.sample(WORDS, r.randint(3, 5)))),  # passphrase
    (8, lambda r, w: _chars(r, string.digits, r.randint(6, 10))),  # PIN-like digits
    (14, lambda r, w: w + str(r.randint(1, 9999))),  # word plus digits
    (4, lambda r, w: w + r.choice(WORDS)),  # two lower-case words
    (
        14,
        lambda r, w: w[:4].capitalize() + _chars(r, B62, r.randint(3, 8)) + r.choice("&%!3#"),
    ),  # Tr0ub4dor&3
)


def gen_password(rng: random.Random) -> str:
    weights = [weight for weight, _ in PASSWORD_STYLES]
    style = rng.choices(PASSWORD_STYLES, weights=weights)[0][1]
    return style(rng, rng.choice(WORDS))


def gen_aws_access_key(rng: random.Random) -> str:
    return rng.choice(("AKIA", "ASIA")) + _chars(rng, string.ascii_uppercase + "234567", 16)


def gen_aws_secret(rng: random.Random) -> str:
    return _chars(rng, B64, 40)


def gen_github(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return "github_pat_" + _chars(rng, B62, 22) + "_" + _chars(rng, B62, 59)
    return rng.choice(("ghp_", "gho_", "ghu_", "ghs_", "ghr_")) + _chars(rng, B62, 36)


def gen_gitlab(rng: random.Random) -> str:
    return rng.choice(("glpat-", "glpat-", "gldt-", "glrt-")) + _chars(rng, B62 + "-_", 20)


def gen_slack(rng: random.Random) -> str:
    prefix = rng.choice(("xoxb", "xoxp", "xoxa", "xoxr", "xoxs"))
    numbers = "-".join(_chars(rng, string.digits, rng.randint(10, 13)) for _ in range(2))
    return f"{prefix}-{numbers}-{_chars(rng, B62, rng.choice((24, 32)))}"


def gen_slack_webhook(rng: random.Random) -> str:
    return (
        f"https://hooks.slack.com/services/T{_chars(rng, UPPER_DIGITS, rng.randint(8, 10))}"
        f"/B{_chars(rng, UPPER_DIGITS, rng.randint(8, 10))}/{_chars(rng, B62, 24)}"
    )


def gen_stripe(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return "whsec_" + _chars(rng, B62, 32)
    return rng.choice(("sk_live_", "rk_live_", "sk_test_", "rk_test_")) + _chars(
        rng, B62, rng.choice((24, 99))
    )


def gen_google(rng: random.Random) -> str:
    return "AIza" + _chars(rng, B64URL, 35)


def gen_openai(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return "sk-" + _chars(rng, B62, 20) + "T3BlbkFJ" + _chars(rng, B62, 20)
    if kind == 1:
        return "sk-proj-" + _chars(rng, B64URL, rng.choice((48, 74, 156)))
    return "sk-" + _chars(rng, B62, 48)


def gen_anthropic(rng: random.Random) -> str:
    return f"sk-ant-{rng.choice(('api03', 'admin01', 'oat01'))}-" + _chars(rng, B64URL, 93) + "AA"


def gen_huggingface(rng: random.Random) -> str:
    return "hf_" + _chars(rng, string.ascii_letters, 34)


def gen_npm(rng: random.Random) -> str:
    return "npm_" + _chars(rng, B62, 36)


def gen_twilio(rng: random.Random) -> str:
    return rng.choice(("SK", "AC")) + _chars(rng, HEX, 32)


def gen_sendgrid(rng: random.Random) -> str:
    return "SG." + _chars(rng, B64URL, 22) + "." + _chars(rng, B64URL, 43)


def gen_azure(rng: random.Random) -> str:
    key = _chars(rng, B64, 86) + "=="
    account = rng.choice(NAMES) + rng.choice(("store", "data", "logs")) + str(rng.randint(1, 99))
    return (
        f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={key};"
        "EndpointSuffix=core.windows.net"
    )


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def gen_jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(("HS256", "RS256", "ES256")), "typ": "JWT"}
    if rng.random() < 0.5:
        header["kid"] = _chars(rng, B62, 12)
    payload = {
        "sub": str(rng.randint(1, 10**9)),
        "name": rng.choice(NAMES),
        "iat": rng.randint(1_600_000_000, 1_800_000_000),
        rng.choice(("scope", "role", "aud")): rng.choice(("admin", "read:all", "api")),
    }
    signature = bytes(rng.getrandbits(8) for _ in range(rng.choice((32, 64, 256))))
    return ".".join(
        (_b64url(json.dumps(header).encode()), _b64url(json.dumps(payload).encode()), _b64url(signature))
    )


def gen_private_key(rng: random.Random) -> str:
    label = rng.choice(
        (
            "RSA PRIVATE KEY",
            "PRIVATE KEY",
            "EC PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        )
    )
    lines = [_chars(rng, B64, 64) for _ in range(rng.randint(3, 12))]
    block = f"-----BEGIN {label}-----\n" + "\n".join(lines)
    if rng.random() < 0.85:  # sometimes pasted cut off
        block += f"\n-----END {label}-----"
    return block


def gen_url_credentials(rng: random.Random) -> str:
    scheme = rng.choice(
        ("postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "amqp", "https", "ftp", "smtp")
    )
    user = rng.choice([*NAMES, "admin", "root", "deploy", "svc_app"])
    password = gen_password(rng).replace("@", "%40").replace("/", "%2F").replace("#", "%23").replace("?", "")
    host = rng.choice(
        ("db.internal", "10.0.3.7", "cluster0.ab1cd.mongodb.net", "mq.example.org", "localhost")
    )
    return f"{scheme}://{user}:{password}@{host}:{rng.randint(1024, 65000)}/{rng.choice(WORDS)}"


def gen_high_entropy(rng: random.Random) -> str:
    kind = rng.randrange(3)
    size = rng.randint(24, 64)
    if kind == 0:
        return _chars(rng, B62, size)
    if kind == 1:
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(size))).decode()
    return _b64url(bytes(rng.getrandbits(8) for _ in range(size)))


def _luhn_complete(partial: str) -> str:
    for check in "0123456789":
        candidate = partial + check
        total = 0
        for index, char in enumerate(reversed(candidate)):
            value = int(char) * (2 if index % 2 else 1)
            total += value - 9 if value > 9 else value
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def gen_card(rng: random.Random) -> str:
    prefix, length = rng.choice(
        (
            ("4", 16),
            ("4", 16),
            ("51", 16),
            ("55", 16),
            ("2221", 16),
            ("34", 15),
            ("37", 15),
            ("6011", 16),
            ("65", 16),
            ("3530", 16),
            ("36", 14),
            ("62", 16),
            ("4", 19),
        )
    )
    number = _luhn_complete(prefix + _chars(rng, string.digits, length - len(prefix) - 1))
    sep = rng.choice((" ", "-", "", " "))
    groups = (4, 6, 5) if length == 15 else (4, 6, 4) if length == 14 else (4,) * 4 + (3,)
    parts, index = [], 0
    for size in groups:
        if index < length:
            parts.append(number[index : index + size])
            index += size
    return sep.join(parts)


IBAN_FORMATS = {
    "DE": 18,
    "FR": 23,
    "ES": 20,
    "GB": 18,
    "IT": 23,
    "NL": 14,
    "PT": 21,
    "BE": 12,
    "CH": 17,
    "AT": 16,
    "PL": 24,
    "SE": 20,
}


def gen_iban(rng: random.Random) -> str:
    country = rng.choice(sorted(IBAN_FORMATS))
    size = IBAN_FORMATS[country]
    if country in ("GB", "NL"):
        bban = _chars(rng, string.ascii_uppercase, 4) + _chars(rng, string.digits, size - 4)
    else:
        bban = _chars(rng, string.digits, size)
    numeric = "".join(str(int(char, 36)) for char in bban + country + "00")
    iban = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    if rng.random() < 0.6:
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    return iban


def gen_email(rng: random.Random) -> str:
    first, last = rng.choice(NAMES), rng.choice(SURNAMES).replace("ü", "ue")
    local = rng.choice(
        (
            f"{first}.{last}",
            f"{first}{rng.randint(1, 99)}",
            f"{first[0]}{last}",
            f"{first}+{rng.choice(WORDS)}",
            f"{first}_{last}",
        )
    )
    domain = rng.choice(
        (
            "gmail.com",
            "outlook.fr",
            "web.de",
            "yahoo.co.jp",
            "empresa.com.br",
            "acme.io",
            "uni-heidelberg.de",
            "correo.es",
            "posteo.de",
        )
    )
    address = f"{local}@{domain}"
    return address.upper() if rng.random() < 0.05 else address


def gen_phone(rng: random.Random) -> str:
    def d(size: int) -> str:
        return _chars(rng, string.digits, size)

    forms: tuple[Callable[[], str], ...] = (
        lambda: f"+1 ({rng.randint(201, 989)}) {rng.randint(200, 999)}-{d(4)}",
        lambda: f"({rng.randint(201, 989)}) {rng.randint(200, 999)}-{d(4)}",
        lambda: f"{rng.randint(201, 989)}-{rng.randint(200, 999)}-{d(4)}",
        lambda: f"+44 20 {d(4)} {d(4)}",
        lambda: f"07{d(3)} {d(6)}",
        lambda: f"+33 {rng.randint(1, 7)} {d(2)} {d(2)} {d(2)} {d(2)}",
        lambda: f"06 {d(2)} {d(2)} {d(2)} {d(2)}",
        lambda: f"+49 {rng.choice(('30', '89', '151', '170'))} {d(7)}",
        lambda: f"0{rng.choice(('30', '89', '151'))} {d(7)}",
        lambda: f"+34 {rng.choice('67')}{d(2)} {d(3)} {d(3)}",
        lambda: f"{rng.choice('67')}{d(2)} {d(3)} {d(3)}",
        lambda: f"+55 11 9{d(4)}-{d(4)}",
        lambda: f"(11) 9{d(4)}-{d(4)}",
        lambda: f"+81 3-{d(4)}-{d(4)}",
        lambda: f"090-{d(4)}-{d(4)}",
        lambda: f"+91 {rng.randint(70000, 99999)} {d(5)}",
    )
    return rng.choice(forms)()


# --- prose around secrets ---------------------------------------------------------------------

PROSE: dict[str, tuple[str, ...]] = {
    "en": (
        "Note for later: {s}",
        "Deployed the worker today, it uses {s} for the staging bucket.",
        "Rotated the key -> {s} (old one revoked).",
        "{s}",
        "Here you go: {s} — don't share it.",
        "User pasted {s} into the chat while debugging the CI job.",
        "remember this one: {s}",
        "Config snippet they sent:\n{s}\nThey want it applied before Friday.",
    ),
    "es": (
        "Nota: {s}",
        "Guardé esto en el archivo de configuración: {s}",
        "Me pasó {s} para la demo de mañana.",
        "Apunta esto por favor {s} y no lo compartas.",
        "El cliente escribió {s} en el chat.",
    ),
    "fr": (
        "À retenir : {s}",
        "Il m'a envoyé {s} pour le déploiement de demain.",
        "Voici la config : {s}",
        "Ne pas partager : {s} merci.",
        "Le client a collé {s} dans le ticket.",
    ),
    "de": (
        "Zur Erinnerung: {s}",
        "Für das Deployment morgen brauchen wir {s}.",
        "Er hat mir {s} geschickt.",
        "Bitte nicht weitergeben: {s}",
        "Der Kunde hat {s} ins Ticket kopiert.",
    ),
    "pt": (
        "Anota aí: {s}",
        "Ele me mandou {s} para o deploy de amanhã.",
        "Configuração enviada: {s}",
        "Não compartilhe: {s}",
        "O cliente colou {s} no chamado.",
    ),
    "ja": (
        "メモ: {s}",
        "明日のデプロイ用に {s} を使います。",
        "これを保存してください {s}",
        "共有しないでください：{s}",
        "お客様がチャットに {s} を貼り付けました。",
    ),
}

PASSWORD_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": (
        "my password is {v}",
        "The {k} for the staging database is {v}",
        "{k}: {v}",
        "{K}={v}",
        "login admin / {k} {v}",
        'config: {{"user": "admin", "{k}": "{v}"}}',
        "{k} = '{v}'",
        "new {k} was set to {v} yesterday",
        "wifi {k} is now {v}",
        "the {k} for prod: {v}",
        "PASSWORD: {v}",
        "my passphrase is {v}",
        "email {k} -> {v}",
        '{k} is "{v}"',
    ),
    "es": (
        "mi contraseña es {v}",
        "contraseña: {v}",
        "La clave del wifi es {v}",
        "Usuario: admin / Contraseña: {v}",
        "la contraseña del servidor ahora es {v}",
        "contraseña = {v}",
        "Te paso la contraseña: {v}",
    ),
    "fr": (
        "mon mot de passe est {v}",
        "mot de passe : {v}",
        "Le mot de passe du wifi est {v}",
        "mdp: {v}",
        "Mon mdp c'est {v}",
        "Identifiant : admin, mot de passe : {v}",
        "le mot de passe est « {v} »",
    ),
    "de": (
        "Mein Passwort ist {v}",
        "Passwort: {v}",
        "Das Kennwort lautet {v}",
        "Kennwort = {v}",
        "Das neue Passwort für den Server ist {v}",
        "WLAN-Passwort: {v}",
        "Passwort lautet „{v}“",
    ),
    "pt": (
        "minha senha é {v}",
        "Senha: {v}",
        "a senha do wi-fi agora é {v}",
        "senha = {v}",
        "usuário admin, senha {v}",
        "A senha do banco é {v}",
    ),
    "ja": (
        "パスワードは {v} です",
        "パスワード：{v}",
        "Wi-Fiのパスワードは「{v}」です",
        "管理者パスワード: {v}",
        "パスワードを {v} に変更しました",
        "パスワードは{v}です",
    ),
    "other": (
        "la password è {v}",
        "het wachtwoord is {v}",
        "hasło: {v}",
        "lösenordet är {v}",
        "密码是{v}",
        "密码：{v}",
        "пароль: {v}",
        "мой пароль — {v}",
        "şifre: {v}",
        "비밀번호는 {v} 입니다",
    ),
}
PASSWORD_KEYS = ("password", "Password", "passwd", "pwd", "passcode", "admin password", "db_password")
PASSWORD_ENV = ("DB_PASSWORD", "MYSQL_ROOT_PASSWORD", "SMTP_PASSWORD", "ADMIN_PWD", "REDIS_PASSWORD")

CREDENTIAL_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": (
        "api key: {v}",
        "API_KEY={v}",
        "the access token is {v}",
        'client_secret = "{v}"',
        "token: {v}",
        "Authorization secret -> {v}",
        "X-Api-Key: {v}",
        "auth token {v}",
        '{{"api_key": "{v}"}}',
    ),
    "es": ("la clave API es {v}", "clave de API: {v}", "token de acceso: {v}", "el token es {v}"),
    "fr": ("la clé API est {v}", "clé d'API : {v}", "jeton : {v}", "le token est {v}"),
    "de": ("API-Schlüssel: {v}", "der Token ist {v}", "Access Token = {v}"),
    "pt": ("chave de API: {v}", "o token é {v}", "token de acesso = {v}"),
    "ja": ("APIキー: {v}", "トークンは {v} です", "アクセストークン：{v}"),
}

AWS_SECRET_TEMPLATES = (
    "aws_secret_access_key = {v}",
    "AWS_SECRET_ACCESS_KEY={v}",
    "AWS secret: {v}",
    "AWS Secret Access Key: {v}",
    "la clave secreta de AWS es {v}",
    "clé secrète AWS : {v}",
    "aws creds: {a} / {v}",
    "User name,Access key ID,Secret access key\ndeploy,{a},{v}",
)

PHONE_CONTEXT_TEMPLATES = {
    "en": ("call me at {v}", "Phone: {v}", "my cell is {v}", "reach her on {v} after 5pm", "{v}"),
    "es": ("mi teléfono es {v}", "Llámame al {v}", "móvil: {v}"),
    "fr": ("mon numéro : {v}", "Téléphone : {v}", "appelle-moi au {v}"),
    "de": ("Telefon: {v}", "ruf mich unter {v} an", "Handy {v}"),
    "pt": ("meu celular é {v}", "Telefone: {v}", "liga pra mim no {v}"),
    "ja": ("電話番号は {v} です", "携帯：{v}"),
}


def _embed(rng: random.Random, template: str, value: str, **extra: str) -> tuple[str, tuple[int, int]]:
    head, _, tail = template.partition("{v}")
    head = head.format(**extra).replace("{{", "{").replace("}}", "}")
    tail = tail.format(**extra).replace("{{", "{").replace("}}", "}")
    return head + value + tail, (len(head), len(head) + len(value))


def _wrap(rng: random.Random, lang: str, inner: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    outer = rng.choice(PROSE.get(lang, PROSE["en"]))
    head, _, tail = outer.partition("{s}")
    return head + inner + tail, (span[0] + len(head), span[1] + len(head))


def _keyword_sample(rng: random.Random, family: str) -> Sample:
    templates = PASSWORD_TEMPLATES if family == "password_assignment" else CREDENTIAL_TEMPLATES
    lang = rng.choice(sorted(templates))
    if family == "password_assignment":
        value = gen_password(rng)
        extra = {"k": rng.choice(PASSWORD_KEYS), "K": rng.choice(PASSWORD_ENV)}
    else:
        value = rng.choice((gen_high_entropy, lambda r: _chars(r, HEX, 32), lambda r: _chars(r, B62, 40)))(
            rng
        )
        extra = {}
    text, span = _embed(rng, rng.choice(templates[lang]), value, **extra)
    if rng.random() < 0.5:
        text, span = _wrap(rng, lang if lang in PROSE else "en", text, span)
    return Sample(text, family, lang, span)


def _plain_sample(rng: random.Random, family: str, value: str) -> Sample:
    lang = rng.choice(LANGS)
    text, span = _wrap(rng, lang, value, (0, len(value)))
    return Sample(text, family, lang, span)


def _aws_secret_sample(rng: random.Random) -> Sample:
    value = gen_aws_secret(rng)
    text, span = _embed(rng, rng.choice(AWS_SECRET_TEMPLATES), value, a=gen_aws_access_key(rng))
    # The access key id in the template is a secret too, but this sample measures the secret key.
    return Sample(text, "aws_secret_key", "en", span)


def _phone_sample(rng: random.Random) -> Sample:
    lang = rng.choice(sorted(PHONE_CONTEXT_TEMPLATES))
    text, span = _embed(rng, rng.choice(PHONE_CONTEXT_TEMPLATES[lang]), gen_phone(rng))
    text, span = _wrap(rng, lang, text, span)
    return Sample(text, "phone", lang, span)


PLAIN_GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "aws_access_key": gen_aws_access_key,
    "github_token": gen_github,
    "gitlab_token": gen_gitlab,
    "slack_token": gen_slack,
    "slack_webhook": gen_slack_webhook,
    "stripe_key": gen_stripe,
    "google_api_key": gen_google,
    "openai_key": gen_openai,
    "anthropic_key": gen_anthropic,
    "huggingface_token": gen_huggingface,
    "npm_token": gen_npm,
    "twilio_key": gen_twilio,
    "sendgrid_key": gen_sendgrid,
    "azure_storage_key": gen_azure,
    "jwt": gen_jwt,
    "private_key": gen_private_key,
    "url_credentials": gen_url_credentials,
    "high_entropy": gen_high_entropy,
    "credit_card": gen_card,
    "iban": gen_iban,
    "email": gen_email,
}


def secret_samples(rng: random.Random, per_family: int) -> list[Sample]:
    samples: list[Sample] = []
    for family, generator in PLAIN_GENERATORS.items():
        samples.extend(_plain_sample(rng, family, generator(rng)) for _ in range(per_family))
    samples.extend(_keyword_sample(rng, "password_assignment") for _ in range(per_family * 3))
    samples.extend(_keyword_sample(rng, "credential_assignment") for _ in range(per_family))
    samples.extend(_aws_secret_sample(rng) for _ in range(per_family))
    samples.extend(_phone_sample(rng) for _ in range(per_family))
    return samples


# --- benign notes -------------------------------------------------------------------------------


def _uuid(rng: random.Random) -> str:
    raw = _chars(rng, HEX, 32)
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _version(rng: random.Random) -> str:
    core = f"{rng.randint(0, 30)}.{rng.randint(0, 40)}.{rng.randint(0, 200)}"
    return core + rng.choice(
        ("", "", f"-rc.{rng.randint(1, 5)}", f"-beta.{rng.randint(1, 9)}+build.{rng.randint(1, 9999)}")
    )


def _date(rng: random.Random) -> str:
    y, m, d = rng.randint(2019, 2026), rng.randint(1, 12), rng.randint(1, 28)
    h, mi, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    return rng.choice(
        (
            f"{y}-{m:02d}-{d:02d}",
            f"{d:02d}/{m:02d}/{y}",
            f"{d:02d}.{m:02d}.{y}",
            f"{y}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{rng.randint(0, 999999):06d}Z",
            f"{y}/{m:02d}/{d:02d} {h:02d}:{mi:02d}",
            f"{m}/{d}/{y}",
        )
    )


def _ip(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return f"2001:db8:{rng.randint(0, 65535):x}::{rng.randint(1, 255):x}"
    return ".".join(str(rng.randint(0, 255)) for _ in range(4)) + rng.choice(
        ("", "", "/24", f":{rng.randint(1, 65535)}")
    )


def _path(rng: random.Random) -> str:
    parts = rng.sample(
        ("src", "memoryos", "policies", "tests", "lib", "components", "utils", "handlers", "api"), 3
    )
    name = rng.choice(("UserProfileCard.tsx", "test_nostore.py", "settings.yaml", "index.js", "README.md"))
    return rng.choice(
        (
            f"/usr/local/lib/python3.{rng.randint(8, 13)}/site-packages/{'/'.join(parts)}/{name}",
            f"~/projects/{'/'.join(parts)}/{name}",
            f"C:\\Users\\{rng.choice(NAMES)}\\AppData\\Local\\{name}",
            f"./{'/'.join(parts)}/{name}",
            f"{'/'.join(parts)}/{name}",
        )
    )


def _url(rng: random.Random) -> str:
    return rng.choice(
        (
            f"https://github.com/{rng.choice(NAMES)}/{rng.choice(WORDS)}-{rng.choice(WORDS)}/pull/{rng.randint(1, 9999)}",
            f"https://docs.python.org/3/library/{rng.choice(('re', 'json', 'sqlite3'))}.html#{rng.choice(WORDS)}",
            f"https://docs.google.com/document/d/{_chars(rng, B64URL, 44)}/edit",
            f"https://example.com/search?q={rng.choice(WORDS)}&page={rng.randint(1, 9)}&sort=desc",
            f"http://localhost:{rng.randint(1024, 65535)}/api/v{rng.randint(1, 3)}/items/{_uuid(rng)}",
            f"https://s3.amazonaws.com/{rng.choice(WORDS)}-bucket/{_chars(rng, HEX, 16)}/report.pdf",
        )
    )


BENIGN_TEMPLATES: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"Created session {_uuid(r)} for the profile sync; retried twice.",
    lambda r: f"Fixed in {_chars(r, HEX, 7)} (see {_chars(r, HEX, 40)} for the revert).",
    lambda r: f"git cherry-pick {_chars(r, HEX, r.randint(7, 12))} onto release/{_version(r)}",
    lambda r: f"Docs: {_url(r)} — read before the meeting.",
    lambda r: (
        f"Service listening on localhost:{r.randint(1024, 65535)}; docker run -p {r.randint(80, 9000)}:80 app"
    ),
    lambda r: f"Upgraded numpy from {_version(r)} to {_version(r)} and pinned pydantic=={_version(r)}.",
    lambda r: f"Your order #{r.randint(10**7, 10**10)} has shipped, tracking {r.randint(10**9, 10**12)}.",
    lambda r: f"Pedido nº {r.randint(10**5, 10**9)} confirmado el {_date(r)}.",
    lambda r: f"Commande n° {r.randint(10**5, 10**9)} livrée le {_date(r)}.",
    lambda r: f"Bestellnummer {r.randint(10**5, 10**9)} vom {_date(r)}, Rechnung {r.randint(10**6, 10**9)}.",
    lambda r: f"Meeting moved to {_date(r)} at {r.randint(0, 23):02d}:{r.randint(0, 59):02d} UTC.",
    lambda r: (
        f"epoch {r.randint(1_500_000_000, 1_900_000_000)} ms={r.randint(1_500_000_000_000, 1_900_000_000_000)}"
    ),
    lambda r: f"Edited {_path(r)} line {r.randint(1, 999)}.",
    lambda r: f"Pulled nginx@sha256:{_chars(r, HEX, 64)} and ghcr.io/acme/api:{_version(r)}",
    lambda r: (
        f"Brand colours: #{_chars(r, HEX, 6)}, #{_chars(r, HEX, 3)} and rgb({r.randint(0, 255)}, 99, 71)."
    ),
    lambda r: f"Host {_ip(r)} answered; gateway {_ip(r)}.",
    lambda r: (
        f"Pod api-{_chars(r, HEX, 9)}-{_chars(r, string.ascii_lowercase + string.digits, 5)} restarted (OOMKilled)."
    ),
    lambda r: f"container {_chars(r, HEX, 12)} exited 137; image id sha256:{_chars(r, HEX, 64)}",
    lambda r: (
        f"ISBN 978-{r.randint(0, 9)}-{r.randint(100, 999)}-{r.randint(10000, 99999)}-{r.randint(0, 9)}; "
        f"pi ≈ 3.14159, {r.randint(1000, 99999):,} rows"
    ),
    lambda r: (
        f"Build {r.randint(1000, 9999)} of v{_version(r)} passed in {r.randint(1, 59)}m{r.randint(0, 59)}s."
    ),
    lambda r: f"Ticket {r.choice(('JIRA', 'OPS', 'SEC'))}-{r.randint(1, 9999)}: flaky test in {_path(r)}.",
    lambda r: f"Use getUserProfileByIdAsync and AbstractSingletonProxyFactoryBean{r.randint(1, 9)} here.",
    lambda r: (
        f"class {r.choice(WORDS).capitalize()}RepositoryImplementationV{r.randint(2, 9)} extends BaseRepository"
    ),
    lambda r: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_chars(r, B64, 43)} {r.choice(NAMES)}@laptop",
    lambda r: f"UUIDv7 {_uuid(r)} and request id {_uuid(r).replace('-', '')}",
    lambda r: (
        f"Timestamp {_date(r)}, took {r.randint(1, 999)}.{r.randint(0, 99)} ms at p{r.choice((50, 95, 99))}"
    ),
    lambda r: f"Call the function with timeout={r.randint(1, 60)} and retries={r.randint(1, 9)}.",
    lambda r: f'File "{_path(r)}", line {r.randint(1, 999)}, in execute\n    cursor.execute(sql, params)',
    lambda r: f"level=info req_id={_uuid(r)} span={_chars(r, HEX, 16)} latency_ms={r.randint(1, 999)}",
    lambda r: (
        f"SELECT id FROM users WHERE password_hash IS NOT NULL AND created_at > '{_date(r)}' LIMIT {r.randint(1, 500)};"
    ),
    lambda r: (
        f'{{"timeout": {r.randint(1, 90)}, "retries": {r.randint(0, 9)}, "token_ttl": {r.randint(60, 86400)}}}'
    ),
    lambda r: (
        f"curl -H 'Authorization: Bearer $TOKEN' https://api.example.com/v{r.randint(1, 3)}/items?limit={r.randint(1, 99)}"
    ),
    lambda r: f"export API_KEY=$(vault kv get -field=key secret/{r.choice(WORDS)})",
    lambda r: (
        f"Population: {r.randint(1, 99)} {r.randint(100, 999)} {r.randint(100, 999)}; budget {r.randint(1, 9)} {r.randint(100, 999)} 000 €"
    ),
    lambda r: (
        f"Ratio {r.randint(1, 9)}/{r.randint(2, 9)}, range {r.randint(1, 50)}-{r.randint(51, 99)}, at {r.randint(0, 23)}:{r.randint(10, 59)}"
    ),
    lambda r: f"| step | ms |\n|---|---|\n| parse | {r.randint(1, 99)} |\n| store | {r.randint(1, 99)} |",
    lambda r: (
        f".btn-primary {{ color: #{_chars(r, HEX, 6)}; margin: {r.randint(0, 32)}px {r.randint(0, 32)}px; }}"
    ),
    lambda r: f"Password: see the 1Password entry '{r.choice(WORDS)} prod'; rotated on {_date(r)}.",
    lambda r: (
        f"npm install {r.choice(WORDS)}@{_version(r)} @types/node@{r.randint(14, 22)}.{r.randint(0, 9)}.0"
    ),
    lambda r: f"Lat {r.uniform(-90, 90):.6f}, lon {r.uniform(-180, 180):.6f}, alt {r.randint(0, 4000)} m",
)

CODE_SNIPPETS = (
    "password = os.environ['DB_PASSWORD']",
    "def login(username: str, password: str) -> Token:",
    "if not password:\n    raise ValueError('password required')",
    "const apiKey = process.env.API_KEY;",
    'token = request.headers.get("Authorization")',
    'secret = os.environ["APP_SECRET"]',
    "password: ${DB_PASSWORD}",
    "api_key = settings.OPENAI_API_KEY",
    "POSTGRES_PASSWORD_FILE: /run/secrets/db_password",
    "user.set_password(form.cleaned_data['password1'])",
    "password_hash = bcrypt.hashpw(password.encode(), salt)",
    "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password",
    "max_tokens: 4096",
    "token_count = len(tokens)",
    "self.password = password",
    "if password != confirm_password:",
    "password = getpass.getpass()",
    "jwt_secret: {{ vault_jwt_secret }}",
    "password=None,",
    "Password: ********",
    "password: str = Field(min_length=12)",
    'headers = {"Authorization": f"Bearer {token}"}',
)

RESET_PROSE = (
    "I forgot my password, reset it via the link in the email.",
    "Password must be at least 12 characters.",
    "reset your password via the link we sent",
    "The password is stored in Vault under secret/db.",
    "Password reset: Tuesday after the standup.",
    "token limit: 8192 per request",
    "the token expired after 3600 seconds",
    "API key rotation is scheduled for Friday.",
    "La contraseña debe tener al menos 8 caracteres.",
    "¿Olvidaste tu contraseña? Restablécela desde el enlace.",
    "Mot de passe oublié ? Cliquez sur le lien.",
    "Le mot de passe doit contenir 12 caractères.",
    "Passwort vergessen? Setzen Sie es über den Link zurück.",
    "Das Passwort muss mindestens 10 Zeichen haben.",
    "Esqueci minha senha, preciso redefinir.",
    "A senha expira em 90 dias.",
    "パスワードを忘れた場合はリンクから再設定してください。",
    "パスワードの変更が必要です。",
    "Password policy: min 12 chars, rotate every 90 days.",
    "The user asked how to change the wifi password.",
    "Never paste your password or API key into the chat.",
    "Use a password manager like Bitwarden.",
    "The password field is required.",
    "Secret rotation completed for 3 services.",
)


def _benign_note(rng: random.Random) -> Sample:
    kind = rng.random()
    if kind < 0.2:
        text = rng.choice(CODE_SNIPPETS)
    elif kind < 0.35:
        text = rng.choice(RESET_PROSE) + " " + rng.choice(BENIGN_TEMPLATES)(rng)
    else:
        text = " ".join(rng.choice(BENIGN_TEMPLATES)(rng) for _ in range(rng.randint(1, 3)))
    return Sample(text, None, "mixed", None)


def benign_samples(rng: random.Random, count: int) -> list[Sample]:
    return [_benign_note(rng) for _ in range(count)]


def build_corpus(
    seed: int = 20251129, per_family: int = 100, benign: int = 2500
) -> tuple[list[Sample], list[Sample]]:
    """(secret samples, benign samples); the same seed always builds the same corpus."""
    rng = random.Random(seed)
    return secret_samples(rng, per_family), benign_samples(rng, benign)
