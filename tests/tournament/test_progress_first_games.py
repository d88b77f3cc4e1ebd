"""A tournament whose first games are long (the dearest first: a gauntlet with openings on big
boards sat at 0/N for ~95 s without a word, issue 51): the bar is redrawn every `TICK_S` with
its clock running, and its line says why the count stands still."""

from __future__ import annotations

import threading

from arena.competition.progress import Progress
from arena.tournament.run import tick
from tests.helpers import wait_until


def test_before_the_first_game_ends_the_line_says_why() -> None:
    p = Progress.plan([("50x50x10", 2500.0), ("6x7x4", 42.0)])
    line = p.line(95.0, 0)
    assert line.startswith("0/2 games, 1:35<?, faults=0"), line
    assert "playing the dearest games first (the ETA comes when the first ends)" in line
    done = p.finish("50x50x10", 90.0)
    assert "dearest" not in done.line(95.0, 0)  # an ETA now


def test_the_bar_is_redrawn_while_no_game_ends() -> None:
    calls: list[int] = []
    lock = threading.Lock()

    def show() -> None:
        with lock:
            calls.append(1)

    stop = tick(show, 0.01)
    assert wait_until(lambda: len(calls) >= 3, timeout_s=30.0)
    stop()
    with lock:
        seen = len(calls)
    threading.Event().wait(0.05)
    assert len(calls) == seen  # stopped: never called again


def test_a_failing_redraw_ends_the_ticking_not_the_run() -> None:
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise OSError("the terminal went away")

    stop = tick(broken, 0.01)
    assert wait_until(lambda: bool(calls), timeout_s=30.0)
    stop()  # returns: the thread ended by itself
    assert calls == [1]
