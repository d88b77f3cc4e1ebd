"""The positions of a game of another game than Connect-X, for the report's viewer.

`game_frames(record)` replays the record's moves with the game's rules (`arena.games`) and
returns what `static/gameviewer.js` draws: the kind of board (``grid`` for Othello, ``morris``
for the three squares) and one compact frame per position (the start and after each move):
for a grid, its cells row by row as ``0`` (empty), ``1`` (first player), ``2``; for Morris,
the 24 points in `arena.games.morris.POINTS` order the same way, then ``/`` and the pieces in
hand of both sides (``.../9,8``).
"""

from __future__ import annotations

from typing import Any

from arena.games import GameError, make_game
from arena.records import GameRecord

__all__ = ["game_frames"]


def _frame(drawing: dict[str, Any]) -> str:
    if drawing["kind"] == "morris":
        cells = "".join(str(p["piece"]) for p in drawing["points"])
        return f"{cells}/{drawing['in_hand'][0]},{drawing['in_hand'][1]}"
    return "".join(str(c) for row in drawing["cells"] for c in row)


def game_frames(rec: GameRecord) -> dict[str, Any] | None:
    """The viewer's description of `rec` (None for Connect-X, drawn by `viewer.js`)."""
    if rec.is_connectx:
        return None
    try:
        game = make_game(rec.game, rec.game_params)
    except GameError:
        return None  # a game this cxarena does not know: the list still shows the moves
    state = game.initial_state()
    first = game.drawing(state)
    frames = [_frame(first)]
    for text in rec.move_texts:
        try:
            state = game.apply(state, game.parse_move(state, text))
        except GameError:
            break  # a stored record from other rules: show what replays
        frames.append(_frame(game.drawing(state)))
    out: dict[str, Any] = {"name": rec.game, "kind": first["kind"], "frames": frames,
                           "colors": first.get("colors", ["black", "white"])}
    if first["kind"] == "grid":
        out.update(rows=first["rows"], cols=first["cols"],
                   col_labels=first.get("col_labels"), row_labels=first.get("row_labels"))
    else:
        out.update(points=[[p["name"], p["x"], p["y"]] for p in first["points"]],
                   lines=first["lines"])
    return out
