"""The terminal user interface of `cxarena play`: draw the board, read the person's columns.

`play_games` plays `HumanGame`s one after the other ("Play again?") on stdin/stdout; `draw_board`
renders a position with its column numbers (and the winning line, once there is one). The board
is drawn from the moves the referee reported, never from the person's input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from arena.board import CXBoard, CXCellState, CXGameState
from arena.play.session import Entrant, Finished, GameSetup, HumanGame, IllegalColumn, Moved

__all__ = ["draw_board", "play_games"]

#: what the person types to give up
RESIGN_WORDS = ("q", "quit", "resign")
_SYMBOLS = {CXCellState.FREE: ".", CXCellState.P1: "X", CXCellState.P2: "O"}
_COLORS = {CXCellState.P1: "\033[1;31m", CXCellState.P2: "\033[1;33m"}
_RESET = "\033[0m"
_WIN = "\033[7m"  # reverse video


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal that wants it (https://no-color.org)."""
    return (stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM", "") not in ("", "dumb"))


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
            state = board.cellState(i, j)
            sym = _SYMBOLS[state]
            if (i, j) in win and not color:
                sym = "*"
            cell = " " * (width - 1) + sym
            if color and state is not CXCellState.FREE:
                cell = " " * (width - 1) + (_WIN if (i, j) in win else "") + _COLORS[state] \
                    + sym + _RESET
            row.append(cell)
        lines.append("".join(row))
    return "\n".join(lines)


class _Terminal:
    def __init__(self, out: TextIO, read: Callable[[str], str]) -> None:
        self.out = out
        self.read = read
        self.color = use_color(out)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def one_game(self, entrant: Entrant, setup: GameSetup, results_dir: Path | None) -> Finished:
        game = HumanGame(entrant, setup, results_dir)
        seen = CXBoard(setup.M, setup.N, setup.K)  # the moves shown so far
        me, bot = setup.human, setup.bot
        mine, theirs = _SYMBOLS[CXCellState(me)], _SYMBOLS[CXCellState(bot)]
        self.say(f"You ({mine}) against {entrant.name} ({theirs}) on {setup.M} rows x "
                 f"{setup.N} columns, {setup.K} in a row; you move "
                 f"{'first' if setup.human_first else 'second'}.")
        self.say(f"{entrant.name} has {setup.timeout_s:g} s per move; you have no time limit. "
                 f"Type a column (0-{setup.N - 1}), or q to resign.")
        self.say()
        self.say(draw_board(seen, color=self.color))
        game.start()
        pending = False
        try:
            while True:
                if not pending and seen.gameState() is CXGameState.OPEN \
                        and seen.currentPlayer() + 1 == me:
                    pending = True
                    if self._ask(game):
                        self.say(f"{entrant.name} is thinking ...")
                    continue
                if seen.numOfMarkedCells() == 0 and seen.currentPlayer() + 1 == bot \
                        and not pending:
                    self.say(f"{entrant.name} is thinking ...")
                    pending = True
                event = game.events.get()
                if isinstance(event, Moved):
                    seen.markColumn(event.column)
                    if event.by_human:
                        continue
                    pending = False
                    self.say(f"{entrant.name} plays {event.column} "
                             f"({_ms(event.elapsed_ms)}).")
                    if seen.gameState() is CXGameState.OPEN:
                        self.say(draw_board(seen, color=self.color))
                    continue
                return self._end(event, seen, results_dir)
        except BaseException:  # Ctrl-C, end of input: the bot wins, the game is kept
            game.close("left the game (interrupted)", wait_s=setup.timeout_s + 10)
            raise
        finally:
            game.close(wait_s=setup.timeout_s + 10)

    def _ask(self, game: HumanGame) -> bool:
        """Read the person's move until it is legal (True) or they resign (False); either way
        the referee's answer follows as an event."""
        N = game.setup.N
        while True:
            try:
                text = self.read(f"Your move (0-{N - 1}): ").strip()
            except EOFError:
                self.say()
                game.resign("left the game (end of input)")
                return False
            if text.lower() in RESIGN_WORDS:
                game.resign("resigned")
                return False
            if not text:
                self.say(f"  type a column number from 0 to {N - 1}, or q to resign")
                continue
            try:
                game.play(text)
                return True
            except IllegalColumn as e:
                self.say(f"  {e}; try again")

    def _end(self, fin: Finished, seen: CXBoard, results_dir: Path | None) -> Finished:
        self.say(draw_board(seen, fin.winning_cells, color=self.color))
        if fin.winning_cells and not self.color:
            self.say("(* marks the winning line)")
        self.say(fin.message)
        if fin.game_id:
            self.say(f"Stored as game {fin.game_id} in {results_dir} "
                     f"(`cxarena report {results_dir}`).")
        elif fin.store_error:
            self.say(f"Not stored: {fin.store_error}")
        return fin


def _ms(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def play_games(entrant: Entrant, setup: GameSetup, results_dir: Path | None,
               out: TextIO | None = None,
               read: Callable[[str], str] | None = None) -> list[Finished]:
    """Play games against `entrant` until the person declines another; the finished games."""
    term = _Terminal(out or sys.stdout, read or input)
    games: list[Finished] = []
    while True:
        games.append(term.one_game(entrant, setup, results_dir))
        try:
            again = term.read("Play again? [y/N] ").strip().lower()
        except EOFError:
            term.say()
            again = ""
        if again not in ("y", "yes"):
            return games
        term.say()
