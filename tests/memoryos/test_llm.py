"""The model client and the model-backed distillers, against a fake OpenAI-compatible server.

Every mode of the fake server is exercised at three levels: the client (how many attempts), the
extractor (fallback and degraded records) and a real store (degraded receipts, nothing of an error
ever stored). Timeouts are short and sleeps are no-ops, so the whole file runs in seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

import memoryos
from memoryos.errors import ConfigError, MemoryOSError, ModelError
from memoryos.llm import (
    LLMExtractor,
    LLMSettings,
    LLMSummarizer,
    ModelClient,
    looks_like_noise,
    model_call,
    models_from_env,
)
from memoryos.logs import LOGGER_NAME
from memoryos.policies.distill import Distilled, ExtractiveSummarizer, PageView
from memoryos.policies.notes import ExtractiveNotes, Notes, PageNoteText
from memoryos.settings import ENV_LLM_API_KEY, ENV_LLM_MODEL, ENV_LLM_TIMEOUT, ENV_LLM_URL
from memoryos.telemetry import ModelCall
from memoryos.testing import ERROR_BODY, GARBAGE, FakeClock, FakeLLMServer, InMemoryOtel, Mode, answer_for
from receipts import read_outbox

KEY = "sk-test-SECRETKEY-0123456789abcdef"
TIMEOUT = 0.3
PAGES = (
    PageView("p1@1", "user", "We deploy blyck with make ship on Fridays.", ("t1",)),
    PageView("p2@1", "assistant", "Deploy blyck: run make ship from the repo root.", ("t2", "t1")),
)


class Sleeps(list[float]):
    """A no-op sleep that remembers what it was asked to wait."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    return caplog


def client_for(server: FakeLLMServer, sleep: Sleeps, **settings: Any) -> ModelClient:
    options: dict[str, Any] = {"api_key": KEY, "timeout": TIMEOUT, **settings}
    return ModelClient(LLMSettings(server.url, "fake-model", **options), sleep=sleep)


def fake(mode: Mode, **options: Any) -> FakeLLMServer:
    if mode == "slow":
        options.setdefault("delay", 0.6)  # twice the client timeout
    return FakeLLMServer(mode, **options)


def failure(client: ModelClient) -> ModelError:
    with pytest.raises(ModelError) as caught:
        client.chat([{"role": "user", "content": "hello"}])
    return caught.value


# -- settings --------------------------------------------------------------------------------------


class TestSettings:
    def test_no_url_means_no_model(self) -> None:
        assert LLMSettings.from_env({}) is None
        assert models_from_env({ENV_LLM_MODEL: "m"}) is None

    def test_reads_every_variable(self) -> None:
        env = {ENV_LLM_URL: "http://h:1/v1", ENV_LLM_MODEL: "m", ENV_LLM_API_KEY: KEY, ENV_LLM_TIMEOUT: "2.5"}
        assert LLMSettings.from_env(env) == LLMSettings("http://h:1/v1", "m", api_key=KEY, timeout=2.5)

    def test_arguments_win_over_the_environment(self) -> None:
        settings = LLMSettings.from_env({ENV_LLM_URL: "http://h/v1", ENV_LLM_MODEL: "m"}, attempts=5)
        assert settings is not None and settings.attempts == 5

    @pytest.mark.parametrize(
        "env",
        [
            {ENV_LLM_URL: "http://h/v1"},
            {ENV_LLM_URL: "ftp://h/v1", ENV_LLM_MODEL: "m"},
            {ENV_LLM_URL: "http://h/v1", ENV_LLM_MODEL: "m", ENV_LLM_TIMEOUT: "soon"},
            {ENV_LLM_URL: "http://h/v1", ENV_LLM_MODEL: "m", ENV_LLM_TIMEOUT: "0"},
            {ENV_LLM_URL: "http://h/v1", ENV_LLM_MODEL: "m", ENV_LLM_TIMEOUT: "nan"},
        ],
    )
    def test_bad_values_are_config_errors_that_name_the_variable(self, env: dict[str, str]) -> None:
        with pytest.raises(ConfigError, match=r"MEMORYOS_LLM|llm"):
            LLMSettings.from_env(env)

    def test_the_key_is_in_no_repr(self) -> None:
        settings = LLMSettings("http://h/v1", "m", api_key=KEY)
        assert KEY not in repr(settings)
        assert KEY not in repr(ModelClient(settings))

    def test_an_extractor_from_the_environment_is_off_the_request_path(self) -> None:
        models = models_from_env({ENV_LLM_URL: "http://h/v1", ENV_LLM_MODEL: "m"})
        assert models is not None and models.extractor.inline is False


# -- the client, per server mode -----------------------------------------------------------------------


class TestClient:
    def test_normal_answers_in_one_attempt_with_model_and_key(self, sleeps: Sleeps) -> None:
        with fake("normal", api_key=KEY) as server:
            answer = client_for(server, sleeps).chat([{"role": "user", "content": "hello"}])
        assert answer == "ok"
        assert server.requests == 1 and sleeps == []
        assert server.received[0].authorization == f"Bearer {KEY}"
        assert server.received[0].body["model"] == "fake-model"

    def test_slow_within_the_timeout_is_fine(self, sleeps: Sleeps) -> None:
        with fake("slow", delay=0.05) as server:
            assert client_for(server, sleeps, timeout=2.0).chat([{"role": "user", "content": "x"}]) == "ok"
        assert server.requests == 1

    def test_slow_beyond_the_timeout_retries_then_fails(self, sleeps: Sleeps) -> None:
        with fake("slow") as server:
            error = failure(client_for(server, sleeps))
            assert server.requests == 3
        assert (error.code, error.attempts, error.retryable) == ("timeout", 3, True)
        assert len(sleeps) == 2

    def test_500s_are_retried_up_to_the_attempt_limit(self, sleeps: Sleeps) -> None:
        with fake("error500") as server:
            error = failure(client_for(server, sleeps))
        assert (error.code, error.status, error.attempts) == ("http_500", 500, 3)
        assert server.requests == 3 and len(sleeps) == 2

    def test_429_then_success_takes_two_attempts(self, sleeps: Sleeps) -> None:
        with fake("rate_limit_then_ok", failures=1) as server:
            assert client_for(server, sleeps).chat([{"role": "user", "content": "x"}]) == "ok"
        assert server.requests == 2 and len(sleeps) == 1

    def test_429_for_longer_than_the_budget_fails(self, sleeps: Sleeps) -> None:
        with fake("rate_limit_then_ok", failures=10) as server:
            error = failure(client_for(server, sleeps))
        assert (error.code, error.attempts, server.requests) == ("http_429", 3, 3)

    def test_malformed_json_is_not_retried(self, sleeps: Sleeps) -> None:
        with fake("malformed") as server:
            error = failure(client_for(server, sleeps))
        assert (error.code, error.attempts, error.retryable) == ("malformed_response", 1, False)
        assert server.requests == 1 and sleeps == []

    def test_connection_refused_is_retried_then_fails(self, sleeps: Sleeps) -> None:
        with fake("refused") as server:
            error = failure(client_for(server, sleeps))
        assert (error.code, error.attempts) == ("connection", 3)
        assert len(sleeps) == 2

    def test_a_wrong_key_fails_at_once(self, sleeps: Sleeps) -> None:
        with fake("normal", api_key="another-key") as server:
            error = failure(client_for(server, sleeps))
        assert (error.code, error.attempts, server.requests) == ("http_401", 1, 1)

    def test_a_wrong_path_fails_at_once(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            client = ModelClient(LLMSettings(server.url + "/nope", "m", timeout=TIMEOUT), sleep=sleeps)
            error = failure(client)
        assert (error.code, error.attempts) == ("http_400", 1)

    def test_backoff_grows_and_is_bounded(self, sleeps: Sleeps) -> None:
        with fake("error500") as server:
            failure(client_for(server, sleeps, attempts=6, backoff=1.0, max_wait=3.0))
        assert sleeps == sorted(sleeps) and len(sleeps) == 5
        assert max(sleeps) == 3.0 and sleeps[0] >= 1.0

    def test_errors_and_logs_never_carry_the_key_or_the_servers_words(
        self, sleeps: Sleeps, logs: pytest.LogCaptureFixture
    ) -> None:
        with fake("error500") as server:
            error = failure(client_for(server, sleeps))
        with fake("normal") as server:
            client_for(server, sleeps).chat([{"role": "user", "content": "the secret plan"}])
        assert isinstance(error, MemoryOSError)
        for text in (str(error), repr(error.args), logs.text):
            assert KEY not in text and ERROR_BODY not in text and "secret plan" not in text
        assert "llm_call_failed" in logs.text and "http_500" in logs.text


# -- the extractor ---------------------------------------------------------------------------------


def degraded_fallback() -> list[Distilled]:
    return [replace(d, degraded=True) for d in ExtractiveSummarizer().distill(PAGES)]


class TestExtractor:
    def test_normal_maps_the_models_records_onto_every_page(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
        assert [(d.list_name, d.kind, d.body, d.degraded) for d in out] == [
            ("user_knowledge", "semantic", PAGES[0].text, False),
            ("assistant_knowledge", "procedural", PAGES[1].text, False),
        ]
        assert all(d.derived_from == ("p1@1", "p2@1") and d.source_ids == ("t1", "t2") for d in out)

    def test_it_never_runs_inline(self, sleeps: Sleeps) -> None:
        assert LLMExtractor(ModelClient(LLMSettings("http://h/v1", "m"))).inline is False

    @pytest.mark.parametrize(
        ("mode", "requests"),
        [("slow", 3), ("error500", 3), ("malformed", 1), ("refused", 0)],
    )
    def test_an_unusable_model_falls_back_to_degraded_extractive_records(
        self, mode: Mode, requests: int, sleeps: Sleeps, logs: pytest.LogCaptureFixture
    ) -> None:
        with fake(mode) as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
            assert server.requests == requests
        assert out == degraded_fallback() and out
        assert "llm_degraded" in logs.text

    def test_429_then_success_is_not_degraded(self, sleeps: Sleeps) -> None:
        with fake("rate_limit_then_ok") as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
        assert server.requests == 2 and out and not any(d.degraded for d in out)

    @pytest.mark.parametrize(
        "reply",
        [
            "Sorry, I cannot help with that.",
            "[]",
            '{"records": "none"}',
            '{"records": [], "note": "extra"}',
            '{"records": [{"list": "user_knowledge", "kind": "semantic"}]}',
            '{"records": [{"list": "secrets", "kind": "semantic", "body": "x"}]}',
            '{"records": [{"list": "profile", "kind": "opinion", "body": "x"}]}',
            '{"records": [{"list": "profile", "kind": "semantic", "body": "   "}]}',
            '{"records": [{"list": "profile", "kind": "semantic", "body": 42}]}',
            '{"records": [{"list": "profile", "kind": "semantic", "body": "x", "confidence": 1}]}',
            orjson.dumps({"records": [{"list": "profile", "kind": "semantic", "body": "y" * 1001}]}).decode(),
            orjson.dumps({"records": [{"list": "profile", "kind": "semantic", "body": "ok"}] * 7}).decode(),
            orjson.dumps({"records": [{"list": "profile", "kind": "semantic", "body": ERROR_BODY}]}).decode(),
            '{"records": [{"list": "profile", "kind": "semantic", "body": "<html><body>oops</body>"}]}',
            '{"records": [{"list": "profile", "kind": "semantic", '
            '"body": "Traceback (most recent call last): File \\"x.py\\", line 1"}]}',
        ],
    )
    def test_an_answer_that_breaks_the_schema_is_refused_whole_without_retry(
        self, reply: str, sleeps: Sleeps
    ) -> None:
        with fake("normal", reply=reply) as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
            assert server.requests == 1
        assert out == degraded_fallback()

    def test_a_fenced_json_answer_is_accepted(self, sleeps: Sleeps) -> None:
        reply = '```json\n{"records": [{"list": "profile", "kind": "semantic", "body": "Likes tea."}]}\n```'
        with fake("normal", reply=reply) as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
        assert [(d.body, d.degraded) for d in out] == [("Likes tea.", False)]

    def test_an_empty_list_is_a_valid_answer(self, sleeps: Sleeps) -> None:
        with fake("normal", reply='{"records": []}') as server:
            assert LLMExtractor(client_for(server, sleeps)).distill(PAGES) == []

    def test_records_holding_secrets_or_personal_data_are_dropped_and_counted(
        self, sleeps: Sleeps, logs: pytest.LogCaptureFixture
    ) -> None:
        records = [
            {"list": "user_knowledge", "kind": "semantic", "body": "The AWS key is AKIAIOSFODNN7EXAMPLE"},
            {"list": "user_knowledge", "kind": "semantic", "body": "Mail alice@mailbox.org for access"},
            {"list": "user_knowledge", "kind": "semantic", "body": "Deploys happen on Fridays."},
        ]
        with fake("normal", reply=orjson.dumps({"records": records}).decode()) as server:
            out = LLMExtractor(client_for(server, sleeps)).distill(PAGES)
        assert [d.body for d in out] == ["Deploys happen on Fridays."]
        assert '"dropped_secret": 2' in logs.text
        assert "AKIA" not in logs.text and "alice@" not in logs.text

    def test_no_pages_no_call(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            assert LLMExtractor(client_for(server, sleeps)).distill([]) == []
        assert server.requests == 0


class TestNoise:
    @pytest.mark.parametrize(
        "body",
        [
            ERROR_BODY,
            "502 Bad Gateway",
            "HTTP/1.1 503 Service Unavailable",
            "<!DOCTYPE html><html>",
            "ValueError: invalid literal",
            "Error: connect ECONNREFUSED",
            "java.lang.NullPointerException at com.acme.Main(Main.java:12)",
            "As an AI language model, I cannot",
        ],
    )
    def test_failures_are_noise(self, body: str) -> None:
        assert looks_like_noise(body)

    @pytest.mark.parametrize(
        "body",
        [
            "The user deploys blyck with make ship.",
            "Error handling in the project uses Result types.",
            "The deploy failed with an Internal Server Error last week.",
            "100 users signed up on launch day.",
        ],
    )
    def test_knowledge_about_errors_is_not_noise(self, body: str) -> None:
        assert not looks_like_noise(body)


# -- the summarizer ------------------------------------------------------------------------------


PAGE = {"summary": "a page", "continues": False}


def reply_of(summary: str, pages: list[dict[str, Any]], **more: Any) -> str:
    return orjson.dumps({"summary": summary, "pages": pages, **more}).decode()


class TestSummarizer:
    PAGES = (
        PageView("p1@1", "user", "Blyck ships on Fridays. It uses make.", ("t1",)),
        PageView("p2@1", "assistant", "Blyck keeps its Makefile at the repo root. Nothing else.", ("t2",)),
        PageView("p3@1", "user", "Unrelated: my cat is called Tom.", ("t3",)),
    )

    def test_normal_uses_the_models_notes(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            notes = LLMSummarizer(client_for(server, sleeps)).notes(self.PAGES)
        assert notes == Notes(
            "Blyck ships on Fridays. Blyck keeps its Makefile at the repo root."
            " Unrelated: my cat is called Tom.",
            (
                PageNoteText("Blyck ships on Fridays.", False),
                PageNoteText("Blyck keeps its Makefile at the repo root.", True),
                PageNoteText("Unrelated: my cat is called Tom.", False),
            ),
        )

    @pytest.mark.parametrize("mode", ["error500", "malformed", "refused"])
    def test_failure_falls_back_to_the_extractive_notes(self, mode: Mode, sleeps: Sleeps) -> None:
        with fake(mode) as server:
            notes = LLMSummarizer(client_for(server, sleeps)).notes(self.PAGES)
        assert notes == replace(ExtractiveNotes().notes(self.PAGES), degraded=True)

    @pytest.mark.parametrize(
        "reply",
        [
            reply_of("AKIAIOSFODNN7EXAMPLE is the key", [PAGE] * 3),
            reply_of("fine", [PAGE] * 2),  # one note short
            reply_of("fine", [PAGE] * 3, more=1),
            reply_of("fine", [{"summary": "x", "continues": "yes"}, PAGE, PAGE]),
            reply_of("fine", [{"summary": "Error: upstream crashed", "continues": False}, PAGE, PAGE]),
            "plain",
        ],
    )
    def test_a_bad_answer_is_refused_whole(self, reply: str, sleeps: Sleeps) -> None:
        with fake("normal", reply=reply) as server:
            notes = LLMSummarizer(client_for(server, sleeps)).notes(self.PAGES)
        assert notes.degraded and notes == replace(ExtractiveNotes().notes(self.PAGES), degraded=True)

    def test_the_first_page_never_continues_anything(self, sleeps: Sleeps) -> None:
        reply = reply_of("fine", [{"summary": "x", "continues": True}] * 3)
        with fake("normal", reply=reply) as server:
            notes = LLMSummarizer(client_for(server, sleeps)).notes(self.PAGES)
        assert [p.continues for p in notes.pages] == [False, True, True] and not notes.degraded

    def test_nothing_to_note(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            assert LLMSummarizer(client_for(server, sleeps)).notes([]) == Notes("", ())
        assert server.requests == 0


# -- through a real store ------------------------------------------------------------------------------

SCOPE = memoryos.Scope(user="alice", assistant="coder")
TURNS = (("user", PAGES[0].text), ("assistant", PAGES[1].text))


def open_store(db: Path, clock: FakeClock, client: ModelClient) -> memoryos.Memory:
    # Two turns fill STM and land in one segment with heat ~3 (two interactions plus recency).
    return memoryos.open(db, clock=clock, summarizer=LLMExtractor(client), stm_capacity=2, heat_threshold=2.5)


def remember_turns(mem: memoryos.Memory) -> None:
    for role, text in TURNS:
        mem.remember(SCOPE, text, role=role)


def lpm_receipts(db: Path) -> list[dict[str, Any]]:
    receipts = [line.receipt for line in read_outbox(db) if line.receipt is not None]
    return [r for r in receipts if r["boundary"] == "mtm_to_lpm" and r["status"] == "committed"]


def stored_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


END_TO_END: list[tuple[Mode, dict[str, Any], bool]] = [
    ("normal", {}, False),
    ("slow", {"delay": 0.05}, False),
    ("rate_limit_then_ok", {"failures": 1}, False),
    ("slow", {}, True),
    ("error500", {}, True),
    ("malformed", {}, True),
    ("refused", {}, True),
]


class TestThroughTheStore:
    @pytest.mark.parametrize(
        "case", END_TO_END, ids=lambda case: f"{case[0]}-{'fallback' if case[2] else 'model'}"
    )
    def test_receipts_say_degraded_exactly_when_the_fallback_ran(
        self, case: tuple[Mode, dict[str, Any], bool], db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        mode, options, degraded = case
        with fake(mode, **options) as server, open_store(db, clock, client_for(server, sleeps)) as mem:
            remember_turns(mem)
            assert lpm_receipts(db) == []  # the model never ran on the request path
            assert mem.maintain().distilled_segments == 1
            assert mem.check() == []
        receipts = lpm_receipts(db)
        assert receipts and all(r.get("degraded", False) is degraded for r in receipts)

    @pytest.mark.parametrize("mode", ["error500", "malformed"])
    def test_what_a_failing_server_says_is_never_stored(
        self, mode: Mode, db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        with fake(mode) as server, open_store(db, clock, client_for(server, sleeps)) as mem:
            remember_turns(mem)
            mem.maintain()
            hits = mem.recall(SCOPE, "blyck make ship upstream model crashed server error garbage", k=50).hits
            assert hits  # the degraded records exist and are searchable ...
            assert not any(ERROR_BODY in h.text or "garbage" in h.text for h in hits)
        stored = stored_bytes(db)  # ... but nothing of the error reached the file
        assert ERROR_BODY.encode() not in stored and GARBAGE not in stored

    def test_the_same_knowledge_again_reinforces_instead_of_duplicating(
        self, db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        with fake("normal") as server, open_store(db, clock, client_for(server, sleeps)) as mem:
            remember_turns(mem)
            mem.maintain()
            first = {r["memoryId"] for r in lpm_receipts(db)}
            lpm_after_first = mem.status()["tiers"]["lpm"]
            remember_turns(mem)
            assert mem.maintain().distilled_segments == 1
            second = {r["memoryId"] for r in lpm_receipts(db)} - first
            assert mem.status()["tiers"]["lpm"] == lpm_after_first == 2
            assert second == set()  # every record of the second run is one of the first
            assert server.requests == 2

    def test_the_api_key_appears_in_no_log_and_no_file(
        self, db: Path, clock: FakeClock, sleeps: Sleeps, logs: pytest.LogCaptureFixture
    ) -> None:
        for mode in ("normal", "error500"):
            with fake(mode) as server, open_store(db, clock, client_for(server, sleeps)) as mem:
                remember_turns(mem)
                mem.maintain()
        assert KEY not in logs.text and KEY.encode() not in stored_bytes(db)


class TestNotesThroughTheStore:
    """Segment summaries, page summaries and continuity: written by maintain(), never by remember()."""

    THREAD = (
        ("user", "How should I deploy blyck from the repo?"),
        ("assistant", "Deploy blyck: run make ship from the repo root."),
    )

    def open_noted(self, db: Path, clock: FakeClock, client: ModelClient) -> memoryos.Memory:
        return memoryos.open(db, clock=clock, notes=LLMSummarizer(client), stm_capacity=2, heat_threshold=99)

    @pytest.mark.parametrize(
        ("mode", "degraded"), [("normal", False), ("error500", True), ("malformed", True)]
    )
    def test_notes_are_written_off_the_request_path_and_say_when_the_fallback_wrote_them(
        self, mode: Mode, degraded: bool, db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        with fake(mode) as server, self.open_noted(db, clock, client_for(server, sleeps)) as mem:
            for role, text in self.THREAD:
                mem.remember(SCOPE, text, role=role)
            [before] = mem.topics(SCOPE)
            assert server.requests == 0 and before.stale and before.summary == "" and before.pages == 2
            assert mem.maintain().summarized_segments == 1
            [topic] = mem.topics(SCOPE)
            assert not topic.stale and topic.degraded is degraded
            assert mem.maintain().summarized_segments == 0  # fresh notes are not rewritten
        if degraded:
            assert (
                topic.summary
                == ExtractiveNotes().notes([PageView("", r, t, ()) for r, t in self.THREAD]).summary
            )
        else:
            assert topic.summary == " ".join(text for _, text in self.THREAD)

    def test_context_brings_the_question_a_recalled_answer_continues(
        self, db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        with fake("normal") as server, self.open_noted(db, clock, client_for(server, sleeps)) as mem:
            for role, text in self.THREAD:
                mem.remember(SCOPE, text, role=role)
            alone = mem.context(SCOPE, "make ship")
            mem.maintain()
            threaded = mem.context(SCOPE, "make ship")
            tight = mem.context(SCOPE, "make ship", budget_tokens=20)  # the answer fits, not both
        assert alone.text == tight.text == f"- {self.THREAD[1][1]}"
        assert threaded.text == f"- {self.THREAD[0][1]}\n- {self.THREAD[1][1]}" and len(threaded.refs) == 2

    def test_forgetting_a_turn_erases_every_note_that_could_quote_it(
        self, db: Path, clock: FakeClock, sleeps: Sleeps
    ) -> None:
        canary = "zebracanary7781"
        with fake("normal") as server, self.open_noted(db, clock, client_for(server, sleeps)) as mem:
            doomed = mem.remember(SCOPE, f"How should I deploy blyck from the repo {canary}?")
            mem.remember(SCOPE, self.THREAD[1][1], role="assistant")
            mem.maintain()
            assert canary in mem.topics(SCOPE)[0].summary
            mem.forget(SCOPE, doomed.memory_id)
            [topic] = mem.topics(SCOPE)
            assert canary not in topic.summary and topic.stale
            mem.maintain()
        assert canary.encode() not in stored_bytes(db)


def test_the_environment_puts_the_model_behind_open(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake("normal") as server:
        monkeypatch.setenv(ENV_LLM_URL, server.url)
        monkeypatch.setenv(ENV_LLM_MODEL, "fake")
        with memoryos.open(db, clock=clock, stm_capacity=2, heat_threshold=2.5) as mem:
            remember_turns(mem)
            assert server.requests == 0  # never on the request path
            done = mem.maintain()
            assert mem.topics(SCOPE)[0].pages == 2  # distillation resets heat, not the page count
    assert (done.distilled_segments, done.summarized_segments) == (1, 1)
    assert server.requests == 6  # one extraction per kind, one reconciliation proposal, one set of notes
    assert lpm_receipts(db) and not any(r.get("degraded") for r in lpm_receipts(db))


def test_the_fake_servers_normal_answer_is_predictable() -> None:
    pages = orjson.dumps({"pages": [{"role": "user", "text": " a  b "}]}).decode()
    answer = answer_for({"messages": [{"role": "user", "content": pages}]})
    assert orjson.loads(answer) == {
        "records": [{"list": "user_knowledge", "kind": "semantic", "body": "a b"}]
    }


# -- GenAI client spans and metrics ------------------------------------------------------------------
CONTENT_CANARY = "CANARYPROMPT"
DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]


class Otel(InMemoryOtel):
    """The shared in-memory harness, plus what the model-call tests read: client spans, everything."""

    def chats(self) -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.kind is SpanKind.CLIENT]

    def everything(self) -> str:
        data = self.reader.get_metrics_data()
        spans = "".join(s.to_json() for s in self.spans.get_finished_spans())
        return spans + ("" if data is None else data.to_json())


@pytest.fixture
def otel_sdk() -> Iterator[Otel]:
    sdk = Otel()
    yield sdk
    sdk.tracer_provider.shutdown()
    sdk.meter_provider.shutdown()


def traced_client(server: FakeLLMServer, sleep: Sleeps, sdk: Otel) -> ModelClient:
    settings = LLMSettings(server.url, "fake-model", api_key=KEY, timeout=TIMEOUT)
    return ModelClient(settings, sleep=sleep, telemetry=sdk.telemetry)


def ask(client: ModelClient) -> str:
    return client.chat([{"role": "user", "content": f"{CONTENT_CANARY} hello"}])


class TestGenAIClientTelemetry:
    def test_a_call_is_a_client_span_named_chat_model_with_the_usage_the_model_reported(
        self, sleeps: Sleeps, otel_sdk: Otel
    ) -> None:
        with fake("normal") as server:
            answer = ask(traced_client(server, sleeps, otel_sdk))
            port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        (span,) = otel_sdk.chats()
        attributes = dict(span.attributes or {})
        assert span.name == "chat fake-model"
        assert span.status.is_ok
        assert attributes == {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "fake-model",
            "gen_ai.response.model": "fake-model",
            "server.address": "127.0.0.1",
            "server.port": port,
            "gen_ai.usage.input_tokens": attributes["gen_ai.usage.input_tokens"],
            "gen_ai.usage.output_tokens": max(1, len(answer) // 4),  # what the fake server reports
        }
        assert isinstance(attributes["gen_ai.usage.input_tokens"], int)
        assert attributes["gen_ai.usage.input_tokens"] > 0

    def test_duration_and_token_usage_are_histograms_with_the_conventions_buckets(
        self, sleeps: Sleeps, otel_sdk: Otel
    ) -> None:
        with fake("normal") as server:
            ask(traced_client(server, sleeps, otel_sdk))
        (duration,) = otel_sdk.points("gen_ai.client.operation.duration")
        assert list(duration.explicit_bounds) == DURATION_BUCKETS
        assert duration.count == 1
        assert dict(duration.attributes)["gen_ai.request.model"] == "fake-model"
        tokens = {
            dict(p.attributes)["gen_ai.token.type"]: p for p in otel_sdk.points("gen_ai.client.token.usage")
        }
        assert set(tokens) == {"input", "output"}
        (span,) = otel_sdk.chats()
        for kind, point in tokens.items():
            assert list(point.explicit_bounds) == TOKEN_BUCKETS
            assert point.sum == (span.attributes or {})[f"gen_ai.usage.{kind}_tokens"]

    def test_a_failed_call_records_its_error_code_and_no_tokens(self, sleeps: Sleeps, otel_sdk: Otel) -> None:
        with fake("error500") as server:
            failure(traced_client(server, sleeps, otel_sdk))
        (span,) = otel_sdk.chats()
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description is None
        assert (span.attributes or {})["error.type"] == "http_500"
        assert "gen_ai.usage.input_tokens" not in (span.attributes or {})
        (duration,) = otel_sdk.points("gen_ai.client.operation.duration")
        assert dict(duration.attributes)["error.type"] == "http_500"
        assert otel_sdk.points("gen_ai.client.token.usage") == []

    def test_no_prompt_or_completion_is_recorded_whatever_the_opt_in_variable_says(
        self, sleeps: Sleeps, otel_sdk: Otel, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT_MODE", "SPAN_AND_EVENT")
        with fake("normal", reply=f"{CONTENT_CANARY} answer") as server:
            ask(traced_client(server, sleeps, otel_sdk))
        assert otel_sdk.chats()
        recorded = otel_sdk.everything()
        assert CONTENT_CANARY not in recorded
        assert KEY not in recorded
        assert "hello" not in recorded

    def test_a_distillation_span_holds_the_model_call_it_waited_for(
        self, db: Path, clock: FakeClock, sleeps: Sleeps, otel_sdk: Otel
    ) -> None:
        # The client is built without telemetry, before the store: it finds the store's through the
        # span that is current when maintain() distils.
        with (
            fake("normal") as server,
            memoryos.open(
                db,
                clock=clock,
                summarizer=LLMExtractor(client_for(server, sleeps)),
                telemetry=otel_sdk.telemetry,
                stm_capacity=2,
                heat_threshold=2.5,
            ) as mem,
        ):
            remember_turns(mem)
            assert otel_sdk.chats() == []  # never on the request path
            mem.maintain()
        (chat,) = otel_sdk.chats()
        spans = {s.context.span_id: s for s in otel_sdk.spans.get_finished_spans()}
        assert chat.parent is not None
        parent = spans[chat.parent.span_id]
        assert parent.name == "memoryos.promotion"
        assert (parent.attributes or {})["memoryos.boundary"] == "mtm_to_lpm"
        assert parent.parent is not None and spans[parent.parent.span_id].name == "memoryos.maintenance"

    def test_a_response_model_that_is_no_name_is_not_recorded(self, sleeps: Sleeps, otel_sdk: Otel) -> None:
        long_name = "m" * 300  # the fake server echoes the requested model back
        with fake("normal") as server:
            settings = LLMSettings(server.url, long_name, api_key=KEY, timeout=TIMEOUT)
            ask(ModelClient(settings, sleep=sleeps, telemetry=otel_sdk.telemetry))
        (span,) = otel_sdk.chats()
        assert "gen_ai.response.model" not in (span.attributes or {})

    def test_without_telemetry_a_call_records_nothing_and_still_answers(self, sleeps: Sleeps) -> None:
        with fake("normal") as server:
            assert ask(client_for(server, sleeps))

    @pytest.mark.parametrize(
        ("url", "provider", "address", "port"),
        [
            ("https://api.openai.com/v1", "openai", "api.openai.com", 443),
            ("https://api.mistral.ai/v1", "mistral_ai", "api.mistral.ai", 443),
            ("https://me.openai.azure.com/openai/v1", "azure.ai.openai", "me.openai.azure.com", 443),
            ("http://gpu-box:8080/v1?token=x", "openai", "gpu-box", 8080),  # an OpenAI-compatible server
        ],
    )
    def test_the_provider_and_server_come_from_the_host_never_the_path_or_query(
        self, url: str, provider: str, address: str, port: int
    ) -> None:
        assert model_call(LLMSettings(url, "m")) == ModelCall("m", provider, address, port)
