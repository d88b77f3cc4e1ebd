"""Calls sys.exit(3) in selectColumn (crash)."""

import sys

from arena.player import CXPlayer


class SysExit(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        sys.exit(3)

    def playerName(self):
        return "sys_exit"
