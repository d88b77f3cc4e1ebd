"""What the game analysis (`arena.analysis`) asks of the project's search: the exact solver,
the opening book, and estimates where neither reaches. Not a bot.

`oracle_for(M, N, K)` is registered as the entry point ``search`` of the group
``cxarena.solvers`` (pyproject.toml), so the harness finds it without importing `players`.
Positions are given as the 0-based columns played from the empty board; scores and outcomes
are always for the side to move.

- Exact values (boards of at most 64 cells): `players._shared.fastsolve.make_solver`, the
  compiled solver where numba and the board allow it, else the pure-Python `BitSearch.solve`
  (same answers). Budgets are node counts; the table is kept from one call to the next, so the
  analysis solves the game's positions from the last to the first and each reuses what the
  later ones learnt.
- The opening book (`players._shared.book`, K=4 boards up to 7x7, two moves deep): outcome and
  the moves that keep it.
- Estimates: a depth-limited alpha-beta search with the heuristic at the horizon (`BitSearch`
  on at most 64 cells, `GridSearch` above), under a time budget. A score it proves (a forced
  win or loss inside its horizon) is exact; otherwise it is a heuristic value, returned in units
  of the exact scores (strictly between -1 and 1).
"""

from __future__ import annotations

import time

from arena.board import CXBoard
from players._shared import book
from players._shared.bitboard import BitPosition
from players._shared.engine import INF, SearchTimeout, iterative_deepening
from players._shared.fastsolve import make_solver
from players._shared.search import BIT_SEARCH_MAX_CELLS, BitSearch, GridSearch

__all__ = ["SearchOracle", "oracle_for"]

_ESTIMATE_TT = 1 << 18


class SearchOracle:
    """The analysis' view of the search for one board size (see the module docstring)."""

    def __init__(self, M: int, N: int, K: int) -> None:
        self.M, self.N, self.K = M, N, K
        self.exact = M * N <= BIT_SEARCH_MAX_CELLS
        self.solver = make_solver(M, N, K) if self.exact else None
        #: "numba", "python" or "" (no exact solver for this board)
        self.kind = self.solver.kind if self.solver is not None else ""
        self._bit: BitSearch | None = None
        self._grid: GridSearch | None = None

    def _pos(self, moves: list[int]) -> tuple[int, int, int]:
        p = BitPosition.from_board(CXBoard.from_moves(self.M, self.N, self.K, moves))
        return p.current, p.mask, p.moves

    def book(self, moves: list[int]) -> tuple[int, tuple[int, ...]] | None:
        """(outcome, the columns keeping it) from the opening book, if the position is in it
        and its value was solved or published."""
        e = book.entry(self.M, self.N, self.K, moves)
        return None if e is None else (e.outcome, tuple(e.moves))

    def solve(self, moves: list[int], node_limit: int | None) -> int | None:
        """The exact score (Pons' convention) of the open position, or None past the budget."""
        if self.solver is None:
            return None
        r = self.solver.solve(*self._pos(moves), node_limit=node_limit)
        return None if r is None else r[0]

    def keeps(self, moves: list[int], col: int, outcome: int,
              node_limit: int | None) -> bool | None:
        """Does `col` keep `outcome` (1 win, 0 draw) for the side to move? None past the
        budget or without an exact solver."""
        if self.solver is None:
            return None
        return self.solver.outcome_after(*self._pos(moves), col, outcome, node_limit=node_limit)

    @property
    def nodes(self) -> int:
        return self.solver.nodes if self.solver is not None else 0

    def estimate(self, moves: list[int], budget_s: float,
                 max_depth: int | None = None) -> tuple[float, int, bool]:
        """(score in exact units, depth completed, proven) by iterative deepening within
        `budget_s` (and `max_depth` plies if given). Proven: the score is exact."""
        stop_s = time.perf_counter() + budget_s
        if self.exact:
            if self._bit is None:
                self._bit = BitSearch(self.M, self.N, self.K, tt_entries=_ESTIMATE_TT)
            s = self._bit
            s.set_position(*self._pos(moves))
            try:
                r = iterative_deepening(s, stop_s, max_depth)
            except SearchTimeout:  # pragma: no cover - iterative_deepening catches it
                return 0.0, 0, False
            return r.score / s.scale, r.depth, r.proven
        if self._grid is None:
            self._grid = GridSearch(self.M, self.N, self.K, tt_entries=_ESTIMATE_TT)
        g = self._grid
        g.sync(list(moves), INF)
        r = g.best_move(stop_s, max_depth=max_depth)
        return r.score / g.scale, r.depth, r.proven


def oracle_for(M: int, N: int, K: int) -> SearchOracle:
    """The entry point: an oracle for one board size."""
    return SearchOracle(M, N, K)
