"""Where did I lose: the league's game analyses and a student's list of games.

**Analyses.** After a worker stores a pair (`arena.league.feed`), each of its games
that a student's version lost, on a board the exact solver covers (`arena.analysis.batch.covered`),
is analysed (`arena.analysis.engine.analyse_game`) and cached in the league's ``analyses`` table
(game id, the analysis as JSON, when). The search comes from the command layer (the entry point
``cxarena.solvers``, as for `cxarena analyze`): this module imports no bot.

The league's ``analysis_budget_s`` (league.yaml, default in `arena.league.config`) bounds the CPU
seconds spent on one game; 0 turns the analyses off. A share of it (``1 / POSITION_SHARE``) is
the budget of one position, and `BudgetedOracle` stops every search once the game's budget is
spent (the search in flight finishes: one position's budget at most), so the positions left
keep an estimate and the moves left a verdict without a search ("unclear", or one from the
values already known).

**A student's games** (`student_games`): every game of every version of a user, newest first,
from the student's side, with whether it is analysed and the move of the student's first
blunder. The web app's "My games" page and the game page read them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.analysis.batch import covered
from arena.analysis.engine import GameAnalysis, MoveVerdict, Oracle, analyse_game
from arena.analysis.store import from_json, to_json
from arena.games.connectx.record import board_and_columns
from arena.league.db import League, Submission
from arena.league.entries import is_submission, submission_key, submission_of
from arena.league.standings import game_record, side_name
from arena.records import GameRecord

__all__ = ["POSITION_SHARE", "Analyser", "BudgetedOracle", "OracleFactory", "StudentGame",
           "analyse_within", "cached_analysis", "first_blunder", "losing_students",
           "student_games"]

#: the search of one board size, made by the command layer (`arena.commands.analysis_oracle`)
OracleFactory = Callable[[int, int, int], Oracle]
#: one position's budget is the game's budget divided by this (a 40-move 6x7 game at 1 s per
#: position takes 3-5 s of CPU: docs/analysis.md, so 1/8 of the game's budget per position
#: ends most games well within it)
POSITION_SHARE = 8
#: the solver's speed assumed until a search has measured it (nodes per CPU second; the
#: compiled solver makes some 300 000 on 8x8), and the smallest node budget of one search
_FIRST_NODES_PER_S = 200_000
_MIN_NODES = 1_000


class BudgetedOracle:
    """An `Oracle` that answers without searching once `budget_s` of CPU has gone into its
    searches: no exact solve (`exact` turns False), `keeps` unknown, estimates of 0 at depth 0.
    The book (a look-up) is always answered. A solve's node budget is cut to what the time
    left allows at the solver's measured speed (nodes per CPU second, where the search tells
    its node count), so the last search overruns the budget by little."""

    def __init__(self, inner: Oracle, budget_s: float) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.budget_s = budget_s
        self.spent_s = 0.0
        self.exact = inner.exact and budget_s > 0
        self.nodes_per_s = float(_FIRST_NODES_PER_S)

    def _left_s(self) -> float:
        left = self.budget_s - self.spent_s
        if left <= 0:
            self.exact = False
        return left

    def _nodes(self) -> int | None:
        n = getattr(self.inner, "nodes", None)
        return n if isinstance(n, int) else None

    def _limit(self, node_limit: int | None) -> int:
        cap = max(_MIN_NODES, int(self.nodes_per_s * self._left_s()))
        return cap if node_limit is None else min(node_limit, cap)

    def _charge(self, start_s: float, nodes_before: int | None) -> None:
        took_s = time.process_time() - start_s
        self.spent_s += took_s
        after = self._nodes()
        if nodes_before is not None and after is not None and took_s >= 0.01:
            self.nodes_per_s = max(_MIN_NODES, (after - nodes_before) / took_s)
        self._left_s()

    def book(self, moves: list[int]) -> tuple[int, tuple[int, ...]] | None:
        return self.inner.book(moves)

    def solve(self, moves: list[int], node_limit: int | None) -> int | None:
        if self._left_s() <= 0:
            return None
        start, before = time.process_time(), self._nodes()
        try:
            return self.inner.solve(moves, self._limit(node_limit))
        finally:
            self._charge(start, before)

    def keeps(self, moves: list[int], col: int, outcome: int,
              node_limit: int | None) -> bool | None:
        if self._left_s() <= 0:
            return None
        start, before = time.process_time(), self._nodes()
        try:
            return self.inner.keeps(moves, col, outcome, self._limit(node_limit))
        finally:
            self._charge(start, before)

    def estimate(self, moves: list[int], budget_s: float,
                 max_depth: int | None = None) -> tuple[float, int, bool]:
        left = self._left_s()
        if left <= 0:
            return 0.0, 0, False
        start = time.process_time()
        try:
            return self.inner.estimate(moves, min(budget_s, left), max_depth)
        finally:
            self._charge(start, None)


def analyse_within(oracle: Oracle, M: int, N: int, K: int, moves: list[int] | tuple[int, ...],
                   opening: int, budget_s: float) -> GameAnalysis:
    """Analyse one game with at most about `budget_s` of CPU in its searches (see the module
    docstring)."""
    return analyse_game(BudgetedOracle(oracle, budget_s), M, N, K, moves,
                        budget_s / POSITION_SHARE, opening=opening)


def analysable(record: GameRecord) -> bool:
    """Whether the exact solver can analyse this game: a Connect-X game (the solver's) with
    moves, on a board it covers. The one place the league's analyses name the game."""
    cx = board_and_columns(record)
    return cx is not None and bool(cx[3]) and covered(cx[0], cx[1])


def losing_students(sides: tuple[str, str], winner: int | None) -> list[int]:
    """The player numbers (1, 2) of the students' versions (not reference bots) that lost the
    game."""
    if winner not in (1, 2):
        return []
    loser = 3 - winner
    return [loser] if is_submission(sides[loser - 1]) else []


def first_blunder(a: GameAnalysis, player: int) -> MoveVerdict | None:
    """The first blunder of `player` (1 or 2), opening moves excluded; None if none."""
    mine = a.blunders(player)
    return mine[0] if mine else None


def cached_analysis(lg: League, game_id: int) -> GameAnalysis | None:
    text = lg.analysis_json(game_id)
    return None if text is None else from_json(json.loads(text))


def _store(lg: League, game_id: int, a: GameAnalysis) -> None:
    lg.store_analysis(game_id, json.dumps(to_json(a), separators=(",", ":")))


class Analyser:
    """The analyses of one worker process: the search of the last board used is kept (its
    solver's table, some 40 MB, serves both games of a pair; one board at a time)."""

    def __init__(self, factory: OracleFactory) -> None:
        self.factory = factory
        self._board: tuple[int, int, int] | None = None
        self._oracle: Oracle | None = None

    def oracle(self, M: int, N: int, K: int) -> Oracle:
        if self._board != (M, N, K) or self._oracle is None:
            self._oracle = None  # the old table goes before the new one is made
            self._oracle = self.factory(M, N, K)
            self._board = (M, N, K)
        return self._oracle

    def analyse_game(self, lg: League, game_id: int) -> GameAnalysis | None:
        """Analyse and cache stored game `game_id` if a student lost it on a covered board and
        the league's budget is not 0; None when it is not analysed."""
        budget_s = lg.config.file.analysis_budget_s
        if budget_s <= 0:
            return None
        sides = lg.game_sides(game_id)
        record = game_record(lg, game_id)
        if sides is None or record is None or not analysable(record):
            return None
        if not losing_students(sides, record.winner):
            return None
        cx = board_and_columns(record)
        if cx is None:  # analysable: a Connect-X game
            return None
        M, N, K, columns = cx
        a = analyse_within(self.oracle(M, N, K), M, N, K, columns, len(record.opening_moves),
                           budget_s)
        _store(lg, game_id, a)
        return a


@dataclass(frozen=True)
class StudentGame:
    """One game of a student, from the student's side (the newer version when both sides are
    the student's: a version against its previous one)."""

    game_id: int
    submission_id: int
    version: int
    player: int  # the student's side: 1 moved first
    opponent: str  # "bob v2", "alice v1", a reference bot's short name (L1)
    opponent_key: str  # what the opponent filter matches: the user's name, or the bot's name
    board: str  # "6x7x4"
    result: str  # win, draw, loss
    reason: str
    finished_at: float
    analysed: bool  # a lost or drawn game that was analysed (a won one never says)
    #: the move number (1-based) of the student's first blunder in a lost or drawn game
    first_blunder: int | None


def student_games(lg: League, user: str) -> list[StudentGame]:
    """Every game of every version of `user`, newest first (see `StudentGame`)."""
    subs: dict[str, Submission] = {submission_key(s.id): s for s in lg.submissions(user)}
    if not subs:
        return []
    rows = lg.games_with_analyses(list(subs))
    names: dict[str, tuple[str, str]] = {}

    def opponent(side: str) -> tuple[str, str]:
        if side not in names:  # a reference bot by its short name, as on the leaderboard
            sid = submission_of(side)
            sub = lg.submission(sid) if sid is not None else None
            names[side] = (side_name(lg, side), sub.user if sub else side_name(lg, side))
        return names[side]

    out = []
    for (gid, a, b, board, score_a, reason, finished), analysis in rows:
        own = [p for p, side in ((1, a), (2, b)) if side in subs]
        player = max(own, key=lambda p: subs[(a, b)[p - 1]].id)
        me, other = ((a, b) if player == 1 else (b, a))
        mine = score_a if player == 1 else 1.0 - score_a
        result = "win" if mine == 1.0 else "loss" if mine == 0.0 else "draw"
        first = None
        # a won game has no "first blunder" to learn from: only a loss or a draw shows one
        analysed = analysis is not None and result != "win"
        if analysis is not None and analysed:
            fb = first_blunder(from_json(json.loads(analysis)), player)
            first = None if fb is None else fb.ply + 1
        label, key = opponent(other)
        sub = subs[me]
        out.append(StudentGame(gid, sub.id, sub.version, player, label, key, board, result,
                               reason, finished, analysed, first))
    return out
