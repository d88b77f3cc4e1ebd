"""A league made before issue 47's core (tests/data/league_403f48c, made by cxarena 403f48c)
opens, reports and plays on unchanged: its settings, leaderboard and final standings read as
that cxarena printed them; its grades too, but for the one fix (a student's row shows the
rating of the entry she chose, not of her latest version); its final's report is written again;
and a new version plays rating games under the league's limits, which its records now name."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from arena.league import League
from arena.league.feed import run_worker
from arena.league.grades import final_standings_csv, grades_csv
from arena.league.db import LeagueGames
from arena.league.standings import standings_csv
from arena.records import GameRecord
from arena.report.html import write_report
from arena.results import REPORT_HTML

OLD = Path(__file__).resolve().parents[1] / "data" / "league_403f48c"
L1 = (Path(__file__).resolve().parents[2] / "players" / "L1.py").read_bytes()


@pytest.fixture
def old(tmp_path: Path) -> League:
    """A copy of the old league; its final's state names the copy's results folder (the
    folder was moved)."""
    shutil.copytree(OLD, tmp_path / "old")
    d = tmp_path / "old" / "lg"
    state = d / "final" / "state.json"
    data = json.loads(state.read_text())
    data["results"] = str(d / "results" / "final")
    state.write_text(json.dumps(data))
    return League.open(d)


def _records(lg: League) -> list[GameRecord]:
    """The league's rating games' records, read through the one store API."""
    return [g.record for g in LeagueGames(lg).games()]


def _text(path: Path) -> str:
    """A CSV file as written (its \\r\\n line ends kept)."""
    return path.read_bytes().decode()


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_an_old_league_reads_as_it_did(old: League) -> None:
    expected = OLD / "expected"
    assert old.config.limits().grace_s == 0.2 and old.config.limits().memory_limit_mb == 400
    assert standings_csv(old) == _text(expected / "standings.csv")
    assert final_standings_csv(old) == _text(expected / "final_standings.csv")
    before = {r["user"]: r for r in _rows(_text(expected / "grades.csv"))}
    now = {r["user"]: r for r in _rows(grades_csv(old))}
    assert before.keys() == now.keys()
    rating = ("elo", "elo_low", "elo_high", "rated_games", "faults", "vs_L0_points",
              "vs_L0_games")
    for user, row in before.items():
        same = {k: v for k, v in row.items() if user != "ann" or k not in rating}
        assert {k: now[user][k] for k in same} == same, user
    # ann entered v1 (submission 1), which played no rating game (v2 came before any was
    # played); the old grades showed v2's rating and scores beside it, today's show none
    assert now["ann"]["entry_version"] == "1" and before["ann"]["elo"] != ""
    assert (now["ann"]["elo"], now["ann"]["rated_games"], now["ann"]["vs_L0_games"]) == (
        "", "0", "")
    assert all(r.limits == {} for r in _records(old))  # stored before records named them


def test_an_old_league_reports_and_plays_on(old: League) -> None:
    results = old.dir / "results" / "final"
    assert Path(write_report(results)) == results / REPORT_HTML
    assert "ann" in (results / REPORT_HTML).read_text()
    with old.conn:  # a new league-wide rating run: unfreeze, a new version of bob's
        old.conn.execute("DELETE FROM meta WHERE key IN ('frozen', 'frozen_leaderboard')")
    sub = old.submit("bob", [("bot.py", L1)])
    with old.conn:
        old.conn.execute("UPDATE submissions SET status='rating' WHERE id=?", (sub.id,))
    assert run_worker(old.dir, None, max_pairs=1, idle_s=0.05) == 1
    new = [r for r in _records(old) if r.limits]
    assert len(new) == 2 and new[0].limits["grace_s"] == 0.2
    assert new[0].limits["memory_limit_mb"] == 400
