"""The league in a real headless Chromium (Playwright, Debian's /usr/bin/chromium) against the
real server (uvicorn on 127.0.0.1 in a subprocess, with its check and game workers): log in,
upload a bot, see its check pass and its rating games appear, replay one, the leaderboard; the
403s for another user's code, stderr and download; a POST without the CSRF token; rate-limited
logins; and a `kill -9` of the server followed by a restart that lost nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league import League
from tests.helpers import browser, log_in  # noqa: F401 (the fixture)
from tests.league.web.conftest import ROOT, csrf_of
from tests.league.web.server_proc import Server, start_server

L1 = ROOT / "players" / "L1.py"
L0 = ROOT / "players" / "L0.py"


def make_league(d: Path) -> dict[str, str]:
    cfg = d.parent / f"{d.name}.yaml"
    cfg.write_text("board_set: competition\ntimeout_s: 0.5\npairs_per_submission: 2\n"
                   "max_pairs_per_submission: 2\n"
                   "reference_bots: [L0]\n")
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n, admin=(n == "teacher")) for n in ("teacher", "alice", "bob")}
    secrets["bob_sub"] = str(lg.submit("bob", [("bob.py", L0.read_bytes())]).id)
    lg.conn.close()
    return secrets


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path, dict]]:
    d = tmp_path_factory.mktemp("league") / "lg"
    secrets = make_league(d)
    server = start_server(d)
    yield server, d, secrets
    server.stop()


def test_student_uploads_and_sees_check_games_replay(browser, running) -> None:
    server, _, secrets = running
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, server.url, "alice", secrets["alice"])
    page.wait_for_selector("h1:text('Leaderboard')")
    page.click("text=Submit")
    page.set_input_files("#files", str(L1))
    page.click("#upload")
    page.wait_for_url("**/submissions/*")
    page.wait_for_selector("#check-verdict:text('The check passed')", timeout=60_000)
    page.wait_for_selector("#games tbody tr", timeout=60_000)  # appears without a reload
    page.click("#games tbody tr a")
    page.wait_for_url("**/games/*")
    page.wait_for_selector("#viewer svg")
    holes = page.locator("#viewer svg [data-state='1']").count()
    assert holes > 0
    page.goto(server.url + "/")
    page.wait_for_selector("#standings td:text('alice')", timeout=60_000)
    ctx.close()


def test_other_users_data_is_403_csrf_refused(browser, running) -> None:
    server, _, secrets = running
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, server.url, "alice", secrets["alice"])
    page.wait_for_selector("h1:text('Leaderboard')")
    bob = secrets["bob_sub"]
    for path in (f"/submissions/{bob}", f"/submissions/{bob}/download",
                 f"/submissions/{bob}/status.json"):
        resp = ctx.request.get(server.url + path)
        assert resp.status == 403, path
    r = page.goto(server.url + f"/submissions/{bob}")
    assert r is not None and r.status == 403
    assert "not yours" in page.text_content("#message")
    assert page.goto(server.url + "/submissions/987654").status == 404
    # a POST that carries the session cookie but not the form's CSRF token is refused
    resp = ctx.request.post(server.url + "/submit", multipart={
        "files": {"name": "bot.py", "mimeType": "text/x-python", "buffer": L0.read_bytes()}})
    assert resp.status == 403 and "CSRF" in resp.text()
    token = csrf_of(page.content())
    resp = ctx.request.post(server.url + "/submit", multipart={
        "csrf": token,
        "files": {"name": "evil.zip", "mimeType": "application/zip", "buffer": b"PK nope"}})
    assert resp.status == 400 and "not a valid zip" in resp.text()
    ctx.close()


def test_login_rate_limited(browser, running) -> None:
    server, _, _ = running
    ctx = browser.new_context()
    page = ctx.new_page()
    for _ in range(5):
        log_in(page, server.url, "bob", "not-the-secret")
        assert "wrong secret" in page.text_content("#message")
    log_in(page, server.url, "bob", "still-not")
    assert "Too many failed logins" in page.text_content("#message")
    ctx.close()


def test_kill_9_loses_nothing(browser, tmp_path: Path) -> None:
    d = tmp_path / "lg"
    secrets = make_league(d)
    server = start_server(d)
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        log_in(page, server.url, "alice", secrets["alice"])
        page.wait_for_selector("h1:text('Leaderboard')")
        page.goto(server.url + "/submit")
        page.set_input_files("#files", str(L1))
        page.click("#upload")
        page.wait_for_url("**/submissions/*")
        sub_url = page.url
        mine = f"sub:{sub_url.rstrip('/').rsplit('/', 1)[1]}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(mine in g[1:3] for g in _game_rows(d)):
            time.sleep(0.2)
        assert any(mine in g[1:3] for g in _game_rows(d))
        before_games = _game_rows(d)
        before_subs = _sub_rows(d)
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
    finally:
        server.stop()
    server = start_server(d)
    try:
        assert _sub_rows(d) == before_subs
        after = _game_rows(d)
        assert after[: len(before_games)] == before_games
        # the same browser session goes on (the session key outlived the server)
        page.goto(sub_url.replace(sub_url.split("/submissions")[0], server.url))
        first_mine = next(g[0] for g in before_games if mine in g[1:3])
        page.wait_for_selector(f"#games tbody tr a[href='/games/{first_mine}']")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _games(d) <= len(before_games):
            time.sleep(0.2)
        assert _games(d) > len(before_games)  # the workers went on after the restart
        ctx.close()
    finally:
        server.stop()


def _games(d: Path) -> int:
    with sqlite3.connect(d / "league.sqlite") as c:
        try:
            return int(c.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def _game_rows(d: Path) -> list[tuple]:
    with sqlite3.connect(d / "league.sqlite") as c:
        return c.execute("SELECT id, side_a, side_b, board, score_a FROM games ORDER BY id"
                         ).fetchall()


def _sub_rows(d: Path) -> list[tuple]:
    with sqlite3.connect(d / "league.sqlite") as c:
        return c.execute("SELECT id, user, version, fingerprint FROM submissions ORDER BY id"
                         ).fetchall()
