"""Forks `children` (default 4) children that spin, then needs `work_s` (default 0.3 s) of its
own thread's CPU before it answers: its own children crowd it off the CPU, so it answers late,
by its own doing (the overload rule must charge it, not play the game again)."""

import os
import time

from arena.player import CXPlayer


class BusyChildren(CXPlayer):
    work_s = 0.3
    children = 4

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        for _ in range(self.children):
            if os.fork() == 0:
                try:
                    while True:
                        pass
                finally:
                    os._exit(0)
        end = time.thread_time() + self.work_s
        while time.thread_time() < end:
            pass
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "busy_children"
