"""The final's report as the league serves it (issue 40, point 10): a student's copy names no
path of the server (TestClient), and its game filters work under the app's CSP, which allows
no inline handler (the real server and headless Chromium); and a replay's move table keeps
every column in view at 1280 px."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.commands import analysis_oracle
from arena.league import League
from arena.league.analysis import Analyser
from arena.league.standings import record_game
from tests.helpers import browser, log_in, wait_finished  # noqa: F401 (fixture)
from tests.league.helpers import CRASHER, frozen_league, random_won_game
from tests.league.web.conftest import L0, ROOT
from tests.league.web.conftest import client_log_in as client_log_in
from tests.league.web.server_proc import start_server


@pytest.fixture(scope="module")
def final(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str],
                                                                       Any]]:
    """A league whose final round robin has finished (ann's L1, bob's crasher, L0)."""
    d, secrets, c = frozen_league(tmp_path_factory.mktemp("final-report"), "crasher.py",
                                  CRASHER)
    token = client_log_in(c, "teacher", secrets["teacher"])
    assert c.post("/admin/final", data={"csrf": token}).status_code == 200
    assert wait_finished(d) == "finished"
    c.post("/logout", data={"csrf": token})
    yield d, secrets, c


def test_a_students_final_report_names_no_server_path(final: Any) -> None:
    d, secrets, c = final
    token = client_log_in(c, "teacher", secrets["teacher"])
    full = c.get("/final/report.html").text
    assert str(d.resolve()) in full  # the teacher's copy says where it ran
    c.post("/logout", data={"csrf": token})
    token = client_log_in(c, "ann", secrets["ann"])
    public = c.get("/final/report.html").text
    c.post("/logout", data={"csrf": token})
    assert "ann" in public and "bob" in public
    for path in {str(d), str(d.resolve()), str(ROOT), "/tmp/", "/home/"}:
        assert path not in public, path
    assert re.search(r"from final</p>", public)  # the results folder by its name only


def test_the_final_reports_filters_work_under_the_apps_csp(browser: Any,  # noqa: F811
                                                            final: Any) -> None:
    d, secrets, _ = final
    server = start_server(d)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text))
        page.on("pageerror", lambda e: console.append(str(e)))
        log_in(page, server.url, "ann", secrets["ann"])
        page.wait_for_selector("h1:text('Leaderboard')")
        response = page.goto(server.url + "/final/report.html")
        assert response is not None
        script_src = response.headers["content-security-policy"].split("script-src")[1]
        assert "unsafe" not in script_src.split(";")[0]  # the policy stays strict
        page.wait_for_selector("#game-list tr[data-game]")
        count = page.locator("#game-count")
        assert count.inner_text().startswith("6 of 6")
        page.select_option("#f-player", label="bob")
        assert count.inner_text().startswith("4 of 6")
        rows = page.locator("#game-list tbody tr")
        assert all("bob" in t for t in rows.all_inner_texts())
        page.fill("#f-text", "ann")
        assert count.inner_text().startswith("2 of 6")
        page.press("#f-text", "Enter")  # must not submit the form (reloading the page)
        page.wait_for_timeout(500)
        assert page.url == server.url + "/final/report.html"
        assert count.inner_text().startswith("2 of 6")
        assert page.input_value("#f-text") == "ann"
        page.click("#f-clear")
        assert count.inner_text().startswith("6 of 6")
        violations = [m for m in console if "Content Security Policy" in m]
        assert violations == [], violations
        page.close()
    finally:
        server.stop()


#: a user name with no place to break it (letters and digits only)
LONG_NAME = "giovannibianchirossimontecatini2026"


def test_a_replays_move_table_shows_its_last_column_at_1280_px(browser: Any,  # noqa: F811
                                                               tmp_path: Path) -> None:
    """A lost game of a student with a long name, analysed (the move table's last column is
    the verdict): at 1280x800 every column of the move table is within its box, none cut off
    behind a sideways scroll."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[5, 5, 4]]\ntimeout_s: 1\nreference_bots: [L0]\n")
    lg = League.init(tmp_path / "lg", cfg)
    secret = lg.add_user(LONG_NAME)
    sid = lg.submit(LONG_NAME, [("bot.py", L0.read_bytes())]).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    gid = record_game(lg, "L0", f"sub:{sid}", "5x5x4", 1.0, "win", "", random_won_game(8))
    assert Analyser(analysis_oracle).analyse_game(lg, gid) is not None
    lg.conn.close()
    server = start_server(tmp_path / "lg")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        log_in(page, server.url, LONG_NAME, secret)
        page.wait_for_selector("h1:text('Leaderboard')")
        page.goto(f"{server.url}/games/{gid}")
        page.wait_for_selector("#viewer .cx-moves tbody tr")
        heads = page.locator("#viewer .cx-moves thead th")
        assert heads.last.inner_text() == "verdict"
        box = page.locator("#viewer .cx-moves")
        assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        last, frame = heads.last.bounding_box(), box.bounding_box()
        assert last is not None and frame is not None
        assert last["x"] + last["width"] <= frame["x"] + frame["width"] + 1
        assert last["x"] + last["width"] <= 1280
        page.close()
    finally:
        server.stop()
