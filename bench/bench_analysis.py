"""Game analysis (`cxarena analyze`): CPU time to analyse whole 6x7x4 games, and from which
move on every position got an exact value.

    .venv/bin/python -m bench analysis

The games: 5 games of 36 to 42 plies, each from a random 4-move opening (seeded), both sides
playing `BitSearch` at a fixed depth of 6 with the heuristic (deterministic, so the same games on
every machine; a depth-6 search makes mistakes, which is what analysis is for). Each game is
analysed with a fresh oracle at 1 s and 5 s per position; the goal is at most 30 s of CPU per
game, every position from ply 10 on exact.
"""

from __future__ import annotations

import random
import time

from arena.analysis.engine import analyse_game
from arena.board import CXBoard, CXGameState
from players._shared.bitboard import BitPosition
from players._shared.engine import INF
from players._shared.oracle import oracle_for
from players._shared.search import BitSearch

M, N, K = 6, 7, 4


def _game(seed: int) -> list[int]:
    rng = random.Random(seed)
    b = CXBoard(M, N, K)
    moves = []
    for _ in range(4):
        moves.append(rng.choice(b.getAvailableColumns()))
        b.markColumn(moves[-1])
    engines = [BitSearch(M, N, K, tt_entries=1 << 16), BitSearch(M, N, K, tt_entries=1 << 16)]
    while b.gameState() is CXGameState.OPEN:
        p = BitPosition.from_board(b)
        e = engines[b.currentPlayer()]
        r = e.best_move(p.current, p.mask, p.moves, INF, max_depth=6)
        b.markColumn(r.col)
        moves.append(r.col)
    return moves


def games(count: int = 5) -> list[list[int]]:
    out: list[list[int]] = []
    seed = 0
    while len(out) < count:
        g = _game(seed)
        seed += 1
        if 36 <= len(g) <= 42:
            out.append(g)
    return out


def main() -> None:
    print("### Game analysis time (6x7, K=4)\n")
    print("`analyse_game` (what `cxarena analyze` runs) on 5 games of 36-42 plies made by a "
          "depth-6 search from seeded random 4-move openings; a fresh oracle per game (the "
          "compiled solver), one core. *exact from*: the first move from which every "
          "position has an exact value.\n")
    print("| budget per position | game | plies | CPU s | exact from move | blunders |")
    print("|---|---|---|---|---|---|")
    gs = games()
    for budget in (1.0, 5.0):
        for g in gs:
            cpu = time.process_time()
            a = analyse_game(oracle_for(M, N, K), M, N, K, g, budget)
            cpu = time.process_time() - cpu
            ex = a.exact_from()
            print(f"| {budget:g} s | {''.join(map(str, g))} | {len(g)} | {cpu:.1f} | "
                  f"{'-' if ex is None else ex + 1} | {len(a.blunders())} |")
    print()


if __name__ == "__main__":
    main()
