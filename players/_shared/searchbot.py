"""`SearchPlayer`: the plumbing the `alphabeta` and `minimax` bots share (not a bot itself).

Per game it builds one engine (see `players._shared.engine`): a bitboard engine for boards of at
most
64 cells, which reads the handed `CXBoard`'s bitboards directly on every move, or a grid engine
for larger boards, which keeps its incremental position between moves and only replays the moves
it has not seen yet (normally the two since its last answer). Each move is searched by iterative
deepening until 90% of `arena.timing.safe_budget_s(timeout_in_secs)` has passed. The answer is
checked against ``B.getAvailableColumns()``; should it ever be illegal, or should the grid engine
not catch up with the game in time, the bot falls back to `players._shared.common.fallback_column`.

On the 16 K=4 competition boards the first two moves of a game come from the opening book
(`players._shared.book`) when it holds the position: the bot then answers at once with a move
that keeps the position's game value (as first player it never throws away a win or a draw).

Options (set from a tournament config before ``initPlayer``): ``max_depth`` caps the iterative
deepening (None: as deep as the time allows, and the only setting in which the book is used: a
depth cap is for studying the search alone); ``use_book`` (default True) turns the book off.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol

from arena.board import CXBoard
from arena.player import CXPlayer
from arena.timing import Deadline, safe_budget_s
from players._shared import book
from players._shared.bitboard import BitPosition
from players._shared.common import fallback_column, no_gc_pauses, release_frozen
from players._shared.engine import GridEngine, SearchResult
from players._shared.heuristic import bound

__all__ = ["SMALL_BOARD_CELLS", "SearchPlayer", "table_entries"]

#: boards with at most this many cells use the bitboard engine
SMALL_BOARD_CELLS = 64
#: the search stops at this fraction of `arena.timing.safe_budget_s`, so that the answer (after
#: the last node, unwinding and the reply) lands well within the budget even on a busy machine
SEARCH_FRACTION = 0.9


def table_entries(timeout_s: float) -> int:
    """How many transposition-table entries a bot may keep under a move limit of `timeout_s`.

    Growing a dict re-hashes it (about 60 ms at a million entries) and emptying it frees every
    entry (about 35 ms); both happen at unpredictable moments of a search, so the table is kept
    small enough for either to cost a small part of the move's time budget.
    """
    return max(1 << 14, min(1 << 20, int(safe_budget_s(timeout_s) * 400_000)))


class BitEngine(Protocol):
    """A small-board engine (`BitSearch`, `BitMinimax`)."""

    def best_move(self, cur: int, mask: int, moves: int, stop_s: float,
                  max_depth: int | None = None) -> SearchResult: ...


class SearchPlayer(CXPlayer):
    """Base of the search bots: subclasses say which engines to build."""

    #: option: deepest iteration (None: as deep as the time allows)
    max_depth: int | None = None
    #: option: play book moves in book positions (`players._shared.book`)
    use_book: bool = True

    @abstractmethod
    def small_engine(self, M: int, N: int, K: int, tt_entries: int) -> BitEngine:
        """The engine for boards of at most `SMALL_BOARD_CELLS` cells."""

    @abstractmethod
    def grid_engine(self, M: int, N: int, K: int, tt_entries: int, seed: int) -> GridEngine:
        """The engine for larger boards."""

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        release_frozen()  # the previous game's search, frozen by no_gc_pauses
        self.timeout_s = float(timeout_in_secs)
        self.small = M * N <= SMALL_BOARD_CELLS
        self.bit_engine: BitEngine | None = None
        self.grid: GridEngine | None = None
        entries = table_entries(self.timeout_s)
        self.scale = bound(M, N, K)
        book.entry(M, N, K, [])  # loads the book now, not during a move
        if self.small:
            self.bit_engine = self.small_engine(M, N, K, entries)
        else:
            self.grid = self.grid_engine(M, N, K, entries, self.seed or 0)
        #: the last search's result (for logs, tests and benchmarks)
        self.last_result: SearchResult | None = None

    def selectColumn(self, B: CXBoard) -> int:
        with no_gc_pauses():  # a full collection mid-search can cost tens of ms
            return self._select(B)

    def _select(self, B: CXBoard) -> int:
        deadline = Deadline(SEARCH_FRACTION * safe_budget_s(self.timeout_s))
        if self.use_book and self.max_depth is None:
            known = book.entry(B.M, B.N, B.K, B.moves())
            if known is not None and known.moves and not B.fullColumn(known.moves[0]):
                self.last_result = SearchResult(known.moves[0], known.outcome * self.scale, 0, 0,
                                                known.source == "solver")
                return known.moves[0]
        if self.bit_engine is not None:
            pos = BitPosition.from_board(B)
            result = self.bit_engine.best_move(pos.current, pos.mask, pos.moves, deadline.end_s,
                                               self.max_depth)
        else:
            assert self.grid is not None
            if not self.grid.sync(B.moves(), deadline.end_s):
                self.last_result = None
                return fallback_column(B)
            result = self.grid.best_move(deadline.end_s, self.max_depth)
        self.last_result = result
        if B.fullColumn(result.col):  # cannot happen; never answer an illegal column
            return fallback_column(B)
        return result.col
