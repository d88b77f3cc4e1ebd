"""`SearchPlayer`: the plumbing the `alphabeta` and `minimax` bots share (not a bot itself).

Per game it builds one engine (see `players._shared.engine`): a bitboard engine for boards of at
most
64 cells, which reads the handed `CXBoard`'s bitboards directly on every move, or a grid engine
for larger boards, which keeps its incremental position between moves and only replays the moves
it has not seen yet (normally the two since its last answer). Each move is searched by iterative
deepening until 90% of `arena.timing.safe_budget_s(timeout_in_secs)` has passed. The answer is
checked against ``B.getAvailableColumns()``; should it ever be illegal, or should the grid engine
not catch up with the game in time, the bot falls back to `players._shared.common.fallback_column`.

Options (set from a tournament config before ``initPlayer``): ``max_depth`` caps the iterative
deepening (None: as deep as the time allows).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol

from arena.board import CXBoard
from arena.player import CXPlayer
from arena.timing import Deadline, safe_budget_s
from players._shared.bitboard import BitPosition
from players._shared.common import fallback_column, no_gc_pauses, release_frozen
from players._shared.engine import GridEngine, SearchResult

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
