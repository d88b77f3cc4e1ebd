"""MorrisAlphaBeta: iterative-deepening alpha-beta (negamax) with a transposition table.

Heuristic, from the side to move: pieces (on the board and in hand), closed mills, and
mobility (sliding moves, in the moving phase while neither side flies). A won or lost game
scores beyond any heuristic value, sooner wins higher; a draw by rule scores 0. The
transposition table is keyed by the position (`MorrisState.key()`: board, side to move,
pieces in hand) and keeps the depth, the value with its bound and the best move, which is
tried first on the next visit. The search stops at the deadline
(`arena.timing.Deadline.for_move`) and answers the best move of the last completed depth.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Game
from arena.games.morris import MILLS, Morris, MorrisMove, MorrisState
from arena.games.player import MorrisPlayer
from arena.timing import Deadline

WIN = 1_000_000
PIECE = 100
MILL = 30
MOBILITY = 4
_EXACT, _LOWER, _UPPER = 0, 1, 2
_MILL_MASKS = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in MILLS)


class _Timeout(Exception):
    pass


#: how far from even (in evaluation points, a piece is 100) an opening may leave the
#: position, as judged by a `JUDGE_DEPTH`-ply search, to be used
JUDGE_MARGIN = 60
JUDGE_DEPTH = 3


def judge_opening(game: Game, texts: Sequence[str]) -> bool:
    """The opening judge of Morris (entry point ``cxarena.game_opening_judges``): True when a
    short search scores the position after `texts` within JUDGE_MARGIN of even."""
    bot = MorrisAlphaBeta()
    bot.init_player(game, True, 60.0)
    bot.deadline = Deadline(30.0)
    bot.nodes = 0
    state = game.play_texts(texts)
    return abs(bot._negamax(state, JUDGE_DEPTH, -WIN * 2, WIN * 2, 0)) <= JUDGE_MARGIN


class MorrisAlphaBeta(MorrisPlayer):
    #: deepest iteration (an option a config may set)
    max_depth: int = 32
    #: transposition table entries kept before it is cleared
    table_size: int = 500_000

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        assert isinstance(game, Morris)
        self.game = game
        self.timeout_s = timeout_s
        self.table: dict[int, tuple[int, int, int, MorrisMove | None]] = {}
        self.depth_reached = 0

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

    def _negamax(  # noqa: C901  (one search function reads best in one piece)
            self, state: MorrisState, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes & 127 == 0 and self.deadline.expired():
            raise _Timeout
        moves = self.game.legal_moves(state)
        if not moves:
            out = self.game.outcome(state)
            if out is None or out.winner is None:
                return 0
            return WIN - ply if out.winner == state.side else -WIN + ply
        if depth == 0:
            return self.evaluate(state)
        key = state.key()
        entry = self.table.get(key)
        first = None
        if entry is not None:
            e_depth, e_value, e_flag, first = entry
            if e_depth >= depth and abs(e_value) < WIN - 1000:
                if e_flag == _EXACT:
                    return e_value
                if e_flag == _LOWER and e_value >= beta:
                    return e_value
                if e_flag == _UPPER and e_value <= alpha:
                    return e_value
        if first is not None and first in moves:
            moves = [first] + [m for m in moves if m != first]
        alpha0 = alpha
        best, best_move = -WIN * 2, moves[0]
        for m in moves:
            value = -self._negamax(self.game.apply_unchecked(state, m), depth - 1,
                                   -beta, -alpha, ply + 1)
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
        if len(self.table) >= self.table_size:
            self.table.clear()
        self.table[key] = (depth, best, flag, best_move)
        return best

    def select_move(self, state: MorrisState) -> MorrisMove:
        self.deadline = Deadline.for_move(self.timeout_s)
        self.nodes = 0
        moves = list(self.game.legal_moves(state))
        best = moves[0]
        if len(moves) == 1:
            return best
        for depth in range(1, self.max_depth + 1):
            try:
                alpha, chosen = -WIN * 2, best
                for m in [best] + [m for m in moves if m != best]:
                    value = -self._negamax(self.game.apply_unchecked(state, m), depth - 1,
                                           -WIN * 2, -alpha, 1)
                    if value > alpha:
                        alpha, chosen = value, m
            except _Timeout:
                break
            best = chosen
            self.depth_reached = depth
            if abs(alpha) >= WIN - 1000 or self.deadline.remaining_s() < self.deadline.elapsed_s():
                break
        return best

    def player_name(self) -> str:
        return "MorrisAlphaBeta"
