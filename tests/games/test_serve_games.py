"""`cxarena serve`, page /games, in a real headless Chromium: a person plays Othello (clicking
squares, passing when the page offers it) and Morris (a point to place, a piece then its target,
then the piece a mill removes) against the bots of the configs; the games are stored."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games import make_game
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import play_server

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright (dev extra) is not installed")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("serve-games")
    configs = tmp / "configs"
    configs.mkdir()
    for name in ("othello.yaml", "morris.yaml", "mnk.yaml"):
        shutil.copy(ROOT / "configs" / name, configs / name)
    with play_server(configs, tmp / "results" / "play") as (url, _):
        yield {"url": url, "results": tmp / "results" / "play"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


def _start(page: Any, url: str, game: str, bot: str) -> None:
    page.goto(url + "games")
    page.wait_for_function("document.querySelectorAll('#bot option').length > 0")
    page.select_option("#game", game)
    # names are unique across games: a clash reads NAME@CONFIG (random, random@othello)
    name = page.evaluate(f"[...document.querySelectorAll('#bot option')].map(o => o.value)"
                         f".find(v => v === '{bot}' || v === '{bot}@{game}')")
    page.select_option("#bot", name)
    page.fill("#time", "0.3")
    page.click("#new")


def _turn(page: Any, timeout_s: float = 30.0) -> str:
    """Wait until it is the person's turn ("mine") or the game is over ("over")."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if page.locator("#result").text_content():
            return "over"
        if page.locator("[data-target='1']").count() or page.locator("#pass").is_enabled():
            return "mine"
        time.sleep(0.05)
    raise AssertionError("neither my turn nor the end: " + page.locator("#status").inner_text())


def test_othello_by_clicking(server: dict[str, Any], browser: Any) -> None:
    page = browser.new_page()
    _start(page, server["url"], "othello", "random")
    moves = 0
    while _turn(page) == "mine":
        if page.locator("#pass").is_enabled():
            page.click("#pass")
        else:
            page.locator("rect[data-target='1']").first.click()
        moves += 1
        page.wait_for_function(
            f"document.querySelectorAll('#board .cx-moves td.cx-move').length >= {moves}")
    assert page.locator("#result").text_content()
    shown = page.locator("#board .cx-moves td.cx-move").all_inner_texts()
    with ResultStore(server["results"] / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games() if g.record.game == "othello"]
    assert recs and list(recs[-1].move_texts) == shown
    game = make_game("othello")
    assert game.outcome(game.play_texts(shown)) is not None  # played to the end
    page.close()


def test_morris_place_move_and_remove_by_clicking(server: dict[str, Any], browser: Any) -> None:
    page = browser.new_page()
    _start(page, server["url"], "morris", "random")
    clicks = 0
    while _turn(page) == "mine" and clicks < 400:
        page.locator("circle[data-target='1']").first.click()  # a point, a target, a removal
        clicks += 1
    assert page.locator("#result").text_content()
    with ResultStore(server["results"] / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games() if g.record.game == "morris"]
    texts = recs[-1].move_texts
    assert any("-" in t for t in texts) and any("x" in t for t in texts)  # moved and removed
    page.close()


def test_mnk_by_clicking(server: dict[str, Any], browser: Any) -> None:
    """The m,n,k-game, the plug-in added last, played in the browser by clicks on free cells
    (its default board) to the end, and stored like any game."""
    page = browser.new_page()
    _start(page, server["url"], "mnk", "random")
    clicks = 0
    while _turn(page) == "mine" and clicks < 400:
        page.locator("[data-target='1']").first.click()
        clicks += 1
        page.wait_for_function(
            f"document.querySelectorAll('#board .cx-moves td.cx-move').length >= {clicks}")
    assert page.locator("#result").text_content()
    shown = page.locator("#board .cx-moves td.cx-move").all_inner_texts()
    with ResultStore(server["results"] / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games() if g.record.game == "mnk"]
    assert recs and list(recs[-1].move_texts) == shown
    game = make_game("mnk", recs[-1].game_params)
    assert game.outcome(game.play_texts(shown)) is not None  # played to the end
    page.close()


def test_the_viewer_loads_a_drawer_it_lacks(server: dict[str, Any], browser: Any) -> None:
    """A page that loads only viewer.js (as the league's replay page) gets the game's drawer
    from games/NAME/draw.js next to it when a game is mounted; the server serves each
    installed game's draw.js there, and nothing else."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server["url"] + "results")
    page.evaluate("""url => new Promise(ok => {
        const el = document.createElement("script");
        el.src = url + "viewer/viewer.js";
        el.onload = ok;
        document.head.appendChild(el);
    })""", server["url"])
    assert page.evaluate("Object.keys(CXViewer.drawers)") == []
    page.evaluate("""() => {
        const box = document.createElement("div");
        box.id = "box";
        document.body.appendChild(box);
        window.v = CXViewer.mount(box, {M: 4, N: 5, K: 3, moves: [0, 1, 0]}, {});
    }""")
    page.wait_for_selector("#box svg .cx-cell[data-state='1']")
    assert page.evaluate("v.position()") == 3 and page.evaluate("v.cells()[3]") == [1, 2, 0, 0, 0]
    assert page.locator("#box .cx-colnum").count() == 5  # the columns' numbers
    assert errors == []
    page.close()
    from urllib.request import urlopen
    with urlopen(server["url"] + "viewer/games/othello/draw.js") as resp:
        assert b'drawers.othello' in resp.read()
    for bad in ("viewer/games/chess/draw.js", "viewer/games/othello/game.py",
                "viewer/html.py", "viewer/..%2F__init__.py"):
        try:
            with urlopen(server["url"] + bad) as resp:
                raise AssertionError(f"{bad} served: {resp.status}")
        except OSError as e:  # HTTPError 404
            assert "404" in str(e), (bad, e)
