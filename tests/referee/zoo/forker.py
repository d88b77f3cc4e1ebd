"""Forks a child that keeps running (its pid goes to the file in option `pidfile`), then sleeps
past the limit in selectColumn (timeout). The child must die with its parent's process group."""

import os
import time

from arena.player import CXPlayer


class Forker(CXPlayer):
    pidfile = ""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pid = os.fork()
        if pid == 0:  # the child: keep running, detached from the game
            try:
                while True:
                    time.sleep(0.05)
            finally:
                os._exit(0)
        with open(self.pidfile, "w") as f:
            f.write(f"{pid}\n")

    def selectColumn(self, B):
        time.sleep(60)
        return 0

    def playerName(self):
        return "forker"
