"""MorrisAlphaBeta: iterative-deepening alpha-beta (negamax) with a transposition table.

Heuristic, from the side to move: pieces (on the board and in hand), closed mills, and
mobility (sliding moves, in the moving phase while neither side flies). A won or lost game
scores beyond any heuristic value, sooner wins higher; a draw by rule scores 0. The
transposition table is keyed by the position (`MorrisState.key()`: board, side to move,
pieces in hand) and keeps the depth, the value with its bound and the best move, which is
tried first on the next visit. The search and the move are the shared driver's
(`players._games.search.Search`, `SearchBot`): it stops at the deadline and answers the best
move of the last completed depth.
"""

from __future__ import annotations

from arena.games.base import Game
from arena.games.morris import MILLS, Morris, MorrisMove, MorrisState
from arena.games.player import MorrisPlayer
from players._games.judge import SearchJudge
from players._games.search import WIN, Search, SearchBot

__all__ = ["WIN", "MorrisAlphaBeta", "judge_opening"]

PIECE = 100
MILL = 30
MOBILITY = 4
_MILL_MASKS = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in MILLS)


#: how far from even (in evaluation points, a piece is 100) an opening may leave the
#: position, as judged by a `JUDGE_DEPTH`-ply search, to be used
JUDGE_MARGIN = 60
JUDGE_DEPTH = 3


class MorrisAlphaBeta(SearchBot, MorrisPlayer):
    max_depth = 32
    #: transposition table entries kept before it is cleared
    table_size: int = 500_000

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        assert isinstance(game, Morris)
        self.game = game
        self.timeout_s = timeout_s
        self.search: Search[MorrisState, MorrisMove] = Search(
            game, self.evaluate, apply=game.apply_unchecked, key=MorrisState.key,
            table_size=self.table_size, check_every=128)
        #: the transposition table (the search's, kept from one move to the next)
        self.table = self.search.table

    def evaluate(self, state: MorrisState) -> int:
        side = state.side
        own, opp = state.discs(side)
        score = PIECE * (self.game.pieces(state, side) - self.game.pieces(state, 1 - side))
        score += MILL * (sum(1 for m in _MILL_MASKS if own & m == m)
                         - sum(1 for m in _MILL_MASKS if opp & m == m))
        if (not state.in_hand[0] and not state.in_hand[1] and not self.game.can_fly(state, 0)
                and not self.game.can_fly(state, 1)):  # a flying side's mobility means little
            score += MOBILITY * (self.game.mobility(state, side)
                                 - self.game.mobility(state, 1 - side))
        return score

    def player_name(self) -> str:
        return "MorrisAlphaBeta"


#: the opening judge of Morris (entry point ``morris`` of ``cxarena.opening_judges``): an
#: opening is kept when a short search scores the position after it within JUDGE_MARGIN of even
judge_opening = SearchJudge(MorrisAlphaBeta, JUDGE_DEPTH, JUDGE_MARGIN)
