"""Always plays column 0, even when it is full (illegal). Use on a 3x4 board with K=4: nobody
can connect before column 0 is full."""

from arena.player import CXPlayer


class FullColumn(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return 0

    def playerName(self):
        return "full_column"
