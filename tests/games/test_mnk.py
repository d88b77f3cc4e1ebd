"""The m,n,k-game: rules (k in a row in every direction, at the edges, no wrap between rows,
k = 1, a full board), notation and errors, properties over random play against a brute-force
scan, the bots, and the plug-in end to end through the CLI (`match`, `tournament`, `show`)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.games import (
    GAMES,
    IllegalMoveError,
    MoveSyntaxError,
    ParamError,
    make_game,
    presentation_of,
)
from arena.games.local import play_local
from arena.games.mnk import MNK, MNKPlayer, MNKState
from arena.records import GameRecord
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import load_config
from arena.tournament.schedule import make_schedule
from players.mnk.alphabeta import MNKAlphaBeta, judge_opening
from players.mnk.random_bot import MNKRandom

ROOT = Path(__file__).resolve().parents[2]


def _brute_winner(game: MNK, state: MNKState) -> int | None:
    """Who has k in a row, by looking at every cell and direction (None: nobody)."""
    grid = presentation_of(game).drawing(state)["cells"]
    for r in range(game.m):
        for c in range(game.n):
            who = grid[r][c]
            if not who:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if all(0 <= r + i * dr < game.m and 0 <= c + i * dc < game.n
                       and grid[r + i * dr][c + i * dc] == who for i in range(game.k)):
                    return who - 1
    return None


def _play(game: MNK, black: list[str], white: list[str]) -> MNKState:
    """Alternate `black` and `white` (black first) through the game's own moves."""
    texts = [t for pair in zip(black, white + [""], strict=False) for t in pair if t]
    return game.play_texts(texts)


# ----------------------------------------------------------------------------- rules
def test_registered_as_a_plug_in() -> None:
    assert GAMES["mnk"] is MNK
    game = make_game("mnk")
    assert isinstance(game, MNK) and (game.m, game.n, game.k) == (3, 3, 3)
    assert game.label() == "mnk m=3 n=3 k=3"
    assert game == MNK(m=3, n=3, k=3) and hash(game) == hash(MNK())


@pytest.mark.parametrize(("black", "white", "where"), [
    (["a1", "b1", "c1", "d1"], ["a2", "b2", "c2"], "across, top edge"),
    (["d7", "e7", "f7", "g7"], ["a1", "b1", "c1"], "across, bottom right corner"),
    (["a1", "a2", "a3", "a4"], ["b1", "b2", "b3"], "down, left edge"),
    (["g4", "g5", "g6", "g7"], ["f4", "f5", "f6"], "down, right edge"),
    (["a1", "b2", "c3", "d4"], ["a2", "a3", "a4"], "down-right from the corner"),
    (["d4", "e5", "f6", "g7"], ["a2", "a3", "a4"], "down-right into the corner"),
    (["g1", "f2", "e3", "d4"], ["a2", "a3", "a4"], "down-left from the corner"),
    (["d4", "c5", "b6", "a7"], ["g2", "g3", "g4"], "down-left into the corner"),
])
def test_k_in_a_row_in_every_direction(black: list[str], white: list[str], where: str) -> None:
    game = MNK(m=7, n=7, k=4)
    before = _play(game, black[:-1], white)
    assert game.outcome(before) is None, where
    s = game.apply(before, game.parse_move(before, black[-1]))
    out = game.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "k-in-a-row", where
    assert s.winner == 0 and game.legal_moves(s) == [] and game.is_terminal(s)
    with pytest.raises(IllegalMoveError, match="over"):
        game.parse_move(s, "e1")
    with pytest.raises(IllegalMoveError, match="over"):
        game.apply(s, game.legal_moves(before)[0])
    # the same line for white (one move later)
    s = _play(game, ["b3", "b4", "b5", "e2"][:len(white)] + ["f3"], black)
    assert game.outcome(s) is not None and s.winner == 1, where


@pytest.mark.parametrize(("m", "n", "black"), [
    (4, 4, ["c1", "d1", "a2"]),  # across the end of row 1 into row 2: not a row
    (4, 4, ["d1", "a2", "b2"]),
    (4, 4, ["a1", "d1", "c2"]),  # down-left from a1 would wrap to the last column
    (4, 4, ["b1", "a2", "d2"]),
    (3, 5, ["d3", "e3", "a1"]),
    (5, 3, ["c1", "a2", "b2"]),
])
def test_no_row_wraps_around_the_board(m: int, n: int, black: list[str]) -> None:
    game = MNK(m=m, n=n, k=3)
    free = [game.cell_name(c) for c in range(m * n) if game.cell_name(c) not in black]
    s = _play(game, black, free[-2:])
    assert s.winner is None and game.outcome(s) is None and _brute_winner(game, s) is None


def test_rectangular_boards_and_k_up_to_the_longer_side() -> None:
    wide = MNK(m=2, n=5, k=5)
    s = _play(wide, ["a1", "b1", "c1", "d1", "e1"], ["a2", "b2", "c2", "d2"])
    assert s.winner == 0 and wide.cell_name(9) == "e2"
    tall = MNK(m=6, n=2, k=6)
    s = _play(tall, ["b1", "b2", "b3", "b4", "b5", "b6"], ["a1", "a2", "a3", "a4", "a5"])
    assert s.winner == 0
    assert presentation_of(tall).render(tall.initial_state()).splitlines()[0] == "   a b"


def test_k1_the_first_stone_wins() -> None:
    game = MNK(m=4, n=5, k=1)
    s = game.apply(game.initial_state(), game.parse_move(game.initial_state(), "e4"))
    out = game.outcome(s)
    assert out is not None and out.winner == 0 and game.legal_moves(s) == []


def test_a_full_board_without_a_row_is_a_draw() -> None:
    game = MNK()
    s = game.play_texts(["b2", "a1", "b1", "b3", "a3", "c1", "c2", "a2", "c3"])
    assert s.winner is None and game.legal_moves(s) == []
    out = game.outcome(s)
    assert out is not None and out.is_draw and out.reason == "full-board"
    assert presentation_of(game).render(s) == "   a b c\n 1 O X O\n 2 O X X\n 3 X O X"
    assert presentation_of(game).drawing(s)["cells"] == [[2, 1, 2], [2, 1, 1], [1, 2, 1]]
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "a1")
    # the last stone may also complete a row: a win, not a draw
    s = game.play_texts(["a2", "b2", "b1", "c1", "c3", "b3", "a1", "c2", "a3"])
    out = game.outcome(s)
    assert (s.black | s.white) == game.full
    assert out is not None and out.winner == 0 and out.reason == "k-in-a-row"


def test_render_and_drawing() -> None:
    game = MNK(m=3, n=4, k=3)
    s = game.play_texts(["b2", "d3"])
    assert presentation_of(game).render(s) == "   a b c d\n 1 . . . .\n 2 . X . .\n 3 . . . O"
    d = presentation_of(game).drawing(s)
    assert d == {"kind": "grid", "rows": 3, "cols": 4, "gravity": False,
                 "cells": [[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 2]],
                 "colors": ["black", "white"], "col_labels": ["a", "b", "c", "d"],
                 "row_labels": ["1", "2", "3"]}
    json.dumps(d)
    big = MNK(m=26, n=26, k=5)
    assert presentation_of(big).render(big.initial_state()).splitlines()[-1].startswith("26 . .")
    assert big.parse_move(big.initial_state(), "z26") == 26 * 26 - 1


def test_illegal_moves_and_notation_errors() -> None:
    game = MNK()
    s = game.play_texts(["b2"])
    for bad in ("", "b", "2", "d1", "a4", "a0", "a01", "B2", "2b", "b2 ", " b2", "pass",
                "b-2", "bb2"):
        with pytest.raises(MoveSyntaxError):
            game.parse_move(s, bad)
    with pytest.raises(IllegalMoveError, match="occupied"):
        game.parse_move(s, "b2")
    with pytest.raises(IllegalMoveError, match="occupied"):
        game.apply(s, 4)
    for bad_move in (-1, 9, True, "b2", None):
        with pytest.raises(IllegalMoveError):
            game.apply(s, bad_move)  # type: ignore[arg-type]
    assert game.play_texts(["b2"]) == s  # states are values; nothing changed


@pytest.mark.parametrize(("params", "words"), [
    ({"k": 4}, "k must be between 1 and max"),
    ({"k": 0}, "k must be between 1 and max"),
    ({"m": 0}, "between 1 and 26"),
    ({"n": 27, "k": 5}, "between 1 and 26"),
    ({"size": 8}, "unknown parameter"),
    ({"m": "3"}, "must be an integer"),
])
def test_bad_parameters(params: dict[str, object], words: str) -> None:
    with pytest.raises(ParamError, match=words):
        make_game("mnk", params)  # type: ignore[arg-type]


def test_position_builds_consistent_states() -> None:
    game = MNK(m=5, n=5, k=3)
    s = game.position(["a1", "b2"], ["e5"])
    assert s.side == 1 and s.winner is None
    assert game.position(["a1", "b2", "c3"], ["e5", "e4"]).winner == 0
    with pytest.raises(ValueError):
        game.position(["a1"], ["a1"])
    assert game.cells(s.black) == [0, 6] and game.bit(6) == 1 << (1 * 6 + 1)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 8), n=st.integers(1, 8), k_pick=st.integers(0, 100),
       picks=st.lists(st.integers(0, 10**6), max_size=64))
def test_random_play_agrees_with_a_brute_force_scan(m: int, n: int, k_pick: int,
                                                   picks: list[int]) -> None:
    k = 1 + k_pick % max(m, n)
    game = MNK(m=m, n=n, k=k)
    s = game.initial_state()
    placed = 0
    for pick in picks:
        moves = game.legal_moves(s)
        out = game.outcome(s)
        assert (not moves) == (out is not None)
        assert s.winner == _brute_winner(game, s)
        if not moves:
            assert out is not None
            assert out.winner == s.winner
            assert out.is_draw == (placed == m * n and s.winner is None)
            break
        assert len(moves) == m * n - placed
        mv = moves[pick % len(moves)]
        text = game.move_to_text(s, mv)
        assert game.parse_move(s, text) == mv
        t = game.apply(s, mv)
        assert t == game.apply_unchecked(s, mv)
        assert t.black & t.white == 0 and game.to_move(t) == 1 - game.to_move(s)
        assert (t.black | t.white) == (s.black | s.white | game.bit(mv))
        placed += 1
        s = t
    assert s.winner == _brute_winner(game, s)
    cells = presentation_of(game).drawing(s)["cells"]
    assert sum(row.count(1) + row.count(2) for row in cells) == placed


# ------------------------------------------------------------------------------ bots
def test_random_bot_replays_with_the_same_seed() -> None:
    game = MNK(m=5, n=5, k=4)
    a = play_local(game, [MNKRandom(), MNKRandom()], seed=11)
    b = play_local(game, [MNKRandom(), MNKRandom()], seed=11)
    c = play_local(game, [MNKRandom(), MNKRandom()], seed=12)
    assert a == b and a != c and len(a.moves) >= 7
    assert issubclass(MNKRandom, MNKPlayer) and MNKRandom.GAME == "mnk"


def test_alphabeta_never_loses_tic_tac_toe_to_random() -> None:
    game = MNK()
    wins = 0
    for seed in range(5):
        for ab in (0, 1):
            players = [MNKAlphaBeta(), MNKRandom()] if ab == 0 else [MNKRandom(),
                                                                    MNKAlphaBeta()]
            # a full search of tic-tac-toe takes some 20 ms: the limit is not reached
            result = play_local(game, players, timeout_s=0.5, seed=seed)
            assert result.outcome.winner in (ab, None), result
            wins += result.outcome.winner == ab
    assert wins >= 7
    # against itself: the draw
    result = play_local(game, [MNKAlphaBeta(), MNKAlphaBeta()], timeout_s=0.5)
    assert result.outcome.is_draw


@pytest.mark.parametrize(("params", "black", "white", "want"), [
    ({}, ["a1", "b1"], ["b2", "c3"], {"c1"}),  # black wins at once
    ({}, ["a1", "c3"], ["b2"], {"b1", "a2", "c2", "b3"}),  # white: an edge draws, a corner loses
    ({"m": 7, "n": 7, "k": 4}, ["b2", "c3", "d4"], ["g1", "g2", "g3"], {"e5", "a1"}),  # win
    ({"m": 7, "n": 7, "k": 4}, ["a7", "b7", "c6"], ["d1", "d2", "d3"], {"d4"}),  # block
    ({"m": 9, "n": 9, "k": 5}, ["a1", "e6", "e7", "i9"], ["b2", "c3", "d4", "e5"], {"f6"}),
    ({"m": 9, "n": 9, "k": 5}, ["e1", "e2", "e3", "e4"], ["a1", "a2", "a3", "a4"], {"e5"}),
])
def test_alphabeta_wins_at_once_or_blocks(params: dict[str, int], black: list[str],
                                          white: list[str], want: set[str]) -> None:
    game = MNK(**params)
    state = game.position(black, white)
    bot = MNKAlphaBeta()
    bot.init_player(game, state.side == 0, 0.2)
    move = game.move_to_text(state, bot.select_move(state))
    assert move in want, (presentation_of(game).render(state), move)


def test_alphabeta_blocks_the_only_threat_and_beats_random_on_larger_boards() -> None:
    game = MNK(m=7, n=7, k=4)
    state = game.position(["a1", "a2"], ["c4", "d4", "e4"])  # black to move: block b4 or f4
    bot = MNKAlphaBeta()
    bot.init_player(game, True, 0.2)
    assert game.move_to_text(state, bot.select_move(state)) in {"b4", "f4"}
    for seed in (1, 2):
        result = play_local(game, [MNKRandom(), MNKAlphaBeta()], timeout_s=0.1, seed=seed)
        assert result.outcome.winner == 1
    result = play_local(MNK(m=9, n=9, k=5), [MNKAlphaBeta(), MNKRandom()], timeout_s=0.1)
    assert result.outcome.winner == 0


def test_the_opening_judge() -> None:
    from arena.commands import opening_judge
    from arena.competition.openings import random_opening

    assert opening_judge("mnk") is judge_opening  # the installed entry point
    game = MNK()
    assert judge_opening(game, ["b2", "b1"]).lost_side == 2  # an edge answer to the centre loses
    assert judge_opening(game, ["b2", "a1"]).lost_side is None  # a corner holds
    assert judge_opening(game, ["a1", "b1", "b2", "c2", "c3"]).lost_side == 2  # over: the first player won
    rng = random.Random(1)
    verdicts = []
    for _ in range(20):
        texts = [game.cell_name(c) for c in rng.sample(range(9), 2)]
        verdicts.append(judge_opening(game, texts).lost_side is None)
    assert any(verdicts) and not all(verdicts)
    kept = random_opening(MNK(m=7, n=7, k=4), 3, 5, judge_opening)
    assert len(kept) == 3 and judge_opening(MNK(m=7, n=7, k=4), kept).lost_side is None


# ------------------------------------------------------------------------ end to end
CONFIG = """
name: mnk-test
game: mnk
params: [{m: 3, n: 3, k: 3}, {m: 7, n: 7, k: 4}]
players:
  - {spec: players.mnk.random_bot, name: random}
  - {spec: players.mnk.alphabeta, name: alphabeta}
timeout_s: 0.2
rounds: 1
workers: 1
seed: 3
"""


def test_the_shipped_config_loads() -> None:
    cfg = load_config(ROOT / "configs" / "mnk.yaml")
    assert cfg.game == "mnk" and {dict(p)["k"] for p in cfg.param_sets} >= {3, 4}
    games = make_schedule(cfg)
    assert {g.params for g in games} == set(cfg.param_sets)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results folder of CONFIG played through `cxarena tournament`."""
    tmp = tmp_path_factory.mktemp("mnk")
    path = tmp / "mnk.yaml"
    path.write_text(CONFIG)
    assert main(["tournament", str(path), "--results", str(tmp / "r"), "--quiet"]) == 0
    return tmp / "r"


def test_a_tournament_through_the_cli(tmp_path: Path, tournament: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mnk.yaml"
    path.write_text(CONFIG)
    games = make_schedule(load_config(path))
    assert sorted(g.game_id for g in games) == [
        "mnk-m3-n3-k3-r1-alphabeta-random", "mnk-m3-n3-k3-r1-random-alphabeta",
        "mnk-m7-n7-k4-r1-alphabeta-random", "mnk-m7-n7-k4-r1-random-alphabeta"]
    with ResultStore(tournament / DB_FILE, create=False) as store:
        recs = [g.record for g in store.games()]
    assert sorted(r.game_id for r in recs) == sorted(g.game_id for g in games)
    for rec in recs:
        assert rec.game == "mnk" and rec.offender is None, rec.detail
        rules = make_game(rec.game, rec.game_params)
        out = rules.outcome(rules.play_texts(rec.move_texts))
        assert out is not None
        ab = 0 if rec.p1 == "players.mnk.alphabeta" else 1
        assert out.winner in (ab, None)  # alpha-beta never loses to random
        if rec.game_params["k"] == 4:
            assert out.winner == ab
    standings = (tournament / "standings.md").read_text()
    assert "mnk m=3 n=3 k=3" in standings and "mnk m=7 n=7 k=4" in standings
    capsys.readouterr()
    rec = recs[0]
    assert main(["show", str(tournament), rec.game_id]) == 0
    out_text = capsys.readouterr().out
    rules = make_game(rec.game, rec.game_params)
    assert presentation_of(rules).render(rules.play_texts(rec.move_texts)) in out_text
    assert main(["show", str(tournament), rec.game_id, "--step"]) == 0
    assert capsys.readouterr().out.count("plays ") == len(rec.move_texts)


def test_the_report_replays_a_game(tournament: Path) -> None:
    """The report's viewer draws the m,n,k-game's grid with its drawer (arena/games/mnk/draw.js,
    the grid of Othello's)."""
    chromium = "/usr/bin/chromium"
    if not Path(chromium).is_file():
        pytest.skip("headless Chromium not found at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    game_id = "mnk-m7-n7-k4-r1-random-alphabeta"
    with ResultStore(tournament / DB_FILE, create=False) as store:
        rec = next(g.record for g in store.games() if g.record.game_id == game_id)
    end = make_game("mnk", rec.game_params).play_texts(rec.move_texts)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((tournament / "report.html").resolve().as_uri())
        page.wait_for_selector("html[data-cx-ready='1']", timeout=30_000)
        page.click(f"#game-list tbody tr[data-game='{game_id}']")
        page.wait_for_selector(".cx-viewer[data-game='mnk']")
        assert page.locator(".cx-board circle[data-row]").count() == 49
        assert page.locator(".cx-board .cx-file").all_text_contents() == list("abcdefg")
        page.click(".cx-viewer button[title^='last position']")  # to the end
        assert page.locator(".cx-board circle[data-state='1']").count() == end.black.bit_count()
        assert page.locator(".cx-board circle[data-state='2']").count() == end.white.bit_count()
        assert errors == []
        browser.close()


def test_a_match_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "players.mnk.alphabeta", "players.mnk.random_bot", "--game", "mnk",
                 "--param", "m=7", "--param", "n=7", "--param", "k=4", "--time", "0.2",
                 "--games", "4", "--plies", "2", "--json"]) == 0
    recs = [GameRecord.from_dict(json.loads(line))
            for line in capsys.readouterr().out.splitlines()]
    assert len(recs) == 4 and all(r.offender is None for r in recs)
    assert [len(r.opening_texts) for r in recs] == [2, 2, 2, 2]  # a pair of games per opening
    assert recs[0].opening_texts == recs[1].opening_texts != recs[2].opening_texts
    for r in recs:
        rules = make_game("mnk", r.game_params)
        out = rules.outcome(rules.play_texts(r.move_texts))
        assert out is not None and out.winner == (0 if r.p1 == "players.mnk.alphabeta" else 1)


def test_a_sandboxed_bot_sees_the_shared_game_search() -> None:
    from arena.entrants.exposure import bot_paths
    from arena.entrants.specs import parse_spec

    paths = [Path(p) for p in bot_paths(parse_spec("players.mnk.alphabeta"))]
    search = ROOT / "players" / "_games" / "search.py"
    assert any(search == p or search.is_relative_to(p) for p in paths), paths


def test_new_bot_knows_the_game_from_its_plug_in(tmp_path: Path) -> None:
    """`new-bot --game mnk` writes a subclass of the base class the game names (BOT_BASE):
    nothing outside the game's folder lists it."""
    from arena.onboarding.scaffold import create_bot, game_bases

    assert game_bases()["mnk"] == "arena.games.mnk.player:MNKPlayer"
    create_bot("tictac", tmp_path, game="mnk")
    text = (tmp_path / "tictac.py").read_text()
    assert "from arena.games.mnk.player import MNKPlayer" in text
    assert "class Tictac(MNKPlayer)" in text


def test_a_move_in_column_x_is_not_a_capture() -> None:
    """Only Morris calls a move with an ``x`` a capture (its notation): an m,n,k opening in
    column x is fair."""
    from arena.competition.openings import fair_opening

    game = make_game("mnk", {"m": 3, "n": 26, "k": 3})
    texts = ["x1", "w1"]
    end = game.play_texts(texts)
    assert fair_opening(game, texts, end)
