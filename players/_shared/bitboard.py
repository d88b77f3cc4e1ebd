"""Pons-style bitboards for Connect-X on Python ints (not a bot: "_" modules are skipped).

The layout is `arena.board`'s: column j owns bits ``j*H .. j*H+M-1`` (H = M+1), bottom cell
first, and bit ``j*H+M`` is an always-empty sentinel, so shifting a set of cells by a direction's
stride never wraps from one column into the next. A position is three numbers:

- ``current``: the cells of the side to move;
- ``mask``: every occupied cell (so the opponent's cells are ``current ^ mask``);
- ``moves``: how many pieces are on the board.

Playing the lowest free cell of column j is ``mask + bottom_j`` (the carry runs up the column's
filled cells into the first free one), and the move in all columns at once is
``(mask + bottom) & board``. `Geometry` holds the masks of one board size; its `win_cells` finds
every empty cell that would complete K in a row for a set of pieces (K-1 pieces on one side or
split over both sides, in each of the four directions), and `BitPosition` wraps it all in a small
class with a stable API for the bots (the alpha-beta search inlines the same formulas).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from arena.board import CXBoard, has_run

__all__ = ["BitPosition", "Geometry", "centre_order", "geometry", "has_win"]


def centre_order(N: int) -> tuple[int, ...]:
    """Columns centre first: N//2, N//2-1, N//2+1, N//2-2, ... (the course's formula)."""
    return tuple(N // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2) for i in range(N))


class Geometry:
    """The constant masks of an M x N board with K to connect (one instance per size)."""

    __slots__ = ("M", "N", "K", "H", "size", "bottom", "board", "columns", "order", "strides",
                 "win_cells")

    def __init__(self, M: int, N: int, K: int) -> None:
        self.M, self.N, self.K = M, N, K
        self.H = H = M + 1
        self.size = M * N
        col = (1 << M) - 1
        #: one mask per column (its M playable cells)
        self.columns = tuple(col << (j * H) for j in range(N))
        #: the bottom cell of every column
        self.bottom = sum(1 << (j * H) for j in range(N))
        #: every playable cell (no sentinels)
        self.board = self.bottom * col
        #: columns in centre-first order
        self.order = centre_order(N)
        #: bit strides: vertical, horizontal, diagonal (/), anti-diagonal (\)
        self.strides = (1, H, H + 1, H - 1)
        #: ``win_cells(bits, mask)`` specialised to this board (see `win_cells`)
        self.win_cells = _make_win_cells(H, K, self.board)

    def cell(self, row_from_bottom: int, col: int) -> int:
        """The bit (a power of two) of a cell given by height and column."""
        return 1 << (col * self.H + row_from_bottom)


@lru_cache(maxsize=64)
def geometry(M: int, N: int, K: int) -> Geometry:
    """The shared `Geometry` of a board size."""
    return Geometry(M, N, K)


def _make_win_cells(H: int, K: int, board: int) -> Callable[[int, int], int]:
    """Build ``win_cells(bits, mask)`` for one board: the empty cells (anywhere on the board, not
    only playable ones) that would give `bits` K in a row.

    A cell x completes a run in the direction of stride s when, for some a + b = K-1, the a cells
    before it (x-s, ..., x-a*s) and the b cells after it are all in `bits`. ``left[a]`` marks the
    cells with at least a pieces just before them, ``right[b]`` those with b just after, and the
    answer is the union of ``left[a] & right[K-1-a]``. Vertically only the cells below can hold
    pieces. For K = 4, Pons' unrolled formula is used (same result, fewer operations).
    """
    if K == 1:
        return lambda bits, mask: board & ~mask
    if K == 4:
        h1, h2, h3 = H, 2 * H, 3 * H
        d1, d2, d3 = H + 1, 2 * (H + 1), 3 * (H + 1)
        a1, a2, a3 = H - 1, 2 * (H - 1), 3 * (H - 1)

        def win_cells4(bits: int, mask: int) -> int:
            # per direction, with the pairs p = bits & bits >> s (cell and the next one own),
            # an empty cell x completes four when x+s, x+2s and (x+3s or x-s) are own, or when
            # x-2s, x-s and (x+s or x-3s) are own
            r = (bits << 1) & (bits << 2) & (bits << 3)
            p = bits & (bits >> h1)
            r |= ((p >> h1) & ((bits >> h3) | (bits << h1))
                  | (p << h2) & ((bits >> h1) | (bits << h3)))
            p = bits & (bits >> d1)
            r |= ((p >> d1) & ((bits >> d3) | (bits << d1))
                  | (p << d2) & ((bits >> d1) | (bits << d3)))
            p = bits & (bits >> a1)
            r |= ((p >> a1) & ((bits >> a3) | (bits << a1))
                  | (p << a2) & ((bits >> a1) | (bits << a3)))
            return r & (board ^ mask)

        return win_cells4

    km1 = K - 1

    def win_cells_k(bits: int, mask: int) -> int:
        v = bits << 1
        for i in range(2, K):
            v &= bits << i
        r = v
        for s in (H, H + 1, H - 1):
            left = [-1] * K  # -1 is "every cell" for &
            acc = -1
            for a in range(1, K):
                acc &= bits << (a * s)
                left[a] = acc
            r |= acc  # left[K-1]: K-1 pieces before the cell
            acc = -1
            for b in range(1, K):
                acc &= bits >> (b * s)
                if not acc:
                    break
                r |= left[km1 - b] & acc
        return r & (board ^ mask)

    return win_cells_k


def has_win(bits: int, H: int, K: int) -> bool:
    """True if `bits` holds K in a row in any direction (`arena.board.has_run` per direction)."""
    return (has_run(bits, 1, K) or has_run(bits, H, K) or has_run(bits, H + 1, K)
            or has_run(bits, H - 1, K))


class BitPosition:
    """A Connect-X position on bitboards (see the module docstring for the representation).

    Cheap to build from a `CXBoard` (``from_board`` reads its bitboards) and to copy. `play`
    does not check for a win: ask `is_winning_move` first (the search never plays on after a
    win). Columns are 0-based as in `CXBoard`.
    """

    __slots__ = ("g", "current", "mask", "moves")

    def __init__(self, M: int, N: int, K: int) -> None:
        self.g = geometry(M, N, K)
        self.current = 0
        self.mask = 0
        self.moves = 0

    @classmethod
    def from_board(cls, B: CXBoard) -> BitPosition:
        """The position of B (whose side to move becomes ``current``)."""
        pos = cls.__new__(cls)
        pos.g = geometry(B.M, B.N, B.K)
        b1, b2 = B.bitboards
        pos.current = b2 if B.currentPlayer() else b1
        pos.mask = b1 | b2
        pos.moves = B.numOfMarkedCells()
        return pos

    def copy(self) -> BitPosition:
        pos = BitPosition.__new__(BitPosition)
        pos.g, pos.current, pos.mask, pos.moves = self.g, self.current, self.mask, self.moves
        return pos

    # ------------------------------------------------------------------ moves
    def play(self, col: int) -> None:
        """Drop the side to move's piece in `col` (must not be full); the other side moves next."""
        self.current ^= self.mask
        self.mask |= self.mask + (1 << (col * self.g.H))
        self.moves += 1

    def is_winning_move(self, col: int) -> bool:
        """Would the side to move complete K in a row by playing `col` (which must not be full)?"""
        g = self.g
        move = (self.mask + (1 << (col * g.H))) & g.columns[col]
        return has_win(self.current | move, g.H, g.K)

    # ---------------------------------------------------------------- queries
    @property
    def opponent(self) -> int:
        """The cells of the side that just moved."""
        return self.current ^ self.mask

    def possible(self) -> int:
        """The playable cell of every non-full column, as one bitboard."""
        g = self.g
        return (self.mask + g.bottom) & g.board

    def legal_columns(self) -> list[int]:
        """Non-full columns, ascending."""
        p = self.possible()
        return [j for j, c in enumerate(self.g.columns) if p & c]

    def winning_moves(self) -> list[int]:
        """Columns where the side to move wins at once, ascending."""
        g = self.g
        w = g.win_cells(self.current, self.mask) & self.possible()
        return [j for j, c in enumerate(g.columns) if w & c]

    def threats(self) -> list[int]:
        """Columns where the opponent would win if it moved now, ascending."""
        g = self.g
        w = g.win_cells(self.opponent, self.mask) & self.possible()
        return [j for j, c in enumerate(g.columns) if w & c]

    def is_full(self) -> bool:
        return self.moves >= self.g.size

    def key(self) -> int:
        """A number identifying the position and the side to move (``current + mask``)."""
        return self.current + self.mask

    def __repr__(self) -> str:
        g = self.g
        return f"BitPosition({g.M}, {g.N}, {g.K}, moves={self.moves}, key={self.key()})"
