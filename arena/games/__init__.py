"""Games cxarena can referee: the `Game` interface and its implementations.

- `base`: the `Game` interface (an ABC over frozen states), `Outcome` and the errors;
- `connectx`: Connect-X, a wrapper around `arena.board.CXBoard` (its rules, unchanged);
- `othello`: Othello on bitboards (any even size, 8 by default), with `perft`;
- `morris`: Nine Men's Morris (placing, moving, flying, mills, the draw rules);
- `player`: the base class of a Python bot for any of them (`GamePlayer`, and one per game);
- `params`: the text form of a game's name and parameters (``othello size=8``).

This package is the rules layer: pure and fast, no I/O, no logging; it imports nothing of the
harness but `arena.board`. `make_game(name, params)` is the one way from a name to a game.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import Game, GameError, IllegalMoveError, MoveSyntaxError, Outcome, ParamError
from .connectx import ConnectX
from .morris import Morris
from .othello import Othello

__all__ = [
    "GAMES",
    "Game",
    "GameError",
    "IllegalMoveError",
    "MoveSyntaxError",
    "Outcome",
    "ParamError",
    "make_game",
]

#: game name -> its class
GAMES: Mapping[str, type[Game]] = {
    ConnectX.name: ConnectX,
    Othello.name: Othello,
    Morris.name: Morris,
}


def make_game(name: str, params: Mapping[str, int] | None = None) -> Game:
    """The game `name` with `params` (defaults for the rest). Raises ParamError."""
    cls = GAMES.get(name)
    if cls is None:
        raise ParamError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return cls(**dict(params or {}))
