"""The model is never on the request path (issue 6): remember() with a model-backed distiller and
note writer whose model answers in 200 ms, against remember() with no model, interleaved on
identical stores in the same run; medians over --runs. Then maintain() is timed on the model
store, where the model work belongs, to show it did run.

    python bench/bench_llm_offpath.py            # 5 runs x 210 turns (30 full-STM promotions each)
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import memoryos
from memoryos.llm import LLMExtractor, LLMSettings, LLMSummarizer, ModelClient
from memoryos.testing import FakeLLMServer

TOPICS = ["rust build", "garden tomatoes", "blyck release", "tax forms", "piano lessons"]


def remember_times(mem: memoryos.Memory, turns: int, run: int) -> list[float]:
    scope = memoryos.Scope(user=f"user-{run}", assistant="bench")
    times = []
    for i in range(turns):
        text = f"I like {TOPICS[i % len(TOPICS)]} and note {i} of run {run}."
        start = time.perf_counter()
        mem.remember(scope, text)
        times.append(time.perf_counter() - start)
    return times


def one_run(folder: Path, server: FakeLLMServer, turns: int, run: int) -> dict[str, float]:
    client = ModelClient(LLMSettings(server.url, "fake-model", timeout=5.0))
    with (
        memoryos.open(folder / f"plain-{run}.db") as plain,
        memoryos.open(
            folder / f"model-{run}.db", summarizer=LLMExtractor(client), notes=LLMSummarizer(client)
        ) as model,
    ):
        ours, base = [], []
        for chunk in range(0, turns, 7):  # interleave full STM cycles so noise hits both alike
            base += remember_times(plain, 7, run * 1000 + chunk)
            ours += remember_times(model, 7, run * 1000 + chunk)
        before = server.requests
        start = time.perf_counter()
        done = model.maintain()
        maintain_s = time.perf_counter() - start
    return {
        "p50_model_us": statistics.median(ours) * 1e6,
        "p50_plain_us": statistics.median(base) * 1e6,
        "max_model_ms": max(ours) * 1e3,
        "max_plain_ms": max(base) * 1e3,
        "ratio_p50": statistics.median(ours) / statistics.median(base),
        "ratio_mean": statistics.fmean(ours) / statistics.fmean(base),
        "maintain_s": maintain_s,
        "model_calls_in_maintain": server.requests - before,
        "distilled": done.distilled_segments,
        "noted": done.summarized_segments,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="repetitions (medians are reported)")
    parser.add_argument("--turns", type=int, default=210, help="turns per store per run")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the fake model takes to answer")
    parser.add_argument("--out", default="bench/results/llm_offpath.md", help="markdown results ('' to skip)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="memoryos-offpath-"))
    try:
        with FakeLLMServer(mode="slow", delay=args.delay) as server:
            runs = [one_run(folder, server, args.turns, run) for run in range(args.runs)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    text = (
        "\n".join(
            [
                f"# remember() off the model path — {datetime.now(UTC):%Y-%m-%d}",
                "",
                f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}. Command: "
                f"`python bench/bench_llm_offpath.py --runs {args.runs} --turns {args.turns}"
                f" --delay {args.delay}`",
                "",
                "| measure | model path on (fake model, "
                f"{args.delay * 1000:.0f} ms) | no model | ratio | target |",
                "|---|---|---|---|---|",
                f"| remember() p50 | {med['p50_model_us']:.0f} µs | {med['p50_plain_us']:.0f} µs |"
                f" {med['ratio_p50']:.2f}x | <= 1.2x |",
                f"| remember() mean (includes promotions) | | | {med['ratio_mean']:.2f}x | |",
                f"| slowest remember() | {med['max_model_ms']:.1f} ms | {med['max_plain_ms']:.1f} ms | | "
                f"< {args.delay * 1000:.0f} ms: never waits for the model |",
                f"| maintain() afterwards (model work) | {med['maintain_s']:.2f} s,"
                f" {med['model_calls_in_maintain']:.0f} model calls,"
                f" {med['distilled']:.0f} segments distilled, {med['noted']:.0f} noted | | | |",
            ]
        )
        + "\n"
    )
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
