"""Standings recomputed from stored games; a fault is a loss."""

from __future__ import annotations

from pathlib import Path

from arena.league import League
from arena.league.standings import games_of, record_game, standings, standings_csv


def test_standings_from_games(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    for name in ("ann", "bob"):
        league.add_user(name)
    a = league.submit("ann", [("a.py", b"x=1\n")])
    b = league.submit("bob", [("b.py", b"x=2\n")])
    with league.conn:
        league.conn.execute("UPDATE submissions SET status='rating'")
    for _ in range(6):
        record_game(league, f"sub:{a.id}", f"sub:{b.id}", "6x7x4", 1.0)
    record_game(league, f"sub:{b.id}", "players.L0", "6x7x4", 0.0, "crash", f"sub:{b.id}")
    rows = standings(league)
    assert [r.user for r in rows] == ["ann", "bob"]
    assert rows[0].elo > rows[1].elo and rows[0].elo_low < rows[0].elo < rows[0].elo_high
    assert (rows[0].games, rows[1].games, rows[1].faults) == (6, 7, 1)


def test_standings_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from arena.cli import main

    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    a = league.submit("ann", [("a.py", b"x=1\n")])
    with league.conn:
        league.conn.execute("UPDATE submissions SET status='rating'")
    record_game(league, f"sub:{a.id}", "players.L0", "6x7x4", 1.0)
    capsys.readouterr()
    assert main(["league", "standings", str(tmp_path / "lg"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["user"] == "ann" and rows[0]["games"] == 1 and rows[0]["rank"] == 1


def test_csv_and_freeze(tmp_path: Path) -> None:
    import pytest

    from arena.league import UploadError

    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    a = league.submit("ann", [("a.py", b"x=1\n")])
    with league.conn:
        league.conn.execute("UPDATE submissions SET status='rating'")
    record_game(league, f"sub:{a.id}", "players.L0", "6x7x4", 0.5)
    lines = standings_csv(league).splitlines()
    assert lines[0].startswith("rank,user") and lines[1].startswith("1,ann,")
    league.freeze()
    assert league.frozen
    with pytest.raises(UploadError, match="frozen"):
        league.submit("ann", [("a.py", b"x=3\n")])


def test_games_of(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    a = league.submit("ann", [("a.py", b"x=1\n")])
    record_game(league, f"sub:{a.id}", "players.L0", "6x7x4", 1.0)
    record_game(league, "players.L1", f"sub:{a.id}", "5x4x3", 1.0, "crash", f"sub:{a.id}")
    games = games_of(league, a.id)
    assert [(g.opponent, g.result) for g in games] == [("players.L1", "loss"),
                                                      ("players.L0", "win")]
