"""MNKRandom: a uniformly random empty cell, from a generator seeded by the game's seed."""

from __future__ import annotations

import random

from arena.games.base import Game
from arena.games.mnk import MNKPlayer, MNKState


class MNKRandom(MNKPlayer):
    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.game = game
        self.rng = random.Random(self.seed)

    def select_move(self, state: MNKState) -> int:
        return self.rng.choice(list(self.game.legal_moves(state)))

    def player_name(self) -> str:
        return "MNKRandom"
