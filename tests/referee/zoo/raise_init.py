"""Raises in initPlayer (crash)."""

from arena.player import CXPlayer


class RaiseInit(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        raise RuntimeError("zoo: deliberate failure in initPlayer")

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "raise_init"
