"""Nine Men's Morris as a game plug-in: rules and notation (`game`)."""

from arena.games.morris.game import ADJACENT, MILLS, POINTS, Morris, MorrisMove, MorrisState

__all__ = ["ADJACENT", "MILLS", "POINTS", "Morris", "MorrisMove", "MorrisState"]
