"""Starts a thread that burns CPU forever (trying to think on the opponent's time), writes its
pid to option `pidfile`, and answers at once with a legal move."""

import os
import threading

from arena.player import CXPlayer


def _burn():
    n = 0
    while True:
        n += 1


class Burner(CXPlayer):
    pidfile = ""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        threading.Thread(target=_burn, daemon=True).start()
        with open(self.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "burner"
