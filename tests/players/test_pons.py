"""alphabeta's exact search against Pascal Pons' Connect 4 benchmark positions (6x7, K=4).

Data: tests/data/pons (a copy of two of Pons' public test sets, see its README): each line is a
game so far (1-based columns) and the exact score of the position for the side to move.
"""

from __future__ import annotations

import os

import pytest

from arena.board import CXBoard
from players._shared.bitboard import BitPosition
from players._shared.search import BitSearch
from players.alphabeta import AlphaBeta
from tests.helpers import L2, L3


def test_data_files_are_complete():
    assert len(L3) == 1000 and len(L2) == 1000
    assert all(len(m) > 28 for m, _ in L3)
    assert all(14 <= len(m) <= 28 for m, _ in L2)


@pytest.mark.parametrize("name, positions", [("Test_L3_R1", L3), ("Test_L2_R1", L2)])
def test_solve_returns_the_exact_score(name, positions):
    """No depth or time limit: the score of every position is Pons' (the table is kept from
    one position to the next, which must not change any answer)."""
    engine = BitSearch(6, 7, 4)
    wrong = []
    searched = 0
    for moves, expected in positions:
        score, nodes = engine.solve_board(moves)
        # no node only when the side to move wins at once (then the score is known outright)
        if nodes == 0:
            assert BitPosition.from_board(CXBoard.from_moves(6, 7, 4, moves)).winning_moves()
        else:
            searched += 1
        if score != expected:
            wrong.append(("".join(str(c + 1) for c in moves), expected, score))
    assert not wrong, f"{len(wrong)} wrong scores in {name}, e.g. {wrong[:5]}"
    assert searched > len(positions) // 2


def test_solve_with_a_fresh_table_each_time():
    """The same answers without any help from earlier positions (first 100 of Test_L2_R1)."""
    for moves, expected in L2[:100]:
        assert BitSearch(6, 7, 4).solve_board(moves)[0] == expected


def test_every_depth_limited_score_is_consistent_with_the_exact_one():
    """A depth-limited search that reports a proven result reports the exact score."""
    engine = BitSearch(6, 7, 4)
    checked = 0
    for moves, expected in L3[:200]:
        b = CXBoard.from_moves(6, 7, 4, moves)
        b1, b2 = b.bitboards
        cur = b2 if b.currentPlayer() else b1
        for depth in (1, 3, 6):
            r = engine.best_move(cur, b1 | b2, len(moves), float("inf"), max_depth=depth)
            if r.proven and r.depth > 0 and abs(r.score) >= engine.scale:
                assert r.score == expected * engine.scale, (moves, depth, r)
                checked += 1
    assert checked >= 50  # end-game positions: many shallow searches prove their result (76)


#: every STRIDE-th position of a set in `make test` (keeps the suite under 10 minutes);
#: CXARENA_PONS_ALL=1 checks every position
STRIDE = 1 if os.environ.get("CXARENA_PONS_ALL") == "1" else 12


@pytest.mark.parametrize("name, positions, count", [("Test_L3_R1", L3, 327),
                                                     ("Test_L2_R1", L2, 548)])
def test_alphabeta_plays_a_winning_move_in_every_won_position(name, positions, count):
    """Positions with a positive score (327 of Test_L3_R1, 548 of Test_L2_R1; every STRIDE-th
    one): the bot (1 s per move) plays a move after which the opponent's exact score is
    negative."""
    won = [(m, s) for m, s in positions if s > 0]
    assert len(won) == count
    checker = BitSearch(6, 7, 4)
    bad = []
    for moves, _ in won[::STRIDE]:
        b = CXBoard.from_moves(6, 7, 4, moves)
        p = AlphaBeta()
        p.seed = 1
        p.initPlayer(6, 7, 4, b.currentPlayer() == 0, 1.0)
        col = p.selectColumn(b.copy())
        if b.markColumn(col).name.startswith("WIN"):
            continue  # won on the spot
        score, _ = checker.solve_board(moves + [col])
        if score >= 0:
            bad.append(("".join(str(c + 1) for c in moves), col + 1, score))
    assert not bad, f"{len(bad)} non-winning moves, e.g. {bad[:5]}"


@pytest.mark.parametrize("name, positions, count", [("Test_L3_R1", L3, 432),
                                                     ("Test_L2_R1", L2, 12)])
def test_alphabeta_keeps_the_draw_in_every_drawn_position(name, positions, count):
    """Positions scored 0 (every STRIDE-th one): the bot (1 s per move) plays a move after
    which the opponent cannot win (its exact score is <= 0)."""
    drawn = [m for m, s in positions if s == 0]
    assert len(drawn) == count
    checker = BitSearch(6, 7, 4)
    bad = []
    for moves in drawn[::STRIDE]:
        b = CXBoard.from_moves(6, 7, 4, moves)
        p = AlphaBeta()
        p.seed = 1
        p.initPlayer(6, 7, 4, b.currentPlayer() == 0, 1.0)
        col = p.selectColumn(b.copy())
        if b.markColumn(col).name == "OPEN" and checker.solve_board(moves + [col])[0] > 0:
            bad.append(("".join(str(c + 1) for c in moves), col + 1))
    assert not bad, f"{len(bad)} losing moves, e.g. {bad[:5]}"
