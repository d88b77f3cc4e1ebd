"""OthelloAlphaBeta: iterative-deepening alpha-beta (negamax) under the time limit.

Evaluation, from the side to move: a weighted-square table (corners high, the squares next to
them negative, edges above the middle), mobility (the difference in legal moves) and corners
held. A finished game scores its disc difference beyond any heuristic value. Moves are
ordered by the previous iteration's best move, then by the table. The search and the move are
the shared driver's (`players._games.search.Search`, `SearchBot`): it stops when the deadline
passes and answers the best move of the last completed depth.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Game
from arena.games.othello import PASS, Othello, OthelloState
from arena.games.player import OthelloPlayer
from players._games.judge import SearchJudge
from players._games.search import WIN, Search, SearchBot

MOBILITY = 8
CORNER = 30


def weight_table(n: int) -> list[int]:
    """Square weights for an n x n board: corners 100, their neighbours -25 (diagonal -50),
    edges 10, the rest 1."""
    last = n - 1
    corners = {(0, 0), (0, last), (last, 0), (last, last)}
    weights = []
    for r in range(n):
        for c in range(n):
            w = 1
            if r in (0, last) or c in (0, last):
                w = 10
            for cr, cc in corners:
                d = max(abs(r - cr), abs(c - cc))
                if d == 0:
                    w = 100
                elif d == 1:
                    w = -50 if abs(r - cr) == 1 and abs(c - cc) == 1 else -25
            weights.append(w)
    return weights


#: how far from even (in evaluation points, a corner is 100 + 30) an opening may leave the
#: position, as judged by a `JUDGE_DEPTH`-ply search, to be used
JUDGE_MARGIN = 60
JUDGE_DEPTH = 3


class OthelloAlphaBeta(SearchBot, OthelloPlayer):

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        assert isinstance(game, Othello)
        self.game = game
        self.timeout_s = timeout_s
        n = game.size
        self.weights = weight_table(n)
        self.corner_mask = sum(1 << sq for sq in (0, n - 1, n * (n - 1), n * n - 1))
        self.search: Search[OthelloState, int] = Search(
            game, self.evaluate, order=lambda state, moves, first: self._order(moves, first),
            terminal=self._terminal, check_every=256)

    def evaluate(self, state: OthelloState) -> int:
        own, opp = state.discs(state.side)
        score = 0
        w = self.weights
        b = own
        while b:
            low = b & -b
            score += w[low.bit_length() - 1]
            b ^= low
        b = opp
        while b:
            low = b & -b
            score -= w[low.bit_length() - 1]
            b ^= low
        mine = self.game.move_bits(state, state.side).bit_count()
        theirs = self.game.move_bits(state, 1 - state.side).bit_count()
        score += MOBILITY * (mine - theirs)
        score += CORNER * ((own & self.corner_mask).bit_count()
                           - (opp & self.corner_mask).bit_count())
        return score

    def _order(self, moves: Sequence[int], first: int | None) -> list[int]:
        w = self.weights
        ordered = sorted(moves, key=lambda m: -w[m] if m != PASS else 0)
        if first is not None and first in ordered:
            ordered.remove(first)
            ordered.insert(0, first)
        return ordered

    def _terminal(self, state: OthelloState, ply: int) -> int:
        """A finished game: its disc difference beyond any heuristic value."""
        own, opp = state.discs(state.side)
        diff = own.bit_count() - opp.bit_count()
        return (WIN + diff) if diff > 0 else (-WIN + diff) if diff < 0 else 0

    def player_name(self) -> str:
        return "OthelloAlphaBeta"


#: the opening judge of Othello (entry point ``othello`` of ``cxarena.opening_judges``): an
#: opening is kept when a short search scores the position after it within JUDGE_MARGIN of even
judge_opening = SearchJudge(OthelloAlphaBeta, JUDGE_DEPTH, JUDGE_MARGIN)
