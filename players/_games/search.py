"""A game-agnostic iterative-deepening alpha-beta (negamax) search under a deadline.

The alpha-beta bots of the other games (`players.othello.alphabeta`, `players.morris.alphabeta`,
`players.mnk.alphabeta`) share this loop and differ only in what they plug in:

- ``evaluate(state)``: the heuristic value of a position that goes on, from the side to move;
- ``order(state, moves, first)``: the moves to search, best first (`first` is the move the
  transposition table or the previous iteration found best, or None). It may leave moves out
  (forced moves, or a bot that looks only near the stones); the default puts `first` first;
- ``moves(state)``: the moves of a position, empty exactly when the game is over (default
  ``game.legal_moves``);
- ``apply(state, move)``: default ``game.apply`` (a bot may pass a faster unchecked one);
- ``terminal(state, ply)``: the value of a finished game from the side to move (default: a win
  ``WIN - ply``, a loss ``-WIN + ply``, so that sooner wins score higher; a draw 0);
- ``key(state)``: with it, a transposition table (a dict, emptied at ``table_size``
  entries) keeps depth, value, bound and best move per position; the best move is tried first
  on the next visit. Won or lost values (within ``MATE_ZONE`` of ``WIN``) are not reused
  from it, as their distance depends on the path.

`SearchBot` is the move of such a bot: its `init_player` makes `self.search` (and keeps
`timeout_s`), and `select_move` asks the search for the best move within the move's time,
to the bot's `max_depth` option (`depth_limit`).

`Search.best_move(state, deadline)` runs depth 1, 2, ... and answers the best move of the last
completed depth; it stops when the `arena.timing.Deadline` passes (checked every
``check_every`` nodes, a power of two), when the root is solved (a won or lost value) or when
the next depth would not finish (less time left than spent). `Search.negamax` is the plain
fixed-depth search (the opening judges use it).

Nothing here knows any game: values are ints, states and moves whatever the game uses.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from arena.games.base import Game
from arena.timing import Deadline

__all__ = ["INF", "MATE_ZONE", "WIN", "Search", "SearchBot", "SearchTimeout"]

S = TypeVar("S")
M = TypeVar("M")

#: the value of a won game (before the distance to it is taken off)
WIN = 1_000_000
#: values at least ``WIN - MATE_ZONE`` (in size) are won or lost games, not heuristics
MATE_ZONE = 1000
#: beyond any value
INF = 2 * WIN
_EXACT, _LOWER, _UPPER = 0, 1, 2


class SearchTimeout(Exception):
    """The deadline passed in the middle of a search."""


def _first_first(state: Any, moves: Sequence[Any], first: Any) -> Sequence[Any]:
    if first is not None and first in moves:
        return [first] + [m for m in moves if m != first]
    return moves


class Search(Generic[S, M]):
    """An iterative-deepening negamax for `game` with the bot's plug-ins (module docstring)."""

    def __init__(self, game: Game[Any, Any], evaluate: Callable[[S], int], *,
                 order: Callable[[S, Sequence[M], M | None], Sequence[M]] | None = None,
                 moves: Callable[[S], Sequence[M]] | None = None,
                 apply: Callable[[S, M], S] | None = None,
                 terminal: Callable[[S, int], int] | None = None,
                 key: Callable[[S], Hashable] | None = None,
                 table_size: int = 500_000, check_every: int = 256) -> None:
        if check_every < 1 or check_every & (check_every - 1):
            raise ValueError(f"check_every must be a power of two, got {check_every}")
        self.game = game
        self.evaluate = evaluate
        self.order: Callable[[S, Sequence[M], M | None], Sequence[M]] = order or _first_first
        self.moves: Callable[[S], Sequence[M]] = moves or game.legal_moves
        self.apply: Callable[[S, M], S] = apply or game.apply
        self.terminal: Callable[[S, int], int] = terminal or self._terminal
        self.key = key
        self.table: dict[Hashable, tuple[int, int, int, M | None]] = {}
        self.table_size = table_size
        self._mask = check_every - 1
        self.deadline = Deadline(3600.0)
        #: nodes searched since the last `best_move` (or `reset`)
        self.nodes = 0
        #: the deepest depth the last `best_move` completed
        self.depth_reached = 0

    def _terminal(self, state: S, ply: int) -> int:
        out = self.game.outcome(state)
        if out is None or out.winner is None:
            return 0
        return WIN - ply if out.winner == self.game.to_move(state) else -WIN + ply

    def reset(self, deadline: Deadline) -> None:
        """Start counting nodes afresh against `deadline` (for a direct `negamax` call)."""
        self.deadline = deadline
        self.nodes = 0

    def negamax(  # noqa: C901  (one search function reads best in one piece)
            self, state: S, depth: int, alpha: int, beta: int, ply: int = 0) -> int:
        """The value of `state` from the side to move, searched `depth` plies deep within the
        window (alpha, beta) (fail-soft). Raises SearchTimeout past the deadline."""
        self.nodes += 1
        if self.nodes & self._mask == 0 and self.deadline.expired():
            raise SearchTimeout
        moves = self.moves(state)
        if not moves:
            return self.terminal(state, ply)
        if depth == 0:
            return self.evaluate(state)
        key = None
        first = None
        if self.key is not None:
            key = self.key(state)
            entry = self.table.get(key)
            if entry is not None:
                e_depth, e_value, e_flag, first = entry
                if e_depth >= depth and abs(e_value) < WIN - MATE_ZONE:
                    if e_flag == _EXACT:
                        return e_value
                    if e_flag == _LOWER and e_value >= beta:
                        return e_value
                    if e_flag == _UPPER and e_value <= alpha:
                        return e_value
        alpha0 = alpha
        best, best_move = -INF, None
        apply = self.apply
        for m in self.order(state, moves, first):
            value = -self.negamax(apply(state, m), depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if key is not None:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            if len(self.table) >= self.table_size:
                self.table.clear()
            self.table[key] = (depth, best, flag, best_move)
        return best

    def best_move(self, state: S, deadline: Deadline, max_depth: int = 64) -> M:
        """The best move of the deepest iteration completed before `deadline` (a game that
        goes on has one)."""
        self.reset(deadline)
        moves = self.moves(state)
        ordered = list(self.order(state, moves, None))
        best = ordered[0]
        if len(ordered) == 1:
            return best
        apply = self.apply
        for depth in range(1, max_depth + 1):
            try:
                alpha, chosen = -INF, best
                for m in self.order(state, moves, best):
                    value = -self.negamax(apply(state, m), depth - 1, -INF, -alpha, 1)
                    if value > alpha:
                        alpha, chosen = value, m
            except SearchTimeout:
                break
            best = chosen
            self.depth_reached = depth
            if abs(alpha) >= WIN - MATE_ZONE or deadline.remaining_s() < deadline.elapsed_s():
                break  # solved, or the next depth would not finish
        return best


class SearchBot:
    """The moves of an alpha-beta game bot on the shared driver (a mixin before the game's
    `GamePlayer` class): `init_player` sets `search` and `timeout_s`; `select_move` answers
    the search's best move within the move's time (`arena.timing.Deadline.for_move`)."""

    #: deepest iteration (an option a config may set)
    max_depth: int = 64
    #: the deepest iteration the last move completed
    depth_reached: int = 0
    search: Search[Any, Any]
    timeout_s: float

    def depth_limit(self, state: Any) -> int:
        """How deep the search of `state` may go: `max_depth` by default."""
        return self.max_depth

    def select_move(self, state: Any) -> Any:
        move = self.search.best_move(state, Deadline.for_move(self.timeout_s),
                                     self.depth_limit(state))
        self.depth_reached = self.search.depth_reached
        return move
