"""Rules speed: markColumn + unmarkColumn pairs per second, and copy() cost, per board."""

from __future__ import annotations

import random
import time

from arena.board import CXBoard, CXGameState

BOARDS = [(6, 7, 4), (7, 7, 5), (50, 50, 10), (100, 100, 30)]


def _midgame(M: int, N: int, K: int, rng: random.Random) -> CXBoard:
    while True:
        b = CXBoard(M, N, K)
        for _ in range((M * N) // 3):
            b.markColumn(rng.choice(b.getAvailableColumns()))
            if b.gameState() is not CXGameState.OPEN:
                break
        if b.gameState() is CXGameState.OPEN:
            return b


def pairs_per_s(M: int, N: int, K: int, seconds: float = 1.0) -> float:
    rng = random.Random(1)
    done = 0
    elapsed = 0.0
    while elapsed < seconds:
        b = _midgame(M, N, K, rng)
        cols = b.getAvailableColumns()
        t0 = time.perf_counter()
        for _ in range(200):
            for c in cols:
                b.markColumn(c)
                b.unmarkColumn()
        elapsed += time.perf_counter() - t0
        done += 200 * len(cols)
    return done / elapsed


def copy_us(M: int, N: int, K: int) -> float:
    b = _midgame(M, N, K, random.Random(2))
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        b.copy()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    print("## Rules: `arena.board.CXBoard`\n")
    print("Middle-game positions (a third of the board filled at random); each pair is one")
    print("`markColumn` followed by `unmarkColumn`, over every available column.\n")
    print("| board | mark+unmark pairs/s | copy() us |")
    print("|---|---:|---:|")
    for M, N, K in BOARDS:
        print(f"| {M}x{N}x{K} | {pairs_per_s(M, N, K):,.0f} | {copy_us(M, N, K):.1f} |")
    print()


if __name__ == "__main__":
    main()
