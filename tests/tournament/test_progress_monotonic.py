"""The progress bar's fraction never goes down (issue 42, point 10: "45 % 15/60 -> 44 %
16/60"): it is weighed by each game's expected cost, and a finished game's measured time may
raise the estimate of the games left, but what the bar shows only grows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition.progress import Progress

#: a run of 60 games: 10 on a big board, 50 on two small ones (prior cost: cells x 1 s)
PLAN = [("50x50x10", 2500.0)] * 10 + [("6x7x4", 42.0)] * 25 + [("4x4x4", 16.0)] * 25


def shown(progress: Progress, finished: list[tuple[str, float]]) -> list[float]:
    """The fraction after each game of `finished` (board, measured seconds) is done."""
    fractions = [progress.fraction()]
    for key, duration_s in finished:
        progress = progress.finish(key, duration_s, think_s=duration_s * 0.9)
        fractions.append(progress.fraction())
    return fractions


def test_a_slow_small_board_does_not_take_the_bar_back() -> None:
    """The big games end fast (a bot that wins early), then the small games turn out slow: each
    small game's time raises the estimate of the small games left."""
    finished = ([("50x50x10", 2.0)] * 10 + [("6x7x4", 0.5)] * 5
                + [("6x7x4", 8.0 + i) for i in range(20)] + [("4x4x4", 3.0)] * 25)
    fractions = shown(Progress.plan(PLAN), finished)
    assert all(b >= a for a, b in zip(fractions, fractions[1:], strict=False)), fractions
    assert fractions[0] == 0.0 and fractions[-1] == 1.0


def test_the_raw_estimate_does_go_down_in_that_run() -> None:
    """What the test above guards against really happens to the estimate itself: the time
    left grows by more than the game done."""
    p = Progress.plan(PLAN)
    for _ in range(10):
        p = p.finish("50x50x10", 2.0, think_s=1.8)
    for _ in range(5):
        p = p.finish("6x7x4", 0.5, think_s=0.45)
    left_before = p.eta_s(100.0)
    after = p.finish("6x7x4", 30.0, think_s=27.0)
    assert left_before is not None and (after.eta_s(100.0) or 0.0) > left_before


games = st.lists(st.tuples(st.sampled_from(["50x50x10", "6x7x4", "4x4x4"]),
                           st.one_of(st.none(), st.floats(0.01, 100.0))), max_size=60)


@settings(max_examples=200, deadline=None)
@given(games)
def test_the_fraction_never_goes_down(order: list[tuple[str, float | None]]) -> None:
    p = Progress.plan(PLAN)
    last = p.fraction()
    left = {"50x50x10": 10, "6x7x4": 25, "4x4x4": 25}
    for key, duration_s in order:
        if not left[key]:
            continue
        left[key] -= 1
        p = p.finish(key, duration_s)
        now = p.fraction()
        assert now >= last
        last = now
    if not any(left.values()):
        assert last == 1.0
