"""Screenshots of the game viewer for docs/games.md:
``python -m tests.games.shots docs/`` (needs Chromium and Playwright) writes
``report-othello.png``, ``report-morris.png`` and ``play-games.png``.

A small tournament of each game (greedy against random on the 8x8 Othello board, random
against random at Morris; one game pair from a 4-ply opening), its report opened in
headless Chromium, the first game shown a few moves before its end; then `cxarena serve`'s
play page, a person (clicking the first point offered) against Morris's random bot."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.cli import main as cli

CONFIG = """
name: {game}
game: {game}
params: [{params}]
players:
  - {{spec: players.{game}.{a}, name: {a_name}}}
  - {{spec: players.{game}.random_bot, name: random}}
openings: {{plies: 4}}
timeout_s: 0.2
rounds: 1
workers: 1
seed: 1
"""
GAMES = (("othello", "{size: 8}", "greedy", "greedy"),
         ("morris", "{no_mill_moves: 30}", "random_bot", "random1"))


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
        _play_shot(browser, tmp, out)
        browser.close()


def _play_shot(browser: object, tmp: Path, out: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    configs = tmp / "configs"
    configs.mkdir()
    shutil.copy(root / "configs" / "morris.yaml", configs / "morris.yaml")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--host", "127.0.0.1",
         "--configs", str(configs), "--results", str(tmp / "play")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = next(m.group(1) for line in proc.stdout
                   if (m := re.search(r"open (http://127\.0\.0\.1:\d+/)", line)))
        page = browser.new_page(viewport={"width": 900, "height": 1000})  # type: ignore[attr-defined]
        page.goto(url + "games")
        page.wait_for_function("document.querySelectorAll('#bot option').length > 0")
        page.select_option("#game", "morris")
        page.select_option("#bot", "random")
        page.fill("#time", "0.2")
        page.click("#new")
        for _ in range(14):  # place pieces: the first point offered each time
            page.wait_for_selector("#board circle[data-target='1']", timeout=10_000)
            page.locator("#board circle[data-target='1']").first.click()
            time.sleep(0.3)
        page.wait_for_selector("#board circle[data-target='1']", timeout=10_000)
        page.screenshot(path=str(out / "play-games.png"), full_page=True)
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
