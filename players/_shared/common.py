"""Pieces shared by the built-in bots (not a bot: discovery skips modules starting with "_").

Tactics on a `CXBoard`: the columns that win at once for the side to move, and the opponent's
immediate wins that must be blocked; `forced_column`/`fallback_column`, the same read on
bitboards (cheap even on 100x100), for a bot that must answer without searching;
`no_gc_pauses`, which keeps the cycle collector from pausing any bot's search.

The search bots' machinery lives in the other underscore modules: `players._shared.bitboard` (fast
bitboard positions: `BitPosition`, `Geometry`, `centre_order`), `players._shared.heuristic` (the
squared-open-run heuristic, incremental `GridPosition`), `players._shared.engine` (scores, results,
root
tactics, iterative deepening), `players._shared.search` (alpha-beta) and `players._shared.minimax`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from arena.board import CXBoard, CXGameState, has_run
from players._shared.bitboard import BitPosition, centre_order

__all__ = [
    "BitPosition",
    "centre_order",
    "fallback_column",
    "forced_column",
    "immediate_threats",
    "immediate_wins",
    "no_gc_pauses",
    "release_frozen",
]

_WINS = (CXGameState.WINP1, CXGameState.WINP2)


def immediate_wins(B: CXBoard) -> list[int]:
    """Columns where the side to move wins with its next piece, ascending."""
    me = _WINS[B.currentPlayer()]
    out = []
    for c in B.getAvailableColumns():
        if B.markColumn(c) is me:
            out.append(c)
        B.unmarkColumn()
    return out


def immediate_threats(B: CXBoard) -> list[int]:
    """Columns where the opponent would win if it could move now (cells the side to move must
    take), ascending. The board is returned unchanged."""
    if B.gameState() is not CXGameState.OPEN:
        return []
    them = _WINS[1 - B.currentPlayer()]
    out = []
    for c in B.getAvailableColumns():
        if _wins_for(B, c, them):
            out.append(c)
    return out


def _wins_for(B: CXBoard, col: int, who: CXGameState) -> bool:
    """Would a piece of `who` in `col` complete K in a row? Checked on the bitboards."""
    M, K = B.M, B.K
    H = M + 1
    b1, b2 = B.bitboards
    bits = b1 if who is CXGameState.WINP1 else b2
    h = B.heights()[col]
    bits |= 1 << (col * H + h)
    return any(has_run(bits, s, K) for s in (1, H, H + 1, H - 1))


def forced_column(B: CXBoard) -> int | None:
    """The column the rules force on the side to move of an open position, if any: an immediate
    win, else the block of an opponent's immediate win (centre-most if several), else None."""
    pos = BitPosition.from_board(B)
    order = centre_order(B.N)
    for cols in (pos.winning_moves(), pos.threats()):
        if cols:
            return min(cols, key=order.index)
    return None


def fallback_column(B: CXBoard) -> int:
    """A legal column chosen without search: `forced_column`, else the centre-most legal one."""
    col = forced_column(B)
    if col is not None:
        return col
    legal = set(B.getAvailableColumns())
    return next(c for c in centre_order(B.N) if c in legal)


@contextmanager
def no_gc_pauses() -> Iterator[None]:
    """Run a search without pauses of Python's cycle collector.

    A search tree is many small objects; a full collection scanning them can take tens of
    milliseconds at a random moment, which is enough to lose on time at 0.1 s per move. Inside
    this block the collector is off; on leaving, the objects alive then are frozen (moved out of
    the collector's reach, see `gc.freeze`) so that the next collection does not scan them either.
    Acyclic garbage is still freed by reference counting; frozen cycles (an old game's search
    engine) wait for `release_frozen`, which every bot using this calls in initPlayer.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def release_frozen() -> None:
    """Hand what `no_gc_pauses` froze back to the collector and collect it: called when a game
    starts (initPlayer), so that a process reused for many games frees each old game's search
    (cycles included) instead of keeping it until it runs out of memory."""
    gc.unfreeze()
    gc.collect()
