"""Takes 60 s to import: fails the start-up limit (crash)."""

import time

from arena.player import CXPlayer

time.sleep(60)


class SlowStart(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "slow_start"
