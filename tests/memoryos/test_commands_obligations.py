"""Standing instructions stated as obligations, not imperatives (memoryos.policies.commands_obligations,
asked by capture.imperative): "must always", "has to", "standing rule", "until further notice", "not
allowed". Written from how people state rules, not from any corpus line; each positive has a
negative of the same grammar beside it (a guess, an errand, a one-off, a question)."""

from __future__ import annotations

import pytest

from memoryos.policies.capture import Event, classify


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


@pytest.mark.parametrize(
    "text",
    [
        "Commits must always be signed.",
        "You have to run the linter before every push.",
        "Standing rule: no force pushes to main.",
        "Standing rule — nobody deploys on Fridays.",
        "This is a standing rule, production migrations go through a ticket.",
        "From now on, the changelog has to be updated with every release.",
        "PRs need to be reviewed by two people.",
        "Migrations must be reviewed by a DBA.",
        "Every deploy has to go through staging first.",
        "All new endpoints need to have an integration test.",
        "We must use pnpm in this monorepo.",
        "We have to use pnpm in this repo.",
        "You must run terraform fmt before committing.",
        "You need to bump the version whenever the API changes.",
        "Force pushes to main are not allowed.",
        "Secrets have to be stored in Vault.",
        "Commits have to be signed.",
        "The agent should never push to production without approval.",
        "Database credentials must not appear in logs.",
        "Moving forward, tag every release with a signed tag.",
        "Until further notice, freeze all deploys to prod.",
        "I want you to always ask before deleting files.",
        "From this point on, write docstrings in Google style.",
        "House rule: tabs in Makefiles, spaces everywhere else.",
        "Il faut toujours lancer les tests avant de pousser.",
        "Man muss immer die Tests laufen lassen, bevor man pusht.",
        "Hay que siempre revisar el plan de terraform.",
        "You must have a test for every endpoint.",
        "Direct pushes to main are forbidden.",
        "We must never commit secrets.",
    ],
)
def test_an_obligation_is_a_rule(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "It has to be the DNS cache.",
        "The build must be broken again.",
        "I have to leave early today.",
        "You must be joking.",
        "That must have been annoying.",
        "We have to ship this by Friday.",
        "The meeting has to move to Thursday.",
        "Does it have to be Postgres?",
        "It must be the cache, clear it for now.",
        "Deploys always take forever on Mondays.",
        "He has to approve it first.",
        "You have to see this error, it's hilarious.",
        "The cache has to be cleared.",
        "This needs to be fixed today.",
        "We need to talk about the release.",
        "That's not allowed.",
        "Il faut que je parte tôt.",
        "You must have misread the log.",
        "Those tests need to be rewritten at some point.",
        "The servers need to be patched tonight.",
        "Our users need to be notified about the outage.",
        "The pipeline is not allowed to run on forks, weird.",
        "We should always have done this.",
        "The logs need to be checked.",
    ],
)
def test_a_guess_an_errand_or_a_one_off_is_not(text: str) -> None:
    assert not _rule(text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Going forward, could you answer in English?", True),
        ("From now on, can you always run the tests before committing?", True),
        ("Could you never use emojis?", False),
        ("Can you deploy blyck to staging?", False),
        ("From now on, could you skip the lint step just this once?", False),
    ],
)
def test_a_question_is_a_rule_only_when_it_asks_for_a_standing_order(text: str, rule: bool) -> None:
    assert _rule(text) is rule


def test_an_obligation_carrying_a_secret_is_refused() -> None:
    text = "From now on you have to use the token ghp_dWxmyQgF8R6SYb5RuHzOUv5zMfp5SHWlj6tg when pushing."
    assert classify(Event("instruction", text=text)) is None
