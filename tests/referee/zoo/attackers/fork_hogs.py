"""Forks 3 children that each hold 200 MiB (each under a 256 MiB RLIMIT_DATA, together far
over a 256 MiB cgroup), waits until they hold it or died trying, then answers."""

import os
import time

from arena.player import CXPlayer

EACH = 200 * 2**20


def _hold() -> None:
    block = bytearray(EACH)
    block[::4096] = b"\1" * len(range(0, EACH, 4096))  # touch every page
    os.write(2, b"child holds 200 MiB\n")
    time.sleep(60)


class ForkHogs(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        kids = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                try:
                    _hold()
                finally:
                    os._exit(0)
            kids.append(pid)
            time.sleep(0.3)  # one after the other: each gets its pages before the next
        time.sleep(0.5)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "fork_hogs"
