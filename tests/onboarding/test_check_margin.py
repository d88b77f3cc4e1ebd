"""check-bot's verdict on how close the answers came to the limit (`conformance._judge`).

By default (issue 51) a bot fails only what a game would charge: a slowest move (or
initPlayer) that leaves less than `JITTER_FACTOR` times the machine's measured overhead (the
opponent's slowest answer, at least `MIN_MARGIN_MS`) before the limit plus its grace; a bot at
95 % passes with the warning above `WARN_FRACTION`. With the strict rule (`--strict-time`) a bot
whose slowest answer is over `FAIL_FRACTION` (90 %) of its limit fails. Either failure names the
figure of each board, with advice in its own language's words (a Java bot's: leave a margin the
course's tester does not ask for)."""

from __future__ import annotations

from arena.entrants.specs import Kind
from arena.onboarding.conformance import (
    FAIL_FRACTION,
    JITTER_FACTOR,
    MIN_MARGIN_MS,
    WARN_FRACTION,
    CheckGame,
    CheckReport,
    _judge,
)
from arena.records import Reason
from arena.referee.referee import course_game
from tests.helpers import cx_record

LIMIT_S = 0.5


def _game(board: tuple[int, int, int], bot_ms: float, init_ms: float = 1.0,
          opponent_ms: float = 1.0) -> CheckGame:
    """A game the bot (first) played with its slowest move `bot_ms` and its other moves 1 ms;
    the opponent's slowest answer `opponent_ms`."""
    times = (1.0, 1.0, bot_ms, opponent_ms, 1.0, 1.0)
    rec = cx_record(M=board[0], N=board[1], K=board[2], p1="bot.py", p2="L0",
                     names=("Bot", "L0"), moves=(0, 1, 0, 1, 0, 1), times_ms=times, winner=None,
                     reason=Reason.DRAW, detail="", seed=1, init_ms=(init_ms, 1.0),
                     extra={"startup_ms": [300.0, None]})
    return CheckGame(course_game(*board), True, rec, 1.0)


def _verdict(slowest_ms: float, kind: Kind = Kind.PYTHON, init_ms: float = 1.0, *,
             strict: bool = True, opponent_ms: float = 1.0) -> CheckReport:
    games = [_game((4, 4, 4), 12.0), _game((6, 7, 4), slowest_ms, init_ms, opponent_ms)]
    return _judge("bot.py", LIMIT_S, 0.3, "", 30.0, games, "given", 1.0, 60, kind=kind,
                  grace_s=GRACE_S, strict=strict)


GRACE_S = 0.010


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


# ----------------------------------------------------------------- the default rule
def test_a_time_manager_at_95_percent_passes_with_the_warning() -> None:
    """A bot that stops at 95 % of its limit (as the course's tester accepts) is never charged
    by a game on a machine whose overhead is 1 ms: it passes, told to leave more margin."""
    rep = _verdict(0.95 * LIMIT_S * 1000, strict=False)
    assert rep.passed, rep.failures
    (warning,) = rep.warnings
    assert "80%" in warning and "6x7x4 475 ms = 95%" in warning
    assert "Deadline.for_move" in warning  # today's advice
    assert not _verdict(0.95 * LIMIT_S * 1000, strict=True).passed  # the strict rule


def test_a_move_a_game_would_charge_fails() -> None:
    """Past the limit plus the grace (a timeout), or too close to it for this machine."""
    charge_ms = (LIMIT_S + GRACE_S) * 1000
    for ms in (charge_ms + 1, charge_ms - MIN_MARGIN_MS / 2):
        rep = _verdict(ms, strict=False)
        assert not rep.passed, ms
        assert "before a game charges a timeout (at 510 ms" in rep.failures[0]


def test_the_margin_needed_grows_with_the_machines_overhead() -> None:
    """The same 97 % move passes where the opponent answered within 1 ms, and fails where the
    machine added 9 ms to an instant answer (3 x 9 ms > the 25 ms left)."""
    ms = 0.97 * LIMIT_S * 1000
    assert _verdict(ms, strict=False, opponent_ms=1.0).passed
    slow = _verdict(ms, strict=False, opponent_ms=9.0)
    assert not slow.passed
    assert f"less than {JITTER_FACTOR * 9:.0f} ms" in slow.failures[0]
    assert "vary by up to 9.0 ms" in slow.failures[0]
