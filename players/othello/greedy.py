"""OthelloGreedy: the move that flips the most discs (ties: the first in board order)."""

from __future__ import annotations

from arena.games.base import Game
from arena.games.othello import Othello, OthelloState
from arena.games.player import OthelloPlayer


class OthelloGreedy(OthelloPlayer):
    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        assert isinstance(game, Othello)
        self.game = game

    def select_move(self, state: OthelloState) -> int:
        moves = self.game.legal_moves(state)
        return max(moves, key=lambda m: self.game.flips(state, m).bit_count())

    def player_name(self) -> str:
        return "OthelloGreedy"
