"""What keeps a resumed audit cheap (issue 13): costs that do not grow with what was appended."""

from __future__ import annotations

import gc

from auditor.engine import collector_paused


def test_what_a_paused_pass_keeps_is_not_walked_by_the_next_young_collection() -> None:
    # Without the hand-over, everything allocated during the pause is in generation 0 and the
    # first collection afterwards walks all of it: a tenth of a resumed audit.
    assert gc.isenabled()
    with collector_paused():
        kept = [[index] for index in range(20_000)]
    young = {id(obj) for generation in (0, 1) for obj in gc.get_objects(generation=generation)}
    assert not any(id(item) in young for item in kept)
    assert gc.isenabled()


def test_a_collector_disabled_by_the_caller_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
