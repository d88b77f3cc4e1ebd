"""A test bot that checks the board it is given: on its first move it must hold exactly the
opening (option `opening`, a list of columns) plus, when it moves second after the opening,
one more stone; otherwise it raises (the game is then lost by crash)."""

from arena.player import CXPlayer


class Counter(CXPlayer):
    opening: list = []

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.first_move = True

    def selectColumn(self, B):
        if self.first_move:
            self.first_move = False
            seen = B.moves()
            if seen[:len(self.opening)] != list(self.opening):
                raise RuntimeError(f"board {seen} does not start with {self.opening}")
            if len(seen) - len(self.opening) > 1:
                raise RuntimeError(f"board {seen}: too many moves after the opening")
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "Counter"
