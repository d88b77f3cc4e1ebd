"""Needs a fixed amount of CPU time per move (option `work_s`, default 0.15 s of its own
thread's CPU, whatever the wall clock says), then plays the leftmost free column. Its pid is
appended to the file in option `pidfile` at each initPlayer. On an idle core it answers in
time; kept off the CPU by a hog pinned to its core it does not, through no fault of its own."""

import os
import time

from arena.player import CXPlayer


class CpuWork(CXPlayer):
    work_s = 0.15
    pidfile = ""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        if self.pidfile:
            with open(self.pidfile, "a") as f:
                f.write(f"{os.getpid()}\n")

    def selectColumn(self, B):
        end = time.thread_time() + self.work_s
        while time.thread_time() < end:
            pass
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "cpu_work"
