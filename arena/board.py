"""The Connect-X rules: `CXBoard`, mirroring the course's Java `CXBoard` name for name.

A board has M rows and N columns; row 0 is the top row, so pieces fill a column from row M-1
upward; columns are numbered 0..N-1; player P1 moves first. K (or more) pieces of one player in
a row, horizontally, vertically or diagonally, win; a full board without a winner is a draw.

This module is pure: no I/O, no logging, nothing a searching bot would not want on its hot path.

Internally the position is kept three ways, each updated in O(1) per move:
- one bitboard (a Python int) per player. Column j owns bits j*(M+1) .. j*(M+1)+M-1, bottom
  cell first; bit j*(M+1)+M is an always-empty sentinel, so shifts never wrap between columns.
  Cell (i, j) is bit ``j*(M+1) + (M-1-i)``. Read them with `bitboards`; fast bots may build on
  them (see `bit_index`).
- a flat list of cell codes (row-major) for `cellState` and `getBoard`;
- the column heights and the move history, for `markColumn`/`unmarkColumn`.

Errors (all subclasses of `CXMoveError`, itself a `ValueError`), and the board is unchanged:
- `ColumnOutOfRangeError`: column not an int in 0..N-1;
- `ColumnFullError`: the column is full;
- `GameOverError`: the game is already decided (won or drawn);
- `NoMoveToUndoError`: `unmarkColumn` on an empty board.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from numbers import Integral
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported by getBoard alone: every `cxarena` command imports
    import numpy as np  # the rules, and numpy's import is a third of the command's start-up

__all__ = [
    "CXBoard",
    "CXCell",
    "CXCellState",
    "CXGameState",
    "CXMoveError",
    "ColumnFullError",
    "ColumnOutOfRangeError",
    "GameOverError",
    "NoMoveToUndoError",
]


class CXCellState(IntEnum):
    """What a cell holds. The int values are the codes in `CXBoard.getBoard()`."""

    FREE = 0
    P1 = 1
    P2 = 2


class CXGameState(Enum):
    """Whether the game goes on, and how it ended."""

    OPEN = "open"
    DRAW = "draw"
    WINP1 = "winp1"
    WINP2 = "winp2"


@dataclass(frozen=True)
class CXCell:
    """A marked cell: row i (0 = top), column j, and whose piece it is."""

    i: int
    j: int
    state: CXCellState


class CXMoveError(ValueError):
    """A move or undo that the rules forbid; the board is left unchanged."""


class ColumnOutOfRangeError(CXMoveError):
    """The column is not an integer in 0..N-1."""


class ColumnFullError(CXMoveError):
    """The column has no free cell."""


class GameOverError(CXMoveError):
    """The game is already won or drawn."""


class NoMoveToUndoError(CXMoveError):
    """`unmarkColumn` was called on a board without moves."""


_WIN_STATES = (CXGameState.WINP1, CXGameState.WINP2)
_PLAYER_CELLS = (CXCellState.P1, CXCellState.P2)


def has_run(bits: int, stride: int, k: int) -> bool:
    """True if `bits` holds k set bits spaced `stride` apart (a run of k in one direction).

    Uses doubling: after each step, bit p of m is set iff bits p, p+s, ..., p+(n-1)s are all set.
    """
    m = bits
    n = 1
    while n * 2 <= k:
        m &= m >> (stride * n)
        n *= 2
    if n < k:
        m &= m >> (stride * (k - n))
    return m != 0


class CXBoard:
    """A Connect-X position with the course's API (see the module docstring)."""

    __slots__ = ("M", "N", "K", "_H", "_cells", "_heights", "_bits", "_moves", "_state",
                 "_player", "_strides")

    def __init__(self, M: int, N: int, K: int) -> None:
        for name, value in (("M", M), ("N", N), ("K", K)):
            if not isinstance(value, Integral) or isinstance(value, bool):  # numpy's too
                raise ValueError(f"{name} must be an integer, got {value!r}")
        M, N, K = int(M), int(N), int(K)
        if M < 1 or N < 1:
            raise ValueError(f"board must have at least 1 row and 1 column, got M={M} N={N}")
        if not 1 <= K <= max(M, N):
            raise ValueError(f"K must be between 1 and max(M, N)={max(M, N)}, got K={K}")
        self.M = M
        self.N = N
        self.K = K
        self._H = M + 1
        # vertical, horizontal, diagonal (/), anti-diagonal (\) in bit strides
        self._strides = (1, self._H, self._H + 1, self._H - 1)
        self._cells = [0] * (M * N)
        self._heights = [0] * N
        self._bits = [0, 0]
        self._moves: list[tuple[int, int]] = []
        self._state = CXGameState.OPEN
        self._player = 0

    # ------------------------------------------------------------------ moves
    def markColumn(self, col: int) -> CXGameState:
        """Drop the current player's piece in `col`; return the new game state.

        Raises GameOverError, ColumnOutOfRangeError or ColumnFullError (board unchanged).
        """
        if self._state is not CXGameState.OPEN:
            raise GameOverError(f"the game is over ({self._state.name}); no more moves")
        if type(col) is not int and (isinstance(col, bool) or not isinstance(col, Integral)):
            raise ColumnOutOfRangeError(f"column must be an integer, got {col!r}")
        col = int(col)
        if not 0 <= col < self.N:
            raise ColumnOutOfRangeError(f"column {col} is out of range 0..{self.N - 1}")
        h = self._heights[col]
        if h >= self.M:
            raise ColumnFullError(f"column {col} is full")
        p = self._player
        i = self.M - 1 - h
        self._heights[col] = h + 1
        self._cells[i * self.N + col] = p + 1
        bits = self._bits[p] | (1 << (col * self._H + h))
        self._bits[p] = bits
        self._moves.append((i, col))
        self._player = 1 - p
        k = self.K
        for s in self._strides:
            if has_run(bits, s, k):
                self._state = _WIN_STATES[p]
                return self._state
        if len(self._moves) == self.M * self.N:
            self._state = CXGameState.DRAW
        return self._state

    def unmarkColumn(self) -> None:
        """Undo the last move exactly (state back to OPEN). Raises NoMoveToUndoError."""
        if not self._moves:
            raise NoMoveToUndoError("there is no move to undo")
        i, col = self._moves.pop()
        p = 1 - self._player
        h = self._heights[col] - 1
        self._heights[col] = h
        self._cells[i * self.N + col] = 0
        self._bits[p] ^= 1 << (col * self._H + h)
        self._player = p
        self._state = CXGameState.OPEN

    # ---------------------------------------------------------------- queries
    def getAvailableColumns(self) -> list[int]:
        """The columns that are not full, ascending (as in Java, whatever the game state)."""
        M = self.M
        return [j for j, h in enumerate(self._heights) if h < M]

    def fullColumn(self, col: int) -> bool:
        """True if column `col` has no free cell."""
        if not 0 <= col < self.N:
            raise ColumnOutOfRangeError(f"column {col} is out of range 0..{self.N - 1}")
        return self._heights[col] >= self.M

    def cellState(self, i: int, j: int) -> CXCellState:
        """What cell (row i, column j) holds; row 0 is the top row."""
        if not (0 <= i < self.M and 0 <= j < self.N):
            raise IndexError(f"cell ({i}, {j}) is outside the {self.M}x{self.N} board")
        return CXCellState(self._cells[i * self.N + j])

    def getLastMove(self) -> CXCell | None:
        """The last marked cell, or None on an empty board."""
        if not self._moves:
            return None
        i, j = self._moves[-1]
        return CXCell(i, j, _PLAYER_CELLS[(len(self._moves) - 1) % 2])

    def getMarkedCells(self) -> list[CXCell]:
        """All marked cells in the order they were played."""
        return [CXCell(i, j, _PLAYER_CELLS[n % 2]) for n, (i, j) in enumerate(self._moves)]

    def gameState(self) -> CXGameState:
        """OPEN, DRAW, WINP1 or WINP2."""
        return self._state

    def currentPlayer(self) -> int:
        """0 if P1 is to move, 1 if P2 is to move."""
        return self._player

    def numOfMarkedCells(self) -> int:
        """How many pieces are on the board."""
        return len(self._moves)

    def numOfFreeCells(self) -> int:
        """How many cells are free."""
        return self.M * self.N - len(self._moves)

    def getBoard(self) -> np.ndarray:
        """A copy of the cells as an M x N int8 array of CXCellState codes (0 free, 1, 2)."""
        import numpy as np  # here alone: see the module's imports

        return np.array(self._cells, dtype=np.int8).reshape(self.M, self.N)

    def copy(self) -> CXBoard:
        """An independent copy."""
        b = CXBoard.__new__(CXBoard)
        b.M, b.N, b.K, b._H, b._strides = self.M, self.N, self.K, self._H, self._strides
        b._cells = self._cells.copy()
        b._heights = self._heights.copy()
        b._bits = self._bits.copy()
        b._moves = self._moves.copy()
        b._state = self._state
        b._player = self._player
        return b

    # ------------------------------------------------ extras (not in the course)
    @property
    def bitboards(self) -> tuple[int, int]:
        """(P1 bits, P2 bits); see the module docstring for the layout. Read-only copies."""
        return self._bits[0], self._bits[1]

    def bit_index(self, i: int, j: int) -> int:
        """The bit of cell (i, j) in `bitboards`."""
        return j * self._H + (self.M - 1 - i)

    def heights(self) -> list[int]:
        """Pieces in each column (a copy)."""
        return self._heights.copy()

    def moves(self) -> list[int]:
        """The columns played so far, in order."""
        return [j for _, j in self._moves]

    @classmethod
    def from_moves(cls, M: int, N: int, K: int, cols: list[int]) -> CXBoard:
        """A board after playing `cols` in order from the empty position."""
        b = cls(M, N, K)
        for c in cols:
            b.markColumn(c)
        return b

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CXBoard):
            return NotImplemented
        return (self.M, self.N, self.K, self._moves) == (other.M, other.N, other.K, other._moves)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"CXBoard({self.M}, {self.N}, {self.K}, moves={self.moves()})"

    def __str__(self) -> str:
        sym = ".XO"
        rows = ["".join(sym[self._cells[i * self.N + j]] for j in range(self.N))
                for i in range(self.M)]
        return "\n".join(rows)
