"""L0 and L1, the course's reference bots: always legal, and L1's one-move look-ahead."""

from __future__ import annotations

import random

import pytest

from arena.board import CXBoard, CXGameState
from players.L0 import L0
from players.L1 import L1
from tests.conftest import ALL_BOARDS, COMPETITION
from tests.tactics import random_position


def make(cls, M, N, K, first, seed, timeout_s=10.0):
    p = cls()
    p.seed = seed
    p.initPlayer(M, N, K, first, timeout_s)
    return p


@pytest.mark.parametrize("cls", [L0, L1])
def test_always_legal_on_every_board(cls):
    """Thousands of random positions over all boards: the answer is an available column of the
    position (the board handed in is the bot's own and may be left changed)."""
    rng = random.Random(7)
    n = 0
    for M, N, K in ALL_BOARDS:
        for _ in range(3000 // len(ALL_BOARDS) + 1):
            b = random_position(M, N, K, rng, max_moves=rng.choice([0, 5, 40, min(M * N, 600)]))
            p = make(cls, M, N, K, b.currentPlayer() == 0, rng.randrange(10**6))
            before = b.copy()
            c = p.selectColumn(b)
            assert isinstance(c, int) and c in before.getAvailableColumns()
            n += 1
    assert n >= 3000


def test_l0_is_uniform_and_seeded():
    b = CXBoard(6, 7, 4)
    picks = [make(L0, 6, 7, 4, True, s).selectColumn(b) for s in range(2100)]
    counts = [picks.count(c) for c in range(7)]
    assert all(220 < n < 380 for n in counts), counts  # 300 expected each
    assert [make(L0, 6, 7, 4, True, 5).selectColumn(b) for _ in range(3)] == [picks[5]] * 3


def test_l1_beats_l0_in_process():
    """A sanity check of strength that cannot flake: fixed seeds, in-process games."""
    score = 0
    for g in range(40):
        bots = [make(L1, 6, 7, 4, True, g), make(L0, 6, 7, 4, False, g)]
        if g % 2:
            bots = [make(L0, 6, 7, 4, True, g), make(L1, 6, 7, 4, False, g)]
        b = CXBoard(6, 7, 4)
        while b.gameState() is CXGameState.OPEN:
            b.markColumn(bots[b.currentPlayer()].selectColumn(b.copy()))
        l1_first = g % 2 == 0
        won = {CXGameState.WINP1: l1_first, CXGameState.WINP2: not l1_first}.get(b.gameState())
        score += 3 if won else (1 if b.gameState() is CXGameState.DRAW else 0)
    assert score >= 0.75 * 3 * 40


@pytest.mark.parametrize("board", COMPETITION[:1] + COMPETITION[-1:])
def test_l1_gives_up_looking_when_its_budget_is_gone(board):
    """L1 looks for up to 99% of the limit minus 20 ms. With a 20 ms limit that is nothing: it
    checks only its first column and answers its seeded random choice (drawn before looking)."""
    M, N, K = board
    rng = random.Random(3)
    while True:
        b = random_position(M, N, K, rng, max_moves=50)
        first_col = b.getAvailableColumns()[0]
        if b.copy().markColumn(first_col) is CXGameState.OPEN:  # the first column does not win
            break
    expected = random.Random(1).choice(b.getAvailableColumns())
    p = make(L1, M, N, K, b.currentPlayer() == 0, 1, timeout_s=0.02)
    assert p.budget_s <= 0
    assert p.selectColumn(b.copy()) == expected


def test_l1_looks_when_it_has_time():
    """With time to look, L1 takes an immediate win its random choice would miss."""
    b = CXBoard.from_moves(6, 7, 4, [0, 6, 0, 6, 0])  # O to move; X wins in column 0 next
    b.markColumn(5)  # X to move: column 0 wins
    for seed in range(20):
        p = make(L1, 6, 7, 4, True, seed, timeout_s=1.0)
        assert p.selectColumn(b.copy()) == 0
