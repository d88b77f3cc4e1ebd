"""Fast random playouts for the Monte-Carlo bots (`montecarlo`, `mcts`); not a bot itself.

`CXBoard.markColumn` checks the whole board for a win after every move, which is far too slow
for thousands of random games per second. `Position` is a lightweight copy of a position made for
that job: a flat list of cells plus the column heights, where a move only looks at the lines
through the piece it just placed.

Cell layout (``H = M + 1``): column j, height h (0 = bottom) is ``grid[(j + 1) * H + h]``.
Index ``(j + 1) * H + M`` is an always-empty sentinel above column j, and there is an empty
padding column on each side (indices ``0 .. H-1`` and ``(N+1)*H .. (N+2)*H-1``), so walking
from a piece in any of the four directions always stops on a 0 before leaving the list (the one
step below column 0, row 0 diagonally is index -1, the right padding column's sentinel). Cell
codes: 0 empty, 1 first player, 2 second player (as in `CXCellState`).

`random_playout` finishes a game with uniformly random moves. It returns the winner's code, 0
for a draw, or None if the deadline passed first (the caller discards that playout); on a
100x100 board one playout can take longer than a whole move's time budget, so the clock is
checked every 64 moves.

Also shared by both bots: `tactical_moves` (immediate wins and threats on a `Position`)
and `candidate_columns` (which columns to consider, centre first; restricted on wide boards).
(`players._shared.common.no_gc_pauses` keeps the cycle collector from pausing their searches.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from arena.board import CXBoard

__all__ = [
    "Position",
    "candidate_columns",
    "random_playout",
    "tactical_moves",
]

#: on boards wider than this, tree/candidate moves are restricted to the neighbourhood of pieces
WIDE_BOARD_COLUMNS = 12
#: how far (in columns) from an occupied column a candidate move may be on a wide board
NEIGHBOURHOOD_RADIUS = 2


class Position:
    """A Connect-X position for playouts: cells, heights, side to move (see module docstring)."""

    __slots__ = ("M", "N", "K", "H", "grid", "heights", "free", "player", "nmoves")

    def __init__(self, M: int, N: int, K: int) -> None:
        self.M, self.N, self.K = M, N, K
        self.H = M + 1
        self.grid = [0] * ((N + 2) * self.H)
        self.heights = [0] * N
        self.free = list(range(N))  # columns that are not full, in no particular order
        self.player = 1  # code of the side to move: 1 or 2
        self.nmoves = 0

    @classmethod
    def from_board(cls, B: CXBoard) -> Position:
        """The position of a `CXBoard` (its move history replayed; no win checks)."""
        pos = cls(B.M, B.N, B.K)
        grid, heights, H = pos.grid, pos.heights, pos.H
        p = 1
        for c in B.moves():
            grid[(c + 1) * H + heights[c]] = p
            heights[c] += 1
            p = 3 - p
        pos.player = p
        pos.nmoves = B.numOfMarkedCells()
        pos.free = [c for c in range(B.N) if heights[c] < B.M]
        return pos

    def copy(self) -> Position:
        pos = Position.__new__(Position)
        pos.M, pos.N, pos.K, pos.H = self.M, self.N, self.K, self.H
        pos.grid = self.grid.copy()
        pos.heights = self.heights.copy()
        pos.free = self.free.copy()
        pos.player = self.player
        pos.nmoves = self.nmoves
        return pos

    def play(self, col: int) -> bool:
        """Drop the side to move's piece in `col` (not full); True if it connects K."""
        h = self.heights[col]
        idx = (col + 1) * self.H + h
        p = self.player
        won = self._connects(idx, p)
        self.grid[idx] = p
        self.heights[col] = h + 1
        if h + 1 == self.M:
            self.free.remove(col)
        self.player = 3 - p
        self.nmoves += 1
        return won

    def is_full(self) -> bool:
        return not self.free

    def wins_at(self, col: int, p: int, above: int = 0) -> bool:
        """Would a piece of player `p` connect K in `col`, `above` cells over its lowest free
        cell? (``above=1``: the cell the opponent gets if we play `col` first.) False if that
        cell is off the board."""
        h = self.heights[col] + above
        if h >= self.M:
            return False
        return self._connects((col + 1) * self.H + h, p)

    def _connects(self, idx: int, p: int) -> bool:
        """Would a piece of `p` at `idx` (empty, with everything below it filled) connect K?"""
        grid, K, H = self.grid, self.K, self.H
        n = 1
        j = idx - 1  # vertical: only pieces below can belong to the run
        while grid[j] == p:
            n += 1
            j -= 1
        if n >= K:
            return True
        for s in (H, H + 1, H - 1):  # horizontal, diagonal /, anti-diagonal \
            n = 1
            j = idx + s
            while grid[j] == p:
                n += 1
                j += s
            j = idx - s
            while grid[j] == p:
                n += 1
                j -= s
            if n >= K:
                return True
        return False


def random_playout(pos: Position, random: Callable[[], float], end_s: float = math.inf,
                   max_moves: int | None = None) -> int | None:
    """Finish the game from `pos` (which is consumed: pass a copy) with uniformly random moves.

    `random` is a ``random.Random(...).random`` bound method. Returns the winner's code (1 or
    2), 0 for a draw (full board, or `max_moves` moves played), or None when
    ``time.perf_counter()`` reached `end_s` first.
    """
    # This is `Position.play` + `Position._connects` inlined: a function call per move would
    # cost about a third of the speed.
    grid, heights, K, H, M = pos.grid, pos.heights, pos.K, pos.H, pos.M
    free = pos.free.copy()
    nfree = len(free)
    p = pos.player
    limit = math.inf if max_moves is None else max_moves
    clock = time.perf_counter
    s1, s2, s3 = H, H + 1, H - 1
    moves = 0
    while nfree:
        if moves & 63 == 63 and clock() >= end_s:
            return None
        if moves >= limit:
            return 0
        moves += 1
        i = int(random() * nfree)
        col = free[i]
        h = heights[col]
        idx = (col + 1) * H + h
        grid[idx] = p
        h += 1
        heights[col] = h
        if h == M:  # the column is full: swap-remove it from the free list
            nfree -= 1
            free[i] = free[nfree]
        # does the new piece connect K? (vertical: only pieces below it count)
        n = 1
        j = idx - 1
        while grid[j] == p:
            n += 1
            j -= 1
        if n >= K:
            return p
        for s in (s1, s2, s3):
            n = 1
            j = idx + s
            while grid[j] == p:
                n += 1
                j += s
            j = idx - s
            while grid[j] == p:
                n += 1
                j -= s
            if n >= K:
                return p
        p = 3 - p
    return 0


def tactical_moves(pos: Position) -> tuple[list[int], list[int]]:
    """(wins, threats) for the side to move, each ascending: the columns where it connects K at
    once, and the columns where the opponent would connect K if it could move now (which the
    side to move must block). Only `threats` is computed when there are no wins."""
    me = pos.player
    wins = [c for c in sorted(pos.free) if pos.wins_at(c, me)]
    if wins:
        return wins, []
    return [], [c for c in sorted(pos.free) if pos.wins_at(c, 3 - me)]


def candidate_columns(pos: Position) -> list[int]:
    """The legal columns worth searching, centre first.

    On boards up to `WIDE_BOARD_COLUMNS` columns that is every legal column. On wider boards it is
    the legal columns within `NEIGHBOURHOOD_RADIUS` columns of a column holding a piece (on an
    empty board: the centre column), which keeps the search near the action; it is never empty
    while a legal move exists.
    """
    N = pos.N
    legal = pos.free
    if N > WIDE_BOARD_COLUMNS:
        heights, r = pos.heights, NEIGHBOURHOOD_RADIUS
        near = [c for c in legal
                if any(heights[d] for d in range(max(0, c - r), min(N, c + r + 1)))]
        legal = near or legal
    cols = sorted(legal, key=lambda c: (abs(2 * c - (N - 1)), c))
    if N > WIDE_BOARD_COLUMNS and not pos.nmoves:
        cols = cols[:1]
    return cols
