"""`cxarena serve` in a real headless Chromium (Playwright, /usr/bin/chromium): a full game against
L0 by clicking columns (result shown, record stored), refused requests (an unlisted bot, SPECs,
a page of another site), two tabs playing two games at once each with its own bot process,
a closed tab's bot process ended, and browsing the stored results."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.records import Reason
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import columns, play_server

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright (dev extra) is not installed")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync"]
BOT_HOST = "arena.entrants.host"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "configs").mkdir()
    with play_server(tmp / "configs", tmp / "results" / "play") as (url, proc):
        yield {"url": url, "pid": proc.pid, "results": tmp / "results" / "play"}


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


def bot_processes(server_pid: int) -> list[tuple[int, str]]:
    """(pid, target) of the bot hosts the server started (the person's seats included)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and BOT_HOST in argv:
            found.append((int(entry), argv[argv.index(BOT_HOST) + 1]))
    return found


def wait_until(cond, what: str, timeout_s: float = 30.0):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def start_game(page, url: str, bot: str, M: int, N: int, K: int, first: bool = True) -> None:
    page.goto(url)
    page.wait_for_function("document.querySelectorAll('#bot option').length > 0")
    page.select_option("#bot", bot)
    for name, value in (("rows", M), ("cols", N), ("k", K)):  # the game's own parameters
        page.fill(f"#param-{name}", str(value))
    page.fill("#time", "1")
    if not first:
        page.uncheck("#first")
    page.click("#new")
    page.wait_for_selector(f"#board .cx-colhit[data-col='{N - 1}']")


def my_turn_or_over(page) -> str:
    """Wait until a column is playable ("turn") or the result is shown ("over")."""
    handle = page.wait_for_function(
        "document.getElementById('result').textContent ? 'over' : "
        "(document.querySelector('#board [data-target=\"1\"]') ? 'turn' : '')")
    return str(handle.json_value())


def click_first_free(page) -> None:
    page.click("#board [data-target='1'] >> nth=0")


def shown_moves(page) -> list[int]:
    return [int(t) for t in page.locator("#board .cx-moves td.cx-move").all_inner_texts()]


def test_full_game_against_L0_by_clicking(server, browser) -> None:
    page = browser.new_page()
    start_game(page, server["url"], "L0", 6, 7, 4)
    while my_turn_or_over(page) == "turn":
        click_first_free(page)
    result = page.inner_text("#result")
    assert re.fullmatch(r"(You win|L0 wins): 4 in a row\.|Draw: the board is full\.", result)
    page.wait_for_selector("#stored code")
    game_id = page.inner_text("#stored code")
    if "in a row" in result:
        assert page.locator("#board .cx-win").count() >= 4  # the winning line lights up
    moves = shown_moves(page)
    assert page.inner_text("#notice") == ""  # no click was ever refused
    page.close()
    with ResultStore(server["results"] / DB_FILE, create=False) as store:
        games = {g.game_id: g for g in store.games()}
    game = games[game_id]
    assert (game.player1, game.player2) == ("human", "L0")
    assert list(columns(game.record)) == moves
    assert game.record.reason in (Reason.CONNECT, Reason.DRAW)
    expected_winner = 1 if result.startswith("You win") else 2 if "L0 wins" in result else None
    assert game.record.winner == expected_winner


SEND = """async (msg) => {
  const ws = new WebSocket(`ws://${location.host}/ws/play`);
  const replies = [];
  await new Promise((ok) => { ws.onopen = ok; });
  const first = new Promise((ok) => {
    ws.onmessage = (ev) => { replies.push(JSON.parse(ev.data)); ok(); };
  });
  ws.send(JSON.stringify(msg));
  await first;
  await new Promise((ok) => setTimeout(ok, 200));  // anything after the refusal shows up too
  ws.close();
  return replies;
}"""

REFUSED_BOTS = ["nosuchbot", "exec:touch {marker}", "players/L0.py", "players.L0",
                "tests/referee/zoo/sleepy.py", "L0:L0", "../L0", None, 42, ["L0"]]


def test_a_request_naming_an_unlisted_bot_or_a_spec_is_refused(server, browser,
                                                               tmp_path: Path) -> None:
    marker = tmp_path / "exec-ran"
    page = browser.new_page()
    page.goto(server["url"])
    before = bot_processes(server["pid"])
    for bot in REFUSED_BOTS:
        if isinstance(bot, str):
            bot = bot.format(marker=marker)
        replies = page.evaluate(SEND, {"type": "new", "bot": bot, "M": 4, "N": 4, "K": 4,
                                       "time": 1, "first": True})
        assert [r["type"] for r in replies] == ["error"], (bot, replies)
        assert "is not one of the listed bots" in replies[0]["message"], bot
    # and bad settings for a listed bot: refused before anything starts
    replies = page.evaluate(SEND, {"type": "new", "bot": "L0", "M": 4, "N": 4, "K": 9,
                                   "time": 1e9})
    assert [r["type"] for r in replies] == ["error"]
    assert "K must be between 1 and max(M, N)=4" in replies[0]["message"]
    replies = page.evaluate(SEND, {"type": "new", "bot": "L0", "M": 4, "N": 4, "K": 4,
                                   "time": "forever"})
    assert "the time limit must be a number of seconds" in replies[0]["message"]
    page.close()
    assert not marker.exists()
    assert bot_processes(server["pid"]) == before


def test_another_sites_page_cannot_open_the_websocket(server) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    ws_url = server["url"].replace("http://", "ws://") + "ws/play"
    with pytest.raises(InvalidStatus):  # closed before the handshake completes (HTTP 403)
        with connect(ws_url, origin="http://evil.example") as ws:  # type: ignore[arg-type]
            ws.send(json.dumps({"type": "new", "bot": "L0", "M": 4, "N": 4, "K": 4,
                                "time": 1}))
            ws.recv(timeout=5)


def test_two_tabs_play_two_games_at_once_and_a_closed_tab_ends_its_bot(server, browser) -> None:
    context = browser.new_context()
    tab1, tab2 = context.new_page(), context.new_page()
    start_game(tab1, server["url"], "L0", 5, 6, 4)
    start_game(tab2, server["url"], "L1", 4, 5, 4, first=False)
    assert my_turn_or_over(tab1) == "turn" and my_turn_or_over(tab2) == "turn"
    bots = wait_until(lambda: [t for t in bot_processes(server["pid"])
                               if t[1] in ("players.L0", "players.L1")]
                      if len(bot_processes(server["pid"])) == 4 else None,
                      "two bots and two seats")
    assert sorted(t[1] for t in bots) == ["players.L0", "players.L1"]  # one bot per tab
    # interleave the two games: tab 1 plays two moves (too few to end a game with K=4) while
    # tab 2 plays to the end
    tab1_moves = 0
    while my_turn_or_over(tab2) == "turn":
        click_first_free(tab2)
        if tab1_moves < 2 and my_turn_or_over(tab1) == "turn":
            click_first_free(tab1)
            tab1_moves += 1
    assert tab1_moves == 2
    assert re.search(r"(You win|L1 wins): 4 in a row|Draw", tab2.inner_text("#result"))
    tab2_moves = shown_moves(tab2)
    assert my_turn_or_over(tab1) == "turn" and len(shown_moves(tab1)) == 4
    l0_pid = next(pid for pid, target in bots if target == "players.L0")
    tab1.close()  # mid-game: the server resigns for the person and ends the bot's process
    wait_until(lambda: not os.path.exists(f"/proc/{l0_pid}")
               or open(f"/proc/{l0_pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z",
               "the closed tab's bot process to end")
    wait_until(lambda: not bot_processes(server["pid"]), "every bot process to end")
    context.close()

    def stored_with_the_left_game() -> list | None:
        # the server stores the resigned game after it has ended the bot: on a loaded machine
        # the bot's end was seen first (bench busytest)
        with ResultStore(server["results"] / DB_FILE, create=False) as store:
            games = list(store.games())
        return games if any(g.record.detail.endswith("human left the game (page closed)")
                            for g in games) else None

    games = wait_until(stored_with_the_left_game, "the left game to be stored", timeout_s=120)
    left = [g for g in games if g.record.detail.endswith("human left the game (page closed)")]
    assert len(left) == 1 and left[0].player2 == "L0" and left[0].record.winner == 2
    tab2_game = [g for g in games if g.player1 == "L1"]
    assert len(tab2_game) == 1 and list(columns(tab2_game[0].record)) == tab2_moves


def test_browse_stored_results(server, browser) -> None:
    page = browser.new_page()
    page.goto(server["url"])
    page.click("text=Stored results")
    page.wait_for_selector("#results")
    links = page.locator("#results a").all_inner_texts()
    if "play" not in links:  # no game stored yet in this module run: store one
        page.close()
        test_full_game_against_L0_by_clicking(server, browser)
        page = browser.new_page()
        page.goto(server["url"] + "results")
        links = page.locator("#results a").all_inner_texts()
    assert "play" in links
    page.click("#results a >> text=play")
    try:
        import arena.report.html  # noqa: F401
    except ImportError:
        assert "Report module not available" in page.inner_text("h1")
        page.close()
        pytest.skip("arena.report (the HTML report) is not in this tree: the results list works"
                    " and /results/play/ says the report module is not available")
    page.wait_for_load_state()
    assert "human" in page.content()
    page.close()
