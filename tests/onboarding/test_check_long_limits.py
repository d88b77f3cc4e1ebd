"""check-bot at the course's own limit, 10 s per move (issue 51): every game stops after a few
moves so that the check ends in a few minutes (said in the summary), and a line comes at least
every `PROGRESS_EVERY_S` plus one move while a game goes on (an injected clock here; the real
time is in bench/, docs/benchmarks.md)."""

from __future__ import annotations

from itertools import pairwise

from arena.commands.check_bot import PROGRESS_EVERY_S, Progress
from arena.onboarding.conformance import (
    LONG_CHECK_BUDGET_S,
    MAX_MOVES,
    OPPONENT_SPEC,
    long_limit_cap,
    run_check,
)


def test_no_cap_at_one_second_and_a_few_moves_at_ten() -> None:
    assert long_limit_cap(1.0, 7) is None  # the usual check, unchanged
    cap = long_limit_cap(10.0, 7)
    assert cap is not None and cap < MAX_MOVES
    # the bot's moves, each taking the whole limit, fit the budget (well under 5 minutes)
    assert 7 * (cap // 2) * 10.0 <= LONG_CHECK_BUDGET_S < 300
    assert long_limit_cap(1000.0, 7) == 6  # never fewer than 3 moves of the bot's per game


def test_progress_speaks_within_a_long_game_and_not_more_often() -> None:
    now = [0.0]
    said: list[tuple[float, str]] = []
    progress = Progress(clock=lambda: now[0], out=lambda line: said.append((now[0], line)))
    for _ in range(10):  # ten moves of 9.5 s each, as a bot thinking 95 % of 10 s
        now[0] += 9.5
        progress.move("game 1/7 (6x7x4, bot first): n moves played")
    assert [t for t, _ in said] == [28.5, 57.0, 85.5]  # every 3 moves: 20 s went by
    assert all(line.startswith("  ... game 1/7") for _, line in said)
    # a line at least every PROGRESS_EVERY_S + one move, the first counted from the start
    times = [0.0] + [t for t, _ in said]
    assert max(b - a for a, b in pairwise(times)) <= PROGRESS_EVERY_S + 9.5
    # many quick moves say nothing more
    for _ in range(100):
        now[0] += 0.01
        progress.move("x")
    assert len(said) == 3


def test_a_check_at_ten_seconds_caps_every_game_and_says_so() -> None:
    """A real check (the instant opponent as the bot) at 10 s: every game stops after the cap,
    each move is told, and the summary says why the games are short."""
    told: list[str] = []
    report = run_check(OPPONENT_SPEC, boards=[(4, 4, 4), (6, 7, 4)], timeout_s=10.0,
                       on_move=told.append, isolation="none")
    cap = long_limit_cap(10.0, 4)
    assert cap is not None
    assert all(g.record.n_moves <= cap for g in report.games)
    assert any(g.record.n_moves == cap for g in report.games)
    assert f"every game stops after {cap} moves ({cap // 2} of the bot's)" in report.text()
    assert told and told[0].startswith("game 1/4 (") and told[0].endswith(": 1 move played")
