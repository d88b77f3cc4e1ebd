"""Generated tactical positions for bot tests: a position where the side to move has a win, or
where the opponent has exactly one immediate win that can be blocked safely."""

from __future__ import annotations

import random

from arena.board import CXBoard, CXGameState
from players._shared.common import immediate_threats, immediate_wins


def random_position(M: int, N: int, K: int, rng: random.Random, max_moves: int) -> CXBoard:
    """A random open position reached by random play (at most `max_moves` moves)."""
    while True:
        b = CXBoard(M, N, K)
        n = rng.randint(0, min(max_moves, M * N - 1))
        for _ in range(n):
            b.markColumn(rng.choice(b.getAvailableColumns()))
            if b.gameState() is not CXGameState.OPEN:
                break
        if b.gameState() is CXGameState.OPEN:
            return b


def before_end(M: int, N: int, K: int, rng: random.Random, back: int) -> CXBoard | None:
    """A random game `back` moves before its winning move (None if it was drawn)."""
    b = CXBoard(M, N, K)
    while b.markColumn(rng.choice(b.getAvailableColumns())) is CXGameState.OPEN:
        pass
    if b.gameState() is CXGameState.DRAW:
        return None
    for _ in range(back):
        b.unmarkColumn()
    return b


def _candidates(M: int, N: int, K: int, rng: random.Random):
    """Open positions from random games, many of them just before the game's end (where wins
    and threats are), so that even 50x50 boards yield tactical positions quickly."""
    while True:
        if rng.random() < 0.5:
            b = before_end(M, N, K, rng, back=rng.choice([1, 2, 3]))
            if b is not None:
                yield b
        else:
            yield random_position(M, N, K, rng, max_moves=min(M * N - 1, 6 * K + 40))


def win_positions(M: int, N: int, K: int, count: int, seed: int) -> list[tuple[CXBoard, list[int]]]:
    """Positions where the side to move can win at once, with the winning columns."""
    out: list[tuple[CXBoard, list[int]]] = []
    for n, b in enumerate(_candidates(M, N, K, random.Random(seed))):
        wins = immediate_wins(b)
        if wins:
            out.append((b, wins))
        if len(out) == count or n > 200 * count:
            return out
    return out


def block_positions(M: int, N: int, K: int, count: int, seed: int) -> list[tuple[CXBoard, int]]:
    """Positions where the side to move has no win, the opponent has exactly one immediate win
    (column c), and playing c leaves the opponent no immediate win; returns (board, c)."""
    out: list[tuple[CXBoard, int]] = []
    for n, b in enumerate(_candidates(M, N, K, random.Random(seed))):
        if len(out) == count or n > 200 * count:
            return out
        if immediate_wins(b):
            continue
        threats = immediate_threats(b)
        if len(threats) != 1:
            continue
        c = threats[0]
        b.markColumn(c)
        safe = b.gameState() is not CXGameState.OPEN or not immediate_wins(b)
        b.unmarkColumn()
        if safe:
            out.append((b, c))
    return out
