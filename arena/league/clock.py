"""The league's wall clock: the one place the league's deadlines and upload times read the
time of day (`now_s`), and the one place a test sets it (`set_clock`).

A deadline a test sets "3 s from now" and then sleeps past fails on a loaded machine (the
sleep ends, the page is not yet loaded, the deadline is long gone, or not yet reached). A test
instead sets the league's clock to a moment before or after a deadline. Only this process
reads the clock set: a process the league starts (the final, a server) reads the machine's
clock, so a test that starts one puts its deadline in the real past and sets this clock to a
moment before it for what happens "before the deadline"."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_source: Callable[[], float] = time.time


def now_s() -> float:
    """Seconds since the epoch: the machine's clock, or the one a test set."""
    return _source()


@contextmanager
def set_clock(source: Callable[[], float]) -> Iterator[None]:
    """Within the block, `now_s` reads `source` (e.g. `lambda: deadline - 60`)."""
    global _source
    before, _source = _source, source
    try:
        yield
    finally:
        _source = before
