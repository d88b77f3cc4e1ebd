"""Hangs in initPlayer (timeout in initPlayer)."""

import time

from arena.player import CXPlayer


class HangInit(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        time.sleep(60)

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "hang_init"
