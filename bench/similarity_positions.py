"""Make the published position set of play similarity (arena/similarity/play.py) for one
board with an exact solver: quiet positions where at least two moves have the best exact
value and at least two moves are worse (a choice that says something about the bot).

    .venv/bin/python -m bench.similarity_positions 6 7 4 --count 200 --seed 41 \
        > arena/data/similarity_positions_6x7x4.txt

How: random games from the empty board, cut at a ply drawn from PLIES; a position is kept when
it is open, the side to move has no immediate win and no immediate threat to block (so the
choice is not forced by tactics), and the solver (players._shared.oracle, as `cxarena
analyze` uses it) proves every move's exact score within the node budget. Positions are
deduplicated; each line of the output is ``MOVES BEST`` (columns from 0, as digits for boards of
at most 10 columns, else comma-separated; BEST the columns of the best value).
"""

from __future__ import annotations

import argparse
import random
import sys

from arena.board import CXBoard, CXGameState
from players._shared.oracle import oracle_for

#: the plies a position is cut at (the middle game, where the solver answers fast enough)
PLIES = range(12, 25)
#: the solver's node budget per move of a position
NODE_LIMIT = 1_000_000


def _wins_at(grid: list[list[int]], K: int, r: int, c: int, who: int) -> bool:
    """Would `who` placing a stone at (r, c) make K in a row?"""
    M, N = len(grid), len(grid[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            i, j = r + sign * dr, c + sign * dc
            while 0 <= i < M and 0 <= j < N and grid[i][j] == who:
                run += 1
                i, j = i + sign * dr, j + sign * dc
        if run >= K:
            return True
    return False


def _quiet(b: CXBoard) -> bool:
    """Open, and neither side could win at once on the next stone (no win to take, no threat
    to block: the choice is not forced by tactics)."""
    if b.gameState() is not CXGameState.OPEN:
        return False
    grid = [[int(x) for x in row] for row in b.getBoard()]
    for col in b.getAvailableColumns():
        r = max(i for i in range(b.M) if grid[i][col] == 0)  # row 0 is the top
        if _wins_at(grid, b.K, r, col, 1) or _wins_at(grid, b.K, r, col, 2):
            return False
    return True


def text_of(moves: list[int], N: int) -> str:
    return "".join(map(str, moves)) if N <= 10 else ",".join(map(str, moves))


def make(M: int, N: int, K: int, count: int, seed: int) -> list[tuple[list[int], list[int]]]:
    rng = random.Random(seed)
    oracle = oracle_for(M, N, K)
    if not oracle.exact:
        raise SystemExit(f"{M}x{N}x{K}: no exact solver for this board")
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[list[int], list[int]]] = []
    tries = 0
    while len(out) < count and tries < count * 200:
        tries += 1
        b = CXBoard(M, N, K)
        plies = rng.choice(PLIES)
        while b.numOfMarkedCells() < plies and b.gameState() is CXGameState.OPEN:
            b.markColumn(rng.choice(b.getAvailableColumns()))
        moves = b.moves()
        if tuple(moves) in seen or not _quiet(b):
            continue
        seen.add(tuple(moves))
        scores: dict[int, int] = {}
        for col in b.getAvailableColumns():
            child = oracle.solve(moves + [col], NODE_LIMIT)
            if child is None:
                break
            scores[col] = -child
        else:
            best = max(scores.values())
            top = sorted(c for c, s in scores.items() if s == best)
            if 2 <= len(top) <= len(scores) - 2:
                out.append((moves, top))
                print(f"{len(out)}/{count} ({tries} tried)", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("board", nargs=3, type=int, metavar=("M", "N", "K"))
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=41)
    args = ap.parse_args(argv)
    M, N, K = args.board
    found = make(M, N, K, args.count, args.seed)
    print(f"# play-similarity positions for {M}x{N}x{K}: {len(found)} quiet positions with at "
          f"least two moves of the best exact value and two worse")
    print(f"# made by: python -m bench.similarity_positions {M} {N} {K} --count {args.count} "
          f"--seed {args.seed}")
    print("# MOVES (columns from 0, from the empty board) BEST (the columns of the best value)")
    for moves, top in found:
        print(f"{text_of(moves, N)} {','.join(map(str, top))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
