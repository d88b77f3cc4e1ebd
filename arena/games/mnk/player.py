"""`MNKPlayer`: the base class of a Python bot for the m,n,k-game (the contract is
`arena.games.player.GamePlayer`'s)."""

from __future__ import annotations

from arena.games.player import GamePlayer

__all__ = ["MNKPlayer"]


class MNKPlayer(GamePlayer):
    """A bot for the m,n,k-game: states are `arena.games.mnk.MNKState`, moves cell indices
    (``row * n + col``, row 0 at the top) or their text (``b2``)."""

    GAME = "mnk"
