"""The terminal interface of `cxarena play --game NAME`: Othello or Morris against a bot.

The board is the game's own text rendering (`Game.render`), redrawn from the moves the referee
reported; the person types moves in the game's notation (``d3``, ``pass``; ``d2``, ``d2-d3``,
``d2-d3xa1``), ``moves`` for the legal ones, or ``q`` to resign.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from arena.games import Game
from arena.play.game_session import HumanOtherGame, MovedText
from arena.play.session import Entrant, Finished, GameSetup, IllegalColumn
from arena.play.terminal import RESIGN_WORDS

__all__ = ["play_other_games"]


def _one_game(game: Game, entrant: Entrant, setup: GameSetup, results_dir: Path | None,
              say: Callable[[str], None], read: Callable[[str], str]) -> Finished:
    session = HumanOtherGame(entrant, game, setup, results_dir)
    say(f"You against {entrant.name} in {game.label()}; you move "
        f"{'first' if setup.human_first else 'second'}. {entrant.name} has "
        f"{setup.timeout_s:g} s per move; you have no time limit.")
    say("Type a move (e.g. " + ("d3, or pass" if game.name == "othello" else
                                "d2, d2-d3, d2-d3xa1") + "), moves for the legal ones, "
        "or q to resign.")
    say("")
    say(game.render(session.state))
    session.start()
    resigned = False
    try:
        while True:
            # every reported move shown first; then the person's turn (a resignation's end
            # follows as an event too)
            if not resigned and session.events.empty() and session.human_to_move():
                resigned = not _ask(session, say, read)
                continue
            event = session.events.get()
            if isinstance(event, MovedText):
                if not event.by_human:
                    say(f"{entrant.name} plays {event.text} ({event.elapsed_ms:.0f} ms).")
                say(game.render(session.state))
                continue
            if isinstance(event, Finished):
                say(event.message)
                if event.game_id:
                    say(f"Stored as game {event.game_id} in {results_dir} "
                        f"(`cxarena show {results_dir} {event.game_id}`).")
                elif event.store_error:
                    say(f"Not stored: {event.store_error}")
                return event
    except BaseException:  # Ctrl-C, end of input: the bot wins, the game is kept
        session.close("left the game (interrupted)", wait_s=setup.timeout_s + 10)
        raise
    finally:
        session.close(wait_s=setup.timeout_s + 10)


def _ask(session: HumanOtherGame, say: Callable[[str], None],
         read: Callable[[str], str]) -> bool:
    while True:
        try:
            text = read("Your move: ").strip()
        except EOFError:
            say("")
            session.resign("left the game (end of input)")
            return False
        if text.lower() in RESIGN_WORDS:
            session.resign("resigned")
            return False
        if text == "moves" or not text:
            say("  legal moves: " + " ".join(session.legal_texts()))
            continue
        try:
            session.play(text)
            return True
        except IllegalColumn as e:
            say(f"  {e}; try again (moves lists the legal ones)")


def play_other_games(game: Game, entrant: Entrant, setup: GameSetup, results_dir: Path | None,
                     out: TextIO | None = None,
                     read: Callable[[str], str] | None = None) -> list[Finished]:
    """Play games of `game` against `entrant` until the person declines another."""
    stream = out or sys.stdout

    def say(text: str) -> None:
        print(text, file=stream, flush=True)

    ask = read or input
    games: list[Finished] = []
    while True:
        games.append(_one_game(game, entrant, setup, results_dir, say, ask))
        try:
            again = ask("Play again? [y/N] ").strip().lower()
        except EOFError:
            say("")
            again = ""
        if again not in ("y", "yes"):
            return games
        say("")
