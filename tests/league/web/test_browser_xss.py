"""Stored XSS, tried for real: a hostile student's texts in a real headless Chromium against the
real server (uvicorn on 127.0.0.1, its check thread and game worker).

Mallory uploads, through the browser, a bot whose file name is markup. Its playerName() is
markup; it writes a script to stderr; and it raises an exception whose text closes a <script>
element, but only in rating games, which start from an opening (the check's games start from
the empty board, so its check passes). Eve uploads a bot whose check fails with the same text
in its exception and on stderr. The teacher (admin) and bob (another student) then open every
page that shows them. No script runs on any page (each payload would set window.__xss), every
response carries the CSP, the payloads are shown as text to their author and the admin, and
bob sees the games without the bots' words. User names cannot hold markup at all (see
test_security.py). The same test checks that the server trusts no X-Forwarded-For header."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from arena.league import League
from tests.helpers import browser, log_in  # noqa: F401 (the fixture)
from tests.league.web.conftest import ROOT, csrf_of
from tests.league.web.server_proc import Server, start_server

PAYLOAD = '</script><script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
NAME_PAYLOAD = "<img src=x onerror=window.__xss=3>"  # 34 characters: a usable playerName
FILE_PAYLOAD = "<img src=x onerror=window.__xss=4>.py"

MALLORY = f'''
import sys
from arena.player import CXPlayer

PAYLOAD = {PAYLOAD!r}


class Mallory(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.moves = 0
        sys.stderr.write(PAYLOAD + "\\n")

    def selectColumn(self, B):
        self.moves += 1
        if self.moves == 1 and B.numOfMarkedCells() >= 2:  # an opening: a rating game
            raise ValueError(PAYLOAD)
        return B.getAvailableColumns()[0]

    def playerName(self):
        return {NAME_PAYLOAD!r}
'''

EVE = f'''
import sys
from arena.player import CXPlayer


class Eve(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        sys.stderr.write({PAYLOAD!r} + "\\n")
        raise ValueError({PAYLOAD!r})

    def selectColumn(self, B):
        return 0

    def playerName(self):
        return "eve"
'''


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path, dict]]:
    base = tmp_path_factory.mktemp("xss")
    cfg = base / "league.yaml"
    cfg.write_text("board_set: [[6, 7, 4]]\ntimeout_s: 0.5\npairs_per_submission: 1\n"
                   "max_pairs_per_submission: 1\nopening_plies: 2\nreference_bots: [L0]\n")
    d = base / "lg"
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n, admin=(n == "teacher"))
               for n in ("teacher", "mallory", "eve", "bob")}
    secrets["eve_sub"] = str(lg.submit("eve", [("eve.py", EVE.encode())]).id)
    lg.submit("bob", [("bob.py", (ROOT / "players" / "L0.py").read_bytes())])
    lg.conn.close()
    (base / "up").mkdir()
    (base / "up" / FILE_PAYLOAD).write_text(MALLORY)
    secrets["file"] = str(base / "up" / FILE_PAYLOAD)
    server = start_server(d)
    yield server, d, secrets
    server.stop()


def _rows(d: Path, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(d / "league.sqlite") as c:
        return c.execute(sql, args).fetchall()


def _wait(what: str, probe, timeout_s: float = 90.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def visit(ctx, url: str) -> tuple[int, str, object]:  # type: ignore[no-untyped-def]
    """Open `url` in a new page, let its scripts run; (status, CSP header, window.__xss)."""
    page = ctx.new_page()
    resp = page.goto(url)
    assert resp is not None
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # the submission page's first render and poll
    xss = page.evaluate("window.__xss")
    text = page.text_content("body") or ""
    page.close()
    return resp.status, resp.headers.get("content-security-policy", ""), (xss, text)


def test_no_student_text_runs_in_any_browser(browser, hostile) -> None:  # noqa: F811
    server, d, secrets = hostile
    # mallory uploads through the browser: the file name is markup too
    m_ctx = browser.new_context()
    page = m_ctx.new_page()
    log_in(page, server.url, "mallory", secrets["mallory"])
    page.wait_for_selector("h1:text('Leaderboard')")
    page.goto(server.url + "/submit")
    page.set_input_files("#files", secrets["file"])
    page.click("#upload")
    page.wait_for_url("**/submissions/*")
    msub = int(page.url.rstrip("/").rsplit("/", 1)[1])
    page.wait_for_selector("#check-verdict:text('The check passed')", timeout=90_000)
    assert page.evaluate("window.__xss") is None
    esub = int(secrets["eve_sub"])
    _wait("eve's check", lambda: _rows(d, "SELECT 1 FROM submissions WHERE id=? AND "
                                          "status='failed'", esub))
    crash = _wait("a rating game in which mallory's bot crashed", lambda: _rows(
        d, "SELECT id FROM games WHERE (side_a=? OR side_b=?) AND reason='crash'",
        f"sub:{msub}", f"sub:{msub}"))[0][0]
    pages = ["/", "/submit", f"/games/{crash}", f"/games/{crash}/log/{msub}",
             f"/submissions/{msub}", f"/submissions/{esub}", "/admin"]
    t_ctx = browser.new_context()
    log_in(t_ctx.new_page(), server.url, "teacher", secrets["teacher"])
    b_ctx = browser.new_context()
    log_in(b_ctx.new_page(), server.url, "bob", secrets["bob"])
    seen: dict[tuple[str, str], str] = {}
    for who, ctx in (("teacher", t_ctx), ("bob", b_ctx), ("mallory", m_ctx)):
        for path in pages:
            status, csp, (xss, text) = visit(ctx, server.url + path)
            assert xss is None, f"a script ran on {path} as {who}"
            assert "script-src 'self'" in csp and "object-src 'none'" in csp, (who, path)
            seen[who, path] = text if status == 200 else f"<{status}>"
    # the texts are shown, as text, to their author and to the admin
    for who in ("teacher", "mallory"):
        assert "window.__xss=1" in seen[who, f"/games/{crash}"], who  # the exception
        assert "window.__xss=1" in seen[who, f"/games/{crash}/log/{msub}"], who  # stderr
        assert FILE_PAYLOAD in seen[who, f"/submissions/{msub}"], who  # the file name
    assert "window.__xss=1" in seen["teacher", f"/submissions/{esub}"]  # eve's failed check
    assert seen["bob", f"/games/{crash}/log/{msub}"] == "<403>"
    # a failed check is not "your first version that passed its check" (issue 32)
    assert "first version that passed" not in seen["teacher", f"/submissions/{esub}"]
    assert "None: this version's check failed" in seen["teacher", f"/submissions/{esub}"]
    # bob sees mallory's game, how it ended, and none of her bot's words
    assert "crash" in seen["bob", f"/games/{crash}"]
    assert "__xss" not in seen["bob", f"/games/{crash}"]
    assert seen["bob", f"/submissions/{msub}"] == "<403>"
    for ctx in (m_ctx, t_ctx, b_ctx):
        ctx.close()


def test_forwarded_header_is_not_trusted(hostile) -> None:
    """uvicorn would take X-Forwarded-For from 127.0.0.1: the league's server does not, so the
    login limit keys on the real address (and the session list shows it)."""
    server, d, secrets = hostile
    codes = []
    with httpx.Client(base_url=server.url) as c:
        token = csrf_of(c.get("/login").text)
        for i in range(12):
            r = c.post("/login", data={"name": "eve", "secret": "wrong", "csrf": token},
                       headers={"X-Forwarded-For": f"10.0.0.{i}"})
            codes.append(r.status_code)
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}, codes
    with httpx.Client(base_url=server.url) as c:
        token = csrf_of(c.get("/login").text)
        r = c.post("/login", data={"name": "bob", "secret": secrets["bob"], "csrf": token},
                   headers={"X-Forwarded-For": "10.9.9.9"})
        assert r.status_code == 303
    clients = [r[0] for r in _rows(d, "SELECT client FROM sessions WHERE user='bob'")]
    assert clients and "10.9.9.9" not in clients and "127.0.0.1" in clients
