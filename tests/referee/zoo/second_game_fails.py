"""Plays legally, but raises in initPlayer of the second game played by the same process
(a per-process counter): shows process reuse, and a fresh process after the fault."""

from arena.player import CXPlayer

_games_in_this_process = 0


class SecondGameFails(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        global _games_in_this_process
        _games_in_this_process += 1
        if _games_in_this_process == 2:
            raise RuntimeError("zoo: second game in this process")

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "second_game_fails"
