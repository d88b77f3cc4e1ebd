"""Connect-X as a `Game`: a thin wrapper around `arena.board.CXBoard`, whose rules it uses as is.

A move is a column (an int, 0 = leftmost); its text form is the decimal column, as in protocol
v1. Parameters: ``rows`` (M), ``cols`` (N), ``k`` (K). Player 1 of `CXBoard` is side 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.board import CXBoard, CXCellState, CXGameState, CXMoveError
from arena.games.base import (
    Game,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    ParamError,
    Position,
)

__all__ = ["CXPosition", "ConnectX", "ConnectXState", "draw_board", "numbered_board",
           "winning_cells"]

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
    SIDES = ("X", "O")
    TITLE = "Connect-X"
    PARAM_LABELS = {"rows": "Rows M", "cols": "Columns N", "k": "In a row K"}
    MOVE_NOUN = "column"
    DRAWER_REPLAYS = True  # draw.js knows the rules: the report sends the columns
    BOARD_PARAMS = ("rows", "cols", "k")  # a board [M, N, K]: the course's words
    COURSE_BOTS = True
    REFERENCE_BOTS = ("players.L0", "players.L1")

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

    # the referee's view: a CXBoard moved in place, records in M, N, K and columns
    def new_position(self) -> CXPosition:
        return CXPosition(self)

    def label_for_record(self) -> str:
        return f"{self.M}x{self.N}x{self.K}"

    def record_fields(self, texts: Sequence[str], opening: Sequence[str]) -> dict[str, Any]:
        return {"M": self.M, "N": self.N, "K": self.K, "moves": tuple(int(t) for t in texts),
                "opening": tuple(int(t) for t in opening)}

    @classmethod
    def params_of_record(cls, M: int, N: int, K: int,
                         params: Mapping[str, int]) -> dict[str, int]:
        return {"rows": M, "cols": N, "k": K}

    def texts_of_record(self, moves: Sequence[int], texts: Sequence[str]) -> tuple[str, ...]:
        return tuple(str(c) for c in moves)

    def board_key(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)

    def cost(self) -> float:
        return float(self.M * self.N)

    # for a person: the course's words, and the board with its column numbers
    def describe(self) -> str:
        return f"on {self.M} rows x {self.N} columns, {self.K} in a row"

    def move_hint(self) -> str:
        return f"a column (0-{self.N - 1})"

    def move_prompt(self) -> str:
        return f"(0-{self.N - 1})"

    def draw_text(self, state: ConnectXState, highlight: Sequence[Any] = (),
                  color: bool = False) -> str:
        return draw_board(state.board, tuple(highlight), color)

    def winning_cells(self, state: ConnectXState) -> tuple[tuple[int, int], ...]:
        return winning_cells(state.board)

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

    # for `cxarena show`: columns in words, the board with each piece's move number
    def move_words(self, text: str) -> str:
        return f"column {text}"

    def move_short(self, text: str) -> str:
        return f"c{text}"

    def end_words(self, reason: str, won: bool, n_moves: int, detail: str,
                  last_move: str) -> str:
        if reason == "connect" and won:
            last = f" (column {last_move})" if last_move else ""
            return f": {self.K} in a row with move {n_moves}{last}"
        if reason == "draw" and not won and not detail:
            return f": the board is full after {n_moves} moves, nobody has {self.K} in a row"
        return ""

    def show_heading(self) -> str:
        return f"{self.M}x{self.N} board (rows x columns), K={self.K}"

    def show_board(self, state: ConnectXState, numbered: bool,
                   highlight: Sequence[Any] = ()) -> str:
        return numbered_board(self.M, self.N, state.moves, numbered, set(highlight),
                              last=not numbered)

    def show_notes(self, numbered: bool, highlight: bool) -> str:
        notes = ["numbers: the move that filled the cell"] if numbered else []
        return "; ".join(notes + (["* the winning line"] if highlight else []))

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

    def render(self, state: ConnectXState) -> str:
        return str(state.board)

    def drawing(self, state: ConnectXState) -> dict[str, Any]:
        return {"kind": "grid", "rows": self.M, "cols": self.N, "k": self.K,
                "cells": state.board.getBoard().tolist(), "gravity": True,
                "colors": ["red", "yellow"]}


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


_SYMBOLS = {CXCellState.FREE: ".", CXCellState.P1: "X", CXCellState.P2: "O"}
_COLORS = {CXCellState.P1: "\033[1;31m", CXCellState.P2: "\033[1;33m"}
_RESET = "\033[0m"
_WIN = "\033[7m"  # reverse video


def draw_board(board: CXBoard, winning: tuple[tuple[int, int], ...] = (),
               color: bool = False) -> str:
    """The board with column numbers above; the winning line's pieces as ``*`` (or in reverse
    video with `color`)."""
    width = len(str(board.N - 1)) + 1
    lines = ["".join(str(j).rjust(width) for j in range(board.N))]
    win = set(winning)
    for i in range(board.M):
        row = []
        for j in range(board.N):
            cell_state = board.cellState(i, j)
            sym = _SYMBOLS[cell_state]
            if (i, j) in win and not color:
                sym = "*"
            cell = " " * (width - 1) + sym
            if color and cell_state is not CXCellState.FREE:
                cell = " " * (width - 1) + (_WIN if (i, j) in win else "") \
                    + _COLORS[cell_state] + sym + _RESET
            row.append(cell)
        lines.append("".join(row))
    return "\n".join(lines)


def winning_cells(board: CXBoard) -> tuple[tuple[int, int], ...]:
    """The (row, column) cells of the line of K or more through the last move, if it won."""
    last = board.getLastMove()
    if last is None or last.state is CXCellState.FREE:
        return ()
    found: list[tuple[int, int]] = []
    for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [(last.i, last.j)]
        for sign in (1, -1):
            i, j = last.i + sign * di, last.j + sign * dj
            while (0 <= i < board.M and 0 <= j < board.N
                   and board.cellState(i, j) is last.state):
                line.append((i, j))
                i, j = i + sign * di, j + sign * dj
        if len(line) >= board.K:
            found.extend(c for c in line if c not in found)
    return tuple(sorted(found))


def _filled(M: int, N: int, moves: Sequence[int]) -> list[list[int]]:
    """The move number (1-based) that filled each cell, 0 if free; stops at an impossible
    move."""
    grid = [[0] * N for _ in range(M)]
    heights = [0] * N
    for n, c in enumerate(moves):
        if not 0 <= c < N or heights[c] >= M:
            break
        grid[M - 1 - heights[c]][c] = n + 1
        heights[c] += 1
    return grid


def numbered_board(M: int, N: int, moves: Sequence[int], numbers: bool,
                   marked: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
                   last: bool = False) -> str:
    """The position after `moves` with column numbers above: ``X12`` (the first player's
    piece, move 12) with `numbers`, else ``X``; `marked` cells get ``*``, else with `last` the
    last move ``<``."""
    grid = _filled(M, N, moves)
    n_moves = len(moves)
    width = (len(str(n_moves)) + 1 if numbers else 1) + 1  # + 1 for a '*' or '<' mark
    width = max(width, len(str(N - 1)))
    lines = [" ".join(f"{j:>{width}}" for j in range(N))]
    for i in range(M):
        row = []
        for j in range(N):
            n = grid[i][j]
            if n == 0:
                text = "."
            else:
                text = ConnectX.SIDES[(n - 1) % 2] + (str(n) if numbers else "")
                if (i, j) in marked:
                    text += "*"
                elif last and n == n_moves:
                    text += "<"
            row.append(f"{text:>{width}}")
        lines.append(" ".join(row))
    return "\n".join(lines)
