"""`BotLaunch`: how to start one bot process, the value an entrant hands the referee.

The entrants (`arena.entrants`) know what a SPEC means and produce this; the referee starts the
process from it and knows nothing of SPECs. Anything that has a ``text`` and a ``launch(options)``
method returning a `BotLaunch` can sit at the board (`Launchable`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["BotLaunch", "Launchable"]


@dataclass(frozen=True)
class BotLaunch:
    """One bot process: its argv, what to add to its environment, the paths a sandbox must let
    it read (its own files, the `arena` package, ...), and whether it is cxarena's Python host
    (which applies its own limits; other programs are wrapped by the lifeline)."""

    label: str  # the SPEC text, for logs and messages
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    expose: tuple[str, ...] = ()
    python_host: bool = False


class Launchable(Protocol):
    """What `Referee.play` takes for a seat (an `arena.entrants.specs.BotSpec` is one)."""

    @property
    def text(self) -> str: ...

    def launch(self, options: Mapping[str, Any] | None = None) -> BotLaunch: ...
