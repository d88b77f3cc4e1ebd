"""Tries to start 2,000 sleeping processes in selectColumn (a failed fork is counted, not
fatal), says on stderr how many it got, then answers."""

import os
import sys
import time

from arena.player import CXPlayer


class ForkBomb(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        started = refused = 0
        for _ in range(2000):
            try:
                pid = os.fork()
            except OSError:
                refused += 1
                continue
            if pid == 0:
                try:
                    time.sleep(120)
                finally:
                    os._exit(0)
            started += 1
        print(f"fork bomb: {started} started, {refused} refused", file=sys.stderr, flush=True)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "fork_bomb"
