"""The base class of a Python bot for any `Game`, modelled on `arena.player.CXPlayer`.

A bot is a subclass with a constructor that takes no arguments. For every game the harness
creates a new instance and calls:

1. ``init_player(game, first, timeout_s)`` once, before the game starts: `game` is the `Game`
   object (its name and parameters, and all its rules), `first` is True when the bot is side 0
   (the side that moves first: black in Othello, white in Morris);
2. ``select_move(state)`` each time it is the bot's turn, with the current (immutable) state.
   The answer is a move from ``game.legal_moves(state)``, or its text form (a `str`). Passing
   in Othello is a move too (`arena.games.othello.PASS`, text ``pass``), asked for like any
   other: when it is the only legal move the harness still asks;
3. ``player_name()`` at any time: a short human-readable name.

Time, randomness and options work as for `CXPlayer`: the limit ``timeout_s`` applies to
``init_player`` and to every ``select_move`` separately (watch the clock with
`arena.timing.Deadline`); ``self.seed`` is the game's seed (None outside the harness); options
from a tournament config are set as attributes before ``init_player``. A bot that raises,
hangs, answers late or answers an illegal move loses the game.

`OthelloPlayer` and `MorrisPlayer` only narrow `GAME` (which game the bot plays), so that
`cxarena` can tell which bots belong to which game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from .base import Game

__all__ = ["GamePlayer", "MorrisPlayer", "OthelloPlayer"]


class GamePlayer(ABC):
    """Base class of a bot for a `Game` (see the module docstring for the contract)."""

    #: the name of the game this bot plays (`arena.games.GAMES`)
    GAME: ClassVar[str] = ""
    #: the game's seed, set by the harness before init_player (None when run by hand)
    seed: int | None = None

    @abstractmethod
    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        """Prepare for a game of `game`; `first` if this bot moves first."""

    @abstractmethod
    def select_move(self, state: Any) -> Any:
        """A legal move in `state` (a move value or its text form)."""

    @abstractmethod
    def player_name(self) -> str:
        """A short human-readable name."""


class OthelloPlayer(GamePlayer):
    """A bot for Othello: states are `arena.games.othello.OthelloState`, moves square indices
    (``row * size + col``, row 0 at the top) or `PASS`."""

    GAME = "othello"


class MorrisPlayer(GamePlayer):
    """A bot for Nine Men's Morris: states are `arena.games.morris.MorrisState`, moves
    `arena.games.morris.MorrisMove` values."""

    GAME = "morris"

