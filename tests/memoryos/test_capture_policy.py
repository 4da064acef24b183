"""The capture classifier: which activity events become capability, procedure or rule candidates."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryos.policies.capture import (
    EVENT_TYPES,
    MAX_SLUG,
    RULES,
    Candidate,
    Event,
    classify,
    command_kind,
    decide,
    imperative,
    is_trivial_command,
    slug,
)

AT = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
KEY_SHAPE = re.compile(r"^[a-z_]+:[a-z0-9]+(?:-[a-z0-9]+)*$")


class TestPositiveEvents:
    @pytest.mark.parametrize(
        ("event", "expected"),
        [
            (
                Event("deploy", command="make deploy", exit_status=0, target="blyck", at=AT),
                Candidate(
                    "capability",
                    "deploy:blyck",
                    "deploy blyck with `make deploy`",
                    "exit 0 at 2026-03-01T09:30:00Z",
                ),
            ),
            (
                Event("publish", command="twine upload dist/*", exit_status=0, target="memoryos"),
                Candidate(
                    "capability", "publish:memoryos", "publish memoryos with `twine upload dist/*`", "exit 0"
                ),
            ),
            (
                Event("test", command="pytest -q", exit_status=0, target="memoryos"),
                Candidate("procedure", "test:memoryos", "how to test memoryos: run `pytest -q`", "exit 0"),
            ),
            (
                Event("build", command="npm run build", exit_status=0),
                Candidate("procedure", "build:npm-run-build", "how to build: run `npm run build`", "exit 0"),
            ),
            (
                Event("db_connect", command="psql -h prod-db -U app app", exit_status=0, target="prod-db"),
                Candidate(
                    "capability",
                    "connect:prod-db",
                    "connect to prod-db with `psql -h prod-db -U app app`",
                    "exit 0",
                ),
            ),
            (
                Event("auth", exit_status=0, target="Vault (prod)"),
                Candidate("capability", "connect:vault-prod", "connect to Vault (prod)", "exit 0"),
            ),
            (
                Event("instruction", text="Never touch the PROD database", at=AT),
                Candidate(
                    "rule",
                    "rule:never-touch-the-prod-database",
                    "Never touch the PROD database",
                    "user instruction at 2026-03-01T09:30:00Z",
                ),
            ),
        ],
    )
    def test_a_success_becomes_the_expected_candidate(self, event: Event, expected: Candidate) -> None:
        assert classify(event) == expected

    @pytest.mark.parametrize(
        ("command", "kind", "key"),
        [
            ("cd app && make test", "procedure", "test:make-test"),
            ("sudo make deploy", "capability", "deploy:make-deploy"),
            ("npm publish --access public", "capability", "publish:npm-publish-access-public"),
            ("cargo build --release", "procedure", "build:cargo-build-release"),
            ("helm upgrade api ./chart", "capability", "deploy:helm-upgrade-api-chart"),
            ("psql -h db.internal app", "capability", "connect:db-internal"),
            ("aws s3 cp dist/ s3://blyck-releases --recursive", "capability", "deploy:blyck-releases"),
            ("rsync -az build/ deploy@web1.example.net:/srv/app", "capability", "deploy:web1-example-net"),
            ("gh auth login", "capability", "connect:gh-auth-login"),
        ],
    )
    def test_a_bare_command_is_judged_by_what_it_runs(self, command: str, kind: str, key: str) -> None:
        candidate = classify(Event("command", command=command, exit_status=0))
        assert candidate is not None and (candidate.kind, candidate.key) == (kind, key)
        assert f"`{command}`" in candidate.body

    def test_an_ssh_login_is_a_connection_to_its_host_written_without_the_email_shape(self) -> None:
        candidate = classify(Event("command", command="ssh -p 2222 ops@bastion.internal", exit_status=0))
        assert candidate is not None and candidate.key == "connect:bastion-internal"
        assert "`ssh -p 2222 -l ops bastion.internal`" in candidate.body

    @pytest.mark.parametrize(
        ("command", "key"),
        [
            ("pytest -q 2>&1 | tail -5", "test:pytest-q"),
            ("ssh -i ~/.ssh/id_ed25519 -p 2222 deploy@10.0.0.5 uptime", "connect:10-0-0-5"),
        ],
    )
    def test_redirections_and_flag_values_are_not_what_a_command_acts_on(
        self, command: str, key: str
    ) -> None:
        candidate = classify(Event("command", command=command, exit_status=0))
        assert candidate is not None and candidate.key == key

    @pytest.mark.parametrize(
        "command",
        [
            'git commit -m "fix the deploy script"',
            "kubectl logs deploy/api",
            "kubectl rollout status deployment/api",
            "terraform plan",
            "aws s3 cp s3://blyck-releases/app.tgz .",
            "git push origin main",
            "make clean",
        ],
    )
    def test_a_keyword_in_an_argument_or_a_read_only_subcommand_is_no_action(self, command: str) -> None:
        assert classify(Event("command", command=command, exit_status=0)) is None

    @pytest.mark.parametrize(
        "text",
        [
            "never touch the PROD database",
            "Always run the tests before pushing.",
            "Don't force-push to main",
            "do not email customers directly",
            "Please, never deploy on Fridays",
            "You must never share the staging URL",
            "Ne touche jamais à la base PROD",
            "N'utilise pas le compte root",
            "Toujours relire avant de publier",
            "Niemals die PROD-Datenbank anfassen",
            "Nunca borres la rama principal",
            "永远不要碰生产数据库",
        ],
    )
    def test_imperative_instructions_in_several_languages_become_rules(self, text: str) -> None:
        candidate = classify(Event("instruction", text=text))
        assert candidate is not None and candidate.kind == "rule"
        assert KEY_SHAPE.match(candidate.key) and candidate.key.startswith("rule:")

    def test_a_leading_please_is_not_part_of_the_rule(self) -> None:
        candidate = classify(Event("instruction", text="Please, never deploy on Fridays"))
        assert candidate is not None
        assert (candidate.key, candidate.body) == ("rule:never-deploy-on-fridays", "never deploy on Fridays")

    def test_the_same_instruction_always_has_the_same_key(self) -> None:
        keys = {
            c.key
            for text in ("Never touch the PROD database", "never  touch the prod database!")
            if (c := classify(Event("instruction", text=text))) is not None
        }
        assert keys == {"rule:never-touch-the-prod-database"}


class TestNegativeEvents:
    @pytest.mark.parametrize(
        "event",
        [
            Event("file_read", command="cat README.md", exit_status=0),
            Event("file_write", target="src/app.py", exit_status=0),
            Event("search", text="how to deploy"),
            Event("command", command="ls -la", exit_status=0),
            Event("command", command="cat /etc/hosts | grep db", exit_status=0),
            Event("command", command="cd src && git status", exit_status=0),
            Event("command", command="echo deploy", exit_status=0),
            Event("command", command="make deploy", exit_status=2),
            Event("deploy", command="make deploy", exit_status=1, target="blyck"),
            Event("test", command="pytest", exit_status=None, target="memoryos"),
            Event("test", exit_status=0, target="memoryos"),  # no command: no procedure to recall
            Event("command", command="python scripts/report.py", exit_status=0),  # not a known action
            Event("deploy", exit_status=0),  # nothing to say what was deployed
            Event("instruction", text="what time is it?"),
            Event("instruction", text="the database is slow today"),
            Event("instruction", text="Never!"),
            Event("instruction", text="never " + "x" * 600),  # an essay, not a rule
            Event("other", command="make deploy", exit_status=0),
        ],
    )
    def test_trivial_failed_or_unknown_events_yield_nothing(self, event: Event) -> None:
        assert classify(event) is None

    @pytest.mark.parametrize(
        ("event", "reason"),
        [
            (
                Event(
                    "db_connect",
                    command="psql postgresql://app:hunter2pass@db/app",
                    exit_status=0,
                    target="db",
                ),
                "secret:url_credentials",
            ),
            (
                Event("command", command="PGPASSWORD=hunter2 psql -h db app", exit_status=0),
                "secret:command_password",  # the no-store rule's family for a password on a command line
            ),
            (
                Event("command", command="mysql -u root -phunter2 app", exit_status=0),
                "secret:command_password",
            ),
            (
                Event("deploy", command="deploy --token abc123 prod", exit_status=0, target="prod"),
                "secret:password_flag",
            ),
            (
                Event("deploy", command="curl -u ops:hunter2 https://x/deploy", exit_status=0, target="x"),
                "secret:command_password",
            ),
            (Event("auth", exit_status=0, target="ops@mailbox.org"), "pii:email"),
            (Event("instruction", text="Never share AKIAIOSFODNN7EXAMPLE"), "secret:aws_access_key"),
        ],
    )
    def test_a_candidate_holding_a_secret_is_dropped_with_a_reason(self, event: Event, reason: str) -> None:
        decision = decide(event)
        assert decision.candidate is None and decision.reason == reason

    def test_a_decision_names_the_rule_that_decided(self) -> None:
        assert decide(Event("file_read", command="cat x")).rule == "trivial_type"
        assert decide(Event("command", command="make test", exit_status=1)).rule == "failed"
        assert decide(Event("command", command="make test", exit_status=0)).rule == "command"
        assert {r.name for r in RULES} >= {"trivial_type", "failed", "instruction", "command"}


class TestHelpers:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("Never touch the PROD database!", "never-touch-the-prod-database"),
            ("Ne touche jamais à la base", "ne-touche-jamais-a-la-base"),
            ("deploy: API (v2)", "deploy-api-v2"),
        ],
    )
    def test_slug(self, text: str, expected: str) -> None:
        assert slug(text) == expected

    @pytest.mark.parametrize("text", ["  --  ", "永远不要碰生产数据库"])
    def test_text_without_ascii_words_gets_a_stable_hash_slug(self, text: str) -> None:
        assert re.fullmatch(r"h[0-9a-f]{12}", slug(text)) and slug(text) == slug(text)

    def test_a_slug_is_cut_at_a_word_boundary(self) -> None:
        result = slug("word " * 40)
        assert len(result) <= MAX_SLUG and not result.endswith("-") and result.startswith("word-word")

    @pytest.mark.parametrize(
        ("command", "trivial"),
        [("ls", True), ("cd a && ls | wc -l", True), ("cd a && make", False), ("", False), ("lsblk", False)],
    )
    def test_trivial_commands(self, command: str, trivial: bool) -> None:
        assert is_trivial_command(command) is trivial

    def test_a_test_target_of_make_is_a_test_not_a_build(self) -> None:
        assert command_kind("make test") == "test" and command_kind("make") == "build"

    def test_imperative_strips_politeness_and_refuses_questions(self) -> None:
        assert imperative("bitte niemals force-push") == "niemals force-push"
        assert imperative("should I always use tabs?") is None


class TestSaidLikeARuleButNoRule:
    @pytest.mark.parametrize(
        "text",
        [
            "Make sure you eat lunch, lol",  # care for the person, not a standing rule
            "Remember to hydrate!",
            "Don't forget to take a break",
            "make sure to get some sleep tonight",
            "Nie wiem",  # Polish "I don't know", not German "nie" (never)
            "Nie wiem, czy to działa",
            "Nie martw się o testy",
            "Nie mam pojęcia",
            "we always seem to hit the rate limit on Mondays",  # a complaint, not an order
            "We always end up fixing CI on Fridays",
            "the build never seems to finish before lunch",
            # what keeps happening, said from "always"/"never" on without a subject
            "Always forgetting the kubectl context, ugh",
            "Never works on the first try, this chart",
            "Always a pain, the staging certs",
            "Siempre olvido el namespace de staging",
            "Nunca funciona el pipeline a la primera",
            "Toujours pas de réponse du registre",
            "Immer vergesse ich den Kontext",
            "Nie klappt das Deployment beim ersten Mal",
        ],
    )
    def test_no_rule_is_read_from_them(self, text: str) -> None:
        assert classify(Event("instruction", text=text)) is None

    @pytest.mark.parametrize(
        "text",
        [
            "Make sure you run the linter before pushing",
            "Remember to rebase before merging",
            "Nie die Produktion anfassen",
            "Nie wieder force-push auf main",
            "We always squash-merge feature branches",
            "Always ping the release channel before a deploy",
            "Never bring staging down for a demo",
            "Siempre usa --atomic con helm upgrade",
            "Nunca lo borres a mano",
            "Nunca toques la base de producción",
            "Toujours relire la PR avant de fusionner",
            "Immer erst das Backup, dann das Upgrade",
            "Always a second reviewer on infra PRs",
            "Never the prod database from a laptop",
            "Always the staging cluster first",
        ],
    )
    def test_their_neighbours_that_are_rules_stay_rules(self, text: str) -> None:
        candidate = classify(Event("instruction", text=text))
        assert candidate is not None and candidate.kind == "rule"


class TestFromMapping:
    def test_round_trip_with_an_rfc3339_time(self) -> None:
        event = Event.from_mapping(
            {
                "type": "deploy",
                "command": "make deploy",
                "exit_status": 0,
                "target": "blyck",
                "at": "2026-03-01T09:30:00Z",
            }
        )
        assert event == Event("deploy", command="make deploy", exit_status=0, target="blyck", at=AT)

    def test_an_offset_time_is_kept_as_the_same_instant(self) -> None:
        event = Event.from_mapping(
            {"type": "instruction", "text": "never x", "at": "2026-03-01T10:30:00+01:00"}
        )
        assert event.at == AT and event.at.tzinfo == timezone(timedelta(hours=1))

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ([], "an event must be an object"),
            ({}, "needs a 'type'"),
            ({"type": "teleport"}, "event type must be one of"),
            ({"type": 3}, "event type must be one of"),
            ({"type": "command", "cmd": "ls"}, "unknown event fields"),
            ({"type": "command", "command": 42}, "event command must be text"),
            ({"type": "command", "command": "x" * 5000}, "at most 4096"),
            ({"type": "command", "exit_status": "0"}, "exit_status must be an integer"),
            ({"type": "command", "exit_status": True}, "exit_status must be an integer"),
            ({"type": "command", "exit_status": 0.0}, "exit_status must be an integer"),
            ({"type": "command", "at": "yesterday"}, "RFC 3339"),
            ({"type": "command", "at": "2026-03-01T09:30:00"}, "timezone-aware"),
            ({"type": "command", "at": 1700000000}, "timezone-aware"),
        ],
    )
    def test_bad_data_is_a_value_error_that_says_what_is_wrong(self, data: Any, message: str) -> None:
        with pytest.raises(ValueError, match=re.escape(message)):
            Event.from_mapping(data)

    def test_the_error_never_echoes_the_value(self) -> None:
        with pytest.raises(ValueError) as caught:
            Event.from_mapping({"type": "command", "command": "hunter2" * 1000})
        assert "hunter2" not in str(caught.value)


# -- properties ------------------------------------------------------------------------------------

_words = st.text(st.characters(codec="utf-8"), max_size=120)
_imperatives = st.builds(
    lambda lead, rest: f"{lead} {rest}",
    st.sampled_from(
        ["never", "Always", "don't", "Ne touche jamais", "Niemals", "Nunca", "永远不要", "please never"]
    ),
    _words,
)
events = st.builds(
    Event,
    type=st.sampled_from(sorted(EVENT_TYPES)),
    command=st.none()
    | _words
    | st.sampled_from(["make deploy", "pytest -q", "psql -h db", "ls", "cd a && make"]),
    exit_status=st.none() | st.integers(min_value=-(2**31), max_value=2**31),
    target=st.none() | _words,
    text=st.none() | _words | _imperatives,
    at=st.none() | st.datetimes(timezones=st.just(UTC)),
)


@given(events)
def test_classify_never_raises_and_keys_are_bounded_slugs(event: Event) -> None:
    candidate = classify(event)
    if candidate is not None:
        assert KEY_SHAPE.match(candidate.key) and len(candidate.key) <= len("publish:") + MAX_SLUG
        assert candidate.kind in ("capability", "procedure", "rule")
        assert candidate.body.strip() and candidate.proof.strip()
        assert event.type == "instruction" or event.exit_status in (0, None)


@given(events)
def test_a_failure_is_never_a_candidate(event: Event) -> None:
    if event.exit_status not in (0, None) and event.type != "instruction":
        assert classify(event) is None


@given(_words)
def test_slug_is_slug_like_and_bounded(text: str) -> None:
    result = slug(text)
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", result) and len(result) <= MAX_SLUG


class TestRawCommandsBeyondTheCorpus:
    """Shapes written after the independent corpus was scored, to check the fixes it prompted are
    general (none of these lines is in it)."""

    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("fly deploy --app blyck-web", "capability"),
            ("npx cdk deploy BlyckStack", "capability"),
            ("./scripts/release.sh v2", "capability"),
            ("gem push blyck-1.0.gem", "capability"),
            ("ssh -J bastion admin@db1.internal", "capability"),
            ("just test", "procedure"),
            ("pnpm run test:unit", "procedure"),
            ("make -C web build", "procedure"),
            ('sh -c "cd web && npm test"', "procedure"),
        ],
    )
    def test_actions_are_recognised_by_program_task_or_script(self, command: str, kind: str) -> None:
        candidate = classify(Event("command", command=command, exit_status=0))
        assert candidate is not None and candidate.kind == kind

    @pytest.mark.parametrize(
        "command",
        ["docker compose up -d", "kubectl -n prod get pods", "cat deploy.sh", "npm ci", "git pull --rebase"],
    )
    def test_local_routine_and_reads_are_not_candidates(self, command: str) -> None:
        assert classify(Event("command", command=command, exit_status=0)) is None

    @pytest.mark.parametrize(
        ("text", "rule"),
        [
            ("From now on reply in English.", True),
            ("Whenever tests fail, show me the first error.", True),
            ("Prefer httpx over requests in new code.", True),
            ("Please stop using tabs in YAML files.", True),
            ("never mind that", False),
            ("Could you never use emojis?", False),
            ("Just this once, push directly.", False),
        ],
    )
    def test_standing_orders_and_one_offs(self, text: str, rule: bool) -> None:
        assert (classify(Event("instruction", text=text)) is not None) is rule
