"""Standings from stored games: points, fault columns by offender, crosstable, boards, Elo."""

from __future__ import annotations

import csv
import io
import math
import re

import pytest

from arena.records import GameRecord, Reason, StoredGame
from arena.results.standings import CSV_COLUMNS, compute_standings
from tests.helpers import cx_record

_n = iter(range(10**6))


def game(p1: str, p2: str, winner: int | None, reason: Reason = Reason.CONNECT,
         offender: int | None = None, board: tuple[int, int, int] = (4, 4, 3),
         times_ms: tuple[float, ...] = (1.0, 1.0, 1.0)) -> StoredGame:
    i = next(_n)
    rec = cx_record(M=board[0], N=board[1], K=board[2], p1=p1, p2=p2, names=(p1, p2),
                     moves=tuple(range(len(times_ms))), times_ms=times_ms, winner=winner,
                     reason=reason, detail="", seed=i, offender=offender)
    return StoredGame(f"g{i}", 1, p1, p2, rec)


def test_points_faults_crosstable_boards_and_times() -> None:
    games = [
        game("a", "b", 1, board=(4, 4, 3), times_ms=(1.0, 2.0, 3.0, 4.0, 5.0)),
        game("b", "a", None, Reason.DRAW, board=(4, 4, 3)),
        game("a", "c", 1, Reason.TIMEOUT, offender=2, board=(5, 4, 4)),
        game("c", "b", 2, Reason.ILLEGAL, offender=1, board=(5, 4, 4)),
        game("b", "c", 2, Reason.CRASH, offender=1, board=(5, 4, 4)),
        game("x", "a", 1),  # not a player of this tournament: ignored
    ]
    st = compute_standings(["a", "b", "c"], games, boards=[(4, 4, 3), (5, 4, 4)])
    a, b, c = st.row("a"), st.row("b"), st.row("c")
    assert [r.player for r in st.ranking] == ["a", "b", "c"]
    assert [r.rank for r in st.ranking] == [1, 2, 3]
    assert (a.points, a.games, a.wins, a.draws, a.losses) == (7, 3, 2, 1, 0)
    assert (b.points, b.games, b.wins, b.draws, b.losses) == (4, 4, 1, 1, 2)
    assert (c.points, c.games, c.wins, c.draws, c.losses) == (3, 3, 1, 0, 2)
    # faults count for the player who committed them, never for the victim
    assert (a.timeouts, a.illegal, a.crashes) == (0, 0, 0)
    assert (b.timeouts, b.illegal, b.crashes) == (0, 0, 1)
    assert (c.timeouts, c.illegal, c.crashes) == (1, 1, 0)
    assert st.total_games == 5
    assert sum(r.points for r in st.ranking) == 3 * 4 + 2 * 1
    assert st.cross["a"] == {"a": 0, "b": 4, "c": 3}
    assert st.cross["b"]["a"] == 1 and st.cross["b"]["c"] == 3 and st.cross["c"]["b"] == 3
    assert st.board_points[(4, 4, 3)] == {"a": 4, "b": 1, "c": 0}
    assert st.board_points[(5, 4, 4)] == {"a": 3, "b": 3, "c": 3}
    # p1 moves at even indexes, p2 at odd ones
    a_times = [1.0, 3.0, 5.0] + [1.0] + [1.0, 1.0]  # game 1 (p1), game 2 (p2), game 3 (p1)
    assert a.mean_move_ms == pytest.approx(sum(a_times) / len(a_times))
    assert a.max_move_ms == 5.0 and b.max_move_ms == 4.0
    assert sum(r.elo for r in st.ranking) == pytest.approx(0.0, abs=1e-6)
    assert a.elo > b.elo and a.elo_ci95 > 0


def test_equal_points_are_ranked_by_elo() -> None:
    games = [game("s", "w", 1) for _ in range(5)]
    games += [game("p", "s", 1), game("s", "p", 1)]  # p: 1 win, 1 loss against the strong one
    games += [game("q", "w", 1), game("w", "q", 1)]  # q: the same against the weak one
    st = compute_standings(["q", "p", "s", "w"], games)
    assert st.row("p").points == st.row("q").points == 3
    assert st.row("p").elo > st.row("q").elo
    names = [r.player for r in st.ranking]
    assert names.index("p") < names.index("q")


def test_head_to_head_uses_elo_difference() -> None:
    games = [game("a", "b", 1)] * 3 + [game("b", "a", 1)] + [game("a", "b", None, Reason.DRAW)]
    st = compute_standings(["a", "b"], games)
    (p, o, d), = st.pairs
    assert (p, o) == ("a", "b")
    assert (d.wins, d.losses, d.draws) == (3, 1, 1)
    assert d.elo > 0 and 0.5 < d.los < 1


def test_csv_and_markdown() -> None:
    games = [game("a", "b", 1), game("b", "a", None, Reason.DRAW),
             game("a", "b", 2, Reason.CRASH, offender=1)]
    st = compute_standings(["a", "b", "idle"], games)
    rows = list(csv.reader(io.StringIO(st.to_csv())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert tuple(rows[0][:10]) == ("rank", "player", "points", "games", "wins", "draws",
                                   "losses", "timeouts", "illegal", "crashes")
    by_name = {r[1]: r for r in rows[1:]}
    assert by_name["a"][2:10] == ["4", "3", "1", "1", "1", "0", "0", "1"]
    assert by_name["idle"][2:4] == ["0", "0"] and by_name["idle"][10] == ""  # no moves
    assert math.isnan(st.row("idle").mean_move_ms)
    md = st.to_markdown("T", expected_games=10)
    for heading in ("# T", "## Ranking", "## Crosstable", "## Head to head",
                    "## Points per board", "3 games of 10 scheduled"):
        assert heading in md
    ranking = md.split("## Ranking", 1)[1].split("##", 1)[0]
    first = [line for line in ranking.splitlines() if line.startswith("|")][2]
    assert [c.strip() for c in first.strip("|").split("|")][:3] == ["1", "a", "4"]


def _paired(p1: str, p2: str, winner: int | None, pair: str,
            opening: tuple[int, ...] = (1,), moves: tuple[int, ...] = (1, 0, 0, 0)) -> StoredGame:
    import dataclasses

    g = game(p1, p2, winner, Reason.CONNECT if winner else Reason.DRAW,
             times_ms=(0.0,) + (5.0,) * (len(moves) - 1))
    rec = dataclasses.replace(g.record, move_texts=tuple(map(str, moves)),
                              opening_texts=tuple(map(str, opening)), pair_id=pair)
    return StoredGame(g.game_id, 1, p1, p2, rec)


def test_paired_games_use_pentanomial_and_bounds_not_inf() -> None:
    games = []
    for k in range(6):  # a wins both games of every pair against b
        games += [_paired("a", "b", 1, f"p{k}", moves=(1, 0, 0, k)),
                  _paired("b", "a", 2, f"p{k}", moves=(1, 0, 1, k))]
    games += [_paired("a", "c", 1, "q1"), _paired("c", "a", 1, "q1")]  # split pair: WL
    st = compute_standings(["a", "b", "c"], games)
    est = {(x, y): e for x, y, e in st.estimates}
    ab = est[("a", "b")]
    assert ab.model.value == "pentanomial" and ab.n == 6 and ab.score == 1.0
    assert math.isnan(ab.elo) and ab.bound > 0
    ac = est[("a", "c")]
    assert ac.n == 1 and ac.elo == 0.0 and ac.no_spread
    md = st.to_markdown()
    assert not re.search(r"\binf\b", md) and "≥ +" in md and "lower bound of the 95% interval" in md
    assert "half the width of its 95% confidence interval" in md
    assert "W-D-L per board" in md and "12-0-0" in md
    assert st.distinct_games == 14 and "Distinct games: 14 of 14." in md
    # opening moves (time 0.0) do not count in the move times
    assert st.row("a").mean_move_ms == 5.0


def test_unpaired_games_use_trinomial_and_repeats_are_flagged() -> None:
    games = [game("a", "b", 1) for _ in range(3)] + [game("b", "a", 2)]
    st = compute_standings(["a", "b"], games)
    e = st.estimates[0][2]
    assert e.model.value == "trinomial" and e.n == 4
    md = st.to_markdown()
    assert "Distinct games: 2 of 4. Warning" in md and not re.search(r"\binf\b", md)


def test_a_repeat_across_the_two_record_shapes_is_still_a_repeat() -> None:
    """A folder resumed across issue 47 holds old Connect-X records (integer moves only) and
    new ones (the moves' texts too): the same game in both shapes is one distinct game."""
    old_shape = game("a", "b", 1).record.to_dict()
    params = old_shape.pop("game_params")
    M, N, K = params["rows"], params["cols"], params["k"]
    old_shape.update(M=M, N=N, K=K, moves=[int(t) for t in old_shape.pop("move_texts")])
    old = StoredGame("g-old", 1, "a", "b", GameRecord.from_dict(old_shape))
    new = game("a", "b", 1)
    assert compute_standings(["a", "b"], [old, new]).distinct_games == 1
