"""The admin page for a class (issue 40, point 9): a compact roster of every student (versions,
latest check, entry, score against each reference bot, rating with its interval, rank, faults,
state) that a search filters, server-side with ``?q=`` and in the browser with admin.js; the
sessions and the per-user buttons on each student's own page (``/admin/user/NAME``), admins
only."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markupsafe import escape
from starlette.testclient import TestClient

from arena.league import League
from arena.league.standings import record_game
from arena.league.web.app import create_app
from tests.helpers import browser, log_in  # noqa: F401 (the fixture)
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[3]
L0 = (ROOT / "players" / "L0.py").read_bytes()
STUDENTS = 50
#: what a student wrote in a failed check's words (their bot's exception)
HOSTILE = '<img src=x onerror="window.__xss=1">'


def _league(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """50 students s01..s50 and a teacher: s01..s40 uploaded (s01..s30 passed; s31..s40
    failed their check, s40's words hostile), s01..s20 played the reference bots, s05 is
    disabled."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\ntimeout_s: 0.5\nreference_bots: [L0, L1]\n"
                   "isolation: false\nopening_plies: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True)}
    names = [f"s{i:02d}" for i in range(1, STUDENTS + 1)]
    secrets.update(lg.add_users(names))
    for i, name in enumerate(names[:40], 1):
        lg.submit(name, [("bot.py", L0 + f"\n# {i}\n".encode())])
    lg.submit("s01", [("bot.py", L0 + b"\n# again\n")])  # s01 v2: id 41
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='superseded' WHERE id=1")
        lg.conn.execute("UPDATE submissions SET status='rating' WHERE id BETWEEN 2 AND 30 "
                        "OR id=41")
        lg.conn.execute("UPDATE submissions SET status='failed', check_summary='crashed: "
                        "ValueError' WHERE id BETWEEN 31 AND 40")
        lg.conn.execute("UPDATE submissions SET check_summary=? WHERE id=40", (HOSTILE,))
    for sid in [41, *range(2, 21)]:  # s01 (v2) beats L0 2-0, the others draw it; L1 beats all
        points = 1.0 if sid == 41 else 0.5
        record_game(lg, f"sub:{sid}", "L0", "4x4x3", points)
        record_game(lg, "L0", f"sub:{sid}", "4x4x3", 1 - points)
        record_game(lg, f"sub:{sid}", "L1", "4x4x3", 0.0)
        record_game(lg, "L1", f"sub:{sid}", "4x4x3", 1.0, "timeout", f"sub:{sid}")
    lg.set_disabled("s05")
    lg.conn.close()
    return d, secrets


def _client(d: Path, name: str, secret: str) -> TestClient:
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    assert c.post("/login", data={"name": name, "secret": secret,
                                  "csrf": token}, follow_redirects=False).status_code == 303
    return c


def _roster(page: str) -> dict[str, list[str]]:
    """The roster's rows: student -> the text of each cell."""
    table = re.search(r'<table id="roster".*?</table>', page, re.S)
    assert table, "no roster table"
    rows = {}
    for row in re.findall(r"<tr data-name=.*?</tr>", table.group(0), re.S):
        cells = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        rows[cells[0]] = cells
    return rows


@pytest.fixture(scope="module")
def roster_league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return _league(tmp_path_factory.mktemp("roster"))


def test_the_roster_has_a_compact_row_per_student(roster_league) -> None:  # type: ignore[no-untyped-def]
    d, secrets = roster_league
    student = _client(d, "s02", secrets["s02"])  # a live session of s02
    page = _client(d, "teacher", secrets["teacher"]).get("/admin").text
    rows = _roster(page)
    assert len(rows) == STUDENTS and "teacher" not in rows  # the admin is not a student
    head = re.search(r'<table id="roster".*?</thead>', page, re.S).group(0)  # type: ignore[union-attr]
    assert "vs L0" in head and "vs L1" in head and "Rating" in head and "Rank" in head
    # Student, Versions, Latest check, Entry, vs L0, vs L1, Rating, Rank, Faults, Sess., State
    s01 = rows["s01"]
    assert s01[1] == "2 / 2" and s01[2] == "v2 rating" and s01[3] == "v2"
    assert s01[4] == "2/2" and s01[5] == "0/2"  # beats L0, not L1
    assert re.fullmatch(r"-?\d+\.\d \[-?\d+\.\d, -?\d+\.\d\]", s01[6]), s01[6]
    assert s01[7] == "1" and s01[8] == "1" and s01[10] == "active"
    assert rows["s02"][4] == "1/2" and rows["s02"][9] == "1"  # a draw; one session
    assert re.search(r'<td class="num vs-ref beats"[^>]*>2/2</td>', page)  # marked
    assert rows["s05"][10] == "disabled" and rows["s05"][7] == ""  # out of the leaderboard
    assert rows["s25"][2] == "v1 rating" and rows["s25"][6] == ""  # passed, no game yet
    assert rows["s33"][1] == "1 / 0" and rows["s33"][2] == "v1 failed"
    assert rows["s50"][1] == "0 / 0" and rows["s50"][2] == "nothing yet"
    # the check's words, a student's, are escaped (shown in the link's title)
    assert HOSTILE not in page and str(escape(HOSTILE)) in page
    # compact: no per-user buttons or sessions on the main page, the name links to them
    assert 'name="session"' not in page and "Reset secret" not in page
    assert "End all sessions" not in page and 'href="/admin/user/s01"' in page
    assert page.count('action="/admin/disable"') <= 20  # only the newest uploads
    assert page.count('src="/static/admin.js"') == 1
    student.close()


def test_the_roster_search_works_without_javascript(roster_league) -> None:  # type: ignore[no-untyped-def]
    d, secrets = roster_league
    c = _client(d, "teacher", secrets["teacher"])
    assert sorted(_roster(c.get("/admin?q=S4").text)) == [f"s{i}" for i in range(40, 50)]
    assert sorted(_roster(c.get("/admin", params={"q": " s07 "}).text)) == ["s07"]
    page = c.get("/admin", params={"q": HOSTILE}).text
    assert _roster(page) == {} and "No student's name holds" in page
    assert HOSTILE not in page
    page = c.get("/admin", params={"q": "x" * 10_000}).text  # bounded, not an error
    assert 'value="' + "x" * 100 + '"' in page and "x" * 101 not in page


def test_sessions_and_buttons_are_on_the_students_page_for_admins_only(
        roster_league) -> None:  # type: ignore[no-untyped-def]
    d, secrets = roster_league
    s03 = _client(d, "s03", secrets["s03"])
    assert s03.get("/admin/user/s03").status_code == 403  # not even their own
    assert s03.get("/admin/user/s04").status_code == 403
    t = _client(d, "teacher", secrets["teacher"])
    assert t.get("/admin/user/nobody").status_code == 404
    page = t.get("/admin/user/s03").text
    assert re.search(r'<tr class="session">.*?last seen|<th>Last seen</th>', page, re.S)
    assert "End all sessions" in page and "Reset secret" in page and "Disable user" in page
    forms = re.findall(r"<form[^>]*action=\"/admin/[^\"]+\"[^>]*>", page)
    assert forms and all("data-confirm=" in f for f in forms), forms
    assert page.count('src="/static/admin.js"') == 1
    assert "v1" in page and 'action="/admin/disable"' in page  # their versions
    key = re.search(r'name="session" value="([0-9a-f]+)"', page)
    assert key
    r = t.post("/admin/user", data={"user": "s03", "action": "end-sessions",
                                    "session": key.group(1), "csrf": csrf_of(page)})
    assert r.status_code == 200 and "1 session(s) of s03 ended" in r.text
    assert 'id="account" data-user="s03"' in r.text  # back on s03's page
    assert s03.get("/", follow_redirects=False).status_code == 303  # logged out
    assert "No live session." in t.get("/admin/user/s03").text
    # a failed check's hostile words on that student's page too, as text
    assert HOSTILE not in t.get("/admin/user/s40").text


def test_the_roster_search_and_sort_in_the_browser(
        roster_league, browser) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """admin.js under the app's CSP: typing filters the rows, a heading sorts them, and a
    confirm() is asked once."""
    from tests.league.web.server_proc import start_server

    d, secrets = roster_league
    lg = League.open(d)
    lg.freeze()  # no rating games meanwhile
    lg.conn.close()
    server = start_server(d)
    try:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))  # a script's error
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
                if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
        log_in(page, server.url, "teacher", secrets["teacher"])
        page.wait_for_selector("h1:text('Leaderboard')")
        page.goto(server.url + "/admin")
        visible = "#roster tbody tr[data-name]:visible"
        assert page.locator(visible).count() == STUDENTS
        page.fill("#roster-search", "S1")
        assert page.locator(visible).count() == 10  # s10..s19, as one types
        page.fill("#roster-search", "")
        assert page.locator(visible).count() == STUDENTS
        page.click("#roster th:text('Rank')")
        first = page.locator("#roster tbody tr").first.get_attribute("data-name")
        assert first == "s01", first  # rank 1
        page.click("#roster th:text('Rank')")
        assert page.locator("#roster tbody tr").first.get_attribute("data-name") != "s01"
        page.goto(server.url + "/admin/user/s09")
        asked: list[str] = []

        def dismiss(dialog) -> None:  # type: ignore[no-untyped-def]
            asked.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dismiss)
        page.click("#reset-secret")
        page.wait_for_timeout(500)
        assert len(asked) == 1 and "new secret" in asked[0]  # once, and nothing was done
        assert "New secret" not in (page.text_content("body") or "")
        assert not errors, errors
        page.close()
    finally:
        server.stop()
