"""More families of the no-store rule, each with positives and the near misses that must stay accepted.

National numbers of nine more countries (with their published checks and context words), Azure SAS
signatures, door and alarm codes, recovery codes, Wi-Fi passwords, dates of birth, bare phone runs,
elided placeholders and addresses on reserved documentation domains. The numbers here were made for
these tests with the check algorithms, not taken from any corpus.
"""

from __future__ import annotations

import time
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.policies.nostore import scan
from memoryos.policies.nostore_id_checks import (
    aadhaar_ok,
    codice_fiscale_ok,
    cpf_ok,
    pesel_ok,
    pt_nif_ok,
    sin_ok,
    tfn_ok,
    verhoeff_ok,
    za_id_ok,
)
from memoryos.policies.nostore_ids import ALL_KINDS, CONTEXT_HINTS
from memoryos.policies.nostore_pii import reserved_domain


def _families(text: str) -> set[str]:
    return {d.family for d in scan(text)}


def _covers(text: str, secret: str) -> bool:
    start = text.index(secret)
    end = start + len(secret)
    return any(d.start < end and start < d.end for d in scan(text))


# (text, the number within it)
NATIONAL_IDS = [
    ("codice fiscale: ENVIME88R64W514B", "ENVIME88R64W514B"),
    ("intestatario FUFCGQ78D58K762R, residente a Bari", "FUFCGQ78D58K762R"),  # its own check letter
    ("Número de contribuinte (NIF): 376 402 067", "376 402 067"),
    ("o meu NIF é 361114893", "361114893"),
    ("numer PESEL 04292487581 w formularzu", "04292487581"),
    ("Aadhaar no. 9633 4906 7349", "9633 4906 7349"),
    ("my UIDAI number 2125-0349-9717", "2125-0349-9717"),
    ("my PAN is BKDPS4821K", "BKDPS4821K"),
    ("CPF 184.553.453-06", "184.553.453-06"),
    ("cliente 184.553.453-06 cadastrado", "184.553.453-06"),  # the CPF's own dotted form
    ("cadastro de pessoa física 32798378710", "32798378710"),
    ("Social Insurance Number 749 392 551", "749 392 551"),
    ("SIN: 617-703-350", "617-703-350"),
    ("numéro d'assurance sociale : 617 703 350", "617 703 350"),
    ("TFN 723 724 632", "723 724 632"),
    ("my tax file number is 509633500", "509633500"),
    ("South African ID number 8707195064086", "8707195064086"),
    ("ID: 931203 5512 086", "931203 5512 086"),
]
WRONG_CHECKS = [
    "codice fiscale: ENVIME88R64W514C",
    "o meu NIF é 361114894",
    "numer PESEL 04292487582",
    "PESEL 04132487581",  # month 13 of no century
    "Aadhaar no. 9633 4906 7348",
    "Aadhaar no. 1633 4906 7349",  # never starts with 0 or 1
    "CPF 184.553.453-07",
    "CPF 111.111.111-11",  # passes both checks, never issued
    "SIN: 617-703-351",
    "SIN: 817-703-356",  # 8 is a business number's first digit
    "TFN 723 724 633",
    "South African ID number 8707195064087",
    "South African ID number 8713195064081",  # month 13
]
WITHOUT_CONTEXT = [
    "order 361114893 shipped",  # a valid NIF
    "build 04292487581 passed",  # a valid PESEL
    "ticket 9633 4906 7349",  # a valid Aadhaar
    "file BKDPS4821K.pdf attached",  # PAN-shaped
    "batch 32798378710 done",  # a valid CPF without its dots
    "call 749 392 551 lines",  # a valid SIN
    "sin(x) is 749392551 at that angle",  # "sin" is the sine, not SIN
    "NAS serial 749392551",  # NAS is also the storage box on the shelf
    "invoice 723 724 632",  # a valid TFN
    "created_at=8707195064086",  # a valid ZA id
    "order 384-122-902 and 503-117-6",  # a dashed part number
]
CONTEXT_WORDS = ("codice fiscale", "NIF", "PESEL", "Aadhaar", "PAN", "CPF", "SIN", "TFN", "ID number")


class TestNationalIdsOfMoreCountries:
    @pytest.mark.parametrize(("text", "number"), NATIONAL_IDS)
    def test_a_national_number_is_found(self, text: str, number: str) -> None:
        assert _covers(text, number) and "national_id" in _families(text)

    @pytest.mark.parametrize("text", WRONG_CHECKS)
    def test_a_wrong_check_digit_or_date_is_no_id(self, text: str) -> None:
        assert "national_id" not in _families(text)

    @pytest.mark.parametrize("text", WITHOUT_CONTEXT)
    def test_a_valid_number_without_its_word_is_no_id(self, text: str) -> None:
        assert "national_id" not in _families(text)

    def test_the_checks_agree_with_the_published_algorithms(self) -> None:
        assert verhoeff_ok("2363") and not verhoeff_ok("2364")  # the textbook Verhoeff example
        assert cpf_ok("52998224725") and not cpf_ok("52998224715")
        assert sin_ok("130692544") and not sin_ok("130692545")
        assert not sin_ok("046454286")  # the CRA's sample passes Luhn; 0 is no province's first digit
        assert tfn_ok("123456782") and not tfn_ok("123456781")  # the ATO's sample TFN
        assert codice_fiscale_ok("RSSMRA85T10A562S") and not codice_fiscale_ok("RSSMRA85T10A562T")
        assert pt_nif_ok("123456789") and not pt_nif_ok("123456780")
        assert pesel_ok("44051401359") and not pesel_ok("44051401358")
        assert za_id_ok("8001015009087") and not za_id_ok("8001015009088")
        assert aadhaar_ok("234123412346") and not aadhaar_ok("234123412347")

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(CONTEXT_WORDS), st.randoms(use_true_random=False))
    def test_a_digit_run_inside_a_hex_token_is_no_id(self, word: str, rng: object) -> None:
        token = uuid.UUID(int=rng.getrandbits(128), version=4).hex  # type: ignore[attr-defined]
        for text in (f"{word} lookup job {token} done", f"{word}: {token}", f"{word} {token.upper()}"):
            assert "national_id" not in _families(text), text

    def test_every_kind_with_a_context_has_its_substring_gate(self) -> None:
        for kind in ALL_KINDS:
            if kind.context is not None:
                assert CONTEXT_HINTS[kind.name], kind.name

    def test_remember_refuses_a_national_number(self, tmp_path: object) -> None:
        with memoryos.open(f"{tmp_path}/m.db") as mem:
            scope = memoryos.Scope(user="u", assistant="a")
            with pytest.raises(memoryos.Rejected) as refused:
                mem.remember(scope, "Mój PESEL: 04292487581")
            assert refused.value.reason == "pii:national_id"


SAS_QUERY = (
    "sv=2023-01-03&ss=b&srt=o&sp=r&se=2027-01-01T00:00:00Z&spr=https"
    + "&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2Q%3D"
)


class TestAzureSas:
    @pytest.mark.parametrize(
        "text",
        [
            f"download https://acct.blob.core.windows.net/c/report.csv?{SAS_QUERY} (valid 30 days)",
            f"SAS token: {SAS_QUERY}",
            f'"url": "https://files.example.net/x?{SAS_QUERY}"',
        ],
    )
    def test_a_signed_query_is_refused_at_its_signature(self, text: str) -> None:
        assert _covers(text, "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2Q") and "azure_sas_token" in _families(text)

    @pytest.mark.parametrize(
        "text",
        [
            "https://cdn.example.net/img.png?sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2Q&w=200",  # no sv= or se=
            "https://acct.blob.core.windows.net/c/report.csv?sv=2023-01-03&se=2027-01-01&sig=XXXXXXXXXXXXXXXXXXXXXXXX",
            "append &sig= to the SAS query string, with sv= and se= before it",
        ],
    )
    def test_a_query_that_is_no_sas_or_a_template_is_accepted(self, text: str) -> None:
        assert "azure_sas_token" not in _families(text)


class TestAccessCodes:
    @pytest.mark.parametrize(
        ("text", "code"),
        [
            ("the gate code is 4821#", "4821"),
            ("Garage door combination: 7305", "7305"),
            ("alarm disarm code - 9034", "9034"),
            ("code for the front door: 1379", "1379"),
            ("le code de l'alarme : 1234", "1234"),
            ("le digicode de l'immeuble est 4B27", "4B27"),
            ("Haustürcode 5566, bitte merken", "5566"),
            ("Der Code für die Haustür lautet 2468", "2468"),
            ("el código de la puerta es 7731", "7731"),
            ("o código do portão é 8120", "8120"),
            ("il codice del portone è 2580", "2580"),
            ("kod do drzwi to 4455", "4455"),
            ("deurcode: 8642", "8642"),
            ("code d'accès du local : 3141", "3141"),
            ("código de acceso: 2718", "2718"),
            ("Türcode Haus 4: 1357", "1357"),
        ],
    )
    def test_a_code_stated_as_what_opens_a_door_is_refused(self, text: str, code: str) -> None:
        assert _covers(text, code) and "access_code" in _families(text)

    @pytest.mark.parametrize(
        "text",
        [
            "the door code changed last week",
            "the door code has 4 digits",
            "the gate code expires in 2026",
            "the alarm code review is on 2026-01-05",
            "error code: 4040 from the gateway",
            "zip code 10115",
            "building code 2021 applies to the stairs",
            "door code 12",
            "the code of conduct: 2024 edition",
        ],
    )
    def test_talk_about_a_code_without_one_is_accepted(self, text: str) -> None:
        assert "access_code" not in _families(text)


class TestRecoveryCodes:
    @pytest.mark.parametrize(
        ("text", "first"),
        [
            ("Backup codes: 4821-9930 1177-2048 5531-0092", "4821-9930"),
            ("my 2FA recovery codes are\n- a1b2c-d3e4f\n- g5h6i-j7k8l", "a1b2c-d3e4f"),
            ("codes de secours : 84720193 55120984 10293847", "84720193"),
            ("Wiederherstellungscodes: x7k2m-9qz3p, 4hf8d-2ml0c", "x7k2m-9qz3p"),
            ("recovery code: 7f3k9m2q8z", "7f3k9m2q8z"),
        ],
    )
    def test_codes_stated_as_recovery_codes_are_refused(self, text: str, first: str) -> None:
        assert _covers(text, first) and "recovery_codes" in _families(text)

    @pytest.mark.parametrize(
        "text",
        [
            "I regenerated the recovery codes on 2026-03-01",
            "recovery codes: saved in 1Password",
            "backup codes: 10 left",
            "recovery keys: 2024 2025",
            "print the backup codes and keep them in a drawer",
            "recovery code: v2.4.1",
        ],
    )
    def test_talk_about_recovery_codes_is_accepted(self, text: str) -> None:
        assert "recovery_codes" not in _families(text)


class TestWifiPasswords:
    @pytest.mark.parametrize(
        ("text", "secret"),
        [
            ("Gäste-WLAN: FRITZ!Box 7530 / Kx9#mPq2vL", "Kx9#mPq2vL"),
            ("wifi for visitors: CasaMia / tR7!pLm29qZ", "tR7!pLm29qZ"),
            ("wifi key: Qz8!rT5mWp", "Qz8!rT5mWp"),
            ("WPA2-PSK: h7Gk2LmQ9x", "h7Gk2LmQ9x"),
            ("clé WPA : Soleil2024!x", "Soleil2024!x"),
            ("mot de passe wifi : Soleil2024!x", "Soleil2024!x"),
        ],
    )
    def test_a_wifi_password_is_refused(self, text: str, secret: str) -> None:
        assert _covers(text, secret)

    @pytest.mark.parametrize(
        "text",
        [
            "wifi speed: 300Mbps / 50Mbps",
            "WLAN 2.4GHz / 5GHz bands",
            "the wifi key is on the fridge",
            "wifi: office / guest networks are separate",
        ],
    )
    def test_talk_about_wifi_is_accepted(self, text: str) -> None:
        assert scan(text) == []


class TestDatesOfBirth:
    @pytest.mark.parametrize(
        ("text", "date"),
        [
            ("born on 3 May 1990 in Porto", "3 May 1990"),
            ("DOB: 1985-11-23", "1985-11-23"),
            ("D.O.B. of Ana Ruiz: 11/23/1985", "11/23/1985"),
            ("Claire Martin, née le 12 mars 1980", "12 mars 1980"),
            ("Geburtsdatum: 05.06.1971", "05.06.1971"),
            ("fecha de nacimiento 23/04/1969", "23/04/1969"),
            ("data di nascita: 14/02/1975", "14/02/1975"),
            ("Anna Kowalska, urodzona 12.09.1983", "12.09.1983"),
            ("生年月日：1988年7月1日", "1988年7月1日"),
            ("Ivan was born on January 5, 1979", "January 5, 1979"),
        ],
    )
    def test_a_date_stated_as_a_birth_date_is_refused(self, text: str, date: str) -> None:
        assert _covers(text, date) and "date_of_birth" in _families(text)

    @pytest.mark.parametrize(
        "text",
        [
            "Olga Carvalho, 18.07.2026 review",  # a name beside a date: a meeting
            "born in 1962",  # a year alone
            "the project was born out of the 2019 hackathon",
            "DOB: 01/01/1970",  # the epoch: a form's default
            "DOB: 31/02/1990",  # no such day
            "birthday party on Saturday the 12th",
            "released on 1985-11-23",
        ],
    )
    def test_dates_not_stated_as_birth_dates_are_accepted(self, text: str) -> None:
        assert "date_of_birth" not in _families(text)


class TestSmallerFixes:
    @pytest.mark.parametrize(
        ("text", "secret"),
        [
            ("cache at redis://:Zephyr1994!@cache.internal:6379/0", "Zephyr1994!"),
            ("A minha senha do e-mail é L4nt3rn!x86", "L4nt3rn!x86"),  # the "e" of e-mail is no "and"
            ("Chen Wei's mobile: 13912345678", "13912345678"),
            ("text me at +12125550123", "+12125550123"),
            ('api_key: "sk-ant-api03-Qx7Lm2Pz9Rk4Vb8N"', "Qx7Lm2Pz9Rk4Vb8N"),  # elided? no: a long run
            ("write to jane.doe@examples.com", "jane.doe@examples.com"),
        ],
    )
    def test_found(self, text: str, secret: str) -> None:
        assert _covers(text, secret)

    @pytest.mark.parametrize(
        "text",
        [
            "redis://:${REDIS_PASSWORD}@cache.internal:6379",
            "last call at 1727209909863",  # a millisecond timestamp after a phone word
            "call id 13912345678",
            'sendgrid_api_key: "sk-ant-api03-..."  # fill in',
            "token: ghp_…",
            "MAIL_FROM=jane.doe@example.net",
            "e.g. send to bob@example.com",
            "cc: ana@mail.example.co.uk and x@build.test",
            "bounce to nobody@host.invalid",
        ],
    )
    def test_accepted(self, text: str) -> None:
        assert scan(text) == []

    def test_reserved_domains_are_the_documentation_ones(self) -> None:
        assert reserved_domain("example.com") and reserved_domain("test.example")
        assert reserved_domain("mail.example.org") and reserved_domain("ci.localhost")
        assert not reserved_domain("examples.com") and not reserved_domain("example-corp.com")
        assert not reserved_domain("gmail.com")


def _seconds(text: str) -> float:
    began = time.perf_counter()
    scan(text)
    return time.perf_counter() - began


@pytest.mark.serial
@pytest.mark.parametrize(
    "seed",
    ["DOB ", "born on 12 ", "door code is ", "recovery codes: 1234 ", "wifi aa/", "sv=1&sig=", "PESEL 1"],
)
def test_64_kib_of_one_new_keyword_is_scanned_in_linear_time(seed: str) -> None:
    """Ten times a scan of 64 KiB of prose measured just before (or half a second): a finder that
    tried each keyword's whole window anew would take many seconds."""
    prose = ("Rotate the deploy key on Tuesday, then tell the team in the channel at 14:30. " * 840)[:65536]
    baseline = _seconds(prose)
    assert _seconds((seed * (65536 // len(seed) + 1))[:65536]) < max(0.5, 10 * baseline)
