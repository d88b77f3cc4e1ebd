"""The analysis in the report, in headless Chromium: `cxarena report --analyze` on a copy of the
small tournament, then the evaluation strip (one cell per position), the blunders in the move
list and the better moves on the board, as the stored analysis says."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.analysis.store import AnalysisStore
from arena.commands import analyse_results
from arena.report.html import write_report
from tests.helpers import Page, browser  # noqa: F401 (the fixture)
from tests.report.conftest import Played


@pytest.fixture(scope="module")
def analysed(played: Played, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("analysed") / "results"
    shutil.copytree(played.results_dir, d)
    table = analyse_results(d, 0.2, workers=1, quiet=True)
    assert "Blunders per bot per game, per board" in table
    write_report(d)
    return d


def test_report_analyze_stores_an_analysis_of_every_covered_game(analysed: Path,
                                                                 played: Played) -> None:
    store = AnalysisStore(analysed)
    assert store.ids() == {g.game_id for g in played.games}  # 4x4 and 5x6: all covered
    html = (analysed / "report.html").read_text()
    assert 'id="blunders-table"' in html


def test_report_analyze_writes_the_report_again(played: Played, tmp_path: Path) -> None:
    """`cxarena report DIR --analyze` (no --html) rewrites DIR/report.html with the analyses."""
    from arena.cli import main

    d = tmp_path / "results"
    shutil.copytree(played.results_dir, d)
    write_report(d)
    assert 'id="blunders-table"' not in (d / "report.html").read_text()
    assert main(["report", str(d), "--analyze", "--workers", "1",
                 "--time-per-position", "0.2"]) == 0
    assert 'id="blunders-table"' in (d / "report.html").read_text()


@pytest.fixture
def apage(browser: Any, analysed: Path) -> Iterator[Page]:  # noqa: F811
    p = Page(browser, analysed / "report.html")
    yield p
    p.page.close()


def test_strip_blunders_and_better_moves_in_the_viewer(apage: Page, analysed: Path) -> None:
    analyses = AnalysisStore(analysed).all()
    game_id, a = next((k, v) for k, v in sorted(analyses.items()) if v.blunders())
    page = apage.page
    page.evaluate("id => cxReport.openGame(id)", game_id)
    cells = page.locator(".cx-evalstrip .cx-eval")
    assert cells.count() == len(a.moves) + 1
    kinds = cells.evaluate_all("cs => cs.map(c => c.getAttribute('data-kind'))")
    assert kinds == [p.kind for p in a.positions]
    marked = page.locator(".cx-moves tr.cx-blunder").evaluate_all(
        "rs => rs.map(r => Number(r.getAttribute('data-move')))")
    assert marked == [v.ply + 1 for v in a.verdicts if v.verdict == "blunder"]
    first = a.blunders()[0]
    cells.nth(first.ply + 1).click()  # the position right after the blunder
    better = page.locator(".cx-board .cx-better").evaluate_all(
        "cs => cs.map(c => Number(c.getAttribute('data-col')))")
    assert sorted(better) == sorted(first.better)
    assert "Blunder" in page.locator(".cx-status").inner_text()
    assert apage.errors() == []
