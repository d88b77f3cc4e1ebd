"""The league's one wall clock (`arena.league.clock`): what a test sets is what the league
reads, and it is the machine's clock again after the block, even when the block raised."""

from __future__ import annotations

import time

import pytest

from arena.league.clock import now_s, set_clock


def test_the_clock_set_is_read_and_restored() -> None:
    with set_clock(lambda: 1_000.0):
        assert now_s() == 1_000.0
        with set_clock(lambda: 2_000.0):
            assert now_s() == 2_000.0
        assert now_s() == 1_000.0
    with pytest.raises(RuntimeError), set_clock(lambda: 3_000.0):
        raise RuntimeError("inside")
    before = time.time()
    assert before <= now_s() <= time.time()  # the machine's clock again
