"""The bot of issue 16: on its first move, SIGKILL every other process whose environment carries
the same CXARENA_TAG (its opponent, unless isolated). Without isolation it wins by the opponent's
crash; isolated it sees no process but its own sandbox's."""

import os
import signal
import sys

from arena.player import CXPlayer


def _tag(pid: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return None
    return next((kv for kv in env if kv.startswith(b"CXARENA_TAG=")), None)


class Killer(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.done = False

    def selectColumn(self, B):
        if not self.done:
            self.done = True
            mine = _tag("self")
            killed = []
            for pid in os.listdir("/proc"):
                if pid.isdigit() and int(pid) != os.getpid() and mine and _tag(pid) == mine:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                        killed.append(pid)
                    except OSError as e:
                        print(f"CHEAT kill {pid}: blocked ({e})", file=sys.stderr)
            print(f"CHEAT kill by tag: sent to {killed}", file=sys.stderr, flush=True)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "killer"
