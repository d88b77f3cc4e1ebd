"""Fault explanations in words, and the winning line (the game's, `Presentation.winning_cells`)."""

from __future__ import annotations

import dataclasses

import pytest

from arena.board import CXBoard, CXGameState
from arena.games import presentation_of
from arena.games.base import IllegalMoveError
from arena.games.connectx.game import ConnectX
from arena.records import GameRecord, Reason
from arena.report.explain import describe_end, fault_move, illegal_column
from tests.helpers import cx_record


def _rec(moves: tuple[int, ...] = (3, 3, 4), **kw: object) -> GameRecord:
    base = cx_record(M=6, N=7, K=4, p1="a", p2="b", names=("a", "b"), moves=moves,
                      times_ms=(1.0, 2.0, 3.0), winner=2, reason=Reason.TIMEOUT,
                      detail="", seed=5, offender=1)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def test_timeout_on_a_move() -> None:
    r = _rec(detail="selectColumn (move 4): no answer after 80.1 ms, over the 50 ms limit by "
                    "30.1 ms (grace 10 ms)", winner=1, offender=2)
    text = describe_end(r, "alice", "bob")
    assert text.startswith("bob (second player) lost on time on move 4: no answer after 80.1 ms")
    assert text.endswith("alice wins.")
    assert fault_move(r) == 4


def test_illegal_full_column_names_the_column() -> None:
    r = _rec(reason=Reason.ILLEGAL, detail="selectColumn (move 4): column 3 is full",
             winner=1, offender=2)
    assert "lost by an illegal move on move 4: column 3 is full" in describe_end(r)
    assert illegal_column(r) == 3
    out = _rec(reason=Reason.ILLEGAL, detail="selectColumn (move 4): column 9 is out of range "
                                             "0..6", winner=1, offender=2)
    assert illegal_column(out) == 9


def test_crashes_in_words() -> None:
    init = _rec(reason=Reason.CRASH, moves=(), times_ms=(),
                detail="initPlayer failed: ValueError: boom")
    assert "crashed in initPlayer (before the first move)" in describe_end(init)
    assert fault_move(init) is None
    start = _rec(reason=Reason.CRASH, moves=(), times_ms=(),
                 detail="failed to start: the bot exited with code 1")
    assert "a (first player) failed to start: the bot exited with code 1" in describe_end(start)
    mem = _rec(reason=Reason.CRASH, detail="selectColumn (move 4): the bot was killed by "
                                           "SIGKILL; out of memory (256 MiB)")
    assert "ran out of memory on move 4" in describe_end(mem)


def test_normal_ends() -> None:
    win = _rec(reason=Reason.CONNECT, winner=1, offender=None, moves=(0, 1, 0, 1, 0, 1, 0),
               times_ms=(0.0,) * 7)
    assert describe_end(win, "x", "y") == ("x (first player) wins: 4 in a row with move 7 "
                                           "(column 0).")
    draw = _rec(reason=Reason.DRAW, winner=None, offender=None)
    assert describe_end(draw).startswith("Draw: the board is full after 3 moves")
    cap = _rec(reason=Reason.DRAW, winner=None, offender=None,
               detail="stopped at the move cap (10 moves)")
    assert describe_end(cap) == "Draw: stopped at the move cap (10 moves)."


def _line(M: int, N: int, K: int, moves: list[int]) -> tuple[tuple[int, int], ...]:
    """The winning line as the report and `show` get it: from the record's game."""
    game = ConnectX(rows=M, cols=N, k=K)
    return presentation_of(game).winning_cells(game.play_texts([str(c) for c in moves]))


def _line_matches_board(M: int, N: int, K: int, moves: list[int]) -> bool:
    """Check the game's winning line against the rules; True if the last move won."""
    board = CXBoard.from_moves(M, N, K, moves)
    line = _line(M, N, K, moves)
    if board.gameState() in (CXGameState.WINP1, CXGameState.WINP2):
        assert len(line) >= K
        last = board.getLastMove()
        assert last is not None and (last.i, last.j) in line
        owner = board.getBoard()
        assert {int(owner[i][j]) for i, j in line} == {int(last.state)}
        return True
    assert line == ()
    return False


def test_winning_lines_in_every_direction() -> None:
    assert _line_matches_board(6, 7, 4, [0, 0, 1, 1, 2, 2, 3])  # across
    assert _line_matches_board(6, 7, 4, [0, 1, 0, 1, 0, 1, 0])  # down
    assert _line_matches_board(6, 7, 4, [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3])  # diagonal /
    assert _line_matches_board(6, 7, 4, [6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3])  # diagonal \
    assert not _line_matches_board(6, 7, 4, [0, 1, 2])  # no win
    with pytest.raises(IllegalMoveError):  # an impossible move
        _line(4, 4, 4, [0, 0, 0, 0, 0])


def test_a_move_joining_two_runs_marks_all_of_them() -> None:
    moves = [0, 6, 1, 6, 3, 5, 2]  # X at 0, 1, 3 then 2: four across
    assert _line(6, 7, 4, moves) == ((5, 0), (5, 1), (5, 2), (5, 3))
