"""The m,n,k-game (tic-tac-toe, gomoku, ...) as a game plug-in: rules and notation (`game`)
and the base class of its Python bots (`player`)."""

from arena.games.mnk.game import MAX_SIDE, MNK, MNKState, has_run
from arena.games.mnk.player import MNKPlayer

__all__ = ["MAX_SIDE", "MNK", "MNKPlayer", "MNKState", "has_run"]
