"""check-bot's words name the student's real problem (issue #42, point 7): a syntax error once,
with the student's own lines and not the harness's frames; a slow initPlayer told where set-up
belongs; capped big games without internal names."""

from __future__ import annotations

from pathlib import Path

from arena.onboarding.conformance import CheckGame, _judge, _startup_error
from arena.records import GameRecord, Reason
from arena.referee.referee import FAILED_TO_START, course_game
from tests.helpers import cx_record

ARENA = str(Path(__file__).resolve().parents[2] / "arena")

TAIL = f"""Traceback (most recent call last):
  File "{ARENA}/entrants/host.py", line 12, in main
    host = Host(target)
  File "{ARENA}/entrants/loading.py", line 45, in find_player_class
    module = import_bot_module(spec)
  File "<frozen importlib._bootstrap_external>", line 936, in exec_module
  File "/home/student/players/syn.py", line 2
    class B(CXPlayer)
                     ^
SyntaxError: expected ':'"""

DETAIL = (f"{FAILED_TO_START}: cannot load bot 'players.syn': raised SyntaxError: expected ':' "
          f"(syn.py, line 2); its stdout: \"error cannot load bot 'players.syn': raised "
          f"SyntaxError: expected ':' (syn.py, line 2)\"; its stderr: 'Traceback (most recent "
          f"call last):' ... \"SyntaxError: expected ':'\" (23 lines)")


def _rec(reason: Reason, detail: str, tail: str = "", board: tuple[int, int, int] = (4, 4, 4),
         moves: tuple[int, ...] = (0, 1)) -> GameRecord:
    return cx_record(M=board[0], N=board[1], K=board[2], p1="bot.py", p2="L0",
                      names=("Bot", "L0"), moves=moves, times_ms=(5.0,) * len(moves),
                      winner=2 if reason in (Reason.CRASH, Reason.TIMEOUT) else None,
                      reason=reason, detail=detail, seed=1, offender=1 if reason in (
                          Reason.CRASH, Reason.TIMEOUT) else None, stderr_tail=tail)


def test_a_syntax_error_is_said_once_with_the_students_lines_only() -> None:
    text = _startup_error(CheckGame(course_game(4, 4, 4), True,
                                    _rec(Reason.CRASH, DETAIL, TAIL), 0.5), 30.0)
    assert text.count("expected ':'") == 2  # the summary, and the traceback's last line
    assert "its stdout" not in text
    assert ARENA not in text and "<frozen" not in text
    assert 'File "/home/student/players/syn.py", line 2' in text


def test_a_tail_cut_before_its_header_loses_the_harness_frames_too() -> None:
    """The stored stderr tail is bounded: a real syntax error's tail began in the middle of
    the harness's frames, without "Traceback", and was shown whole (issue #42, point 7)."""
    cut = "\n".join(TAIL.splitlines()[3:])  # from the middle of the harness's frames
    assert not cut.startswith("Traceback")
    text = _startup_error(CheckGame(course_game(4, 4, 4), True,
                                    _rec(Reason.CRASH, DETAIL, cut), 0.5), 30.0)
    assert ARENA not in text and "<frozen" not in text
    assert "the harness's frames left out" in text
    assert 'File "/home/student/players/syn.py", line 2' in text
    assert text.rstrip().endswith("SyntaxError: expected ':'")


def test_a_slow_initplayer_is_told_where_set_up_belongs() -> None:
    rec = _rec(Reason.TIMEOUT, "initPlayer: no answer after 1011.2 ms, over the 1000 ms limit "
                               "by 11.2 ms (grace 10 ms)", moves=())
    rep = _judge("bot.py", 1.0, 0.4, "", 30.0, [CheckGame(course_game(4, 4, 4), True, rec, 1.0)],
                 "given", 1.0, 60)
    (failure,) = rep.failures
    assert "at import" in failure and "start-up limit" in failure
    assert "Deadline.for_move" not in failure


def test_capped_games_are_said_without_internal_names() -> None:
    from arena.referee.referee import MOVE_CAP_DETAIL

    rec = _rec(Reason.DRAW, f"{MOVE_CAP_DETAIL} (12 moves)", board=(50, 50, 10))
    rep = _judge("bot.py", 1.0, 0.4, "", 30.0,
                 [CheckGame(course_game(50, 50, 10), True, rec, 1.0)], "given", 1.0, 12)
    (note,) = [n for n in rep.notes if "stop after" in n]
    assert "Game.cost()" not in note and "50x50x10" in note and "--max-moves" in note
