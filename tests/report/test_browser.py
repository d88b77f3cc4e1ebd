"""The report in a real browser: headless Chromium (Debian's /usr/bin/chromium) driven by
Playwright's Python package. Skipped, with the reason, when either is missing."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.board import CXBoard
from arena.records import Reason
from tests.helpers import Page, browser, columns, cx_record  # noqa: F401 (the fixture)
from tests.helpers import board as helpers_board
from tests.report.conftest import Played


@pytest.fixture
def page(browser: Any, played: Played) -> Iterator[Page]:
    p = Page(browser, played.report)
    yield p
    p.page.close()


def test_loads_without_errors_or_network(page: Page) -> None:
    assert page.errors() == []
    assert page.requests == [page.url]  # the file itself and nothing else
    assert page.page.locator("#ranking tbody tr").count() == 3
    assert page.page.locator("#game-list tbody tr").count() > 0


def test_crosstable_cell_lists_its_games(page: Page, played: Played) -> None:
    page.page.click('#crosstable a[data-player="L0"][data-opponent="L1"]')
    ids = page.page.locator("#game-list tbody tr").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-game'))")
    expected = [g.game_id for g in played.games if {g.player1, g.player2} == {"L0", "L1"}]
    assert sorted(ids) == sorted(expected) and expected
    assert page.page.locator("#game-count").inner_text().startswith(f"{len(expected)} of ")


def test_board_cell_lists_its_games(page: Page, played: Played) -> None:
    page.page.click('#boardmap a[data-player="L1"][data-board="1"]')
    ids = page.page.locator("#game-list tbody tr").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-game'))")
    board = tuple(page.page.evaluate("window.cxReport.data.boards[1]"))
    expected = [g.game_id for g in played.games if "L1" in (g.player1, g.player2)
                and helpers_board(g.record) == board]
    assert sorted(ids) == sorted(expected) and expected


def dom_board(page: Page) -> list[list[int]]:
    cells = page.page.locator("#viewer circle.cx-cell").evaluate_all(
        "cs => cs.map(c => [+c.dataset.row, +c.dataset.col, +c.dataset.state])")
    M = max(r for r, _, _ in cells) + 1
    N = max(c for _, c, _ in cells) + 1
    grid = [[0] * N for _ in range(M)]
    for r, c, s in cells:
        grid[r][c] = s
    return grid


def test_replaying_a_game_to_the_end_shows_the_stored_board(page: Page, played: Played) -> None:
    g = max((x for x in played.games if x.record.reason is Reason.CONNECT),
            key=lambda x: x.record.n_moves)
    rec = g.record
    page.page.fill("#f-text", g.game_id)
    page.page.click(f'#game-list tr[data-game="{g.game_id}"]')
    assert page.page.locator("#viewer .cx-counter").inner_text() == f"0 / {rec.n_moves}"
    assert all(v == 0 for row in dom_board(page) for v in row)
    for _ in columns(rec):  # step through with the keyboard
        page.page.keyboard.press("ArrowRight")
    expected = CXBoard.from_moves(*helpers_board(rec), list(columns(rec))).getBoard().tolist()
    assert dom_board(page) == expected
    assert page.page.locator("#viewer .cx-win").count() >= helpers_board(rec)[2]
    winner = (g.player1, g.player2)[rec.winner - 1]  # type: ignore[operator]
    assert f"{winner} (" in page.page.locator("#viewer .cx-status").inner_text()
    # back one move with the keyboard, then scrub to the middle and jump to the end
    page.page.keyboard.press("ArrowLeft")
    assert page.page.locator("#viewer .cx-win").count() == 0
    half = rec.n_moves // 2
    page.page.locator("#viewer input[type=range]").fill(str(half))
    expected_half = CXBoard.from_moves(*helpers_board(rec), list(columns(rec)[:half]))
    assert dom_board(page) == expected_half.getBoard().tolist()
    page.page.click("#viewer button[title^='last position']")
    assert dom_board(page) == expected
    assert page.errors() == []


def test_a_fault_is_explained_in_words(browser: Any, played: Played) -> None:
    g = next(x for x in played.games if x.record.reason is Reason.CRASH)
    p = Page(browser, played.report, f"#game={g.game_id}")
    try:
        assert p.page.locator("#fault-list tbody tr").count() == sum(
            x.record.is_fault for x in played.games)
        p.page.keyboard.press("End")
        status = p.page.locator("#viewer .cx-status").inner_text()
        assert "crasher (" in status and "crashed on move" in status
        assert p.errors() == []
    finally:
        p.page.close()


def test_screenshot_is_not_blank(page: Page) -> None:
    from PIL import Image  # Pillow comes with matplotlib

    png = page.page.screenshot(full_page=False)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, tables, heat map colours
    white = max(colours)[0] / (img.width * img.height)
    assert white < 0.97


def test_a_board_wider_than_64_columns_replays(browser: Any, tmp_path: Path) -> None:
    """Moves on boards with N > 64 take two characters each; the page decodes them."""
    from arena.report.html import write_report
    from arena.results.store import ResultStore

    moves = (65, 0, 66, 69, 1, 68, 67)  # X: 65 66 67 in a row on the bottom row, K=3
    rec = cx_record(M=2, N=70, K=3, p1="a", p2="b", names=("a", "b"), moves=moves,
                     times_ms=(1.5,) * len(moves), winner=1, reason=Reason.CONNECT, detail="",
                     seed=3)
    assert CXBoard.from_moves(2, 70, 3, list(moves)).gameState().value == "winp1"
    with ResultStore(tmp_path / "games.sqlite") as store:
        store.add((rec).labelled(game_id="wide", round=1, player1="a", player2="b"))
    report = write_report(tmp_path)
    p = Page(browser, report, "#game=wide")
    try:
        p.page.keyboard.press("End")
        assert dom_board(p) == CXBoard.from_moves(2, 70, 3, list(moves)).getBoard().tolist()
        assert p.page.locator("#viewer .cx-win").count() == 3
        assert p.errors() == []
    finally:
        p.page.close()


def test_labels_from_other_parts_show_in_the_viewer(browser: Any, tmp_path: Path,
                                                    played: Played) -> None:
    """An opening (forced first moves) and a pair id added to records appear beside the board."""
    import dataclasses

    from arena.report.html import write_report
    from arena.results.store import ResultStore

    long_games = [x for x in played.games if x.record.n_moves > 4]
    g = long_games[0]
    with ResultStore(tmp_path / "games.sqlite") as store:
        for n, x in enumerate(long_games[:2]):  # pair ids differ: shown per game
            rec = dataclasses.replace(x.record, opening_texts=x.record.texts[:2],
                                      pair_id=f"pair-{7 + n}")
            store.add((rec).labelled(game_id=x.game_id, round=x.round, player1=x.player1, player2=x.player2))
    p = Page(browser, write_report(tmp_path), f"#game={g.game_id}")
    try:
        info = p.page.locator("#viewer .cx-info").inner_text()
        assert "pair-7" in info and "(2 plies, not chosen by the bots)" in info
        assert p.page.locator("#viewer tr.cx-book").count() == 2
        assert p.errors() == []
    finally:
        p.page.close()


def test_sorting_the_games_by_moves(page: Page, played: Played) -> None:
    page.page.click("#game-list th.sortable:has-text('moves')")
    shown = page.page.locator("#game-list tbody tr td:nth-child(8)").all_inner_texts()
    assert [int(x) for x in shown] == sorted((g.record.n_moves for g in played.games),
                                             reverse=True)
    page.page.click("#game-list th.sortable:has-text('max ms')")
    ms = [float(x) if x != "-" else 0.0 for x in
          page.page.locator("#game-list tbody tr td:nth-child(9)").all_inner_texts()]
    assert ms == sorted(ms, reverse=True)
    assert page.errors() == []
