"""Speed of the Monte-Carlo bots' random playouts (`players._shared.playout`) and searches."""

from __future__ import annotations

import random
import time

from arena.board import CXBoard
from players._shared.playout import Position, random_playout
from players.mcts import MCTS
from players.montecarlo import MonteCarlo

BOARDS = [(6, 7, 4), (7, 7, 5), (20, 20, 10), (50, 50, 10), (100, 100, 30)]
SECONDS = 1.0


def playouts_per_s(pos: Position, seconds: float) -> tuple[float, float]:
    """(playouts per second, random moves per second) from `pos`."""
    rnd = random.Random(1).random
    start = time.perf_counter()
    n = moves = 0
    base = sum(pos.heights)
    while time.perf_counter() - start < seconds or n == 0:
        p = pos.copy()
        random_playout(p, rnd)
        n += 1
        moves += sum(p.heights) - base
    elapsed = time.perf_counter() - start
    return n / elapsed, moves / elapsed


def search_rate(cls: type, M: int, N: int, K: int, seconds: float) -> float:
    """Playouts (montecarlo) or iterations (mcts) per second of a first-move search."""
    bot = cls()
    bot.seed = 1
    bot.initPlayer(M, N, K, True, seconds)
    B = CXBoard.from_moves(M, N, K, [N // 2])  # one move in, so both bots really search
    start = time.perf_counter()
    bot.selectColumn(B)
    elapsed = time.perf_counter() - start
    return (bot.iterations if cls is MCTS else bot.last_playouts) / elapsed


def main() -> None:
    print("## Monte-Carlo playouts\n")
    print(f"Random playouts to the end of the game ({SECONDS:.0f} s each), from the empty board.\n")
    print("| board | playouts/s | random moves/s | mcts iterations/s | montecarlo playouts/s |")
    print("|---|---:|---:|---:|---:|")
    for M, N, K in BOARDS:
        per_s, moves_per_s = playouts_per_s(Position.from_board(CXBoard(M, N, K)), SECONDS)
        mcts = search_rate(MCTS, M, N, K, SECONDS / 0.8 + 0.04)
        mc = search_rate(MonteCarlo, M, N, K, SECONDS / 0.8 + 0.04)
        print(f"| {M}x{N}x{K} | {per_s:,.0f} | {moves_per_s:,.0f} | {mcts:,.0f} | {mc:,.0f} |")
    print()


if __name__ == "__main__":
    main()
