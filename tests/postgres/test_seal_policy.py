"""The seal policy of the PostgreSQL store: when to guess the chain head (a pure rule)."""

from __future__ import annotations

import pytest

from memoryos.store.postgres_tx import seal_optimistically


def test_a_writer_alone_seals_on_the_head_it_read() -> None:
    assert seal_optimistically(0) is True


@pytest.mark.parametrize("rivals", [1, 2, 7, 100])
def test_a_writer_with_rivals_in_flight_seals_on_the_locked_head(rivals: int) -> None:
    assert seal_optimistically(rivals) is False
