"""On each of its turns, watches the process whose pid is in option `pidfile` for `watch_s`
seconds: records its state letter and CPU time (utime+stime, clock ticks) before and after, as
JSON lines appended to option `outfile`. Plays legally."""

import json
import os
import time

from arena.player import CXPlayer


def _stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return fields[0], int(fields[11]) + int(fields[12])  # state, utime + stime


class Observer(CXPlayer):
    pidfile = ""
    outfile = ""
    watch_s = 0.3

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        with open(self.pidfile) as f:
            pid = int(f.read())
        time.sleep(0.02)
        state0, cpu0 = _stat(pid)
        time.sleep(self.watch_s)
        state1, cpu1 = _stat(pid)
        with open(self.outfile, "a") as f:
            f.write(json.dumps({"state0": state0, "state1": state1, "ticks": cpu1 - cpu0,
                                "watch_s": self.watch_s, "hz": os.sysconf("SC_CLK_TCK")}) + "\n")
        return B.getAvailableColumns()[-1]

    def playerName(self):
        return "observer"
