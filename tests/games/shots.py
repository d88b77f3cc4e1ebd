"""Screenshots of the report's game viewer for docs/games.md:
``python -m tests.games.shots docs/`` (needs Chromium and Playwright) writes
``report-othello.png`` and ``report-morris.png``.

A small tournament of each game (greedy against alpha-beta on the 8x8 Othello board, random
against alpha-beta at Morris; one game pair from a 4-ply opening), its report opened in
headless Chromium, the first game shown a few moves before its end."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from arena.cli import main as cli

CONFIG = """
name: {game}
game: {game}
params: [{params}]
players:
  - {{spec: players.{game}.{a}, name: {a_name}}}
  - {{spec: players.{game}.alphabeta, name: alphabeta}}
openings: {{plies: 4}}
timeout_s: 0.2
rounds: 1
workers: 1
seed: 1
"""
GAMES = (("othello", "{size: 8}", "greedy", "greedy"),
         ("morris", "{}", "random_bot", "random"))


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        for game, params, a, a_name in GAMES:
            cfg = tmp / f"{game}.yaml"
            cfg.write_text(CONFIG.format(game=game, params=params, a=a, a_name=a_name))
            assert cli(["tournament", str(cfg), "--results", str(tmp / game), "--quiet"]) == 0
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto((tmp / game / "report.html").resolve().as_uri())
            page.wait_for_selector("html[data-cx-ready='1']", timeout=30_000)
            page.click("#game-list tbody tr >> nth=0")
            page.keyboard.press("End")
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowLeft")
            page.locator("#viewer-panel").screenshot(path=str(out / f"report-{game}.png"))
            page.close()
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
