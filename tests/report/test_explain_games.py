"""`describe_end` asks the record's game for its words: no game's words in another's record."""

from __future__ import annotations

import pytest

from arena.games import GAMES, presentation_of
from arena.games.base import Game
from arena.records import GameRecord, Reason
from arena.report.explain import describe_end


def _other(game: str, params: dict[str, int], **kw: object) -> GameRecord:
    fields: dict[str, object] = dict(
        p1="a", p2="b", names=("a", "b"), times_ms=(1.0,) * 5,
        winner=None, reason=Reason.DRAW, detail="", seed=5, game=game, game_params=params,
        move_texts=("d3", "c5", "f6", "f5", "e6"))
    fields.update(kw)
    return GameRecord(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("game, params", [("othello", {"size": 8}), ("mnk", {"m": 3, "n": 3,
                                                                           "k": 3}),
                                          ("morris", {"pieces": 9, "no_mill_moves": 50,
                                                      "flying": 1})])
def test_a_draw_without_detail_names_no_connectx_line(game: str, params: dict[str, int]) -> None:
    text = describe_end(_other(game, params))
    assert "in a row" not in text and "0" not in text
    assert text == "Draw after 5 moves."


def test_othello_draw_and_win_in_the_games_words() -> None:
    draw = _other("othello", {"size": 8},
                  detail="equal-discs: neither side can move; 32-32")
    assert describe_end(draw) == "Draw after 5 moves: equal-discs: neither side can move; 32-32."
    win = _other("othello", {"size": 8}, winner=2, reason=Reason.WIN,
                 detail="more-discs: neither side can move; black 20, white 44")
    assert describe_end(win, "x", "y") == ("y (second player) wins after 5 moves: more-discs: "
                                           "neither side can move; black 20, white 44.")


def test_connectx_words_come_from_its_game() -> None:
    """Connect-X's sentences are its game's: a game that says nothing of its own gets the
    shared words, and every registered game answers the hook."""
    cx = presentation_of(GAMES["connectx"]())
    assert cx.end_words("connect", True, 7, "", "0") == ": 4 in a row with move 7 (column 0)"
    assert cx.end_words("draw", False, 42, "", "3") == (
        ": the board is full after 42 moves, nobody has 4 in a row")
    for cls in GAMES.values():
        game: Game = cls()
        assert isinstance(presentation_of(game).end_words("draw", False, 3, "", ""), str)


def test_a_record_of_an_unknown_game_still_reads() -> None:
    rec = _other("no-such-game", {})
    assert describe_end(rec) == "Draw after 5 moves."
