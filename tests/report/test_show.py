"""`cxarena show` (arena/report/show.py): an opening is printed as an opening, not as the bots'
moves."""

from __future__ import annotations

from arena.games import make_game
from arena.records import GameRecord, Reason, StoredGame
from arena.report.show import render_game
from tests.helpers import cx_record


def _othello(opening: tuple[str, ...]) -> StoredGame:
    rules = make_game("othello", {"size": 6})
    state = rules.initial_state()
    texts: list[str] = []
    for _ in range(4):
        move = rules.legal_moves(state)[0]
        texts.append(rules.move_to_text(state, move))
        state = rules.apply(state, move)
    rec = GameRecord(p1="a", p2="b", names=("a", "b"),
                     times_ms=(0.0,) * len(opening) + (1.5,) * (4 - len(opening)),
                     winner=None, reason=Reason.DRAW, detail="", seed=1, game="othello",
                     game_params={"size": 6}, move_texts=tuple(texts),
                     opening_texts=tuple(texts[:len(opening)]))
    return StoredGame("g1", 1, "greedy", "random", rec)


def test_show_prints_another_games_opening_as_an_opening() -> None:
    g = _othello(("x", "y"))
    first, second = g.record.move_texts[:2]
    out = render_game(g)
    assert f"opening: {first} {second} (2 plies played for both sides, not chosen" in out
    step = render_game(g, step=True)
    assert f"opening ply 1: {first} (not chosen by the bots)" in step
    assert f"opening ply 2: {second} (not chosen by the bots)" in step
    assert "plays " + first not in step and "move 1:" not in step
    assert step.count("plays ") == 2  # moves 3 and 4: the bots'
    assert "move 3: black greedy plays" in step


def test_show_prints_a_connectx_opening_as_an_opening() -> None:
    rec = cx_record(M=6, N=7, K=4, p1="a", p2="b", names=("a", "b"), moves=(3, 3, 4, 2),
                     times_ms=(0.0, 0.0, 1.0, 2.0), winner=None, reason=Reason.DRAW,
                     detail="", seed=1, opening=(3, 3))
    out = render_game(StoredGame("g2", 1, "L0", "L1", rec), step=True)
    assert "opening: 3 3 (2 plies played for both sides" in out
    assert "opening ply 1: column 3 (not chosen by the bots)" in out
    assert "move 1:" not in out and out.count("plays column") == 2
