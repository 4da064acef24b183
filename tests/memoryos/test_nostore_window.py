"""A credential keyword and its value a few words apart in one clause (the "far" connector)."""

from __future__ import annotations

import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryos.policies.nostore import scan
from memoryos.policies.nostore_window import MAX_WINDOW_WORDS, prose_shape, window_ok

# (note, the credential in it): each was accepted before the far connector.
FAR_SECRETS = [
    (
        "From now on use this Snowflake password whenever you connect as ETL_SVC: VpfvU%KGpxod3l",
        "VpfvU%KGpxod3l",
    ),
    ("my wifi password, in case you need it: hunter2hunter", "hunter2hunter"),
    ("Snowflake password for the nightly loader once it runs as ETL_SVC = VpfvU%KGpxod3l", "VpfvU%KGpxod3l"),
    ("the password you set on the router last week is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("my bank PIN, in case of emergency: 482913", "482913"),
    ("el PIN de la alarma de casa es 9237", "9237"),
    ("Das Passwort für den Server im Keller lautet Xk9#mQ2pLw", "Xk9#mQ2pLw"),
    ("le mot de passe que tu utilises pour le VPN est Soleil#2024x", "Soleil#2024x"),
    ("la contraseña que usamos en la oficina es Gato-Negro-77", "Gato-Negro-77"),
    ("the API key we use for staging whenever CI runs: a8F3kLm92QzX7vBn4TpR", "a8F3kLm92QzX7vBn4TpR"),
    (
        "the passphrase I gave you over the phone yesterday — correct-horse-battery-9",
        "correct-horse-battery-9",
    ),
]

# Notes where a keyword and a colon or a verb meet within a clause, but no credential follows.
FAR_BENIGN = [
    "password reset link: https://acme.example.com/reset?t=abc123",
    "password policy: at least 12 characters",
    "the password manager is 1Password",
    "the password manager we moved to last year is Bitwarden2",
    "token bucket size: 100",
    "token bucket refill rate per client: 50rps",
    "API key rotation is due: Friday",
    "API key rotation for the billing team is due: 2026-12-04",
    "PIN code: see the card",
    "password requirements changed in release: v2.4.1",
    "my password expires in 3 days, see ticket: OPS-4821",
    "Reset my password, ticket: OPS-4821",
    "the password was changed on Monday, deadline: 2026-12-04",
    "I reset the password and the new host is db7-prod",
    "your token expires after the session ends: 30min",
    "the api key for the billing service was rotated at 14:30",
    "the password prompt appeared twice, error code: ERR-20931",
    "the password for the db lives on host: db-prod-01.internal",
    "the password you chose is too short: 7 chars",
    "the secret santa draw for the whole team is on: Dec-12",
    "password hashing was moved to: bcrypt2b",
    "passwords for all 40 service accounts were rotated on: 2026-11-30",
    "the token limit for the model in prod is 128k",
    "changed my password yesterday, meeting at: 3pm",
    "I typed the password.\nNext step for deploy: run make release2",
    "the password worked; build: 20261201-rc3",
    "the password on the wiki is outdated, but the new host is web-04",
    "the token usage this month across all projects was: 1.2M",
    "le mot de passe a expiré et le serveur est srv-lyon-02",
    # Two notes run together (project benign corpus, p3383): the colour belongs to the second.
    "reset your password via the link we sent Brand colours: #a0a376, #913 and rgb(30, 99, 71).",
    "reset your password via the link we sent, accent: #a0a376",
]


def _refused_spans(text: str) -> list[str]:
    return [text[d.start : d.end] for d in scan(text) if d.family.endswith("_assignment")]


@pytest.mark.parametrize(("text", "secret"), FAR_SECRETS)
def test_a_value_some_words_after_its_keyword_is_refused(text: str, secret: str) -> None:
    assert secret in _refused_spans(text)


@pytest.mark.parametrize(("text", "secret"), FAR_SECRETS)
def test_only_the_value_is_redacted_not_the_words_between(text: str, secret: str) -> None:
    spans = _refused_spans(text)
    assert spans == [secret]


@pytest.mark.parametrize("text", FAR_BENIGN)
def test_a_keyword_and_a_colon_in_prose_without_a_credential_are_accepted(text: str) -> None:
    assert scan(text) == []


def test_the_window_is_bounded() -> None:
    words = " ".join(["whenever"] * MAX_WINDOW_WORDS)
    assert window_ok(" " + words, verb=False)
    assert not window_ok(" " + words + " again", verb=False)
    far = "my password " + " ".join(["whenever"] * (MAX_WINDOW_WORDS + 3)) + ": VpfvU%KGpxod3l"
    assert scan(far) == []


@pytest.mark.parametrize(
    ("window", "verb", "ok"),
    [
        (" whenever you connect as ETL_SVC", False, True),
        (", in case you need it", False, True),
        (", in case you need it", True, False),  # a comma before a verb: another clause
        (" manager we use", True, False),  # "password manager": a compound noun
        (" expires soon, see ticket", False, False),  # the label of another field
        (" and the new host", True, False),  # a conjunction opens another clause
        (" for the team\nnext", False, False),
    ],
)
def test_window_rules(window: str, verb: bool, ok: bool) -> None:
    assert window_ok(window, verb=verb) is ok


@pytest.mark.parametrize(
    "value",
    [
        "v2.4.1",
        "2026-12-04",
        "14:30",
        "12chars",
        "90days",
        "OPS-4821",
        "db-prod-01.internal",
        "Dec-12",
        "#a0a376",
    ],
)
def test_prose_shapes(value: str) -> None:
    assert prose_shape(value)


@pytest.mark.parametrize(
    "value", ["VpfvU%KGpxod3l", "hunter2hunter", "Pa55.word", "marketing2024", "Tr0ub4dor&3"]
)
def test_credentials_have_no_prose_shape(value: str) -> None:
    assert not prose_shape(value)


# Words of a clause that neither open another clause, nor head a compound, nor label a field, nor
# join a keyword to a value themselves.
FILLER = st.sampled_from(
    "whenever you connect as ETL_SVC from now on use this nightly loader once it runs we share with "
    "the crew in case need warehouse staging cluster my our new old Snowflake router office".split()
)
CREDENTIAL = (
    st.lists(
        st.sampled_from(string.ascii_letters + string.digits + "%#&!"), min_size=10, max_size=20, unique=True
    )
    .map("".join)
    .filter(lambda v: v[0].isalpha() and any(c.isdigit() for c in v) and v.lower() != v and v.upper() != v)
)
KEYWORD = st.sampled_from(["password", "Password", "passphrase", "passcode", "Snowflake password"])
SEPARATOR = st.sampled_from([":", " =", " is", " was", " —"])


@settings(max_examples=150, deadline=None)
@given(KEYWORD, st.lists(FILLER, min_size=1, max_size=MAX_WINDOW_WORDS), SEPARATOR, CREDENTIAL)
def test_any_clause_of_up_to_ten_words_between_keyword_and_value_hides_nothing(
    keyword: str, filler: list[str], separator: str, credential: str
) -> None:
    text = f"{keyword} {' '.join(filler)}{separator} {credential}"
    assert credential in _refused_spans(text)


PROSE_VALUE = st.one_of(
    st.builds("v{}.{}.{}".format, st.integers(0, 20), st.integers(0, 20), st.integers(0, 99)),
    st.builds("{}-{:02d}-{:02d}".format, st.integers(2000, 2030), st.integers(1, 12), st.integers(1, 28)),
    st.builds("{}:{:02d}".format, st.integers(0, 23), st.integers(0, 59)),
    st.builds(
        "{}{}".format, st.integers(1, 999), st.sampled_from(["chars", "days", "min", "ms", "GB", "rps", "k"])
    ),
    st.builds("{}-{}".format, st.sampled_from(["OPS", "JIRA", "SEC", "INC"]), st.integers(1, 99999)),
)


@settings(max_examples=150, deadline=None)
@given(KEYWORD, st.lists(FILLER, min_size=1, max_size=MAX_WINDOW_WORDS - 1), PROSE_VALUE)
def test_a_version_date_time_quantity_or_ticket_after_a_clause_is_no_password(
    keyword: str, filler: list[str], value: str
) -> None:
    # "whenever" first: a phrase opening with a preposition ("password on prod: v2") is the older,
    # level-0 connector, which trusts the value more.
    text = f"{keyword} whenever {' '.join(filler)}: {value}"
    assert _refused_spans(text) == []


_PROSE_64K = ("Rotate the deploy key on Tuesday, then tell the team in the channel at 14:30. " * 840)[:65536]
_WINDOW = "my password, in, case, you, need, it, or, not, "
FAR_ADVERSARIAL = [
    (_WINDOW * 1400)[:65536],
    (_WINDOW.replace(",", " ") * 1400)[:65536],  # two spaces between words
    (_WINDOW.replace(",", "  ") * 1400)[:65536],  # three
    ("my password , in ,  case  ,you, need , it, or  not " * 1400)[:65536],
    ("password whenever you connect to the warehouse as svc in case you need it " * 900)[:65536],
    ("password — — — — — — — — — — — " * 2800)[:65536],
    ("api key,a,b,c,d,e,f,g,h,i,j,k,l " * 2000)[:65536],
]


def _seconds(text: str) -> float:
    began = time.perf_counter()
    scan(text)
    return time.perf_counter() - began


@pytest.mark.serial
@pytest.mark.parametrize("text", FAR_ADVERSARIAL, ids=lambda text: repr(text[:14]))
def test_64_kib_of_keywords_and_window_words_is_scanned_quickly(text: str) -> None:
    """The bound of the older adversarial test: half a second or ten times 64 KiB of prose. A window
    whose words could be read several ways (a comma inside a word or not, spaces before or after it)
    took 0.9 s on the comma run and 63 s on the three-space run."""
    baseline = _seconds(_PROSE_64K)
    assert _seconds(text) < max(0.5, 10 * baseline)
