"""Elo arithmetic: a two-player match summary and a rating fit for a whole tournament.

- `elo_difference(wins, losses, draws)`: the Elo difference of a two-player match with its 95%
  error bar and the likelihood of superiority, computed the way fastchess does (trinomial score
  mean and variance per game; W/L/D = 136/96/111 gives +40.70 +/- 30.43, LOS 99.60 %).
- `fit_ratings(players, games)`: Elo ratings of every player from all games, by a maximum
  likelihood Bradley-Terry fit (draws count as half a win, as Ordo does), mean 0, with 95%
  confidence intervals from the Fisher information. A weak prior (one virtual draw between
  every pair that met, plus a very wide Gaussian around 0) keeps the ratings finite for a
  player that won or lost every game and pins down players that never met. With `anchor=`
  the scale is instead fixed by one player at `anchor_elo` (Ordo's -A): that player's rating
  is exact and the others' intervals are relative to it (the league's leaderboard).

The fit has no first-move term on purpose: every schedule (round robin, gauntlet; with or
without openings) plays each pairing on each board as often with one player first as with the
other, so the first player's edge adds the same to both sides of every pairing and cancels out
of the ratings. Head-to-head results with game pairs use the pentanomial model of
`arena.results.stats`, which handles the edge (and lopsided openings) per pair.

Everything here is pure arithmetic (math and numpy): no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.results.stats import Z95, phi, score_to_elo

__all__ = ["Z95", "EloDifference", "Ratings", "elo_difference", "fit_ratings", "score_to_elo"]

#: Elo points per natural-log unit of the Bradley-Terry strength (400 / ln 10)
_ELO_PER_NAT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class EloDifference:
    """A two-player match summary, from the first player's point of view.

    `elo` is the Elo difference, `error` the half-width of its 95% interval (Elo; inf when it
    cannot be bounded, e.g. no games or a 100% score), `los` the likelihood of superiority
    (0..1), `score` the mean points per game (win 1, draw 1/2).
    """

    wins: int
    losses: int
    draws: int
    elo: float
    error: float
    los: float
    score: float

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def __str__(self) -> str:
        return (f"Elo {_signed(self.elo)} +/- {_plain(self.error)}, LOS {100.0 * self.los:.2f} %"
                f" ({self.wins}W {self.losses}L {self.draws}D)")


def _signed(x: float) -> str:
    return f"{x:+.2f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _plain(x: float) -> str:
    return f"{x:.2f}" if math.isfinite(x) else "inf"


def elo_difference(wins: int, losses: int, draws: int) -> EloDifference:
    """Elo difference, 95% error bar and LOS of a W/L/D result (fastchess's EloWDL).

    score = (W + D/2) / n; the per-game variance of the trinomial result is
    W/n (1-score)^2 + D/n (1/2-score)^2 + L/n (0-score)^2; the score's 95% interval
    score +/- 1.959964 sqrt(variance/n) mapped to Elo gives the error bar (half its width), and
    LOS = Phi((score - 1/2) / sqrt(variance/n)).
    """
    if min(wins, losses, draws) < 0:
        raise ValueError(f"negative game count in W/L/D {wins}/{losses}/{draws}")
    n = wins + losses + draws
    if n == 0:
        return EloDifference(wins, losses, draws, elo=0.0, error=math.inf, los=0.5, score=0.5)
    w, l, d = wins / n, losses / n, draws / n
    score = w + 0.5 * d
    variance = w * (1.0 - score) ** 2 + d * (0.5 - score) ** 2 + l * (0.0 - score) ** 2
    sd_mean = math.sqrt(variance / n)
    elo = score_to_elo(score)
    upper, lower = score + Z95 * sd_mean, score - Z95 * sd_mean
    if sd_mean == 0.0 or upper >= 1.0 or lower <= 0.0:
        error = math.inf
    else:
        error = (score_to_elo(upper) - score_to_elo(lower)) / 2.0
    if sd_mean == 0.0:
        los = 0.5 if score == 0.5 else (1.0 if score > 0.5 else 0.0)
    else:
        los = phi((score - 0.5) / sd_mean)
    return EloDifference(wins, losses, draws, elo=elo, error=error, los=los, score=score)


@dataclass(frozen=True)
class Ratings:
    """Fitted Elo ratings (mean 0, or the anchor at its value) and the half-widths of their
    95% confidence intervals."""

    players: tuple[str, ...]
    elo: tuple[float, ...]
    error: tuple[float, ...]

    def as_dict(self) -> dict[str, tuple[float, float]]:
        """player -> (elo, 95% error)."""
        return {p: (e, c) for p, e, c in zip(self.players, self.elo, self.error, strict=True)}


def fit_ratings(players: Sequence[str], games: Iterable[tuple[str, str, float]],
                prior_draws: float = 1.0, prior_sd_elo: float = 2000.0,
                max_iter: int = 100, anchor: str | None = None,
                anchor_elo: float = 0.0) -> Ratings:
    """Maximum-likelihood Bradley-Terry ratings from `games` (a, b, score of a: 1, 0.5 or 0).

    P(a beats b) = 1 / (1 + 10^((r_b - r_a)/400)); a draw counts as half a win and half a loss.
    The prior adds `prior_draws` virtual draws to every pair that met and a Gaussian N(0,
    prior_sd_elo^2) on each rating; ratings are shifted to mean 0. The 95% intervals come from
    the inverse of the observed Fisher information (the Hessian of the log posterior),
    projected onto mean-zero ratings.

    With `anchor` (one of `players`) the ratings are shifted so that the anchor's is exactly
    `anchor_elo` instead of the mean being 0 (Ordo's -A): the anchor's interval is 0 and every
    other interval is that of its difference to the anchor. The differences between players
    are the same either way.
    """
    import numpy as np  # here: importing arena.results must not cost numpy's start-up
    names = list(players)
    index = {p: i for i, p in enumerate(names)}
    if len(index) != len(names):
        raise ValueError("duplicate player names")
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    n = len(names)
    if n == 0:
        return Ratings((), (), ())
    played = np.zeros((n, n))  # games between i and j (symmetric)
    scored = np.zeros((n, n))  # points i took from j
    for a, b, s in games:
        i, j = index[a], index[b]
        if i == j:
            continue
        if not 0.0 <= s <= 1.0:
            raise ValueError(f"score {s} of {a} vs {b} is not in 0..1")
        played[i, j] += 1.0
        played[j, i] += 1.0
        scored[i, j] += s
        scored[j, i] += 1.0 - s
    met = played > 0
    played = played + prior_draws * met
    scored = scored + 0.5 * prior_draws * met
    precision = (_ELO_PER_NAT / prior_sd_elo) ** 2  # Gaussian prior, in natural units

    beta = np.zeros(n)
    for _ in range(max_iter):
        diff = beta[:, None] - beta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))  # P(i beats j)
        grad = (scored - played * p).sum(axis=1) - precision * beta
        w = played * p * (1.0 - p)
        info = np.diag(w.sum(axis=1)) - w + precision * np.eye(n)  # minus the Hessian
        step = np.linalg.solve(info, grad)
        beta = beta + step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    diff = beta[:, None] - beta[None, :]
    p = 1.0 / (1.0 + np.exp(-diff))
    w = played * p * (1.0 - p)
    info = np.diag(w.sum(axis=1)) - w + precision * np.eye(n)
    cov = np.linalg.inv(info)
    if anchor is None:
        centre = np.eye(n) - np.full((n, n), 1.0 / n)  # rating i - the mean
        zero, shift = float(beta.mean()), 0.0
    else:
        fixed = index[anchor]
        centre = np.eye(n)
        centre[:, fixed] -= 1.0  # rating i - the anchor's
        zero, shift = float(beta[fixed]), anchor_elo
    cov = centre @ cov @ centre.T
    elo = (beta - zero) * _ELO_PER_NAT + shift
    err = Z95 * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * _ELO_PER_NAT
    return Ratings(tuple(names), tuple(float(x) for x in elo), tuple(float(x) for x in err))
