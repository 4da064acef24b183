"""Standing orders by their grammar (memoryos.policies.commands_imperatives, asked through
commands_obligations.obligation by capture.imperative): an English imperative about a class of
things, "No X to Y", "Only ...", and "always"/"never"/"from now on" orders in languages the other
modules do not read. Written from how people state rules; each positive family has negatives of the
same grammar beside it (a request for now, particular things, a speaker's statement, thanks)."""

from __future__ import annotations

import pytest

from memoryos.policies.capture import Event, classify


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


@pytest.mark.parametrize(
    "text",
    [
        "Use pnpm, not npm, in this repo.",
        "Use UTC for all timestamps.",
        "Sign all commits.",
        "Tag every release with a signed tag.",
        "Write all docstrings in Google style.",
        "Keep commit messages under 72 characters.",
        "Keep functions under 50 lines.",
        "Ask before deleting anything in S3.",
        "Run the linter before every commit.",
        "Bump the version on every release.",
        "Only deploy on weekdays.",
        "Only merge after review.",
        "No force pushes to main.",
        "No secrets in the repo.",
        "Default to British English in user-facing text.",
        "Stick to the style guide.",
    ],
)
def test_an_english_imperative_about_a_class_of_things_is_a_rule(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Update all dependencies.",  # a task for now, however many things it touches
        "Check every file in src for TODOs.",
        "Fix all lint errors.",
        "Deploy all services to staging.",
        "Fix the bug in this repo.",
        "Run all the tests again.",
        "Run the tests please.",
        "Add a test for this function.",
        "Keep it simple.",
        "Use it.",
        "Sort the list by date.",
        "Only one test failed.",
        "No tests failed.",
        "No errors in the logs today.",
        "No, that's fine.",
        "Run the linter before every commit tonight.",
        "Default to staging for this test run.",
        "Stick with it here.",
    ],
)
def test_a_request_for_now_or_about_particular_things_is_not(text: str) -> None:
    assert not _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Gebruik altijd pnpm in deze repository.",
        "Push nooit rechtstreeks naar main.",
        "Vanaf nu graag alle commits ondertekenen.",
        "Kör alltid testerna innan du pushar.",
        "Pusha aldrig direkt till main.",
        "Kør altid testene før du pusher.",
        "Kjør alltid testene før du pusher.",
        "Zawsze uruchamiaj testy przed commitem.",
        "Od teraz używaj pnpm.",
        "Nie pushuj bezpośrednio na main.",
        "Vždy spusť testy před commitem.",
        "Никогда не пушь напрямую в main.",
        "Всегда запускай тесты перед коммитом.",
        "С этого момента используй pnpm.",
        "Не коммить секреты в репозиторий.",
        "Завжди запускай тести перед комітом.",
        "Her zaman testleri çalıştır.",
        "Bundan sonra pnpm kullan.",
        "Selalu jalankan tes sebelum commit.",
        "Jangan pernah push langsung ke main.",
        "Luôn chạy test trước khi commit.",
        "항상 커밋 전에 테스트를 실행하세요.",
        "main에 직접 푸시하지 마세요.",
        "हमेशा कमिट से पहले टेस्ट चलाएं।",
        "Sempre rode os testes antes do commit.",
        "Non fare mai push direttamente su main.",
        "常にテストを実行してからコミットしてください。",
        "提交前一定要运行测试。",
    ],
)
def test_an_always_never_or_from_now_on_order_in_other_languages_is_a_rule(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ik weet het nooit.",
        "Het is altijd kapot op maandag.",
        "Jag vet aldrig vad som händer.",
        "Я никогда не видел такой ошибки.",
        "Это всегда было так.",
        "Dziękuję bardzo!",
        "Спасибо, всё работает.",
        "Tack så mycket!",
        "Teşekkürler, çalıştı.",
        "감사합니다!",
        "Cảm ơn bạn!",
        "Terima kasih!",
        "Saya selalu lupa.",
        "Díky, funguje to.",
        "今回は常にテストしてください",
        "这次一定要运行测试吗？",
    ],
)
def test_a_statement_thanks_or_a_one_off_in_those_languages_is_not(text: str) -> None:
    assert not _rule(text)
