"""The game viewer wraps a long detail at its spaces, never inside a word (issue 42, point 10:
"no ans|wer"), and still keeps a long path within its column: report.css in headless Chromium
(Playwright, /usr/bin/chromium), the viewer mounted on a page of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import browser  # noqa: F401 (the fixture)

STATIC = Path(__file__).resolve().parents[2] / "arena" / "report" / "static"
DRAW = Path(__file__).resolve().parents[2] / "arena" / "games" / "connectx" / "draw.js"
DETAIL = ("selectColumn (move 12) failed: no answer within the time limit of 1 s and its grace "
          "of 0.05 s, so the bot lost on time; its log says it was still searching at depth 9")
PATH = "/home/student/course/connectx/" + "VeryLongFolderName" * 6 + "/Bot.java"

#: each word of the element's text: how many line boxes it spans (1: not broken)
WORD_LINES = """(el) => {
  const text = el.firstChild, words = [], re = /\\S+/g;
  let m;
  while ((m = re.exec(text.data)) !== null) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
    words.push([m[0], tops.size]);
  }
  return words;
}"""


def viewer_page(tmp_path: Path) -> Path:
    game = {"game": "connectx", "M": 6, "N": 7, "K": 4, "moves": [3, 3, 4, 4],
            "times_ms": [1, 2, 3, 4], "players": ["L0", "L1"], "winner": 1,
            "reason": "timeout", "offender": 2, "info": {"detail": DETAIL, "file": PATH}}
    page = tmp_path / "viewer.html"
    page.write_text(
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<link rel='stylesheet' href='{(STATIC / 'report.css').as_uri()}'></head><body>"
        "<div id='viewer'></div>"
        f"<script src='{(STATIC / 'viewer.js').as_uri()}'></script>"
        f"<script src='{DRAW.as_uri()}'></script>"
        f"<script>CXViewer.mount(document.getElementById('viewer'), {json.dumps(game)});"
        "document.documentElement.dataset.cxReady = '1';</script></body></html>",
        encoding="utf-8")
    return page


def test_a_long_detail_wraps_at_spaces(browser: Any, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(viewer_page(tmp_path).as_uri())
    page.wait_for_selector("html[data-cx-ready='1']")
    dd = page.locator(".cx-info dd", has_text="no answer within")
    assert dd.count() == 1
    words = dd.evaluate(WORD_LINES)
    lines = dd.evaluate("(el) => Math.round(el.getBoundingClientRect().height / "
                        "parseFloat(getComputedStyle(el).lineHeight))")
    assert lines >= 2  # the detail is longer than its column: it wraps
    broken = [w for w, n in words if n > 1]
    assert broken == [], f"words broken across lines: {broken}"
    # a path with no space still stays within the viewer's column
    path = page.locator(".cx-info dd", has_text="VeryLongFolderName")
    assert path.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
    side = page.locator(".cx-side").bounding_box()
    box = path.bounding_box()
    assert side is not None and box is not None
    assert box["x"] + box["width"] <= side["x"] + side["width"] + 1
    page.close()
