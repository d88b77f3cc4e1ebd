"""What the search bots' engines share (not a bot itself): scores, results, the root tactics,
the iterative-deepening driver and the large-board position upkeep.

Scores are always from the side to move's point of view. A decided position scores as in Pascal
Pons' Connect 4 solver: a win is worth ``1 + (W*H - m) // 2`` where m is the number of stones on
the board when it ends (the winning stone included), so a sooner win is worth more and a later
loss (the negation) hurts less; a draw is 0. Engines multiply these exact scores by ``scale``, a
number larger than any heuristic value on the board (`players._shared.heuristic.bound`), so the
squared-open-run heuristic used at the search horizon lives strictly between two exact scores and
never collides with a decided result: ``|score| >= scale`` means "proven win or loss".

An engine (alpha-beta or minimax, bitboard or grid; see `Engine`) exposes ``root()``, which
decides the move at once when the rules force it, and ``search_root(cols, depth)``, one
iteration of its search; `iterative_deepening` drives them under a deadline.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol

from players._shared.bitboard import Geometry, centre_order
from players._shared.heuristic import GridPosition, bound

__all__ = [
    "Engine",
    "GridEngine",
    "SearchResult",
    "SearchTimeout",
    "bit_root",
    "iterative_deepening",
    "win_score",
]

INF = math.inf


class SearchTimeout(Exception):
    """Raised inside a search when its stop time has passed."""


def win_score(size: int, stones: int) -> int:
    """Pons' score of a win completed with the `stones`-th stone on a board of `size` cells."""
    return 1 + (size - stones) // 2


@dataclass(frozen=True)
class SearchResult:
    """The answer of a search: the move, its score (scaled, side to move's view), the deepest
    completed depth (0: decided by the root tactics), nodes visited, and whether the score is
    proven (exact game-theoretic value, not a heuristic estimate)."""

    col: int
    score: int
    depth: int
    nodes: int
    proven: bool


class Engine(Protocol):
    """What `iterative_deepening` needs from an engine."""

    size: int  # cells on the board
    scale: int  # exact scores are multiplied by this
    stop_s: float  # perf_counter time at which the search raises SearchTimeout

    @property
    def nodes(self) -> int: ...

    @property
    def moves(self) -> int: ...  # stones on the board at the root

    def root(self) -> tuple[SearchResult | None, list[int]]: ...

    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]: ...


def iterative_deepening(engine: Engine, stop_s: float,
                        max_depth: int | None = None) -> SearchResult:
    """Search depth 1, 2, 3, ... until `stop_s` (perf_counter seconds) or `max_depth`.

    Answers at once when the rules decide the move (``engine.root``). Each iteration searches
    the previous best move first, then the others by their previous scores, and the loop stops
    as soon as the result is proven: a win or a loss found (|score| >= scale), or the depth
    reached the end of the game. On timeout the best move of the deepest completed iteration is
    played (if not even depth 1 completed: the first candidate, centre first).
    """
    decided, cols = engine.root()
    if decided is not None:
        return decided
    start_nodes = engine.nodes
    remaining = engine.size - engine.moves
    limit = remaining if max_depth is None else min(max_depth, remaining)
    result = SearchResult(cols[0], 0, 0, 0, False)
    engine.stop_s = stop_s
    try:
        depth = 0
        while depth < limit:
            depth += 1
            try:
                best, scores = engine.search_root(cols, depth)
            except SearchTimeout:
                break
            score = max(scores)
            proven = abs(score) >= engine.scale or depth >= remaining
            result = SearchResult(best, score, depth, engine.nodes - start_nodes, proven)
            if proven:
                break
            # next iteration: best first, the rest by decreasing score (ties: centre first)
            ranked = sorted(range(len(cols)), key=lambda i: -scores[i])
            cols = [best] + [cols[i] for i in ranked if cols[i] != best]
    finally:
        engine.stop_s = INF
    return SearchResult(result.col, result.score, result.depth, engine.nodes - start_nodes,
                        result.proven)


def bit_root(g: Geometry, scale: int, cur: int, mask: int, moves: int,
             safe_only: bool) -> tuple[SearchResult | None, list[int]]:
    """Root tactics on bitboards: decide the move when the rules force it, else list the moves.

    Returns (result, []) for an immediate win, a forced block (one opponent threat), a lost
    position (two threats, or with `safe_only` every move gives the opponent a win), or with
    `safe_only` a single move that does not lose at once. Otherwise (None, columns centre
    first): every legal column, or with `safe_only` those after which the opponent has no
    immediate win.
    """
    size = g.size
    possible = (mask + g.bottom) & g.board
    cols = [c for c in g.order if possible & g.columns[c]]
    wins = g.win_cells(cur, mask) & possible
    if wins:
        col = next(c for c in cols if wins & g.columns[c])
        return SearchResult(col, win_score(size, moves + 1) * scale, 0, 0, True), []
    threats = g.win_cells(cur ^ mask, mask)
    forced = possible & threats
    if forced:
        col = next(c for c in cols if forced & g.columns[c])
        if forced & (forced - 1):  # two threats: block one and hope
            return SearchResult(col, -win_score(size, moves + 2) * scale, 0, 0, True), []
        return SearchResult(col, 0, 0, 0, False), []
    if not safe_only:
        return None, cols
    safe = possible & ~(threats >> 1)  # not right under an opponent's winning cell
    if not safe:  # whatever we play, the opponent wins next
        return SearchResult(cols[0], -win_score(size, moves + 2) * scale, 0, 0, True), []
    safe_cols = [c for c in cols if safe & g.columns[c]]
    if len(safe_cols) == 1:
        return SearchResult(safe_cols[0], 0, 0, 0, False), []
    return None, safe_cols


class GridEngine(ABC):
    """Position upkeep shared by the large-board engines: a `GridPosition`, which columns are
    near pieces, bringing the position up to date with the game, and the root tactics.

    Candidate moves are the legal columns within ``radius`` columns of a non-empty column (on an
    empty board: the centre column), centre first. Every immediate win or block is among them:
    the empty cell of a window holding K-1 pieces is next to one of those pieces.
    """

    def __init__(self, M: int, N: int, K: int, radius: int = 2, seed: int = 0) -> None:
        self.M, self.N, self.K = M, N, K
        self.size = M * N
        self.scale = bound(M, N, K)
        self.radius = radius
        self.pos = GridPosition(M, N, K, seed)
        self.order = centre_order(N)
        self.near = [0] * N  # how many non-empty columns lie within `radius` of each column
        self.node_count = 0
        self.stop_s = INF

    @property
    def nodes(self) -> int:
        return self.node_count

    @property
    def moves(self) -> int:
        """Stones on the board of the engine's position."""
        return self.pos.moves

    def play(self, col: int) -> bool:
        """Play `col` on the engine's position (keeping `near` up to date); True if it wins."""
        pos = self.pos
        if pos.heights[col] == 0:
            for d in range(max(0, col - self.radius), min(self.N, col + self.radius + 1)):
                self.near[d] += 1
        return pos.play(col)

    def undo(self) -> None:
        pos = self.pos
        col = pos.history[-1][0]
        pos.undo()
        if pos.heights[col] == 0:
            for d in range(max(0, col - self.radius), min(self.N, col + self.radius + 1)):
                self.near[d] -= 1

    def sync(self, cols: list[int], stop_s: float) -> bool:
        """Bring the position to the one after `cols` (the game so far), replaying only what is
        new when it extends the current one. False if `stop_s` passed first (the position is
        then a prefix of `cols`, still consistent, and the next call carries on)."""
        pos = self.pos
        n = len(pos.history)
        if n > len(cols) or any(h[0] != c for h, c in zip(pos.history, cols, strict=False)):
            while pos.history:
                self.undo()
            n = 0
        clock = time.perf_counter
        for i in range(n, len(cols)):
            if not i & 15 and clock() > stop_s:
                return False
            self.play(cols[i])
        return True

    def candidates(self) -> list[int]:
        """Legal columns near pieces, centre first."""
        pos = self.pos
        heights, near, M = pos.heights, self.near, self.M
        if pos.moves == 0:
            return [self.order[0]]
        cols = [c for c in self.order if near[c] and heights[c] < M]
        if not cols:  # cannot happen while a move is legal, but stay safe
            cols = [c for c in self.order if heights[c] < M]
        return cols

    def unwind(self, moves: int) -> None:
        """Undo moves until `moves` stones are left (after an interrupted search)."""
        while self.pos.moves > moves:
            self.undo()

    def best_move(self, stop_s: float, max_depth: int | None = None) -> SearchResult:
        """The move to play in the engine's position (see `iterative_deepening`)."""
        return iterative_deepening(self, stop_s, max_depth)

    @abstractmethod
    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]:
        """One iteration of the engine's search over the root moves `cols`: (best column,
        scores in the order of `cols`)."""

    def root(self) -> tuple[SearchResult | None, list[int]]:
        """Root tactics (as `bit_root` without `safe_only`): an immediate win, a forced block,
        or (None, candidate columns)."""
        pos = self.pos
        me = pos.player
        S, size, moves = self.scale, self.size, pos.moves
        legal = [c for c in self.order if pos.heights[c] < self.M]
        for c in legal:
            if pos.wins_at(c, me):
                return SearchResult(c, win_score(size, moves + 1) * S, 0, 0, True), []
        threats = [c for c in legal if pos.wins_at(c, 1 - me)]
        if len(threats) > 1:
            return SearchResult(threats[0], -win_score(size, moves + 2) * S, 0, 0, True), []
        if threats:
            return SearchResult(threats[0], 0, 0, 0, False), []
        cols = self.candidates()
        if len(cols) == 1:
            return SearchResult(cols[0], 0, 0, 0, False), []
        return None, cols
