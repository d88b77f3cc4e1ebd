"""The league's wall clock: the one place the league's deadlines and upload times read the
time of day (`now_s`), and the one place a test sets it (`set_clock`).

A deadline a test sets "3 s from now" and then sleeps past fails on a loaded machine (the
sleep ends, the page is not yet loaded, the deadline is long gone, or not yet reached). A test
instead sets the league's clock to a moment before or after a deadline. Only this process
reads the clock set: a process the league starts (the final, a server) reads the machine's
clock, so a test that starts one puts its deadline in the real past and sets this clock to a
moment before it for what happens "before the deadline".

A test that must move the clock of a league server it started (and of the processes that
server starts: the final) names a file in CLOCK_OFFSET_ENV before starting it: every process
of the league that inherits the variable adds the file's number (seconds) to the machine's
clock, read again whenever the file changes. A test then moves the whole league past a
deadline by writing that file, instead of waiting for the deadline to pass."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: the environment variable naming the file of the clock's offset in seconds (tests)
CLOCK_OFFSET_ENV = "CXARENA_LEAGUE_CLOCK_OFFSET_FILE"

_offset_read: dict[str, tuple[tuple[int, int, int], float]] = {}  # path -> (its stat, offset)


def _offset_s(path: str) -> float:
    """The number in file `path` (0 while there is none), read again when the file changes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0.0
    key = (st.st_ino, st.st_mtime_ns, st.st_size)
    known = _offset_read.get(path)
    if known is None or known[0] != key:
        with open(path) as f:
            text = f.read().strip()
        try:
            offset = float(text or 0)
        except ValueError:
            raise ValueError(f"{CLOCK_OFFSET_ENV}={path}: expected a number of seconds, "
                             f"got {text[:40]!r}") from None
        known = _offset_read[path] = (key, offset)
    return known[1]


def _machine_s() -> float:
    """The machine's clock, moved by the offset file a test named (`CLOCK_OFFSET_ENV`)."""
    path = os.environ.get(CLOCK_OFFSET_ENV)
    return time.time() + (_offset_s(path) if path else 0.0)


_source: Callable[[], float] = _machine_s


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
