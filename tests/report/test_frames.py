"""`arena.report.frames`: one path for every game whose rules are not in JavaScript: the
board's fixed parts once, a compact frame per position (pieces, then changing counts)."""

from __future__ import annotations

from arena.games import drawer_paths, make_game, presentation_of
from arena.records import GameRecord, Reason
from arena.report.frames import frame_of, game_frames
from tests.helpers import cx_record


def _rec(game: str, texts: tuple[str, ...], **params: int) -> GameRecord:
    return GameRecord(p1="a", p2="b", names=("a", "b"),
                      times_ms=(1.0,) * len(texts), winner=None, reason=Reason.DRAW, detail="",
                      seed=1, game=game, game_params=dict(params), move_texts=texts)


def test_a_grid_game() -> None:
    rules = make_game("othello", {"size": 6})
    state = rules.initial_state()
    texts = []
    for _ in range(2):
        move = rules.legal_moves(state)[0]
        texts.append(rules.move_to_text(state, move))
        state = rules.apply(state, move)
    out = game_frames(_rec("othello", tuple(texts), size=6))
    assert out is not None
    assert out["game"] == "othello" and out["label"] == "othello size=6"
    assert (out["rows"], out["cols"]) == (6, 6) and out["col_labels"][:3] == ["a", "b", "c"]
    assert "cells" not in out and len(out["frames"]) == 3
    assert out["frames"][-1] == frame_of(presentation_of(rules).drawing(state))
    assert out["frames"][0].count("1") == 2 and len(out["frames"][0]) == 36


def test_a_game_of_points_with_pieces_in_hand() -> None:
    out = game_frames(_rec("morris", ("d6", "a7")))
    assert out is not None and out["game"] == "morris"
    assert out["points"][0][0] == "a7" and len(out["points"]) == 24 and out["lines"]
    assert out["frames"][0] == "0" * 24 + "/9,9"
    assert out["frames"][2].endswith("/8,8") and out["frames"][2].count("0") == 22


def test_connectx_has_no_frames_and_every_game_a_drawer() -> None:
    rec = cx_record(M=4, N=4, K=3, p1="a", p2="b", names=("a", "b"), moves=(0,),
                     times_ms=(1.0,), winner=None, reason=Reason.DRAW, detail="", seed=1)
    assert game_frames(rec) is None  # its drawer replays the columns
    drawers = drawer_paths()
    assert {"connectx", "othello", "morris"} <= set(drawers)
    for name, path in drawers.items():
        assert f"drawers.{name} = " in path.read_text()


def test_the_game_says_whether_its_drawer_replays(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rec = _rec("othello", (), size=6)
    assert game_frames(rec) is not None
    monkeypatch.setattr(type(presentation_of(make_game("othello"))), "DRAWER_REPLAYS", True)
    assert game_frames(rec) is None  # no name of a game in frames.py: the game's flag
    assert game_frames(_rec("nosuchgame", ("x",))) is None
