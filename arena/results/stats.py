"""Match statistics: Elo, its 95% interval and LOS from game or game-pair results, and the SPRT.

Pure arithmetic (plain `math`, no scipy: every formula here is a few lines; the one equation
to solve, for the SPRT's constrained maximum likelihood, is monotone and solved by safeguarded
Newton steps). No I/O.

Two models, as in fastchess and fishtest:

- **Trinomial** (`Trinomial`, for unpaired games): each game scores 1, 1/2 or 0.
- **Pentanomial** (`Pentanomial`, for game pairs: the same opening played twice with the
  colours swapped): each *pair* scores 0, 1/4, 1/2, 3/4 or 1 per game (LL, LD, DD or WL, WD,
  WW). Games of a pair are correlated (a lopsided opening gives WL), so treating them as two
  independent games overstates (or understates) the information; the pair is the independent
  unit.

`estimate(...)` returns an `EloEstimate`: the score, the **logistic Elo** difference
``-400 log10(1/score - 1)`` with a 95% interval obtained by mapping the score's normal 95%
interval (score +/- 1.959964 sd/sqrt(n)) through that formula (fastchess's method; trinomial
136/96/111 W/L/D gives +40.70 +/- 30.43 and LOS 99.60 %, pentanomial LL, LD, WL, DD, WD, WW =
34, 54, 31, 32, 64, 75 gives +55.58 +/- 27.65), the likelihood of superiority
``Phi((score - 1/2) / (sd/sqrt(n)))``, and the normalized Elo (score - 1/2) / sd per game
(times 800/ln 10, fishtest's nElo). It never returns a bare infinity for display: a perfect (or
zero) score has no finite estimate, so `EloEstimate.describe` prints the bound of its 95%
interval instead, in words, and says when the sample is tiny. Where the units' scores do not
spread (a perfect or zero score, every pair WL or DD, ...) the normal interval would have width
0: such a sample alone gets exact binomial figures (at 95% at most 1 - 0.05**(1/n) of its units
could have scored otherwise). Figures of samples up to ENVELOPE_GAMES games (ENVELOPE_PAIRS
pairs) are then made monotone (`_envelope`), cautiously: a better record never gets a lower
bound or a LOS below a worse one's (fastchess's normal figures are not: 5 wins and a draw would
be bounded far above the exact bound of 6 wins), while ordinary results keep fastchess's
figures.

**The words agree with the interval** (issue #42: "-190.8 +/- 312.3, LOS 0.9 %" read as an
interval across 0 beside a significant LOS; "at least -512 ... LOS 75.0 %" after a 2-0). The
rule: the 95% interval decides whether a difference is shown, and the LOS agrees with it.

- The LOS is made to agree with the interval (`_agreeing_los`): in the plain normal model LOS
  > 97.5 % exactly when the interval's lower end is above 0 (and < 2.5 % exactly when its upper
  end is below 0); the small-sample figures (exact bounds, `_envelope`) can break that, so the
  LOS is clipped into the range the interval allows: at least 97.5 % when the interval lies
  above 0, between 2.5 and 97.5 % when it includes 0, at most 2.5 % when it lies below 0. The
  clip keeps every figure monotone (a better record never gets a lower LOS) and the two
  players' LOS of one match adding up to 1; ordinary results keep fastchess's figures.
- Every LOS is printed with its reading: "significant: the 95% interval excludes 0", or "not
  significant: the 95% interval includes 0, so the sample is too small to tell who is
  stronger" (`EloEstimate.los_words`). A perfect score whose bound lies on the far side of 0
  (2-0: at least -512) says that its bound is below 0.
- "+/-" is half the interval's width, and the interval is not symmetric about the estimate (the
  logistic map stretches it towards the far end): where the estimate +/- the half width would
  reach across 0 while the interval does not (-190.8 +/- 312.3: interval -658.9 .. -34.4),
  the words say so and name the ends.

`Sprt`: the generalized sequential probability ratio test (GSPRT) of fishtest, on the
pentanomial model (or the trinomial one for unpaired games), with **logistic Elo** bounds (as
cutechess-cli and fastchess's ``model=logistic``; the same Elo cxarena prints everywhere else).
The log-likelihood ratio is ``n * sum_j f_j log(p1_j / p0_j)`` where f is the observed outcome
distribution and p0, p1 its maximum-likelihood adjustments with expected score equal to the
scores of ELO0 and ELO1 (p_j = f_j / (1 + lambda (a_j - s)), lambda solving
sum_j p_j = 1). Empty outcome bins get a tiny pseudo-count (1e-3), as fishtest does, so the
LLR is defined from the first pair on. Bounds: lower = log(beta / (1 - alpha)), upper =
log((1 - beta) / alpha).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from statistics import NormalDist
from typing import Any

__all__ = ["PAIR_SCORES", "Z95", "EloEstimate", "Model", "Pentanomial", "Sprt", "SprtResult",
           "SprtState", "Trinomial", "elo_to_score", "estimate", "llr", "phi", "score_to_elo"]

#: the 97.5% quantile of the standard normal distribution (two-sided 95% interval)
_STANDARD_NORMAL = NormalDist()
Z95 = _STANDARD_NORMAL.inv_cdf(0.975)
#: below this many independent units (games or pairs) an estimate is flagged as a tiny sample
TINY_SAMPLE = 20
#: per-game score of a pair outcome LL, LD, DD|WL, WD, WW
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: pseudo-count of an empty outcome bin in the SPRT (fishtest's regularisation)
_PSEUDO = 1e-3


class Model(str, Enum):
    TRINOMIAL = "trinomial"
    PENTANOMIAL = "pentanomial"


def score_to_elo(score: float) -> float:
    """The logistic Elo difference that predicts an expected score of `score` (0..1) per game:
    +inf for a score of 1, -inf for 0. The one of cxarena (match statistics, the Bradley-Terry
    fit's pairs, the league)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score per game of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def phi(x: float) -> float:
    """Standard normal cumulative distribution function (the stdlib's `NormalDist`)."""
    return _STANDARD_NORMAL.cdf(x)


@dataclass(frozen=True)
class Trinomial:
    """Unpaired game results from one player's view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        if min(self.wins, self.draws, self.losses) < 0:
            raise ValueError(f"negative game count in W/D/L {self.wins}/{self.draws}/"
                             f"{self.losses}")

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    def outcomes(self) -> tuple[tuple[float, float], ...]:
        """(score per game, count) of each outcome."""
        return ((0.0, self.losses), (0.5, self.draws), (1.0, self.wins))

    def __add__(self, other: Trinomial) -> Trinomial:
        return Trinomial(self.wins + other.wins, self.draws + other.draws,
                         self.losses + other.losses)


@dataclass(frozen=True)
class Pentanomial:
    """Game-pair results from one player's view: how many pairs ended LL, LD, WL, DD, WD, WW.

    WL (one win, one loss) and DD both score 1/2 per game; they are kept apart for display
    (many WL pairs mean the openings decide the games) and merged in the statistics."""

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    def __post_init__(self) -> None:
        if min(self.ll, self.ld, self.wl, self.dd, self.wd, self.ww) < 0:
            raise ValueError("negative pair count")

    @property
    def n(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def outcomes(self) -> tuple[tuple[float, float], ...]:
        return ((0.0, self.ll), (0.25, self.ld), (0.5, self.wl + self.dd), (0.75, self.wd),
                (1.0, self.ww))

    def add_pair(self, first: float, second: float) -> Pentanomial:
        """This plus one pair whose two games scored `first` and `second` (1, 1/2 or 0)."""
        total = first + second
        key = {0.0: "ll", 0.5: "ld", 1.5: "wd", 2.0: "ww"}.get(total)
        if key is None:  # 1.0: WL or DD
            key = "dd" if first == 0.5 else "wl"
        d = self.as_dict()
        d[key] += 1
        return Pentanomial(**d)

    def as_dict(self) -> dict[str, int]:
        return {"ll": self.ll, "ld": self.ld, "wl": self.wl, "dd": self.dd, "wd": self.wd,
                "ww": self.ww}

    def trinomial(self) -> Trinomial:
        """The same games counted one by one."""
        return Trinomial(wins=self.wl + self.wd + 2 * self.ww,
                         draws=self.ld + 2 * self.dd + self.wd,
                         losses=2 * self.ll + self.ld + self.wl)

    def __str__(self) -> str:
        return (f"LL {self.ll}, LD {self.ld}, WL {self.wl}, DD {self.dd}, WD {self.wd}, "
                f"WW {self.ww}")


def _mean_var(outcomes: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    n = sum(c for _, c in outcomes)
    mean = sum(a * c for a, c in outcomes) / n
    var = sum(c * (a - mean) ** 2 for a, c in outcomes) / n
    return n, mean, var


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference from one player's view (see the module docstring).

    `elo` is nan and `lower`/`upper` are +-inf where no finite value exists (no games; a
    perfect or zero score; an interval reaching a score of 0 or 1); use `describe()` to print.
    `n` counts the independent units: games (trinomial) or pairs (pentanomial)."""

    model: Model
    n: int
    games: int
    score: float  # mean points per game (win 1, draw 1/2)
    elo: float
    lower: float  # 95% interval of the Elo difference
    upper: float
    los: float  # likelihood of superiority, 0..1
    nelo: float  # normalized Elo (nan when undefined)
    bound: float  # perfect / zero score: the one-sided 95% bound on Elo; else nan
    no_spread: bool = False  # every unit scored exactly 1/2 (interval from a binomial bound)
    record: str = ""  # the result in words ("6 won, 0 drawn, 0 lost"; "3 pairs, WW 3")

    @property
    def error(self) -> float:
        """Half the width of the 95% interval (fastchess's "+/-"), inf if unbounded."""
        return (self.upper - self.lower) / 2.0


    @property
    def tiny(self) -> bool:
        return self.n < TINY_SAMPLE

    @property
    def significant(self) -> bool:
        """The 95% interval excludes 0 (lies wholly above or wholly below it)."""
        return self.n > 0 and (self.lower > 0.0 or self.upper < 0.0)

    @property
    def lopsided(self) -> bool:
        """The interval excludes 0 but the estimate +/- its half width would reach across it."""
        return (self.significant and math.isfinite(self.elo) and math.isfinite(self.error)
                and self.elo - self.error < 0.0 < self.elo + self.error)

    def los_words(self) -> str:
        """The LOS with its reading (see the module docstring: the interval decides)."""
        los = f"LOS {100.0 * self.los:.1f} %"
        if self.significant:
            return f"{los} (significant: the 95% interval excludes 0)"
        return (f"{los} (not significant: the 95% interval includes 0, so the sample is too "
                f"small to tell who is stronger)")

    def describe(self) -> str:
        """One line for people: value +/- error, LOS, or a bound with its explanation."""
        unit = "pairs" if self.model is Model.PENTANOMIAL else "games"
        if self.n == 0:
            return "Elo difference: no games"
        los = self.los_words()
        if math.isnan(self.elo):
            if self.score >= 1.0:
                below = "" if self.lower > 0 else ", below 0"
                text = (f"Elo difference: at least {self.lower:+.0f} ({self.record}: every "
                        f"game won, so no finite estimate; {self.lower:+.0f} is the lower "
                        f"bound of its 95% interval{below}), {los}")
            else:
                above = "" if self.upper < 0 else ", above 0"
                text = (f"Elo difference: at most {self.upper:+.0f} ({self.record}: every "
                        f"game lost, so no finite estimate; {self.upper:+.0f} is the upper "
                        f"bound of its 95% interval{above}), {los}")
        elif math.isinf(self.error):
            if self.upper == math.inf and self.lower == -math.inf:
                rng = "the 95% interval is unbounded both ways"
            elif self.upper == math.inf:
                rng = (f"the 95% interval has no finite upper end and its lower bound is "
                       f"{self.lower:+.1f}")
            else:
                rng = (f"the 95% interval has no finite lower end and its upper bound is "
                       f"{self.upper:+.1f}")
            text = (f"Elo difference: {self.elo + 0.0:+.1f} ({self.record}: too few results to "
                    f"bound it; {rng}), {los}")
        else:
            text = (f"Elo difference: {self.elo + 0.0:+.1f} +/- {self.error:.1f} (95% interval "
                    f"{self.lower:+.1f} .. {self.upper:+.1f}), {los}")
            if self.lopsided:
                text = text[:-1] + (f"; the interval is not symmetric: {self.elo + 0.0:+.1f} "
                                    f"+/- {self.error:.1f} would reach across 0, its ends "
                                    f"do not)")
            if self.no_spread:
                text += (f" (every one of the {unit} scored exactly 1/2: the interval is the "
                         f"exact bound on how often one could have differed)")
        text += f" [{self.model.value}, {self.n} {unit if self.n != 1 else unit[:-1]}]"
        if self.tiny:
            text += f" (tiny sample: under {TINY_SAMPLE} {unit}, treat as a rough guide)"
        return text


def _one_sided_bound(n: int) -> float:
    """Elo bound for a result seen in all of n independent units (exact binomial, 95%)."""
    return score_to_elo(0.05 ** (1.0 / n))


Outcomes = list[tuple[float, float]]


def _wald(outcomes: Outcomes) -> tuple[float, float, float, float] | None:
    """fastchess's normal ("Wald") figures of a sample whose units do not all score the same:
    (score, lower score, upper score, LOS), the bounds clipped to 0 and 1; None for a sample
    without spread."""
    n, score, var = _mean_var(outcomes)
    sd_mean = math.sqrt(var / n)
    if sd_mean == 0.0:
        return None
    return (score, max(0.0, score - Z95 * sd_mean), min(1.0, score + Z95 * sd_mean),
            phi((score - 0.5) / sd_mean))


def _moved(outcomes: Outcomes, j: int, step: int) -> Outcomes:
    """`outcomes` with one unit moved from outcome j to outcome j + step."""
    out = list(outcomes)
    out[j] = (out[j][0], out[j][1] - 1)
    out[j + step] = (out[j + step][0], out[j + step][1] + 1)
    return out


def _constant(outcomes: Outcomes) -> tuple[float, float, float]:
    """(lower score, upper score, LOS) of a sample whose n units all scored the same `a`, where
    the normal model has no spread. Alone: at 95% at most q = 1 - 0.05**(1/n) of the units
    could have gone otherwise (exact binomial bound), to 0 or to 1, giving a*(1-q) .. a + (1-a)q;
    LOS 1/2 + (a - 1/2)(1 - 2**-n) (a perfect score: the exact 1 - 2**-(n+1) of a uniform prior
    on the win rate). Then made consistent with the nearest records: never below the figures
    of the sample with one unit one outcome worse, never above those of the sample with one
    unit one outcome better (so a better record never gets a weaker bound)."""
    j = next(i for i, (_, c) in enumerate(outcomes) if c)
    a, n = outcomes[j][0], outcomes[j][1]
    q = 1.0 - 0.05 ** (1.0 / n)
    lower, upper = a * (1.0 - q), a + (1.0 - a) * q
    los = 0.5 + (a - 0.5) * (1.0 - 0.5 ** n)
    if n >= 2 and j > 0 and a > 0.5 - 1e-12:  # the record one step worse
        below = _wald(_moved(outcomes, j, -1))
        if below is not None:
            lower = max(lower, below[1])
            los = max(los, below[3]) if a > 0.5 else los
    if n >= 2 and j < len(outcomes) - 1 and a < 0.5 + 1e-12:  # one step better
        above = _wald(_moved(outcomes, j, +1))
        if above is not None:
            upper = min(upper, above[2])
            los = min(los, above[3]) if a < 0.5 else los
    return lower, upper, los


def _elo_or_inf(score: float) -> float:
    return math.inf if score >= 1.0 else -math.inf if score <= 0.0 else score_to_elo(score)


#: the most units (games; pairs) whose figures are made monotone over every record of their
#: size (`_envelope`); bigger samples keep fastchess's figures (there the normal model's
#: departures from monotonicity are a fraction of an Elo point)
ENVELOPE_GAMES = 400
ENVELOPE_PAIRS = 40


@functools.lru_cache(maxsize=16)
def _records(scores: tuple[float, ...], n: int) -> tuple[Any, Any, Any, Any, Any]:
    """Every record of n units over outcomes `scores` (ascending), with each one's own figures:
    (tail sums, lower score, upper score, LOS, mean score). Own figures: fastchess's normal
    ones where the units' scores spread, else those of `_constant` alone."""
    import numpy as np  # here: importing arena.results must not cost numpy's start-up
    k = len(scores)
    m = n + k - 1
    # each record as its k-1 bars among m places (stars and bars), read by numpy in one go
    bars = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(m), k - 1)),
                       dtype=np.int64).reshape(-1, k - 1)
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), m)])
    counts = (np.diff(edges, axis=1) - 1).astype(float)
    a = np.array(scores)
    mean = counts @ a / n
    var = np.maximum(counts @ (a * a) / n - mean * mean, 0.0)
    sd = np.sqrt(var / n)
    spread = sd > 1e-12
    safe = np.where(spread, sd, 1.0)
    q = 1.0 - 0.05 ** (1.0 / n)
    lower = np.where(spread, np.clip(mean - Z95 * sd, 0.0, 1.0), mean * (1.0 - q))
    upper = np.where(spread, np.clip(mean + Z95 * sd, 0.0, 1.0), mean + (1.0 - mean) * q)
    z = (mean - 0.5) / safe
    # the normal CDF once per distinct z (records of one mean and spread share theirs)
    distinct, where = np.unique(z, return_inverse=True)
    los = np.where(spread, np.array([phi(float(x)) for x in distinct])[where],
                   0.5 + (mean - 0.5) * (1.0 - 0.5 ** n))
    tails = np.cumsum(counts[:, ::-1], axis=1)[:, :-1]  # units scoring >= each outcome
    return tails, lower, upper, los, mean


def _envelope(outcomes: Outcomes) -> tuple[float, float, float]:
    """(lower score, upper score, LOS) made monotone, the cautious way: the lower bound is the
    lowest of any record of the same size that is nowhere worse (each unit's outcome at least
    this one's), the upper bound the highest of any record nowhere better; the LOS halfway
    between the highest of the worse records' and the lowest of the better ones'. A better
    record thus never gets a weaker bound or LOS than a worse one, and a near-perfect record
    is bounded no more boldly than the perfect one (whose bound is the exact binomial one)."""
    import numpy as np  # here: importing arena.results must not cost numpy's start-up
    scores = tuple(a for a, _ in outcomes)
    counts = [c for _, c in outcomes]
    n = int(sum(counts))
    tails, lower, upper, los, _ = _records(scores, n)
    mine = np.cumsum(np.array(counts[::-1], dtype=float))[:-1]
    worse = np.all(tails <= mine + 0.5, axis=1)
    better = np.all(tails >= mine - 0.5, axis=1)
    # LOS: halfway between the highest of the worse records and the lowest of the better
    # ones (both monotone), so that the two players' LOS of one match add up to 1
    los_mid = 0.5 * (float(los[worse].max()) + float(los[better].min()))
    return float(lower[better].min()), float(upper[worse].max()), los_mid


def estimate(result: Trinomial | Pentanomial) -> EloEstimate:
    """Elo difference, 95% interval and LOS of `result` (trinomial or pentanomial model).

    fastchess's normal figures where the units' scores spread; exact binomial ones where they
    do not (a perfect or zero score, every unit 1/2, ...); on samples of up to ENVELOPE_GAMES
    games (ENVELOPE_PAIRS pairs) both made monotone (`_envelope`): a better record never gets a
    lower bound or LOS below a worse one's, and no near-perfect record a bolder bound than the
    perfect score's exact one."""
    model = Model.PENTANOMIAL if isinstance(result, Pentanomial) else Model.TRINOMIAL
    games = 2 * result.n if model is Model.PENTANOMIAL else result.n
    nan = math.nan
    if result.n == 0:
        return EloEstimate(model, 0, 0, 0.5, nan, -math.inf, math.inf, 0.5, nan, nan)
    outcomes: Outcomes = [(a, float(c)) for a, c in result.outcomes()]
    n, score, var = _mean_var(outcomes)
    wald = _wald(outcomes)
    record = _record_words(result)
    if wald is None:
        lo, hi, los = _constant(outcomes)
        nelo = 0.0 if score == 0.5 else nan
    else:
        _, lo, hi, los = wald
        # per-game standard deviation: a pair holds two games
        sd_game = math.sqrt(2.0 * var) if model is Model.PENTANOMIAL else math.sqrt(var)
        nelo = (score - 0.5) / sd_game * (800.0 / math.log(10.0))
    if result.n <= (ENVELOPE_PAIRS if model is Model.PENTANOMIAL else ENVELOPE_GAMES):
        lo, hi, los = _envelope(outcomes)
    los = _agreeing_los(los, lo, hi)
    lower, upper = _elo_or_inf(lo), _elo_or_inf(hi)
    if score >= 1.0 or score <= 0.0:
        bound = lower if score >= 1.0 else upper
        return EloEstimate(model, result.n, games, score, nan, lower, upper, los, nan, bound,
                           record=record)
    return EloEstimate(model, result.n, games, score, score_to_elo(score), lower, upper, los,
                       nelo, nan, no_spread=wald is None and score == 0.5, record=record)


#: the LOS at the edge of the two-sided 95% interval (Phi(1.959964))
_LOS_EDGE = 0.975


def _agreeing_los(los: float, lower: float, upper: float) -> float:
    """`los` clipped into the range its score interval `lower` .. `upper` allows: at least
    97.5 % when the interval lies above 1/2, at most 2.5 % when below, else in between (the
    module docstring). Monotone in the record, and symmetric between the two players."""
    if lower > 0.5:
        return max(los, _LOS_EDGE)
    if upper < 0.5:
        return min(los, 1.0 - _LOS_EDGE)
    return min(max(los, 1.0 - _LOS_EDGE), _LOS_EDGE)


def _record_words(result: Trinomial | Pentanomial) -> str:
    """The result in words: "6 won, 1 drawn, 0 lost" or "3 pairs, WW 2, WD 1"."""
    if isinstance(result, Trinomial):
        return f"{result.wins} won, {result.draws} drawn, {result.losses} lost"
    parts = [f"{k.upper()} {v}" for k, v in reversed(result.as_dict().items()) if v]
    return f"{result.n} pair{'s' if result.n != 1 else ''}, {', '.join(parts)}"


# ----------------------------------------------------------------------------------- SPRT
def _mle(freq: Sequence[float], scores: Sequence[float], s: float) -> list[float]:
    """The distribution nearest `freq` (max likelihood) whose expected score is `s`."""
    d = [a - s for a in scores]
    dmax, dmin = max(d), min(d)
    if dmax <= 0.0 or dmin >= 0.0:  # s outside the support's range: put mass at the end
        raise ValueError(f"score {s} outside the outcomes' range")
    lo, hi = -1.0 / dmax, -1.0 / dmin  # lambda keeps every 1 + lambda d_j > 0
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def g(lam: float) -> float:  # decreasing in lambda; its root is the MLE
        return sum(f * dj / (1.0 + lam * dj) for f, dj in zip(freq, d, strict=True))

    lam = 0.0
    for _ in range(100):
        val = g(lam)
        if val > 0.0:
            lo = lam
        else:
            hi = lam
        deriv = -sum(f * dj * dj / (1.0 + lam * dj) ** 2 for f, dj in zip(freq, d, strict=True))
        nxt = lam - val / deriv if deriv < 0.0 else (lo + hi) / 2.0
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2.0
        if abs(nxt - lam) < 1e-14 * max(1.0, abs(lam)):
            lam = nxt
            break
        lam = nxt
    return [f / (1.0 + lam * dj) for f, dj in zip(freq, d, strict=True)]


def llr(result: Trinomial | Pentanomial, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0)."""
    outcomes = result.outcomes()
    if result.n == 0:
        return 0.0
    counts = [c if c > 0 else _PSEUDO for _, c in outcomes]
    total = sum(counts)
    freq = [c / total for c in counts]
    scores = [a for a, _ in outcomes]
    p0 = _mle(freq, scores, elo_to_score(elo0))
    p1 = _mle(freq, scores, elo_to_score(elo1))
    return total * sum(f * math.log(b / a) for f, a, b in zip(freq, p0, p1, strict=True))


class SprtResult(str, Enum):
    CONTINUE = "continue"
    H0 = "H0"  # accepted: not better by elo1 (Elo <= elo0)
    H1 = "H1"  # accepted: better by at least elo1


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    result: SprtResult


@dataclass(frozen=True)
class Sprt:
    """An SPRT of H0: Elo = elo0 against H1: Elo = elo1 (logistic Elo, elo0 < elo1)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"the SPRT needs ELO0 < ELO1, got {self.elo0:g} and {self.elo1:g}")
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise ValueError(f"alpha and beta must be between 0 and 0.5, got {self.alpha:g} "
                             f"and {self.beta:g}")
        for e in (self.elo0, self.elo1):
            if not -1000.0 < e < 1000.0:
                raise ValueError(f"SPRT Elo bound {e:g} is outside -1000 .. 1000")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def state(self, result: Trinomial | Pentanomial) -> SprtState:
        value = llr(result, self.elo0, self.elo1)
        if value >= self.upper:
            verdict = SprtResult.H1
        elif value <= self.lower:
            verdict = SprtResult.H0
        else:
            verdict = SprtResult.CONTINUE
        return SprtState(value, self.lower, self.upper, verdict)

    def describe(self) -> str:
        return (f"SPRT (GSPRT, pentanomial, logistic Elo) H0: Elo <= {self.elo0:g}, H1: Elo >= "
                f"{self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}, LLR bounds "
                f"{self.lower:.2f} .. {self.upper:.2f}")
