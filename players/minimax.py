"""minimax: plain minimax with iterative deepening, the baseline for `alphabeta`.

How it plays a move:

1. Root tactics: an immediate win is played at once and an opponent's immediate win is blocked.
2. Iterative deepening: depth 1, 2, 3, ... until the time budget (90% of
   `arena.timing.safe_budget_s` of the move time limit) runs out; the best move of the deepest
   completed iteration is played (ties: centre first). It stops early once a forced win or loss
   is found or the end of the game is reached.
3. Each iteration is a full minimax search (`players._shared.minimax`): no pruning and no
   transposition table; on boards of at most 64 cells every move of every node is searched, on
   larger boards only the columns near pieces (see below); a move completing K in a row ends
   the line with an exact score (a sooner win is better, a later loss less bad), and the
   horizon is scored with the squared-open-run heuristic (own minus opponent's sum of squared
   piece counts over windows of K holding one colour only), the same as `alphabeta`'s, so the
   two differ only in what pruning and the table buy: depth.

Boards up to 64 cells use bitboards; larger boards use the incremental grid and search only
columns near pieces, like `alphabeta`.
"""

from __future__ import annotations

from players._shared.engine import GridEngine
from players._shared.minimax import BitMinimax, GridMinimax
from players._shared.searchbot import SearchPlayer


class Minimax(SearchPlayer):
    def small_engine(self, M: int, N: int, K: int, tt_entries: int) -> BitMinimax:
        return BitMinimax(M, N, K)  # no table

    def grid_engine(self, M: int, N: int, K: int, tt_entries: int, seed: int) -> GridEngine:
        return GridMinimax(M, N, K, seed=seed)

    def playerName(self) -> str:
        return "minimax"
