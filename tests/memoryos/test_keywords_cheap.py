"""policies.text.keywords, made for every promoted turn, splits ASCII text with one translate() in
place of the regex and a lower() per token (issue 12: the cost of placement). It is the plain
per-token count it replaced: the same words, the same counts, in the same order (segments keep
keywords in ranked order, and ties in a Counter keep first-occurrence order)."""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memoryos.policies.text import STOPWORDS, keywords, tokens


def plain(text: str) -> Counter[str]:
    return Counter(t for t in tokens(text) if t not in STOPWORDS and len(t) > 1 and not t.isdigit())


ascii_words = st.lists(
    st.sampled_from(
        [
            *sorted(STOPWORDS)[:20],
            "Deploy",
            "BLYCK",
            "x",
            "42",
            "a1",
            "_",
            "release",
            "v2.1",
            "it's",
            "\x00\t-",
            "__a",
            "TODO:fix",
        ]
    ),
    max_size=30,
).map(" ".join)


@settings(max_examples=400)
@given(st.text() | st.text(st.characters(max_codepoint=127)) | ascii_words)
@example("İstanbul İ deploy")  # lowering the whole text would split İ's dot off: not done for it
@example("ﬁle ǅemal ẞtraße Straße")
def test_keywords_are_the_plain_per_token_count_in_the_same_order(text: str) -> None:
    fast, slow = keywords(text), plain(text)
    assert fast == slow and list(fast) == list(slow)
