"""alphabeta: negamax with alpha-beta pruning, a transposition table and iterative deepening.

How it plays a move:

1. Root tactics: an immediate win is played at once, an opponent's immediate win is blocked,
   and only moves that do not hand the opponent an immediate win are searched (if one is left,
   it is played at once).
2. Iterative deepening: depth 1, 2, 3, ... until the time budget (90% of
   `arena.timing.safe_budget_s` of the move time limit) runs out; the best move of the deepest
   completed iteration is played. The search stops early once the result is proven: a forced
   win or loss found, or the end of the game reached (then the search is an exact solver).
3. Each iteration is a negamax alpha-beta search (`players._shared.search`) with principal variation
   search: moves are tried best first (the transposition table's move, then centre first:
   centre, centre-1, centre+1, ...; high in the tree on small boards by the number of winning
   cells a move creates; on large boards by a history heuristic), the window is tightened with
   the best and worst exact score still possible, and positions already searched deep enough
   are answered from a transposition table (keyed by the bitboards or a Zobrist hash; stores
   depth, bound type and best move; bounded in size and kept between moves).
4. Scores: decided positions get exact scores (a sooner win is better, a later loss less bad:
   Pons' convention); at the horizon the squared-open-run heuristic (own minus opponent's sum of
   squared piece counts over windows of K holding one colour only) stands in, scaled so it never
   reaches an exact win or loss.

Boards up to 64 cells use bitboards (Pons-style, with a non-losing-moves filter at every node);
larger boards use a grid whose heuristic is updated incrementally and search only the columns
near pieces. ``solve(B) -> (score, nodes)`` (from `players._shared.search`) is the exact solver
entry
point: the same search without depth or time limit.
"""

from __future__ import annotations

from players._shared.engine import GridEngine
from players._shared.search import BitSearch, GridSearch, solve
from players._shared.searchbot import SearchPlayer

__all__ = ["AlphaBeta", "solve"]


class AlphaBeta(SearchPlayer):
    def small_engine(self, M: int, N: int, K: int, tt_entries: int) -> BitSearch:
        return BitSearch(M, N, K, tt_entries)

    def grid_engine(self, M: int, N: int, K: int, tt_entries: int, seed: int) -> GridEngine:
        return GridSearch(M, N, K, tt_entries, seed=seed)

    def playerName(self) -> str:
        return "alphabeta"
