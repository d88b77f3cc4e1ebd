"""Raises in selectColumn (crash)."""

from arena.player import CXPlayer


class RaiseSelect(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        raise ValueError("zoo: deliberate failure in selectColumn")

    def playerName(self):
        return "raise_select"
