"""Forks a grandchild that should outlive the game (in a session of its own, outside the bot's
process group, where it may): it keeps running, marked by the option `mark` in its command
line."""

import os
import sys
import time

from arena.player import CXPlayer


class Lingerer(CXPlayer):
    mark = "cxarena-lingerer"

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        if os.fork() == 0:
            try:
                os.setsid()
            except OSError as e:
                print(f"CHEAT setsid: blocked ({e})", file=sys.stderr, flush=True)
            if os.fork() == 0:
                try:
                    os.execvp(sys.executable, [sys.executable, "-c",
                                               f"import time; time.sleep(120)  # {self.mark}"])
                finally:
                    os._exit(1)
            os._exit(0)
        os.wait()
        time.sleep(0.1)  # the grandchild has exec'd
        print("CHEAT fork a process that outlives the game: started", file=sys.stderr,
              flush=True)

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "lingerer"
