"""The player interface: `CXPlayer`, the course's contract for a Connect-X bot.

A bot is a subclass of `CXPlayer` with a constructor that takes no arguments. For every game the
harness creates a new instance and then calls:

1. ``initPlayer(M, N, K, first, timeout_in_secs)`` once, before the game starts;
2. ``selectColumn(B)`` each time it is the bot's turn. ``B`` is a `CXBoard` holding the current
   position; it is the bot's own copy, which it may change freely (mark, unmark) without any
   effect on the game. The answer must be a legal column: an ``int`` (a numpy integer counts as
   its value) in ``B.getAvailableColumns()``;
3. ``playerName()`` at any time, returning a short human-readable name.

Time: the limit ``timeout_in_secs`` applies to ``initPlayer`` and to every ``selectColumn`` call
separately. The referee measures wall time from sending the request to receiving the answer and
adds a small grace margin (10 ms by default); a late answer loses the game (reason ``timeout``).
A bot should watch the clock and answer at a safe fraction of the limit (see
`arena.timing.Deadline`).

Randomness: before ``initPlayer`` the harness sets ``self.seed`` to the game's seed (an int), so
that a bot which seeds its generator from it plays the same game again on a rerun. Outside the
harness ``seed`` is None.

Options: values given for a player in a tournament config (``options:``) are set as attributes
on the instance before ``initPlayer``.

Faults: a bot that raises, hangs, answers late or answers an illegal column loses the game; the
harness records why. Printing is allowed: a bot's stdout goes to its log, not to the referee.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from arena.board import CXBoard

__all__ = ["CXPlayer"]


class CXPlayer(ABC):
    """Base class of every Python bot (see the module docstring for the contract)."""

    #: the game's seed, set by the harness before initPlayer (None when run by hand)
    seed: int | None = None

    @abstractmethod
    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        """Prepare for a game on an M x N board with K to connect; `first` if moving first."""

    @abstractmethod
    def selectColumn(self, B: CXBoard) -> int:
        """Return the column to play in position B (B is the bot's own copy)."""

    @abstractmethod
    def playerName(self) -> str:
        """A short human-readable name."""
