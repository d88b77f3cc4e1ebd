"""playerName raises; otherwise plays legally (must still play, with an empty name)."""

from arena.player import CXPlayer


class BadName(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        raise RuntimeError("zoo: no name")
