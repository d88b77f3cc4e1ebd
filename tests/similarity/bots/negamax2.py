"""negamax2: a deterministic two-ply negamax with the squared-open-run evaluation (the built-in
search bots' heuristic), centre first on ties; no clock, no randomness, so it answers the same
on any machine (the play-similarity tests' fixed point)."""

from __future__ import annotations

from arena.board import CXBoard, CXGameState
from arena.player import CXPlayer

#: the weight of a window holding n stones of one colour only (n = 0..4)
WEIGHTS = (0, 1, 4, 9, 16)
#: the bonus of a stone in the centre column
CENTRE = 3
WIN = 1_000_000


class Negamax2(CXPlayer):
    #: the bonus of a stone in the centre column (negamax2_tweak changes only this)
    centre_bonus = CENTRE

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.M, self.N, self.K = M, N, K
        centre = (N - 1) / 2
        self.order = sorted(range(N), key=lambda c: (abs(c - centre), c))
        self.windows = []
        for i in range(M):
            for j in range(N):
                for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(i + k * di, j + k * dj) for k in range(K)]
                    if all(0 <= a < M and 0 <= b < N for a, b in cells):
                        self.windows.append(cells)

    def evaluate(self, B: CXBoard, me: int) -> int:
        grid = B.getBoard()
        score = 0
        for w in self.windows:
            mine = theirs = 0
            for a, b in w:
                v = grid[a][b]
                if v == me:
                    mine += 1
                elif v:
                    theirs += 1
            if mine and not theirs:
                score += WEIGHTS[min(mine, len(WEIGHTS) - 1)]
            elif theirs and not mine:
                score -= WEIGHTS[min(theirs, len(WEIGHTS) - 1)]
        centre = self.N // 2
        for a in range(self.M):
            v = grid[a][centre]
            if v:
                score += self.centre_bonus if v == me else -self.centre_bonus
        return score

    def negamax(self, B: CXBoard, depth: int, me: int) -> int:
        if depth == 0:
            return self.evaluate(B, me)
        best = -WIN * 2
        for c in self.order:
            if B.fullColumn(c):
                continue
            state = B.markColumn(c)
            if state is CXGameState.OPEN:
                value = -self.negamax(B, depth - 1, 3 - me)
            elif state is CXGameState.DRAW:
                value = 0
            else:
                value = WIN
            B.unmarkColumn()
            best = max(best, value)
        return best

    def selectColumn(self, B: CXBoard) -> int:
        me = B.currentPlayer() + 1  # the stones of the side to move
        best, best_col = -WIN * 3, B.getAvailableColumns()[0]
        for c in self.order:
            if B.fullColumn(c):
                continue
            state = B.markColumn(c)
            if state is CXGameState.OPEN:
                value = -self.negamax(B, 1, 3 - me)
            elif state is CXGameState.DRAW:
                value = 0
            else:
                value = WIN
            B.unmarkColumn()
            if value > best:
                best, best_col = value, c
        return best_col

    def playerName(self) -> str:
        return type(self).__name__.lower()
