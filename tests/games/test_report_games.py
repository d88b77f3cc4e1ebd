"""The report's game viewer for Othello and Morris, in a real headless Chromium: the same
viewer as Connect-X's (`static/viewer.js`) with the game's drawer (arena/games/<game>/draw.js):
coordinates on the board, the opening shown as an opening (not as the bots' moves), the move
list and the move times in the same elements as Connect-X's."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.results.store import DB_FILE, ResultStore

CONFIG = """
name: {game}-openings
game: {game}
params: [{params}]
players:
  - {{spec: players.{game}.{a}, name: one}}
  - {{spec: players.{game}.random_bot, name: two}}
timeout_s: 0.5
rounds: 1
workers: 1
seed: 4
openings: {{plies: 2}}
"""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
#: the coordinates each board must carry: (files, ranks)
COORDS = {"othello": ("abcdef", "123456"), "morris": ("abcdefg", "1234567"),
          "mnk": ("abcde", "12345")}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("report-games")
    out = {}
    for game, params, a in (("othello", "{size: 6}", "greedy"),
                            ("morris", "{no_mill_moves: 20}", "random_bot"),
                            ("mnk", "{m: 5, n: 5, k: 4}", "random_bot")):
        cfg = tmp / f"{game}.yaml"
        cfg.write_text(CONFIG.format(game=game, params=params, a=a))
        assert main(["tournament", str(cfg), "--results", str(tmp / game), "--quiet"]) == 0
        out[game] = tmp / game
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else shutil.which("chromium")
    if exe is None:
        pytest.skip("headless Chromium not found (/usr/bin/chromium or chromium on PATH)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright's Python package is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=FLAGS, headless=True)
        yield b
        b.close()


#: a small Connect-X game mounted beside, to compare the viewer's elements
CONNECTX = """() => {
  const box = document.createElement("div");
  document.body.appendChild(box);
  const v = CXViewer.mount(box, {moves: [3, 3, 4], times_ms: [1, 2, 3], M: 6, N: 7, K: 4,
                                 players: ["a", "b"], opening: [3]}, {timeout_ms: 500});
  const heads = [...box.querySelectorAll(".cx-moves thead th")].map(t => t.textContent);
  const cells = [...box.querySelectorAll(".cx-moves tbody tr")[1].children]
    .map(td => td.className);
  v.destroy();
  box.remove();
  return [heads, cells];
}"""


@pytest.mark.parametrize("game", ["othello", "morris", "mnk"])
def test_the_viewer_of_another_game(reports: dict[str, Path], browser: Any, game: str) -> None:
    folder = reports[game]
    with ResultStore(folder / DB_FILE, create=False) as store:
        rec = next(iter(store.games())).record
    texts = rec.move_texts
    assert len(rec.opening_texts) == 2 and texts[:2] == rec.opening_texts
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((folder / "report.html").resolve().as_uri())
    page.wait_for_selector("html[data-cx-ready='1']", timeout=30_000)
    page.evaluate("id => cxReport.openGame(id)", rec.game_id)
    viewer = page.locator(f"#viewer .cx-viewer[data-game='{game}']")
    assert viewer.count() == 1

    # coordinates on the board
    files, ranks = COORDS[game]
    board = viewer.locator("svg.cx-board")
    assert board.get_attribute("data-coords") == "1"
    assert "".join(board.locator(".cx-file").all_text_contents()) == files
    assert sorted(board.locator(".cx-rank").all_text_contents()) == list(ranks)

    # the opening, as an opening
    opening = viewer.locator(".cx-info dd.cx-opening").text_content()
    assert opening == f"{texts[0]} {texts[1]} (2 plies, not chosen by the bots)"
    book = viewer.locator(".cx-moves tbody tr.cx-book")
    assert book.count() == 2
    assert [t.strip() for t in book.locator("td:nth-child(2)").all_text_contents()] == [
        "opening", "opening"]
    assert book.locator("td.cx-ms").all_text_contents() == ["", ""]  # nobody's time
    status = viewer.locator(".cx-status")
    page.keyboard.press("Home")
    assert "the opening's 2 plies come first" in (status.text_content() or "")
    page.keyboard.press("ArrowRight")
    assert status.text_content() == f"Opening ply 1 of 2: {texts[0]} (not chosen by the bots)."
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert (status.text_content() or "").startswith(f"Move 3 of {len(texts)}: one played "
                                                    f"{texts[2]} in ")

    # the move list and the times: the same elements as Connect-X's viewer
    rows = viewer.locator(".cx-moves tbody tr")
    assert rows.count() == len(texts)
    assert viewer.locator(".cx-moves td.cx-move").all_text_contents() == list(texts)
    shown = viewer.locator(".cx-moves td.cx-ms").all_text_contents()
    assert all(t for t in shown[2:]) and float(shown[2]) == pytest.approx(rec.times_ms[2],
                                                                          abs=0.01)
    assert viewer.locator(".cx-moves .cx-bar").count() == len(texts) - 2  # against the limit
    heads = viewer.locator(".cx-moves thead th").all_text_contents()
    cx_heads, cx_cells = page.evaluate(CONNECTX)
    assert heads == ["#", "player", "move", "ms", ""]
    assert cx_heads == ["#", "player", "col", "ms", ""]
    assert rows.nth(2).evaluate("tr => [...tr.children].map(td => td.className)") == cx_cells

    # the end: the last position, the end explained, the last move marked on the board
    page.keyboard.press("End")
    assert viewer.locator(".cx-counter").text_content() == f"{len(texts)} / {len(texts)}"
    assert board.locator(".cx-last").count() == (0 if texts[-1] == "pass" else 1)
    assert errors == []
    page.close()
