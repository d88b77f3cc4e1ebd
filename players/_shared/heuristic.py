"""The squared-open-run heuristic shared by the search bots (not a bot itself).

Every window of K consecutive cells in a row, column, diagonal or anti-diagonal that holds pieces
of only one player scores the square of its piece count for that player; a position is worth the
side's total minus the opponent's. Two ways to compute it live here:

- `evaluate(g, mine, theirs)`: from scratch on bitboards, one mask per window. Used on small
  boards (at most a few dozen windows) at the search horizon, and as the reference in tests.
- `GridPosition`: a position for large boards (20x20 and up) that keeps, for every window, how
  many pieces each player has in it and the total score, and updates them on every move and
  undo by visiting only the (at most 4K) windows through the changed cell. A window's count
  reaching K is also how it detects a win, so a move costs O(K) whatever the board size. The
  window lists of a cell are built the first time the cell is touched, so creating a position
  costs nothing even on 100x100.

`bound(M, N, K)` is a number larger than any heuristic value on that board: the search scales
exact (game-theoretic) scores by it so that the two never collide.
"""

from __future__ import annotations

import random
from functools import lru_cache

from players._shared.bitboard import Geometry

__all__ = ["GridPosition", "bound", "cell_window_masks", "evaluate", "window_count",
           "window_masks"]

#: directions as (column step, row step): horizontal, vertical, diagonal /, anti-diagonal \
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def window_count(M: int, N: int, K: int) -> int:
    """How many windows of K cells fit on an M x N board (all four directions)."""
    h = M * max(0, N - K + 1)
    v = N * max(0, M - K + 1)
    d = max(0, N - K + 1) * max(0, M - K + 1)
    return h + v + 2 * d


def bound(M: int, N: int, K: int) -> int:
    """A strict upper bound on |heuristic| for the board (every window full of one player)."""
    return window_count(M, N, K) * K * K + 1


@lru_cache(maxsize=64)
def window_masks(g: Geometry) -> tuple[int, ...]:
    """Bitboard masks (see `players._shared.bitboard`) of every window of K cells on board g."""
    out = []
    for dc, dr in DIRECTIONS:
        for c0 in range(g.N):
            for r0 in range(g.M):
                c1, r1 = c0 + (g.K - 1) * dc, r0 + (g.K - 1) * dr
                if 0 <= c1 < g.N and 0 <= r1 < g.M:
                    out.append(sum(g.cell(r0 + t * dr, c0 + t * dc) for t in range(g.K)))
    return tuple(out)


@lru_cache(maxsize=64)
def cell_window_masks(g: Geometry) -> dict[int, tuple[int, ...]]:
    """For every cell (as its bit) of board g, the masks of the windows through it."""
    windows = window_masks(g)
    return {g.cell(h, j): tuple(w for w in windows if w & g.cell(h, j))
            for j in range(g.N) for h in range(g.M)}


_SQUARES = tuple(n * n for n in range(65))


def evaluate(windows: tuple[int, ...], mine: int, theirs: int) -> int:
    """The heuristic from scratch: `mine`'s open-run score minus `theirs` (bitboards)."""
    score = 0
    sq = _SQUARES
    for w in windows:
        a = w & mine
        if a:
            if not w & theirs:
                score += sq[a.bit_count()]
        else:
            b = w & theirs
            if b:
                score -= sq[b.bit_count()]
    return score


class GridPosition:
    """A large-board position with an incrementally updated heuristic (see module docstring).

    Cells are numbered ``idx = col * M + row`` with row 0 at the bottom. Players are 0 (moves
    first) and 1. ``score`` is the heuristic from player 0's point of view; ``won`` is True once
    the last move completed K in a row (no move may be played after that). ``key`` is a Zobrist
    hash of the position (64-bit, from ``seed``), updated on every move.
    """

    __slots__ = ("M", "N", "K", "size", "heights", "cells", "counts", "score", "won", "moves",
                 "history", "key", "_zobrist", "_windows", "_rng")

    def __init__(self, M: int, N: int, K: int, seed: int = 0) -> None:
        self.M, self.N, self.K = M, N, K
        self.size = M * N
        self.heights = [0] * N
        self.cells = [-1] * self.size  # -1 empty, else the player's number
        # pieces of each player in each window; window id = direction * size + start cell
        self.counts = ([0] * (4 * self.size), [0] * (4 * self.size))
        self.score = 0
        self.won = False
        self.moves = 0
        self.history: list[tuple[int, int, bool]] = []  # (col, score before, won before)
        self.key = 0
        self._rng = random.Random(seed)
        self._zobrist: dict[int, tuple[int, int]] = {}
        self._windows: list[tuple[int, ...] | None] = [None] * self.size

    # ----------------------------------------------------------- construction
    @classmethod
    def from_moves(cls, M: int, N: int, K: int, cols: list[int], seed: int = 0) -> GridPosition:
        pos = cls(M, N, K, seed)
        for c in cols:
            pos.play(c)
        return pos

    def windows_of(self, idx: int) -> tuple[int, ...]:
        """Ids of the windows through cell idx (built once, then cached)."""
        w = self._windows[idx]
        if w is None:
            w = self._windows[idx] = self._build_windows(idx)
        return w

    def _build_windows(self, idx: int) -> tuple[int, ...]:
        """The windows through cell idx. A window is named by its direction d and its first
        cell; those through a cell form, per direction, an arithmetic progression of first
        cells ``idx - t * step`` (t = how far the cell is from the window's start), so only the
        range of valid t is worked out."""
        M, N, K, size = self.M, self.N, self.K, self.size
        col, row = divmod(idx, M)
        out: list[int] = []
        for d, (dc, dr) in enumerate(DIRECTIONS):
            t_lo, t_hi = 0, K - 1
            if dc:  # first column col - t >= 0, last column col - t + K - 1 <= N - 1
                t_lo, t_hi = max(t_lo, col + K - N), min(t_hi, col)
            if dr == 1:  # rows going up: row - t >= 0 and row - t + K - 1 <= M - 1
                t_lo, t_hi = max(t_lo, row + K - M), min(t_hi, row)
            elif dr == -1:  # rows going down: row + t <= M - 1 and row + t - (K - 1) >= 0
                t_lo, t_hi = max(t_lo, K - 1 - row), min(t_hi, M - 1 - row)
            if t_lo > t_hi:
                continue
            step = dc * M + dr or 1  # (0 only when M = 1, K = 1: a single window)
            base = d * size + idx
            out.extend(range(base - t_hi * step, base - t_lo * step + 1, step))
        return tuple(out)

    def zobrist(self, idx: int) -> tuple[int, int]:
        """The two random 64-bit numbers of cell idx (player 0's, player 1's)."""
        z = self._zobrist.get(idx)
        if z is None:
            z = self._zobrist[idx] = (self._rng.getrandbits(64), self._rng.getrandbits(64))
        return z

    # ------------------------------------------------------------------ moves
    @property
    def player(self) -> int:
        """The side to move: 0 or 1."""
        return self.moves & 1

    def play(self, col: int) -> bool:
        """Drop the side to move's piece in `col` (not full, game not won); True if it wins."""
        h = self.heights[col]
        idx = col * self.M + h
        p = self.moves & 1
        self.history.append((col, self.score, self.won))
        own = self.counts[p]
        other = self.counts[1 - p]
        K = self.K
        delta = 0
        won = False
        for w in self.windows_of(idx):
            a = own[w]
            b = other[w]
            if not b:
                delta += 2 * a + 1  # (a+1)^2 - a^2
                if a + 1 == K:
                    won = True
            elif not a:
                delta += b * b  # the opponent's open window is closed
            own[w] = a + 1
        self.score += delta if p == 0 else -delta
        self.won = won
        self.cells[idx] = p
        self.heights[col] = h + 1
        self.moves += 1
        self.key ^= self.zobrist(idx)[p]
        return won

    def undo(self) -> None:
        """Take back the last move."""
        col, self.score, self.won = self.history.pop()
        self.moves -= 1
        p = self.moves & 1
        h = self.heights[col] - 1
        self.heights[col] = h
        idx = col * self.M + h
        self.cells[idx] = -1
        own = self.counts[p]
        for w in self.windows_of(idx):
            own[w] -= 1
        self.key ^= self.zobrist(idx)[p]

    # ---------------------------------------------------------------- queries
    def wins_at(self, col: int, p: int) -> bool:
        """Would a piece of player p in column `col` (not full) complete K in a row?"""
        idx = col * self.M + self.heights[col]
        own = self.counts[p]
        other = self.counts[1 - p]
        km1 = self.K - 1
        return any(own[w] == km1 and not other[w] for w in self.windows_of(idx))

    def evaluate(self) -> int:
        """The heuristic from the side to move's point of view."""
        return -self.score if self.moves & 1 else self.score

    def recompute_score(self) -> int:
        """The heuristic for player 0 from scratch over the cells (a slow cross-check)."""
        M, N, K = self.M, self.N, self.K
        total = 0
        for dc, dr in DIRECTIONS:
            for c0 in range(N):
                for r0 in range(M):
                    c1, r1 = c0 + (K - 1) * dc, r0 + (K - 1) * dr
                    if not (0 <= c1 < N and 0 <= r1 < M):
                        continue
                    n = [0, 0]
                    for t in range(K):
                        v = self.cells[(c0 + t * dc) * M + r0 + t * dr]
                        if v >= 0:
                            n[v] += 1
                    if n[0] and not n[1]:
                        total += n[0] ** 2
                    elif n[1] and not n[0]:
                        total -= n[1] ** 2
        return total
