"""Issue #33: the Elo bounds and LOS of `arena.results.stats.estimate` never contradict each
other: for the same number of games (pairs), a better record never gets a lower bound or a LOS
below a worse record's, the perfect score included, in both models; and the words say what a
perfect score's figure is."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.results.stats import Pentanomial, Trinomial, estimate

PAIR_KEYS = ("ll", "ld", "dd", "wd", "ww")  # worst to best (WL scores like DD)


def _no_weaker(worse: Trinomial | Pentanomial, better: Trinomial | Pentanomial) -> None:
    a, b = estimate(worse), estimate(better)
    assert b.lower >= a.lower - 1e-9, (worse, better, a.describe(), b.describe())
    assert b.los >= a.los - 1e-12, (worse, better, a.describe(), b.describe())


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(1, 60),
       st.sampled_from(["win", "draw", "draw to win"]))
def test_trinomial_a_better_record_never_gets_a_weaker_bound(wins: int, draws: int,
                                                             losses: int, how: str) -> None:
    worse = Trinomial(wins, draws, losses) if how != "draw to win" else Trinomial(
        wins, draws + 1, losses - 1)
    if how == "win":  # a loss becomes a win
        better = Trinomial(wins + 1, draws, losses - 1)
    elif how == "draw":  # a loss becomes a draw
        better = Trinomial(wins, draws + 1, losses - 1)
    else:  # a draw becomes a win
        better = Trinomial(wins + 1, draws, losses - 1)
    _no_weaker(worse, better)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=5, max_size=5), st.integers(0, 3))
def test_pentanomial_a_better_pair_never_gets_a_weaker_bound(counts: list[int],
                                                             step: int) -> None:
    if counts[step] == 0:
        counts[step] = 1
    better = list(counts)
    better[step] -= 1
    better[step + 1] += 1
    _no_weaker(Pentanomial(**dict(zip(PAIR_KEYS, counts, strict=True))),
               Pentanomial(**dict(zip(PAIR_KEYS, better, strict=True))))


def test_the_cases_of_the_issue_agree() -> None:
    perfect = estimate(Pentanomial(ww=3))  # mcts - L0, 6-0 in 3 pairs
    near = estimate(Pentanomial(ww=2, wd=1))  # mcts - L1, 5 wins and 1 draw
    assert perfect.lower >= near.lower and perfect.los >= near.los
    assert math.isfinite(near.lower)  # not "unbounded": the interval's lower end is known
    text = perfect.describe()
    assert "every game won, so no finite estimate" in text
    assert f"{perfect.lower:+.0f} is the lower bound of its 95% interval" in text
    assert "3 pairs, WW 3" in text
    # one pair won twice (a 2-0 Othello match) says less than three
    one = estimate(Pentanomial(ww=1))
    assert one.lower <= perfect.lower and one.los <= perfect.los
    assert "lower bound is" in near.describe() and "unbounded" not in near.describe()
    # the same games counted one by one agree too
    assert estimate(Trinomial(6)).lower >= estimate(Trinomial(5, 1)).lower > 0
    assert estimate(Trinomial(6)).los >= estimate(Trinomial(5, 1)).los
    # the two players' LOS of one match add up to 1
    assert estimate(Trinomial(6)).los + estimate(Trinomial(0, 0, 6)).los == 1.0


def test_ordinary_results_keep_fastchess_figures() -> None:
    e = estimate(Trinomial(wins=136, draws=111, losses=96))
    assert round(e.elo, 2) == 40.70 and round(e.error, 2) == 30.43
    assert round(100 * e.los, 2) == 99.60
