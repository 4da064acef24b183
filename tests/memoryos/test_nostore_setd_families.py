"""The families that set D showed missing, each with examples of our own (not set D's rows): national
ids of more countries by their check and their local name, health cards, dictated PINs, passwords and
phone numbers, phones in more languages, home addresses written from the city down, birth dates and
driving licences stated in more languages; and the lookalikes each rule must let through (a wrong
check digit, no name before the number, a toll-free or support line, a variable reference, a company's
published address, number words that spell no value)."""

from __future__ import annotations

import pytest

from memoryos.policies.nostore import scan
from memoryos.policies.nostore_spoken import french_number, spoken_runs


def _covers(text: str, value: str) -> bool:
    start = text.index(value)
    end = start + len(value)
    return any(d.start < end and start < d.end for d in scan(text))


# (text, value): the value must be covered by some detection. Numbers with a check are either widely
# published specimens (TCKN 10000000146, RUT 12.345.678-5, HKID A123456(3), ...) or built to the check.
REFUSED: tuple[tuple[str, str], ...] = (
    ("주민등록번호 880315-1507529 로 가입했어", "880315-1507529"),
    ("T.C. kimlik numaram: 10000000146", "10000000146"),
    ("Fødselsnummer til kontoen: 150389 14852", "150389 14852"),
    ("Para el contrato, mi RUT es 12.345.678-5", "12.345.678-5"),
    ("CUIL de la empleada: 27-53888539-3", "27-53888539-3"),
    ("registro con CURP GOMA900215HDFRRN04 en el portal", "GOMA900215HDFRRN04"),
    ("מספר תעודת זהות: 752882001", "752882001"),
    ("CNP 2900215579868 pentru contract", "2900215579868"),
    ("моето ЕГН е 9002158033", "9002158033"),
    ("rodné číslo manželky: 905215/7598", "905215/7598"),
    ("ΑΜΚΑ: 15029097514 για το ραντεβού", "15029097514"),
    ("my NRIC is S1234567D", "S1234567D"),
    ("HKID 號碼 A123456(3)", "A123456(3)"),
    ("身分證字號：A123456789", "A123456789"),
    ("isikukood 37605030299 on lepingus", "37605030299"),
    ("OIB: 69435151530", "69435151530"),
    ("Steuer-ID der Mandantin: 76 352 418 982", "76 352 418 982"),
    ("kennitala: 150290-0829", "150290-0829"),
    ("PPSN 1234567T on the form", "1234567T"),
    ("Sozialversicherungsnummer 1237 010180", "1237 010180"),
    ("CPR-nummer 150290-1234", "150290-1234"),
    ("เลขประจำตัวประชาชน 1-6199-58225-42-8", "1-6199-58225-42-8"),
    ("رقم الهوية 1465925517", "1465925517"),
    ("Medicare card 3500 32496 6 for the GP", "3500 32496 6"),
    ("OHIP health card 7096-825-067-AB", "7096-825-067-AB"),
    ("the garage pin is six one seven three", "six one seven three"),
    ("die PIN fürs Tablet ist acht drei null sieben", "acht drei null sieben"),
    ("de code van het hek is zes twee negen een", "zes twee negen een"),
    ("el código de la puerta es siete dos nueve cinco", "siete dos nueve cinco"),
    ("wifi password, spelled: capital kilo, seven, papa, xray, nine, dash, tango", "capital kilo"),
    ("text me on my mobile, oh seven seven one two three four nine eight seven six", "oh seven"),
    ("mon portable : zéro sept quatre-vingt-douze trente-et-un cinquante-six quatorze", "zéro sept"),
    ("Meu telemóvel: 912 345 678", "912 345 678"),
    ("Mój numer komórki: 601 234 567", "601 234 567"),
    ("мобильный жены: 8 (912) 345-67-89", "8 (912) 345-67-89"),
    ("Il mio indirizzo di casa: Via degli Orti 14, 40137 Bologna", "Via degli Orti 14"),
    ("家庭住址：北京市朝阳区建国路88号3单元502室", "北京市朝阳区建国路88号"),
    ("домашний адрес: г. Самара, ул. Ленина, д. 7, кв. 12", "ул. Ленина"),
    ("Ev adresim Atatürk Caddesi No:45 D:3 Çankaya/Ankara", "Atatürk Caddesi No:45"),
    ("우리 집 주소: 부산광역시 해운대구 센텀로 12, 101동 1203호", "해운대구 센텀로 12"),
    ("Doğum tarihim: 14.03.1987", "14.03.1987"),
    ("תאריך לידה: 22/11/1979", "22/11/1979"),
    ("driver's license no. D4827391 (NY)", "D4827391"),
    ("Führerscheinnummer J0123AB4567", "J0123AB4567"),
    ("Η κωδικός πρόσβασης του λογαριασμού είναι Limoni!2024", "Limoni!2024"),
    ("كلمة السر للشبكة هي Zaytoun#88", "Zaytoun#88"),
    ("הסיסמה למחשב היא Tapuz_2031", "Tapuz_2031"),
)

LET_THROUGH: tuple[str, ...] = (
    "T.C. kimlik numaram: 10000000147",  # wrong 11th digit
    "order 10000000146 shipped",  # a valid TCKN's digits without its name
    "Mi RUT es 12.345.678-6",  # wrong verifier
    "OIB: 69435151531",
    "CNP 2900215579869",
    "HKID A123456(4)",
    "Kundenservice: 0800 123 4567 (kostenlos)",  # a toll-free line
    "Support hotline for Contoso: 020 7946 1234, option 3",
    "フリーダイヤル 0120-444-555",
    "password: !Ref DatabasePassword",  # a CloudFormation reference
    "db_password: !secret mariadb_password",  # Home Assistant's secrets file
    "we need four five six seven chairs for the room",  # number words with no code or phone word
    "one two three four, the band counts in",
    "本社：株式会社ミドリ商事 東京都千代田区丸の内1-2-3",  # a company's published address
    "my address changed last year",  # no house number
    "X-Request-Start-Time-Header: 1701955200",  # a header name of capitalised words
    "Stripe event evt_9QkLm2XnB7vRtY4pWz and request req_3HdKs8LqPw2Mx",  # public object ids
    "Subject: =?UTF-8?B?R3LDvMOfZSBhdXMgTcO8bmNoZW4gLSBBbmdlYm90IGbDvHIgU2llIQ==?=",  # UTF-8 text in base64
    "page_cursor eyJvZmZzZXQiOiAxMjAsICJvcmRlciI6ICJ1cGRhdGVkX2F0IGRlc2MifQ",  # base64 of a JSON cursor
)


@pytest.mark.parametrize(("text", "value"), REFUSED)
def test_each_family_is_refused(text: str, value: str) -> None:
    assert _covers(text, value), scan(text)


@pytest.mark.parametrize("text", LET_THROUGH)
def test_lookalikes_are_let_through(text: str) -> None:
    assert scan(text) == []


def test_base64_of_a_service_account_json_stays_refused() -> None:
    encoded = (
        "eyJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIsICJwcml2YXRlX2tleSI6ICItLS0tLUJFR0lOIFBSSVZBVEUgS0VZLS0tLS0ifQ"
    )
    assert scan(f"GCP_SA_B64={encoded}")


def test_spoken_runs_spell_digits_letters_and_symbols() -> None:
    runs = list(spoken_runs("code: four, capital alpha, small bravo, hash, double seven".lower()))
    assert [spelled for _, _, spelled in runs] == ["4Ab#77"]


@pytest.mark.parametrize(
    ("word", "number"),
    [
        ("quatre-vingt-dix", "90"),
        ("vingt-et-un", "21"),
        ("soixante-dix-sept", "77"),
        ("dix", "10"),
        ("six", None),
    ],
)
def test_french_pairs_are_read_as_numbers(word: str, number: str | None) -> None:
    assert french_number(word) == number


def test_a_long_text_of_spoken_runs_judges_each_run_in_its_own_window() -> None:
    text = "the pin is one two three four. " * 400
    assert len(scan(text)) == 400
