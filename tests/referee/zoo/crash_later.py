"""Plays legal moves, then raises in its third selectColumn of a game (a crash mid-game)."""

from arena.player import CXPlayer


class CrashLater(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.calls = 0

    def selectColumn(self, B):
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("zoo: deliberate crash in the third move")
        return B.getAvailableColumns()[-1]

    def playerName(self):
        return "crash_later"
