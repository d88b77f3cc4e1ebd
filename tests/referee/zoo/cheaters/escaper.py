"""Starts a child that tries to leave the bot's process group (setsid, then setpgid) so that the
referee's SIGSTOP to the group between turns would miss it, then spins forever: a helper that
thinks (or slows the opponent down) during the opponent's turns."""

import os
import sys

from arena.player import CXPlayer


class Escaper(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        done_r, done_w = os.pipe()
        if os.fork() == 0:
            try:
                os.close(done_r)
                for what, call in (("setsid", os.setsid), ("setpgid", lambda: os.setpgid(0, 0))):
                    try:
                        call()
                        print(f"CHEAT {what}: SUCCEEDED", file=sys.stderr, flush=True)
                    except OSError as e:
                        print(f"CHEAT {what}: blocked ({e})", file=sys.stderr, flush=True)
                os.write(done_w, b"x")  # both attempts are in the log before the game goes on
                while True:
                    pass
            finally:
                os._exit(0)
        os.close(done_w)
        os.read(done_r, 1)
        os.close(done_r)

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "escaper"
