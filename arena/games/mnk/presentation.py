"""How the m,n,k-game looks and reads to a person, beside its rules (`game.MNK`): the board as
text (columns a.., rows 1.. from the top) and the viewer's drawing."""

from __future__ import annotations

from typing import Any

from arena.games.base import Presentation, lettered_grid
from arena.games.mnk.game import MNK, MNKState

__all__ = ["MNKPresentation"]


class MNKPresentation(Presentation[MNKState, int]):
    SIDES = ("X", "O")
    TITLE = "m,n,k-game"

    game: MNK

    def render(self, state: MNKState) -> str:
        game = self.game

        def cell(r: int, c: int) -> str:
            bit = game.bit(r * game.n + c)
            return "X" if state.black & bit else "O" if state.white & bit else "."
        return lettered_grid(game.m, game.n, cell)

    def drawing(self, state: MNKState) -> dict[str, Any]:
        game = self.game
        n, bit = game.n, game.bit
        cells = [[1 if state.black & bit(r * n + c) else 2 if state.white & bit(r * n + c)
                  else 0 for c in range(n)] for r in range(game.m)]
        return {"kind": "grid", "rows": game.m, "cols": n, "cells": cells, "gravity": False,
                "colors": ["black", "white"],
                "col_labels": [chr(97 + c) for c in range(n)],
                "row_labels": [str(r + 1) for r in range(game.m)]}
