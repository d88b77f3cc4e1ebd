"""MNKAlphaBeta: iterative-deepening alpha-beta (negamax) for the m,n,k-game, under the time limit.

Evaluation, from the side to move, over every line of k cells (a "window", in the four
directions) that holds no opponent stone: a window with j of one's own stones is worth 8^(j-1)
points to its owner (computed for all windows at once with bit-sliced counters on the
bitboards). A side to move that can complete a line at once has won; one that faces two cells
where the opponent completes a line (and cannot win first) has lost.

Moves: a cell that wins at once is the only move searched; else the cells that block the
opponent's immediate wins; else the empty cells within ``radius`` (2) of a stone (every empty
cell on boards of at most 25 cells), the cells on most windows first, and the transposition
table's best move before them. The search is the shared driver `players._games.search.Search`
(a transposition table keyed by the stones; stops at the deadline
`arena.timing.Deadline.for_move` and answers the best move of the last completed depth).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Game
from arena.games.mnk import MNK, MNKPlayer, MNKState
from players._games.judge import SearchJudge
from players._games.search import WIN, Search, SearchBot

__all__ = ["MNKAlphaBeta", "judge_opening"]

#: the value of a position the side to move wins (or loses) next move, short of a proven one
NEAR_WIN = WIN // 2
#: heuristic values are kept within this
CAP = WIN // 4
#: boards of at most this many cells search every empty cell
SMALL_BOARD = 25


class Lines:
    """The windows of k cells of one board, and the bit-parallel counts over them."""

    def __init__(self, game: MNK) -> None:
        m, n, k, w = game.m, game.n, game.k, game.width
        self.k = k
        self.full = game.full
        self.width = w
        self.nbits = k.bit_length()
        #: 8^(j-1) for a window with j stones (index j), 0 for none
        self.weights = [0] + [8 ** (j - 1) for j in range(1, k + 1)]
        dirs = []
        for (dr, dc), s in zip(((0, 1), (1, 0), (1, 1), (1, -1)), game.strides, strict=True):
            starts = 0
            for r in range(m):
                for c in range(n):
                    if 0 <= r + (k - 1) * dr < m and 0 <= c + (k - 1) * dc < n:
                        starts |= 1 << (r * w + c)
            if starts:
                dirs.append((s, starts, tuple(i * s for i in range(k))))
        self.dirs = tuple(dirs)
        # how many windows pass through each cell (the move order's static part)
        per_bit = [0] * (m * w)
        for _, starts, shifts in self.dirs:
            b = starts
            while b:
                low = b & -b
                p = low.bit_length() - 1
                for t in shifts:
                    per_bit[p + t] += 1
                b ^= low
        self.cell_weight = [per_bit[r * w + c] for r in range(m) for c in range(n)]

    def analyse(self, own: int, opp: int) -> tuple[int, int]:
        """(the empty cells where the owner of `own` completes k in a row, the value of its
        open windows)."""
        k = self.k
        empty = self.full & ~(own | opp)
        if k == 1:
            return empty, 0
        weights = self.weights
        nbits = self.nbits
        threats = 0
        score = 0
        for s, starts, shifts in self.dirs:
            # the windows without an opponent stone
            x, span = opp, 1
            while span * 2 <= k:
                x |= x >> (s * span)
                span *= 2
            if span < k:
                x |= x >> (s * (k - span))
            valid = starts & ~x
            if not valid:
                continue
            # bit-sliced counters: bit b of the count of own stones of each window
            counts = [0] * nbits
            for t in shifts:
                carry = (own >> t) & valid
                j = 0
                while carry:
                    c = counts[j]
                    counts[j] = c ^ carry
                    carry &= c
                    j += 1
            for j in range(1, k):
                sel = valid
                for b in range(nbits):
                    sel &= counts[b] if j >> b & 1 else ~counts[b]
                if sel:
                    score += weights[j] * sel.bit_count()
                    if j == k - 1:
                        for t in shifts:
                            threats |= sel << t
        return threats & empty, score


def _near(occupied: int, width: int, full: int, radius: int) -> int:
    """The cells within `radius` (king steps) of an occupied cell (the guard bits of the padded
    rows stop a step from wrapping into the next row)."""
    x = occupied
    for _ in range(radius):
        x |= (x << 1) | (x >> 1)
        x &= full
        x |= (x << width) | (x >> width)
    return x & full


#: an opening is used when a `JUDGE_DEPTH`-ply search scores it within `JUDGE_LINES` open
#: lines of k-1 stones (8^(k-2) points each) of even: no side wins by force in sight
JUDGE_DEPTH = 4
JUDGE_LINES = 2


class MNKAlphaBeta(SearchBot, MNKPlayer):
    #: on boards of more than 25 cells, search only the cells this close to a stone
    radius: int = 2
    #: transposition table entries kept before it is cleared
    table_size: int = 500_000

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        assert isinstance(game, MNK)
        self.game = game
        self.timeout_s = timeout_s
        self.lines = Lines(game)
        self.small = game.m * game.n <= SMALL_BOARD
        weight = self.lines.cell_weight
        self.by_weight = sorted(range(game.m * game.n), key=lambda c: -weight[c])
        self.depth_reached = 0
        self._seen: MNKState | None = None
        self._analysis = (0, 0, 0, 0)
        self.search: Search[MNKState, int] = Search(
            game, self.evaluate, moves=self.moves, apply=game.apply_unchecked,
            terminal=self._terminal, key=lambda s: (s.black, s.white),
            table_size=self.table_size, check_every=128)

    def _analyse(self, state: MNKState) -> tuple[int, int, int, int]:
        """(own winning cells, own windows' value, the opponent's, its value) for the side to
        move; the last state's is kept (the search asks for moves, then for the value)."""
        if state is not self._seen:
            own, opp = state.stones(state.side)
            mine, my_score = self.lines.analyse(own, opp)
            theirs, their_score = self.lines.analyse(opp, own)
            self._seen, self._analysis = state, (mine, my_score, theirs, their_score)
        return self._analysis

    def _terminal(self, state: MNKState, ply: int) -> int:
        # the side that just moved made the row, or the board is full
        return 0 if state.winner is None else -WIN + ply

    def moves(self, state: MNKState) -> Sequence[int]:
        """The moves worth searching (module docstring), best first; [] when the game is over."""
        game = self.game
        occupied = state.black | state.white
        if state.winner is not None or occupied == game.full:
            return []
        mine, _, theirs, _ = self._analyse(state)
        if mine:
            return game.cells(mine & -mine)
        if theirs:
            return game.cells(theirs)
        empty = game.full & ~occupied
        if not self.small and occupied:
            empty &= _near(occupied, game.width, game.full, self.radius)
        bit = game.bit
        return [c for c in self.by_weight if empty & bit(c)]

    def evaluate(self, state: MNKState) -> int:
        mine, my_score, theirs, their_score = self._analyse(state)
        if mine:
            return NEAR_WIN
        if theirs & (theirs - 1):
            return -NEAR_WIN
        return max(-CAP, min(CAP, my_score - their_score))

    def depth_limit(self, state: MNKState) -> int:
        """No deeper than the empty cells: a full board ends the game."""
        return min(self.max_depth, (self.game.full & ~(state.black | state.white)).bit_count())

    def player_name(self) -> str:
        return "MNKAlphaBeta"


def _judge_margin(bot: MNKAlphaBeta) -> int:
    """`JUDGE_LINES` open lines of k-1 stones, in the bot's evaluation points."""
    return JUDGE_LINES * bot.lines.weights[max(1, bot.lines.k - 1)]


#: the opening judge of the m,n,k-game (entry point ``mnk`` of ``cxarena.opening_judges``): an
#: opening is kept when a short search finds neither side winning by force (nor about to) and
#: scores the position within JUDGE_LINES open lines of k-1 stones of even
judge_opening = SearchJudge(MNKAlphaBeta, JUDGE_DEPTH, _judge_margin)
