"""Loading a Python bot's class in this process, for any bot API: `find_player_class` (the
Python host and the probes of `arena.entrants.probe` use it, each in a subprocess of its own),
and `load_game_player_class` for the `GamePlayer` API of every game. A game's own course API
(Connect-X's `CXPlayer`) loads through the same function, from its game folder."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

from arena.entrants.specs import BotSpec, SpecError, import_bot_module, parse_spec
from arena.games.player import GamePlayer

__all__ = ["find_player_class", "load_game_player_class"]

T = TypeVar("T")


def _where(spec: BotSpec) -> str:
    """The bot's file or module as its author wrote it (not the harness's module name): a file
    under the current directory by its relative path."""
    if spec.path is None:
        return str(spec.module or spec.text)
    try:
        relative = os.path.relpath(spec.path)
    except ValueError:  # another drive
        return str(spec.path)
    return str(spec.path) if relative.startswith(os.pardir) else relative


def find_player_class(spec: BotSpec, base: type[T],
                      fits: Callable[[type[T]], bool] = lambda cls: True,
                      what: str | None = None) -> type[T]:
    """Import the bot's module and return its subclass of `base` (one that `fits`).

    Raises SpecError naming the bot's file for a missing class, a class of another kind, none
    or several candidates; any exception raised while importing the bot's code propagates
    unchanged.
    """
    if not spec.is_python:
        raise SpecError(f"bot SPEC {spec.text!r} is a program, not a Python class")
    kind = what or f"{base.__name__} subclass"
    module = import_bot_module(spec)
    where = _where(spec)
    if spec.cls is not None:
        obj = getattr(module, spec.cls, None)
        if obj is None:
            raise SpecError(f"bot SPEC {spec.text!r}: {where} has no class {spec.cls}"
                            f"{_classes_found(module, base, fits, kind)}")
        if not (inspect.isclass(obj) and issubclass(obj, base)) or not fits(obj):
            raise SpecError(f"bot SPEC {spec.text!r}: {spec.cls} in {where} is not a {kind}")
        if inspect.isabstract(obj):
            missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
            raise SpecError(f"bot SPEC {spec.text!r}: {spec.cls} in {where} cannot play: it "
                            f"does not define {missing}")
        return obj
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, base) and fits(obj)
             and obj.__module__ == module.__name__ and not inspect.isabstract(obj)]
    if not found:
        raise SpecError(f"bot SPEC {spec.text!r}: {where} defines no {kind}"
                        f"{_classes_found(module, base, fits, kind)}")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise SpecError(f"bot SPEC {spec.text!r}: {where} defines several {kind}es ({names}); "
                        f"name one as SPEC:Class")
    return found[0]


def _classes_found(module: ModuleType, base: type[T], fits: Callable[[type[T]], bool],
                   kind: str) -> str:
    """The classes the bot's own module defines, each with why it cannot play (a student's
    abstract class, a class that does not subclass the base), for a message."""
    shown = []
    for obj in vars(module).values():
        if not inspect.isclass(obj) or obj.__module__ != module.__name__:
            continue
        if not issubclass(obj, base) or not fits(obj):
            shown.append(f"{obj.__name__} (not a {kind})")
        elif inspect.isabstract(obj):
            missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
            shown.append(f"{obj.__name__} (does not define {missing})")
        else:
            shown.append(obj.__name__)
    if not shown:
        return " (it defines no class)"
    return "; its classes: " + ", ".join(shown[:10]) + (", ..." if len(shown) > 10 else "")


def load_game_player_class(target: str, game: str | None = None) -> type[GamePlayer]:
    """The concrete `GamePlayer` subclass behind `target` (for `game`, when given: a class
    whose GAME is that game, or a generic one). Raises SpecError, or what the bot raises."""
    spec = parse_spec(target)
    if not spec.is_python or spec.module is None and spec.path is None:
        raise SpecError(f"bot SPEC {target!r} is not a Python class")
    what = f"GamePlayer subclass for {game}" if game else "GamePlayer subclass"
    return find_player_class(spec, GamePlayer,  # type: ignore[type-abstract]
                             lambda c: game is None or c.GAME in (game, ""), what)
