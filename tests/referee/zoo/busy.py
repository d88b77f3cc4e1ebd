"""A busy infinite loop in selectColumn (timeout)."""

from arena.player import CXPlayer


class Busy(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        n = 0
        while True:
            n += 1

    def playerName(self):
        return "busy"
