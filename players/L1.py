"""L1: the course's second reference bot: one move of look-ahead.

1. If a column wins at once, play it.
2. Otherwise play a random column after which the opponent has no immediate win.
3. Otherwise (every move loses) play any random column.

It watches the clock: if 99% of the time limit is near it stops looking and answers with its
random choice.
"""

from __future__ import annotations

import random
import time

from arena.board import CXBoard, CXGameState
from arena.player import CXPlayer


class L1(CXPlayer):
    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.rng = random.Random(self.seed)
        self.budget_s = 0.99 * timeout_in_secs - 0.02  # leave room for the round trip
        self.mine = CXGameState.WINP1 if first else CXGameState.WINP2

    def selectColumn(self, B: CXBoard) -> int:
        start = time.perf_counter()
        cols = B.getAvailableColumns()
        fallback = self.rng.choice(cols)
        for c in cols:  # 1. an immediate win
            if B.markColumn(c) == self.mine:
                return c
            B.unmarkColumn()
            if time.perf_counter() - start > self.budget_s:
                return fallback
        safe = []
        for c in self.rng.sample(cols, len(cols)):  # 2. a move that gives no immediate win
            B.markColumn(c)
            if B.gameState() is not CXGameState.OPEN or not self._opponent_wins(B, start):
                safe.append(c)
            B.unmarkColumn()
            if safe or time.perf_counter() - start > self.budget_s:
                break
        return safe[0] if safe else fallback

    def _opponent_wins(self, B: CXBoard, start: float) -> bool:
        for c in B.getAvailableColumns():
            state = B.markColumn(c)
            B.unmarkColumn()
            if state not in (CXGameState.OPEN, CXGameState.DRAW):
                return True
            if time.perf_counter() - start > self.budget_s:
                return True  # not checked to the end: not known to be safe
        return False

    def playerName(self) -> str:
        return "L1"
