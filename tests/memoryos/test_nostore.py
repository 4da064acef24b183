"""The no-store rule: secrets and personal data are found, ordinary agent notes are not."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryos.policies.nostore import DEFAULT_FAMILIES, FAMILIES, REASON_CODE, Detection, redact, scan
from memoryos.policies.nostore_checks import card_number_ok, iban_ok, luhn_ok, shannon_entropy, wordiness
from memoryos.policies.nostore_entropy import token_is_secret

# (family, text, secret): the secret is a substring of text that must be covered by a detection.
POSITIVES: list[tuple[str, str, str]] = [
    (
        "private_key",
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nbye",
        "MIIEow",
    ),
    (
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n(cut off)",
        "b3BlbnNzaC1rZXktdjEA",
    ),
    (
        "private_key",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF",
    ),
    ("aws_access_key", "the key id is AKIAIOSFODNN7EXAMPLE ok", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_access_key", "temp creds ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    ("aws_secret_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    (
        "github_token",
        "use ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 please",
        "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    ),
    (
        "github_token",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGH0123456789",
        "github_pat_11ABCDEFG0",
    ),
    ("gitlab_token", "token glpat-xYz12_aBcDeFgHiJkLmN34 set", "glpat-xYz12_aBcDeFgHiJkLmN34"),
    ("slack_token", "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012"),
    (
        "slack_webhook",
        "post to https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx",
        "AbCdEf",
    ),
    ("stripe_key", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc now", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "test key rk_test_51HxYzAbCdEfGhIjKlMn", "rk_test_51HxYzAbCdEfGhIjKlMn"),
    (
        "google_api_key",
        "maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q ok",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    ),
    (
        "openai_key",
        "OPENAI sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_A-b",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
    ),
    ("openai_key", "legacy sk-Ab12Cd34Ef56Gh78T3BlbkFJIj90Kl12Mn34Op56", "sk-Ab12Cd34Ef56Gh78T3BlbkFJ"),
    (
        "anthropic_key",
        "claude sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z-AA",
        "sk-ant-api03-Ab3dEf6hIj9kLm2n",
    ),
    (
        "huggingface_token",
        "HF hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    ),
    (
        "npm_token",
        "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d in .npmrc",
        "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d",
    ),
    ("twilio_key", "twilio SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef0123456789abcdef"),
    (
        "sendgrid_key",
        "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",
        "SG.ngeVfQFYQlKU0ufo8x5d1A",
    ),
    (
        "azure_storage_key",
        "AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu==;",
        "Eby8vdM02x",
    ),
    (
        "jwt",
        "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGci",
    ),
    ("url_credentials", "db at postgres://admin:s3cr3t!@db.internal:5432/app", "s3cr3t!"),
    ("url_credentials", "clone https://bob:ghx7Tq2mZ@git.example.com/repo.git", "ghx7Tq2mZ"),
    ("bearer_token", "curl -H 'Authorization: Bearer abc123DEF456ghi789JKL'", "abc123DEF456ghi789JKL"),
    ("high_entropy", "remember Zk8pQ2mX7vL4nR9tW1yB6cJ3hG5 for the deploy", "Zk8pQ2mX7vL4nR9tW1yB6cJ3hG5"),
    (
        "high_entropy",
        "salt: lKcOEVQ7246iPh7OXyOkfLAN0utmjCb/uZ+InfLrDw==.",
        "lKcOEVQ7246iPh7OXyOkfLAN0utmjCb",
    ),
    ("credit_card", "card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
    ("credit_card", "amex 3782-822463-10005 thanks", "3782-822463-10005"),
    ("credit_card", "pay with 5555555555554444", "5555555555554444"),
    ("iban", "IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX", "DE89 3704 0044 0532 0130 00"),
    ("iban", "transfer to GB82WEST12345698765432 today", "GB82WEST12345698765432"),
    ("email", "write to bob.smith+news@example.co.uk tomorrow", "bob.smith+news@example.co.uk"),
    ("phone", "call me at +44 20 7946 0958", "+44 20 7946 0958"),
    ("phone", "office (555) 234-5678", "(555) 234-5678"),
    ("phone", "Téléphone : 06 12 34 56 78", "06 12 34 56 78"),
    ("phone", "Telefon: 030 1234567", "030 1234567"),
    ("phone", "電話番号は 03-1234-5678 です", "03-1234-5678"),
    ("phone", "meu celular é (11) 91234-5678", "(11) 91234-5678"),
]

# Multilingual credential keywords followed by a value: the value must be found.
KEYWORD_POSITIVES: list[tuple[str, str]] = [
    ("my password is hunter2!", "hunter2"),
    ("contraseña: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("パスワードは abc123xyz です", "abc123xyz"),
    ("Passwort: Sommer2024!", "Sommer2024!"),
    ("Das Kennwort lautet Kw9!mZt", "Kw9!mZt"),
    ("mon mot de passe est Azerty#2024", "Azerty#2024"),
    ("mdp : soleil42", "soleil42"),
    ("a senha do wifi é casa1234", "casa1234"),
    ("la password è Gatto_99", "Gatto_99"),
    ("het wachtwoord is fiets2020", "fiets2020"),
    ("hasło: Kot!2023x", "Kot!2023x"),
    ("lösenord: blomma77", "blomma77"),
    ("密码是abc123456", "abc123456"),
    ("пароль — qwerty123", "qwerty123"),
    ("passphrase: correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("The password for the staging database is N0tS0Secret", "N0tS0Secret"),
    ('{"user": "admin", "password": "hunter2"}', "hunter2"),
    ("DB_PASSWORD=swordfish", "swordfish"),
    ("la clave API es 8f3kQ9zL2mX7vR4t", "8f3kQ9zL2mX7vR4t"),
    ("api_key: 3f9a2b7c4d1e8f6a", "3f9a2b7c4d1e8f6a"),
    ("client_secret = 'q8ZkP2mLx9Wv7Bn4'", "q8ZkP2mLx9Wv7Bn4"),
]

# Notes an agent writes all day that must never be refused.
NEGATIVES: list[str] = [
    "I forgot my password",
    "reset your password via the link",
    "Password reset: Tuesday after standup",
    "Passwort vergessen? Setzen Sie es über den Link zurück.",
    "¿Olvidaste tu contraseña? Restablécela desde el enlace.",
    "パスワードを忘れた場合はリンクから再設定してください。",
    "The password is incorrect, try again.",
    "the token is JWT-based and expires in 3600 seconds",
    "password = os.environ['DB_PASSWORD']",
    "def login(username: str, password: str) -> Token:",
    "password: ${DB_PASSWORD}",
    "user.set_password(form.cleaned_data['password1'])",
    "password = getpass.getpass()",
    "Password: ********",
    "max_tokens: 4096",
    "token limit: 8192 per request",
    "session 550e8400-e29b-41d4-a716-446655440000 created",
    "fixed in 3f9a1c2 (revert of 3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2)",
    "docs at https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "upgraded to 2.31.0-rc.1+build.5678 and python 3.11.7",
    "order #12345678 shipped, tracking 123456789012",
    "meeting on 2024-01-15 at 10:30, or 15.01.2024, or 01/15/2024",
    "service on localhost:8080, db at 192.168.1.10:5432, gateway 10.0.0.1",
    "nginx@sha256:c910f4e1faf4b3f8544ff421d832562400e7c3875f3212f4321b427c7f7c5041",
    "edited /usr/local/lib/python3.11/site-packages/memoryos/policies/nostore.py",
    "colours #1e90ff and #fff",
    "epoch 1705312200 and 1705312200123 ms",
    "git clone git@github.com:org/repo.git",
    "pod api-7d4b9c8f6-x2k9p restarted",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx7Kq9Zp2mW4vN8rT1yB6cJ3hL5sD0fE alice@laptop",
    "Use getUserProfileByIdAsync with AbstractSingletonProxyFactoryBean2",
    "icon@2x.png and npm i lodash@4.17.21",
    "ISBN 978-3-16-148410-0, population 67 390 000",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    "postgres://app:${DB_PASSWORD}@db:5432/app",
]


def _covered(detections: list[Detection], text: str, secret: str) -> bool:
    start = text.index(secret)
    end = start + len(secret)
    return any(d.start < end and start < d.end for d in detections)


class TestFamilies:
    @pytest.mark.parametrize(("family", "text", "secret"), POSITIVES)
    def test_each_family_finds_its_secret(self, family: str, text: str, secret: str) -> None:
        detections = scan(text)
        assert _covered(detections, text, secret)
        assert family in {d.family for d in detections}

    @pytest.mark.parametrize(("family", "text", "secret"), POSITIVES)
    def test_a_family_left_out_of_the_configuration_does_not_run(
        self, family: str, text: str, secret: str
    ) -> None:
        assert family not in {d.family for d in scan(text, DEFAULT_FAMILIES - {family})}

    @pytest.mark.parametrize("text", NEGATIVES)
    def test_risky_looking_notes_are_not_flagged(self, text: str) -> None:
        assert scan(text) == []

    def test_every_family_in_the_table_has_a_positive_case(self) -> None:
        assert {family for family, _, _ in POSITIVES} >= set(FAMILIES) - {"pypi_token"} - {
            "password_assignment",
            "credential_assignment",
        }

    def test_unknown_family_names_are_a_configuration_error(self) -> None:
        with pytest.raises(ValueError, match="unknown"):
            scan("x", frozenset({"passwords"}))

    def test_an_empty_selection_detects_nothing(self) -> None:
        assert scan("my password is hunter2!", frozenset()) == []


class TestKeywords:
    @pytest.mark.parametrize(("text", "secret"), KEYWORD_POSITIVES)
    def test_keyword_followed_by_a_value_is_found_in_many_languages(self, text: str, secret: str) -> None:
        detections = scan(text)
        assert _covered(detections, text, secret)
        assert {d.family for d in detections} <= {
            "password_assignment",
            "credential_assignment",
            "high_entropy",
        }

    @pytest.mark.parametrize(("text", "secret"), KEYWORD_POSITIVES)
    def test_the_keyword_itself_is_not_redacted(self, text: str, secret: str) -> None:
        assert secret not in redact(text, scan(text))

    def test_a_more_specific_family_wins_an_overlap(self) -> None:
        detections = scan("token: ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
        assert [d.family for d in detections] == ["github_token"]


class TestValidators:
    @pytest.mark.parametrize(
        "number", ["4111111111111111", "5555555555554444", "378282246310005", "79927398713"]
    )
    def test_luhn_accepts_valid_numbers(self, number: str) -> None:
        assert luhn_ok(number)

    @pytest.mark.parametrize("number", ["4111111111111112", "1234567812345678", "", "41111a1111111111"])
    def test_luhn_rejects_invalid_numbers(self, number: str) -> None:
        assert not luhn_ok(number)

    def test_card_needs_a_known_issuer_prefix_as_well_as_luhn(self) -> None:
        assert luhn_ok("9111111111111110")
        assert not card_number_ok("9111111111111110")

    @pytest.mark.parametrize(
        "iban", ["DE89370400440532013000", "GB82WEST12345698765432", "FR1420041010050500013M02606"]
    )
    def test_iban_accepts_valid_checksums(self, iban: str) -> None:
        assert iban_ok(iban)

    @pytest.mark.parametrize(
        "iban", ["DE89370400440532013001", "DE8937040044053201300", "XX89370400440532013000"]
    )
    def test_iban_rejects_bad_checksum_length_or_country(self, iban: str) -> None:
        assert not iban_ok(iban)

    def test_entropy_of_a_repeated_character_is_zero_and_grows_with_variety(self) -> None:
        assert shannon_entropy("aaaa") == 0.0
        assert shannon_entropy("abcd") == 2.0

    def test_identifiers_read_as_words_and_random_tokens_do_not(self) -> None:
        assert wordiness("getUserProfileByIdAsync") > 0.5
        assert wordiness("Zk8pQ2mX7vL4nR9tW1yB6cJ3") < 0.5

    @pytest.mark.parametrize(
        "token",
        ["550e8400-e29b-41d4-a716-446655440000", "3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2", "1.2.3-rc.1"],
    )
    def test_hex_ids_and_versions_are_never_high_entropy_secrets(self, token: str) -> None:
        assert not token_is_secret(token)


class TestRedaction:
    @pytest.mark.parametrize(("family", "text", "secret"), POSITIVES)
    def test_redacted_text_keeps_no_part_of_the_secret(self, family: str, text: str, secret: str) -> None:
        redacted = redact(text, scan(text))
        assert secret not in redacted
        assert f"[REDACTED:{FAMILIES[family].klass}:" in redacted

    def test_redact_marks_each_span_with_its_reason(self) -> None:
        text = "mail bob@example.com now"
        assert redact(text, scan(text)) == "mail [REDACTED:pii:email] now"

    def test_overlapping_detections_are_merged(self) -> None:
        detections = [Detection("a", "secret:a", 0, 4), Detection("b", "secret:b", 2, 6)]
        assert redact("abcdefgh", detections) == "[REDACTED:secret:a][REDACTED:secret:b]gh"

    def test_reason_codes_fit_the_receipt_format(self) -> None:
        for family in FAMILIES.values():
            assert REASON_CODE.fullmatch(family.reason), family.name
            assert family.klass in {"secret", "pii"}


# Any text, lone surrogates included: the core rejects those first, but scan must still not crash.
ANY_TEXT = st.text(st.characters(codec=None, blacklist_categories=()), max_size=400)
SECRETISH = st.text(alphabet="password:= is@.-+0123456789AKIAghp_sk-eyJ/ \n", max_size=400)


class TestProperties:
    @settings(max_examples=300, deadline=None)
    @given(st.one_of(ANY_TEXT, SECRETISH))
    def test_scan_never_raises_and_returns_sorted_disjoint_spans_in_bounds(self, text: str) -> None:
        detections = scan(text)
        previous_end = 0
        for detection in detections:
            assert 0 <= previous_end <= detection.start < detection.end <= len(text)
            assert REASON_CODE.fullmatch(detection.reason)
            previous_end = detection.end

    @settings(max_examples=200, deadline=None)
    @given(st.one_of(ANY_TEXT, SECRETISH))
    def test_redact_replaces_exactly_the_detected_spans(self, text: str) -> None:
        detections = scan(text)
        expected, position = "", 0
        for detection in detections:
            expected += text[position : detection.start] + f"[REDACTED:{detection.reason}]"
            position = detection.end
        assert redact(text, detections) == expected + text[position:]


ADVERSARIAL = [
    "a" * 65536,
    "password " * 7282,
    "password: " + "x" * 65526,
    "-----BEGIN PRIVATE KEY-----" * 2427,
    "a@" * 32768,
    "1 " * 32768,
    "1-" * 32768,
    "+1 (" * 16384,
    "aws " * 16384,
    "http://a:" * 7281,
    "eyJ" + "a." * 32766,
    "DE89 " * 13107,
    "パスワードは" * 10922,
    "0" * 65536,
    "x=" * 32768,
]


class TestRobustness:
    def test_lone_surrogates_do_not_crash_the_scan(self) -> None:
        text = "\ud800 password: Tr0ub4dor&3 \udfff bob@example.com \udc00"
        assert [d.family for d in scan(text)] == ["password_assignment", "email"]

    def test_offsets_survive_characters_whose_lower_case_is_longer(self) -> None:
        text = "İİİ password: Tr0ub4dor&3"
        (detection,) = scan(text)
        assert text[detection.start : detection.end] == "Tr0ub4dor&3"


class TestPerformance:
    @pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda text: re.sub(r"\W", "_", text[:12]))
    def test_64_kib_adversarial_input_is_scanned_quickly(self, text: str) -> None:
        began = time.perf_counter()
        scan(text)
        assert time.perf_counter() - began < 0.5
