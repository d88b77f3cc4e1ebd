"""The game viewer's details (result, reason, opening, a long detail and path) stand apart from
its move list, whose header stays at the top while the list scrolls (issue 51: the detail box
seemed to run into half-hidden rows of the list, scrolled to the last move): report.css in
headless Chromium (Playwright, /usr/bin/chromium), the viewer on a page of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import browser  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "arena" / "report" / "static"
DRAW = ROOT / "arena" / "games" / "connectx" / "draw.js"
#: a fault's long detail and a student's long path, as the viewer's details box shows them
DETAIL = ("initPlayer took too long: no answer within the start-up limit of 10 s and its "
          "grace; the bot's process was stopped and the game is lost on time") * 2
PATH = "/home/student/repositories/connectx/" + "AnotherLongFolder" * 6 + "/Player.java"

MOVES = [3, 3, 4, 4, 2, 2, 5, 5, 1, 1, 0, 0, 6, 6, 3, 3, 4, 4, 2, 2, 5, 5, 1, 1]


def page_of(tmp_path: Path, analysed: bool) -> Path:
    game: dict[str, Any] = {
        "game": "connectx", "M": 6, "N": 7, "K": 4, "moves": MOVES,
        "times_ms": [1] * len(MOVES), "players": ["a_very_long_league_user_name", "L1"],
        "winner": None, "reason": "draw", "opening": MOVES[:2],
        "info": {"detail": DETAIL, "file": PATH}}
    if analysed:
        game["analysis"] = {
            "solver": "numba", "budget_s": 1, "elapsed_s": 1, "exact_from": 0,
            "positions": [{"ply": i, "kind": "exact", "value": 0, "label": "draw"}
                          for i in range(len(MOVES) + 1)],
            "moves": [{"ply": i, "player": i % 2 + 1, "col": c, "verdict": "best",
                       "reason": "", "better": [], "opening": i < 2}
                      for i, c in enumerate(MOVES)]}
    page = tmp_path / f"viewer-{analysed}.html"
    page.write_text(
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<link rel='stylesheet' href='{(STATIC / 'report.css').as_uri()}'></head><body>"
        "<div id='viewer'></div>"
        f"<script src='{(STATIC / 'viewer.js').as_uri()}'></script>"
        f"<script src='{DRAW.as_uri()}'></script>"
        f"<script>CXViewer.mount(document.getElementById('viewer'), {json.dumps(game)}, "
        "{timeout_ms: 1000}); document.documentElement.dataset.cxReady = '1';</script>"
        "</body></html>", encoding="utf-8")
    return page


@pytest.mark.parametrize("width", [1200, 700, 400])
@pytest.mark.parametrize("analysed", [False, True])
def test_the_details_stand_apart_from_the_scrolled_move_list(browser: Any, tmp_path: Path,
                                                             width: int,
                                                             analysed: bool) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(page_of(tmp_path, analysed).as_uri())
    page.wait_for_selector("html[data-cx-ready='1']")
    info = page.locator(".cx-info").bounding_box()
    moves = page.locator(".cx-moves").bounding_box()
    assert info is not None and moves is not None
    assert info["y"] + info["height"] + 6 <= moves["y"], (info, moves)
    scrolled = page.evaluate("() => document.querySelector('.cx-moves').scrollTop")
    assert scrolled > 0  # the list shows the last move: its first rows are scrolled away
    # just inside the list's top edge: its header, not a half-hidden row
    page.locator(".cx-moves").scroll_into_view_if_needed()
    top = page.evaluate("""() => {
        const b = document.querySelector('.cx-moves').getBoundingClientRect();
        const e = document.elementFromPoint(b.left + b.width / 2, b.top + 3);
        return e ? e.tagName : null;
    }""")
    assert top == "TH"
    page.close()
