"""Every built-in bot that looks ahead (all but L0, which plays at random by design) always
takes an immediate win and always blocks a single immediate threat, on small and big boards."""

from __future__ import annotations

import pytest

from arena.games.connectx.entrant import load_player_class
from arena.entrants.specs import parse_spec
from tests.tactics import block_positions, win_positions

#: bot -> options that keep the test fast without changing how it reads tactics
BOTS = {
    "L1": {},
    "minimax": {"max_depth": 2},
    "alphabeta": {"max_depth": 4},
    "montecarlo": {"playouts": 50},
    "mcts": {"playouts": 50},
}
BOARDS = [(4, 4, 4), (6, 7, 4), (5, 4, 5), (7, 7, 5), (20, 20, 10), (50, 50, 10)]
POSITIONS = 10


def make(bot: str, b, seed: int):
    p = load_player_class(parse_spec(bot))()
    p.seed = seed
    for key, value in BOTS[bot].items():
        setattr(p, key, value)
    p.initPlayer(b.M, b.N, b.K, b.currentPlayer() == 0, 5.0)
    return p


@pytest.fixture(scope="module", params=BOARDS, ids=lambda b: "x".join(map(str, b)))
def positions(request):
    M, N, K = request.param
    wins = win_positions(M, N, K, POSITIONS, seed=M * 100 + N)
    blocks = block_positions(M, N, K, POSITIONS, seed=M * 100 + N + 1)
    assert len(wins) == POSITIONS and len(blocks) >= POSITIONS // 2, (len(wins), len(blocks))
    return wins, blocks


@pytest.mark.parametrize("bot", list(BOTS))
def test_takes_an_immediate_win(bot, positions):
    for i, (b, wins) in enumerate(positions[0]):
        assert make(bot, b, seed=i).selectColumn(b.copy()) in wins, (bot, b)


@pytest.mark.parametrize("bot", list(BOTS))
def test_blocks_a_single_immediate_threat(bot, positions):
    for i, (b, col) in enumerate(positions[1]):
        assert make(bot, b, seed=i).selectColumn(b.copy()) == col, (bot, b)
