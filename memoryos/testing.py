"""Test helpers shipped with the package, so hosts can test their integration without a model.

`FakeLLMServer` is an OpenAI-compatible chat-completions endpoint on 127.0.0.1 (a port the OS picks)
that misbehaves on request: slow, failing, rate-limited, answering garbage, or not there at all.
Its `normal` answers are computed from the request, so a test can predict them:

- an extraction request (`{"pages": [...]}`) gets one record per page whose body is the page's text
  (of the kind the request names, if it names one: typed extraction asks once per kind);
- a reflection request (`{"reflect": [...]}`) gets one `fact` candidate per user turn, keyed
  `fact:` and its first three words;
- a reconciliation request (`{"reconcile": [...]}`) gets, for each item, the action and target the
  request suggests (the deterministic decision), so the proposal path runs end to end;
- a notes request (`{"segment": [...]}`) gets the first sentence of each page as its summary, those
  joined as the segment's, and `continues` where a page shares a long word with the one before;
- anything else gets "ok".

    with FakeLLMServer("rate_limit_then_ok", failures=1) as server:
        client = ModelClient(LLMSettings(server.url, "fake"), sleep=lambda _: None)
        ...
        assert server.requests == 2
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import orjson

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan


class FakeClock:
    """A clock for `memoryos.open(..., clock=...)` that a test moves. Each reading advances it by
    `tick` (default 1 ms, so readings are strictly ordered; `timedelta(0)` freezes it)."""

    def __init__(self, start: datetime | None = None, tick: timedelta = timedelta(milliseconds=1)) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self.tick = tick

    def __call__(self) -> datetime:
        self.now += self.tick
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


Mode = Literal["normal", "slow", "error500", "rate_limit_then_ok", "malformed", "refused"]
MODES: tuple[Mode, ...] = ("normal", "slow", "error500", "rate_limit_then_ok", "malformed", "refused")
ERROR_BODY = "Internal Server Error: upstream model crashed"
GARBAGE = b"<html><body>502 upstream garbage {not: json"
_FIRST_SENTENCE = re.compile(r"^.*?[.!?](?=\s|$)|^.*$", re.DOTALL)


@dataclass(frozen=True)
class Received:
    """One request as the server saw it: enough to assert on the model name and the auth header."""

    path: str
    authorization: str | None
    body: Any  # the parsed JSON request, or None when it was not JSON


def answer_for(request: Any) -> str:
    """The deterministic `normal` answer to a chat-completions request (see the module docstring)."""
    try:
        data = orjson.loads(request["messages"][-1]["content"])
    except (KeyError, IndexError, TypeError, orjson.JSONDecodeError):
        return "ok"
    if isinstance(data, dict) and isinstance(data.get("pages"), list):
        records = [_record_for(page) for page in data["pages"]]
        if data.get("kind") in ("semantic", "episodic", "procedural", "taxonomic"):  # one kind asked for
            records = [{**r, "kind": data["kind"]} for r in records]
        return orjson.dumps({"records": [r for r in records if r["body"]]}).decode()
    if isinstance(data, dict) and isinstance(data.get("reflect"), list):
        return orjson.dumps({"candidates": _reflected(data["reflect"])}).decode()
    if isinstance(data, dict) and isinstance(data.get("reconcile"), list):
        return orjson.dumps({"actions": [_suggested(item) for item in data["reconcile"]]}).decode()
    if isinstance(data, dict) and isinstance(data.get("segment"), list):
        return orjson.dumps(_notes_for([_text_of(p) for p in data["segment"]])).decode()
    return "ok"


def _text_of(page: Any) -> str:
    return " ".join(str(page.get("text", "") if isinstance(page, dict) else "").split())


def _notes_for(texts: list[str]) -> dict[str, Any]:
    """First sentences for the summaries; a page continues the one before it if they share a word
    of five letters or more."""
    firsts = [_first_sentence(t) or t[:80] for t in texts]
    words = [{w.lower() for w in re.findall(r"\w{5,}", t)} for t in texts]
    pages = [
        {"summary": first, "continues": index > 0 and bool(words[index] & words[index - 1])}
        for index, first in enumerate(firsts)
    ]
    return {"summary": " ".join(f for f in firsts if f), "pages": pages}


def _record_for(page: Any) -> dict[str, str]:
    role = page.get("role") if isinstance(page, dict) else None
    text = " ".join(str(page.get("text", "") if isinstance(page, dict) else "").split())
    if role == "assistant":
        return {"list": "assistant_knowledge", "kind": "procedural", "body": text}
    return {"list": "user_knowledge", "kind": "semantic", "body": text}


def _reflected(turns: list[Any]) -> list[dict[str, str]]:
    """One `fact` candidate per user turn, keyed by its first three words."""
    out = []
    for turn in turns:
        text = _text_of(turn)
        words = re.findall(r"[a-z0-9]+", text.lower())[:3]
        if isinstance(turn, dict) and turn.get("role") == "user" and words:
            out.append({"kind": "fact", "key": "fact:" + "-".join(words), "body": text})
    return out


def _suggested(item: Any) -> dict[str, Any]:
    item = item if isinstance(item, dict) else {}
    suggested = item.get("suggested") if isinstance(item.get("suggested"), dict) else {}
    return {"item": item.get("item"), "action": suggested.get("action"), "target": suggested.get("target")}


def _first_sentence(text: str) -> str:
    match = _FIRST_SENTENCE.match(text.strip())
    return match.group(0).strip() if match else ""


def completion(content: str, model: str = "fake", prompt_tokens: int = 0) -> bytes:
    # Token counts like a real server's (about four characters a token), for the GenAI usage metrics.
    output_tokens = max(1, len(content) // 4)
    return orjson.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": prompt_tokens + output_tokens,
            },
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
        }
    )


class FakeLLMServer:
    """A chat-completions server in a thread. `mode` may be changed while it runs, except to or from
    `refused`, which start() decides.

    `delay`: seconds a `slow` answer takes. `failures`: how many 429s `rate_limit_then_ok` gives
    before answering. `reply`: a fixed content for `normal`, to feed a client a chosen answer.
    `api_key`: when set, a request without `Authorization: Bearer <api_key>` gets a 401.
    `refused` binds a port and releases it, so connecting there is refused.
    """

    def __init__(
        self,
        mode: Mode = "normal",
        *,
        delay: float = 0.2,
        failures: int = 1,
        reply: str | None = None,
        api_key: str | None = None,
        error_body: str = ERROR_BODY,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        self.mode: Mode = mode
        self.delay = delay
        self.failures = failures
        self.reply = reply
        self.api_key = api_key
        self.error_body = error_body
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @property
    def url(self) -> str:
        """The base URL to configure as MEMORYOS_LLM_URL."""
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def requests(self) -> int:
        with self._lock:
            return len(self.received)

    def start(self) -> FakeLLMServer:
        if self.mode == "refused":
            self._port = _unused_port()
            return self
        self._stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = False
        server.block_on_close = True  # stop() waits for every handler: no thread outlives the test
        self._server, self._port = server, server.server_address[1]
        # A short poll keeps stop() quick: shutdown() waits for the loop to notice, 0.5 s by default.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes slow handlers so the join below is quick
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what one request gets ---------------------------------------------------------------------
    def respond(self, path: str, authorization: str | None, raw: bytes) -> tuple[int, dict[str, str], bytes]:
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            body = None
        with self._lock:
            self.received.append(Received(path, authorization, body))
            count = len(self.received)
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return 401, {}, orjson.dumps({"error": {"message": "invalid api key"}})
        if path.rstrip("/") != "/v1/chat/completions" or not isinstance(body, dict):
            return 400, {}, orjson.dumps({"error": {"message": "bad request"}})
        return self._by_mode(count, body)

    def _by_mode(self, count: int, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        if self.mode == "error500":
            return 500, {"Content-Type": "text/plain"}, self.error_body.encode()
        if self.mode == "malformed":
            return 200, {"Content-Type": "application/json"}, GARBAGE
        if self.mode == "rate_limit_then_ok" and count <= self.failures:
            return 429, {"Retry-After": "0"}, orjson.dumps({"error": {"message": "rate limited"}})
        if self.mode == "slow":
            self._stopping.wait(self.delay)
        content = self.reply if self.reply is not None else answer_for(body)
        prompt_tokens = max(1, len(orjson.dumps(body.get("messages"))) // 4)
        return (
            200,
            {"Content-Type": "application/json"},
            completion(content, str(body.get("model", "fake")), prompt_tokens),
        )


def _unused_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _handler_for(fake: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            status, headers, payload = fake.respond(
                self.path, self.headers.get("Authorization"), self.rfile.read(length)
            )
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left: exactly what `slow` is for

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


@contextmanager
def fake_llm(mode: Mode = "normal", **options: Any) -> Iterator[FakeLLMServer]:
    """`with fake_llm("error500") as server:` — the same as `with FakeLLMServer(...)`."""
    with FakeLLMServer(mode, **options) as server:
        yield server


class InMemoryOtel:
    """OpenTelemetry SDK providers wired to in-memory exporters, handed to memoryos as a host would:
    `memoryos.open(path, telemetry=otel.telemetry)`; tests read back `finished()` and `metrics()`."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from memoryos.otel import OtelTelemetry

        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.telemetry = OtelTelemetry(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider
        )

    def finished(self) -> tuple[ReadableSpan, ...]:
        return self.spans.get_finished_spans()

    def metrics(self) -> dict[str, list[Any]]:
        """Every data point exported so far, by metric name."""
        data = self.reader.get_metrics_data()
        found: dict[str, list[Any]] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found

    def points(self, name: str) -> list[Any]:
        return self.metrics().get(name, [])

    def metrics_json(self) -> str:
        data = self.reader.get_metrics_data()
        return "" if data is None else data.to_json()

    def close(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


__all__ = [
    "ERROR_BODY",
    "MODES",
    "FakeLLMServer",
    "InMemoryOtel",
    "Mode",
    "Received",
    "answer_for",
    "completion",
    "fake_llm",
]
