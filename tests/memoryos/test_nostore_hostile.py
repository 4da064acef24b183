"""The no-store scan costs linear time on hostile input.

Each family is run alone on 64 KiB built from its own trigger words and shapes (the hints of its
table entry, the keyword tables, the provider rules' hints): one trigger repeated, two alternated,
a trigger before digits, before a long run of one character class, and deep nesting of quotes and
brackets. Its time must stay within `FAMILY_BOUND` times the time of the whole scan (every family)
over 64 KiB of ordinary prose, measured in the same test: a linear finder with a large constant costs
a fraction of that, a quadratic one (every start scanning to the end of the text) 10 to 1000 times it.
The whole scan and `redact` on the worst shapes are held to `SCAN_BOUND` the same way.
"""

from __future__ import annotations

import functools
import itertools
import statistics
import time
from collections.abc import Callable, Iterable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryos.policies import (
    nostore_codes,
    nostore_health,
    nostore_ids_world,
    nostore_keywords,
    nostore_otp,
    nostore_sessions,
    nostore_shell,
    nostore_spoken,
)
from memoryos.policies.nostore import FAMILIES, redact, scan
from memoryos.policies.nostore_normalize import normalize
from memoryos.policies.nostore_rules import installed_table

pytestmark = [pytest.mark.serial, pytest.mark.xdist_group("nostore_hostile")]

SIZE = 64 * 1024
# Generous for a loaded machine (one family against the whole scan of prose; the keyword finders, the
# dearest linear ones, cost up to about 12 times it), yet below what a quadratic path costs at 64 KiB
# (60 to 130 times it before the fixes; the postal window 12 to 24 times).
FAMILY_BOUND = 20.0
SCAN_BOUND = 25.0

_PROSE = (
    "The deploy went fine after we bumped the cache size to 512 and restarted the workers on Tuesday. "
    "Alice reviewed the change in PR 4821 and asked for a follow-up on the flaky test in billing. "
    "Meeting notes: Bob will draft the migration plan, Chen takes the on-call rotation next week, and "
    "the Berlin office moves to the new floor in March. Remember that the staging cluster runs v2.4.1. "
)

# Shapes that every family may meet whatever its words: digits, capitalised words, separators.
SHAPES: tuple[str, ...] = (
    "Aadhaar 2345 ", "A. 1234 ", "St. 1234 ", "NY 10001 ", "12345 Berlin ", "Via Roma 12, ", "8 rue ",
    "http://a", "http://a/", "eyJ", "eyJ-", "a@", "a@b.", "://", "a:b@", "sig=", "=", ":", "a=", "k: v ",
    "1", "1 ", "12 ", "1234 ", "+1 ", "(0", "1-", "1.", "aB3", "aA1_", "A", "a", "-", "/", "'", '"', "`",
)  # fmt: skip
_NESTINGS = ("(", "[", "{", "'", '"', "`", "<", "«", "“")
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">", "«": "»", "“": "”"}


def _repeat(piece: str, size: int = SIZE) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def _family_triggers(name: str) -> tuple[str, ...]:
    """The words that make a family run and match: its hints and the keyword tables it reads."""
    family = FAMILIES[name]
    words = list(family.hints)
    if name == "password_assignment":
        words += [*nostore_keywords.PASSWORD_WORDS[:6], *nostore_keywords.PIN_WORDS[:2], "login", "passwd="]
    if name == "credential_assignment":
        words += [*nostore_keywords.CREDENTIAL_WORDS[:6], "token="]
    if name == "wifi_password":
        words += [*nostore_codes.WIFI_KEY_WORDS[:4], "wifi ", "WIFI:T:WPA;S:"]
    if name == "session_secret":
        words += nostore_sessions.TRIGGERS
    if name in ("one_time_code", "seed_phrase"):
        words += nostore_otp.TRIGGERS
    if name == "spaced_token":
        words += ["a ", "ghp_ ", "glpat- ", "sk_live_ ", "aB3 ", "glpat- aB3x ", "x_ 1a "]
    if name == "health_id":
        words += nostore_health.TRIGGERS
    if name == "national_id":
        words += nostore_ids_world.TRIGGERS
    if name in ("spoken_secret", "spoken_phone"):
        words += nostore_spoken.TRIGGERS
    if name == "command_password":
        words += nostore_shell.TRIGGERS
    if name == "provider_token":
        words += sorted(installed_table().hints)[:24]
    return tuple(dict.fromkeys(words))


def hostile_inputs(triggers: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(label, 64 KiB text) pairs: the adversarial shapes of the module doc for these triggers."""
    for trigger in triggers:
        spaced = trigger if trigger.endswith((" ", "=", ":", "/")) else trigger + " "
        yield f"repeat {trigger!r}", _repeat(trigger)
        yield f"repeat {spaced!r}", _repeat(spaced)
        yield f"{trigger!r} + digits", _repeat(spaced + "1234 ")
        yield f"{trigger!r} + mixed", _repeat(spaced + "aB3xY9 ")
        yield f"{trigger!r} then one run", spaced + "a" * (SIZE - len(spaced))
        yield f"{trigger!r} then a half run", _repeat(spaced)[: SIZE // 2] + "aB3" * (SIZE // 6)
    for first, second in itertools.pairwise(triggers[:8]):
        yield f"alternate {first!r} {second!r}", _repeat(first + " " + second + " ")


def _elapsed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def prose_seconds() -> float:
    """The whole scan over 64 KiB of prose: the unit every bound here is a multiple of."""
    text = _repeat(_PROSE)
    scan(text)  # warm the regex and rule caches
    return statistics.median(_elapsed(lambda: scan(text)) for _ in range(3))


def _seconds_within(work: Callable[[], object], bound: float) -> float:
    """The time of `work`, timed again when over `bound`: a load spike is not a slow path twice."""
    seconds = _elapsed(work)
    return seconds if seconds <= bound else min(seconds, _elapsed(work))


def _run_all(finder: Callable[[str], Iterable[tuple[int, int]]], text: str) -> None:
    for _ in finder(text):
        pass


def _slow_inputs(name: str, prose: float, inputs: Iterator[tuple[str, str]]) -> list[str]:
    finder = FAMILIES[name].find
    slow = []
    for label, text in inputs:
        seconds = _seconds_within(
            functools.partial(_run_all, finder, normalize(text).text), FAMILY_BOUND * prose
        )
        if seconds > FAMILY_BOUND * prose:
            slow.append(f"{label}: {seconds:.2f} s (prose scan {prose:.2f} s)")
    return slow


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_costs_linear_time_on_its_own_triggers(name: str, prose_seconds: float) -> None:
    # The finder runs without its hint pre-filter: a hostile writer puts the hint in once anyway.
    assert _slow_inputs(name, prose_seconds, hostile_inputs(_family_triggers(name))) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_costs_linear_time_on_common_shapes(name: str, prose_seconds: float) -> None:
    half = SIZE // 2
    shapes = itertools.chain(
        ((f"repeat {shape!r}", _repeat(shape)) for shape in SHAPES),
        ((f"{shape!r} + digits", _repeat(shape + "1234 ")) for shape in SHAPES),
        ((f"nest {opening!r}", _repeat(opening, half) + _repeat(_CLOSING.get(opening, opening), half))
         for opening in _NESTINGS),
    )  # fmt: skip
    assert _slow_inputs(name, prose_seconds, shapes) == []


# The shapes that cost the most before their fixes, each with its family's hint so the scan runs it.
WORST = (
    "Aadhaar 2345 ",  # postal_address: a 4-digit code before every capitalised word
    "St. 1234 ",
    "hooks http://a",  # secret_url: an unbounded host and path from every "http://"
    "eyJ",  # provider_token: CredSweeper's JWT rule from every "eyJ"
    "ufjjvkfursblrvkt aA1_aA1_",  # provider_token: the base64 PEM rule's leading run
    "passwd=",
    "token=",
    "jane.doe@mail.org ",  # many detections: redact's cost
    "password: Xy7#kq9zQ ",
)


@pytest.mark.slow
@pytest.mark.parametrize("piece", WORST)
def test_the_whole_scan_and_redact_cost_linear_time(piece: str, prose_seconds: float) -> None:
    text = _repeat(piece)
    seconds = _seconds_within(lambda: redact(text, scan(text)), SCAN_BOUND * prose_seconds)
    assert seconds <= SCAN_BOUND * prose_seconds, f"{seconds:.2f} s against {prose_seconds:.2f} s"


_PIECES = st.sampled_from(
    [*SHAPES, "password ", "token ", "code ", "pin ", "Backup codes: ", "WIFI:", "Bearer ", "sk-", "ghp_"]
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(_PIECES, min_size=1, max_size=3), glue=st.sampled_from(["", " ", "\n", ", ", "1234"]))
def test_repeated_pieces_of_any_kind_cost_linear_time(
    pieces: list[str], glue: str, prose_seconds: float
) -> None:
    text = _repeat(glue.join(pieces) + glue)
    seconds = _seconds_within(lambda: scan(text), SCAN_BOUND * prose_seconds)
    assert seconds <= SCAN_BOUND * prose_seconds, f"{seconds:.2f} s against {prose_seconds:.2f} s"
