"""Opening book for the 16 K=4 competition boards (M, N in 4..7), stored as data in the package.

Not a bot. The book is `book/k4.json` next to this module; it is made by

    python -m players._shared.book build [--budget-s SECONDS] [--boards 6x7,7x7]

and checked by tests/players/test_book.py (which re-derives a sample of its entries with the
solver). What it holds, per board ``MxN``:

- ``published``: the game value of the empty board from the literature (Allis, Tromp,
  Steininger; see `PUBLISHED`): who wins with perfect play, ``first``, ``second`` or ``draw``;
- ``positions``: a dict from a position, written as the moves that led to it (0-based columns,
  one digit each: ``""`` is the empty board, ``"3"`` the board after a first move in column 3),
  to an entry: ``outcome`` (+1 the side to move wins, 0 draw, -1 it loses), ``moves`` (every
  column that keeps that outcome, the preferred one first: the latest loss or soonest win as
  far as known, then centre first) and ``source``:

  * ``"solver"``: every legal move of the position was solved exactly by
    `players._shared.search.BitSearch` (null-window searches for win/draw/loss) while the book
    was built; the outcome agrees with the published value for the empty board;
  * ``"published"``: the solver could not finish within the build's time budget; the outcome
    is the published value, and ``moves`` holds the move the literature names (6x7: the centre
    column, Allis 1988) or, where none is named, the centre column(s), which the solver did not
    verify. A second-player win needs no named move: every first move keeps it.

Of two mirror-image positions only one is stored (the smaller move string); `lookup` mirrors the
answer back. Book positions are at most two moves deep, where no two move orders reach the same
position, so the move string names the position uniquely.

Only `lookup` and `entry` are meant for bots; everything else builds or checks the book.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["BOOK_PATH", "BOARDS", "PUBLISHED", "BookEntry", "entry", "lookup"]

BOOK_PATH = Path(__file__).with_name("book") / "k4.json"
#: the K=4 competition boards (rows M, columns N)
BOARDS = tuple((M, N) for M in range(4, 8) for N in range(4, 8))
#: published value of the empty board, first player's view (connect4_board_values.csv in the
#: shared reference data: Tromp's table, confirmed by Steininger's solver)
PUBLISHED = {
    (4, 4): "draw", (4, 5): "draw", (4, 6): "second", (4, 7): "draw",
    (5, 4): "draw", (5, 5): "draw", (5, 6): "draw", (5, 7): "draw",
    (6, 4): "draw", (6, 5): "draw", (6, 6): "second", (6, 7): "first",
    (7, 4): "draw", (7, 5): "draw", (7, 6): "first", (7, 7): "draw",
}
#: the value-keeping first move the literature names (Allis 1988: only the centre wins on 6x7)
NAMED_FIRST_MOVES = {(6, 7): [3]}
OUTCOME_OF = {"first": 1, "draw": 0, "second": -1}


@dataclass(frozen=True)
class BookEntry:
    """A book position: its outcome for the side to move, the columns keeping it (best first)
    and where that knowledge comes from (``solver`` or ``published``)."""

    outcome: int
    moves: tuple[int, ...]
    source: str


def _mirror(seq: str, N: int) -> str:
    return "".join(str(N - 1 - int(c)) for c in seq)


@lru_cache(maxsize=1)
def _load() -> dict:
    try:
        return json.loads(BOOK_PATH.read_text())["boards"]
    except (OSError, ValueError, KeyError):
        return {}  # no book: the bots search every move


def entry(M: int, N: int, K: int, moves: list[int] | tuple[int, ...]) -> BookEntry | None:
    """The book entry of the position after `moves` (0-based columns) on an M x N board with K
    to connect, or None if the position is not in the book."""
    if K != 4 or len(moves) > 2:
        return None
    board = _load().get(f"{M}x{N}")
    if board is None:
        return None
    seq = "".join(str(c) for c in moves)
    mirrored = _mirror(seq, N)
    key = min(seq, mirrored)
    e = board["positions"].get(key)
    if e is None:
        return None
    cols = e["moves"] if key == seq else [N - 1 - c for c in e["moves"]]
    return BookEntry(e["outcome"], tuple(cols), e["source"])


def lookup(M: int, N: int, K: int, moves: list[int] | tuple[int, ...]) -> int | None:
    """The book's move in the position after `moves`, or None if it is not a book position."""
    e = entry(M, N, K, moves)
    return e.moves[0] if e is not None and e.moves else None


# --------------------------------------------------------------------------- building
def _centre_first(N: int) -> list[int]:
    from players._shared.bitboard import centre_order

    return list(centre_order(N))


class Solver:
    """Exact outcomes of positions of one board, with one transposition table for all of them
    (positions of a book share most of their subtrees)."""

    def __init__(self, M: int, N: int, tt_entries: int = 1 << 21) -> None:
        from players._shared.search import BitSearch

        self.M, self.N = M, N
        self.engine = BitSearch(M, N, 4, tt_entries)
        self.g = self.engine.g

    def position(self, moves: str) -> tuple[int, int, int]:
        cur = mask = 0
        H = self.g.H
        for c in moves:
            cur ^= mask
            mask |= mask + (1 << (int(c) * H))
        return cur, mask, len(moves)

    def wins_now(self, cur: int, mask: int) -> bool:
        g = self.g
        return bool(g.win_cells(cur, mask) & (mask + g.bottom) & g.board)

    def outcome(self, cur: int, mask: int, moves: int, stop_s: float) -> int | None:
        """+1, 0 or -1 for the side to move (None if `stop_s` came first)."""
        from players._shared.engine import SearchTimeout

        if self.wins_now(cur, mask):
            return 1
        if moves == self.g.size:
            return 0
        e = self.engine
        e.stop_s = stop_s
        try:
            if e.negamax(cur, mask, moves, 0, 1, e.size, -1, 0) >= 1:
                return 1
            return 0 if e.negamax(cur, mask, moves, -1, 0, e.size, -1, 0) >= 0 else -1
        except SearchTimeout:
            return None
        finally:
            e.stop_s = float("inf")

    def score(self, cur: int, mask: int, moves: int, stop_s: float) -> int | None:
        """The exact Pons score for the side to move (None if `stop_s` came first)."""
        from players._shared.engine import SearchTimeout, win_score

        if self.wins_now(cur, mask):
            return win_score(self.g.size, moves + 1)
        if moves == self.g.size:
            return 0
        try:
            return self.engine.solve(cur, mask, moves, stop_s)[0]
        except SearchTimeout:
            return None

    def move_scores(self, seq: str, stop_s: float) -> dict[int, int] | None:
        """For every legal move of the position after `seq`: the mover's exact outcome after it
        (+1 won, 0 drawn, -1 lost), or None if `stop_s` came first."""
        cur, mask, moves = self.position(seq)
        g = self.g
        out: dict[int, int] = {}
        for col in _centre_first(self.N):
            m = (mask + g.bottom) & g.columns[col]
            if not m:
                continue
            if self.wins_now(cur, mask) and g.win_cells(cur, mask) & m:
                out[col] = 1
                continue
            child = self.outcome(cur ^ mask, mask | m, moves + 1, stop_s)
            if child is None:
                return None
            out[col] = -child
        return out


def _solved_entry(solver: Solver, seq: str, stop_s: float) -> dict | None:
    """A ``solver`` entry for the position after `seq`, or None if out of time. Among the moves
    keeping the outcome, the exact scores (when they can be had in time) pick the best."""
    scores = solver.move_scores(seq, stop_s)
    if scores is None:
        return None
    best = max(scores.values())
    keep = [c for c in scores if scores[c] == best]  # centre first
    if len(keep) > 1:  # rank by exact score (soonest win, latest loss), if it can be had
        cur, mask, moves = solver.position(seq)
        g = solver.g
        now = time.perf_counter()
        rank_stop_s = min(stop_s, now + (stop_s - now) / 4)  # the ranking is a nicety
        exact: dict[int, int] = {}
        for col in keep:
            m = (mask + g.bottom) & g.columns[col]
            s = solver.score(cur ^ mask, mask | m, moves + 1, rank_stop_s)
            if s is None:
                break
            exact[col] = -s
        else:
            keep.sort(key=lambda c: -exact[c])  # stable: centre first among equals
    return {"outcome": best, "moves": keep, "source": "solver"}


def _published_entry(M: int, N: int) -> dict:
    outcome = OUTCOME_OF[PUBLISHED[(M, N)]]
    named = NAMED_FIRST_MOVES.get((M, N))
    return {"outcome": outcome, "moves": named or [_centre_first(N)[0]], "source": "published"}


def build_board(M: int, N: int, budget_s: float, log: bool = True) -> dict:
    """The book of one board: the empty board, then every first move (its replies), as far as
    the solver gets within `budget_s` seconds in all."""
    start = time.perf_counter()
    stop_s = start + budget_s
    solver = Solver(M, N)
    positions: dict[str, dict] = {}
    root = _solved_entry(solver, "", stop_s)
    if root is None:
        positions[""] = _published_entry(M, N)
    else:
        expected = OUTCOME_OF[PUBLISHED[(M, N)]]
        if root["outcome"] != expected:
            raise SystemExit(f"{M}x{N}: the solver says {root['outcome']}, the literature "
                             f"{expected}: the solver is wrong; no book written")
        positions[""] = root
        for c in range((N + 1) // 2):  # the replies to each first move (mirrors skipped)
            e = _solved_entry(solver, str(c), stop_s)
            if e is None:
                break
            positions[str(c)] = e
    if log:
        print(f"{M}x{N}: {len(positions)} positions, root from {positions['']['source']}, "
              f"{time.perf_counter() - start:.1f} s, {solver.engine.nodes:,} nodes",
              file=sys.stderr, flush=True)
    return {"M": M, "N": N, "K": 4, "published": PUBLISHED[(M, N)], "positions": positions}


def _dump(data: dict) -> str:
    """The book as JSON, one line per position (readable diffs)."""
    lines = ["{", f' "about": {json.dumps(data["about"])},', ' "boards": {']
    boards = data["boards"]
    for i, (name, b) in enumerate(boards.items()):
        lines.append(f'  "{name}": {{"M": {b["M"]}, "N": {b["N"]}, "K": {b["K"]}, '
                     f'"published": "{b["published"]}", "positions": {{')
        pos = b["positions"]
        for j, (seq, e) in enumerate(sorted(pos.items())):
            comma = "," if j < len(pos) - 1 else ""
            lines.append(f'   "{seq}": {json.dumps(e, sort_keys=True)}{comma}')
        lines.append("  }}" + ("," if i < len(boards) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def build(boards: list[tuple[int, int]], budget_s: float, path: Path = BOOK_PATH) -> None:
    """Build (or update, board by board) the book file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data["about"] = ("Opening book for the K=4 competition boards; made by "
                     "`python -m players._shared.book build`; see players/_shared/book.py.")
    out = data.setdefault("boards", {})
    for M, N in boards:
        out[f"{M}x{N}"] = build_board(M, N, budget_s)
        data["boards"] = {k: out[k] for k in sorted(out)}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(data))
    _load.cache_clear()


def _parse_boards(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        try:
            M, N = (int(x) for x in part.lower().split("x"))
        except ValueError:
            raise SystemExit(f"--boards: {part!r} is not MxN (e.g. 6x7)") from None
        if (M, N) not in BOARDS:
            raise SystemExit(f"--boards: {part} is not a K=4 competition board (M, N in 4..7)")
        out.append((M, N))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m players._shared.book",
                                     description="Build or show the K=4 opening book.")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="solve the book positions and write " + str(BOOK_PATH))
    b.add_argument("--budget-s", type=float, default=600.0,
                   help="solver time per board, seconds (default 600)")
    b.add_argument("--boards", default=",".join(f"{M}x{N}" for M, N in BOARDS),
                   help="comma-separated MxN boards (default: all 16)")
    sub.add_parser("show", help="print the first-move entry of every board")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(_parse_boards(args.boards), args.budget_s)
        return 0
    for M, N in BOARDS:
        e = entry(M, N, 4, [])
        print(f"{M}x{N}: {PUBLISHED[(M, N)]:6} " + (
            "not in book" if e is None else
            f"outcome {e.outcome:+d}, moves {list(e.moves)}, {e.source}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
