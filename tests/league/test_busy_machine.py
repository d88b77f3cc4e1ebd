"""The league shows what a busy machine did (issue 39, point 3): the admin page gives the
account over the newest rating games, in the words every command that plays ends with, and a
game's page says what the machine did in that game."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.db import LeagueGames
from arena.league.standings import record_game
from arena.league.web.app import create_app
from tests.league.helpers import random_won_game
from tests.league.web.conftest import csrf_of


def test_the_admin_page_and_a_game_page_give_the_account(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[5, 5, 4]]\ntimeout_s: 0.5\nreference_bots: [L0]\n"
                   "isolation: false\nopening_plies: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secret = lg.add_user("teacher", admin=True)
    calm = random_won_game(1)
    busy = dataclasses.replace(random_won_game(2), extra={
        "excused": [{"ply": 3, "elapsed_ms": 530.0, "machine_ms": 61.5},
                    {"ply": 7, "elapsed_ms": 520.0, "machine_ms": 40.0}]})
    record_game(lg, "L0", "L0", "5x5x4", 1.0, record=calm)
    gid = record_game(lg, "L0", "L0", "5x5x4", 1.0, record=busy)
    assert [len(g.record.extra.get("excused", [])) for g in LeagueGames(lg).games(newest=1)] == [2]
    lg.conn.close()
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    c.post("/login", data={"name": "teacher", "secret": secret,
                           "csrf": csrf_of(c.get("/login").text)})
    line = re.search(r'<p id="busy-machine"[^>]*>(.*?)</p>', c.get("/admin").text, re.S)
    assert line, "no account on the admin page"
    assert html.unescape(line.group(1)) == (
        "Rating games (the newest 1000): busy machine: 2 late moves excused (the machine kept "
        "the bot waiting 102 ms in all), 0 games played again (0 replays), 0 timeouts "
        "charged, in 2 games.")
    page = html.unescape(c.get(f"/games/{gid}").text)
    assert "2 late moves excused (the machine kept the bot waiting 102 ms)" in page
