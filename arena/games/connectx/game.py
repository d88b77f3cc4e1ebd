"""Connect-X as a `Game`: a thin wrapper around `arena.board.CXBoard`, whose rules it uses as is.

A move is a column (an int, 0 = leftmost); its text form is the decimal column, as in protocol
v1. Parameters: ``rows`` (M), ``cols`` (N), ``k`` (K). Player 1 of `CXBoard` is side 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.board import CXBoard, CXGameState, CXMoveError
from arena.games.base import (
    Game,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    ParamError,
    Position,
)

__all__ = ["CXPosition", "ConnectX", "ConnectXState"]

_COL = re.compile(r"[0-9]+\Z")
_INT = re.compile(r"-?[0-9]+\Z")


@dataclass(frozen=True)
class ConnectXState:
    """The columns played so far; the board is derived from them (and cached)."""

    moves: tuple[int, ...]
    board: CXBoard = field(compare=False, hash=False, repr=False)


class ConnectX(Game[ConnectXState, int]):
    name = "connectx"
    PARAMS = {"rows": 6, "cols": 7, "k": 4}
    #: the course's words: ``newgame M N K ...`` is protocol version 1
    DIALECT = 1
    DIALECT_FIELDS = 3
    DIALECT_ADAPTER = "arena.games.connectx.entrant:CourseAdapter"
    CALLS = ("initPlayer", "selectColumn")
    BOARD_PARAMS = ("rows", "cols", "k")  # a board [M, N, K]: the course's words
    COURSE_BOTS = True
    REFERENCE_BOTS = ("players.L0", "players.L1")
    PRESENTATION = "arena.games.connectx.presentation:ConnectXPresentation"

    @classmethod
    def dialect_fields(cls, params: Mapping[str, int]) -> list[str]:
        return [str(int(params[key])) for key in ("rows", "cols", "k")]

    @classmethod
    def dialect_params(cls, fields: Sequence[str]) -> dict[str, int]:
        rows, cols, k = (int(f) for f in fields)
        return {"rows": rows, "cols": cols, "k": k}

    def _validate(self) -> None:
        try:
            CXBoard(self.params["rows"], self.params["cols"], self.params["k"])
        except ValueError as e:
            raise ParamError(f"connectx: {e}") from None

    @property
    def M(self) -> int:
        return self.params["rows"]

    @property
    def N(self) -> int:
        return self.params["cols"]

    @property
    def K(self) -> int:
        return self.params["k"]

    # the referee's view: a CXBoard moved in place
    def new_position(self) -> CXPosition:
        return CXPosition(self)

    def cost(self) -> float:
        return float(self.M * self.N)

    # generated openings: near the centre on wide boards, one per position up to its mirror
    def opening_moves(self, state: ConnectXState) -> list[int]:
        """The legal columns; on boards wider than 9 columns those within 3 of the centre, so
        that openings stay where the game is."""
        legal = self.legal_moves(state)
        if self.N <= 9:
            return legal
        centre = (self.N - 1) / 2
        return [c for c in legal if abs(c - centre) <= 3] or legal

    def opening_key(self, state: ConnectXState, texts: Sequence[str]) -> bytes:
        """The position, the same for its mirror image and for move orders that transpose
        (mirror images make the same games for any bot that does not prefer a side)."""
        grid = state.board.getBoard()
        return min(grid.tobytes(), grid[:, ::-1].copy().tobytes())

    def initial_state(self) -> ConnectXState:
        return ConnectXState((), CXBoard(self.M, self.N, self.K))

    def state_from_board(self, board: CXBoard) -> ConnectXState:
        """The state of a `CXBoard` (copied)."""
        return ConnectXState(tuple(board.moves()), board.copy())

    def to_move(self, state: ConnectXState) -> int:
        return state.board.currentPlayer()

    def legal_moves(self, state: ConnectXState) -> list[int]:
        if state.board.gameState() is not CXGameState.OPEN:
            return []
        return state.board.getAvailableColumns()

    def apply(self, state: ConnectXState, move: int) -> ConnectXState:
        board = state.board.copy()
        try:
            board.markColumn(move)
        except CXMoveError as e:
            raise IllegalMoveError(str(e)) from None
        return ConnectXState(state.moves + (int(move),), board)

    def outcome(self, state: ConnectXState) -> Outcome | None:
        gs = state.board.gameState()
        if gs is CXGameState.OPEN:
            return None
        if gs is CXGameState.DRAW:
            return Outcome(None, "board-full", "the board is full")
        winner = 0 if gs is CXGameState.WINP1 else 1
        return Outcome(winner, "k-in-a-row", f"{self.K} in a row")

    def move_to_text(self, state: ConnectXState, move: int) -> str:
        return str(int(move))

    def parse_move(self, state: ConnectXState, text: str) -> int:
        if not _INT.match(text) or len(text) > 30:
            raise MoveSyntaxError(f"{text[:20]!r} is not a column number; give one from 0 to "
                                  f"{self.N - 1}")
        col = int(text)
        if col < 0:  # not a column at all: the notation's error, said as the course says it
            raise MoveSyntaxError(f"column {col} is out of range 0..{self.N - 1}")
        if col >= self.N:
            raise IllegalMoveError(f"column {col} is out of range 0..{self.N - 1}")
        if state.board.fullColumn(col):
            raise IllegalMoveError(f"column {col} is full")
        if col not in self.legal_moves(state):
            raise IllegalMoveError(f"column {col} cannot be played: the game is over")
        return col

class CXPosition(Position):
    """Connect-X for the referee: one `CXBoard`, moved in place (no copy per move). Its
    refusals say what the course's referee says ("column 9 is out of range 0..6")."""

    def __init__(self, game: ConnectX) -> None:  # no immutable state kept: only the board
        self.game = game
        self.board = CXBoard(game.M, game.N, game.K)
        self._state = CXGameState.OPEN

    def to_move(self) -> int:
        return self.board.currentPlayer()

    def outcome(self) -> Outcome | None:
        gs = self._state
        if gs is CXGameState.OPEN:
            return None
        # in the record's own words (`connect`, `draw`), as the course's referee records them
        if gs is CXGameState.DRAW:
            return Outcome(None, "draw", "")
        return Outcome(0 if gs is CXGameState.WINP1 else 1, "connect", "")

    def play(self, text: str) -> str:
        if not _INT.match(text):
            raise MoveSyntaxError(f"answer {text!r} is not an integer")
        board = self.board
        if len(text) > 30 or not 0 <= int(text) < board.N:
            shown = text if len(text) <= 30 else f"{text[:20]}... ({len(text)} chars)"
            raise IllegalMoveError(f"column {shown} is out of range 0..{board.N - 1}")
        col = int(text)
        try:
            self._state = board.markColumn(col)
        except CXMoveError as e:
            raise IllegalMoveError(str(e)) from None
        return str(col)
