"""The final's length before the deadline (issue 40, point 7): calibration games on the final's
own boards (`league final --dry-run --measure`, the admin page's button) make its estimate
"measured" there without touching ratings; the estimate on this machine and on Dask workers
(more workers, less time, never below one game); the admin card, for the admin only."""

from __future__ import annotations

import html
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main as cli_main
from arena.entrants.specs import parse_spec
from arena.league import League
from arena.league.final import plan_final
from arena.league.final_length import game_think_s, makespan_s, measured_games, wall_times_s
from arena.league.final_measure import GAMES_PER_BOARD, calibration_jobs, measure_final
from arena.league.db import LeagueGames
from arena.league.standings import record_game, standings
from arena.league.web.app import create_app
from arena.limits import Limits
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.league.web.conftest import client_log_in

ROOT = Path(__file__).resolve().parents[2]
#: rating games on 4x4x3 only; the final also on 5x5x4, which no rating game plays
CONFIG = ("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3], [5, 5, 4]]\ntimeout_s: 0.3\n"
          "reference_bots: [L0]\nisolation: false\nfinal_pairs: 2\n")


def _league(tmp_path: Path, rating_games: int = 0) -> League:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(CONFIG)
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("teacher", admin=True)
    for user, bot in (("ann", "L1.py"), ("bob", "L0.py")):
        lg.add_user(user)
        lg.submit(user, [(bot, (ROOT / "players" / bot).read_bytes())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    if rating_games:
        settings = MatchSettings(limits=Limits(timeout_s=0.3), isolation="none")
        with Referee(settings) as referee:
            for seed in range(rating_games):
                rec = referee.play(parse_spec("L0"), parse_spec("L1"),
                                   course_game(4, 4, 3), seed=seed)
                record_game(lg, "sub:2", "sub:1", "4x4x3", 0.0, record=rec)
    return lg


def _boards(lg: League) -> dict[str, str]:
    plan = plan_final(lg, workers=2)
    return {b.board: b.source(plan.measured) for b in plan.board_estimates}


def test_calibration_measures_the_final_boards_without_touching_ratings(
        tmp_path: Path) -> None:
    lg = _league(tmp_path, rating_games=4)
    assert _boards(lg) == {"4x4x3": "measured (4 rating games)",
                           "5x5x4": "modelled: moves from the board's size (up to 25 of 25), "
                                    "the players' time per move"}
    assert (f"Not measured: 5x5x4; `cxarena league final {lg.dir.resolve()} --dry-run "
            f"--measure`" in plan_final(lg, workers=2).text())
    # 4x4x3 has its measured games already: only 5x5x4 is played, a bounded number of games
    jobs = calibration_jobs(lg)
    assert [j.board for j in jobs] == [(5, 5, 4)] * GAMES_PER_BOARD
    assert len({(j.p1, j.p2) for j in jobs}) == GAMES_PER_BOARD  # different pairs
    before = ([tuple(r) for r in lg.conn.execute("SELECT * FROM games")],
              [(r.user, r.elo, r.games) for r in standings(lg)])
    lines: list[str] = []
    assert measure_final(lg, workers=2, progress=lines.append) == GAMES_PER_BOARD
    assert len(lines) == GAMES_PER_BOARD and all("5x5x4" in ln for ln in lines)
    kept = measured_games(lg.dir)
    assert [g.board for g in kept] == ["5x5x4"] * GAMES_PER_BOARD
    assert all(g.duration_s > 0 and g.timeout_s == 0.3 for g in kept)
    # no rating game was stored, no rating or standing moved
    assert before == ([tuple(r) for r in lg.conn.execute("SELECT * FROM games")],
                      [(r.user, r.elo, r.games) for r in standings(lg)])
    assert _boards(lg) == {"4x4x3": "measured (4 rating games)",
                           "5x5x4": f"measured ({GAMES_PER_BOARD} calibration games)"}
    plan = plan_final(lg, workers=2)
    assert plan.extrapolated == () and plan.calibration_games == GAMES_PER_BOARD
    assert (f"estimated from 4 measured rating games and {GAMES_PER_BOARD} calibration games"
            in plan.text())
    assert calibration_jobs(lg) == []  # measured: nothing more to play
    assert measure_final(lg) == 0
    lg.conn.close()


def test_a_league_without_rating_games_is_measured_on_every_final_board(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _league(tmp_path).conn.close()
    d = str(tmp_path / "lg")
    assert cli_main(["league", "final", d, "--measure"]) == 2  # one clear line, no traceback
    err = capsys.readouterr().err
    assert err.strip() == ("cxarena league final: error: --measure goes with --dry-run (it "
                           "measures, then prints the plan)")
    assert cli_main(["league", "final", d, "--dry-run", "--measure", "--workers", "2",
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{2 * GAMES_PER_BOARD} calibration game(s) played on the final's "
                          f"boards\nThe final round robin: 3 players, 2 boards, 24 games on 2 "
                          f"worker(s)")
    assert "4x4x3      12" in out and f"measured ({GAMES_PER_BOARD} calibration games)" in out
    assert "Not measured" not in out and "at most" not in out


def test_the_dask_table_is_consistent(tmp_path: Path) -> None:
    lg = _league(tmp_path, rating_games=4)
    plan = plan_final(lg, workers=2, dask_workers=(16, 4, 8, 1000))
    longest_s = max(b.each_s for b in plan.board_estimates)
    assert [n for n, _ in plan.dask_s] == [4, 8, 16, 1000]
    times = [s for _, s in plan.dask_s]
    assert times[0] < plan.duration_s  # 4 workers beat this machine's 2
    assert all(a >= b for a, b in zip(times, times[1:], strict=False))  # more, never longer
    assert times[0] > times[1] > times[2]  # 24 games: 4, 8 and 16 workers each shorten it
    assert all(s >= longest_s for s in times)  # never below one game's length
    # a worker per game: its bots' start-up (each worker starts each of the 3 players once, at
    # the measured wait per bot started: both seats start at once, a game waits for the
    # slowest) and the longest game
    boots = [b for g in LeagueGames(lg).games()
             if (b := [t / 1000 for t in g.record.extra["startup_ms"] if t])]
    assert boots and plan.start_s == pytest.approx(
        3 * sum(max(b) for b in boots) / sum(len(b) for b in boots))
    assert times[-1] == pytest.approx(plan.start_s + longest_s)
    total_s = sum(b.each_s * b.games for b in plan.board_estimates)
    assert plan.duration_s >= total_s / 2 - 1e-9
    assert "4 workers" in plan.text() and "dask worker tcp://" in plan.text()
    assert plan.commands[2].endswith(f"league final {(tmp_path / 'lg').resolve()} "
                                     f"--scheduler {plan.commands[1].split()[2]}")
    lg.conn.close()


def test_makespan_longest_first_never_below_one_game() -> None:
    assert makespan_s([(10.0, 1), (1.0, 5)], 16) == 10.0
    assert makespan_s([(10.0, 1), (1.0, 5)], 1) == 15.0
    assert makespan_s([(3.0, 4), (2.0, 3)], 2) == 10.0  # 3+3+2+2 | 3+3+2: longest first
    groups = [(7.0, 3), (5.0, 3), (4.0, 4), (3.0, 5)]
    table = wall_times_s(groups, range(1, 40))
    assert all(a[1] >= b[1] for a, b in zip(table, table[1:], strict=False))
    assert table[0][1] == sum(d * n for d, n in groups) and table[-1][1] == 7.0


def test_the_shortening_ways_carry_their_estimates(tmp_path: Path) -> None:
    lg = _league(tmp_path, rating_games=4)
    plan = plan_final(lg, workers=2)
    pairs, half, adaptive, boards = plan.shorter
    assert pairs.change == "final_pairs: 1 (now 2)" and pairs.games == 12
    assert pairs.duration_s < plan.duration_s
    assert half.change.startswith("half the time limit") and half.games == plan.games
    assert half.duration_s < plan.duration_s
    assert adaptive.change.startswith("an adaptive final at 25 %")
    assert adaptive.games == 6 and adaptive.duration_s < plan.duration_s
    assert boards.change.startswith("fewer boards (final_board_set) without the 1 costliest")
    assert boards.games == 12 and boards.duration_s < plan.duration_s
    assert "final_pairs: 1 (now 2): 12 games" in plan.text()
    lg.conn.close()


def test_the_admin_card_for_the_admin_only_and_its_button_measures_in_the_background(
        tmp_path: Path) -> None:
    lg = _league(tmp_path, rating_games=4)
    secrets = {"teacher": lg.reset_secret("teacher"), "ann": lg.reset_secret("ann")}
    lg.conn.close()
    d = tmp_path / "lg"
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = client_log_in(c, "ann", secrets["ann"])
    assert c.get("/admin").status_code == 403
    assert 'id="final-length"' not in c.get("/").text
    assert c.post("/admin/final/measure", data={"csrf": token}).status_code == 403
    assert not (d / "final-measure").exists()
    c.post("/logout", data={"csrf": token})
    token = client_log_in(c, "teacher", secrets["teacher"])
    page = c.get("/admin").text
    assert 'id="final-length"' in page and 'id="final-plan"' in page
    assert "24 games on" in page and "modelled: moves from the board" in page
    assert "<td>Dask</td><td class=\"num\">16</td>" in page
    assert "dask worker tcp://" in page and "--nthreads 1" in page and "--scheduler" in page
    assert "final_pairs: 1 (now 2): 12 games" in page
    assert c.post("/admin/final/measure").status_code == 403  # no CSRF token
    t0 = time.monotonic()
    r = c.post("/admin/final/measure", data={"csrf": token})
    assert r.status_code == 200 and time.monotonic() - t0 < 10
    assert (f"Measuring the final's boards: {GAMES_PER_BOARD} calibration games"
            in html.unescape(r.text))
    deadline = time.monotonic() + 120
    while len(measured_games(d)) < GAMES_PER_BOARD and time.monotonic() < deadline:
        time.sleep(0.3)
    # until its process ends
    while "Measuring the final" in (page := html.unescape(c.get("/admin").text)):
        assert time.monotonic() < deadline, page
        time.sleep(0.3)
    assert f"measured ({GAMES_PER_BOARD} calibration games)" in page
    assert "The last measurement played 2 of 2 games" in page
    r = c.post("/admin/final/measure", data={"csrf": token})
    assert "nothing to play" in html.unescape(r.text)
    lg = League.open(d)
    assert any(a.action == "measure final" for a in lg.audit_log())
    lg.conn.close()


def test_a_player_measured_thinking_long_counts_on_every_board() -> None:
    """The measured games pair players unevenly: "slow" was measured on board A only, yet a
    final with it thinks longer on B too; without it, B is its own games' mean."""
    seats = [("A", "fast", 0.01), ("A", "slow", 1.0), ("A", "fast", 0.01), ("A", "mid", 0.1),
             ("B", "fast", 0.02), ("B", "mid", 0.2), ("B", "fast", 0.02), ("B", "mid", 0.2)]
    without = game_think_s(seats, ["fast", "mid"])
    assert without == {"A": pytest.approx(2 * (0.01 + 0.1) / 2, rel=0.01),
                       "B": pytest.approx(2 * (0.02 + 0.2) / 2, rel=0.01)}
    both = game_think_s(seats, ["fast", "mid", "slow"])
    # slow thinks 10x mid, as on A: on B, 2.0 s a game of its own
    assert both["B"] == pytest.approx(2 * (0.02 + 0.2 + 2.0) / 3, rel=0.01)
    assert game_think_s([], ["fast"]) == {}
