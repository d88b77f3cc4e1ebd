"""Planning the final round robin before it starts (`league final --dry-run`, the admin page):
how many games, and how long, from the league's own measured rating games; with none measured,
the upper bound (every move its full time)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from arena.cli import main as cli_main
from arena.entrants.specs import parse_spec
from arena.league import League
from arena.league.final import plan_final
from arena.league.final_length import bot_startups_s
from arena.league.standings import record_game
from arena.limits import Limits
from arena.referee.referee import MatchSettings, Referee, course_game
from bench.bench_final_plan import SLOW80  # the bench's bot that thinks 80 % of each move

ROOT = Path(__file__).resolve().parents[2]


def _league(tmp_path: Path) -> League:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3], [5, 6, 4]]\n"
                   "timeout_s: 0.5\nreference_bots: [L0]\nisolation: false\nfinal_pairs: 2\n")
    lg = League.init(tmp_path / "lg", cfg)
    for user, bot in (("ann", "L1.py"), ("bob", "L0.py")):
        lg.add_user(user)
        lg.submit(user, [(bot, (ROOT / "players" / bot).read_bytes())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    return lg


def test_without_rating_games_the_plan_is_the_upper_bound(tmp_path: Path) -> None:
    lg = _league(tmp_path)
    plan = plan_final(lg, workers=2)
    # 3 players: 3 pairings x 2 colours x 2 pairs, on 2 boards
    assert (plan.players, plan.boards, plan.games) == (3, 2, 24)
    assert not plan.measured and plan.measured_games == 0
    assert plan.duration_s == pytest.approx((16 + 30) * 0.5 * 12 / 2)
    assert "at most" in plan.text() and "fewer boards" in plan.text()


def test_the_plan_rests_on_measured_rating_games(tmp_path: Path) -> None:
    lg = _league(tmp_path)
    settings = MatchSettings(limits=Limits(timeout_s=0.5), isolation="none")
    with Referee(settings) as referee:
        for seed in range(6):
            rec = referee.play(parse_spec("L0"), parse_spec("L1"), course_game(4, 4, 3), seed=seed)
            record_game(lg, "sub:2", "sub:1", "4x4x3", 0.0, record=rec)
    plan = plan_final(lg, workers=2)
    assert plan.measured and plan.measured_games == 6
    bound = (16 + 30) * 0.5 * 12 / 2
    # L0 and L1 answer at once: far below the bound, and at least the games' measured time
    assert 0 < plan.duration_s < bound / 10, plan
    assert "estimated from 6 measured rating games" in plan.text()
    lg.conn.close()


def test_league_final_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _league(tmp_path).conn.close()
    assert cli_main(["league", "final", str(tmp_path / "lg"), "--dry-run", "--workers", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The final round robin: 3 players, 2 boards, 24 games on 4 worker(s)")
    assert not (tmp_path / "lg" / "final" / "state.json").exists()  # nothing started


def test_the_admin_page_shows_the_plan(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from arena.league.web.app import create_app
    from tests.league.web.conftest import csrf_of

    lg = _league(tmp_path)
    secret = lg.add_user("teacher", admin=True)
    lg.conn.close()
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1")
    c.post("/login", data={"name": "teacher", "secret": secret,
                           "csrf": csrf_of(c.get("/login").text)})
    page = c.get("/admin").text
    assert 'id="final-plan"' in page and "24 games" in page


def test_a_running_final_says_its_progress_by_cost_and_the_time_left(tmp_path: Path) -> None:
    """Half the pairings of a final stored (a real tournament of two of its three players):
    the admin's line weighs the games by their cost and says the time left."""
    import time

    from arena.league.final import _time_left
    from arena.tournament.config import load_config

    first = tmp_path / "first.yaml"
    first.write_text("name: final\nplayers: [players.L0, players.L1]\n"
                     "boards: [[4, 4, 3], [6, 7, 4]]\ntimeout_s: 0.5\nworkers: 1\n"
                     "isolation: none\nopenings: {plies: 0}\n")
    started = time.time()
    assert cli_main(["tournament", str(first), "--results", str(tmp_path / "res"),
                     "--quiet"]) == 0
    final = tmp_path / "final.yaml"  # the whole final: a third player, the same boards
    final.write_text(first.read_text().replace("[players.L0, players.L1]",
                                               "[players.L0, players.L1, players.L1]"))
    final.write_text(final.read_text().replace(
        "players: [players.L0, players.L1, players.L1]",
        "players: [players.L0, players.L1, {spec: players.L1, name: again}]"))
    line = _time_left(load_config(final), tmp_path / "res", started)
    share = int(line.split(", ")[1].split("%")[0])
    assert 20 <= share <= 50 and "left" in line, line  # 4 of 12 games, each board weighed




def test_a_board_no_game_touched_is_priced_per_move_within_2x_and_never_past_its_worst(
        tmp_path: Path) -> None:
    """Rating games on 4x4x3 and 5x5x4 only, by bots that think 80 % of every move; the final
    also has 8x8x5, which no game touched: its price (moves from the board's size, the bots'
    own time per move) is within 2x of real games there, and no real game takes longer than
    its worst case (every cell a move at the limit + grace)."""
    bot = tmp_path / "slow80.py"
    bot.write_text(SLOW80)
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3], [5, 5, 4]]\n"
                   "final_board_set: [[4, 4, 3], [5, 5, 4], [8, 8, 5]]\n"
                   "timeout_s: 0.1\nreference_bots: []\nisolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    for user in ("ann", "bob"):
        lg.add_user(user)
        lg.submit(user, [("slow80.py", SLOW80.encode())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    spec = parse_spec(f"{bot}:Slow80")
    settings = MatchSettings(limits=lg.config.limits(), isolation="none")
    with Referee(settings) as referee:
        for seed, (m, n, k) in enumerate([(4, 4, 3), (5, 5, 4), (4, 4, 3), (5, 5, 4)]):
            rec = referee.play(spec, spec, course_game(m, n, k), seed=seed)
            record_game(lg, "sub:1", "sub:2", f"{m}x{n}x{k}", 0.0, record=rec)
        plan = plan_final(lg, workers=1)
        big = next(b for b in plan.board_estimates if b.board == "8x8x5")
        assert not big.measured and big.cells == 64
        assert 1 <= big.moves <= big.moves_high <= 64
        real = [referee.play(spec, spec, course_game(8, 8, 5), seed=10 + s) for s in range(2)]
    real_s = [(datetime.fromisoformat(r.finished_at)
               - datetime.fromisoformat(r.started_at)).total_seconds()
              - max(bot_startups_s(r.extra), default=0.0) for r in real]
    print(f"8x8x5: priced {big.each_s:.2f} s ({big.moves:.0f} moves, up to "
          f"{big.moves_high:.0f}), worst {big.worst_s:.2f} s; real {real_s} "
          f"({[r.n_moves for r in real]} moves)")
    mean_s = sum(real_s) / len(real_s)
    assert mean_s / 2 <= big.each_s <= 2 * mean_s, (big, real_s)
    assert all(s <= big.worst_s for s in real_s), (big, real_s)
    assert plan.worst_s >= plan.duration_s
    assert "8x8x5" in plan.text() and "worst" in plan.text()
    lg.conn.close()


def test_the_adaptive_final_plays_what_the_ranking_needs_and_says_how_it_was_decided(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """league.yaml's `final_pairing: adaptive` with `final_top_k: 1` (what the admin page's
    button and `league final` run): ann (L1) far above bob and the reference bot (both L0,
    random): the first place is decided with fewer games than the full round robin, every
    entry played every board with both colours, and the ranking says how it was decided."""
    import json

    from arena.results import ADAPTIVE_JSON, ADAPTIVE_MD
    from arena.results.store import DB_FILE, ResultStore

    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[5, 5, 4], [6, 5, 4], [6, 6, 4], "
                   "[6, 7, 4]]\ntimeout_s: 0.5\nreference_bots: [L0]\nisolation: false\n"
                   "final_pairing: adaptive\nfinal_top_k: 1\n")
    lg = League.init(tmp_path / "lg", cfg)
    for user, bot in (("ann", "L1.py"), ("bob", "L0.py")):
        lg.add_user(user)
        lg.submit(user, [(bot, (ROOT / "players" / bot).read_bytes())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.freeze()
    lg.conn.close()
    results = tmp_path / "final"
    assert cli_main(["league", "final", str(tmp_path / "lg"), "--workers", "1", "--quiet",
                     "--results", str(results)]) == 0
    out = capsys.readouterr().out
    data = json.loads((results / ADAPTIVE_JSON).read_text())
    assert data["order"][0] == "ann" and data["ended"] == "decided", data
    assert data["full_games"] == 3 * 2 * 4
    with ResultStore(results / DB_FILE, create=False) as store:
        games = [g.record for g in store.games()]
    assert len(games) == data["games"] < data["full_games"]
    for name in ("ann", "bob", "L0"):
        for board in ("5x5x4", "6x5x4", "6x6x4", "6x7x4"):
            assert any(r.player1 == name and r.game_label == board for r in games)
            assert any(r.player2 == name and r.game_label == board for r in games)
    assert "adaptive final: decided" in out
    assert "Decided: the top 1 at confidence 0.95" in (results / ADAPTIVE_MD).read_text()
    # ranked one way: the results folder's standings, its report, /final/standings.csv and
    # the grades follow the adaptive final's order, and say how it was decided
    import csv
    import io

    from arena.league.grades import final_standings_csv, grades_csv
    from arena.results import REPORT_HTML, STANDINGS_CSV, STANDINGS_MD

    folder = [r["player"] for r in csv.DictReader(io.StringIO(
        (results / STANDINGS_CSV).read_text()))]
    assert folder[0] == "ann" and set(folder) == set(data["order"])
    assert "adaptive final" in (results / STANDINGS_MD).read_text()
    assert "adaptive final" in (results / REPORT_HTML).read_text()
    lg = League.open(tmp_path / "lg")
    teacher = [r["player"] for r in csv.DictReader(io.StringIO(final_standings_csv(lg) or ""))]
    assert teacher == folder
    grades = {r["user"]: r for r in csv.DictReader(io.StringIO(grades_csv(lg)))}
    assert grades["ann"]["final_rank"] == "1"


@pytest.mark.parametrize(("line", "why"), [
    ("final_pairing: swiss", "expected round_robin or adaptive"),
    ("final_confidence: 1.5", "expected a confidence between 0.5 and 1"),
    ("final_max_fraction: 0", "expected a share of the full round robin's games"),
    ("final_top_k: 0", "expected a positive integer")])
def test_the_adaptive_final_settings_that_cannot_be_are_refused(tmp_path: Path, line: str,
                                                                why: str) -> None:
    from arena.league.config import parse_config

    assert parse_config("boards: [[4, 4, 3]]\n").file.final_pairing == "round_robin"  # the default
    with pytest.raises(ValueError, match=f"league.yaml: {line.split(':')[0]}: {why}"):
        parse_config(f"boards: [[4, 4, 3]]\n{line}\n")


def test_run_it_again_resumes_on_the_dask_scheduler_the_final_ran_on(tmp_path: Path) -> None:
    """A final run from a terminal on a Dask scheduler (`note_run` keeps its address): "Run it
    again" (`start_final`) starts it there again when the scheduler takes a connection, and
    says it cannot reach it, and what to run, when it does not."""
    import json
    import os
    import signal
    import socket

    from arena.league import LeagueError
    from arena.league.final import _children, note_run, start_final

    lg = _league(tmp_path)
    lg.freeze()
    results = tmp_path / "results"
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    gone = f"tcp://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()  # nothing listens there now
    note_run(lg, results / "final", gone)
    state = json.loads((lg.dir / "final" / "state.json").read_text())
    assert state["scheduler"] == gone
    with pytest.raises(LeagueError, match="cannot be reached") as err:
        start_final(lg, results)
    assert f"cxarena league final {lg.dir.resolve()} --scheduler {gone}" in str(err.value)
    assert f"dask worker {gone}" in str(err.value)
    with socket.socket() as listening:  # a scheduler's port that takes connections
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        there = f"tcp://127.0.0.1:{listening.getsockname()[1]}"
        (lg.dir / "final" / "state.json").unlink()  # another terminal run: its own state
        note_run(lg, results / "final", there)
        start_final(lg, results)
        state = json.loads((lg.dir / "final" / "state.json").read_text())
        proc = next(p for p in _children if p.pid == state["pid"])
        try:
            assert state["scheduler"] == there
            assert state["command"][-2:] == ["--scheduler", there]
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # the process this test started
            proc.wait()
    lg.conn.close()
