"""The Monte-Carlo tree search bot (`players.mcts`): tree reuse, determinism of the tree, the
solver. Legality, the clock, seeded strength and gc are checked for both Monte-Carlo bots in
test_bot_families.py."""

from __future__ import annotations

from arena.board import CXBoard
from players.mcts import LOSS, MCTS, WIN, Node
from tests.helpers import make


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


def test_same_seed_and_playouts_give_the_same_tree():
    """The move is checked for both Monte-Carlo bots in test_bot_families.py; here the tree."""
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
