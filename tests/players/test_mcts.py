"""The Monte-Carlo tree search bot (`players.mcts`): tactics, legality, tree reuse, determinism,
the solver, and a seeded strength check."""

from __future__ import annotations

import gc
import random
import time

import pytest

from arena.board import CXBoard, CXGameState
from players.L0 import L0
from players.L1 import L1
from players.mcts import LOSS, MCTS, WIN, Node
from tests.conftest import COMPETITION
from tests.players.test_montecarlo import (
    make,
    play_game,
)
from tests.tactics import random_position


def test_always_legal_on_every_competition_board():
    rng = random.Random(4)
    for M, N, K in COMPETITION:
        for max_moves in (0, 12, M * N - 1):
            B = random_position(M, N, K, rng, max_moves)
            p = make(MCTS, B, rng.randrange(10**6), playouts=20)
            for _ in range(2):  # two moves in a row: the second may reuse the tree
                c = p.selectColumn(B.copy())
                assert isinstance(c, int) and c in B.getAvailableColumns()
                if B.markColumn(c) is not CXGameState.OPEN:
                    break
                if B.markColumn(rng.choice(B.getAvailableColumns())) is not CXGameState.OPEN:
                    break


@pytest.mark.parametrize("board", [(6, 7, 4), (50, 50, 10), (100, 100, 30)])
def test_legal_and_on_time_with_the_real_clock(board):
    """Using the clock (no playouts option) it answers in its budget (0.36 s of the 0.5 s
    limit); the bound asserted is loose, the point is that it stops at all on 100x100, where one
    playout can take longer than the budget."""
    rng = random.Random(12)
    B = random_position(*board, rng, max_moves=board[0] * board[1] // 3)
    p = make(MCTS, B, 5, timeout_s=0.5)
    start = time.perf_counter()
    c = p.selectColumn(B.copy())
    assert time.perf_counter() - start < 1.5
    assert c in B.getAvailableColumns()
    assert p.iterations > 0


def test_reuses_the_subtree_of_the_opponents_reply():
    B = CXBoard(6, 7, 4)
    bot = make(MCTS, B, 3, playouts=500)
    c = bot.selectColumn(B.copy())
    assert not bot.reused and bot.iterations == 500
    B.markColumn(c)
    assert bot.tree is not None and bot.tree.visits == 500
    ours = bot.tree.child(c)
    assert isinstance(ours, Node)
    reply = max(ours.children, key=lambda ch: ch.visits)
    carried = reply.visits
    assert carried > 0
    B.markColumn(reply.move)
    bot.selectColumn(B.copy())
    assert bot.reused and bot.iterations == 500
    assert bot.tree is reply and reply.visits == carried + 500  # the same node, searched further


def test_starts_a_new_tree_when_the_reply_is_not_in_it():
    B = CXBoard(6, 7, 4)
    bot = make(MCTS, B, 3, playouts=1)  # one iteration: nothing under our move
    B.markColumn(bot.selectColumn(B.copy()))
    B.markColumn(0)
    bot.playouts = 100
    bot.selectColumn(B.copy())
    assert not bot.reused and bot.iterations == 100
    # and when the board is not the continuation of our game
    other = CXBoard.from_moves(6, 7, 4, [0, 1, 2])
    old_tree = bot.tree
    bot.selectColumn(other.copy())
    assert not bot.reused and bot.tree is not old_tree


def test_same_seed_and_playouts_give_the_same_move_and_tree():
    B = CXBoard.from_moves(6, 7, 4, [3, 2, 3])
    runs = set()
    for _ in range(3):
        bot = make(MCTS, B, 42, playouts=600)
        c = bot.selectColumn(B.copy())
        assert bot.tree is not None
        runs.add((c, tuple((ch.move, ch.visits, ch.score) for ch in bot.tree.children)))
    assert len(runs) == 1


def test_solver_proves_the_open_three_win():
    """X to move makes an open three on the bottom row (column 1 or 4): a win in 3 plies, which
    the search proves (MCTS-Solver) and plays."""
    B = CXBoard.from_moves(6, 7, 4, [3, 3, 2, 2])
    bot = make(MCTS, B, 9, playouts=3000)
    c = bot.selectColumn(B.copy())
    assert c in (1, 4)
    assert bot.tree is not None and bot.tree.proven == LOSS  # for O, who moved into the root
    assert bot.iterations < 3000  # the search stopped once the root was proven
    assert bot.tree.child(c).proven == WIN


def test_solver_sees_the_open_three_coming():
    """O to move must stop X's open three before it exists (1 or 4); every other move is proven
    lost once searched deep enough."""
    B = CXBoard.from_moves(6, 7, 4, [3, 3, 2])
    bot = make(MCTS, B, 9, playouts=1000)
    assert bot.selectColumn(B.copy()) in (1, 4)
    assert bot.tree is not None
    assert {ch.move for ch in bot.tree.children if ch.proven == LOSS} == {0, 2, 3, 5, 6}


def test_search_leaves_gc_as_it_was():
    B = CXBoard(6, 7, 4)
    assert gc.isenabled()
    make(MCTS, B, playouts=50).selectColumn(B)
    assert gc.isenabled()


def test_beats_l0_and_l1_in_seeded_games():
    """Fixed iterations and seeds: the same games every run, so this cannot flake."""
    lost = []
    for seed, opp, iterations in [(0, L0, 300), (1, L0, 300), (2, L0, 300), (3, L0, 300),
                                  (4, L1, 1500), (5, L1, 1500)]:
        B = CXBoard(6, 7, 4)
        first = seed % 2 == 0
        me = make(MCTS, B, seed, first=first, playouts=iterations)
        them = make(opp, B, seed + 100, first=not first)
        state = play_game(*((me, them) if first else (them, me)), B)
        if state is not (CXGameState.WINP1 if first else CXGameState.WINP2):
            lost.append((opp.__name__, seed, state))
    assert not lost
