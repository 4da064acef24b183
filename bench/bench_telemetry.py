"""Telemetry cost (issues 7 and 17): the off path of an instrumented call, and recall / durable
promotion with OpenTelemetry on versus off, measured in the same process and run.

(a) Off: an instrumented method against the same method undecorated (timeit medians, ns per call):
    @traced (the GenAI memory spans, with and without fixed attributes), @spanned (with and without
    a result description) and the model client's GenAI instrumentation. Target: <= 1 us per call.
(b) On: two identical stores (one prefilled file, copied), durability="full"; one with telemetry off,
    one exporting over OTLP/HTTP to a receiver on 127.0.0.1 through the production pipeline
    (BatchSpanProcessor, PeriodicExportingMetricReader with the gauges read every second). Runs
    alternate between the stores; each run reports the p50 of recall() and of the STM -> MTM
    promotion; figures are medians over runs. Target: overhead <= 10 %.

    python bench/bench_telemetry.py                   # about a minute
    python bench/bench_telemetry.py --runs 3 --turns 700 --recalls 50 --promotions 10   # smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import tempfile
import threading
import time
import timeit
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import memoryos
from memoryos.cli_output import Progress
from memoryos.llm import LLMSettings, ModelClient
from memoryos.memory import key_path_for
from memoryos.otel import OtelTelemetry
from memoryos.promotion import StmOutcome
from memoryos.telemetry import DISABLED, MODEL_NOOP, AttributeValue, ModelRecorder, Telemetry, spanned, traced
from memoryos.testing import FakeClock

TOPICS = ["deploy", "rust", "garden", "invoice", "piano", "kubernetes", "recipe", "travel", "tax", "football"]
WORDS = [f"w{i}" for i in range(3000)]


def bench_clock() -> FakeClock:
    """Simulated time: 50 µs a reading, so a long run never stands still or races real time."""
    return FakeClock(start=datetime(2026, 6, 1, tzinfo=UTC), tick=timedelta(microseconds=50))


# -- (a) the off path ---------------------------------------------------------------------------------
def _describe(result: object) -> dict[str, AttributeValue]:
    return {"record_count": 1}


class Plain:
    telemetry: Telemetry = DISABLED
    store_id = "bench"

    def op(self, x: int) -> int:
        return x


class Instrumented(Plain):
    @traced("search_memory", _describe)
    def op(self, x: int) -> int:
        return x

    @traced("delete_memory", _describe, delete_target="record")
    def fixed(self, x: int) -> int:
        return x

    @spanned("promotion", metric="promotion.duration", boundary="stm_to_mtm")
    def background(self, x: int) -> int:
        return x

    @spanned("export", describe=_describe)
    def described(self, x: int) -> int:
        return x


class Answering(ModelClient):
    """The model client with the HTTP call replaced: what is left is its telemetry check."""

    def _chat(self, messages: Any, span: ModelRecorder) -> str:
        return "ok"


def ns_per_call(statement: Callable[[], object], number: int, repeat: int) -> float:
    # Thread CPU time: on a shared machine, time spent descheduled is not the call's cost.
    runs = timeit.repeat(statement, number=number, repeat=repeat, timer=time.thread_time)
    return statistics.median(runs) / number * 1e9


def off_path(number: int, repeat: int) -> list[tuple[str, float]]:
    plain, instrumented = Plain(), Instrumented()
    client = Answering(LLMSettings("http://127.0.0.1:9/v1", "bench"))
    no_messages: list[dict[str, str]] = []
    return [
        ("undecorated method", ns_per_call(lambda: plain.op(1), number, repeat)),
        ("@traced method, telemetry off", ns_per_call(lambda: instrumented.op(1), number, repeat)),
        (
            "@traced method with fixed attributes, off",
            ns_per_call(lambda: instrumented.fixed(1), number, repeat),
        ),
        ("@spanned method, telemetry off", ns_per_call(lambda: instrumented.background(1), number, repeat)),
        (
            "@spanned method with describe, off",
            ns_per_call(lambda: instrumented.described(1), number, repeat),
        ),
        (
            "model client without its HTTP call (_chat)",
            ns_per_call(lambda: client._chat(no_messages, MODEL_NOOP), number, repeat),
        ),
        (
            "ModelClient.chat instrumentation, telemetry off",
            ns_per_call(lambda: client.chat(no_messages), number, repeat),
        ),
        ("telemetry.count() when off", ns_per_call(lambda: DISABLED.count("promotions", 1), number, repeat)),
    ]


# -- (b) on versus off --------------------------------------------------------------------------------
class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@contextmanager
def receiver() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(TOPICS)} {' '.join(rng.choices(WORDS, k=10))} {rng.choice(TOPICS)}"


def prefill(path: Path, turns: int, seed: int) -> None:
    rng = random.Random(seed)
    scopes = [memoryos.Scope(user=f"user{i}", assistant="bench") for i in range(4)]
    with memoryos.open(
        path,
        clock=bench_clock(),
        durability="normal",
        telemetry=DISABLED,
    ) as mem:
        for i in range(turns):
            mem.remember(scopes[i % len(scopes)], sentence(rng))


class Timed:
    """Wraps Promoter.promote_turns (with its telemetry wrapper) to time each promotion."""

    def __init__(self, mem: memoryos.Memory) -> None:
        self.inner = mem.promoter.promote_turns
        self.seconds: list[float] = []
        mem.promoter.promote_turns = self  # type: ignore[method-assign]  # a timing shim, bench only

    def __call__(self, *args: Any, **kwargs: Any) -> StmOutcome:
        started = time.perf_counter()
        outcome: StmOutcome = self.inner(*args, **kwargs)
        self.seconds.append(time.perf_counter() - started)
        return outcome


def one_run(
    stores: dict[str, memoryos.Memory], timers: dict[str, Timed], rng: random.Random, args: argparse.Namespace
) -> dict[str, tuple[float, float]]:
    """Per store: the p50 of recall() and of a durable STM -> MTM promotion. Operations alternate
    between the stores one by one (the first store swapping each time), so load on the machine
    falls on both alike."""
    scope = memoryos.Scope(user="user0", assistant="bench")
    recalls: dict[str, list[float]] = {mode: [] for mode in stores}
    for i in range(args.recalls):
        query = f"{rng.choice(TOPICS)} {rng.choice(WORDS[:50])}"
        for mode in order(stores, i):
            started = time.perf_counter()
            stores[mode].recall(scope, query, k=5)
            recalls[mode].append(time.perf_counter() - started)
    for timed in timers.values():
        timed.seconds.clear()
    i = 0
    while min(len(t.seconds) for t in timers.values()) < args.promotions:
        text = sentence(rng)
        for mode in order(stores, i // 7):
            stores[mode].remember(scope, text)
        i += 1
    return {
        mode: (statistics.median(recalls[mode]), statistics.median(timers[mode].seconds)) for mode in stores
    }


def order(stores: dict[str, memoryos.Memory], i: int) -> list[str]:
    modes = list(stores)
    return modes if i % 2 == 0 else modes[::-1]


def on_versus_off(args: argparse.Namespace, work: Path, endpoint: str) -> dict[str, Any]:
    base = work / "base.db"
    prefill(base, args.turns, seed=7)
    paths = {}
    for mode in ("off", "on"):
        paths[mode] = work / f"{mode}.db"
        shutil.copy(base, paths[mode])
        shutil.copy(key_path_for(base), key_path_for(paths[mode]))
    environ = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_SERVICE_NAME": "memoryos-bench",
        "OTEL_BSP_SCHEDULE_DELAY": str(args.bsp_delay),
        "OTEL_METRIC_EXPORT_INTERVAL": str(args.metric_interval),
    }
    on = OtelTelemetry.from_environment("bench", environ)
    assert on.enabled, "OTLP export could not be configured"
    stores = {
        "off": memoryos.open(
            paths["off"],
            clock=bench_clock(),
            durability="full",
            telemetry=DISABLED,
        ),
        "on": memoryos.open(
            paths["on"],
            clock=bench_clock(),
            durability="full",
            telemetry=on,
        ),
    }
    timers = {mode: Timed(mem) for mode, mem in stores.items()}
    runs: list[dict[str, tuple[float, float]]] = []
    try:
        with Progress("bench_telemetry: runs", total=args.runs) as progress:
            for run in range(args.runs):
                runs.append(one_run(stores, timers, random.Random(1000 + run), args))
                progress.advance()
    finally:
        for mem in stores.values():
            mem.close()
    summary: dict[str, Any] = {}
    for index, name in ((0, "recall"), (1, "promotion")):
        off = [r["off"][index] for r in runs]
        on_ = [r["on"][index] for r in runs]
        ratios = [b / a for a, b in zip(off, on_, strict=True)]
        summary[name] = (statistics.median(off), statistics.median(on_), statistics.median(ratios), ratios)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="alternating runs per store (>= 5)")
    parser.add_argument("--turns", type=int, default=3000, help="turns prefilled into the store")
    parser.add_argument("--recalls", type=int, default=200, help="recall() calls per run")
    parser.add_argument("--promotions", type=int, default=25, help="durable promotions per run")
    parser.add_argument("--number", type=int, default=200_000, help="timeit calls per repeat (off path)")
    parser.add_argument("--bsp-delay", type=int, default=5000, help="OTEL_BSP_SCHEDULE_DELAY, ms")
    parser.add_argument("--metric-interval", type=int, default=10_000, help="OTEL_METRIC_EXPORT_INTERVAL, ms")
    parser.add_argument("--out", default="", help="write the results table (markdown) here ('' to skip)")
    args = parser.parse_args()

    off_rows = off_path(args.number, 15)
    with tempfile.TemporaryDirectory() as tmp, receiver() as endpoint:
        started = time.perf_counter()
        summary = on_versus_off(args, Path(tmp), endpoint)
        elapsed = time.perf_counter() - started

    baseline = off_rows[0][1]
    lines = [
        "# Telemetry cost",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d}. Machine: nproc {os.cpu_count()}, Python "
        f"{platform.python_version()}, {platform.platform()}.",
        f"Command: `python bench/bench_telemetry.py --runs {args.runs} --turns {args.turns} "
        f"--recalls {args.recalls} --promotions {args.promotions} --number {args.number} "
        f"--bsp-delay {args.bsp_delay} --metric-interval {args.metric_interval}` "
        f"(on/off part: {elapsed:.1f} s).",
        "",
        "## Off: one flag check (timeit, thread CPU time, 15 repeats, medians)",
        "",
        "| call | ns per call | ns over the undecorated method | target |",
        "|---|---|---|---|",
    ]
    unmeasured = ("undecorated method", "model client without its HTTP call (_chat)")
    for name, ns in off_rows:
        extra = "" if name in unmeasured or name.startswith("telemetry.count") else "<= 1000"
        over = f"{ns - baseline:.0f}" if name != "telemetry.count() when off" else "(whole call)"
        if name.startswith("ModelClient.chat"):
            over = f"{ns - dict(off_rows)[unmeasured[1]]:.0f} (over _chat)"
        lines.append(f"| {name} | {ns:.0f} | {over} | {extra} |")
    lines += [
        "",
        f"## On versus off: OTLP/HTTP to a local receiver, durability=full, {args.runs} runs",
        "",
        f"Prefilled with {args.turns} turns (durability=normal), copied into both stores. Per run: "
        f"{args.recalls} recall() calls and {args.promotions} STM -> MTM promotions (triggered by "
        "remember() at STM capacity) per store, the stores alternating call by call. "
        f"BatchSpanProcessor every {args.bsp_delay} ms; metrics and gauges exported every "
        f"{args.metric_interval} ms (the SDK default is 60 s).",
        "",
        "| operation | p50 off (median of runs) | p50 on (median of runs) | overhead (median of run ratios)"
        " | target |",
        "|---|---|---|---|---|",
    ]
    for name in ("recall", "promotion"):
        off, on, ratio, _ = summary[name]
        label = "recall()" if name == "recall" else "durable STM -> MTM promotion"
        lines.append(
            f"| {label} | {off * 1e6:.0f} us | {on * 1e6:.0f} us | {(ratio - 1) * 100:+.1f} % | <= +10 % |"
        )
    lines += ["", "Per-run ratios on/off:", ""]
    for name in ("recall", "promotion"):
        lines.append(f"- {name}: " + ", ".join(f"{r:.3f}" for r in summary[name][3]))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:  # '' skips writing (Path('') would be the current directory)
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
