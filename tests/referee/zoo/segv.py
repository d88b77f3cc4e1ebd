"""Kills itself with SIGSEGV in selectColumn (crash)."""

import os
import signal

from arena.player import CXPlayer


class Segv(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        os.kill(os.getpid(), signal.SIGSEGV)
        return 0

    def playerName(self):
        return "segv"
