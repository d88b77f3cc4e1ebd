"""Appends its process id to the file in option `pidfile` in every initPlayer; plays the first
free column. Shows which process played which game (process reuse, fresh processes)."""

import os

from arena.player import CXPlayer


class PidReporter(CXPlayer):
    pidfile = ""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        with open(self.pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "pid_reporter"
