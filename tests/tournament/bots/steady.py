"""A deterministic test bot (ignores the seed): a winning column if there is one, else the
first column that is not full, from the centre outwards."""

from arena.board import CXGameState
from arena.player import CXPlayer


class Steady(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.N = N

    def selectColumn(self, B):
        cols = B.getAvailableColumns()
        for c in cols:
            b = B.copy()
            if b.markColumn(c) not in (CXGameState.OPEN, CXGameState.DRAW):
                return c
        centre = (self.N - 1) // 2
        return min(cols, key=lambda c: (abs(c - centre), c))

    def playerName(self):
        return "Steady"
