"""Won positions for the "won positions kept" benchmark: generated here, solved by the exact
solver, stored in tests/data/won_positions.txt.

    .venv/bin/python -m bench.won_positions [--per-board 8] [--budget-s 30] [--seed 1]

For each of the 16 K=4 competition boards, games are played from the empty board by a tactical
random player (an immediate win is played, an immediate threat blocked, a move giving the
opponent an immediate win avoided, otherwise a random column, centre columns twice as likely)
and stopped after a random number of moves, late enough in the game for the solver to finish
(at least about 45% of the board filled). A position is kept when the solver proves the side
to move wins and at least one of its legal moves that does not lose at once gives the win away
(so a bot can go wrong); the winning moves are found by solving every move's outcome.

File format, one position per line (`#` lines are comments):

    M N K moves score winning

``moves``: the game so far, 0-based columns, one digit each; ``score``: the exact score for the
side to move (Pons' convention, > 0: it wins); ``winning``: the columns that keep the win (one
digit each). tests/players/test_won_positions.py re-solves a sample.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from arena.board import CXBoard, CXGameState
from players._shared.book import BOARDS, Solver
from players._shared.common import immediate_threats, immediate_wins

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "won_positions.txt"


def load(path: Path = DATA) -> list[tuple[int, int, int, list[int], int, list[int]]]:
    """(M, N, K, moves, score, winning columns) of every stored position."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            M, N, K, moves, score, winning = line.split()
            out.append((int(M), int(N), int(K), [int(c) for c in moves.strip("-")],
                        int(score), [int(c) for c in winning]))
    return out


def _tactical_random(b: CXBoard, rng: random.Random) -> int:
    wins = immediate_wins(b)
    if wins:
        return wins[0]
    threats = immediate_threats(b)
    if threats:
        return threats[0]
    cols = b.getAvailableColumns()
    safe = []
    for c in cols:
        b.markColumn(c)
        if b.gameState() is not CXGameState.OPEN or not immediate_wins(b):
            safe.append(c)
        b.unmarkColumn()
    pool = safe or cols
    centre = [c for c in pool if abs(2 * c - (b.N - 1)) <= 2]
    return rng.choice(pool + centre)


def generate(M: int, N: int, count: int, budget_s: float, rng: random.Random,
             solver: Solver) -> list[str]:
    lines: list[str] = []
    size = M * N
    tries = 0
    while len(lines) < count and tries < 40 * count:
        tries += 1
        b = CXBoard(M, N, 4)
        stop_at = rng.randint(int(0.45 * size), int(0.65 * size))
        while b.numOfMarkedCells() < stop_at and b.gameState() is CXGameState.OPEN:
            b.markColumn(_tactical_random(b, rng))
        if b.gameState() is not CXGameState.OPEN or immediate_wins(b):
            continue
        seq = "".join(str(c) for c in b.moves())
        stop_s = time.perf_counter() + budget_s
        cur, mask, moves = solver.position(seq)
        score = solver.score(cur, mask, moves, stop_s)
        if score is None or score <= 0:
            continue
        outcomes = solver.move_scores(seq, stop_s)
        if outcomes is None:
            continue
        winning = [c for c, v in outcomes.items() if v == 1]
        # a mistake must be possible: some move that does not lose at once is not winning
        tempting = [c for c, v in outcomes.items() if v < 1 and _safe(b, c)]
        if not tempting:
            continue
        lines.append(f"{M} {N} 4 {seq} {score} {''.join(str(c) for c in sorted(winning))}")
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


def _safe(b: CXBoard, col: int) -> bool:
    b = b.copy()
    b.markColumn(col)
    return b.gameState() is not CXGameState.OPEN or not immediate_wins(b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.won_positions",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--per-board", type=int, default=8)
    parser.add_argument("--budget-s", type=float, default=30.0,
                        help="solver time per position, seconds")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    out = ["# M N K moves score winning: see bench/won_positions.py (generated with "
           f"--per-board {args.per_board} --budget-s {args.budget_s:g} --seed {args.seed})"]
    for M, N in BOARDS:
        solver = Solver(M, N, tt_entries=1 << 20)
        out += generate(M, N, args.per_board, args.budget_s, rng, solver)
        DATA.write_text("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
