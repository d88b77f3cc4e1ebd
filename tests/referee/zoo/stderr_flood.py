"""Writes 4 MB to stderr every move, then plays legally (must not block)."""

import sys

from arena.player import CXPlayer

_CHUNK = ("x" * 1023 + "\n") * 1024  # 1 MB


class StderrFlood(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        for _ in range(4):
            sys.stderr.write(_CHUNK)
        sys.stderr.write("flood: move done\n")
        sys.stderr.flush()
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "stderr_flood"
