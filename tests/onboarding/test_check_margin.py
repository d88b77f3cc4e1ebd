"""check-bot's verdict on how close the answers came to the limit (`conformance._judge`): a bot
whose slowest move (or initPlayer) is over `FAIL_FRACTION` (90 %) of its limit fails, with the
figure of each board, and advice in its own language's words (a Java bot's: leave a margin the
course's tester does not ask for); above `WARN_FRACTION` it passes with a warning."""

from __future__ import annotations

from arena.entrants.specs import Kind
from arena.onboarding.conformance import (
    FAIL_FRACTION,
    WARN_FRACTION,
    CheckGame,
    CheckReport,
    _judge,
)
from arena.records import GameRecord, Reason
from arena.referee.referee import course_game

LIMIT_S = 0.5


def _game(board: tuple[int, int, int], bot_ms: float, init_ms: float = 1.0) -> CheckGame:
    """A game the bot (first) played with its slowest move `bot_ms` and its other moves 1 ms."""
    times = (1.0, 1.0, bot_ms, 1.0, 1.0, 1.0)
    rec = GameRecord(M=board[0], N=board[1], K=board[2], p1="bot.py", p2="L0",
                     names=("Bot", "L0"), moves=(0, 1, 0, 1, 0, 1), times_ms=times, winner=None,
                     reason=Reason.DRAW, detail="", seed=1, init_ms=(init_ms, 1.0),
                     extra={"startup_ms": [300.0, None]})
    return CheckGame(course_game(*board), True, rec, 1.0)


def _verdict(slowest_ms: float, kind: Kind = Kind.PYTHON, init_ms: float = 1.0) -> CheckReport:
    games = [_game((4, 4, 4), 12.0), _game((6, 7, 4), slowest_ms, init_ms)]
    return _judge("bot.py", LIMIT_S, 0.3, "", 30.0, games, "given", 1.0, 60, kind=kind)


def test_the_margins() -> None:
    assert FAIL_FRACTION == 0.9 and WARN_FRACTION < FAIL_FRACTION


def test_a_move_at_101_percent_of_the_limit_fails_with_its_board() -> None:
    rep = _verdict(505.0)
    assert not rep.passed
    (failure,) = rep.failures
    assert "101%" in failure and "6x7x4" in failure and "90%" in failure
    assert "Deadline.for_move" in failure  # a Python bot's advice
    assert "slowest move per board: 4x4x4 12 ms (2%), 6x7x4 505 ms (101%)" in rep.notes


def test_a_move_over_90_percent_fails() -> None:
    assert not _verdict(0.92 * LIMIT_S * 1000).passed


def test_a_move_above_the_warning_margin_passes_with_a_warning() -> None:
    ms = (WARN_FRACTION + FAIL_FRACTION) / 2 * LIMIT_S * 1000
    rep = _verdict(ms)
    assert rep.passed
    assert any("6x7x4" in w and "margin" in w for w in rep.warnings), rep.warnings


def test_a_fast_bot_has_neither() -> None:
    rep = _verdict(100.0)
    assert rep.passed and not rep.warnings


def test_a_slow_initplayer_fails_too() -> None:
    rep = _verdict(10.0, init_ms=480.0)
    assert not rep.passed
    assert "initPlayer" in rep.failures[0] and "96%" in rep.failures[0]


def test_a_java_bot_is_told_to_leave_a_margin_the_course_tester_does_not_need() -> None:
    rep = _verdict(480.0, kind=Kind.JAVA)
    (failure,) = rep.failures
    assert "CXPlayerTester" in failure and "timeout_in_secs" in failure
    assert "Deadline.for_move" not in failure


def test_a_program_gets_the_protocol_words() -> None:
    (failure,) = _verdict(480.0, kind=Kind.EXEC).failures
    assert "`go`" in failure and "Deadline.for_move" not in failure
