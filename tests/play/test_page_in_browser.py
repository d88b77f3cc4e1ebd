"""The play page of `cxarena serve` in a real headless Chromium (Playwright, /usr/bin/chromium):
no request of any page ends in 404 (the icon every browser asks for included), the board's
inputs stand in one row, and a 50 x 50 board (the competition's largest) fits the page and is
played by clicking: issue 42, point 9."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.records import Reason
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import (
    browser,  # noqa: F401 (the fixture)
    cx_record,
    play_server,
)

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`cxarena serve --port 0` over a results root that holds one stored folder; yields its
    address."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "configs").mkdir()
    stored = tmp / "results" / "stored"
    stored.mkdir(parents=True)
    record = cx_record(M=4, N=4, K=4, p1="L0", p2="L1", names=("L0", "L1"),
                        moves=(0, 1, 0, 1, 0, 1, 0), times_ms=(1.0,) * 7, winner=1,
                        reason=Reason.CONNECT, detail="", seed=1)
    with ResultStore(stored / DB_FILE) as store:
        store.set_meta("name", "stored")
        store.add(record.labelled(game_id="g1", round=1, player1="L0", player2="L1"))
    with play_server(tmp / "configs", tmp / "results" / "play") as (url, _):
        yield url


#: the icon a page names (a <link rel="icon">), else the one every browser asks for
ICON = """() => {
  const link = document.querySelector("link[rel~='icon']");
  return link ? link.href : new URL('/favicon.ico', location.href).href;
}"""


@pytest.mark.parametrize("path", ["", "games", "results", "results/stored/"])
def test_no_request_of_a_page_ends_in_404(server: str, browser: Any, path: str) -> None:
    page = browser.new_page(viewport=VIEWPORT)
    statuses: list[tuple[int, str]] = []
    page.on("response", lambda r: statuses.append((r.status, r.url)))
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    icon = page.evaluate(ICON)
    response = page.request.get(icon)  # headless Chromium asks for no icon: ask as a tab does
    statuses.append((response.status, icon))
    page.close()
    assert statuses and statuses[0][0] == 200
    assert [(s, u) for s, u in statuses if s >= 400] == []
    assert response.headers["content-type"].startswith("image/")


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return [page.locator(selector).nth(i).bounding_box()
            for i in range(page.locator(selector).count())]


def test_the_board_inputs_stand_in_one_row(server: str, browser: Any) -> None:
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(server)
    page.wait_for_selector("#param-k")
    found = boxes(page, "#params input")
    page.close()
    assert len(found) == 3  # rows, columns, K in a row
    tops = [b["y"] for b in found]
    assert max(tops) - min(tops) < min(b["height"] for b in found) / 2  # one line
    lefts = [b["x"] for b in found]
    assert lefts == sorted(lefts) and len(set(lefts)) == 3  # side by side, in order


def test_a_fifty_by_fifty_board_fits_and_is_played(server: str, browser: Any) -> None:
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(server)
    page.wait_for_function("document.querySelectorAll('#bot option').length > 0")
    page.select_option("#bot", "L0")
    for name, value in (("rows", 50), ("cols", 50), ("k", 10)):
        page.fill(f"#param-{name}", str(value))
    page.fill("#time", "1")
    page.click("#new")
    page.wait_for_selector("#board .cx-colhit[data-col='49']")
    assert page.inner_text("#notice") == ""
    board = page.locator("#board svg.cx-board").bounding_box()
    assert board is not None
    # the whole board in view: no scrolling sideways, and every column wide enough to click
    assert board["x"] >= 0 and board["x"] + board["width"] <= VIEWPORT["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    columns = boxes(page, "#board .cx-colhit")
    assert len(columns) == 50
    assert all(c["width"] >= 8 for c in columns)
    assert all(c["x"] + c["width"] <= board["x"] + board["width"] + 1 for c in columns)
    page.click("#board .cx-colhit[data-col='49']")  # the last column, at the board's edge
    page.wait_for_function(
        "document.querySelectorAll('#board .cx-moves td.cx-move').length >= 2")
    assert page.locator("#board .cx-moves td.cx-move").first.inner_text() == "49"
    assert page.inner_text("#notice") == ""
    page.click("#resign")
    page.wait_for_function("document.getElementById('result').textContent !== ''")
    page.close()


def test_new_game_waits_for_the_connection(server: str, browser: Any) -> None:
    """"New game" is enabled only while the page's WebSocket is open: a click before it opened
    was lost with a "reload the page" notice (a loaded machine showed it: the browser tests
    clicked it as soon as the bots were listed), and a closed connection disables it again."""
    scripts: list[Any] = []
    sockets: list[Any] = []
    page = browser.new_page(viewport=VIEWPORT)
    page.route("**/static/play.js", lambda route: scripts.append(route))  # held: not run yet
    page.route_web_socket("**/ws/play", lambda ws: sockets.append(ws))  # mocked, held open
    page.goto(server, wait_until="commit")
    page.wait_for_selector("#new", state="attached")
    assert page.is_disabled("#new")  # the page as served: no connection yet
    for _ in range(1500):  # the browser asks for play.js after the form: at most 30 s
        if scripts:
            break
        page.wait_for_timeout(20)  # lets Playwright hand over the held request
    assert scripts, "the page never asked for play.js"
    scripts[0].continue_()
    page.wait_for_function("!document.getElementById('new').disabled")  # the socket opened
    assert sockets
    sockets[0].close()
    page.wait_for_function("document.getElementById('new').disabled")
    assert "reload the page" in page.inner_text("#status")
    page.close()
