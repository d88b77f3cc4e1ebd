"""Calls os._exit(7) in selectColumn: the process is gone without a word (crash)."""

import os

from arena.player import CXPlayer


class OsExit(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        os._exit(7)

    def playerName(self):
        return "os_exit"
