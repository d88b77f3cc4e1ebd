"""The adaptive final: a round robin that plays the games its ranking still needs, and stops
when the ranking is decided. A pure policy: it is fed the field's results so far (a `Tally`)
and names the games to play next (`AdaptiveFinal.step`); it holds no state and reads no
database, and the same tally always gives the same answer.

The teacher states what must be decided (`Goal`: the full order, or the top k, at a
confidence) and the policy keeps a floor: every entry plays every board at least once with
each colour. Then, step by step:

- **The ranking so far.** A Bradley-Terry fit of every game played (all boards; a draw is
  half a win; a weak prior of one virtual draw per pair that met, as `arena.results.elo`) gives
  each two entries' chance `p` of a point. Each entry's *expected total* is the points the full
  round robin would give it, as the standings count them (3 a win, 1 a draw): its points so
  far plus, for every game it has still to play, its expected points (a draw as often as that
  pair drew so far, shrunk to the field's share).
  The order is by expected total: once every game is played it is the round robin's own order.
- **Decided or not.** For two entries next to each other in that order, the difference of
  their totals at the end of the full round robin is uncertain twice: the games still to play
  (each a Bernoulli `p`) and the fit itself (its covariance, the inverse Fisher information,
  through the derivative of the difference by the strengths). The pair is *decided* when the
  upper one ends above with at least the goal's confidence (a normal approximation,
  `statistics.NormalDist`), *tied* when the fit says their strengths differ by less than
  `Goal.tie_elo` at that confidence (the full round robin itself would then order them by
  chance), and *open* otherwise.
- **The next games.** Each open pair that matters (both places within the top k, or the
  boundary at k) gets game pairs (both colours on one board, the board they played least):
  between the two when they may still meet, else each against the opponent nearest in the
  order it may still meet. An open pair gets more game pairs each step the more the two have
  met (at most `Goal.burst`, four times that among the `Goal.first` places), so that a close
  pair costs few steps; the places at the top are served first.
- **The end.** The final ends when every pair that matters is decided or tied, when its budget
  (`Goal.max_fraction` of the full round robin) is spent, or when no game is left (the full
  round robin: `final_pairs` rounds of every pair, board and colour). It never plays a game
  past the full round robin. Its `Ranking` says which places are ties: the pairs not decided.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from arena.competition.final_goal import Goal
from arena.results.standings import POINTS_DRAW, POINTS_WIN

__all__ = ["AdaptiveFinal", "FinalGame", "Goal", "Ranking", "Step", "Tally"]

#: Elo points per natural-log unit of a Bradley-Terry strength (400 / ln 10)
_ELO_PER_NAT = 400.0 / math.log(10.0)
#: how many times `Goal.burst` an open pair among the `Goal.first` places gets
_FIRST_BURST = 16


@dataclass(frozen=True)
class FinalGame:
    """One game to play: `first` moves first against `second` on `board`."""

    first: str
    second: str
    board: str


class Tally:
    """The field's results so far, as the policy reads them: per (first, second, board) the
    games played or in flight, and per two entries the points each took from the other.
    `add` returns a new tally (the arrays are copied; a tally is never changed)."""

    __slots__ = ("_draws", "_games", "_pending", "_points", "boards", "entries")

    def __init__(self, entries: Sequence[str], boards: Sequence[str],
                 results: Iterable[tuple[str, str, str, float]] = (),
                 pending: Iterable[tuple[str, str, str]] = ()) -> None:
        self.entries = tuple(entries)
        self.boards = tuple(boards)
        if len(set(self.entries)) != len(self.entries) or len(set(self.boards)) != len(
                self.boards):
            raise ValueError("a tally's entries and boards must differ")
        n, b = len(self.entries), len(self.boards)
        self._games = np.zeros((n, n, b), dtype=np.int32)  # played, by colour and board
        self._pending = np.zeros((n, n, b), dtype=np.int32)  # in flight
        self._points = np.zeros((n, n))  # score i took from j (a draw 1/2)
        self._draws = np.zeros((n, n))  # draws between i and j (both ways)
        self._record(results, pending)

    def _record(self, results: Iterable[tuple[str, str, str, float]],
                pending: Iterable[tuple[str, str, str]]) -> None:
        e = {name: i for i, name in enumerate(self.entries)}
        bd = {name: i for i, name in enumerate(self.boards)}
        for first, second, board, score in results:
            i, j, k = e[first], e[second], bd[board]
            if i == j or not 0.0 <= score <= 1.0:
                raise ValueError(f"a game {first} vs {second} scoring {score} cannot be")
            self._games[i, j, k] += 1
            self._points[i, j] += score
            self._points[j, i] += 1.0 - score
            if score == 0.5:
                self._draws[i, j] += 1
                self._draws[j, i] += 1
        for first, second, board in pending:
            self._pending[e[first], e[second], bd[board]] += 1

    def add(self, results: Iterable[tuple[str, str, str, float]] = (),
            pending: Iterable[tuple[str, str, str]] = ()) -> Tally:
        """This tally with more games played (first, second, board, first's score) and more
        in flight."""
        out = Tally.__new__(Tally)
        out.entries, out.boards = self.entries, self.boards
        out._games, out._pending = self._games.copy(), self._pending.copy()
        out._points, out._draws = self._points.copy(), self._draws.copy()
        out._record(results, pending)
        return out

    def done(self, results: Iterable[tuple[str, str, str, float]]) -> Tally:
        """This tally with games in flight ended (first, second, board, first's score)."""
        results = list(results)
        out = self.add(results)
        e = {name: i for i, name in enumerate(self.entries)}
        bd = {name: i for i, name in enumerate(self.boards)}
        for first, second, board, _ in results:
            i, j, k = e[first], e[second], bd[board]
            if out._pending[i, j, k] <= 0:
                raise ValueError(f"{first} vs {second} on {board} was not in flight")
            out._pending[i, j, k] -= 1
        return out

    @property
    def games(self) -> int:
        """Games played."""
        return int(self._games.sum())

    @property
    def in_flight(self) -> int:
        return int(self._pending.sum())

    def count(self, first: str, second: str, board: str) -> int:
        """Games of `first` (first) against `second` on `board`, played or in flight."""
        i, j = self.entries.index(first), self.entries.index(second)
        k = self.boards.index(board)
        return int(self._games[i, j, k] + self._pending[i, j, k])

    def points(self) -> dict[str, float]:
        """Each entry's points so far, as the standings count them."""
        wins = self._points.sum(axis=1) - self._draws.sum(axis=1) / 2
        total = POINTS_WIN * wins + POINTS_DRAW * self._draws.sum(axis=1)
        return {name: float(p) for name, p in zip(self.entries, total, strict=True)}

    def draws(self) -> np.ndarray:
        """Draws between each two entries (read only)."""
        return self._draws

    # the arrays, for the policy (read only)
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._games, self._pending, self._points


@dataclass(frozen=True)
class Ranking:
    """The order at one moment: entries by expected total (best first), each one's expected
    total of the full round robin, and for each neighbouring pair (place i and i + 1, from 0)
    its state: "decided", "tie" or "open" (only the pairs the goal asks about; the others
    "free")."""

    order: tuple[str, ...]
    expected: tuple[float, ...]
    pairs: tuple[str, ...]

    def ties(self) -> tuple[tuple[int, int], ...]:
        """The places (1-based, first and last) that are ties at the goal's confidence: runs
        of entries joined by pairs that are not decided."""
        out: list[tuple[int, int]] = []
        start = 0
        for i, state in enumerate((*self.pairs, "decided")):
            if state == "decided" or state == "free":
                if i > start:
                    out.append((start + 1, i + 1))
                start = i + 1
        return tuple(out)

    def text(self) -> str:
        ties = self.ties()
        if not ties:
            return "every place decided"
        return "ties at the goal's confidence: " + ", ".join(
            f"places {a}-{b} ({', '.join(self.order[a - 1:b])})" for a, b in ties)


@dataclass(frozen=True)
class Step:
    """The policy's answer: the games to play now (none: wait for the games in flight, or the
    final is over), whether the final is over, and the ranking it rests on."""

    games: tuple[FinalGame, ...]
    over: bool
    ranking: Ranking
    why: str  # "floor", "open pairs", "decided", "every game played", "waiting"


@dataclass(frozen=True)
class AdaptiveFinal:
    """The adaptive final's policy (see the module's docstring)."""

    goal: Goal = Goal()

    def full_games(self, tally: Tally) -> int:
        """The games of the full round robin."""
        n, b = len(tally.entries), len(tally.boards)
        return n * (n - 1) * b * self.goal.rounds

    def step(self, tally: Tally) -> Step:
        games, pending, _ = tally.arrays()
        busy = games + pending
        floor = self._floor(tally, busy)
        ranking, opens = self.ranking(tally)
        if floor:
            return Step(floor, False, ranking, "floor")
        left = (self.goal.rounds - busy).clip(0, None)
        diagonal = np.arange(len(tally.entries))
        left[diagonal, diagonal, :] = 0
        budget = self.budget(tally) - int(busy.sum())
        chosen = (self._games_for(tally, ranking, opens, left, budget)
                  if opens and budget > 0 else [])
        if chosen:
            return Step(tuple(chosen), False, ranking, "open pairs")
        if tally.in_flight:
            return Step((), False, ranking, "waiting")
        why = ("decided" if not opens else "every game played" if int(left.sum()) == 0
               else "the budget is spent")
        return Step((), True, ranking, why)

    def budget(self, tally: Tally) -> int:
        """The most games the final may play: `Goal.max_fraction` of the full round robin,
        never below the floor's."""
        full = self.full_games(tally)
        floor = 2 * len(tally.entries) * len(tally.boards)
        return max(min(full, floor), int(self.goal.max_fraction * full))

    # ----------------------------------------------------------------- the floor
    def _floor(self, tally: Tally, busy: np.ndarray) -> tuple[FinalGame, ...]:
        """The games that give every entry on every board a game with each colour: a cycle
        through the entries (shuffled per board by the goal's seed), each playing first against
        the next where it lacks a first game or the next lacks a second one."""
        n = len(tally.entries)
        if n < 2:
            return ()
        out: list[FinalGame] = []
        as_first = busy.sum(axis=1)  # [i, board]
        as_second = busy.sum(axis=0)
        rng = random.Random(self.goal.seed)
        for k, board in enumerate(tally.boards):
            order = list(range(n))
            rng.shuffle(order)
            for pos, i in enumerate(order):
                j = order[(pos + 1) % n]
                if as_first[i, k] >= 1 and as_second[j, k] >= 1:
                    continue
                if busy[i, j, k] >= self.goal.rounds:  # met there already: anyone free
                    free = [o for o in order if o != i and busy[i, o, k] < self.goal.rounds]
                    if not free:
                        continue
                    j = min(free, key=lambda o: (as_second[o, k] >= 1, order.index(o)))
                out.append(FinalGame(tally.entries[i], tally.entries[j], board))
                as_first[i, k] += 1
                as_second[j, k] += 1
                busy[i, j, k] += 1
        return tuple(out)

    # ----------------------------------------------------------------- the ranking
    def ranking(self, tally: Tally) -> tuple[Ranking, list[int]]:
        """The ranking of `tally` and the places (from 0) whose pair with the next is open.
        Totals are in the standings' points (`POINTS_WIN` a win, `POINTS_DRAW` a draw): a
        future game of i against j scores a win with p - d / 2 and a draw with d, d the pair's
        share of draws so far (two virtual games at the field's share)."""
        games, pending, score = tally.arrays()
        draws = tally.draws()
        n = len(tally.entries)
        met = (games.sum(axis=2) + games.sum(axis=2).T).astype(float)
        left = (2 * self.goal.rounds * len(tally.boards) - met).clip(0, None)
        np.fill_diagonal(left, 0.0)
        beta, cov = _fit(met, score)
        p = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
        share = float(draws.sum() / met.sum()) if met.sum() > 0 else 0.0
        d = np.minimum((draws + 2.0 * share) / (met + 2.0), 2.0 * np.minimum(p, 1.0 - p))
        win, lose = p - d / 2.0, 1.0 - p - d / 2.0
        mean = POINTS_WIN * win + POINTS_DRAW * d  # a future game's points, i against j
        var = POINTS_WIN ** 2 * win + POINTS_DRAW ** 2 * d - mean ** 2
        # a game of i and j moves i's total minus j's by +W, 0 or -W
        var_pair = POINTS_WIN ** 2 * (win + lose) - (POINTS_WIN * (win - lose)) ** 2
        now = POINTS_WIN * (score.sum(axis=1) - draws.sum(axis=1) / 2) + POINTS_DRAW * draws.sum(
            axis=1)
        expected = now + (left * mean).sum(axis=1)
        order = sorted(range(n), key=lambda i: (-expected[i], i))
        limit = n - 1 if self.goal.top_k is None else min(n - 1, self.goal.top_k)
        z = NormalDist().inv_cdf(self.goal.confidence)
        # the first places together at the goal's confidence (Bonferroni): each pair stricter
        first = min(self.goal.first, limit)
        z_first = NormalDist().inv_cdf(1.0 - (1.0 - self.goal.confidence) / max(1, first))
        slope = POINTS_WIN * p * (1.0 - p)  # d(mean)/d(strength of i)
        states: list[str] = []
        opens: list[int] = []
        for place in range(n - 1):
            if place >= limit:
                states.append("free")
                continue
            a, b = order[place], order[place + 1]
            states.append(self._pair_state(a, b, expected, left, var, var_pair, slope, beta,
                                           cov, z_first if place < first else z))
            if states[-1] == "open":
                opens.append(place)
        return Ranking(tuple(tally.entries[i] for i in order),
                       tuple(float(expected[i]) for i in order), tuple(states)), opens

    def _pair_state(self, a: int, b: int, expected: np.ndarray, left: np.ndarray,
                    var: np.ndarray, var_pair: np.ndarray, slope: np.ndarray,
                    beta: np.ndarray, cov: np.ndarray, z: float) -> str:
        diff = float(expected[a] - expected[b])
        # the games still to play: a's and b's against the others, and theirs together
        var_games = float((left[a] * var[a]).sum() - left[a, b] * var[a, b]
                          + (left[b] * var[b]).sum() - left[b, a] * var[b, a]
                          + left[a, b] * var_pair[a, b])
        # the fit: d(difference)/d(strengths)
        grad = -(left[a] * slope[a]) + (left[b] * slope[b])
        grad[a] = float((left[a] * slope[a]).sum()) + left[b, a] * slope[b, a]
        grad[b] = -float((left[b] * slope[b]).sum()) - left[a, b] * slope[a, b]
        var_fit = float(grad @ cov @ grad)
        sd = math.sqrt(max(1e-12, var_games + var_fit))
        if diff / sd >= z:
            return "decided"
        strength_sd = math.sqrt(max(0.0, cov[a, a] + cov[b, b] - 2 * cov[a, b]))
        gap = abs(float(beta[a] - beta[b])) + z * strength_sd
        return "tie" if gap * _ELO_PER_NAT < self.goal.tie_elo else "open"

    # ----------------------------------------------------------------- the next games
    def _games_for(self, tally: Tally, ranking: Ranking, opens: list[int],
                   left: np.ndarray, budget: int) -> list[FinalGame]:
        """At most `budget` games for the open pairs (see the module's docstring)."""
        index = {name: i for i, name in enumerate(tally.entries)}
        order = [index[name] for name in ranking.order]
        games, pending, _ = tally.arrays()
        met = (games + pending).sum(axis=2)
        met = met + met.T
        left = left.copy()
        room = left.sum(axis=2)
        room = room + room.T  # games i and j may still play, either colour
        out: list[FinalGame] = []

        def game_pair(i: int, j: int) -> bool:
            """A game pair (or one game) of i and j on the board they have most left."""
            if room[i, j] <= 0:
                return False
            k = int(np.argmax(left[i, j] + left[j, i]))
            for f, s in ((i, j), (j, i)):
                if left[f, s, k] > 0:
                    out.append(FinalGame(tally.entries[f], tally.entries[s], tally.boards[k]))
                    left[f, s, k] -= 1
                    room[f, s] -= 1
                    room[s, f] -= 1
            return True

        def nearest(at: int) -> None:
            """A game pair of the entry at place `at` with the nearest one it may meet."""
            me = order[at]
            for dist in range(1, len(order)):
                for o in (at - dist, at + dist):
                    if 0 <= o < len(order) and game_pair(me, order[o]):
                        return

        for at in opens:
            a, b = order[at], order[at + 1]
            # how long it has been open: more game pairs the more the two have met
            most = self.goal.burst * (_FIRST_BURST if at < self.goal.first else 1)
            burst = most if room[a, b] <= 0 else min(most, 1 + int(met[a, b]) // 2)
            for _ in range(burst):
                if len(out) >= budget:
                    return out[:budget]
                if not game_pair(a, b):
                    nearest(at)
                    nearest(at + 1)
        return out[:budget]


def _fit(met: np.ndarray, points: np.ndarray, prior_draws: float = 0.05,
         prior_sd_elo: float = 2000.0, rounds: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry strengths (natural units, mean 0) of `met` games between each two
    entries and `points` each took from the other, and their covariance (the inverse Fisher
    information, projected onto mean-zero strengths): the fit of `arena.results.elo`
    (a virtual draw per pair that met, a wide Gaussian prior) on counts."""
    n = met.shape[0]
    seen = met > 0
    played = met + prior_draws * seen
    scored = points + 0.5 * prior_draws * seen
    precision = (_ELO_PER_NAT / prior_sd_elo) ** 2
    beta = np.zeros(n)
    eye = np.eye(n)
    for _ in range(rounds):
        p = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
        grad = (scored - played * p).sum(axis=1) - precision * beta
        w = played * p * (1.0 - p)
        info = np.diag(w.sum(axis=1)) - w + precision * eye
        step = np.linalg.solve(info, grad)
        beta = beta + step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    p = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
    w = played * p * (1.0 - p)
    cov = np.linalg.inv(np.diag(w.sum(axis=1)) - w + precision * eye)
    centre = eye - np.full((n, n), 1.0 / n)
    return beta - beta.mean(), centre @ cov @ centre.T
