"""MorrisRandom: a uniformly random legal move, from a generator seeded by the game's seed."""

from __future__ import annotations

import random

from arena.games.base import Game
from arena.games.morris import MorrisMove, MorrisState
from arena.games.player import MorrisPlayer


class MorrisRandom(MorrisPlayer):
    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.game = game
        self.rng = random.Random(self.seed)

    def select_move(self, state: MorrisState) -> MorrisMove:
        return self.rng.choice(list(self.game.legal_moves(state)))

    def player_name(self) -> str:
        return "MorrisRandom"
