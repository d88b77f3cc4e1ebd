"""Double-forks a daemon in initPlayer: a child that calls setsid (a session and process group
of its own, out of the bot's group) and forks a grandchild, then exits at once, so the
grandchild is an orphan that neither the bot's process group nor its parent-death signal
reaches. The grandchild writes its pid to the file in option `pidfile` and runs until killed.
Then plays column 0 upwards (option `hang`: sleeps in selectColumn instead)."""

import os
import time

from arena.player import CXPlayer


class Daemon(CXPlayer):
    pidfile = ""
    hang = False

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        child = os.fork()
        if child == 0:
            os.setsid()
            if os.fork() == 0:
                with open(self.pidfile + ".tmp", "w") as f:
                    f.write(f"{os.getpid()}\n")
                os.rename(self.pidfile + ".tmp", self.pidfile)
                try:
                    while True:
                        time.sleep(0.05)
                finally:
                    os._exit(0)
            os._exit(0)
        os.waitpid(child, 0)
        while not os.path.exists(self.pidfile):
            time.sleep(0.005)

    def selectColumn(self, B):
        if self.hang:
            time.sleep(600)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "daemon"
