"""Tournaments of Othello and Morris: configs with `game:` and `params:`, the schedule, the
store and standings per parameter set, and the HTML report's replay in a real browser."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.errors import UsageError
from arena.games import make_game, presentation_of
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import load_config
from arena.tournament.schedule import make_schedule

CONFIG = """
name: {name}
game: {game}
params: {params}
players:
  - {{spec: {a}, name: one}}
  - {{spec: {b}, name: two}}
timeout_s: 0.5
rounds: 1
workers: 1
seed: 3
"""


def _config(tmp: Path, game: str, params: str, a: str, b: str, name: str = "") -> Path:
    path = tmp / f"{name or game}.yaml"
    path.write_text(CONFIG.format(name=name or game, game=game, params=params, a=a, b=b))
    return path


def test_config_and_schedule(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path, "othello", "[{size: 6}, {size: 8}]",
                              "players.othello.random_bot", "players.othello.greedy"))
    assert cfg.game == "othello" and cfg.boards == ()
    assert cfg.param_sets == ((("size", 6),), (("size", 8),))
    assert cfg.fingerprint()["params"] == [{"size": 6}, {"size": 8}]
    games = make_schedule(cfg)
    assert sorted(g.game_id for g in games) == [
        "othello-size6-r1-one-two", "othello-size6-r1-two-one",
        "othello-size8-r1-one-two", "othello-size8-r1-two-one"]
    assert {g.params for g in games} == {(("size", 6),), (("size", 8),)}


@pytest.mark.parametrize(("params", "words"), [
    ("[{size: 7}]", "size must be even"),
    ("[{colour: 1}]", "unknown parameter"),
    ("{size: 8}", "a list of parameter sets"),
    ("[{size: 8}, {size: 8}]", "the same parameter set twice"),
])
def test_bad_game_configs(tmp_path: Path, params: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        load_config(_config(tmp_path, "othello", params, "players.othello.random_bot",
                            "players.othello.greedy"))
    bad = tmp_path / "chess.yaml"
    bad.write_text(CONFIG.format(name="c", game="chess", params="[{}]", a="x", b="y"))
    with pytest.raises(UsageError, match="unknown game 'chess'"):
        load_config(bad)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    tmp = tmp_path_factory.mktemp("games")
    out = {}
    for game, params, a, b in (
            ("othello", "[{size: 6}]", "players.othello.greedy", "players.othello.random_bot"),
            ("morris", "[{no_mill_moves: 20}]", "players.morris.random_bot",
             "players.morris.random_bot")):
        cfg = _config(tmp, game, params, a, b)
        assert main(["tournament", str(cfg), "--results", str(tmp / game), "--quiet"]) == 0
        out[game] = tmp / game
    yield out


def test_tournament_stores_replayable_games(results: dict[str, Path]) -> None:
    for game, folder in results.items():
        with ResultStore(folder / DB_FILE, create=False) as store:
            stored = list(store.games())
        assert len(stored) == 2
        for g in stored:
            rec = g.record
            assert rec.game == game and rec.offender is None, rec.detail
            rules = make_game(rec.game, rec.game_params)
            assert rules.outcome(rules.play_texts(rec.move_texts)) is not None
        standings = (folder / "standings.md").read_text()
        label = "othello size=6" if game == "othello" else "morris pieces=9 no_mill_moves=20"
        assert label in standings


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else shutil.which("chromium")
    if exe is None:
        pytest.skip("headless Chromium not found (/usr/bin/chromium or chromium on PATH)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright's Python package is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


@pytest.mark.parametrize("game", ["othello", "morris"])
def test_report_replays_the_games(results: dict[str, Path], browser: Any, game: str) -> None:
    folder = results[game]
    report = folder / "report.html"
    assert report.is_file()
    with ResultStore(folder / DB_FILE, create=False) as store:
        rec = next(iter(store.games())).record
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(report.resolve().as_uri())
    page.wait_for_selector("html[data-cx-ready='1']", timeout=30_000)
    page.click(f"#game-list tbody tr[data-game='{rec.game_id}']")
    page.wait_for_selector(f".cx-viewer[data-game='{game}']")
    page.keyboard.press("Home")
    rules = make_game(rec.game, rec.game_params)
    start = presentation_of(rules).drawing(rules.initial_state())
    if game == "othello":
        assert page.locator(".cx-board circle[data-state='1']").count() == 2  # the start
        assert page.locator(".cx-board circle[data-state='2']").count() == 2
        assert len(start["cells"]) == 6
    else:
        assert page.locator(".cx-board circle[data-point]").count() == 24
        assert page.locator(".cx-board circle[data-state='1']").count() == 0
    page.click(".cx-viewer button[title^='last position']")  # to the end
    end = presentation_of(rules).drawing(rules.play_texts(rec.move_texts))
    if game == "othello":
        want = sum(row.count(1) for row in end["cells"])
    else:
        want = sum(p["piece"] == 1 for p in end["points"])
    assert page.locator(".cx-board circle[data-state='1']").count() == want
    n = len(rec.move_texts)
    assert page.locator(".cx-counter").text_content() == f"{n} / {n}"
    assert (page.locator(".cx-status").text_content() or "").startswith(f"Move {n} of {n}.")
    assert errors == []
    page.close()


def test_show_prints_the_positions(results: dict[str, Path],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    for game, folder in results.items():
        with ResultStore(folder / DB_FILE, create=False) as store:
            rec = next(iter(store.games())).record
        assert main(["show", str(folder), rec.game_id]) == 0
        out = capsys.readouterr().out
        assert f"final position after {len(rec.move_texts)} moves" in out
        assert "result:" in out and rec.move_texts[0] in out
        rules = make_game(rec.game, rec.game_params)
        assert presentation_of(rules).render(rules.play_texts(rec.move_texts)) in out
        assert main(["show", str(folder), rec.game_id, "--step"]) == 0
        assert capsys.readouterr().out.count("plays ") == len(rec.move_texts)


def test_game_openings_in_a_tournament(tmp_path: Path) -> None:
    path = _config(tmp_path, "morris", "[{}]", "players.morris.random_bot",
                   "players.morris.random_bot")
    path.write_text(path.read_text().replace("rounds: 1", "rounds: 2\nopenings: {plies: 6}"))
    cfg = load_config(path)
    games = make_schedule(cfg)
    by_round: dict[int, set[tuple[str, ...]]] = {}
    for g in games:
        by_round.setdefault(g.round, set()).add(g.opening)
    assert all(len(v) == 1 for v in by_round.values())  # one opening per round, both colours
    openings = [next(iter(v)) for v in by_round.values()]
    assert openings[0] != openings[1] and all(len(o) == 6 for o in openings)
    assert not any("x" in t for o in openings for t in o)  # no piece taken in an opening
    assert make_schedule(cfg) == games  # the same seed, the same openings
    bad = tmp_path / "bad.yaml"
    bad.write_text(path.read_text().replace("openings: {plies: 6}", "openings: {file: x.txt}"))
    with pytest.raises(UsageError, match="no opening files"):
        load_config(bad)
    assert main(["tournament", str(path), "--results", str(tmp_path / "r"), "--quiet"]) == 0
    with ResultStore(tmp_path / "r" / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games()]
    assert len(recs) == 4
    for rec in recs:
        assert rec.offender is None and rec.move_texts[:6] == rec.opening_texts
        assert rec.times_ms[:6] == (0.0,) * 6
        assert len(rec.played_times_ms[0]) + len(rec.played_times_ms[1]) == len(
            rec.move_texts) - 6


def test_a_gauntlet_of_othello_bots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`format: gauntlet` with another game: only the challenger's pairings are scheduled and
    played, on every parameter set, both colours, and the standings count them."""
    path = tmp_path / "gauntlet.yaml"
    path.write_text("""
name: othello-gauntlet
game: othello
params: [{size: 4}, {size: 6}]
players:
  - {spec: players.othello.greedy, name: greedy}
  - {spec: players.othello.random_bot, name: r1}
  - {spec: players.othello.random_bot, name: r2}
format: gauntlet
challengers: [greedy]
timeout_s: 0.5
rounds: 1
workers: 1
seed: 5
""")
    games = make_schedule(load_config(path))
    assert len(games) == 2 * 2 * 2  # 2 opponents x 2 sizes x both colours
    assert all("greedy" in (g.p1, g.p2) for g in games)
    capsys.readouterr()
    assert main(["tournament", str(path), "--results", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("greedy", "r1", "r2"))  # the standings
    with ResultStore(tmp_path / "r" / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games()]
    assert sorted(r.game_id for r in recs) == sorted(g.game_id for g in games)
    for rec in recs:
        assert rec.offender is None and "greedy" in (rec.player1, rec.player2)
        rules = make_game("othello", rec.game_params)
        assert rules.is_terminal(rules.play_texts(rec.move_texts))
    assert {rec.game_params["size"] for rec in recs} == {4, 6}
