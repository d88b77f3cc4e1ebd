"""Sleeps `sleep_s` (option, default 0.7 s) in initPlayer and every selectColumn: under a 1 s
limit (plus 10 ms grace) it must never be flagged."""

import time

from arena.player import CXPlayer


class JustUnder(CXPlayer):
    sleep_s = 0.7

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        time.sleep(self.sleep_s)

    def selectColumn(self, B):
        time.sleep(self.sleep_s)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "just_under"
