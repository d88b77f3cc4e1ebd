"""The Connect-X rules (`arena.board`): examples at every edge, errors, undo, and properties
checked against an independent brute-force referee (tests/brute.py) on all the boards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.board import (
    ColumnFullError,
    ColumnOutOfRangeError,
    CXBoard,
    CXCell,
    CXCellState,
    CXGameState,
    CXMoveError,
    GameOverError,
    NoMoveToUndoError,
)
from tests.brute import brute_play, brute_winner
from tests.conftest import ALL_BOARDS


def snapshot(b: CXBoard) -> tuple:
    return (b.getBoard().tolist(), b.currentPlayer(), b.getMarkedCells(), b.gameState(),
            b.getAvailableColumns(), b.bitboards, b.numOfFreeCells(), b.getLastMove())


def play(b: CXBoard, cols: list[int]) -> CXGameState:
    state = b.gameState()
    for c in cols:
        state = b.markColumn(c)
    return state


# --------------------------------------------------------------- layout and basics
def test_pieces_fall_to_the_bottom_row_and_p1_moves_first():
    b = CXBoard(6, 7, 4)
    assert b.currentPlayer() == 0
    b.markColumn(3)
    assert b.cellState(5, 3) is CXCellState.P1
    assert b.getLastMove() == CXCell(5, 3, CXCellState.P1)
    b.markColumn(3)
    assert b.cellState(4, 3) is CXCellState.P2
    assert b.currentPlayer() == 0
    assert b.numOfMarkedCells() == 2 and b.numOfFreeCells() == 40
    assert b.getMarkedCells() == [CXCell(5, 3, CXCellState.P1), CXCell(4, 3, CXCellState.P2)]
    grid = b.getBoard()
    assert grid.shape == (6, 7) and grid[5, 3] == CXCellState.P1 and grid[4, 3] == 2
    grid[0, 0] = 1  # a copy: the board is unaffected
    assert b.cellState(0, 0) is CXCellState.FREE


def test_empty_board():
    b = CXBoard(4, 5, 3)
    assert b.getLastMove() is None and b.getMarkedCells() == []
    assert b.getAvailableColumns() == [0, 1, 2, 3, 4]
    assert b.gameState() is CXGameState.OPEN
    assert b.getBoard().sum() == 0


# --------------------------------------------------------------- wins in every direction
def line_sequence(M: int, N: int, K: int, cells: list[tuple[int, int]],
                  tries: int = 300) -> list[int] | None:
    """A legal move sequence in which P1 completes the line `cells` with its last move and
    nobody has K in a row before, or None if none was found. P1 takes the line cells lowest
    first; the cells under them, and the moves of a player with nothing useful to do, go to
    random columns (retried with other random choices until nobody wins early)."""
    rng = random.Random(hash((M, N, K, tuple(cells))))
    for _ in range(tries):
        seq = _try_line(M, N, K, cells, rng)
        if seq is not None:
            return seq
    return None


def _try_line(M, N, K, cells, rng):
    target = set(cells)
    heights = [0] * N
    grid = [[0] * N for _ in range(M)]
    moves: list[int] = []
    turn = 1

    def top(j: int) -> int:
        return M - 1 - heights[j]

    def drop(j: int) -> bool:
        nonlocal turn
        grid[top(j)][j] = turn
        heights[j] += 1
        moves.append(j)
        turn = 3 - turn
        return brute_winner(grid, K) != 0

    def spare(prefer: int | None) -> int | None:
        """A column whose next cell is off the line (prefer `prefer`)."""
        cols = [j for j in range(N) if heights[j] < M and (top(j), j) not in target]
        if prefer in cols and rng.random() < 0.7:
            return prefer
        return rng.choice(cols) if cols else None

    for n, (i, j) in enumerate(sorted(cells, key=lambda c: -c[0])):
        while top(j) > i or turn == 2:
            col = spare(j if top(j) > i else None)
            if col is None or drop(col):
                return None
        if drop(j) and n < K - 1:
            return None
    return moves if brute_winner(grid, K) == 1 else None


@pytest.mark.parametrize("M,N,K", [(6, 7, 4), (5, 5, 4), (4, 7, 5), (7, 5, 5), (1, 7, 4),
                                   (7, 1, 4), (12, 12, 10)])
def test_every_line_of_k_anywhere_wins_at_its_last_piece(M, N, K):
    """Every placement of a K-line in every direction, anchored at every cell (edges and
    corners included), wins exactly when its last piece lands."""
    built = {d: 0 for d in ((0, 1), (1, 0), (1, 1), (1, -1))}
    for di, dj in built:
        for i0 in range(M):
            for j0 in range(N):
                cells = [(i0 + t * di, j0 + t * dj) for t in range(K)]
                if not all(0 <= i < M and 0 <= j < N for i, j in cells):
                    continue
                seq = line_sequence(M, N, K, cells)
                if seq is None:
                    continue
                b = CXBoard(M, N, K)
                states = [b.markColumn(c) for c in seq]
                assert states[-1] is CXGameState.WINP1, (M, N, K, cells, seq)
                assert all(s is CXGameState.OPEN for s in states[:-1])
                built[(di, dj)] += 1
    # every placement is built, except vertical lines on a one-column board (impossible)
    possible = {(0, 1): M * max(0, N - K + 1), (1, 0): N * max(0, M - K + 1) if N > 1 else 0,
                (1, 1): max(0, M - K + 1) * max(0, N - K + 1)}
    possible[(1, -1)] = possible[(1, 1)]
    assert built == possible


def test_horizontal_win_at_both_edges_and_corners():
    b = CXBoard(6, 7, 4)  # bottom-left corner to the right
    assert play(b, [0, 0, 1, 1, 2, 2, 3]) is CXGameState.WINP1
    b = CXBoard(6, 7, 4)  # bottom-right corner, P2 wins
    assert play(b, [0, 6, 0, 5, 1, 4, 0, 3]) is CXGameState.WINP2


def test_vertical_win_reaching_the_top_row():
    b = CXBoard(4, 4, 4)
    assert play(b, [0, 1, 0, 1, 0, 1, 0]) is CXGameState.WINP1
    assert b.getLastMove() == CXCell(0, 0, CXCellState.P1)


def test_diagonals_both_ways():
    b = CXBoard(6, 7, 4)  # / from (5,0) to (2,3)
    assert play(b, [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3]) is CXGameState.WINP1
    b = CXBoard(6, 7, 4)  # \ from (2,3) to (5,6)
    assert play(b, [6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3]) is CXGameState.WINP1


def test_more_than_k_in_a_row_also_wins():
    b = CXBoard(1, 7, 3)  # one row: X X . X X then filling the gap makes five
    assert play(b, [0, 6, 1, 5]) is CXGameState.OPEN
    b2 = CXBoard(2, 7, 3)
    assert play(b2, [0, 0, 1, 1, 3, 3, 4, 4]) is CXGameState.OPEN
    assert b2.markColumn(2) is CXGameState.WINP1  # 5 in a row through the middle


@pytest.mark.parametrize("col", [0, 1, 2])
def test_k1_first_piece_wins_anywhere(col):
    b = CXBoard(3, 3, 1)
    assert b.markColumn(col) is CXGameState.WINP1


def test_k5_and_k10():
    b = CXBoard(7, 7, 5)
    assert play(b, [0, 0, 1, 1, 2, 2, 3, 3]) is CXGameState.OPEN
    assert b.markColumn(4) is CXGameState.WINP1
    b = CXBoard(50, 50, 10)
    seq = []
    for j in range(9):
        seq += [j, j]
    assert play(b, seq) is CXGameState.OPEN
    assert b.markColumn(9) is CXGameState.WINP1


def test_one_row_and_one_column_boards():
    b = CXBoard(1, 5, 3)
    assert play(b, [0, 1, 2, 3]) is CXGameState.OPEN
    assert b.markColumn(4) is CXGameState.DRAW
    b = CXBoard(5, 1, 3)
    assert play(b, [0, 0, 0, 0]) is CXGameState.OPEN
    assert b.markColumn(0) is CXGameState.DRAW
    b = CXBoard(1, 1, 1)
    assert b.markColumn(0) is CXGameState.WINP1


def test_draw_on_a_full_board():
    # 4x4x4 filled column pairs in an order that never connects four
    b = CXBoard(4, 4, 4)
    seq = [0, 1, 0, 1, 1, 0, 1, 0, 2, 3, 2, 3, 3, 2, 3, 2]
    states = [b.markColumn(c) for c in seq]
    assert states[-1] is CXGameState.DRAW and all(s is CXGameState.OPEN for s in states[:-1])
    assert b.getAvailableColumns() == [] and b.numOfFreeCells() == 0


# --------------------------------------------------------------- errors leave it unchanged
@pytest.mark.parametrize("bad", [-1, 7, 100, 2.0, "3", None, True])
def test_column_out_of_range_or_not_an_int(bad):
    b = CXBoard.from_moves(6, 7, 4, [3, 3])
    before = snapshot(b)
    with pytest.raises(ColumnOutOfRangeError):
        b.markColumn(bad)
    assert snapshot(b) == before


def test_full_column():
    b = CXBoard.from_moves(2, 3, 3, [1, 1])
    before = snapshot(b)
    with pytest.raises(ColumnFullError):
        b.markColumn(1)
    assert snapshot(b) == before and b.fullColumn(1) and not b.fullColumn(0)


def test_game_over():
    b = CXBoard.from_moves(6, 7, 4, [0, 1, 0, 1, 0, 1, 0])
    before = snapshot(b)
    with pytest.raises(GameOverError):
        b.markColumn(5)
    assert snapshot(b) == before
    assert issubclass(GameOverError, CXMoveError) and issubclass(CXMoveError, ValueError)


def test_numpy_integer_column_is_accepted():
    b = CXBoard(6, 7, 4)
    b.markColumn(np.int64(2))
    assert b.moves() == [2]


def test_unmark_without_moves():
    with pytest.raises(NoMoveToUndoError):
        CXBoard(6, 7, 4).unmarkColumn()


@pytest.mark.parametrize("M,N,K", [(0, 5, 3), (5, 0, 3), (4, 4, 5), (4, 4, 0), (6, 7, -1),
                                   (6.0, 7, 4), (True, 7, 1)])
def test_bad_sizes_are_value_errors(M, N, K):
    with pytest.raises(ValueError):
        CXBoard(M, N, K)


def test_largest_boards_are_accepted():
    b = CXBoard(100, 100, 30)
    b.markColumn(99)
    assert b.cellState(99, 99) is CXCellState.P1
    CXBoard(7, 100, 100)  # K may equal max(M, N)


def test_copy_is_independent():
    b = CXBoard.from_moves(6, 7, 4, [3, 2])
    c = b.copy()
    c.markColumn(3)
    c.unmarkColumn()
    c.markColumn(4)
    assert b.moves() == [3, 2] and c.moves() == [3, 2, 4]
    assert b.cellState(5, 4) is CXCellState.FREE


def test_unmark_reopens_a_won_game():
    b = CXBoard.from_moves(6, 7, 4, [0, 1, 0, 1, 0, 1])
    before = snapshot(b)
    assert b.markColumn(0) is CXGameState.WINP1
    b.unmarkColumn()
    assert snapshot(b) == before


# --------------------------------------------------------------- properties
@st.composite
def random_game(draw):
    M, N, K = draw(st.sampled_from(ALL_BOARDS))
    seed_moves = draw(st.lists(st.integers(0, 10**6), min_size=1,
                               max_size=min(M * N, 120)))
    return M, N, K, seed_moves


@settings(max_examples=300, deadline=None)
@given(random_game())
def test_mark_matches_brute_force_and_unmark_restores(game):
    """Over random games on every board: each markColumn result equals a brute-force scan of
    the whole board, and each unmarkColumn restores the exact previous state."""
    M, N, K, choices = game
    b = CXBoard(M, N, K)
    played: list[int] = []
    for x in choices:
        if b.gameState() is not CXGameState.OPEN:
            break
        avail = b.getAvailableColumns()
        c = avail[x % len(avail)]
        before = snapshot(b)
        state = b.markColumn(c)
        played.append(c)
        grid, expected = brute_play(M, N, K, played)
        assert b.getBoard().tolist() == grid
        assert state is {"open": CXGameState.OPEN, "draw": CXGameState.DRAW,
                         "win1": CXGameState.WINP1, "win2": CXGameState.WINP2}[expected]
        b.unmarkColumn()
        assert snapshot(b) == before
        b.markColumn(c)
    # the whole history undoes to the empty board
    while b.numOfMarkedCells():
        b.unmarkColumn()
    assert snapshot(b) == snapshot(CXBoard(M, N, K))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([(4, 4, 4), (5, 4, 4), (4, 5, 4), (4, 4, 3), (3, 3, 3), (2, 5, 2)]),
       st.randoms(use_true_random=False))
def test_random_full_games_on_small_boards_end_like_brute_force(board, rnd):
    M, N, K = board
    b = CXBoard(M, N, K)
    played = []
    while b.gameState() is CXGameState.OPEN:
        c = rnd.choice(b.getAvailableColumns())
        b.markColumn(c)
        played.append(c)
    _, expected = brute_play(M, N, K, played)
    assert expected == {CXGameState.DRAW: "draw", CXGameState.WINP1: "win1",
                        CXGameState.WINP2: "win2"}[b.gameState()]
