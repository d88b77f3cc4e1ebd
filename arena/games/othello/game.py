"""Othello (Reversi) as a `Game`, on bitboards.

Rules: an n x n board (``size``, even, 4..26; 8 by default). Black (side 0) moves first. The
start position has white on d4 and e5 and black on e4 and d5 (generally: the four centre
squares, white on the main diagonal). A move places a disc that brackets one or more lines of
opponent discs, which flip. A side with no such move must pass (and may only pass); the game
ends when neither side can move, and the side with more discs wins (equal counts: a draw).

Notation: column letter and row number counted from the top (``d3``), and ``pass``. A move
value is the square index ``row * size + col`` (row 0 at the top), or `PASS` (-1).

Bitboards: bit ``row * size + col`` of one Python int per colour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from arena.games.base import Game, IllegalMoveError, MoveSyntaxError, Outcome, ParamError

__all__ = ["PASS", "Othello", "OthelloState", "perft"]

PASS = -1
_SQUARE = re.compile(r"([a-z])([0-9]{1,2})\Z")


@dataclass(frozen=True)
class OthelloState:
    """Black's and white's discs (bitboards) and the side to move (0 black, 1 white)."""

    black: int
    white: int
    side: int

    def discs(self, side: int) -> tuple[int, int]:
        """(own, opponent) bitboards for `side`."""
        return (self.black, self.white) if side == 0 else (self.white, self.black)


@cache
def _geometry(n: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """(all squares mask, ((shift, source mask), ...) for the 8 directions)."""
    full = (1 << (n * n)) - 1
    col0 = 0
    for r in range(n):
        col0 |= 1 << (r * n)
    not_left = full & ~col0  # squares not in column 0
    not_right = full & ~(col0 << (n - 1))  # squares not in the last column
    dirs = (
        (1, not_right), (-1, not_left), (n, full), (-n, full),
        (n + 1, not_right), (n - 1, not_left), (-n + 1, not_right), (-n - 1, not_left),
    )
    return full, dirs


def _moves_bits(own: int, opp: int, n: int) -> int:
    """The bitboard of squares where the owner of `own` may play."""
    full, dirs = _geometry(n)
    empty = full & ~(own | opp)
    moves = 0
    for s, mask in dirs:
        if s > 0:
            x = ((own & mask) << s) & opp
            for _ in range(n - 3):
                x |= ((x & mask) << s) & opp
            moves |= ((x & mask) << s) & empty
        else:
            t = -s
            x = ((own & mask) >> t) & opp
            for _ in range(n - 3):
                x |= ((x & mask) >> t) & opp
            moves |= ((x & mask) >> t) & empty
    return moves


def _flips(own: int, opp: int, sq: int, n: int) -> int:
    """The discs that a move on `sq` flips (0 if it flips none)."""
    full, dirs = _geometry(n)
    flips = 0
    start = 1 << sq
    for s, mask in dirs:
        f = 0
        b = start
        while True:
            if not b & mask:
                break
            b = (b << s) & full if s > 0 else b >> -s
            if b & opp:
                f |= b
                continue
            if b & own:
                flips |= f
            break
    return flips


def _bits(b: int) -> list[int]:
    out = []
    while b:
        low = b & -b
        out.append(low.bit_length() - 1)
        b ^= low
    return out


class Othello(Game[OthelloState, int]):
    name = "othello"
    PARAMS = {"size": 8}
    BOT_BASE = "arena.games.player:OthelloPlayer"
    PRESENTATION = "arena.games.othello.presentation:OthelloPresentation"

    def _validate(self) -> None:
        n = self.params["size"]
        if n % 2 or not 4 <= n <= 26:
            raise ParamError(f"othello: size must be even and between 4 and 26, got {n}")

    @property
    def size(self) -> int:
        return self.params["size"]

    def cost(self) -> float:
        """The board's squares."""
        return float(self.size * self.size)

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> OthelloState:
        n = self.size
        h = n // 2
        white = (1 << ((h - 1) * n + h - 1)) | (1 << (h * n + h))
        black = (1 << ((h - 1) * n + h)) | (1 << (h * n + h - 1))
        return OthelloState(black, white, 0)

    def to_move(self, state: OthelloState) -> int:
        return state.side

    def move_bits(self, state: OthelloState, side: int | None = None) -> int:
        """The bitboard of the squares `side` (default: the side to move) may play."""
        side = state.side if side is None else side
        own, opp = state.discs(side)
        return _moves_bits(own, opp, self.size)

    def legal_moves(self, state: OthelloState) -> list[int]:
        own, opp = state.discs(state.side)
        mine = _moves_bits(own, opp, self.size)
        if mine:
            return _bits(mine)
        if _moves_bits(opp, own, self.size):
            return [PASS]
        return []

    def flips(self, state: OthelloState, move: int) -> int:
        """The discs the side to move flips by playing `move` (0: not a legal square)."""
        if move == PASS:
            return 0
        own, opp = state.discs(state.side)
        if (own | opp) >> move & 1:
            return 0
        return _flips(own, opp, move, self.size)

    def apply(self, state: OthelloState, move: int) -> OthelloState:
        n = self.size
        own, opp = state.discs(state.side)
        if move == PASS:
            if _moves_bits(own, opp, n):
                raise IllegalMoveError("pass is only allowed without a legal move")
            if not _moves_bits(opp, own, n):
                raise IllegalMoveError("the game is over")
            return OthelloState(state.black, state.white, 1 - state.side)
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < n * n:
            raise IllegalMoveError(f"no square {move!r} on a {n}x{n} board")
        if (own | opp) >> move & 1:
            raise IllegalMoveError(f"{self.square_name(move)} is occupied")
        f = _flips(own, opp, move, n)
        if not f:
            raise IllegalMoveError(f"{self.square_name(move)} flips no disc")
        own |= f | (1 << move)
        opp &= ~f
        if state.side == 0:
            return OthelloState(own, opp, 1)
        return OthelloState(opp, own, 0)

    def outcome(self, state: OthelloState) -> Outcome | None:
        n = self.size
        if _moves_bits(state.black, state.white, n) or _moves_bits(state.white, state.black, n):
            return None
        b, w = state.black.bit_count(), state.white.bit_count()
        if b == w:
            return Outcome(None, "equal-discs", f"neither side can move; {b}-{w}")
        winner = 0 if b > w else 1
        return Outcome(winner, "more-discs", f"neither side can move; black {b}, white {w}")

    def counts(self, state: OthelloState) -> tuple[int, int]:
        """(black discs, white discs)."""
        return state.black.bit_count(), state.white.bit_count()

    # ------------------------------------------------------------------- text
    def square_name(self, sq: int) -> str:
        r, c = divmod(sq, self.size)
        return f"{chr(ord('a') + c)}{r + 1}"

    def move_to_text(self, state: OthelloState, move: int) -> str:
        return "pass" if move == PASS else self.square_name(move)

    def parse_move(self, state: OthelloState, text: str) -> int:
        if text == "pass":
            move = PASS
        else:
            m = _SQUARE.match(text)
            if not m:
                raise MoveSyntaxError(f"an Othello move is a square such as d3, or pass; "
                                      f"got {text!r}")
            c = ord(m.group(1)) - ord("a")
            r = int(m.group(2)) - 1
            if not (0 <= c < self.size and 0 <= r < self.size) or m.group(2).startswith("0"):
                raise MoveSyntaxError(f"{text!r} is not a square of the "
                                      f"{self.size}x{self.size} board")
            move = r * self.size + c
        legal = self.legal_moves(state)
        if move not in legal:
            if not legal:
                raise IllegalMoveError("the game is over")
            if move == PASS:
                raise IllegalMoveError("pass is only allowed without a legal move")
            raise IllegalMoveError(f"{text} is not a legal move here (it is occupied or "
                                   f"flips no disc)")
        return move



def perft(game: Othello, state: OthelloState, depth: int) -> int:
    """The number of move sequences of length `depth` from `state` (passes count as moves;
    a finished game ends a sequence early and counts once)."""
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    return sum(perft(game, game.apply(state, m), depth - 1) for m in moves)
