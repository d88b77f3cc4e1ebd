"""The minimax bot: its search equals a naive full-width negamax (same values, same node count:
no pruning), it is exact at full depth, takes wins, blocks threats, is always legal and on time.
"""

from __future__ import annotations

import math
import random

import pytest

from arena.board import CXBoard, CXGameState
from players._shared.common import immediate_wins
from players._shared.heuristic import bound
from players._shared.minimax import BitMinimax, GridMinimax
from players.minimax import Minimax
from tests.helpers import WINS, make, naive_solve, naive_value
from tests.tactics import random_position


def naive_root(b: CXBoard, depth: int, scale: int) -> dict[int, int]:
    """Values of every root move of an open position (child values negated), naively."""
    out = {}
    for c in b.getAvailableColumns():
        state = b.markColumn(c)
        if state in WINS:
            out[c] = (1 + (b.M * b.N - b.numOfMarkedCells()) // 2) * scale
        elif state is CXGameState.DRAW:
            out[c] = 0
        else:
            out[c] = -naive_value(b, depth - 1, scale)
        b.unmarkColumn()
    return out


def calls(b: CXBoard, depth: int) -> int:
    """How many positions a full-width search of `depth` visits from b (b included; moves
    that win end the line without a visit)."""
    n = 1
    if depth > 0 and b.numOfFreeCells():
        for c in b.getAvailableColumns():
            if b.markColumn(c) not in WINS:
                n += calls(b, depth - 1)
            b.unmarkColumn()
    return n


@pytest.mark.parametrize("board", [(4, 4, 4), (6, 7, 4), (5, 4, 5), (4, 5, 3)])
def test_values_and_node_count_equal_a_naive_full_width_search(board):
    M, N, K = board
    rng = random.Random(M + N + K)
    scale = bound(M, N, K)
    for _ in range(8):
        b = random_position(M, N, K, rng, max_moves=M * N // 2)
        cols = b.getAvailableColumns()
        for depth in (1, 2, 3):
            expected = naive_root(b, depth, scale)
            engine = BitMinimax(M, N, K)
            b1, b2 = b.bitboards
            engine.set_position(b2 if b.currentPlayer() else b1, b1 | b2, b.numOfMarkedCells())
            best, scores = engine.search_root(cols, depth)
            assert dict(zip(cols, scores, strict=True)) == expected
            assert expected[best] == max(expected.values())
            visits = 0
            for c in cols:
                if b.markColumn(c) not in WINS:
                    visits += calls(b, depth - 1)
                b.unmarkColumn()
            assert engine.nodes == visits  # no pruning
            grid = GridMinimax(M, N, K, radius=N)  # every column is a candidate
            assert grid.sync(b.moves(), math.inf)
            assert dict(zip(cols, grid.search_root(cols, depth)[1], strict=True)) == expected


def test_exact_at_full_depth_on_small_boards():
    rng = random.Random(3)
    memo: dict = {}
    checked = 0
    for _ in range(2000):
        b = random_position(4, 4, 4, rng, max_moves=16)
        if b.numOfFreeCells() > 8 or immediate_wins(b):
            continue
        p = make(Minimax, b, timeout_s=60.0)
        c = p.selectColumn(b.copy())
        r = p.last_result
        assert r is not None
        exact = naive_solve(b, memo)
        if r.depth > 0:
            assert r.proven or r.depth == b.numOfFreeCells()
            assert r.score == exact * bound(4, 4, 4)
        b.markColumn(c)
        if b.gameState() is CXGameState.OPEN:
            assert -naive_solve(b, memo) == exact
        checked += 1
        if checked == 25:
            break
    assert checked == 25

