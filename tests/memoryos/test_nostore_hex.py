"""Random hex in ordinary text is not a national id (the no-store rule's `national_id` family).

In one CI run out of many, a crash-test writer's turn `writer <n> turn <m> pid <p> <uuid4().hex>` was
refused (Rejected). The family that fired was `national_id`, kind `fr_nir`: its number was bounded by
digits only, so a run of 15 digits between two letters of the hex, or the pid, a space and the first
ten digits of the hex, read as a French NIR whenever its mod-97 key happened to hold (one run in 97).
Measured with uuid4: about 1.7 in 100,000 texts of that shape. Every other kind bounded by digits
only had the same flaw: the Chinese resident id (18 digits at the end of the hex after a letter, about
4 in 10^9), and, after their context words, the US SSN (a 9-digit run passing the issuing rules: 4.7 %
of uuid4 hex after "social"), the Dutch BSN and the Japanese My Number ("my number one ...").
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoryos
from memoryos.policies.nostore import scan
from memoryos.policies.nostore_ids import _CN_WEIGHTS, bsn_ok, cn_resident_ok, my_number_ok, nir_ok, ssn_ok

# Found by scanning uuid4().hex turns of the writer's shape (seven of 720,000 fired, all fr_nir).
FOUND_IN_THE_WRITERS_SHAPE = (
    # pid, a space and the first ten digits of the hex: "23266 3834954158" then "c"
    "writer 3 turn 738 pid 23266 3834954158c5484982ebce4c669400d9",
    "writer 6 turn 2911 pid 10821 1772960744fd4846bff2a04464d037d9",
    "writer 5 turn 2571 pid 21831 0494793237de4226b8e8ce5b799efbcb",
    # fifteen digits at the start of the hex, then a letter
    "writer 5 turn 598 pid 4440 130456262725493b9f23511b7017b6ca",
    "writer 5 turn 3703 pid 8682 165814821107461a80ff17badca19faa",
    # fifteen digits between two letters in the middle of the second hex
    "writer 2 turn 3772 pid 14163 418c7d69b3234d6a956f08a17336e07f 7c7b118393364968880e0ea7106a5b2f",
    "writer 5 turn 1735 pid 1134746 96008706d2b147718075d51cbfd63cd7",
)
# Found the same way after a context word (one text in 20 to one in 400 fired).
FOUND_AFTER_A_CONTEXT_WORD = (
    "shared on social media, post 11cda835093946d6a8e178124fa58127",  # us_ssn_context "835093946"
    "shared on social media, post 8a8af2f257864128aabe83048e39f4da",
    "my number one suspect is job 2f353382095049f09a29525d0c0248e0",  # jp_my_number "353382095049"
    "the bsn lookup job 584be509742543ca99910061312d1671 finished",  # nl_bsn "509742543"
)
# Constructed from the rules, each a valid uuid4 hex (version nibble 4 at index 12, variant 8-b at 16).
CONSTRUCTED = (
    # a NIR with a valid key (1 85 05 78 006 048, key 30) between two letters of the hex
    "request e185057800604830b1c2d3e4f5a6b7c8 done",
    # a valid Chinese resident id (119901 19900101 000, check 9) as the hex's last 18 characters
    "turn 12 pid 77 0a1b2c3d4e5f4a119901199001010009",
)


def _nir(body: str) -> str:
    """The NIR with its key: 97 - (the 13 digits mod 97), Corsica's 2A and 2B read as 19 and 18."""
    return body + f"{97 - int(body.replace('2A', '19').replace('2B', '18')) % 97:02d}"


def _cn(body: str) -> str:
    """The Chinese resident id with its ISO 7064 MOD 11-2 check character."""
    total = sum(int(digit) * weight for digit, weight in zip(body, _CN_WEIGHTS, strict=True))
    return body + "10X98765432"[total % 11]


def test_the_planted_runs_pass_their_checks() -> None:
    """So the tests below would fail if the runs were still read as numbers of their own."""
    assert nir_ok("185057800604830") and nir_ok("130456262725493") and nir_ok("232663834954158")
    for text in CONSTRUCTED:
        token = text.split()[-2 if text.endswith("done") else -1]
        assert uuid.UUID(hex=token).version == 4 and uuid.UUID(hex=token, version=4).hex == token
    assert cn_resident_ok("119901199001010009")


@pytest.mark.parametrize("text", FOUND_IN_THE_WRITERS_SHAPE + FOUND_AFTER_A_CONTEXT_WORD + CONSTRUCTED)
def test_a_digit_run_inside_hex_is_no_national_id(text: str) -> None:
    assert scan(text) == []


def test_the_writers_turn_is_stored_not_rejected(tmp_path: Path) -> None:
    """End to end, as the crash writer called it: remember() keeps the turn."""
    scope = memoryos.Scope(user="writer", assistant="crash")
    with memoryos.open(tmp_path / "memory.db") as mem:
        for text in FOUND_IN_THE_WRITERS_SHAPE:
            mem.remember(scope, text)
        found = {hit.text for hit in mem.recall(scope, "writer turn pid", k=50).hits}
    assert found == set(FOUND_IN_THE_WRITERS_SHAPE)  # every turn kept, none redacted


@pytest.mark.parametrize(
    "text",
    [
        "NIR 1 85 07 75 123 456 08",
        "numéro de sécu : 185057800608491",
        "n°185057800608491 (carte Vitale)",
        "社会保障番号は185057800608491です",
        "NIR:274082A61103825",  # Corsica
        "身份证号码：11010519491231002X",
        "ID 11010519491231002X on file",
    ],
)
def test_national_ids_written_as_numbers_are_still_refused(text: str) -> None:
    assert [d.family for d in scan(text)] == ["national_id"]


@pytest.mark.parametrize(
    "text",
    [
        "api_key=5c5f81eb3f6a4b1e9d0c7a2b8e4f6d13",
        "API key 5c5f81eb3f6a4b1e9d0c7a2b8e4f6d13",
        # a hex key after "api_key=" is a secret even when its digits would have read as a NIR
        "api_key=e185057800604830b1c2d3e4f5a6b7c8",
    ],
)
def test_a_hex_key_after_a_key_word_is_still_a_secret(text: str) -> None:
    assert [d.family for d in scan(text)] == ["credential_assignment"]


# --- properties ------------------------------------------------------------------------------------

SENTENCES = (
    "writer {w} turn {n} pid {p} {hex}",
    "writer {w} turn {n} {hex}",
    "turn {n} of process {p}: trace {hex}",
    "session {hex} started at turn {n}",
    "{hex}",
    "saved the run as {hex}.json after {n} steps",
    # context words of the kinds that need one, in their everyday sense
    "shared on social media, post {hex}",
    "social login trace {hex} at turn {n}",
    "my number one suspect is job {hex}",
    "the bsn lookup job {hex} finished",
)
HEX = "0123456789abcdef"
# Hypothesis's own uuids lean towards simple values (zeros, small integers); uniformly random ones
# are what uuid4() gives, and where the digit runs are.
UUID4_HEX = st.one_of(
    st.uuids(version=4),
    st.randoms(use_true_random=True).map(lambda rng: uuid.UUID(int=rng.getrandbits(128), version=4)),
).map(lambda u: u.hex)


def _sentence(template: str, hex_token: str, w: int, n: int, p: int) -> str:
    return template.format(hex=hex_token, w=w, n=n, p=p)


@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(SENTENCES),
    UUID4_HEX,
    st.integers(0, 9),
    st.integers(0, 99_999),
    st.integers(1, 4_194_304),
)
def test_uuid4_hex_in_a_plain_sentence_is_never_refused(
    template: str, hex_token: str, w: int, n: int, p: int
) -> None:
    assert scan(_sentence(template, hex_token, w, n, p)) == []


_NIR_BODY = st.builds(
    lambda sex, year, month, rest: f"{sex}{year:02d}{month:02d}{rest}",
    st.sampled_from("12"),
    st.integers(0, 99),
    st.integers(1, 12),
    st.text(alphabet="0123456789", min_size=8, max_size=8),
)
NIR_RUNS = _NIR_BODY.map(_nir)
CN_RUNS = (
    st.builds(
        lambda region, year, month, day, order: f"{region}{year}{month:02d}{day:02d}{order}",
        st.text(alphabet="0123456789", min_size=6, max_size=6),
        st.integers(1900, 2100),
        st.integers(1, 12),
        st.integers(1, 28),
        st.text(alphabet="0123456789", min_size=3, max_size=3),
    )
    .map(_cn)
    .filter(lambda number: number[-1] != "X")  # a hex token holds no X
)
SSN_RUNS = st.text(alphabet="0123456789", min_size=9, max_size=9).filter(ssn_ok)


def _completed(check: Callable[[str], bool], body: str) -> str:
    """The body with the check digit that makes it pass, or "" when no digit does."""
    return next((body + digit for digit in "0123456789" if check(body + digit)), "")


BSN_RUNS = (
    st.text(alphabet="0123456789", min_size=8, max_size=8).map(lambda b: _completed(bsn_ok, b)).filter(bool)
)
MY_NUMBER_RUNS = (
    st.text(alphabet="0123456789", min_size=11, max_size=11)
    .map(lambda b: _completed(my_number_ok, b))
    .filter(bool)
)


@st.composite
def hex_with_a_valid_id_run(draw: st.DrawFn) -> str:
    """A 32-character lower-case hex token holding a digit run that passes a national id's check,
    bounded by letters of the hex (or by the token's ends): the worst case a random hex can be."""
    run = draw(st.one_of(NIR_RUNS, CN_RUNS, SSN_RUNS, BSN_RUNS, MY_NUMBER_RUNS))
    left = draw(st.integers(0, 32 - len(run)))
    right = 32 - len(run) - left
    head = draw(st.text(alphabet=HEX, min_size=left, max_size=left))
    tail = draw(st.text(alphabet=HEX, min_size=right, max_size=right))
    letters = st.sampled_from("abcdef")
    if left:
        head = head[:-1] + draw(letters)
    if right:
        tail = draw(letters) + tail[1:]
    return head + run + tail


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SENTENCES), hex_with_a_valid_id_run(), st.integers(0, 9), st.integers(0, 99_999))
def test_a_valid_id_run_inside_a_hex_token_is_never_refused(
    template: str, hex_token: str, w: int, n: int
) -> None:
    assert scan(_sentence(template, hex_token, w, n, 4242)) == []


@settings(max_examples=200, deadline=None)
@given(NIR_RUNS, st.text(alphabet=HEX, min_size=21, max_size=21), st.integers(0, 9), st.integers(0, 9999))
def test_a_pid_that_completes_a_nir_with_the_hex_is_never_refused(
    nir: str, rest: str, w: int, n: int
) -> None:
    """The writer's "pid 23266 3834954158c…": the pid is the NIR's first five digits, the hex
    starts with the other ten."""
    hex_token = nir[5:] + "c" + rest
    assert scan(f"writer {w} turn {n} pid {int(nir[:5])} {hex_token}") == []
