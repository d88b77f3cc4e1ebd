"""Sleeps far past the limit in selectColumn (timeout)."""

import time

from arena.player import CXPlayer


class Sleepy(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        time.sleep(60)
        return 0

    def playerName(self):
        return "sleepy"
