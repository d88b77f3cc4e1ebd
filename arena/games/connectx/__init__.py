"""Connect-X as a game plug-in: its rules behind the `Game` interface (`game.ConnectX`, over the
course's `arena.board.CXBoard`)."""

from arena.games.connectx.game import ConnectX, ConnectXState

__all__ = ["ConnectX", "ConnectXState"]
