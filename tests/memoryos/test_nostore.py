"""The no-store rule: secrets and personal data are found, ordinary agent notes are not."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoryos
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
    ("email", "write to bob.smith+news@mailbox.co.uk tomorrow", "bob.smith+news@mailbox.co.uk"),
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
        covered = {family for family, _, _ in POSITIVES + NEW_FAMILY_POSITIVES} | {"provider_token"}
        assert covered >= set(FAMILIES) - {"pypi_token"} - {
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
        text = "mail bob@mailbox.org now"
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
        text = "\ud800 password: Tr0ub4dor&3 \udfff bob@mailbox.org \udc00"
        assert [d.family for d in scan(text)] == ["password_assignment", "email"]

    def test_offsets_survive_characters_whose_lower_case_is_longer(self) -> None:
        text = "İİİ password: Tr0ub4dor&3"
        (detection,) = scan(text)
        assert text[detection.start : detection.end] == "Tr0ub4dor&3"


_PROSE_64K = ("Rotate the deploy key on Tuesday, then tell the team in the channel at 14:30. " * 840)[:65536]


def _seconds(text: str) -> float:
    began = time.perf_counter()
    scan(text)
    return time.perf_counter() - began


@pytest.mark.serial
class TestPerformance:
    @pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda text: re.sub(r"\W", "_", text[:12]))
    def test_64_kib_adversarial_input_is_scanned_quickly(self, text: str) -> None:
        """Half a second, or twenty times a scan of 64 KiB of prose measured just before on a machine
        loaded by others (the keyword finders cost up to ~12x prose on a repeated keyword, linear but
        dear: ten times failed under load): a super-linear blow-up on 64 KiB costs 60-1000x."""
        baseline = _seconds(_PROSE_64K)
        assert _seconds(text) < max(0.5, 20 * baseline)


# --- Normalisation: invisible, non-breaking and full-width characters hide nothing ---------------

CARD = "4742 0780 2345 8889"  # Luhn-valid Visa, not a public test number
IBAN = "DE71 2631 6627 7306 8985 75"
TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SECRETS_IN_TEXT = {
    "card": ("pay with {} thanks", CARD, "credit_card"),
    "iban": ("IBAN {} for the rent", IBAN, "iban"),
    "token": ("use {} for the deploy", TOKEN, "github_token"),
}
INVISIBLE = {"zwsp": "\u200b", "zwj": "\u200d", "soft_hyphen": "\u00ad", "bom": "\ufeff", "wj": "\u2060"}
SPACE_KINDS = {"nbsp": "\u00a0", "narrow_nbsp": "\u202f", "figure": "\u2007", "ideographic": "\u3000"}


def _insert_every(secret: str, char: str, step: int) -> str:
    return char.join(secret[i : i + step] for i in range(0, len(secret), step))


def _assert_refused_and_redacted(text: str, family: str, template: str) -> None:
    detections = scan(text)
    assert family in {d.family for d in detections}, detections
    redacted = redact(text, detections)
    head, _, tail = template.partition("{}")
    # Redaction maps back onto the original text: what surrounds the secret is intact, and nothing of
    # the secret, invisible characters included, is left.
    assert redacted == f"{head}[REDACTED:{detections[0].reason}]{tail}"


class TestNormalisation:
    @pytest.mark.parametrize("kind", sorted(INVISIBLE))
    @pytest.mark.parametrize("what", sorted(SECRETS_IN_TEXT))
    def test_an_invisible_character_inside_a_secret_hides_nothing(self, kind: str, what: str) -> None:
        template, secret, family = SECRETS_IN_TEXT[what]
        middle = len(secret) // 2
        text = template.format(secret[:middle] + INVISIBLE[kind] + secret[middle:])
        _assert_refused_and_redacted(text, family, template)

    @pytest.mark.parametrize("what", sorted(SECRETS_IN_TEXT))
    def test_invisible_characters_every_few_characters_hide_nothing(self, what: str) -> None:
        template, secret, family = SECRETS_IN_TEXT[what]
        _assert_refused_and_redacted(template.format(_insert_every(secret, "\u200b", 5)), family, template)

    @pytest.mark.parametrize("kind", sorted(SPACE_KINDS))
    @pytest.mark.parametrize("what", ["card", "iban"])
    def test_non_breaking_spaces_between_groups_hide_nothing(self, kind: str, what: str) -> None:
        template, secret, family = SECRETS_IN_TEXT[what]
        text = template.format(secret.replace(" ", SPACE_KINDS[kind]))
        _assert_refused_and_redacted(text, family, template)

    @pytest.mark.parametrize("what", sorted(SECRETS_IN_TEXT))
    def test_full_width_forms_hide_nothing(self, what: str) -> None:
        template, secret, family = SECRETS_IN_TEXT[what]
        wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" for c in secret)
        _assert_refused_and_redacted(template.format(wide), family, template)

    def test_a_non_breaking_space_joins_a_keyword_to_its_value(self) -> None:
        text = "my\u00a0password\u00a0is\u00a0Zanahoria1974!"
        assert [d.family for d in scan(text)] == ["password_assignment"]
        assert (
            redact(text, scan(text)) == "my\u00a0password\u00a0is\u00a0[REDACTED:secret:password_assignment]"
        )

    def test_a_number_touching_japanese_words_is_found(self) -> None:
        text = "カード番号は4742078023458889、有効期限05/28です"
        assert [d.family for d in scan(text)] == ["credit_card"]
        assert redact(text, scan(text)) == "カード番号は[REDACTED:pii:credit_card]、有効期限05/28です"

    def test_spans_outside_the_secret_keep_their_non_ascii_text(self) -> None:
        text = "café ① ﬁle: card " + CARD.replace(" ", "\u00a0") + " — merci"
        (detection,) = scan(text)
        assert text[detection.start : detection.end] == CARD.replace(" ", "\u00a0")

    @pytest.mark.parametrize(
        "text",
        [
            "the meeting moved\u00a0to 14:30 in room\u202f4",
            "zero\u200bwidth joiners in e\u200dmoji are fine",
            "ＦＵＬＬ　ＷＩＤＴＨ　ｔｉｔｌｅ ２０２６",
            "soft\u00adhyphen\u00adated words wrap nicely",
            "\ufeffa file that starts with a BOM",
            "order 1234\u00a05678\u00a09012\u00a03456 shipped",  # not Luhn-valid
        ],
    )
    def test_benign_notes_with_such_characters_stay_accepted(self, text: str) -> None:
        assert scan(text) == []

    def test_ascii_text_is_scanned_as_it_is(self) -> None:
        from memoryos.policies.nostore_normalize import normalize

        copy = normalize("plain ascii text")
        assert copy.text == "plain ascii text" and copy.starts is None

    @settings(max_examples=200, deadline=None)
    @given(st.text(alphabet=st.sampled_from("ab1 \u00a0\u200b\u00ad\ufeff４Ａ\u3000ﬁ①é\u0301"), max_size=40))
    def test_every_character_of_the_copy_maps_inside_the_original(self, text: str) -> None:
        from memoryos.policies.nostore_normalize import normalize

        copy = normalize(text)
        for start in range(len(copy.text)):
            for end in range(start + 1, len(copy.text) + 1):
                low, high = copy.span(start, end)
                assert 0 <= low < high <= len(text)
        starts = copy.starts or tuple(range(len(text)))
        assert list(starts) == sorted(starts)


class TestNoStoreAtTheDoor:
    def test_remember_refuses_a_card_number_with_a_zero_width_space(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        with pytest.raises(memoryos.Rejected, match="credit_card"):
            mem.remember(alice, "my card is 4742\u200b0780 2345 8889")

    def test_redact_mode_stores_the_original_text_around_the_masked_span(
        self, tmp_path: Path, alice: memoryos.Scope
    ) -> None:
        with memoryos.open(tmp_path / "r.db", no_store_mode="redact") as mem:
            mem.remember(alice, "café bill: IBAN DE71\u00a02631\u00a06627\u00a07306\u00a08985\u00a075 ok")
            (hit,) = mem.recall(alice, "café bill").hits
        assert hit.text == "café bill: IBAN [REDACTED:pii:iban] ok"


# --- Wider coverage: provider formats, national ids, PINs, addresses, secret URLs ----------------

HEX32 = "3f9a2b7c4d1e8f6a0b5c9d2e7f1a4b8c"
# Formats the detector's own table does not know, found by CredSweeper's rules (memoryos[secrets]).
PROVIDER_TOKENS = {
    "digitalocean": f"dop_v1_{HEX32}{HEX32}",
    "shopify": f"shpat_{HEX32}",
    "databricks": f"dapi{HEX32}",
    "postman": f"PMAK-{HEX32[:24]}-{HEX32}ab",
    "mailgun": f"key-{HEX32}",
    "pulumi": f"pul-{HEX32}a1b2c3d4",
}
NEW_FAMILY_POSITIVES: list[tuple[str, str, str]] = [
    ("spoken_secret", "the safe code is three one four seven two", "three one four seven two"),
    ("spoken_phone", "ring me on my mobile: oh seven eight one two three nine four four two one", "oh seven"),
    ("command_password", "sshpass -p 'Qx7!harbor' ssh ops@10.2.0.4", "Qx7!harbor"),
    ("session_secret", "Cookie: PHPSESSID=p0q8z3m1v7k2c9x4b6n5t1r8e2", "p0q8z3m1v7k2c9x4b6n5t1r8e2"),
    ("health_id", "KVNR meines Sohnes: M186091394", "M186091394"),
    ("one_time_code", "Your Fabrikam sign-in code is 503917", "503917"),
    (
        "seed_phrase",
        "mnemonic: ribbon orbit velvet canal throw mercy dash lunar pepper grape silent quote",
        "ribbon orbit velvet canal throw mercy dash lunar pepper grape silent quote",
    ),
    ("spaced_token", "the PAT in groups: glpat- Zk4W x9Lm Qr2T bV8n Y7cD", "glpat- Zk4W x9Lm Qr2T bV8n Y7cD"),
    ("national_id", "My SSN is 536-22-1478", "536-22-1478"),
    ("national_id", "NI number: AB 12 34 56 C", "AB 12 34 56 C"),
    ("national_id", "Mi DNI es 97419034G", "97419034G"),
    ("national_id", "NIR 1 85 07 75 123 456 08", "1 85 07 75 123 456 08"),
    ("national_id", "身份证号码：11010519491231002X", "11010519491231002X"),
    ("national_id", "マイナンバーは1234 5678 9018です", "1234 5678 9018"),
    ("national_id", "BSN: 100000009", "100000009"),
    ("national_id", "passport no. C7HTVXHRH, expires 2031", "C7HTVXHRH"),
    ("postal_address", "ship to Hauptstraße 39, 10115 Berlin", "Hauptstraße 39"),
    ("postal_address", "J'habite au 8 rue de la République, 69002 Lyon", "8 rue de la République"),
    ("postal_address", "home: 127 Elm Street, Apt 4C, Brooklyn, NY 11215", "127 Elm Street"),
    ("postal_address", "自宅住所：東京都世田谷区三軒茶屋2-12-5", "三軒茶屋2-12-5"),
    (
        "secret_url",
        "hook https://discord.com/api/webhooks/1062248598358056920/"
        "3gX93z1aF7xmVBsW_08KUGoZRJS5XcfhEv-cg2djWB99Mt8g1OIgzKPbB16ewnGUMc8R",
        "3gX93z1aF7xmVBsW",
    ),
    (
        "secret_url",
        "https://api.telegram.org/bot2811747475:AApSyfLaKlUsux0-E3mKXN9_V3DAmb22rsr/getUpdates",
        "AApSyfLaKlUsux0",
    ),
    ("password_assignment", "my debit card PIN is 6216", "6216"),
    ("password_assignment", "暗証番号は2171です", "2171"),
    ("phone", "共有しないでください：携帯：090-1209-8690", "090-1209-8690"),  # "：" folds to ":"
    (
        "password_assignment",
        "Papillon2018? — that's the password for the shared Figma account",
        "Papillon2018",
    ),
    ("password_assignment", "Tr0ub4dor&3 est le mot de passe du wifi", "Tr0ub4dor&3"),
    ("password_assignment", "login for the NAS is admin / Zanahoria1974!", "Zanahoria1974"),
    ("credential_assignment", f"datadog: API key {HEX32} (the app key is separate)", HEX32),
    (
        "azure_sas_token",
        "https://acct.blob.core.windows.net/c/f.csv?sv=2023-01-03&se=2027-01-01&sr=b&sp=r"
        "&sig=Qm9vb3RzdHJhcHBlZFNpZ25hdHVyZTEyMzQ1Ng%3D%3D",
        "Qm9vb3RzdHJhcHBlZFNpZ25hdHVyZTEyMzQ1Ng",
    ),
    ("access_code", "the gate code is 4821#", "4821"),
    ("recovery_codes", "Backup codes: 4821-9930 1177-2048 5531-0092", "4821-9930"),
    ("wifi_password", "Gäste-WLAN: FRITZ!Box 7530 / Kx9#mPq2vL", "Kx9#mPq2vL"),
    ("date_of_birth", "DOB: 1985-11-23", "1985-11-23"),
]
NEW_NEGATIVES = [
    "Set STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX in your .env",
    "Template: GITLAB_TOKEN=glpat-XXXXXXXXXXXXXXXXXXXX",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX is the docs example",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n<paste your key here>\n-----END OPENSSH PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----  <- the file looks like this",
    "next_page_token: eyJwYWdlIjoyLCJzaXplIjo1MH0=",
    "next_page_token: aGVsbG8gd29ybGQ=",
    '"integrity": "sha512-Ws7rXgb7RAy715h4XEsuz7kZ5x9o/dD0sv/+znY7YiCTt8OqCiDeG+CrjB9EXoGUG+fqnheG+3gD2"',
    "golang.org/x/text v0.20.0 h1:AGKxmuuvPpdW3Ct13iqT8Ee8jJ5AsoN2kvsG/H/PJks=",
    "SSH host key fingerprint: SHA256:uTcYAGbJuksYXQtR+7ZZczc2RQTMwnIvRmOojAY0M1Q",
    "x-amz-id-2: M5hqzBNgjHDgNx5+4h7iKLWcRgzG5vcLgrBoduNqS3xZ8G16u8wvGqFahHzc0E+afK6gMgcQ",
    "The order was created with idempotency key 24109410-6468-4231-beb7-ccc4089db836.",
    "référence pièce +15-640-400 dans le catalogue",
    "Modellnummer 09-7476-7198-48 (Kühlschrank)",
    "From: noreply@example.com",
    "security issues: security@example.com (see SECURITY.md)",
    "PGPASSWORD=$(vault kv get -field=password secret/db) psql -h db -U app",
    "pin the issue to the board and connect pin 13 to ground",
    "this is the password reset page; Bitwarden is the password manager we use",
    "login flow: step 1/2 then 2/2, the login form is at /admin / dashboard",
    "the PIN must have 4 to 8 digits",
    "Spring 2024, 10000 users joined; sent via email to 3 people, 10115 Berlin office",
    "meet at 5 Main Street, the office is on the left",
    "ticket 100000009 was closed",  # passes the BSN test, but nothing says it is one
    "the passport photo must be recent",
    "docs: https://docs.github.com/en/webhooks/using-webhooks/creating-webhooks",
    "https://example.com/hooks/deploy-production-environment-now",
    "token 3f9a2b7c4d1e8f6a0b5c9d2e7f1a4b8c is the cache key of the build",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI5vIdPO18u3jYcRFCrprq3oEuPusutKTwzOQ/HdLLF13 elena@laptop",
]


class TestWiderCoverage:
    @pytest.mark.parametrize(("family", "text", "secret"), NEW_FAMILY_POSITIVES)
    def test_each_new_kind_is_found(self, family: str, text: str, secret: str) -> None:
        detections = scan(text)
        assert _covered(detections, text, secret), detections
        assert family in {d.family for d in detections}

    @pytest.mark.parametrize("text", NEW_NEGATIVES)
    def test_benign_look_alikes_stay_accepted(self, text: str) -> None:
        assert scan(text) == []

    @pytest.mark.parametrize(
        ("kind", "number"),
        [
            ("ssn", "My SSN is 666-22-1478"),  # area 666 is never issued
            ("dni", "Mi DNI es 97419034H"),  # wrong control letter
            ("nir", "NIR 1 85 07 75 123 456 09"),  # wrong key
            ("cn", "身份证号码：110105194912310021"),  # wrong check character
            ("my_number", "マイナンバーは1234 5678 9011です"),  # wrong check digit
            ("bsn", "BSN: 100000008"),  # fails the eleven test
            ("nino", "NI number: GB 12 34 56 C"),  # GB is never issued
        ],
    )
    def test_a_national_number_with_a_wrong_check_is_not_an_id(self, kind: str, number: str) -> None:
        assert "national_id" not in {d.family for d in scan(number)}

    @pytest.mark.parametrize("provider", sorted(PROVIDER_TOKENS))
    def test_provider_formats_come_from_credsweepers_rules(self, provider: str) -> None:
        text = f"deploy with {PROVIDER_TOKENS[provider]} later"
        detections = scan(text)
        assert [d.family for d in detections] == ["provider_token"]
        assert redact(text, detections) == "deploy with [REDACTED:secret:provider_token] later"

    def test_a_provider_token_in_a_url_is_still_a_token(self) -> None:
        text = f"callback https://x.example/cb?code={PROVIDER_TOKENS['digitalocean']}&state=1"
        assert [d.family for d in scan(text)] == ["provider_token"]

    def test_the_rules_are_read_from_the_installed_package(self) -> None:
        from memoryos.policies.nostore_rules import installed_rules, rules_path

        path = rules_path()
        assert path is not None and path.name == "config.yaml"
        assert len(installed_rules()) >= 80  # CredSweeper 1.19 ships 105 that fit the selection

    def test_a_token_inside_a_certificate_is_public(self) -> None:
        text = (
            "-----BEGIN CERTIFICATE-----\nMIIDDTCCAfWgAwIBAvpeEnW3NcLNOij6UoYGA2AQcXEFZe7jEeGWkUhvqAK9ox9b\n"
            "-----END CERTIFICATE-----"
        )
        assert scan(text) == []


class TestRuleLoading:
    def test_a_rules_file_of_the_wrong_shape_gives_no_rules(self, tmp_path: Path) -> None:
        from memoryos.policies.nostore_rules import load_rules, parse_rules

        assert parse_rules({"not": "a list"}) == ()
        assert parse_rules([1, "x", None]) == ()
        (tmp_path / "bad.yaml").write_text("- [unclosed", encoding="utf-8")
        assert load_rules(tmp_path / "bad.yaml") == ()
        assert load_rules(tmp_path / "missing.yaml") == ()
        assert load_rules(None) == ()

    def test_only_format_rules_that_need_no_model_are_kept(self) -> None:
        from memoryos.policies.nostore_rules import parse_rules

        base = {"type": "pattern", "target": ["code", "doc"], "confidence": "strong", "severity": "high"}
        good = {**base, "name": "Acme", "values": [r"(?P<value>acme_[0-9a-f]{32})"]}
        rules = parse_rules(
            [
                good,
                {**good, "name": "needs ML", "use_ml": True},
                {**good, "name": "weak", "confidence": "weak"},
                {**good, "name": "info", "severity": "info"},
                {**good, "name": "code only", "target": ["code"]},
                {**good, "name": "keyword", "type": "keyword"},
                {**good, "name": "bad regex", "values": ["(?P<value>["]},
                {**good, "name": "no value group", "values": ["acme_[0-9a-f]{32}"]},
            ]
        )
        assert [rule.name for rule in rules] == ["Acme"]

    def test_the_default_install_works_without_credsweeper(self) -> None:
        code = (
            "import sys; sys.modules['credsweeper'] = None\n"
            "from memoryos.policies.nostore import scan\n"
            "from memoryos.policies.nostore_rules import installed_rules\n"
            "assert installed_rules() == ()\n"
            f"assert scan('deploy with {PROVIDER_TOKENS['postman']} later') == []\n"
            f"assert [d.family for d in scan('use {TOKEN} now')] == ['github_token']\n"
            "assert [d.family for d in scan('card 4742\\u200b0780 2345 8889')] == ['credit_card']\n"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
