"""The terminal user interface of `cxarena play`: a person against a bot in any game.

`play_games` plays `HumanGame`s one after the other ("Play again?") on stdin/stdout. The board
is the game's own text drawing (its presentation's `draw_text`: Connect-X's with its column
numbers, and the winning line once there is one), redrawn from the moves the referee reported,
never from the person's input. The person types a move in the game's notation (a Connect-X
column is its number), ``moves`` for the legal ones, or ``q`` to resign.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from arena.games import Game, Presentation, presentation_of
from arena.play.session import Entrant, Finished, GameSetup, HumanGame, IllegalMove, Moved
from arena.results.fairness import game_account, load_account

__all__ = ["RESIGN_WORDS", "play_games", "use_color"]

#: what the person types to give up
RESIGN_WORDS = ("q", "quit", "resign")


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal that wants it (https://no-color.org)."""
    return (stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM", "") not in ("", "dumb"))


class _Terminal:
    def __init__(self, out: TextIO, read: Callable[[str], str]) -> None:
        self.out = out
        self.read = read
        self.color = use_color(out)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def draw(self, view: Presentation[Any, Any], state: Any,
             highlight: tuple[Any, ...] = ()) -> None:
        self.say(view.draw_text(state, highlight, color=self.color))

    def one_game(self, entrant: Entrant, game: Game, setup: GameSetup,
                 results_dir: Path | None) -> Finished:
        session = HumanGame(entrant, game, setup, results_dir)
        me, bot = setup.human - 1, setup.bot - 1
        view = presentation_of(game)
        sides = view.SIDES
        self.say(f"You ({sides[me]}) against {entrant.name} ({sides[bot]}) "
                 f"{view.describe()}; you move {'first' if setup.human_first else 'second'}.")
        self.say(f"{entrant.name} has {setup.timeout_s:g} s per move; you have no time limit. "
                 f"Type {view.move_hint()}, moves for the legal ones, or q to resign.")
        self.say()
        self.draw(view, session.state)
        session.start()
        resigned = False
        try:
            while True:
                # every reported move shown first; then the person's turn (a resignation's end
                # follows as an event too)
                if not resigned and session.events.empty() and session.human_to_move():
                    resigned = not self._ask(session, view)
                    if not resigned:
                        self.say(f"{entrant.name} is thinking ...")
                    continue
                event = session.events.get()
                if isinstance(event, Moved):
                    if event.by_human:
                        continue
                    self.say(f"{entrant.name} plays {event.move} ({_ms(event.elapsed_ms)}).")
                    if not event.ends_game:
                        self.draw(view, event.state)
                    continue
                return self._end(view, session, event, results_dir)
        except BaseException:  # Ctrl-C, end of input: the bot wins, the game is kept
            session.close("left the game (interrupted)", wait_s=setup.timeout_s + 10)
            raise
        finally:
            session.close(wait_s=setup.timeout_s + 10)

    def _ask(self, session: HumanGame, view: Presentation[Any, Any]) -> bool:
        """Read the person's move until it is legal (True) or they resign (False); either way
        the referee's answer follows as an event."""
        prompt = f"Your move {view.move_prompt()}".rstrip() + ": "
        while True:
            try:
                text = self.read(prompt).strip()
            except EOFError:
                self.say()
                session.resign("left the game (end of input)")
                return False
            if text.lower() in RESIGN_WORDS:
                session.resign("resigned")
                return False
            if text == "moves" or not text:
                self.say("  legal moves: " + " ".join(session.legal_texts()))
                continue
            try:
                session.play(text)
                return True
            except IllegalMove as e:
                self.say(f"  {e}; try again (moves lists the legal ones)")

    def _end(self, view: Presentation[Any, Any], session: HumanGame, fin: Finished,
             results_dir: Path | None) -> Finished:
        self.draw(view, session.state, fin.winning_cells)
        if fin.winning_cells and not self.color:
            self.say("(* marks the winning line)")
        self.say(fin.message)
        load = game_account(fin.record) if fin.record is not None else ""
        if load:
            self.say(load)
        if fin.game_id:
            self.say(f"Stored as game {fin.game_id} in {results_dir} "
                     f"(`cxarena report {results_dir}`, `cxarena show {results_dir} "
                     f"{fin.game_id}`).")
        elif fin.store_error:
            self.say(f"Not stored: {fin.store_error}")
        return fin


def _ms(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def play_games(entrant: Entrant, game: Game, setup: GameSetup, results_dir: Path | None,
               out: TextIO | None = None,
               read: Callable[[str], str] | None = None) -> list[Finished]:
    """Play games against `entrant` until the person declines another; the finished games."""
    term = _Terminal(out or sys.stdout, read or input)
    games: list[Finished] = []
    while True:
        games.append(term.one_game(entrant, game, setup, results_dir))
        try:
            again = term.read("Play again? [y/N] ").strip().lower()
        except EOFError:
            term.say()
            again = ""
        if again not in ("y", "yes"):
            records = [g.record for g in games if g.record is not None]
            term.say(load_account(records, setup.timeout_s).text())  # as every command says
            return games
        term.say()
