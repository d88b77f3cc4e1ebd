"""L0: the course's first reference bot: a uniformly random legal column.

Its random generator is seeded from the game's seed (see `CXPlayer.seed`), so a game can be
replayed exactly.
"""

from __future__ import annotations

import random

from arena.board import CXBoard
from arena.player import CXPlayer


class L0(CXPlayer):
    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.rng = random.Random(self.seed)

    def selectColumn(self, B: CXBoard) -> int:
        return self.rng.choice(B.getAvailableColumns())

    def playerName(self) -> str:
        return "L0"
