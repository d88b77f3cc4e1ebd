"""Match statistics: fastchess cross-checks, bounds instead of infinities, SPRT error rates."""

from __future__ import annotations

import math
import random

import pytest

from arena.results.stats import (
    Pentanomial,
    Sprt,
    SprtResult,
    Trinomial,
    elo_to_score,
    estimate,
    llr,
    score_to_elo,
)


def test_trinomial_matches_fastchess() -> None:
    e = estimate(Trinomial(wins=136, draws=111, losses=96))
    assert e.elo == pytest.approx(40.70, abs=0.005)
    assert e.error == pytest.approx(30.43, abs=0.005)
    assert 100 * e.los == pytest.approx(99.60, abs=0.005)
    assert e.games == 343


def test_pentanomial_matches_fastchess() -> None:
    e = estimate(Pentanomial(ll=34, ld=54, wl=31, dd=32, wd=64, ww=75))
    assert e.elo == pytest.approx(55.58, abs=0.005)
    assert e.error == pytest.approx(27.65, abs=0.005)
    assert e.n == 290 and e.games == 580


def test_pentanomial_is_symmetric() -> None:
    a = estimate(Pentanomial(1, 2, 3, 4, 5, 6))
    b = estimate(Pentanomial(6, 5, 4, 3, 2, 1))
    assert a.elo == pytest.approx(-b.elo)
    assert a.error == pytest.approx(b.error)
    assert a.los == pytest.approx(1 - b.los)


def test_pairs_of_lopsided_openings_are_not_evidence() -> None:
    # every pair WL: the opening decides each game; the pairs say nothing about strength
    e = estimate(Pentanomial(wl=20))
    assert e.elo == 0.0 and e.los == 0.5
    # no spread: the interval is the exact bound, not a zero width
    assert e.upper == pytest.approx(score_to_elo(0.5 + 0.5 * (1 - 0.05 ** (1 / 20))))
    assert 40 < e.error < 60 and "exactly 1/2" in e.describe()
    # the same games counted as independent games claim a wide, "informative" spread
    t = estimate(Pentanomial(wl=20).trinomial())
    assert t.elo == 0.0 and t.error > 100


def test_perfect_score_is_a_bound_not_inf() -> None:
    e = estimate(Trinomial(wins=3))
    text = e.describe()
    assert "inf" not in text
    assert "at least" in text and "tiny sample" in text
    # the bound is the exact one-sided binomial bound: score 0.05**(1/3)
    assert e.bound == pytest.approx(score_to_elo(0.05 ** (1 / 3)))
    lost = estimate(Pentanomial(ll=30))
    assert "at most" in lost.describe() and "tiny" not in lost.describe()
    assert lost.bound == pytest.approx(-score_to_elo(0.05 ** (1 / 30)))


def test_no_games_and_unbounded_interval_read_plainly() -> None:
    assert estimate(Trinomial()).describe() == "Elo difference: no games"
    text = estimate(Trinomial(wins=3, losses=2)).describe()
    assert "inf" not in text and "too few results" in text


def test_add_pair_classifies() -> None:
    p = Pentanomial()
    for a, b in ((1, 0), (0, 1), (0.5, 0.5), (1, 1), (0, 0), (1, 0.5), (0, 0.5)):
        p = p.add_pair(a, b)
    assert p == Pentanomial(ll=1, ld=1, wl=2, dd=1, wd=1, ww=1)
    assert p.trinomial() == Trinomial(wins=5, draws=4, losses=5)


def test_llr_sign_and_zero() -> None:
    assert llr(Pentanomial(), 0, 10) == 0.0
    good = Pentanomial(ll=5, ld=10, dd=20, wd=20, ww=15)
    assert llr(good, 0, 20) > 0
    assert llr(Pentanomial(ll=15, ld=20, dd=20, wd=10, ww=5), 0, 20) < 0
    # the ratio of one hypothesis against itself is 0
    assert llr(good, 10, 10) == pytest.approx(0.0, abs=1e-9)


def test_sprt_bounds() -> None:
    s = Sprt(0, 20, alpha=0.05, beta=0.05)
    assert s.lower == pytest.approx(math.log(0.05 / 0.95))
    assert s.upper == pytest.approx(math.log(0.95 / 0.05))
    with pytest.raises(ValueError):
        Sprt(10, 5)
    with pytest.raises(ValueError):
        Sprt(0, 5, alpha=0.7)


def _pair_sampler(elo: float, draw_ratio: float, rng: random.Random):
    """Pairs of independent games with expected score elo_to_score(elo) per game."""
    s = elo_to_score(elo)
    w = s - draw_ratio / 2
    assert 0 < w < 1 - draw_ratio

    def game() -> float:
        u = rng.random()
        return 1.0 if u < w else (0.5 if u < w + draw_ratio else 0.0)

    return lambda: (game(), game())


def _run_sprt(sprt: Sprt, elo: float, seed: int, max_pairs: int = 4000) -> SprtResult:
    rng = random.Random(seed)
    draw = _pair_sampler(elo, 0.3, rng)
    p = Pentanomial()
    for i in range(1, max_pairs + 1):
        p = p.add_pair(*draw())
        if i % 4 == 0:
            st = sprt.state(p)
            if st.result is not SprtResult.CONTINUE:
                return st.result
    return SprtResult.CONTINUE


@pytest.mark.parametrize(("true_elo", "wrong", "rate"), [(0.0, SprtResult.H1, "alpha"),
                                                         (60.0, SprtResult.H0, "beta")])
def test_sprt_error_rates_by_simulation(true_elo: float, wrong: SprtResult, rate: str) -> None:
    sprt = Sprt(0, 60, alpha=0.05, beta=0.05)
    runs = 300
    results = [_run_sprt(sprt, true_elo, seed) for seed in range(runs)]
    wrong_share = sum(r is wrong for r in results) / runs
    undecided = sum(r is SprtResult.CONTINUE for r in results)
    # 0.05 plus three binomial standard deviations of 300 runs (0.013): a real error rate of
    # 0.05 passes with probability > 99.8 %, a broken test (wrong sign, no bounds) fails
    assert wrong_share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs), (rate, wrong_share)
    assert undecided == 0
