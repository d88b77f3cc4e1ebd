"""Plain minimax for the `minimax` bot (not a bot itself): the baseline that shows what
alpha-beta pruning and a transposition table buy.

Every line is searched to the given depth, with no pruning and no table; a move that completes
K ends the line with its exact score, a full board is a draw, and the horizon is scored by the
squared-open-run heuristic. Scores follow `players._shared.engine` (Pons' exact scores times
``scale``, side to move's view, in negamax form: a node's value is the maximum over its moves of
minus the child's value), so with enough depth this is an exact solver too, only a slow one.

- `BitMinimax`: boards of at most 64 cells, on bitboards (`players._shared.bitboard`); every
  move of every node is tried (no move filter), and the heuristic is computed from the
  bitboards at the horizon.
- `GridMinimax`: larger boards, over the incremental `players._shared.heuristic.GridPosition`;
  the move filter of the alpha-beta engine applies (`players._shared.engine.GridEngine`: only
  the columns within two of a non-empty column are searched).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from players._shared.bitboard import geometry
from players._shared.engine import (
    INF,
    GridEngine,
    SearchResult,
    SearchTimeout,
    bit_root,
    iterative_deepening,
    win_score,
)
from players._shared.heuristic import bound, evaluate, window_masks

__all__ = ["BitMinimax", "GridMinimax"]


class BitMinimax:
    """Minimax on bitboards for boards of at most 64 cells (see module docstring)."""

    def __init__(self, M: int, N: int, K: int) -> None:
        self.g = geometry(M, N, K)
        self.scale = bound(M, N, K)
        self.size = M * N
        self.node_count = 0
        self.stop_s = INF
        self.cur = self.mask = self.moves = 0  # the root position
        self._value = self._build()

    @property
    def nodes(self) -> int:
        return self.node_count

    def _build(self) -> Callable[[int, int, int, int], int]:
        g = self.g
        size, bottom, board, columns, order = g.size, g.bottom, g.board, g.columns, g.order
        win_cells = g.win_cells
        S = self.scale
        windows = window_masks(g)
        win_now = [win_score(size, n + 1) * S for n in range(size + 1)]
        engine = self
        clock = time.perf_counter

        def value(cur: int, mask: int, moves: int, depth: int) -> int:
            """Minimax value of a position nobody has won yet, for the side to move."""
            engine.node_count += 1
            if not engine.node_count & 63 and clock() > engine.stop_s:
                raise SearchTimeout
            if moves >= size:
                return 0
            opp = cur ^ mask
            if depth <= 0:
                return evaluate(windows, cur, opp)
            possible = (mask + bottom) & board
            wins = win_cells(cur, mask) & possible
            best = -INF
            for col in order:
                m = possible & columns[col]
                if m:
                    v = win_now[moves] if m & wins else -value(opp, mask | m, moves + 1, depth - 1)
                    if v > best:
                        best = v
            return best  # type: ignore[return-value]  # the board is not full: a move exists

        return value

    def set_position(self, cur: int, mask: int, moves: int) -> None:
        self.cur, self.mask, self.moves = cur, mask, moves

    def root(self) -> tuple[SearchResult | None, list[int]]:
        """Root tactics: play a win, block a threat (`players._shared.engine.bit_root`)."""
        return bit_root(self.g, self.scale, self.cur, self.mask, self.moves, safe_only=False)

    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]:
        """Minimax values of the root moves `cols` at `depth`: (first best column, values)."""
        g = self.g
        cur, mask, moves = self.cur, self.mask, self.moves
        possible = (mask + g.bottom) & g.board
        wins = g.win_cells(cur, mask) & possible
        scores = []
        for col in cols:
            m = possible & g.columns[col]
            if m & wins:
                scores.append(win_score(self.size, moves + 1) * self.scale)
            else:
                scores.append(-self._value(cur ^ mask, mask | m, moves + 1, depth - 1))
        best = max(scores)
        return cols[scores.index(best)], scores

    def best_move(self, cur: int, mask: int, moves: int, stop_s: float,
                  max_depth: int | None = None) -> SearchResult:
        """The move to play (see `players._shared.engine.iterative_deepening`)."""
        self.set_position(cur, mask, moves)
        return iterative_deepening(self, stop_s, max_depth)


class GridMinimax(GridEngine):
    """Minimax over an incremental `GridPosition` for large boards (see module docstring)."""

    def value(self, depth: int) -> int:
        """Minimax value of the engine's position (the last move did not win)."""
        self.node_count += 1
        if time.perf_counter() > self.stop_s:
            raise SearchTimeout
        pos = self.pos
        if pos.moves >= self.size:
            return 0
        if depth <= 0:
            return pos.evaluate()
        win = win_score(self.size, pos.moves + 1) * self.scale
        best = -INF
        for col in self.candidates():
            v = win if self.play(col) else -self.value(depth - 1)
            self.undo()
            if v > best:
                best = v
        return best  # type: ignore[return-value]  # the board is not full: a move exists

    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]:
        """Minimax values of the root moves `cols` at `depth`: (first best column, values)."""
        n = self.pos.moves
        win = win_score(self.size, n + 1) * self.scale
        scores = []
        for col in cols:
            try:
                scores.append(win if self.play(col) else -self.value(depth - 1))
            finally:
                self.unwind(n)
        best = max(scores)
        return cols[scores.index(best)], scores
