"""Judging an opening position with the project's own search, in a small, reproducible budget.

`judge_opening(M, N, K, moves)` answers the two questions `arena.tournament.openings` asks of
a candidate opening (it passes this function in as its `judge`):

1. Is a side already lost within what the search sees? A depth-limited alpha-beta search
   (`players._shared.search.BitSearch` on boards of at most 64 cells, `GridSearch` above)
   that *proves* a forced win for either side within ``depth`` plies rejects the opening.
2. What is its exact value? On boards of at most 64 cells the exact solver (the null-window
   searches of `BitSearch.solve_outcome`) runs with a budget of ``nodes`` nodes; when it
   finishes, the value (1: the first player wins, 0: draw, -1: the second player wins) is
   returned, else None. Large boards get None.

Budgets are depth and node counts, not seconds, so a suite made from a seed is the same on
every machine. Not a bot: nothing here plays games.
"""

from __future__ import annotations

from dataclasses import dataclass

from players._shared.bitboard import BitPosition
from players._shared.engine import INF, SearchTimeout, iterative_deepening
from players._shared.search import BIT_SEARCH_MAX_CELLS, BitSearch, GridSearch

__all__ = ["Judgement", "judge_opening"]

#: plies the tactical search looks ahead on small boards (large ones: LARGE_DEPTH)
DEPTH = 6
LARGE_DEPTH = 2
#: nodes the exact solver may visit (a fraction of a second of Python)
NODES = 20_000
_TT_ENTRIES = 1 << 18


@dataclass(frozen=True)
class Judgement:
    """`lost_side`: 1 or 2 if the search proved that side loses (reject the opening), else
    None; `value`: the exact value for the first player (1, 0, -1) or None if unknown."""

    lost_side: int | None
    value: int | None


class _BudgetedSearch(BitSearch):
    """A BitSearch that stops after a node budget instead of a deadline."""

    def __init__(self, M: int, N: int, K: int, node_budget: int) -> None:
        super().__init__(M, N, K, tt_entries=_TT_ENTRIES)
        self.node_limit = node_budget

    def _check(self) -> None:
        if self.nodes > self.node_limit:
            raise SearchTimeout
        if len(self.tt) > self.tt_entries:
            self.tt.clear()


def judge_opening(M: int, N: int, K: int, moves: tuple[int, ...], depth: int = DEPTH,
                  nodes: int = NODES) -> Judgement:
    """Judge the open position after `moves` (0-based columns from the empty board)."""
    to_move = len(moves) % 2 + 1  # 1: the first player is to move
    if M * N <= BIT_SEARCH_MAX_CELLS:
        from arena.board import CXBoard

        pos = BitPosition.from_board(CXBoard.from_moves(M, N, K, list(moves)))
        search = _BudgetedSearch(M, N, K, node_budget=nodes)
        search.set_position(pos.current, pos.mask, pos.moves)
        search.node_limit = search.nodes + 10 * nodes  # the tactical search has its own cap
        result = iterative_deepening(search, INF, depth)
        lost = _lost(result.proven, result.score, search.scale, to_move)
        if lost is not None:
            return Judgement(lost, 1 if lost == 2 else -1)
        search.node_limit = search.nodes + nodes
        solved = search.solve_outcome(result, INF)
        if solved is None:
            return Judgement(None, None)
        outcome = (solved.score > 0) - (solved.score < 0)  # side to move's view
        return Judgement(None, outcome if to_move == 1 else -outcome)
    grid = GridSearch(M, N, K, tt_entries=_TT_ENTRIES)
    grid.sync(list(moves), INF)
    result = grid.best_move(INF, max_depth=min(depth, LARGE_DEPTH))
    lost = _lost(result.proven, result.score, grid.scale, to_move)
    return Judgement(lost, None if lost is None else (1 if lost == 2 else -1))


def _lost(proven: bool, score: int, scale: int, to_move: int) -> int | None:
    if not proven or abs(score) < scale:
        return None
    return (3 - to_move) if score > 0 else to_move
