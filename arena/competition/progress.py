"""Progress and ETA of a tournament, each game weighed by its expected cost, not counted.

The schedule plays the dearest games first (`arena.tournament.schedule`), so counting games
makes the first minutes look slow: at 4 minutes of `make tournament` (its 50x50 boards) the
count said 3 h, and it took 10 min. Here a game's **prior** cost is its `Game.cost()`
(Connect-X: the board's cells) times the per-move limit. As games finish, their measured
durations refine it, per board (a `key`: one board, or one parameter set of another game):

- a game's duration is its overhead (starting the bots, the protocol: its wall time minus the
  time the bots thought, the same on every board: the mean over all measured games) plus its
  thinking time;
- the seen boards' thinking time per game gives a fit `a * prior ** slope` (least squares on
  the logarithms, weighed by games; `slope` kept within `SLOPE_RANGE`; one seen board: `slope`
  1), so a board not played yet is expected to think what the fit says (big boards end long
  before they are full, so small boards may cost more than their cells say);
- a board's own mean thinking time is blended with the fit, the fit counting as `PRIOR_GAMES`
  games.

ETA = the expected seconds of the games left / the rate of this run (the measured seconds of
the games it finished per second of wall time, about the number of busy workers). The fraction
done is the share of the whole run's expected seconds that is done (games finished: their
measured seconds), never less than the fraction shown before: a game that took longer than
expected raises the estimate of the games left, and the bar would otherwise run backwards
("45 % 15/60 -> 44 % 16/60"); it then stands still until the run catches up with it.

Pure: `Progress` is a frozen value, `finish` returns a new one; no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from arena.records import GameRecord, record_label, recorded_game

if TYPE_CHECKING:
    from arena.competition.jobs import GameJob

__all__ = ["PRIOR_GAMES", "SLOPE_RANGE", "Progress", "clock", "count_eta_s", "key_and_prior",
           "measured_s", "record_key_and_prior", "thinking_s"]

#: how many games of its own the fit over all seen boards counts for, against a board's games
PRIOR_GAMES = 2.0
#: the fit's exponent of the prior: cost grows with the cells, at most in proportion
SLOPE_RANGE = (0.5, 1.0)


@lru_cache(maxsize=1024)
def _key_and_cost(game: str, M: int, N: int, K: int,
                  params: tuple[tuple[str, int], ...]) -> tuple[str, float]:
    rules = recorded_game(game, M, N, K, params)
    return record_label(rules), rules.cost()


def key_and_prior(game: str, params: Mapping[str, int], M: int, N: int, K: int,
                  timeout_s: float) -> tuple[str, float]:
    """(board key, prior cost) of a game, as the game names its board in its records and rates
    a game's cost (`arena.records.record_label`, `Game.cost`; Connect-X keeps its board in M, N, K,
    another game in `params`)."""
    key, cost = _key_and_cost(game, M, N, K, tuple(sorted(params.items())))
    return key, cost * timeout_s


def record_key_and_prior(rec: GameRecord, timeout_s: float | None = None) -> tuple[str, float]:
    """`key_and_prior` of a stored game (its game and parameters, either shape:
    `GameRecord.params`), by `timeout_s`, else its own time limit (a record without one: 1 s,
    the same for all such games, so their relative costs stay right)."""
    return key_and_prior(rec.game, rec.params, 0, 0, 0,
                         timeout_s if timeout_s is not None else rec.timeout_s or 1.0)


def measured_s(rec: GameRecord) -> float | None:
    """A game's wall duration: finished_at - started_at, else (no timestamps) the measured
    times of its moves and initPlayer; None when there is nothing measured."""
    try:
        seconds = (datetime.fromisoformat(rec.finished_at)
                   - datetime.fromisoformat(rec.started_at)).total_seconds()
    except ValueError:
        seconds = thinking_s(rec)
    return seconds if seconds > 0 else None


def thinking_s(rec: GameRecord) -> float:
    """The time the bots thought in a game (moves and initPlayer), seconds."""
    return (sum(rec.times_ms) + sum(rec.init_ms)) / 1000.0


def count_eta_s(done: int, total: int, elapsed_s: float) -> float | None:
    """The ETA that counts games (what a plain progress bar shows): every game costs the
    mean so far."""
    if done >= total:
        return 0.0
    return None if done <= 0 else elapsed_s * (total - done) / done


def clock(seconds: float) -> str:
    """``4:05`` or ``1:02:03``."""
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@dataclass(frozen=True)
class Board:
    """The games of one board (key) in a run."""

    prior: float  # the prior cost of one game
    left: int  # games not finished
    done: int = 0
    measured: int = 0  # finished games with a measured duration
    measured_s: float = 0.0  # their summed durations, seconds
    overhead_s: float = 0.0  # of which not the bots' thinking, seconds


@dataclass(frozen=True)
class Progress:
    """Where a run is: each board's games left and done, and the seconds of games that
    finished in this run (the rate's numerator)."""

    boards: Mapping[str, Board]
    run_s: float = 0.0
    #: the fraction shown before this value (`fraction` never returns less): 0..1
    shown: float = 0.0

    @classmethod
    def plan(cls, games: Iterable[tuple[str, float]]) -> Progress:
        """Nothing done yet of `games`, each a (key, prior cost); the first prior of a key
        counts."""
        boards: dict[str, Board] = {}
        for key, prior in games:
            b = boards.get(key)
            boards[key] = Board(prior, 1) if b is None else replace(b, left=b.left + 1)
        return cls(boards)

    def finish(self, key: str, duration_s: float | None, this_run: bool = True,
               think_s: float | None = None) -> Progress:
        """One game of board `key` is done, after `duration_s` (None or 0: not measured, e.g.
        a forfeit) of which its bots thought `think_s` (None: all of it); `this_run`: finished
        by this run (else stored by an earlier one: it refines the costs but not the rate).
        ValueError if no game of `key` is left."""
        b = self.boards.get(key)
        if b is None or b.left <= 0:
            raise ValueError(f"no game left on board {key!r}")
        seconds = duration_s if duration_s is not None and duration_s > 0 else None
        b = replace(b, left=b.left - 1, done=b.done + 1)
        if seconds is not None:
            overhead = 0.0 if think_s is None else min(seconds, max(0.0, seconds - think_s))
            b = replace(b, measured=b.measured + 1, measured_s=b.measured_s + seconds,
                        overhead_s=b.overhead_s + overhead)
        boards = dict(self.boards)
        boards[key] = b
        run_s = self.run_s + (seconds if this_run and seconds is not None else 0.0)
        return Progress(boards, run_s, self.fraction())

    @classmethod
    def start(cls, todo: Iterable[GameJob], stored: Iterable[GameRecord],
              timeout_s: float) -> Progress:
        """A run that plays `todo` after the games of an earlier run, `stored` (which refine
        the costs by their measured durations)."""
        old = [(record_key_and_prior(r, timeout_s), r) for r in stored]
        p = cls.plan([key_and_prior(g.game, dict(g.params), g.M, g.N, g.K, timeout_s)
                      for g in todo] + [kp for kp, _ in old])
        for (key, _), rec in old:
            p = p.finish_record(key, rec, this_run=False)
        return p

    def finish_record(self, key: str, rec: GameRecord | None, this_run: bool = True) -> Progress:
        """`finish` with the durations of `rec` (None: a game the harness could not play)."""
        if rec is None:
            return self.finish(key, None, this_run)
        return self.finish(key, measured_s(rec), this_run, thinking_s(rec))

    def line(self, elapsed_s: float, faults: int) -> str:
        """What the progress bar shows after its fraction: ``412/1050 games, 4:00<6:21,
        faults=0`` (elapsed < ETA)."""
        eta = self.eta_s(elapsed_s)
        text = (f"{self.games_done}/{self.games_total} games, {clock(elapsed_s)}<"
                f"{'?' if eta is None else clock(eta)}, faults={faults}")
        if eta is None:  # no game of this run finished yet: say why the count stands still
            text += (", playing the dearest games first (the ETA comes when the first "
                     "ends)")
        return text

    @property
    def games_done(self) -> int:
        return sum(b.done for b in self.boards.values())

    @property
    def games_total(self) -> int:
        return sum(b.done + b.left for b in self.boards.values())

    def _fit(self) -> tuple[float, float, float] | None:
        """(log a, slope, overhead) of `duration = overhead + a * prior ** slope` over the
        measured boards; None before any game was measured."""
        measured = [b for b in self.boards.values() if b.measured]
        if not measured:
            return None
        overhead = sum(b.overhead_s for b in measured) / sum(b.measured for b in measured)
        seen = [(math.log(b.prior), math.log((b.measured_s - b.overhead_s) / b.measured),
                 b.measured) for b in measured if b.prior > 0 and b.measured_s > b.overhead_s]
        if not seen:
            return -math.inf, 1.0, overhead
        weight = sum(w for _, _, w in seen)
        x_mean = sum(x * w for x, _, w in seen) / weight
        y_mean = sum(y * w for _, y, w in seen) / weight
        sxx = sum(w * (x - x_mean) ** 2 for x, _, w in seen)
        sxy = sum(w * (x - x_mean) * (y - y_mean) for x, y, w in seen)
        slope = 1.0 if sxx <= 1e-12 else min(max(sxy / sxx, SLOPE_RANGE[0]), SLOPE_RANGE[1])
        return y_mean - slope * x_mean, slope, overhead

    def _expected(self, b: Board, fit: tuple[float, float, float] | None) -> float:
        if fit is None:
            return b.prior  # nothing measured: in prior units (a fraction needs no seconds)
        log_a, slope, overhead = fit
        fitted_s = (math.exp(log_a + slope * math.log(b.prior))
                    if b.prior > 0 and log_a > -math.inf else 0.0)
        think_s = b.measured_s - b.overhead_s
        return overhead + (think_s + PRIOR_GAMES * fitted_s) / (b.measured + PRIOR_GAMES)

    def expected_s(self, key: str) -> float | None:
        """The expected duration of one more game of board `key`; None before any game was
        measured."""
        fit = self._fit()
        return None if fit is None else self._expected(self.boards[key], fit)

    def _left_and_total(self) -> tuple[float, float]:
        fit = self._fit()
        left = total = 0.0
        for b in self.boards.values():
            each = self._expected(b, fit)
            left += b.left * each
            total += (b.left + b.done - b.measured) * each + b.measured_s  # no fit: none measured
        return left, total

    def fraction(self) -> float:
        """The share of the run's expected cost that is done, 0..1; never less than before the
        last game finished (`shown`), so that the bar never runs backwards."""
        left, total = self._left_and_total()
        estimate = 1.0 if total <= 0 else min(1.0, max(0.0, 1.0 - left / total))
        return max(self.shown, estimate)

    def eta_s(self, elapsed_s: float) -> float | None:
        """Seconds until the last game is done, `elapsed_s` after this run started; 0 when no
        game is left, None while there is no rate yet (no measured game of this run)."""
        if all(b.left == 0 for b in self.boards.values()):
            return 0.0
        if self.run_s <= 0 or elapsed_s <= 0:
            return None
        left, _ = self._left_and_total()
        return left * elapsed_s / self.run_s
