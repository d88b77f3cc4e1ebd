"""Negamax alpha-beta search for the `alphabeta` bot (not a bot itself).

Scores follow `players._shared.engine` (Pons' exact scores times ``scale``; the heuristic in
between).
Both engines search with a fail-soft negamax, principal variation search (every move after the
first is first tried with a null window), a transposition table and iterative deepening
(`players._shared.engine.iterative_deepening`).

- `BitSearch`, for boards of at most 64 cells: Pons-style bitboards on Python ints, with the
  board's masks bound into a closure for speed. Each node computes the opponent's winning cells
  once (`Geometry.win_cells`) and derives from them the forced block, the "two threats: lost"
  test and the non-losing moves (never play right under an opponent's winning cell); it tightens
  the alpha-beta window with the best and worst exact score still possible, probes the
  transposition table, and tries the table's best move first, then the others centre first
  (centre, centre-1, centre+1, ...). High in the tree (at least ``sort_min_depth`` plies left to
  search), where subtrees are big enough to pay for it, the moves after the table's are instead
  sorted by how many winning cells each creates (Pons' ordering, centre first among equals).
  The squared-open-run heuristic is carried down the tree incrementally (``delta``: only the
  windows through the new piece) and used at the horizon, clamped to the exact scores still
  possible. `solve` runs the same negamax without a depth limit under a sequence of null
  windows that bisect the score range (Pons' "strong" solver): an exact solver, which needs far
  fewer nodes than one full-window search.
- `GridSearch`, for large boards: the same negamax over `players._shared.heuristic.GridPosition`,
  whose heuristic and win test are updated incrementally (O(K) per move), with moves restricted
  to columns near pieces (`players._shared.engine.GridEngine`), ordered by the table's move, then a
  history heuristic (columns that caused cutoffs), then centre first; Zobrist-keyed table.

The transposition table is a dict from position key to one packed int (see `_pack`): score,
bound type (exact, lower, upper), remaining depth (capped at the empty cells left, so an entry
that reached the end of the game is valid for any depth) and best move. It is emptied when it
grows past ``tt_entries``, which bounds its memory (roughly 100 bytes per entry). Both engines
keep it from one move to the next.

Time: the search checks ``time.perf_counter()`` every few nodes and raises `SearchTimeout` past
``stop_s``; `players._shared.engine.iterative_deepening` then answers with the best move of the
deepest
completed iteration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from arena.board import CXBoard
from players._shared.bitboard import BitPosition, geometry
from players._shared.engine import (
    INF,
    GridEngine,
    SearchResult,
    SearchTimeout,
    bit_root,
    iterative_deepening,
    win_score,
)
from players._shared.heuristic import bound, cell_window_masks, evaluate, window_masks

__all__ = ["BitSearch", "GridSearch", "solve"]

EXACT, LOWER, UPPER = 0, 1, 2
#: how many cells a board may have for `BitSearch`
BIT_SEARCH_MAX_CELLS = 64
#: share of a move's time for the heuristic search before trying to solve the position
HEURISTIC_SHARE = 0.6
#: the exact search is tried when at most ``2 d + SOLVE_MARGIN[K == 4]`` cells are empty, d the
#: depth the heuristic search completed. For K = 4 its win test is unrolled and fast (on 6x7,
#: 26 empty cells are solved in 0.01-0.12 s of CPU); for other K a failed attempt costs the
#: heuristic search 40 % of its time (on 7x7x5 at 1 s against OpenSpiel's MCTSBot a margin of
#: 6 scored 31 %, a margin of 2 52.5 % and 26 % in two runs: docs/benchmarks.md)
SOLVE_MARGIN = (2, 6)
#: default bound on transposition-table entries (about 120 MB at most)
TT_ENTRIES = 1 << 20


def _pack(value: int, depth: int, flag: int, move: int) -> int:
    """A table entry in one int: value << 32 | depth << 16 | flag << 14 | move + 1."""
    return (value << 32) | (depth << 16) | (flag << 14) | (move + 1)


class BitSearch:
    """Negamax alpha-beta on bitboards for boards of at most 64 cells (see module docstring).

    Pons' threat-count move ordering is used at nodes with at least ``sort_min_depth`` plies
    left to search (in an exact search: empty cells left); a value above the board's size turns
    it off.
    """

    def __init__(self, M: int, N: int, K: int, tt_entries: int = TT_ENTRIES,
                 sort_min_depth: int = 10) -> None:
        if M * N > BIT_SEARCH_MAX_CELLS:
            raise ValueError(f"BitSearch handles at most {BIT_SEARCH_MAX_CELLS} cells")
        self.g = geometry(M, N, K)
        self.scale = bound(M, N, K)
        self.size = M * N
        self.tt: dict[int, int] = {}
        self.tt_entries = tt_entries
        self.stop_s = INF
        self.cur = self.mask = self.moves = 0  # the root position
        #: the depth the heuristic search completed at the last move
        self.last_depth = 0
        self.windows = window_masks(self.g)
        self.negamax = self._build(sort_min_depth)

    def _check(self) -> None:
        """Called every 64 nodes: stop past the deadline, bound the table's size."""
        if time.perf_counter() > self.stop_s:
            raise SearchTimeout
        if len(self.tt) > self.tt_entries:
            self.tt.clear()

    # the search's hot loop is one closure on purpose: every call and attribute lookup it saves
    # is measured in nodes per second (docs/benchmarks.md), so it is exempt from C901
    def _build(self, sort_min_depth: int) -> Callable[..., int]:  # noqa: C901
        """The negamax function, with the board's constants bound as closure variables."""
        g = self.g
        size, bottom, board, columns, order = g.size, g.bottom, g.board, g.columns, g.order
        win_cells = g.win_cells
        S = self.scale
        cell_windows = cell_window_masks(g)
        squares = tuple(n * n for n in range(g.K + 1))
        tt = self.tt
        tt_get = tt.get
        check = self._check
        nodes = 0
        # orders[c + 1]: column c first, then the others centre first; orders[0]: centre first
        orders = [order] + [(c,) + tuple(x for x in order if x != c) for c in range(g.N)]
        # by stones on the board, for the side to move (scaled exact scores):
        # lost: the opponent wins with its next stone; worst: the opponent cannot win with its
        # next stone (so it wins at the earliest with its stone after); best_case: we cannot
        # win with this stone (so at the earliest with our next one)
        lost = [-((size - n) >> 1) * S for n in range(size + 1)]
        worst = [-((size - 2 - n) >> 1) * S for n in range(size + 1)]
        best_case = [((size - 1 - n) >> 1) * S for n in range(size + 1)]
        below_all = -(size + 2) * S  # lower than any score
        n_cols = g.N
        unknown = [-1] * n_cols  # no column's child threats known yet

        def count() -> int:
            return nodes

        def delta(m: int, cur: int, opp: int) -> int:
            """How much the heuristic (for `cur`'s side) gains when it plays cell m: every
            window through m with no opponent piece goes from a**2 to (a+1)**2, every window
            of the opponent's through m is closed (its b**2 is gone)."""
            d = 0
            for w in cell_windows[m]:
                b = w & opp
                if b:
                    if not w & cur:
                        d += squares[b.bit_count()]
                else:
                    d += 2 * (w & cur).bit_count() + 1
            return d

        def negamax(cur: int, mask: int, moves: int, alpha: int, beta: int,  # noqa: C901
                    depth: int, threats: int, ev: int, pm: int = 0) -> int:
            """Score of the position (the side to move owns `cur`; it has no immediate win),
            fail-soft within (alpha, beta). `threats`: the opponent's winning cells if the
            caller already knows them (-1: compute them). `ev`: the heuristic of the position
            for the side to move (only used when the horizon is nearer than the game's end);
            or, if `pm` (the cell of the move that led here) is given, the parent's heuristic,
            from which this position's is worked out only when needed (many nodes return
            before: from the table, a cutoff or a lost position)."""
            nonlocal nodes
            nodes += 1
            if not nodes & 63:
                check()
            opp = cur ^ mask
            possible = (mask + bottom) & board
            if threats < 0:
                threats = win_cells(opp, mask)
            forced = possible & threats
            if forced:
                if forced & (forced - 1):  # two cells to block: lost at the opponent's move
                    return lost[moves]
                possible = forced
            possible &= ~(threats >> 1)  # never play right under an opponent's winning cell
            if not possible:
                return lost[moves]
            if moves >= size - 2:
                return 0
            lo = worst[moves]
            if alpha < lo:
                alpha = lo
                if lo >= beta:
                    return lo
            hi = best_case[moves]
            if beta > hi:
                beta = hi
                if alpha >= hi:
                    return hi
            if depth <= 0:  # horizon: the squared-open-run heuristic, within the exact bounds
                if pm:
                    ev = -(ev + delta(pm, opp ^ pm, cur))
                return lo if ev < lo else hi if ev > hi else ev
            heuristic = depth < size - moves  # else no line reaches the horizon
            if not heuristic:
                depth = size - moves
            key = cur + mask
            entry = tt_get(key)
            first = 0
            if entry is not None:
                first = entry & 0x3FFF
                if (entry >> 16) & 0xFFFF >= depth:
                    v = entry >> 32
                    flag = (entry >> 14) & 3
                    if flag == EXACT:
                        return v
                    if flag == LOWER:
                        if v >= beta:
                            return v
                        if v > alpha:
                            alpha = v
                    else:
                        if v <= alpha:
                            return v
                        if v < beta:
                            beta = v
            if pm and heuristic:
                ev = -(ev + delta(pm, opp ^ pm, cur))
            alpha0 = alpha
            best = below_all
            best_col = -1
            d1 = depth - 1
            m1 = moves + 1
            # the moves in search order: the table's move first, then centre first; or, high
            # in the tree, Pons' order: by how many winning cells the move creates (the cells
            # are the child's `threats`, kept in `known` so they are not computed twice)
            if depth >= sort_min_depth and possible & (possible - 1):
                known = [-1] * n_cols
                keys = []  # new winning cells << 12 | rank << 6 | column
                i = 64
                for col in orders[first]:
                    m = possible & columns[col]
                    if m:
                        i -= 1
                        w = known[col] = win_cells(cur | m, mask)
                        keys.append(((63 if col + 1 == first else w.bit_count()) << 12)
                                    | (i << 6) | col)
                keys.sort(reverse=True)
                seq: Sequence[int] = [k & 63 for k in keys]
            else:
                known = unknown
                seq = orders[first]
            pv_node = beta - alpha > 1
            for col in seq:
                m = possible & columns[col]
                if not m:
                    continue
                t = known[col]
                cm = m if heuristic else 0  # the child works out its heuristic if it needs it
                if pv_node and best > below_all:
                    # principal variation search: prove the move is no better than alpha with
                    # a null window; search it properly only if that fails
                    v = -negamax(opp, mask | m, m1, -alpha - 1, -alpha, d1, t, ev, cm)
                    if alpha < v < beta:
                        v = -negamax(opp, mask | m, m1, -beta, -alpha, d1, t, ev, cm)
                else:
                    v = -negamax(opp, mask | m, m1, -beta, -alpha, d1, t, ev, cm)
                if v > best:
                    best = v
                    best_col = col
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            break
            flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            tt[key] = (best << 32) | (depth << 16) | (flag << 14) | (best_col + 1)  # _pack
            return best

        self._count = count
        self.delta = delta
        return negamax

    @property
    def nodes(self) -> int:
        """Nodes visited since the engine was made."""
        return self._count()

    # ------------------------------------------------------------- entry points
    def set_position(self, cur: int, mask: int, moves: int) -> None:
        """Set the root position for `root`, `search_root` and `best_move`."""
        self.cur, self.mask, self.moves = cur, mask, moves

    def root(self) -> tuple[SearchResult | None, list[int]]:
        """Root tactics (`players._shared.engine.bit_root`, non-losing moves only)."""
        return bit_root(self.g, self.scale, self.cur, self.mask, self.moves, safe_only=True)

    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]:
        """One full-window iteration at `depth` over `cols` (best guess first): (best column,
        scores in the order of `cols`; only the best one is exact, the others bounds)."""
        g = self.g
        negamax = self.negamax
        cur, mask, moves = self.cur, self.mask, self.moves
        opp = cur ^ mask
        ev = evaluate(self.windows, cur, opp)
        alpha: float = -INF
        scores = []
        best_col = cols[0]
        for col in cols:
            m = (mask + g.bottom) & g.columns[col]
            e = -(ev + self.delta(m, cur, opp))
            if alpha > -INF:  # principal variation search, as in the tree
                v = -negamax(opp, mask | m, moves + 1, -alpha - 1, -alpha, depth - 1, -1, e)
                if v > alpha:
                    v = -negamax(opp, mask | m, moves + 1, -INF, -alpha, depth - 1, -1, e)
            else:
                v = -negamax(opp, mask | m, moves + 1, -INF, -alpha, depth - 1, -1, e)
            scores.append(v)
            if v > alpha:
                alpha = v
                best_col = col
        return best_col, scores

    def best_move(self, cur: int, mask: int, moves: int, stop_s: float,
                  max_depth: int | None = None) -> SearchResult:
        """The move to play: iterative deepening with the heuristic (`iterative_deepening`),
        then, unless that proved the result, an attempt to solve the position exactly.

        With a depth limit only the first part runs. Otherwise the heuristic search gets
        ``HEURISTIC_SHARE`` of the time. If the exact search then looks feasible (at most
        ``2 d + SOLVE_MARGIN[K == 4]`` empty cells, d the deepest heuristic iteration
        completed now or at the previous move: the exact search's coarse scores, null windows
        and pruning of moves that lose at once let it reach more than twice as deep), the rest
        goes to
        `solve_outcome`, which plays a move keeping the game's exact outcome (win, draw or
        loss) if it finishes in time; so a win the solver can prove within the move's budget
        is never traded for a heuristic gain. Otherwise (or if the
        solver runs out of time first) the heuristic search goes on until `stop_s` (its table
        makes the repeated shallow iterations cheap) and its move stands.
        """
        self.set_position(cur, mask, moves)
        if max_depth is not None:
            return iterative_deepening(self, stop_s, max_depth)
        now = time.perf_counter()
        result = iterative_deepening(self, now + HEURISTIC_SHARE * (stop_s - now))
        if result.proven or result.depth == 0:
            self.last_depth = max(self.last_depth, result.depth)
            return result
        depth = max(self.last_depth, result.depth)
        self.last_depth = result.depth
        if self.size - moves <= 2 * depth + SOLVE_MARGIN[self.g.K == 4]:
            solved = self.solve_outcome(result, stop_s)
            if solved is not None:
                return solved
        if time.perf_counter() < stop_s:
            longer = iterative_deepening(self, stop_s)
            if longer.depth > result.depth or longer.proven:
                self.last_depth = max(self.last_depth, longer.depth)
                return SearchResult(longer.col, longer.score, longer.depth,
                                    longer.nodes + result.nodes, longer.proven)
        return result

    def solve_outcome(self, guess: SearchResult, stop_s: float) -> SearchResult | None:
        """Solve the root's outcome exactly and return a move that keeps it, or None if
        `stop_s` comes first. The root must not be decided by `root` (no immediate win).

        Two exact null-window searches tell win (> 0), draw or loss (< 0); then the root moves
        are tested one by one, `guess` first, with one more null-window search each, until one
        keeps a win (the opponent's score < 0) or a draw (<= 0). In a lost position the
        guess stands. The result is proven, its score ``scale`` times the outcome (a bound:
        the exact margin is not computed).
        """
        cur, mask, moves = self.cur, self.mask, self.moves
        negamax, size, S = self.negamax, self.size, self.scale
        start_nodes = self.nodes
        self.stop_s = stop_s
        try:
            if negamax(cur, mask, moves, 0, 1, size, -1, 0) >= 1:
                outcome = 1
            elif negamax(cur, mask, moves, -1, 0, size, -1, 0) >= 0:
                outcome = 0
            else:
                return SearchResult(guess.col, -S, guess.depth, self.nodes - start_nodes, True)
            _, cols = self.root()
            opp = cur ^ mask
            g = self.g
            for col in [guess.col] + [c for c in cols if c != guess.col]:
                m = (mask + g.bottom) & g.columns[col]
                # the opponent's score after the move: < 0 keeps a win, <= 0 a draw
                if outcome == 1:
                    keeps = negamax(opp, mask | m, moves + 1, -1, 0, size, -1, 0) < 0
                else:
                    keeps = negamax(opp, mask | m, moves + 1, 0, 1, size, -1, 0) <= 0
                if keeps:
                    return SearchResult(col, outcome * S, guess.depth,
                                        self.nodes - start_nodes, True)
            raise AssertionError("a solved position has a move keeping its outcome")
        except SearchTimeout:
            return None
        finally:
            self.stop_s = INF

    def solve(self, cur: int, mask: int, moves: int,
              stop_s: float = INF) -> tuple[int, int]:
        """The exact score (Pons' convention, unscaled) of an undecided position, and the nodes
        it took: negamax without depth limit under null windows bisecting the score range.
        With a finite `stop_s` (a perf_counter deadline) it raises SearchTimeout past it."""
        g, S, size = self.g, self.scale, self.size
        self.stop_s = stop_s
        start_nodes = self.nodes
        try:
            if g.win_cells(cur, mask) & (mask + g.bottom) & g.board:
                return win_score(size, moves + 1), 0
            lo = -((size - moves) // 2)
            hi = (size + 1 - moves) // 2
            while lo < hi:
                med = lo + (hi - lo) // 2
                if med <= 0 and int(lo / 2) < med:
                    med = int(lo / 2)
                elif med >= 0 and int(hi / 2) > med:
                    med = int(hi / 2)
                r = self.negamax(cur, mask, moves, med * S, med * S + 1, size, -1, 0)
                if r <= med * S:
                    hi = -((-r) // S)  # ceil: r is an upper bound
                else:
                    lo = r // S
            return lo, self.nodes - start_nodes
        finally:
            self.stop_s = INF

    def solve_board(self, moves_played: list[int]) -> tuple[int, int]:
        """`solve` for the position after the 0-based columns `moves_played`."""
        g = self.g
        cur = mask = 0
        for col in moves_played:
            cur ^= mask
            mask |= mask + (1 << (col * g.H))
        return self.solve(cur, mask, len(moves_played))


def solve(B: CXBoard) -> tuple[int, int]:
    """The exact score (Pons' convention, side to move's view) of the open position B, at most
    64 cells, and the number of nodes searched: `BitSearch.solve` with a fresh table."""
    pos = BitPosition.from_board(B)
    return BitSearch(B.M, B.N, B.K).solve(pos.current, pos.mask, pos.moves)


class GridSearch(GridEngine):
    """Negamax alpha-beta over an incremental `GridPosition` for large boards (see the module
    docstring); the position, its upkeep and the root tactics come from `GridEngine`."""

    def __init__(self, M: int, N: int, K: int, tt_entries: int = TT_ENTRIES, radius: int = 2,
                 seed: int = 0) -> None:
        super().__init__(M, N, K, radius, seed)
        self.tt: dict[int, int] = {}
        self.tt_entries = tt_entries
        #: history heuristic: per column, how much it has caused cutoffs (depth**2 each time)
        self.history_score = [0] * N

    def ordered(self, first: int) -> list[int]:
        """The candidate columns in search order: the table's move, then by history score,
        centre first among equals."""
        cols = self.candidates()
        h = self.history_score
        cols.sort(key=lambda c: -h[c])  # stable: centre first among equals
        if first >= 0 and cols[0] != first and first in cols:
            cols.remove(first)
            cols.insert(0, first)
        return cols

    def negamax(self, alpha: float, beta: float, depth: int) -> int:  # noqa: C901 (hot loop)
        """Score of the engine's position (the last move did not win); fail-soft."""
        self.node_count += 1
        if time.perf_counter() > self.stop_s:
            raise SearchTimeout
        pos = self.pos
        moves = pos.moves
        size, S = self.size, self.scale
        if moves >= size:
            return 0
        win = win_score(size, moves + 1) * S  # the score of winning with this stone
        if beta > win:
            beta = win
            if alpha >= win:
                return win
        if depth <= 0:
            return pos.evaluate()
        if depth > size - moves:
            depth = size - moves
        key = pos.key
        entry = self.tt.get(key)
        first = -1
        if entry is not None:
            first = (entry & 0x3FFF) - 1
            if (entry >> 16) & 0xFFFF >= depth:
                v = entry >> 32
                flag = (entry >> 14) & 3
                if flag == EXACT:
                    return v
                if flag == LOWER:
                    if v >= beta:
                        return v
                    alpha = max(alpha, v)
                else:
                    if v <= alpha:
                        return v
                    beta = min(beta, v)
        alpha0 = alpha
        best: float = -INF
        best_col = -1
        pv_node = beta - alpha > 1
        for col in self.ordered(first):
            if self.play(col):
                v = win
            elif pv_node and best > -INF:  # principal variation search (see BitSearch)
                v = -self.negamax(-alpha - 1, -alpha, depth - 1)
                if alpha < v < beta:
                    v = -self.negamax(-beta, -alpha, depth - 1)
            else:
                v = -self.negamax(-beta, -alpha, depth - 1)
            self.undo()
            if v > best:
                best = v
                best_col = col
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        self.history_score[col] += depth * depth
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        if len(self.tt) > self.tt_entries:
            self.tt.clear()
        self.tt[key] = _pack(int(best), depth, flag, best_col)
        return int(best)

    def search_root(self, cols: list[int], depth: int) -> tuple[int, list[int]]:
        """One full-window iteration (see `BitSearch.search_root`)."""
        if depth == 1:  # a new move: let old history fade
            self.history_score = [h >> 2 for h in self.history_score]
        alpha: float = -INF
        scores = []
        best_col = cols[0]
        n = self.pos.moves
        win = win_score(self.size, n + 1) * self.scale
        for col in cols:
            try:
                if self.play(col):
                    v = win
                elif alpha > -INF:  # principal variation search, as in the tree
                    v = -self.negamax(-alpha - 1, -alpha, depth - 1)
                    if v > alpha:
                        v = -self.negamax(-INF, -alpha, depth - 1)
                else:
                    v = -self.negamax(-INF, -alpha, depth - 1)
            finally:
                self.unwind(n)  # also after a timeout deep in the line
            scores.append(v)
            if v > alpha:
                alpha = v
                best_col = col
        return best_col, scores
