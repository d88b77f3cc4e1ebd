"""Where did I lose: the student's "My games" page and the analysis in a lost game's replay.

Through Starlette's TestClient (a league whose worker played and analysed its games in this
process): the list holds the student's games only, newest first, with working filters (a value
not offered is ignored, never echoed); a lost game's page carries the cached analysis and names
the student's first blunder, for its author and admins only.

In a real headless Chromium against the real server (`cxarena league serve`: its check thread
and its worker process, which gets the solver from the command layer): alice opens "My games"
from the nav, filters it, opens a lost game and sees the evaluation strip with her first
blunder marked."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.commands import analysis_oracle
from arena.league import League
from arena.league.analysis import cached_analysis, first_blunder
from arena.league.feed import run_worker
from arena.league.web.app import create_app
from tests.helpers import browser, log_in  # noqa: F401 (fixture)
from tests.league.helpers import all_played
from tests.league.web.conftest import ROOT, csrf_of
from tests.league.web.server_proc import start_server

L0 = (ROOT / "players" / "L0.py").read_bytes()
CONFIG = ("boards: [[5, 5, 4], [5, 6, 4]]\ntimeout_s: 0.5\npairs_per_submission: 2\n"
          "max_pairs_per_submission: 2\nreference_bots: [L1]\nopening_plies: 0\n"
          "analysis_budget_s: 1.0\n")


def make_league(d: Path, extra: str = "") -> dict[str, str]:
    cfg = d.parent / f"{d.name}.yaml"
    cfg.write_text(CONFIG + extra)
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n, admin=(n == "teacher")) for n in ("teacher", "alice", "bob")}
    for n in ("alice", "bob"):
        lg.submit(n, [(f"{n}.py", L0)])  # random moves: they lose to L1, with blunders
    lg.conn.close()
    return secrets


def lost(d: Path, user: str) -> list[tuple[int, int]]:
    """(game id, the user's player number) of the games `user` lost, newest first."""
    with sqlite3.connect(d / "league.sqlite") as c:
        mine = {f"sub:{r[0]}" for r in c.execute("SELECT id FROM submissions WHERE user=?",
                                                 (user,))}
        out = []
        for gid, a, b, score in c.execute("SELECT id, side_a, side_b, score_a FROM games "
                                          "ORDER BY id DESC"):
            if a in mine and score == 0.0:
                out.append((gid, 1))
            elif b in mine and score == 1.0:
                out.append((gid, 2))
        return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    d = tmp_path_factory.mktemp("mygames") / "lg"
    secrets = make_league(d, "isolation: false\n")
    with sqlite3.connect(d / "league.sqlite") as c:  # the check is tested elsewhere
        c.execute("UPDATE submissions SET status='rating'")
    assert run_worker(d, None, max_pairs=20, oracle_factory=analysis_oracle) >= 2
    return d, secrets


def client(d: Path, user: str, secret: str) -> TestClient:
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": user, "secret": secret, "csrf": token})
    assert r.status_code == 303, r.text
    return c


def listed(page: str) -> list[int]:
    return [int(x) for x in re.findall(r'<tr data-game="(\d+)"', page)]


def test_my_games_lists_the_students_games_with_filters(played: tuple[Path, dict]) -> None:
    d, secrets = played
    c = client(d, "alice", secrets["alice"])
    page = c.get("/my-games")
    assert page.status_code == 200 and 'href="/my-games"' in c.get("/").text  # the nav
    with sqlite3.connect(d / "league.sqlite") as db:
        alice = [r[0] for r in db.execute(
            "SELECT id FROM games WHERE side_a='sub:1' OR side_b='sub:1' ORDER BY id DESC")]
        opponents = {r[0] for r in db.execute(
            "SELECT CASE WHEN side_a='sub:1' THEN side_b ELSE side_a END FROM games "
            "WHERE side_a='sub:1' OR side_b='sub:1'")}
    assert alice and listed(page.text) == alice  # hers only, newest first
    for gid in alice:
        assert f'href="/games/{gid}"' in page.text
    losses = [gid for gid, _ in lost(d, "alice")]
    assert listed(c.get("/my-games?result=loss").text) == losses
    assert set(listed(c.get("/my-games?result=win").text)).isdisjoint(losses)
    assert "L1" in opponents
    with sqlite3.connect(d / "league.sqlite") as db:
        versus_l1 = [r[0] for r in db.execute(
            "SELECT id FROM games WHERE (side_a='sub:1' AND side_b='L1') OR "
            "(side_b='sub:1' AND side_a='L1') ORDER BY id DESC")]
        on_55 = [r[0] for r in db.execute(
            "SELECT id FROM games WHERE (side_a='sub:1' OR side_b='sub:1') AND board='5x5x4' "
            "ORDER BY id DESC")]
    assert listed(c.get("/my-games?opponent=L1").text) == versus_l1
    assert listed(c.get("/my-games?board=5x5x4").text) == on_55
    both = listed(c.get("/my-games?opponent=L1&result=loss").text)
    assert both == [g for g in versus_l1 if g in losses]
    # a value not offered is ignored and never reaches the page
    evil = c.get("/my-games", params={"board": "<script>x</script>", "result": "nope"})
    assert listed(evil.text) == alice and "<script>x" not in evil.text
    # the analysed losses say where the first blunder was
    with sqlite3.connect(d / "league.sqlite") as db:
        analysed = {r[0] for r in db.execute("SELECT game_id FROM analyses")}
    assert {gid for gid in losses} <= analysed


def _game_object(page: str) -> dict[str, Any]:
    m = re.search(r'<div id="viewer" data-game="([^"]*)"', page)
    assert m, "no viewer on the page"
    return dict(json.loads(html.unescape(m.group(1))))


def _a_lost_game_with_a_blunder(d: Path, user: str) -> tuple[int, int, int]:
    """(game id, player, ply of the first blunder) of a game `user` lost with a blunder."""
    lg = League.open(d)
    try:
        for gid, player in lost(d, user):
            a = cached_analysis(lg, gid)
            fb = None if a is None else first_blunder(a, player)
            if fb is not None:
                return gid, player, fb.ply
    finally:
        lg.conn.close()
    raise AssertionError(f"{user} lost no analysed game with a blunder")


def test_a_lost_games_replay_has_the_analysis_for_its_author(played: tuple[Path, dict]
                                                             ) -> None:
    d, secrets = played
    gid, player, ply = _a_lost_game_with_a_blunder(d, "alice")
    alice = client(d, "alice", secrets["alice"]).get(f"/games/{gid}").text
    game = _game_object(alice)
    assert len(game["analysis"]["positions"]) == len(game["moves"]) + 1
    assert f"Your first blunder: move {ply + 1}</strong>" in alice
    m = re.search(r'id="first-blunder" class="notice" data-blunder="([^"]*)"', alice)
    assert m and json.loads(html.unescape(m.group(1)))["ply"] == ply
    assert json.loads(html.unescape(m.group(1)))["player"] == player
    # the teacher sees it too, named; another student sees the bare replay
    teacher = client(d, "teacher", secrets["teacher"]).get(f"/games/{gid}").text
    assert "analysis" in _game_object(teacher)
    assert f"First blunder of alice v1: move {ply + 1}" in teacher
    with sqlite3.connect(d / "league.sqlite") as db:
        sides = db.execute("SELECT side_a, side_b FROM games WHERE id=?", (gid,)).fetchone()
    if "sub:2" not in sides:  # a game of alice's that bob did not play
        bob = client(d, "bob", secrets["bob"]).get(f"/games/{gid}").text
        assert "analysis" not in _game_object(bob) and 'id="first-blunder"' not in bob


def test_a_game_not_analysed_yet_says_so(played: tuple[Path, dict]) -> None:
    d, secrets = played
    gid, _, _ = _a_lost_game_with_a_blunder(d, "alice")
    with sqlite3.connect(d / "league.sqlite") as db:
        row = db.execute("SELECT json FROM analyses WHERE game_id=?", (gid,)).fetchone()
        db.execute("DELETE FROM analyses WHERE game_id=?", (gid,))
    try:
        page = client(d, "alice", secrets["alice"]).get(f"/games/{gid}").text
        assert 'id="analysis-pending"' in page and "analysis" not in _game_object(page)
    finally:
        with sqlite3.connect(d / "league.sqlite") as db:
            db.execute("INSERT INTO analyses VALUES (?, ?, ?)", (gid, row[0], time.time()))


# ---------------------------------------------------------------- the real server, in Chromium
@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path, dict]]:
    d = tmp_path_factory.mktemp("mygames-live") / "lg"
    secrets = make_league(d)
    server = start_server(d)
    try:
        yield server, d, secrets
    finally:
        server.stop()


def _settled(d: Path) -> bool:
    """Every pair played, and every game a student lost analysed."""
    with sqlite3.connect(d / "league.sqlite") as c:
        subs = c.execute("SELECT status FROM submissions").fetchall()
        if any(s[0] != "rating" for s in subs):
            return False
        games = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        leases = c.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
        analysed = {r[0] for r in c.execute("SELECT game_id FROM analyses")}
    losses = {gid for u in ("alice", "bob") for gid, _ in lost(d, u)}
    if not games or leases or not losses <= analysed:
        return False
    lg = League.open(d)
    try:
        return all_played(lg)
    finally:
        lg.conn.close()


def test_browser_my_games_and_the_first_blunder(browser: Any, serving: Any) -> None:  # noqa: F811
    server, d, secrets = serving
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not _settled(d):
        time.sleep(0.5)
    assert _settled(d), "".join(server.output[-30:])
    gid, _, ply = _a_lost_game_with_a_blunder(d, "alice")
    ctx = browser.new_context()
    errors: list[str] = []
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in(page, server.url, "alice", secrets["alice"])
    page.wait_for_selector("h1:text('Leaderboard')")
    # the leaderboard: the reference bot a row of its own, marked, unranked, the scale's anchor
    ref = page.locator("#standings tr.reference.anchor")
    assert ref.count() == 1 and "reference · anchor" in ref.inner_text()
    assert ref.locator("td").first.inner_text().strip() == ""  # no rank
    assert "fixed" in ref.inner_text()
    mine = page.locator("#standings tr.mine")
    assert mine.count() == 1 and "L1 " in mine.inner_text()  # its score against L1
    page.click("#nav-my-games")
    page.wait_for_selector("h1:text('My games')")
    rows = page.locator("#my-games tbody tr")
    with sqlite3.connect(d / "league.sqlite") as c:
        total = c.execute("SELECT COUNT(*) FROM games WHERE side_a='sub:1' OR side_b='sub:1'"
                          ).fetchone()[0]
    assert rows.count() == total
    # the filters: losses only, then losses against L1
    page.select_option("#filter-result", "loss")
    page.click("#apply")
    page.wait_for_url("**/my-games?*result=loss*")
    results = rows.evaluate_all("rs => rs.map(r => r.getAttribute('data-result'))")
    assert results and set(results) == {"loss"} and len(results) == len(lost(d, "alice"))
    page.select_option("#filter-opponent", "L1")
    page.click("#apply")
    page.wait_for_url("**/my-games?*opponent=L1*")
    opponents = rows.evaluate_all("rs => rs.map(r => r.getAttribute('data-opponent'))")
    assert set(opponents) <= {"L1"}
    # a lost game with a blunder: open its replay from the list
    page.goto(server.url + "/my-games?result=loss")
    page.click(f"#my-games tr[data-game='{gid}'] td.analysis a")
    page.wait_for_url(f"**/games/{gid}")
    page.wait_for_selector("#viewer .cx-evalstrip")
    moves = page.locator("#viewer .cx-moves tbody tr").count()
    assert page.locator(".cx-evalstrip .cx-eval").count() == moves + 1
    marked = page.locator(".cx-moves tr.cx-first-blunder")
    assert marked.count() == 1 and marked.get_attribute("data-move") == str(ply + 1)
    assert "cx-blunder" in (marked.get_attribute("class") or "")
    cell = page.locator(".cx-evalstrip .cx-first-blunder")
    assert cell.count() == 1 and cell.get_attribute("data-ply") == str(ply)
    assert f"Your first blunder: move {ply + 1}" in page.inner_text("#first-blunder")
    # the viewer opened just after it: the status line says it was a blunder
    assert "Blunder" in page.inner_text(".cx-status")
    page.keyboard.press("End")
    page.click("#goto-blunder")
    assert page.evaluate("window.cxviewer.position()") == ply + 1
    assert errors == []
    ctx.close()
