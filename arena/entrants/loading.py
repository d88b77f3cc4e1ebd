"""Loading a Python bot's class in this process: `load_player_class` (used by the Python host
and by the probes of `arena.entrants.probe`, each in a subprocess of its own)."""

from __future__ import annotations

import inspect

from arena.entrants.kaggle import agent_player_class
from arena.entrants.specs import BotSpec, Kind, SpecError, import_bot_module
from arena.player import CXPlayer

__all__ = ["load_player_class"]


def load_player_class(spec: BotSpec) -> type[CXPlayer]:
    """Import the bot's module and return its CXPlayer subclass.

    Raises SpecError for a module without (or with several) CXPlayer subclasses or an unknown
    class; any exception raised while importing the bot's code propagates unchanged.
    """
    if spec.kind is Kind.KAGGLE:
        return agent_player_class(spec)
    if not spec.is_python:
        raise SpecError(f"bot SPEC {spec.text!r} is a program, not a Python class")
    module = import_bot_module(spec)
    if spec.cls is not None:
        obj = getattr(module, spec.cls, None)
        if not (inspect.isclass(obj) and issubclass(obj, CXPlayer)):
            raise SpecError(f"bot SPEC {spec.text!r}: {spec.cls!r} is not a CXPlayer subclass "
                            f"in {module.__name__}")
        return obj
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, CXPlayer)
             and obj.__module__ == module.__name__ and not inspect.isabstract(obj)]
    if not found:
        raise SpecError(f"bot SPEC {spec.text!r}: {module.__name__} defines no CXPlayer subclass")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise SpecError(f"bot SPEC {spec.text!r}: {module.__name__} defines several CXPlayer "
                        f"subclasses ({names}); name one as SPEC:Class")
    return found[0]
