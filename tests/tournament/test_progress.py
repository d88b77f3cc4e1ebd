"""Progress and ETA weighed by each game's expected cost (arena.competition.progress): a
schedule that starts with its big boards gets an ETA near the truth, where counting games is
off by a factor; the ETA is never negative and 0 when all is done; the bar of a run shows the
weighted fraction."""

from __future__ import annotations

import datetime
import heapq
import io
import math
from collections.abc import Generator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition.executor import Executor, GameOutcome
from arena.competition.jobs import GameJob
from arena.competition.progress import (
    Progress,
    count_eta_s,
    key_and_prior,
    measured_s,
    record_key_and_prior,
)
from arena.tournament.run import run_tournament
from arena.tournament.schedule import make_schedule
from tests.helpers import JUDGE, fake_record
from tests.helpers import tournament_config as config

TIMEOUT_S = 0.08
OVERHEAD_S = 0.4  # to start a game's bots


def simulate(durations_s: Sequence[float], workers: int) -> list[tuple[int, float]]:
    """(index, finish time) of each game, in finish order, when `workers` take the games in
    order, each the next game as soon as it is free."""
    free = [(0.0, w) for w in range(workers)]
    finished = []
    for i, d in enumerate(durations_s):
        t, w = heapq.heappop(free)
        finished.append((t + d, i))
        heapq.heappush(free, (t + d, w))
    return [(i, t) for t, i in sorted(finished)]


def replay(boards: Sequence[tuple[str, float]], durations_s: Sequence[float], workers: int,
           at: float, overhead_s: float | None = None) -> tuple[float, float, float]:
    """(truth, count-based ETA, cost-weighted ETA) when the fraction `at` of the games is
    done; boards[i] is game i's (key, prior cost); `overhead_s` of each game is not thinking
    (None: not known)."""
    order = simulate(durations_s, workers)
    end_s = order[-1][1]
    p = Progress.plan(boards)
    n = max(1, round(at * len(order)))
    for i, _ in order[:n]:
        think_s = None if overhead_s is None else durations_s[i] - overhead_s
        p = p.finish(boards[i][0], durations_s[i], think_s=think_s)
    now_s = order[n - 1][1]
    old = count_eta_s(n, len(order), now_s)
    new = p.eta_s(now_s)
    assert old is not None and new is not None
    return end_s - now_s, old, new


def tournament_like() -> tuple[list[tuple[str, float]], list[float]]:
    """Like `make tournament`: 30 games on each of 4 big boards, then 30 on each of 31 small
    ones, biggest first. A game's true duration is not proportional to its cells: games on big
    boards end long before the board is full, and each game pays 0.4 s to start its bots."""
    big = [(50, 50), (40, 40), (30, 30), (20, 20)]
    small = sorted([(m, n, k) for k in (4, 5) for m in range(4, 8) for n in range(4, 8)
                    if (m, n, k) != (4, 4, 5)], key=lambda b: -b[0] * b[1])
    boards: list[tuple[str, float]] = []
    durations: list[float] = []
    for m, n, k in [(m, n, 10) for m, n in big] + small:
        key, prior = key_and_prior("connectx", {}, m, n, k, TIMEOUT_S)
        fill = 0.35 if m >= 20 else 0.8  # share of the cells played
        for g in range(30):
            boards.append((key, prior))
            durations.append(OVERHEAD_S + (m * n * fill) * 0.03 * (0.8 + 0.4 * ((g * 7) % 10) / 10))
    return boards, durations


@pytest.mark.parametrize(("at", "within", "overhead_known"),
                         [(0.1, 3.0, False), (0.1, 1.6, True), (0.2, 1.15, False),
                          (0.5, 1.15, False), (0.9, 1.15, False), (0.5, 1.15, True)])
def test_big_boards_first_cost_eta_is_close_where_counting_games_is_far_off(
        at: float, within: float, overhead_known: bool) -> None:
    boards, durations = tournament_like()
    truth, old, new = replay(boards, durations, workers=2, at=at,
                             overhead_s=OVERHEAD_S if overhead_known else None)
    # at 10 % only big boards were seen, and small ones cost more per cell than they say: the
    # ETA is low, less so when the overhead is known; from 20 % on, the small boards' cost is
    # fitted
    assert truth / within <= new <= truth * within, (at, truth, old, new)
    assert old > 3 * truth, (at, truth, old, new)  # counting games: fails within any factor


def test_proportional_costs_give_the_exact_eta() -> None:
    boards = [("big", 100.0)] * 4 + [("small", 1.0)] * 40
    durations = [b[1] * 0.5 for b in boards]
    truth, old, new = replay(boards, durations, workers=1, at=0.05)
    assert new == pytest.approx(truth)
    assert old > 10 * truth  # 40 cheap games counted as if each cost what the 2 dear ones did


def test_before_any_game_there_is_no_eta_and_all_is_left() -> None:
    p = Progress.plan([("a", 2.0), ("b", 1.0)])
    assert p.fraction() == 0.0
    assert p.eta_s(10.0) is None
    assert (p.games_done, p.games_total) == (0, 2)


def test_all_done_is_eta_zero_and_fraction_one() -> None:
    p = Progress.plan([("a", 2.0), ("b", 1.0)]).finish("a", 3.0).finish("b", 1.0)
    assert p.eta_s(5.0) == 0.0 and p.fraction() == 1.0


def test_games_stored_by_an_earlier_run_refine_the_cost_but_not_the_rate() -> None:
    p = Progress.plan([("a", 1.0)] * 4).finish("a", 10.0, this_run=False)
    assert p.fraction() == pytest.approx(0.25)
    assert p.eta_s(5.0) is None  # nothing finished in this run yet: no rate
    p = p.finish("a", 10.0)
    assert p.eta_s(5.0) == pytest.approx(2 * 10.0 * 5.0 / 10.0)


def test_a_game_without_a_duration_is_done_but_measures_nothing() -> None:
    p = Progress.plan([("a", 1.0)] * 2).finish("a", None)
    assert p.games_done == 1 and p.fraction() == pytest.approx(0.5)
    assert p.eta_s(3.0) is None


def test_an_unknown_or_finished_board_is_refused() -> None:
    p = Progress.plan([("a", 1.0)])
    with pytest.raises(ValueError):
        p.finish("b", 1.0)
    with pytest.raises(ValueError):
        p.finish("a", 1.0).finish("a", 1.0)


def test_unseen_boards_follow_the_fit_of_the_seen_ones() -> None:
    # seen: prior 100 -> 10 s a game, prior 25 -> 5 s (duration ~ sqrt(prior)); unseen prior 4
    p = Progress.plan([("x", 100.0), ("y", 25.0), ("z", 4.0)] * 5)
    for _ in range(5):
        p = p.finish("x", 10.0).finish("y", 5.0)
    assert p.expected_s("z") == pytest.approx(2.0)
    # one seen board only: proportional to the prior
    q = Progress.plan([("x", 100.0), ("z", 4.0)]).finish("x", 10.0)
    assert q.expected_s("z") == pytest.approx(0.4)


def test_the_key_and_prior_of_a_scheduled_game_and_of_its_record_agree() -> None:
    games = make_schedule(config(["a", "b"]), judge=JUDGE)
    for g in games:
        rec = fake_record(g).labelled(timeout_s=0.5)
        assert key_and_prior(g.game, dict(g.params), g.M, g.N, g.K, 0.5) == \
            record_key_and_prior(rec)
    big, small = key_and_prior("connectx", {}, 50, 50, 10, 0.1), \
        key_and_prior("connectx", {}, 4, 4, 4, 0.1)
    assert big[1] / small[1] == pytest.approx(2500 / 16)
    assert key_and_prior("othello", {"size": 8}, 0, 0, 0, 1.0)[0] != small[0]


def stamp(seconds: float) -> str:
    t = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    return (t + datetime.timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def test_measured_duration_of_a_record() -> None:
    games = make_schedule(config(["a", "b"]), judge=JUDGE)
    rec = fake_record(games[0])
    timed = rec.labelled(started_at=stamp(1.0), finished_at=stamp(3.5))
    assert measured_s(timed) == pytest.approx(2.5)
    assert measured_s(rec) == pytest.approx(0.001)  # no timestamps: the moves' times
    assert measured_s(rec.labelled(times_ms=())) is None


# ------------------------------------------------------------------------- hypothesis
boards_st = st.lists(st.tuples(st.sampled_from("abcde"), st.floats(0.01, 1e4)), min_size=1,
                     max_size=40)


def planned(boards: list[tuple[str, float]]) -> list[tuple[str, float]]:
    prior = {k: c for k, c in boards}  # one prior per key
    return [(k, prior[k]) for k, _ in boards]


@settings(max_examples=150, deadline=None)
@given(boards=boards_st, data=st.data())
def test_eta_is_never_negative_and_zero_exactly_when_all_is_done(
        boards: list[tuple[str, float]], data: st.DataObject) -> None:
    plan = planned(boards)
    order = data.draw(st.permutations(range(len(plan))))
    done = data.draw(st.integers(0, len(plan)))
    p = Progress.plan(plan)
    for i in order[:done]:
        duration = data.draw(st.one_of(st.none(), st.just(0.0), st.floats(1e-3, 1e4)))
        p = p.finish(plan[i][0], duration, this_run=data.draw(st.booleans()))
    elapsed_s = data.draw(st.floats(0.001, 1e5))
    eta = p.eta_s(elapsed_s)
    assert 0.0 <= p.fraction() <= 1.0
    assert eta is None or (eta >= 0.0 and math.isfinite(eta))
    if done == len(plan):
        assert eta == 0.0 and p.fraction() == 1.0
    elif eta is not None:
        assert eta > 0.0


@settings(max_examples=100, deadline=None)
@given(boards=boards_st, scale=st.floats(0.01, 100.0), data=st.data())
def test_when_games_cost_what_is_expected_the_fraction_only_grows_and_the_eta_only_falls(
        boards: list[tuple[str, float]], scale: float, data: st.DataObject) -> None:
    plan = planned(boards)
    order = data.draw(st.permutations(range(len(plan))))
    p = Progress.plan(plan)
    fraction, eta, now_s = p.fraction(), math.inf, 0.0
    for i in order:
        duration = plan[i][1] * scale
        now_s += duration  # one worker
        p = p.finish(plan[i][0], duration)
        new_eta = p.eta_s(now_s)
        assert new_eta is not None
        assert p.fraction() >= fraction - 1e-9
        assert new_eta <= eta * (1 + 1e-9) + 1e-9
        fraction, eta = p.fraction(), new_eta


@settings(max_examples=100, deadline=None)
@given(boards=boards_st, elapsed_s=st.floats(0.1, 1e4), later=st.floats(1.0, 10.0))
def test_the_slower_the_run_so_far_the_later_its_eta(
        boards: list[tuple[str, float]], elapsed_s: float, later: float) -> None:
    plan = planned(boards) + [("z", 1.0)]
    p = Progress.plan(plan).finish("z", 1.0)
    a, b = p.eta_s(elapsed_s), p.eta_s(elapsed_s * later)
    assert a is not None and b is not None and b >= a


# ------------------------------------------------------------------------- the run's bar
class TimedExecutor(Executor):
    """Plays nothing: each game's record says it took its board's cells in seconds; before the
    last game, the bar's line is kept."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.bar_before_last = ""

    def run(self, games: Sequence[GameJob]) -> Generator[GameOutcome, None, None]:
        for n, g in enumerate(games):
            if n == len(games) - 1:
                self.bar_before_last = self.capsys.readouterr().err
            rec = fake_record(g).labelled(started_at=stamp(0.0), finished_at=stamp(g.cells),
                                          times_ms=(1000.0 * g.cells,))
            yield GameOutcome(g, rec)


def test_the_runs_bar_shows_the_cost_weighted_fraction(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config(["a", "b"], boards=((20, 20, 10), (4, 4, 4)))
    ex = TimedExecutor(capsys)
    run_tournament(cfg, tmp_path / "results", executor=ex, out=io.StringIO(),
                   judge=JUDGE)
    line = ex.bar_before_last.replace("\r", "\n").strip().splitlines()[-1]
    # 3 of 4 games are done: by count 75 %, by cost (400 + 400 + 16) / 832 = 98 %
    assert " 98%|" in line, line
    assert "3/4 games" in line and "faults=0" in line, line


def test_the_overhead_of_a_game_is_the_same_on_every_board() -> None:
    # 1 s to start the bots, then thinking in proportion to the prior: an unseen small board
    # costs its overhead plus its share of the thinking, not its share of the whole duration
    p = Progress.plan([("big", 100.0)] * 3 + [("small", 4.0)])
    for _ in range(3):
        p = p.finish("big", 1.0 + 50.0, think_s=50.0)
    assert p.expected_s("small") == pytest.approx(1.0 + 2.0)
    q = Progress.plan([("big", 100.0), ("small", 4.0)]).finish("big", 51.0)  # no think time
    assert q.expected_s("small") == pytest.approx(51.0 * 4 / 100)
