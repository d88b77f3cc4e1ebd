"""Checks shared by bots of one family, parametrised over the family: the Monte-Carlo bots
(`montecarlo`, `mcts`) and the search bots (`alphabeta`, `minimax`). What is particular to one
bot stays in its own test file."""

from __future__ import annotations

import gc
import random
import time

import pytest

from arena.board import CXBoard, CXGameState
from players.alphabeta import AlphaBeta
from players.L0 import L0
from players.L1 import L1
from players.mcts import MCTS
from players.minimax import Minimax
from players.montecarlo import MonteCarlo
from tests.conftest import ALL_BOARDS, COMPETITION
from tests.helpers import make, play_game
from tests.tactics import random_position

MONTE_CARLO = [MonteCarlo, MCTS]
SEARCH = [AlphaBeta, Minimax]
#: a bound that only catches a bot that does not stop at all (timing is the benchmarks' job)
HANG_S = 5.0


# ------------------------------------------------------------------------ Monte-Carlo bots
@pytest.mark.parametrize("cls", MONTE_CARLO)
def test_monte_carlo_always_legal_on_every_competition_board(cls):
    """Empty and nearly full positions of every competition board; two moves in a row
    (MCTS may reuse its tree for the second); the handed board is not the bot's concern."""
    rng = random.Random(4)
    for M, N, K in COMPETITION:
        for max_moves in (0, M * N - 1):
            B = random_position(M, N, K, rng, max_moves)
            p = make(cls, B, rng.randrange(10**6), playouts=20)
            for _ in range(2):
                c = p.selectColumn(B.copy())
                assert isinstance(c, int) and c in B.getAvailableColumns()
                if B.markColumn(c) is not CXGameState.OPEN:
                    break
                if B.markColumn(rng.choice(B.getAvailableColumns())) is not CXGameState.OPEN:
                    break


@pytest.mark.parametrize("cls", MONTE_CARLO)
@pytest.mark.parametrize("board", [(6, 7, 4), (50, 50, 10), (100, 100, 30)])
def test_monte_carlo_stops_with_the_real_clock(cls, board):
    """Using the clock (no playouts option) it stops and answers legally, also on 100x100,
    where one playout can take longer than the budget."""
    rng = random.Random(12)
    B = random_position(*board, rng, max_moves=board[0] * board[1] // 3)
    p = make(cls, B, 5, timeout_s=0.5)
    start = time.perf_counter()
    c = p.selectColumn(B.copy())
    assert time.perf_counter() - start < HANG_S
    assert c in B.getAvailableColumns()


@pytest.mark.parametrize("cls", MONTE_CARLO)
def test_monte_carlo_same_seed_and_playouts_give_the_same_move(cls):
    B = CXBoard.from_moves(6, 7, 4, [3, 2, 3])
    moves = {make(cls, B, 42, playouts=400).selectColumn(B.copy()) for _ in range(3)}
    assert len(moves) == 1


@pytest.mark.parametrize("cls", MONTE_CARLO)
def test_monte_carlo_search_leaves_gc_as_it_was(cls):
    B = CXBoard(6, 7, 4)
    assert gc.isenabled()
    make(cls, B, playouts=50).selectColumn(B)
    assert gc.isenabled()


@pytest.mark.parametrize("cls, games", [
    (MonteCarlo, [(seed, opp, 700) for seed in range(4) for opp in (L0, L1)]),
    (MCTS, [(0, L0, 300), (1, L0, 300), (2, L0, 300), (3, L0, 300), (4, L1, 1500),
            (5, L1, 1500)]),
])
def test_monte_carlo_beats_l0_and_l1_in_seeded_games(cls, games):
    """Fixed playouts and seeds: the same games every run, so this cannot flake."""
    lost = []
    for seed, opp, playouts in games:
        B = CXBoard(6, 7, 4)
        first = seed % 2 == 0
        me = make(cls, B, seed, first=first, playouts=playouts)
        them = make(opp, B, seed + 100, first=not first)
        state = play_game(*((me, them) if first else (them, me)), B)
        if state is not (CXGameState.WINP1 if first else CXGameState.WINP2):
            lost.append((opp.__name__, seed, state))
    assert not lost


# --------------------------------------------------------------------------- search bots
@pytest.mark.parametrize("cls", SEARCH)
def test_search_never_answers_an_illegal_column_on_any_board(cls):
    """Random positions (nearly empty, nearly full) of every board, with a 50 ms limit: the search
    is cut short at every depth, the grid engine sometimes cannot even catch up with the game
    (fallback), and the answer is always legal; the handed board is left as it was."""
    rng = random.Random(8)
    for M, N, K in ALL_BOARDS:
        for fill in (0.05, 0.9):
            b = random_position(M, N, K, rng, max_moves=int(fill * M * N))
            before = b.copy()
            c = make(cls, b, rng.randrange(1000), timeout_s=0.05).selectColumn(b)
            assert isinstance(c, int) and c in before.getAvailableColumns(), (M, N, K)
            assert b == before


@pytest.mark.parametrize("cls", SEARCH)
@pytest.mark.parametrize("board", [(6, 7, 4), (7, 7, 5), (20, 20, 10), (100, 100, 30)])
def test_search_stops_with_the_real_clock(cls, board):
    """0.5 s per move: on the first move and in a busy position the bot stops by its own clock
    after at least one full iteration (or a book move) and answers legally."""
    M, N, K = board
    for b in (CXBoard(M, N, K), random_position(M, N, K, random.Random(1), max_moves=60)):
        p = make(cls, b, timeout_s=0.5)
        start = time.perf_counter()
        c = p.selectColumn(b.copy())
        assert time.perf_counter() - start < HANG_S
        assert c in b.getAvailableColumns()
        r = p.last_result
        assert r is not None and (r.depth >= 1 or r.nodes == 0)


@pytest.mark.parametrize("cls", SEARCH)
def test_search_same_seed_same_move_where_the_seed_is_used(cls):
    """On boards over 64 cells the grid engines key their tables with seeded Zobrist numbers:
    at a fixed depth (no clock) the same seed gives the same move, in fresh bots."""
    rng = random.Random(9)
    for M, N, K in [(20, 20, 10), (9, 9, 5)]:
        for _ in range(3):
            b = random_position(M, N, K, rng, max_moves=20)
            answers = {make(cls, b, 7, timeout_s=30.0, max_depth=3).selectColumn(b.copy())
                       for _ in range(2)}
            assert len(answers) == 1
