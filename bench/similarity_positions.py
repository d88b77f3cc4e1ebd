"""Make the published position sets of play similarity (arena/similarity/play.py) for the boards
an exact solver covers: quiet positions where at least two moves have the best exact value and
at least one (two on boards of six columns or more) is worse (a choice that says something
about the bot).

One board, to standard output (the 6x7x4 set, 120 positions):

    .venv/bin/python -m bench.similarity_positions 6 7 4 --count 120 --seed 41 \
        > arena/data/similarity_positions_6x7x4.txt

Every board of a board set the solver covers (at most 64 cells) that has no set yet, written
into arena/data (the other boards' sets, 24 positions each):

    .venv/bin/python -m bench.similarity_positions --boards competition --count 24 --seed 41 \
        --write

How: random games from the empty board (seeded by the seed and the board), cut at a ply drawn
from the middle of the game (`plies`: from about 28% to 58% of the cells); a position is kept
when it is open, the side to move has no immediate win and no immediate threat to block (so the
choice is not forced by tactics), and the solver (players._shared.oracle, as `cxarena analyze`
uses it) proves every move's exact score within the node budget. Positions are deduplicated;
each line of the output is ``MOVES BEST`` (columns from 0, as digits for boards of at most 10
columns, else comma-separated; BEST the columns of the best value). A board where few such
positions exist (K=5 on small boards: nearly every position is a draw whatever is played) gets
what `count * TRIES` random games found, possibly none: no file is written for it, and a
league takes that board's positions from its own games (arena/similarity/positions.py).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from arena.board import CXBoard, CXGameState
from arena.similarity.positions import quiet
from players._shared.oracle import oracle_for

#: the solver's node budget per move of a position
NODE_LIMIT = 1_000_000
#: random games tried per position wanted
TRIES = 200
#: where the published sets live (`arena.similarity.play.positions_path`)
DATA = Path(__file__).resolve().parent.parent / "arena" / "data"


def plies(M: int, N: int) -> range:
    """The plies a position is cut at: the middle game, where the solver answers fast enough
    (12 to 24 on 6x7)."""
    cells = M * N
    return range(max(2, round(0.28 * cells)), max(3, round(0.58 * cells)) + 1)


def min_worse(N: int) -> int:
    """Moves worse than the best a position must have: two from six columns, else one."""
    return 2 if N >= 6 else 1


def text_of(moves: list[int], N: int) -> str:
    return "".join(map(str, moves)) if N <= 10 else ",".join(map(str, moves))


def board_seed(seed: int, M: int, N: int, K: int) -> int:
    """The random games' seed of a board: `seed` itself for 6x7x4 (the set published first),
    else made of the seed and the board (each board's set is drawn apart)."""
    return seed if (M, N, K) == (6, 7, 4) else seed * 1_000_003 + M * 10_000 + N * 100 + K


def make(M: int, N: int, K: int, count: int, seed: int,
         silent: bool = False) -> list[tuple[list[int], list[int]]]:
    rng = random.Random(board_seed(seed, M, N, K))
    oracle = oracle_for(M, N, K)
    if not oracle.exact:
        raise SystemExit(f"{M}x{N}x{K}: no exact solver for this board")
    cut = plies(M, N)
    worse = min_worse(N)
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[list[int], list[int]]] = []
    tries = 0
    while len(out) < count and tries < count * TRIES:
        tries += 1
        b = CXBoard(M, N, K)
        ply = rng.choice(cut)
        while b.numOfMarkedCells() < ply and b.gameState() is CXGameState.OPEN:
            b.markColumn(rng.choice(b.getAvailableColumns()))
        moves = b.moves()
        if tuple(moves) in seen or not quiet(b):
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
            if 2 <= len(top) <= len(scores) - worse:
                out.append((moves, top))
                if not silent:
                    print(f"{M}x{N}x{K}: {len(out)}/{count} ({tries} tried)", file=sys.stderr)
    return out


def render(M: int, N: int, K: int, count: int, seed: int,
           found: list[tuple[list[int], list[int]]], command: str) -> str:
    worse = "two worse" if min_worse(N) == 2 else "one worse"
    lines = [f"# play-similarity positions for {M}x{N}x{K}: {len(found)} quiet positions with "
             f"at least two moves of the best exact value and {worse}",
             f"# made by: {command}",
             "# MOVES (columns from 0, from the empty board) BEST (the columns of the best "
             "value)"]
    lines += [f"{text_of(moves, N)} {','.join(map(str, top))}" for moves, top in found]
    return "\n".join(lines) + "\n"


def solver_boards(boards: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The boards of `boards` the exact solver covers (at most 64 cells), in order, once."""
    return list(dict.fromkeys(b for b in boards if b[0] * b[1] <= 64))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("board", nargs="*", type=int, metavar="M N K",
                    help="one board (M N K), printed to standard output")
    ap.add_argument("--boards", metavar="SET", default=None,
                    help="every solver board of a board set (arena/data/boards.yaml), with "
                         "--write")
    ap.add_argument("--write", action="store_true",
                    help="write each board's set into arena/data (a board with a set is kept)")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=41)
    args = ap.parse_args(argv)
    if args.boards is None:
        if len(args.board) != 3:
            ap.error("give M N K, or --boards SET --write")
        M, N, K = args.board
        found = make(M, N, K, args.count, args.seed)
        sys.stdout.write(render(M, N, K, args.count, args.seed, found,
                                f"python -m bench.similarity_positions {M} {N} {K} --count "
                                f"{args.count} --seed {args.seed}"))
        return 0
    if not args.write or args.board:
        ap.error("--boards SET takes no board and needs --write")
    from arena.tournament.config import resolve_board_set  # the named board sets

    command = (f"python -m bench.similarity_positions --boards {args.boards} --count "
               f"{args.count} --seed {args.seed} --write")
    for M, N, K in solver_boards(list(resolve_board_set(args.boards, "--boards"))):
        path = DATA / f"similarity_positions_{M}x{N}x{K}.txt"
        if path.exists():
            print(f"{M}x{N}x{K}: kept {path.name}", file=sys.stderr)
            continue
        found = make(M, N, K, args.count, args.seed, silent=True)
        print(f"{M}x{N}x{K}: {len(found)} positions", file=sys.stderr)
        if found:
            path.write_text(render(M, N, K, args.count, args.seed, found, command),
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
