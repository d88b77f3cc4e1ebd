"""Analysing one game: the value of every position and a verdict on every move.

The search itself comes from outside (an `Oracle`, passed in by the command layer: the harness
imports no bot). For each position of the game (the board before each move, and the final one):

- the opening book's outcome where the book has it (K=4 boards up to 7x7: the empty board and,
  on the boards its builder could solve, the positions after one move); the position after a
  move the book lists as keeping the outcome gets that outcome too (`_carry_book_values`);
- else the value the literature publishes (`arena.analysis.known`: on 6x7 K=4 the position
  after each first move, so that a first move off the centre is judged: it gives up the win);
  such a value counts as a book value (kind ``book``);
- else the exact score when the solver proves it within the budget (``budget_s`` of CPU per
  position, spent as node budgets that double until the time is used up; the solver keeps its
  table, and the positions are solved from the last to the first, so each reuses what the
  later ones taught it). After the first position that could not be solved, the earlier
  (harder) ones get estimates only;
- else an estimate: a depth-limited search (a proven tactical result counts as exact).

A move's verdict compares the value before it with the value after it (from the mover's view):

- ``blunder``: the outcome got worse (won -> drawn or lost, drawn -> lost), with the moves that
  would have kept it; on boards or positions without exact values: an immediate win missed, or a
  forced loss (within ``threat_plies`` plies, proven by the search) allowed where there was
  none before;
- ``inaccuracy``: same outcome but a worse exact score (a slower win, a quicker loss);
- ``best``: the value was kept (a move the book lists as keeping it; any move of a lost
  position);
- ``unclear``: no exact value on either side and no tactical blunder found.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from arena.analysis.known import known_value
from arena.board import CXBoard, CXGameState

__all__ = ["GameAnalysis", "MoveVerdict", "Oracle", "PositionValue", "analyse_game",
           "describe_value"]

#: default CPU seconds per position
BUDGET_S = 1.0
#: plies within which an allowed forced loss is looked for where no exact value exists
THREAT_PLIES = 6
#: first node budget of a position (doubled until the time budget is spent)
_FIRST_NODES = 100_000
#: positions in a row the solver could not finish before the earlier ones get estimates only
_GIVE_UP_AFTER = 1
#: where no exact solver reaches, the share of a position's budget its estimate gets: there a
#: verdict is tactical (a missed win, a forced loss the threat search proves), which the
#: estimate never changes; the time goes to the threat search instead
NO_SOLVER_ESTIMATE_SHARE = 1 / 20


class Oracle(Protocol):
    """The search the analysis uses (players/_shared/oracle.py offers one)."""

    exact: bool  # the board is within the exact solver's reach
    kind: str  # which exact solver ("numba", "python"; "" none)

    def book(self, moves: list[int]) -> tuple[int, tuple[int, ...]] | None: ...

    def solve(self, moves: list[int], node_limit: int | None) -> int | None: ...

    def keeps(self, moves: list[int], col: int, outcome: int,
              node_limit: int | None) -> bool | None: ...

    def estimate(self, moves: list[int], budget_s: float,
                 max_depth: int | None = None) -> tuple[float, int, bool]: ...


@dataclass(frozen=True)
class PositionValue:
    """The value of the position after `ply` moves, for the side to move then.

    kind: ``exact`` (solver or proven search: `score` in Pons' convention), ``book`` (outcome
    only), ``estimate`` (`estimate` in units of exact scores, |x| < 1; `depth` plies),
    ``end`` (the game is over: the side to move has lost, or it is a draw).
    """

    ply: int
    kind: str
    outcome: int | None = None  # 1 win, 0 draw, -1 loss for the side to move; None: unknown
    score: int | None = None
    plies_left: int | None = None  # plies to the end under perfect play (exact wins/losses)
    estimate: float | None = None
    depth: int | None = None


@dataclass(frozen=True)
class MoveVerdict:
    """The verdict on move `ply` (0-based) by `player` (1 or 2) in column `col`."""

    ply: int
    player: int
    col: int
    verdict: str  # best, inaccuracy, blunder, unclear
    reason: str = ""  # e.g. "won -> lost", "missed an immediate win"
    better: tuple[int, ...] = ()  # columns that would have kept the value


@dataclass(frozen=True)
class GameAnalysis:
    """Every position's value (len(moves) + 1 of them) and every move's verdict."""

    M: int
    N: int
    K: int
    moves: tuple[int, ...]
    positions: tuple[PositionValue, ...]
    verdicts: tuple[MoveVerdict, ...]
    budget_s: float
    elapsed_s: float
    solver: str  # the exact solver used ("numba", "python", "" none)
    opening: int = 0  # moves of the opening (nobody chose them: no verdict counts)

    def blunders(self, player: int | None = None) -> list[MoveVerdict]:
        """The blunders (of one player if given), opening moves excluded."""
        return [v for v in self.verdicts if v.verdict == "blunder" and v.ply >= self.opening
                and (player is None or v.player == player)]

    def exact_from(self) -> int | None:
        """The first ply from which every open position has an exact value (None: none)."""
        first = None
        for p in reversed(self.positions):
            if p.kind in ("exact", "end"):
                first = p.ply
            else:
                break
        return first


def _outcome(score: int) -> int:
    return (score > 0) - (score < 0)


def _plies_left(size: int, ply: int, score: int) -> int | None:
    """Plies from `ply` stones to the winning stone, from a Pons score (None for a draw)."""
    if score == 0:
        return None
    # |score| = 1 + (size - m) // 2, m the stones at the end; m's parity says who placed it
    base = size - 2 * (abs(score) - 1)
    want = (ply + 1) % 2 if score > 0 else ply % 2  # the mover places odd-numbered stones
    m = base if base % 2 == want else base - 1
    return m - ply


def describe_value(v: PositionValue, side: str = "side to move") -> str:
    """A position's value in words: 'win in 5', 'draw', 'loss in 3', '~ +0.25 (estimate)'."""
    if v.kind == "end":
        return "game over" if v.outcome is None else ("lost" if v.outcome < 0 else "draw")
    if v.outcome is not None:
        if v.outcome == 0:
            text = "draw"
        elif v.plies_left is not None:
            own = (v.plies_left + 1) // 2 if v.outcome > 0 else v.plies_left // 2
            text = f"{'win' if v.outcome > 0 else 'loss'} in {own}"
        else:
            text = "win" if v.outcome > 0 else "loss"
        return text + (" (book)" if v.kind == "book" else "")
    if v.estimate is not None:
        return f"~ {v.estimate:+.2f} (estimate, depth {v.depth})"
    return "unknown"


class _Clock:
    def __init__(self) -> None:
        self.start = time.process_time()

    def elapsed(self) -> float:
        return time.process_time() - self.start


def _solve_within(oracle: Oracle, moves: list[int], budget_s: float) -> int | None:
    """Solve with doubling node budgets until it finishes or `budget_s` of CPU is spent."""
    start = time.process_time()
    nodes = _FIRST_NODES
    while True:
        score = oracle.solve(moves, nodes)
        if score is not None:
            return score
        spent = time.process_time() - start
        if spent >= budget_s:
            return None
        rate = nodes / max(spent, 1e-3)  # nodes per second, roughly
        nodes = max(2 * nodes, int(rate * (budget_s - spent)))


def _terminal(M: int, N: int, K: int, moves: list[int]) -> tuple[CXBoard, list[bool]]:
    """The final board, and for each ply whether the position after it is over."""
    b = CXBoard(M, N, K)
    over = [False]
    for c in moves:
        b.markColumn(c)
        over.append(b.gameState() is not CXGameState.OPEN)
    return b, over


def analyse_game(oracle: Oracle, M: int, N: int, K: int, moves: list[int] | tuple[int, ...],
                 budget_s: float = BUDGET_S, threat_plies: int = THREAT_PLIES,
                 opening: int = 0, progress: Callable[[int, int], None] | None = None
                 ) -> GameAnalysis:
    """Analyse the game `moves` (0-based columns from the empty board) on an M x N x K board.
    `progress(done, total)` is called after each step (a position's value, then a move's
    verdict: 2 * moves + 1 steps in all)."""
    moves = list(moves)
    n = len(moves)
    total = 2 * n + 1
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    size = M * N
    clock = _Clock()
    final, over = _terminal(M, N, K, moves)
    values: list[PositionValue | None] = [None] * (n + 1)
    books: dict[int, tuple[int, tuple[int, ...]]] = {}
    # the final position: over (the last mover won, or the board is full) or open (a fault)
    if over[n]:
        state = final.gameState()
        values[n] = PositionValue(n, "end", 0 if state is CXGameState.DRAW else -1)
    failures = 0
    estimate_s = budget_s / 4 if oracle.exact else budget_s * NO_SOLVER_ESTIMATE_SHARE
    for ply in range(n if over[n] else n, -1, -1):
        step()
        if values[ply] is not None:
            continue
        prefix = moves[:ply]
        entry = oracle.book(prefix) if K == 4 else None
        if entry is None:
            known = known_value(M, N, K, prefix)
            if known is not None:
                values[ply] = PositionValue(ply, "book", known.outcome)
                if known.keeping:
                    books[ply] = (known.outcome, known.keeping)
                continue
        if entry is not None:
            books[ply] = entry
            values[ply] = PositionValue(ply, "book", entry[0])
            continue
        score = None
        if oracle.exact and failures < _GIVE_UP_AFTER:
            score = _solve_within(oracle, prefix, budget_s)
            failures = failures + 1 if score is None else 0
        if score is not None:
            values[ply] = PositionValue(ply, "exact", _outcome(score), score,
                                        _plies_left(size, ply, score))
            continue
        est, depth, proven = oracle.estimate(prefix, estimate_s)
        if proven and abs(est) >= 1:
            s = int(round(est))
            values[ply] = PositionValue(ply, "exact", _outcome(s), s, _plies_left(size, ply, s),
                                        depth=depth)
        else:
            values[ply] = PositionValue(ply, "estimate", estimate=est, depth=depth)
    _carry_book_values(values, books, moves)
    positions = tuple(v for v in values if v is not None)
    verdicts_list = []
    for i in range(n):
        verdicts_list.append(_verdict(oracle, M, N, K, moves, i, positions, books, budget_s,
                                      threat_plies))
        step()
    verdicts = tuple(verdicts_list)
    return GameAnalysis(M, N, K, tuple(moves), positions, verdicts, budget_s, clock.elapsed(),
                        oracle.kind, opening)


def _carry_book_values(values: list[PositionValue | None],
                       books: dict[int, tuple[int, tuple[int, ...]]], moves: list[int]) -> None:
    """A move the book lists as keeping its position's outcome passes that outcome on: the
    position after it gets the book's value (for the other side) where it had only an
    estimate. (The book holds fewer positions than two moves deep on the big boards: 6x7 has
    only the empty board, whose one winning move, the centre, the literature names.)"""
    for ply, (outcome, keeping) in sorted(books.items()):
        after = values[ply + 1] if ply + 1 < len(values) else None
        if (ply < len(moves) and moves[ply] in keeping and after is not None
                and after.kind == "estimate"):
            values[ply + 1] = PositionValue(ply + 1, "book", -outcome)


def _verdict(oracle: Oracle, M: int, N: int, K: int, moves: list[int], i: int,
             positions: tuple[PositionValue, ...], books: dict[int, tuple[int, tuple[int, ...]]],
             budget_s: float, threat_plies: int) -> MoveVerdict:
    """The verdict on move i (see the module docstring)."""
    col = moves[i]
    player = i % 2 + 1
    before, after = positions[i], positions[i + 1]
    prefix = moves[:i]
    board = CXBoard.from_moves(M, N, K, prefix)
    legal = board.getAvailableColumns()
    wins = [c for c in legal if _wins_with(board, c)]
    if col in wins:
        return MoveVerdict(i, player, col, "best", "wins at once")
    entry = books.get(i)
    if entry is not None and col in entry[1] and after.kind in ("book", "end"):
        words = {1: "the win", 0: "the draw", -1: "the loss"}[entry[0]]
        return MoveVerdict(i, player, col, "best", f"keeps {words} (book)")
    if before.outcome == -1 and after.outcome is None:
        how = "book" if before.kind == "book" else "solver"
        return MoveVerdict(i, player, col, "best",
                           f"the position was lost ({how}): no move can make it worse")
    if before.outcome is not None and after.outcome is not None:
        kept = -after.outcome
        names = {1: "won", 0: "drawn", -1: "lost"}
        if kept < before.outcome:
            reason = f"{names[before.outcome]} -> {names[kept]}"
            if wins:
                reason += " (missed an immediate win)"
                return MoveVerdict(i, player, col, "blunder", reason, tuple(wins))
            return MoveVerdict(i, player, col, "blunder", reason,
                               _keeping(oracle, prefix, legal, col, before.outcome, books.get(i),
                                        budget_s))
        if before.score is not None and after.score is not None and -after.score < before.score:
            return MoveVerdict(i, player, col, "inaccuracy",
                               f"{describe_value(before)} -> "
                               f"{describe_value(_mover_view(after, i))}")
        return MoveVerdict(i, player, col, "best")
    # no exact value on one side: threat analysis
    if wins:
        return MoveVerdict(i, player, col, "blunder", "missed an immediate win", tuple(wins))
    by_solver = after.outcome == 1  # the opponent's win is proven exactly
    lost_after = by_solver or _forced_win(oracle, moves[:i + 1], threat_plies, budget_s)
    if lost_after and before.outcome != -1:
        safe = tuple(c for c in legal if c != col
                     and not _forced_win(oracle, prefix + [c], threat_plies, budget_s / 4))
        if safe:
            how = (f"proven by the solver: {describe_value(after)} for the opponent"
                   if by_solver else f"proven by a {threat_plies}-ply search")
            return MoveVerdict(i, player, col, "blunder", f"allowed a forced loss ({how}; "
                               f"the better moves lose to no {threat_plies}-ply threat)", safe)
    return MoveVerdict(i, player, col, "unclear")


def _mover_view(after: PositionValue, i: int) -> PositionValue:
    """The value after move i from the mover's side (negated, one ply later)."""
    score = None if after.score is None else -after.score
    outcome = None if after.outcome is None else -after.outcome
    plies = None if after.plies_left is None else after.plies_left + 1
    return PositionValue(i, after.kind, outcome, score, plies, after.estimate, after.depth)


def _wins_with(board: CXBoard, col: int) -> bool:
    b = board.copy()
    b.markColumn(col)
    return b.gameState() is not CXGameState.OPEN and b.gameState() is not CXGameState.DRAW


def _forced_win(oracle: Oracle, moves: list[int], plies: int, budget_s: float) -> bool:
    """Does the side to move after `moves` have a win the search proves within `plies`?"""
    est, _, proven = oracle.estimate(moves, max(budget_s / 4, 0.02), max_depth=plies)
    return proven and est >= 1


def _keeping(oracle: Oracle, prefix: list[int], legal: list[int], played: int, outcome: int,
             entry: tuple[int, tuple[int, ...]] | None, budget_s: float) -> tuple[int, ...]:
    """The columns that keep `outcome` (from the book, else one null-window solve each)."""
    if entry is not None:
        return tuple(c for c in entry[1] if c != played)
    out = []
    for c in legal:
        if c == played:
            continue
        if oracle.keeps(prefix, c, outcome, max(int(2_000_000 * budget_s), 100_000)):
            out.append(c)
    return tuple(out)
