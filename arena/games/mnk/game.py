"""The m,n,k-game as a `Game`, on bitboards: tic-tac-toe (3,3,3), gomoku (15,15,5) and the rest.

Rules: a board of ``m`` rows and ``n`` columns (1..26 each), empty at the start. The players
alternately put a stone of their colour on any empty cell; black (side 0) moves first. The
first to have ``k`` stones in a row (horizontally, vertically or diagonally; 1 <= k <=
max(m, n)) wins; a full board without such a row is a draw. Defaults: 3, 3, 3 (tic-tac-toe).

Notation: column letter and row number counted from the top, as in Othello (``b2``; ``a1`` is
the top left cell). A move value is the cell index ``row * n + col`` (row 0 at the top).

Bitboards: one Python int per colour, bit ``row * (n + 1) + col``: each row has one extra
(always empty) guard bit at its end, so that a run found by shifting (`has_run`, the doubling
trick of `arena.board`) never wraps from one row into the next. `MNK.bit(move)` and
`MNK.cells(bits)` convert between moves and bits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.games.base import Game, IllegalMoveError, MoveSyntaxError, Outcome, ParamError

__all__ = ["MAX_SIDE", "MNK", "MNKState", "has_run"]

#: the largest number of rows or columns (columns are the letters a-z)
MAX_SIDE = 26
_CELL = re.compile(r"([a-z])([1-9][0-9]?)\Z")


@dataclass(frozen=True)
class MNKState:
    """Black's and white's stones (padded bitboards, see the module docstring), the side to
    move (0 black, 1 white) and the winner so far (None while nobody has k in a row).

    Build states with `MNK.initial_state`, `MNK.apply` or `MNK.position`, which keep `winner`
    consistent with the stones.
    """

    black: int
    white: int
    side: int
    winner: int | None = None

    def stones(self, side: int) -> tuple[int, int]:
        """(own, opponent) bitboards for `side`."""
        return (self.black, self.white) if side == 0 else (self.white, self.black)


def has_run(bits: int, stride: int, k: int) -> bool:
    """True if `bits` holds k set bits spaced `stride` apart (as `arena.board.has_run`)."""
    m = bits
    n = 1
    while n * 2 <= k:
        m &= m >> (stride * n)
        n *= 2
    if n < k:
        m &= m >> (stride * (k - n))
    return m != 0


class MNK(Game[MNKState, int]):
    name = "mnk"
    PARAMS = {"m": 3, "n": 3, "k": 3}
    BOT_BASE = "arena.games.mnk.player:MNKPlayer"
    PRESENTATION = "arena.games.mnk.presentation:MNKPresentation"

    def __init__(self, **params: int) -> None:
        super().__init__(**params)
        m, n, k = self.params["m"], self.params["n"], self.params["k"]
        self.m, self.n, self.k = m, n, k
        w = n + 1
        #: the bitboard's row stride (n columns and one guard bit)
        self.width = w
        #: the strides of the four directions: across, down, down-right, down-left
        self.strides: tuple[int, ...] = (1, w, w + 1, w - 1)
        self._bit = tuple(1 << (r * w + c) for r in range(m) for c in range(n))
        self._move_of = {r * w + c: r * n + c for r in range(m) for c in range(n)}
        #: every cell's bit
        self.full = sum(self._bit)
        self._names = tuple(f"{chr(97 + c)}{r + 1}" for r in range(m) for c in range(n))

    def _validate(self) -> None:
        m, n, k = self.params["m"], self.params["n"], self.params["k"]
        if not (1 <= m <= MAX_SIDE and 1 <= n <= MAX_SIDE):
            raise ParamError(f"mnk: m (rows) and n (columns) must be between 1 and {MAX_SIDE}, "
                             f"got m={m} n={n}")
        if not 1 <= k <= max(m, n):
            raise ParamError(f"mnk: k must be between 1 and max(m, n)={max(m, n)}, got k={k}")

    def cost(self) -> float:
        """The board's cells."""
        return float(self.m * self.n)

    # --------------------------------------------------------------- bitboards
    def bit(self, move: int) -> int:
        """The bitboard bit of the cell `move` (``row * n + col``)."""
        return self._bit[move]

    def cells(self, bits: int) -> list[int]:
        """The moves (cell indices, ascending) of the set bits of `bits`."""
        out = []
        move_of = self._move_of
        while bits:
            low = bits & -bits
            out.append(move_of[low.bit_length() - 1])
            bits ^= low
        return out

    def wins(self, bits: int) -> bool:
        """True if the stones `bits` hold k in a row."""
        k = self.k
        for s in self.strides:
            if has_run(bits, s, k):
                return True
        return False

    def position(self, black: list[str], white: list[str], side: int | None = None) -> MNKState:
        """A hand-made position from cell names (for tests and puzzles); the side to move is
        black when the counts are equal, else white, unless given. The winner is derived from
        the stones (black first, when both have a row)."""
        b = sum(self._bit[self._parse_cell(t)] for t in black)
        w = sum(self._bit[self._parse_cell(t)] for t in white)
        if b & w:
            raise ValueError("a cell holds both colours")
        if side is None:
            side = 0 if len(black) == len(white) else 1
        winner = 0 if self.wins(b) else 1 if self.wins(w) else None
        return MNKState(b, w, side, winner)

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> MNKState:
        return MNKState(0, 0, 0, None)

    def to_move(self, state: MNKState) -> int:
        return state.side

    def empty(self, state: MNKState) -> int:
        """The bitboard of the empty cells."""
        return self.full & ~(state.black | state.white)

    def legal_moves(self, state: MNKState) -> list[int]:
        if state.winner is not None:
            return []
        return self.cells(self.full & ~(state.black | state.white))

    def apply(self, state: MNKState, move: int) -> MNKState:
        if state.winner is not None or (state.black | state.white) == self.full:
            raise IllegalMoveError("the game is over")
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < len(self._bit):
            raise IllegalMoveError(f"no cell {move!r} on a {self.m}x{self.n} board")
        if (state.black | state.white) & self._bit[move]:
            raise IllegalMoveError(f"{self._names[move]} is occupied")
        return self.apply_unchecked(state, move)

    def apply_unchecked(self, state: MNKState, move: int) -> MNKState:
        """`apply` for a move from `legal_moves` (no check; for searching bots)."""
        bit = self._bit[move]
        if state.side == 0:
            b = state.black | bit
            return MNKState(b, state.white, 1, 0 if self.wins(b) else None)
        w = state.white | bit
        return MNKState(state.black, w, 0, 1 if self.wins(w) else None)

    def outcome(self, state: MNKState) -> Outcome | None:
        if state.winner is not None:
            colour = "black" if state.winner == 0 else "white"
            return Outcome(state.winner, "k-in-a-row", f"{colour} has {self.k} in a row")
        if (state.black | state.white) == self.full:
            return Outcome(None, "full-board", "the board is full and nobody has "
                                               f"{self.k} in a row")
        return None

    def is_terminal(self, state: MNKState) -> bool:
        return state.winner is not None or (state.black | state.white) == self.full

    # ------------------------------------------------------------------- text
    def cell_name(self, move: int) -> str:
        """``b2`` for the cell `move`."""
        return self._names[move]

    def _parse_cell(self, text: str) -> int:
        m = _CELL.match(text)
        if not m:
            raise MoveSyntaxError(f"an m,n,k move is a cell such as b2 (column letter, row "
                                  f"number); got {text!r}")
        c = ord(m.group(1)) - 97
        r = int(m.group(2)) - 1
        if not (c < self.n and r < self.m):
            raise MoveSyntaxError(f"{text!r} is not a cell of the {self.m}x{self.n} board "
                                  f"(columns a-{chr(96 + self.n)}, rows 1-{self.m})")
        return r * self.n + c

    def move_to_text(self, state: MNKState, move: int) -> str:
        return self._names[move]

    def parse_move(self, state: MNKState, text: str) -> int:
        move = self._parse_cell(text)
        if self.is_terminal(state):
            raise IllegalMoveError("the game is over")
        if (state.black | state.white) & self._bit[move]:
            raise IllegalMoveError(f"{text} is occupied")
        return move
