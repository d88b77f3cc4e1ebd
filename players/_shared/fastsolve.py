"""The exact solver of `players._shared.search.BitSearch.solve`, compiled with numba (not a bot).

`FastSolver` searches exactly the same tree as the pure-Python ``BitSearch.solve``: the same
negamax (forced block, "two threats: lost", never play under an opponent's winning cell, the
window tightened by the best and worst score still possible), the same transposition table
semantics (one entry per position: value, bound type and best move; emptied when it holds more
than ``tt_entries`` positions, checked every 64 nodes on one running node count), the same move
order (the table's move, then centre first; Pons' threat-count order with at least
``sort_min_depth`` empty cells) and the same null windows bisecting the score range. So it
returns the same scores after the same number of nodes (tests/players/test_fastsolve.py checks
both on Pons' positions); only the cost per node differs.

The compiled code works on 64-bit ints, so it takes boards whose bit layout fits in 62 bits
(N * (M + 1) <= 62: every K=4 competition board up to 7x7, and 8x6); `available(M, N)` says
whether it can be used (numba importable and the board fits). `make_solver` returns it where
available and else a `PySolver`, the same interface over the pure-Python ``BitSearch`` (the
fallback and the reference).

Budgets are node counts (the compiled code cannot read a clock cheaply): ``solve(...,
node_limit=n)`` returns None when the search would need more than n nodes. The table is kept
after an abort, so a second call with a larger budget continues from what was learnt.

numba compiles the functions on first use and caches the machine code next to this module
(``cache=True``, in ``__pycache__``): the first call in a fresh install takes a few seconds
(docs/benchmarks.md), later processes load the cache in well under a second.
"""

from __future__ import annotations

import math
import os
from typing import Protocol

import numpy as np

from players._shared.bitboard import centre_order
from players._shared.search import TT_ENTRIES, BitSearch

__all__ = ["FastSolver", "PySolver", "Solver", "available", "make_solver"]

#: the widest bit layout the compiled solver takes (bits N * (M + 1))
MAX_BITS = 62
#: environment variable that turns the compiled solver off (``1``): the pure-Python one is used
DISABLE_ENV = "CXARENA_NO_NUMBA"

try:  # numba is a declared dependency, but the solver must still work without it
    if os.environ.get(DISABLE_ENV) == "1":
        raise ImportError(DISABLE_ENV)
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the install
    HAVE_NUMBA = False


class Solver(Protocol):
    """An exact solver of one board size (positions as Pons-style bitboards)."""

    M: int
    N: int
    K: int
    #: "numba" or "python"
    kind: str

    def solve(self, cur: int, mask: int, moves: int,
              node_limit: int | None = None) -> tuple[int, int] | None:
        """(exact score in Pons' convention for the side to move, nodes), or None when the
        search would need more than `node_limit` nodes."""
        ...

    def outcome_after(self, cur: int, mask: int, moves: int, col: int, outcome: int,
                      node_limit: int | None = None) -> bool | None:
        """Does playing `col` keep `outcome` (1 win, 0 draw) for the side to move? None past
        the node budget."""
        ...

    def clear(self) -> None:
        """Empty the transposition table."""
        ...

    @property
    def nodes(self) -> int:
        """Nodes searched since the solver was made."""
        ...


def available(M: int, N: int) -> bool:
    """Whether the compiled solver can take an M x N board here."""
    return HAVE_NUMBA and N * (M + 1) <= MAX_BITS


def make_solver(M: int, N: int, K: int, tt_entries: int = TT_ENTRIES,
                prefer_compiled: bool = True) -> Solver:
    """The compiled solver where `available`, else the pure-Python one (boards of at most 64
    cells; ValueError above)."""
    if prefer_compiled and available(M, N):
        return FastSolver(M, N, K, tt_entries)
    return PySolver(M, N, K, tt_entries)


class PySolver:
    """The `Solver` interface over the pure-Python `BitSearch` (reference and fallback)."""

    kind = "python"

    def __init__(self, M: int, N: int, K: int, tt_entries: int = TT_ENTRIES,
                 sort_min_depth: int = 10) -> None:
        self.M, self.N, self.K = M, N, K
        self.search = _Budgeted(M, N, K, tt_entries, sort_min_depth)

    @property
    def nodes(self) -> int:
        return self.search.nodes

    def clear(self) -> None:
        self.search.tt.clear()

    def solve(self, cur: int, mask: int, moves: int,
              node_limit: int | None = None) -> tuple[int, int] | None:
        from players._shared.engine import SearchTimeout

        s = self.search
        s.node_limit = math.inf if node_limit is None else s.nodes + node_limit
        try:
            return s.solve(cur, mask, moves)
        except SearchTimeout:
            return None
        finally:
            s.node_limit = math.inf

    def outcome_after(self, cur: int, mask: int, moves: int, col: int, outcome: int,
                      node_limit: int | None = None) -> bool | None:
        from players._shared.engine import SearchTimeout

        s = self.search
        g = s.g
        m = (mask + g.bottom) & g.columns[col]
        if g.win_cells(cur, mask) & m:
            return True  # an immediate win keeps any outcome
        s.node_limit = math.inf if node_limit is None else s.nodes + node_limit
        opp = cur ^ mask
        size = s.size
        try:
            if s.g.win_cells(opp, mask | m) & ((mask | m) + g.bottom) & g.board:
                return outcome < 0  # the opponent wins at once
            if outcome == 1:
                return s.negamax(opp, mask | m, moves + 1, -1, 0, size, -1, 0) < 0
            return s.negamax(opp, mask | m, moves + 1, 0, 1, size, -1, 0) <= 0
        except SearchTimeout:
            return None
        finally:
            s.node_limit = math.inf


class _Budgeted(BitSearch):
    """A BitSearch whose periodic check also stops past a node limit."""

    def __init__(self, M: int, N: int, K: int, tt_entries: int, sort_min_depth: int) -> None:
        super().__init__(M, N, K, tt_entries=tt_entries, sort_min_depth=sort_min_depth)
        self.node_limit: float = math.inf

    def _check(self) -> None:
        from players._shared.engine import SearchTimeout

        if self.nodes > self.node_limit:
            raise SearchTimeout
        super()._check()


# ---------------------------------------------------------------------------------- compiled
# State array ``st`` (int64): the running node count, the node limit, the stop flag, the number
# of table entries, the table's bound on entries.
NODES, LIMIT, STOP, COUNT, BOUND = range(5)
# Geometry array ``geo`` (int64): size, H, K, board, bottom, sort_min_depth, N.
SIZE, HH, KK, BOARD, BOTTOM, SORTMIN, NCOLS = range(7)
EXACT, LOWER, UPPER = 0, 1, 2
_HASH = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit int


def _shl(x: int, n: int) -> int:
    return x << n if n < 63 else 0


def _shr(x: int, n: int) -> int:
    return x >> n if n < 63 else 0


def _win_cells(bits: int, mask: int, H: int, K: int, board: int) -> int:
    """`players._shared.bitboard.Geometry.win_cells` (the empty cells completing K in a row)."""
    if K == 1:
        return board & ~mask
    if K == 4:
        h1 = H
        h2 = 2 * H
        h3 = 3 * H
        d1 = H + 1
        d2 = 2 * (H + 1)
        d3 = 3 * (H + 1)
        a1 = H - 1
        a2 = 2 * (H - 1)
        a3 = 3 * (H - 1)
        r = (bits << 1) & (bits << 2) & (bits << 3)
        p = bits & (bits >> h1)
        r |= ((p >> h1) & ((bits >> h3) | (bits << h1))) | ((p << h2) & ((bits >> h1)
                                                                         | (bits << h3)))
        p = bits & (bits >> d1)
        r |= ((p >> d1) & ((bits >> d3) | (bits << d1))) | ((p << d2) & ((bits >> d1)
                                                                         | (bits << d3)))
        p = bits & (bits >> a1)
        r |= ((p >> a1) & ((bits >> a3) | (bits << a1))) | ((p << a2) & ((bits >> a1)
                                                                         | (bits << a3)))
        return r & (board ^ mask)
    v = _shl(bits, 1)
    for i in range(2, K):
        v &= _shl(bits, i)
    r = v
    for t in range(3):
        s = H if t == 0 else (H + 1 if t == 1 else H - 1)
        # left[a]: the cells with a pieces just before them, a = 1 .. K-1; right: likewise after
        left = np.empty(K, np.int64)
        left[0] = -1  # no piece needed before the cell
        acc = -1
        for a in range(1, K):
            acc &= _shl(bits, a * s)
            left[a] = acc
        r |= acc
        acc = -1
        for b in range(1, K):
            acc &= _shr(bits, b * s)
            if acc == 0:
                break
            r |= left[K - 1 - b] & acc
    return r & (board ^ mask)


def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


def _tt_slot(keys: np.ndarray, key: int) -> int:
    """The slot of `key` (stored as key + 1; 0 is empty) or of the empty slot where it goes."""
    cap_mask = keys.shape[0] - 1
    h = (key + 1) * _HASH
    i = (h ^ (h >> 29)) & cap_mask
    while keys[i] != 0 and keys[i] != key + 1:
        i = (i + 1) & cap_mask
    return i


def _clear(keys: np.ndarray, used: np.ndarray, st: np.ndarray) -> None:
    """Empty the table (only the slots in use: the table may be far larger)."""
    for i in range(st[COUNT]):
        keys[used[i]] = 0
    st[COUNT] = 0


def _negamax(cur: int, mask: int, moves: int, alpha: int, beta: int, threats: int,  # noqa: C901
             geo: np.ndarray, columns: np.ndarray, orders: np.ndarray, st: np.ndarray,
             keys: np.ndarray, data: np.ndarray, used: np.ndarray, known: np.ndarray,
             sortk: np.ndarray) -> int:
    """`BitSearch`'s negamax in exact mode (no horizon), scores unscaled. Returns 0 with
    ``st[STOP]`` set when the node limit is reached (callers then return at once)."""
    st[NODES] += 1
    if st[NODES] & 63 == 0:
        if st[NODES] > st[LIMIT]:
            st[STOP] = 1
            return 0
        if st[COUNT] > st[BOUND]:
            _clear(keys, used, st)
    size = geo[SIZE]
    board = geo[BOARD]
    H = geo[HH]
    K = geo[KK]
    opp = cur ^ mask
    possible = (mask + geo[BOTTOM]) & board
    if threats < 0:
        threats = _win_cells(opp, mask, H, K, board)
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return -((size - moves) >> 1)
        possible = forced
    possible &= ~(threats >> 1)
    if not possible:
        return -((size - moves) >> 1)
    if moves >= size - 2:
        return 0
    lo = -((size - 2 - moves) >> 1)
    if alpha < lo:
        alpha = lo
        if lo >= beta:
            return lo
    hi = (size - 1 - moves) >> 1
    if beta > hi:
        beta = hi
        if alpha >= hi:
            return hi
    depth = size - moves
    key = cur + mask
    slot = _tt_slot(keys, key)
    first = 0
    if keys[slot] != 0:
        entry = data[slot]
        first = entry & 0x3FFF
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
    alpha0 = alpha
    below_all = -(size + 2)
    best = below_all
    best_col = -1
    m1 = moves + 1
    n_cols = geo[NCOLS]
    sorted_ = depth >= geo[SORTMIN] and (possible & (possible - 1)) != 0
    kn = known[moves]
    sk = sortk[moves]
    n_seq = 0
    if sorted_:
        i = 64
        for j in range(n_cols):
            col = orders[first, j]
            m = possible & columns[col]
            if m:
                i -= 1
                w = _win_cells(cur | m, mask, H, K, board)
                kn[col] = w
                c = 63 if col + 1 == first else _popcount(w)
                k = (c << 12) | (i << 6) | col
                # insertion sort, descending
                p = n_seq
                while p > 0 and sk[p - 1] < k:
                    sk[p] = sk[p - 1]
                    p -= 1
                sk[p] = k
                n_seq += 1
    else:
        for j in range(n_cols):
            col = orders[first, j]
            if possible & columns[col]:
                sk[n_seq] = col
                kn[col] = -1
                n_seq += 1
    pv_node = beta - alpha > 1
    for j in range(n_seq):
        col = sk[j] & 63
        m = possible & columns[col]
        t = kn[col]
        if pv_node and best > below_all:
            v = -_negamax(opp, mask | m, m1, -alpha - 1, -alpha, t, geo, columns, orders, st,
                          keys, data, used, known, sortk)
            if st[STOP]:
                return 0
            if alpha < v < beta:
                v = -_negamax(opp, mask | m, m1, -beta, -alpha, t, geo, columns, orders, st,
                              keys, data, used, known, sortk)
        else:
            v = -_negamax(opp, mask | m, m1, -beta, -alpha, t, geo, columns, orders, st,
                          keys, data, used, known, sortk)
        if st[STOP]:
            return 0
        if v > best:
            best = v
            best_col = col
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    if keys[slot] != key + 1:
        # the table may have changed below (new entries, or emptied): probe again
        slot = _tt_slot(keys, key)
        if keys[slot] == 0:
            used[st[COUNT]] = slot
            st[COUNT] += 1
            keys[slot] = key + 1
    data[slot] = (best << 32) | (depth << 16) | (flag << 14) | (best_col + 1)
    return best


def _solve(cur: int, mask: int, moves: int, geo: np.ndarray, columns: np.ndarray,
           orders: np.ndarray, st: np.ndarray, keys: np.ndarray, data: np.ndarray,
           used: np.ndarray, known: np.ndarray, sortk: np.ndarray) -> int:
    """`BitSearch.solve` past the immediate-win test: null windows bisecting the score range.
    The score, or 0 with ``st[STOP]`` set."""
    size = geo[SIZE]
    lo = -((size - moves) // 2)
    hi = (size + 1 - moves) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        half_lo = -((-lo) // 2)  # int(lo / 2): towards zero
        half_hi = hi // 2
        if med <= 0 and half_lo < med:
            med = half_lo
        elif med >= 0 and half_hi > med:
            med = half_hi
        r = _negamax(cur, mask, moves, med, med + 1, -1, geo, columns, orders, st, keys, data,
                     used, known, sortk)
        if st[STOP]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


def _window(cur: int, mask: int, moves: int, alpha: int, beta: int, geo: np.ndarray,
            columns: np.ndarray, orders: np.ndarray, st: np.ndarray, keys: np.ndarray,
            data: np.ndarray, used: np.ndarray, known: np.ndarray, sortk: np.ndarray) -> int:
    """One negamax call from the root (the side to move has no immediate win)."""
    return _negamax(cur, mask, moves, alpha, beta, -1, geo, columns, orders, st, keys, data,
                    used, known, sortk)


if HAVE_NUMBA:
    _shl = njit(cache=True, inline="always")(_shl)
    _shr = njit(cache=True, inline="always")(_shr)
    _win_cells = njit(cache=True)(_win_cells)
    _popcount = njit(cache=True, inline="always")(_popcount)
    _tt_slot = njit(cache=True)(_tt_slot)
    _A1, _A2 = "int64[::1]", "int64[:, ::1]"
    _ARRAYS = f"{_A1}, {_A1}, {_A2}, {_A1}, {_A1}, {_A1}, {_A1}, {_A2}, {_A2}"
    _clear = njit(f"void({_A1}, {_A1}, {_A1})", cache=True)(_clear)
    # explicit signatures: numba's inference of the recursive function's type needs them
    _negamax = njit(f"int64(int64, int64, int64, int64, int64, int64, {_ARRAYS})",
                    cache=True)(_negamax)
    _solve = njit(f"int64(int64, int64, int64, {_ARRAYS})", cache=True)(_solve)
    _window = njit(f"int64(int64, int64, int64, int64, int64, {_ARRAYS})", cache=True)(_window)


class FastSolver:
    """The compiled exact solver of one board size (see the module docstring)."""

    kind = "numba"

    def __init__(self, M: int, N: int, K: int, tt_entries: int = TT_ENTRIES,
                 sort_min_depth: int = 10) -> None:
        if not available(M, N):
            raise ValueError(f"the compiled solver does not take a {M}x{N} board here")
        self.M, self.N, self.K = M, N, K
        H = M + 1
        self.H = H
        size = M * N
        col = (1 << M) - 1
        columns = [col << (j * H) for j in range(N)]
        bottom = sum(1 << (j * H) for j in range(N))
        board = bottom * col
        self.size, self.bottom, self.board = size, bottom, board
        self.columns_py = columns
        self.geo = np.array([size, H, K, board, bottom, sort_min_depth, N], dtype=np.int64)
        self.columns = np.array(columns, dtype=np.int64)
        order = centre_order(N)
        rows = [list(order)] + [[c] + [x for x in order if x != c] for c in range(N)]
        self.orders = np.array(rows, dtype=np.int64)
        # at least a third of the slots stay free (linear probing stays short)
        cap = 1 << max(10, (3 * tt_entries // 2 + 130).bit_length())
        self.keys = np.zeros(cap, dtype=np.int64)
        self.data = np.zeros(cap, dtype=np.int64)
        # the slots in use (the table is emptied after at most 64 nodes past the bound)
        self.used = np.zeros(tt_entries + 130, dtype=np.int64)
        self.st = np.array([0, 0, 0, 0, tt_entries], dtype=np.int64)
        self.known = np.zeros((size + 1, N), dtype=np.int64)
        self.sortk = np.zeros((size + 1, N), dtype=np.int64)

    @property
    def nodes(self) -> int:
        return int(self.st[NODES])

    def clear(self) -> None:
        _clear(self.keys, self.used, self.st)

    def _arm(self, node_limit: int | None) -> None:
        st = self.st
        st[STOP] = 0
        st[LIMIT] = (1 << 62) if node_limit is None else st[NODES] + node_limit

    def _wins_now(self, cur: int, mask: int) -> bool:
        return bool(_win_cells(cur, mask, self.H, self.K, self.board)
                    & (mask + self.bottom) & self.board)

    def solve(self, cur: int, mask: int, moves: int,
              node_limit: int | None = None) -> tuple[int, int] | None:
        if self._wins_now(cur, mask):
            return 1 + (self.size - moves - 1) // 2, 0
        self._arm(node_limit)
        start = int(self.st[NODES])
        score = _solve(cur, mask, moves, self.geo, self.columns, self.orders, self.st,
                       self.keys, self.data, self.used, self.known, self.sortk)
        if self.st[STOP]:
            return None
        return int(score), int(self.st[NODES]) - start

    def outcome_after(self, cur: int, mask: int, moves: int, col: int, outcome: int,
                      node_limit: int | None = None) -> bool | None:
        m = (mask + self.bottom) & self.columns_py[col]
        if _win_cells(cur, mask, self.H, self.K, self.board) & m:
            return True
        opp, mask2 = cur ^ mask, mask | m
        if self._wins_now(opp, mask2):
            return outcome < 0
        self._arm(node_limit)
        a, b = (-1, 0) if outcome == 1 else (0, 1)
        v = _window(opp, mask2, moves + 1, a, b, self.geo, self.columns, self.orders, self.st,
                    self.keys, self.data, self.used, self.known, self.sortk)
        if self.st[STOP]:
            return None
        return bool(v < 0) if outcome == 1 else bool(v <= 0)
