"""Elo arithmetic: fastchess's published match summary and the tournament rating fit."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.results.elo import elo_difference, fit_ratings, score_to_elo


def test_fastchess_published_values() -> None:
    d = elo_difference(136, 96, 111)
    assert f"{d.elo:.2f}" == "40.70"
    assert f"{d.error:.2f}" == "30.43"
    assert f"{100 * d.los:.2f}" == "99.60"
    assert d.games == 343
    assert "+40.70 +/- 30.43" in str(d)


def test_symmetry_and_even_match() -> None:
    a, b = elo_difference(30, 20, 10), elo_difference(20, 30, 10)
    assert a.elo == pytest.approx(-b.elo)
    assert a.error == pytest.approx(b.error)
    assert a.los == pytest.approx(1 - b.los)
    even = elo_difference(10, 10, 5)
    assert even.elo == 0.0 and even.los == pytest.approx(0.5)


def test_degenerate_results() -> None:
    assert elo_difference(0, 0, 0).error == math.inf
    allwin = elo_difference(5, 0, 0)
    assert allwin.elo == math.inf and allwin.error == math.inf and allwin.los == 1.0
    draws = elo_difference(0, 0, 7)
    assert draws.elo == 0.0 and draws.los == 0.5
    with pytest.raises(ValueError):
        elo_difference(-1, 0, 0)


@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 500))
def test_los_and_sign_agree(w: int, l: int, d: int) -> None:
    r = elo_difference(w, l, d)
    assert 0.0 <= r.los <= 1.0
    if w > l:
        assert r.elo > 0 and r.los > 0.5
    elif w < l:
        assert r.elo < 0 and r.los < 0.5
    assert r.error >= 0


def test_score_to_elo() -> None:
    assert score_to_elo(0.5) == 0.0
    assert score_to_elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


def _simulate(strengths: dict[str, float], games_per_pair: int, draw_rate: float,
              seed: int) -> list[tuple[str, str, float]]:
    rng = random.Random(seed)
    names = list(strengths)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
            for _ in range(games_per_pair):
                # draws are likelier between close players; the expected score stays p
                pd = draw_rate * 2 * min(p, 1 - p)
                u = rng.random()
                out.append((a, b, 1.0 if u < p - pd / 2 else 0.5 if u < p + pd / 2 else 0.0))
    return out


def test_fit_recovers_known_strengths() -> None:
    truth = {"a": -300.0, "b": -100.0, "c": 0.0, "d": 150.0, "e": 250.0}
    games = _simulate(truth, games_per_pair=1500, draw_rate=0.2, seed=1)
    r = fit_ratings(list(truth), games)
    fitted = r.as_dict()
    assert sorted(truth, key=lambda p: fitted[p][0]) == ["a", "b", "c", "d", "e"]
    assert sum(r.elo) == pytest.approx(0.0, abs=1e-6)
    for p in truth:  # true ratings centred on their mean
        true_centred = truth[p] - sum(truth.values()) / len(truth)
        elo, err = fitted[p]
        assert 0 < err < 40
        assert abs(elo - true_centred) < max(25.0, 1.5 * err)


def test_fit_interval_covers_truth_most_of_the_time() -> None:
    truth = {"x": -80.0, "y": 0.0, "z": 80.0}
    hits = total = 0
    for seed in range(40):
        fitted = fit_ratings(list(truth), _simulate(truth, 120, 0.3, seed)).as_dict()
        for p, t in truth.items():
            elo, err = fitted[p]
            hits += abs(elo - t) <= err
            total += 1
    assert 0.85 <= hits / total <= 1.0


def test_fit_all_wins_is_finite_and_ordered() -> None:
    games = [("strong", "weak", 1.0)] * 50 + [("strong", "mid", 1.0)] * 50 \
        + [("mid", "weak", 1.0)] * 50
    r = fit_ratings(["weak", "mid", "strong"], games).as_dict()
    assert all(math.isfinite(e) and math.isfinite(c) for e, c in r.values())
    assert r["strong"][0] > r["mid"][0] > r["weak"][0]


def test_fit_players_who_never_met_and_no_games() -> None:
    r = fit_ratings(["a", "b", "c"], [("a", "b", 1.0)] * 10)
    assert all(math.isfinite(x) for x in r.elo + r.error)
    assert fit_ratings(["a", "b"], []).elo == (0.0, 0.0)
    with pytest.raises(ValueError):
        fit_ratings(["a", "a"], [])
