"""Games cxarena can referee: the `Game` interface and the registry of game plug-ins.

- `base`: the `Game` interface (an ABC over frozen states), `Outcome` and the errors, and the
  `Presentation` base class: how a game looks and reads to a person, beside its rules;
- `player`: the base class of a Python bot for any game (`GamePlayer`);
- `params`: the text form of a game's name and parameters (``othello size=8``);
- one folder per game (`connectx/`, `othello/`, `morris/`, ...): its rules and notation
  (``game.py``), its presentation (``presentation.py``, see `presentation_of`), and its board's
  drawer for the web pages' game viewer (``draw.js``, see `drawer_paths`).

Games are plug-ins. The games shipped in this package are named in `SHIPPED` (module and
class); a game of another package registers its `Game` class under the entry-point group
``cxarena.games``. `GAMES` reads both on first use, the shipped games first: a bot's process,
which looks its game up, reads no installed package's metadata for a shipped game (that import
and scan cost each of the thousands of bot processes of a tournament about 15 ms of CPU).
Nothing outside a game's folder and `SHIPPED` names a game.

This package is the rules layer: pure and fast, no I/O, no logging. `make_game(name, params)`
is the one way from a name to a game.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from .base import (
    Game,
    GameError,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    ParamError,
    Presentation,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "GAMES",
    "SHIPPED",
    "Game",
    "GameError",
    "IllegalMoveError",
    "MoveSyntaxError",
    "Outcome",
    "ParamError",
    "Presentation",
    "DRAWER_FILE",
    "drawer_paths",
    "game_folder",
    "game_names",
    "make_game",
    "presentation_of",
]

S = TypeVar("S", bound=Hashable)
M = TypeVar("M", bound=Hashable)

#: the file of a game's folder that draws its board in the game viewer
DRAWER_FILE = "draw.js"

#: the entry-point group through which a game plug-in registers its `Game` class
ENTRY_POINT_GROUP = "cxarena.games"


#: the games shipped in this package: name -> "module:class" (another package's game
#: registers under `ENTRY_POINT_GROUP` instead)
SHIPPED: Mapping[str, str] = {
    "connectx": "arena.games.connectx:ConnectX",
    "othello": "arena.games.othello:Othello",
    "morris": "arena.games.morris:Morris",
    "mnk": "arena.games.mnk:MNK",
}


def _game_class(found: object, name: str, where: str) -> type[Game]:
    """`found` as a game class; TypeError when it is not one."""
    if not (isinstance(found, type) and issubclass(found, Game)):
        raise TypeError(f"{name} = {where} is not a Game class")
    return found


def _shipped(name: str) -> type[Game]:
    """The shipped game `name`'s class (`SHIPPED`)."""
    module, _, attr = SHIPPED[name].partition(":")
    return _game_class(getattr(importlib.import_module(module), attr), name, SHIPPED[name])


def game_names() -> list[str]:
    """Every registered game's name, sorted, read without loading any game: the shipped
    games' and the plug-ins' entry points'."""
    from importlib.metadata import entry_points  # not on a bot's way (see SHIPPED)

    return sorted({*SHIPPED, *(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))})


class _Registry(Mapping[str, type[Game]]):
    """Game name -> its class: the shipped games (`SHIPPED`), then the plug-ins' entry points,
    each read when first asked for."""

    def __init__(self) -> None:
        self._games: dict[str, type[Game]] | None = None

    def _load(self) -> dict[str, type[Game]]:
        if self._games is None:
            self._games = {cls.name: cls for cls in self.classes()}
        return self._games

    def classes(self) -> Iterator[type[Game]]:
        """The game classes one at a time, each loaded when reached (a caller that stops at
        the one it looks for, e.g. a protocol dialect, loads no other game): the shipped
        games, then the plug-ins' (a plug-in cannot take a shipped game's name)."""
        if self._games is not None:
            yield from self._games.values()
            return
        for name in SHIPPED:
            yield _shipped(name)
        from importlib.metadata import entry_points  # only past the shipped games

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name not in SHIPPED:
                yield _game_class(ep.load(), ep.name, f"entry point {ep.value} of "
                                                      f"{ENTRY_POINT_GROUP}")

    def __getitem__(self, name: str) -> type[Game]:
        if self._games is None and name in SHIPPED:  # no plug-in looked for
            return _shipped(name)
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


#: game name -> its class (every installed game plug-in)
GAMES = _Registry()


def make_game(name: str, params: Mapping[str, int] | None = None) -> Game:
    """The game `name` with `params` (defaults for the rest). Raises ParamError."""
    cls = GAMES.get(name)
    if cls is None:
        raise ParamError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return cls(**dict(params or {}))


@functools.cache
def _presentation_class(cls: type[Game]) -> type[Presentation[Any, Any]]:
    """The `Presentation` class that `cls.PRESENTATION` names (``module:Class``)."""
    module, _, name = cls.PRESENTATION.partition(":")
    if not (module and name):
        raise GameError(f"game {cls.name} names no presentation (Game.PRESENTATION)")
    found = getattr(importlib.import_module(module), name)
    if not (isinstance(found, type) and issubclass(found, Presentation)):
        raise GameError(f"{cls.PRESENTATION} of game {cls.name} is not a Presentation class")
    return cast("type[Presentation[Any, Any]]", found)


def presentation_of(game: Game[S, M]) -> Presentation[S, M]:
    """How `game` looks and reads to a person (`Presentation`): its drawings, words and
    title."""
    return _presentation_class(type(game))(game)


def game_folder(name: str) -> Path:
    """The folder of the game plug-in `name` (where its rules' module is). KeyError if none."""
    cls = GAMES[name]
    return Path(sys.modules[cls.__module__].__file__ or "").resolve().parent


def drawer_paths() -> dict[str, Path]:
    """Game name -> its board's drawer (``draw.js`` in its folder), for every installed game
    that has one: the report inlines them, the play page serves them."""
    out: dict[str, Path] = {}
    for name in sorted(GAMES):
        path = game_folder(name) / DRAWER_FILE
        if path.is_file():
            out[name] = path
    return out
