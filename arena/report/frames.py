"""The positions of a game whose rules are not in JavaScript, for the report's viewer.

`game_frames(record)` replays the record's moves with the game's rules (`arena.games`) and
returns what the game's drawer (``arena/games/<game>/draw.js``, mounted by
``static/viewer.js``) draws: the game's name, the board's fixed parts (the first drawing,
`Presentation.drawing`, without what changes from position to position) and one compact frame per
position (the start and after each move): the pieces, ``0`` (empty), ``1`` (first player),
``2``, of the grid's cells row by row or of the points in order, then, when the drawing has
numbers that change (Morris: the pieces in hand), ``/`` and those numbers joined by ``,``
(``.../9,8``).

A game whose drawer replays the moves itself (`Presentation.DRAWER_REPLAYS`: Connect-X's, from its
columns) has no frames here.
"""

from __future__ import annotations

from typing import Any

from arena.games import GameError, presentation_of
from arena.records import GameRecord

__all__ = ["game_frames", "frame_of"]

#: the parts of a drawing that change from position to position
_PIECES = ("cells", "points")
_COUNTS = ("in_hand",)


def frame_of(drawing: dict[str, Any]) -> str:
    """One position of `drawing` as the compact frame the drawers decode."""
    pieces = ""
    if "cells" in drawing:
        pieces = "".join(str(c) for row in drawing["cells"] for c in row)
    elif "points" in drawing:
        pieces = "".join(str(p["piece"]) for p in drawing["points"])
    counts = [str(n) for key in _COUNTS for n in drawing.get(key, ())]
    return pieces + ("/" + ",".join(counts) if counts else "")


def _fixed(drawing: dict[str, Any]) -> dict[str, Any]:
    """The board's parts that do not change (a point's name and place, not its piece)."""
    out = {k: v for k, v in drawing.items() if k not in _PIECES + _COUNTS}
    if "cells" in drawing:
        out.update(rows=len(drawing["cells"]), cols=len(drawing["cells"][0]))
    if "points" in drawing:
        out["points"] = [[p["name"], p["x"], p["y"]] for p in drawing["points"]]
    return out


def game_frames(rec: GameRecord) -> dict[str, Any] | None:
    """The viewer's description of `rec` (None for a game whose drawer replays the moves)."""
    try:
        game = rec.rules()
    except GameError:
        return None  # a game this cxarena does not know: the list still shows the moves
    view = presentation_of(game)
    if view.DRAWER_REPLAYS:
        return None
    state = game.initial_state()
    first = view.drawing(state)
    frames = [frame_of(first)]
    for text in rec.texts:
        try:
            state = game.apply(state, game.parse_move(state, text))
        except GameError:
            break  # a stored record from other rules: show what replays
        frames.append(frame_of(view.drawing(state)))
    out = _fixed(first)
    out.update(game=rec.game, label=game.label(), frames=frames)
    return out
