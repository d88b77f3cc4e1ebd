"""A league of another game than Connect-X, end to end: an Othello league on a 6x6 board.

league.yaml names the game and its parameter sets with the tournament configs' keys (`game:`,
`params:`), checked at init; the check of an uploaded version plays the league's game; the
rating pairs are played by the real worker functions from the game's own openings; the
leaderboard holds both students; a replay page carries the Othello drawer's frames; and the
final round robin plays Othello to its report."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.commands import opening_judge
from arena.league import League
from arena.league.checks import check_next
from arena.league.config import parse_config
from arena.league.feed import run_worker
from arena.league.final import final_status, final_tournament, plan_final, start_final
from arena.league.standings import game_record, leaderboard
from arena.league.web.app import create_app
from arena.league.worker import plan_next
from arena.records import board_key
from tests.helpers import wait_finished
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
OTHELLO = ROOT / "players" / "othello"
CONFIG = ("game: othello\nparams:\n  - {size: 6}\ntimeout_s: 0.5\n"
          "reference_bots: [players.othello.greedy]\npairs_per_submission: 1\n"
          "max_pairs_per_submission: 2\nopening_plies: 2\nisolation: false\n"
          "final_pairs: 1\n")


# ------------------------------------------------------------------------- league.yaml
def test_the_game_and_its_parameter_sets_are_the_tournament_configs_keys() -> None:
    cfg = parse_config(CONFIG)
    assert cfg.file.game == "othello" and cfg.param_sets == ((("size", 6),),)
    assert [g.label() for g in cfg.games()] == ["othello size=6"]
    assert cfg.check_games() is not None
    # without `params:` the game's defaults; without `game:` Connect-X as before
    assert [g.label() for g in parse_config("game: othello\n").games()] == ["othello size=8"]
    plain = parse_config("boards: [[4, 4, 3]]\n")
    assert plain.file.game == "connectx" and plain.check_games() is None
    assert [board_key(g) for g in plain.games()] == [(4, 4, 3)]
    assert cfg.final_games() == cfg.games()
    final = parse_config("final_board_set: [[4, 4, 3], [5, 5, 4]]\n").final_games()
    assert [board_key(g) for g in final] == [(4, 4, 3), (5, 5, 4)]
    # another game has no Connect-X reference bots by default
    assert parse_config("game: othello\n").reference_bots == ()
    # nor a note on a board key it never had (nor has a league.yaml that gives no boards)
    assert parse_config("game: othello\n").notes == parse_config("").notes == ()


@pytest.mark.parametrize(("text", "named"), [
    ("game: chess\n", ["game", "chess"]),
    ("game: othello\nparams: [{size: 7}]\n", ["params[0]", "size"]),
    ("game: othello\nparams: [{sides: 8}]\n", ["params[0]", "sides"]),
    ("game: othello\nparams: {size: 6}\n", ["params"]),
    ("game: othello\nparams: [{size: 6}, {size: 6}]\n", ["params[1]"]),
    ("game: othello\nboards: [[4, 4, 3]]\n", ["boards"]),
    ("game: othello\nboard_set: competition\n", ["board_set"]),
    ("game: othello\nfinal_board_set: competition\n", ["final_board_set"]),
    ("params: [{size: 6}]\n", ["params", "game"]),
    ("game: connectx\nparams: [{size: 6}]\n", ["params", "boards"]),
])
def test_a_bad_game_or_parameter_set_is_refused_naming_the_key(text: str,
                                                               named: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        parse_config(text)
    for word in named:
        assert word in str(err.value)


# ------------------------------------------------------------------- the whole league
def _client(d: Path, user: str, secret: str) -> TestClient:
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = csrf_of(c.get("/login").text)
    assert c.post("/login", data={"name": user, "secret": secret,
                                  "csrf": token}).status_code == 303
    return c


def test_an_othello_league_checks_rates_replays_and_plays_its_final(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(CONFIG)
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n) for n in ("ann", "bob")}
    ann = lg.submit("ann", [("mybot.py", (OTHELLO / "random_bot.py").read_bytes())])
    bob = lg.submit("bob", [("bot.py", (OTHELLO / "greedy.py").read_bytes())])
    # a Connect-X bot is no bot of this league: its check fails
    cx = lg.submit("bob", [("cx.py", (ROOT / "players" / "L0.py").read_bytes())])

    # the check plays the league's game
    assert {check_next(lg) for _ in range(3)} == {ann.id, bob.id, cx.id}
    assert check_next(lg) is None
    checked = {s.id: s for s in lg.submissions()}
    for sid, name in ((ann.id, "OthelloRandom"), (bob.id, "OthelloGreedy")):
        summary = checked[sid].check_summary
        assert checked[sid].status == "rating", summary
        # the Othello bot API's calls, one game with each colour on the league's one board
        assert f"player_name(): '{name}'" in summary and "total: 2 games" in summary
    assert checked[cx.id].status == "failed"  # bob's entry stays his Othello bot
    assert "no GamePlayer subclass for othello" in checked[cx.id].check_summary

    # rating pairs by the real worker, each from a judged 2-ply Othello opening
    plan = plan_next(lg)
    assert plan is not None and plan[2] == "othello size=6"
    lg.conn.close()
    assert run_worker(d, opening_judge("othello"), max_pairs=10) >= 2
    lg = League.open(d)
    rows = lg.conn.execute("SELECT id, side_a, side_b, board FROM games ORDER BY id").fetchall()
    assert rows and {r[3] for r in rows} == {"othello size=6"}
    first = game_record(lg, rows[0][0])
    assert first is not None and first.game == "othello" and first.game_params == {"size": 6}
    assert len(first.opening_texts) == 2 and first.move_texts[:2] == first.opening_texts
    assert not {"M", "N", "K", "moves", "opening"} & first.to_dict().keys()
    board = {r.user for r in leaderboard(lg) if r.kind == "entry"}
    assert board == {"ann", "bob"}

    # ann's replay: the viewer's game object for the Othello drawer, with its frames
    gid = next(r[0] for r in rows if f"sub:{ann.id}" in r[1:3])
    c = _client(d, "ann", secrets["ann"])
    page = c.get(f"/games/{gid}")
    assert page.status_code == 200
    assert '<script src="/viewer/viewer.js"></script>' in page.text
    found = re.search(r'data-game="([^"]*)"', page.text)
    assert found is not None
    game = json.loads(html.unescape(found.group(1)))
    stored = game_record(lg, gid)
    assert stored is not None
    assert game["game"] == "othello" and game["rows"] == game["cols"] == 6
    assert game["moves"] == list(stored.move_texts)
    assert game["opening"] == list(stored.opening_texts)
    assert len(game["frames"]) == len(stored.move_texts) + 1
    assert game["frames"][0] == "0" * 14 + "21" + "0" * 4 + "12" + "0" * 14
    assert "M" not in game
    drawer = c.get("/viewer/games/othello/draw.js")  # what viewer.js loads for the game
    assert drawer.status_code == 200 and "othello" in drawer.text

    # the final round robin plays Othello on the league's parameter sets, to its report
    lg.freeze()
    plan = plan_final(lg, workers=1)  # planned on Othello's own games, from its rating games
    assert (plan.boards, plan.games) == (1, 6) and plan.measured, plan
    config = final_tournament(lg)
    assert config.game == "othello" and config.param_sets == ((("size", 6),),)
    assert config.boards == () and config.openings is not None
    assert (config.openings.plies, config.openings.seed) == (2, 0)
    assert [p.name for p in config.players] == ["ann", "bob", "greedy"]  # as on the leaderboard
    start_final(lg, d / "results")
    lg.conn.close()
    assert wait_finished(d) == "finished"
    lg = League.open(d)
    status = final_status(lg)
    assert status.report and status.games_stored == status.games_total == 3 * 2  # each ordered
    # pairing once
    assert "othello size=6" in Path(status.report).read_text(encoding="utf-8")
    lg.conn.close()


def test_an_mnk_league_checks_rates_and_replays(tmp_path: Path) -> None:
    """The plug-in added last plays in a league as well: an m,n,k league (gomoku-like 7x7, 4 in
    a row) checks a student's bot, rates it against a reference bot and replays its games."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("game: mnk\nparams:\n  - {m: 7, n: 7, k: 4}\ntimeout_s: 0.3\n"
                   "reference_bots: [players.mnk.random_bot]\npairs_per_submission: 1\n"
                   "max_pairs_per_submission: 1\nopening_plies: 0\nisolation: false\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secret = lg.add_user("ann")
    bot = (ROOT / "players" / "mnk" / "alphabeta.py").read_bytes()
    ann = lg.submit("ann", [("mine.py", bot)])
    assert check_next(lg) == ann.id
    checked = lg.submission(ann.id)
    assert checked is not None and checked.status == "rating", checked.check_summary
    lg.conn.close()
    assert run_worker(d, opening_judge("mnk"), max_pairs=5) == 1
    lg = League.open(d)
    rows = lg.conn.execute("SELECT id, board FROM games ORDER BY id").fetchall()
    assert len(rows) == 2 and {r[1] for r in rows} == {"mnk m=7 n=7 k=4"}
    record = game_record(lg, rows[0][0])
    assert record is not None and record.game == "mnk" and record.move_texts
    assert [r.user for r in leaderboard(lg) if r.kind == "entry"] == ["ann"]
    lg.conn.close()
    page = _client(d, "ann", secret).get(f"/games/{rows[0][0]}")
    found = re.search(r'data-game="([^"]*)"', page.text)
    assert page.status_code == 200 and found is not None
    game = json.loads(html.unescape(found.group(1)))
    assert game["game"] == "mnk" and game["moves"] == list(record.move_texts)
