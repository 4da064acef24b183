"""What an unarmed failpoint costs, against raw baselines measured in the same process and run.

DESIGN §8: "Unarmed, a failpoint costs one dictionary lookup or less." Measured here as the cost a
`failpoint(name)` call adds on top of calling an empty function with the same argument (the call
itself is paid by any instrumentation), compared with one dictionary lookup of the name.

Run: python bench/bench_failpoints.py [--out bench/results/failpoints.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import timeit
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from memoryos import failpoints
from memoryos.failpoints import POINTS, failpoint

NAME = "stm_to_mtm.before_commit"
NUMBER = 300_000
REPEAT = 21


def empty(name: str) -> None:
    """The baseline call: same signature as failpoint(), no body."""


def interleaved(statements: dict[str, Callable[[], object]], number: int) -> dict[str, float]:
    """Median ns per call of each statement; rounds alternate between them so drift hits all alike."""
    samples: dict[str, list[float]] = {what: [] for what in statements}
    for _ in range(REPEAT):
        for what, statement in statements.items():
            samples[what].append(timeit.timeit(statement, number=number) / number * 1e9)
    return {what: statistics.median(values) for what, values in samples.items()}


def measure(number: int = NUMBER) -> dict[str, float]:
    table = dict.fromkeys(POINTS, None)  # a dict the size of the real registry
    name = NAME
    failpoints.arm("")
    results = interleaved(
        {
            "loop overhead (lambda: None)": lambda: None,
            "one dict lookup (table[name])": lambda: table[name],
            "one dict probe (table.get(name))": lambda: table.get(name),
            "empty function call": lambda: empty(name),
            "failpoint(name), unarmed": lambda: failpoint(name),
        },
        number,
    )
    failpoints.arm("recovery.begin=sleep(0)")  # armed elsewhere: this point pays a dict probe
    results.update(interleaved({"failpoint(name), another point armed": lambda: failpoint(name)}, number))
    failpoints.arm("")
    return results


def render(results: dict[str, float], number: int = NUMBER) -> str:
    loop = results["loop overhead (lambda: None)"]
    lookup = results["one dict lookup (table[name])"] - loop
    added = results["failpoint(name), unarmed"] - results["empty function call"]
    rows = [f"| {what} | {ns:.1f} | {ns - loop:.1f} |" for what, ns in results.items()]
    verdict = "meets" if added <= lookup else "does NOT meet"
    return "\n".join(
        [
            "# Failpoint cost (unarmed)",
            "",
            f"Date: {datetime.now(UTC).date().isoformat()}. Machine: nproc {os.cpu_count()},"
            f" Python {platform.python_version()}, {platform.platform()}.",
            "Command: `python bench/bench_failpoints.py`"
            f" (timeit, {number:,} calls x {REPEAT} repeats, medians).",
            "",
            "| statement | ns per call | ns minus loop overhead |",
            "|---|---|---|",
            *rows,
            "",
            f"Cost a failpoint adds over an empty call: {added:.1f} ns"
            " (a negative figure is timing noise around zero);"
            f" one dict lookup: {lookup:.1f} ns (ratio {max(added, 0.0) / lookup:.2f}).",
            f"The unarmed failpoint {verdict} DESIGN §8 (one dictionary lookup or less).",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "failpoints.md")
    parser.add_argument("--number", type=int, default=NUMBER, help="calls per timing (default 300,000)")
    args = parser.parse_args()
    text = render(measure(args.number), args.number)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
