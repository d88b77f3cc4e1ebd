"""How Connect-X looks and reads to a person, beside its rules (`game.ConnectX`): the course's
words (rows, columns, K in a row), the board with its column numbers (and each piece's move
number for `cxarena show`), the winning line, and the play page's and the viewer's drawing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.board import CXBoard, CXCellState
from arena.games.base import Presentation
from arena.games.connectx.game import ConnectX, ConnectXState

__all__ = ["ConnectXPresentation", "draw_board", "numbered_board", "winning_cells"]


class ConnectXPresentation(Presentation[ConnectXState, int]):
    SIDES = ("X", "O")
    TITLE = "Connect-X"
    PARAM_LABELS = {"rows": "Rows M", "cols": "Columns N", "k": "In a row K"}
    MOVE_NOUN = "column"
    DRAWER_REPLAYS = True  # draw.js knows the rules: the report sends the columns

    game: ConnectX

    def __init__(self, game: ConnectX) -> None:
        super().__init__(game)
        self.M, self.N, self.K = game.M, game.N, game.K

    def render(self, state: ConnectXState) -> str:
        return str(state.board)

    def drawing(self, state: ConnectXState) -> dict[str, Any]:
        return {"kind": "grid", "rows": self.M, "cols": self.N, "k": self.K,
                "cells": state.board.getBoard().tolist(), "gravity": True,
                "colors": ["red", "yellow"]}

    # the course's words, and the board with its column numbers
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
                text = ConnectXPresentation.SIDES[(n - 1) % 2] + (str(n) if numbers else "")
                if (i, j) in marked:
                    text += "*"
                elif last and n == n_moves:
                    text += "<"
            row.append(f"{text:>{width}}")
        lines.append(" ".join(row))
    return "\n".join(lines)
