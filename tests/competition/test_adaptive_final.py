"""The adaptive final's policy (`arena.competition.adaptive_final`): its floor, its bounds (never
past the full round robin, never past its budget, always ending), and its decisions."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition.adaptive_final import AdaptiveFinal, FinalGame, Goal, Tally
from arena.results.standings import POINTS_DRAW, POINTS_WIN


def _play(policy: AdaptiveFinal, tally: Tally, outcome: object,
          max_steps: int = 10_000) -> tuple[Tally, list[FinalGame], int]:
    """Run the policy to its end, each game's score from `outcome(game)`; (last tally, every
    game, steps)."""
    played: list[FinalGame] = []
    for steps in range(1, max_steps + 1):
        step = policy.step(tally)
        if step.over:
            return tally, played, steps
        assert step.games, "a step that is not over names games (nothing is in flight here)"
        played += step.games
        tally = tally.add([(g.first, g.second, g.board, outcome(g))  # type: ignore[operator]
                           for g in step.games])
    raise AssertionError("the policy did not end")


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), boards=st.integers(1, 3), rounds=st.integers(1, 2),
       fraction=st.sampled_from([0.05, 0.3, 1.0]), top_k=st.sampled_from([None, 1, 2]),
       seed=st.integers(0, 10_000))
def test_floor_met_never_past_the_full_round_robin_and_it_ends(
        n: int, boards: int, rounds: int, fraction: float, top_k: int | None,
        seed: int) -> None:
    entries = [f"e{i}" for i in range(n)]
    names = [f"b{k}" for k in range(boards)]
    rng = random.Random(seed)
    strength = {e: rng.gauss(0, 1) for e in entries}

    def outcome(g: FinalGame) -> float:
        d = strength[g.first] - strength[g.second]
        r = rng.random()
        return 1.0 if r < 0.45 + 0.2 * d else 0.5 if r < 0.55 + 0.2 * d else 0.0

    policy = AdaptiveFinal(Goal(rounds=rounds, max_fraction=fraction, top_k=top_k, seed=seed))
    tally, played, _ = _play(policy, Tally(entries, names), outcome)
    count = Counter((g.first, g.second, g.board) for g in played)
    full = n * (n - 1) * boards * rounds
    assert tally.games == len(played) <= full == policy.full_games(tally)
    assert all(c <= rounds and g[0] != g[1] for g, c in count.items())
    # the floor: every entry on every board, once with each colour
    for e in entries:
        for b in names:
            assert any(g.first == e and g.board == b for g in played)
            assert any(g.second == e and g.board == b for g in played)
    # the budget: at most its share of the full round robin, unless the floor needs more
    assert len(played) <= max(policy.budget(tally), 2 * n * boards)


def test_a_clear_order_is_decided_with_few_games_and_is_the_strength_order() -> None:
    entries = [f"e{i}" for i in range(8)]
    boards = [f"b{k}" for k in range(6)]
    rng = random.Random(1)
    elo = {e: 300.0 * i for i, e in enumerate(entries)}  # e7 best, by far

    def outcome(g: FinalGame) -> float:
        p = 1 / (1 + 10 ** ((elo[g.second] - elo[g.first]) / 400))
        return 1.0 if rng.random() < p else 0.0

    policy = AdaptiveFinal(Goal(confidence=0.95))
    tally, played, _ = _play(policy, Tally(entries, boards), outcome)
    step = policy.step(tally)
    assert step.over and step.why == "decided"
    assert step.ranking.order == tuple(reversed(entries))
    assert step.ranking.ties() == () and step.ranking.text() == "every place decided"
    assert len(played) < 0.5 * policy.full_games(tally)


def test_at_the_full_round_robin_the_order_is_its_points() -> None:
    """Every game played: the expected totals are the standings' points, exactly."""
    entries = ["a", "b", "c"]
    boards = ["x"]
    results = [("a", "b", "x", 1.0), ("b", "a", "x", 0.5), ("a", "c", "x", 0.5),
               ("c", "a", "x", 0.5), ("b", "c", "x", 1.0), ("c", "b", "x", 1.0)]
    tally = Tally(entries, boards, results)
    step = AdaptiveFinal().step(tally)
    assert step.over and not step.games
    points = tally.points()
    assert points == {"a": POINTS_WIN + 3 * POINTS_DRAW, "b": POINTS_WIN + POINTS_DRAW,
                      "c": POINTS_WIN + 2 * POINTS_DRAW}
    assert step.ranking.order == ("a", "c", "b")
    assert step.ranking.expected == pytest.approx(tuple(points[e] for e in ("a", "c", "b")))


def test_equal_entries_are_ties_when_the_budget_is_spent() -> None:
    entries = [f"e{i}" for i in range(6)]
    boards = ["b0", "b1"]
    policy = AdaptiveFinal(Goal(max_fraction=0.5))
    tally, played, _ = _play(policy, Tally(entries, boards), lambda g: 0.5)
    step = policy.step(tally)
    assert step.over and step.why == "the budget is spent"
    assert step.ranking.ties() == ((1, 6),)
    assert "places 1-6" in step.ranking.text()
    assert len(played) <= policy.budget(tally)


def test_games_in_flight_count_and_the_end_waits_for_them() -> None:
    entries = ["a", "b"]
    boards = ["x"]
    policy = AdaptiveFinal()
    first = policy.step(Tally(entries, boards))
    assert first.why == "floor"
    assert Counter((g.first, g.second) for g in first.games) == {("a", "b"): 1, ("b", "a"): 1}
    busy = Tally(entries, boards, pending=[(g.first, g.second, g.board) for g in first.games])
    # both games of the full round robin are in flight: nothing more, and not over
    step = policy.step(busy)
    assert step.games == () and not step.over and step.why == "waiting"
    done = busy.done([("a", "b", "x", 1.0), ("b", "a", "x", 0.0)])
    assert done.in_flight == 0 and done.games == 2
    assert policy.step(done).over
    with pytest.raises(ValueError, match="not in flight"):
        done.done([("a", "b", "x", 1.0)])


def test_top_k_decides_only_the_first_places() -> None:
    entries = [f"e{i}" for i in range(10)]
    boards = ["b0", "b1", "b2"]
    # e9 far ahead; the others equal: the top 1 is decided, the rest never asked about
    elo = {e: 0.0 for e in entries} | {"e9": 2000.0}
    rng = random.Random(3)

    def outcome(g: FinalGame) -> float:
        p = 1 / (1 + 10 ** ((elo[g.second] - elo[g.first]) / 400))
        return 1.0 if rng.random() < p else 0.0 if rng.random() < 0.9 else 0.5

    policy = AdaptiveFinal(Goal(top_k=1))
    tally, played, _ = _play(policy, Tally(entries, boards), outcome)
    step = policy.step(tally)
    assert step.why == "decided" and step.ranking.order[0] == "e9"
    assert step.ranking.pairs[0] == "decided" and set(step.ranking.pairs[1:]) == {"free"}
    assert len(played) < 0.5 * policy.full_games(tally)


@pytest.mark.parametrize("kwargs", [{"confidence": 0.5}, {"confidence": 1.0}, {"top_k": 0},
                                    {"rounds": 0}, {"max_fraction": 0.0},
                                    {"max_fraction": 1.5}, {"tie_elo": -1.0}])
def test_a_goal_that_cannot_be_is_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Goal(**kwargs)  # type: ignore[arg-type]


def test_a_tally_refuses_what_cannot_be() -> None:
    with pytest.raises(ValueError):
        Tally(["a", "a"], ["x"])
    with pytest.raises(ValueError):
        Tally(["a", "b"], ["x"], [("a", "a", "x", 1.0)])
    with pytest.raises(ValueError):
        Tally(["a", "b"], ["x"], [("a", "b", "x", 2.0)])
