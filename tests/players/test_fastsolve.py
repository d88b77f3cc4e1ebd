"""The compiled exact solver (`players._shared.fastsolve`) against the pure-Python reference
(`BitSearch.solve` through `PySolver`): the same scores after the same number of nodes, on
Pons' positions (tests/data/pons; a sample in `make test`, all of them with CXARENA_PONS_ALL=1)
and on other board sizes and K; node budgets and the table bound behave alike."""

from __future__ import annotations

import os
import random

import pytest

from arena.board import CXBoard, CXGameState
from players._shared.bitboard import BitPosition
from players._shared.fastsolve import HAVE_NUMBA, FastSolver, PySolver, available, make_solver
from tests.helpers import L2, L3

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
STRIDE = 1 if os.environ.get("CXARENA_PONS_ALL") == "1" else 25


def _pos(M: int, N: int, K: int, moves: list[int]) -> tuple[int, int, int]:
    p = BitPosition.from_board(CXBoard.from_moves(M, N, K, moves))
    return p.current, p.mask, p.moves


@pytest.mark.parametrize("name, positions", [("Test_L3_R1", L3), ("Test_L2_R1", L2)])
def test_same_scores_and_nodes_as_the_reference_on_pons_positions(name, positions):
    fast, ref = FastSolver(6, 7, 4), PySolver(6, 7, 4)
    for moves, expected in positions[::STRIDE]:
        fast.clear()
        ref.clear()
        a = _pos(6, 7, 4, moves)
        got, want = fast.solve(*a), ref.solve(*a)
        assert got == want, (name, moves)
        assert got is not None and got[0] == expected


def test_table_kept_between_positions_gives_the_same_answers():
    """Like the reference test: one table for a run of positions (entries of earlier positions
    steer the move order), still the same scores and nodes."""
    fast, ref = FastSolver(6, 7, 4), PySolver(6, 7, 4)
    for moves, _ in L2[:40]:
        a = _pos(6, 7, 4, moves)
        assert fast.solve(*a) == ref.solve(*a)
    assert fast.nodes == ref.nodes


@pytest.mark.parametrize("M, N, K, plies", [(4, 5, 4, 4), (5, 5, 4, 6), (4, 4, 3, 3),
                                           (5, 6, 5, 20), (6, 4, 4, 6), (7, 7, 4, 30)])
def test_same_scores_and_nodes_on_other_boards(M, N, K, plies):
    """Other sizes and K (the general win-cell formula for K != 4), a small table bound so
    that it is emptied during the search, both ways alike."""
    rng = random.Random(M * 100 + N * 10 + K)
    fast, ref = FastSolver(M, N, K, tt_entries=500), PySolver(M, N, K, tt_entries=500)
    done = 0
    while done < 6:
        b = CXBoard(M, N, K)
        for _ in range(plies):
            b.markColumn(rng.choice(b.getAvailableColumns()))
            if b.gameState() is not CXGameState.OPEN:
                break
        if b.gameState() is not CXGameState.OPEN:
            continue
        p = BitPosition.from_board(b)
        a = (p.current, p.mask, p.moves)
        assert fast.solve(*a) == ref.solve(*a), (M, N, K)
        done += 1
    assert fast.nodes == ref.nodes


def test_node_budget_stops_and_the_next_call_finishes():
    moves = L2[0][0][:12]
    a = _pos(6, 7, 4, moves)
    for solver in (FastSolver(6, 7, 4), PySolver(6, 7, 4)):
        assert solver.solve(*a, node_limit=200) is None
        done = solver.solve(*a)
        assert done is not None


def test_outcome_after_agrees_with_solving_the_child():
    fast, ref = FastSolver(6, 7, 4), PySolver(6, 7, 4)
    for moves, score in L2[:60:3]:
        a = _pos(6, 7, 4, moves)
        outcome = (score > 0) - (score < 0)
        if outcome < 0:
            continue
        b = CXBoard.from_moves(6, 7, 4, moves)
        for col in b.getAvailableColumns():
            f = fast.outcome_after(*a, col, outcome)
            assert f == ref.outcome_after(*a, col, outcome)


def test_make_solver_falls_back_where_the_board_does_not_fit():
    assert available(7, 7) and not available(8, 8)
    assert make_solver(6, 7, 4).kind == "numba"
    assert make_solver(7, 8, 4).kind == "python"  # 8 * 8 bits: too wide for 62
    assert make_solver(6, 7, 4, prefer_compiled=False).kind == "python"
