"""Screenshots of a real league run for docs/league-web.md:
``python -m tests.league.web.shots docs/`` (needs Chromium and Playwright).

A league with four students (alice: L0 then L1 uploaded in the browser, bob: L0, carol:
minimax, dave: a bot that raises in selectColumn), the real server and workers; the pages are
shot once the games have been played; then the teacher freezes the leaderboard and runs the
final round robin (on two small boards, to keep it short) from the admin page."""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

from arena.league import League
from tests.league.web.server_proc import start_server

ROOT = Path(__file__).resolve().parents[3]


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp())
    cfg = tmp / "league.yaml"
    deadline = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() + 3 * 86400 + 4 * 3600))
    cfg.write_text("board_set: competition\ntimeout_s: 0.3\npairs_per_submission: 3\n"
                   "max_pairs_per_submission: 3\n"
                   "reference_bots: [L0, L1]\nfinal_board_set: [[4, 4, 4], [5, 5, 4]]\n"
                   f"deadline: '{deadline}'\n")
    lg = League.init(tmp / "lg", cfg)
    secrets = {n: lg.add_user(n, admin=(n == "teacher"))
               for n in ("teacher", "alice", "bob", "carol", "dave")}
    for user, path in (("alice", "players/L0.py"), ("bob", "players/L0.py"),
                       ("carol", "players/minimax.py"),
                       ("dave", "tests/referee/zoo/raise_select.py")):
        lg.submit(user, [(Path(path).name, (ROOT / path).read_bytes())])
    lg.conn.close()
    server = start_server(tmp / "lg")
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                  args=["--no-sandbox", "--disable-gpu"])
            page = b.new_page(viewport={"width": 1000, "height": 640})
            page.goto(server.url + "/login")
            page.fill("#name", "alice")
            page.screenshot(path=str(out / "league-login.png"))
            page.fill("#secret", secrets["alice"])
            page.click("#login")
            page.wait_for_selector("h1:text('Leaderboard')")
            page.goto(server.url + "/submit")
            page.set_input_files("#files", str(ROOT / "players" / "L1.py"))
            page.click("#upload")
            page.wait_for_url("**/submissions/*")
            sub_url = page.url
            page.wait_for_selector("#check-verdict:text('The check passed')", timeout=90_000)
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                page.goto(sub_url)
                text = page.text_content("#game-count") or ""
                m = re.search(r"\((\d+):", text)
                if m and int(m.group(1)) >= 12:
                    break
                time.sleep(2)
            page.wait_for_timeout(2500)
            page.screenshot(path=str(out / "league-submission.png"), full_page=True)
            page.click("#games tbody tr a")
            page.wait_for_selector("#viewer svg")
            page.set_viewport_size({"width": 1000, "height": 760})
            page.screenshot(path=str(out / "league-game.png"))
            page.set_viewport_size({"width": 1000, "height": 640})
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:  # everyone has played their pairs
                page.goto(server.url + "/")
                if page.locator("#standings tbody tr").count() >= 3:
                    break
                time.sleep(2)
            page.screenshot(path=str(out / "league-leaderboard.png"))
            # alice's games, and a lost one with its analysis (the workers analyse after play)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                page.goto(server.url + "/my-games?result=loss")
                if page.locator("#my-games td.analysis a").count():
                    break
                time.sleep(3)
            page.goto(server.url + "/my-games")
            page.screenshot(path=str(out / "league-my-games.png"))
            page.goto(server.url + "/my-games?result=loss")
            page.click("#my-games td.analysis a")
            page.wait_for_selector(".cx-evalstrip")
            page.set_viewport_size({"width": 1000, "height": 1000})
            page.screenshot(path=str(out / "league-blunder.png"))
            page.set_viewport_size({"width": 1000, "height": 640})
            page.goto(server.url + "/login")
            page2 = b.new_page(viewport={"width": 1000, "height": 640})
            page2.goto(server.url + "/login")
            page2.fill("#name", "teacher")
            page2.fill("#secret", secrets["teacher"])
            page2.click("#login")
            page2.wait_for_selector("h1:text('Leaderboard')")
            page2.goto(server.url + "/submissions/4")  # dave's failing bot, as the admin
            page2.wait_for_selector("#check-verdict:text('failed')", timeout=90_000)
            page2.screenshot(path=str(out / "league-failed-check.png"))
            page2.goto(server.url + "/admin")
            page2.screenshot(path=str(out / "league-admin.png"), full_page=True)
            # the deadline: freeze, then the final round robin from the admin page
            page2.on("dialog", lambda d: d.accept())
            page2.click("#freeze")
            page2.wait_for_selector("#final:not([disabled])")
            page2.click("#final")
            page2.wait_for_selector("text=The final round robin started")
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                page2.goto(server.url + "/admin")
                if page2.locator("#final-report").count():
                    break
                time.sleep(3)
            page2.screenshot(path=str(out / "league-final.png"), full_page=True)
            page2.click("#final-report")
            page2.wait_for_load_state()
            page2.set_viewport_size({"width": 1100, "height": 760})
            page2.screenshot(path=str(out / "league-final-report.png"))
            b.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
