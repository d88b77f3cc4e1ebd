"""The ranking when players did not play as many games (a gauntlet: the challenger meets every
player, the others only the challenger; an unfinished run): points would favour whoever played
most, so the ranking is by the fitted Elo rating, and the standings say what ranks them. With
as many games each (a finished round robin) it stays by points, then Elo."""

from __future__ import annotations

from pathlib import Path

from arena.records import Reason, StoredGame
from arena.results.standings import compute_standings
from tests.helpers import cx_record

_n = iter(range(10**6))


def game(p1: str, p2: str, winner: int | None) -> StoredGame:
    i = next(_n)
    rec = cx_record(M=6, N=7, K=4, p1=p1, p2=p2, names=(p1, p2), moves=(0, 1, 2),
                     times_ms=(1.0, 1.0, 1.0), winner=winner,
                     reason=Reason.CONNECT if winner else Reason.DRAW, detail="", seed=i)
    return StoredGame(f"g{i}", 1, p1, p2, rec)


def _gauntlet() -> list[StoredGame]:
    """The challenger loses 3-7 to alphabeta and wins 10-0 against each of five others."""
    games = []
    for i in range(10):
        ch_wins = i < 3
        first = i % 2 == 0
        p1, p2 = ("challenger", "alphabeta") if first else ("alphabeta", "challenger")
        games.append(game(p1, p2, (1 if first else 2) if ch_wins else (2 if first else 1)))
    for other in ("L0", "L1", "minimax", "montecarlo", "mcts"):
        for i in range(10):
            first = i % 2 == 0
            p1, p2 = ("challenger", other) if first else (other, "challenger")
            games.append(game(p1, p2, 1 if first else 2))
    return games


PLAYERS = ["challenger", "alphabeta", "L0", "L1", "minimax", "montecarlo", "mcts"]


def test_a_challenger_that_lost_is_not_ranked_first() -> None:
    st = compute_standings(PLAYERS, _gauntlet())
    ch, ab = st.row("challenger"), st.row("alphabeta")
    assert ch.points > ab.points and ch.games == 60 and ab.games == 10
    assert ab.elo > ch.elo
    assert st.ranking[0].player == "alphabeta"
    assert [r.rank for r in st.ranking] == list(range(1, 8))
    assert st.ranked_by == "Elo"


def test_the_standings_say_what_ranks_them() -> None:
    md = compute_standings(PLAYERS, _gauntlet()).to_markdown()
    note = md.split("## Ranking\n", 1)[1].lstrip().split("\n\n", 1)[0]
    assert note.startswith("Ranked by Elo")
    assert "10 to 60 games" in note


def test_as_many_games_each_ranks_by_points() -> None:
    games = [game("a", "b", 1), game("b", "a", 2), game("a", "c", None), game("c", "a", None),
             game("b", "c", 1), game("c", "b", 1)]
    st = compute_standings(["a", "b", "c"], games)
    assert st.ranked_by == "points"
    assert [r.player for r in st.ranking] == ["a", "c", "b"]  # 8, 5 and 3 points
    note = st.to_markdown().split("## Ranking\n", 1)[1].lstrip().split("\n\n", 1)[0]
    assert note.startswith("Ranked by points")


def test_the_report_says_what_ranks_them(tmp_path: Path) -> None:
    from arena.report.data import ReportData
    from arena.report.html import _standings_html

    games = _gauntlet()
    st = compute_standings(PLAYERS, games)
    page = _standings_html(ReportData("g", tmp_path, {}, {}, tuple(games), st))
    assert page.index("Ranked by Elo") < page.index('<table class="ranking"')
