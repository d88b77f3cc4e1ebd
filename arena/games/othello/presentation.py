"""How Othello looks and reads to a person, beside its rules (`game.Othello`): the board as
text (columns a.., rows 1.. from the top) and the viewer's drawing."""

from __future__ import annotations

from typing import Any

from arena.games.base import Presentation, lettered_grid
from arena.games.othello.game import Othello, OthelloState

__all__ = ["OthelloPresentation"]


class OthelloPresentation(Presentation[OthelloState, int]):
    SIDES = ("black", "white")
    TITLE = "Othello"

    game: Othello

    def render(self, state: OthelloState) -> str:
        n = self.game.size

        def cell(r: int, c: int) -> str:
            bit = 1 << (r * n + c)
            return "X" if state.black & bit else "O" if state.white & bit else "."
        return lettered_grid(n, n, cell)

    def drawing(self, state: OthelloState) -> dict[str, Any]:
        n = self.game.size
        cells = [[1 if state.black >> (r * n + c) & 1 else 2 if state.white >> (r * n + c) & 1
                  else 0 for c in range(n)] for r in range(n)]
        return {"kind": "grid", "rows": n, "cols": n, "cells": cells, "gravity": False,
                "colors": ["black", "white"],
                "col_labels": [chr(ord("a") + c) for c in range(n)],
                "row_labels": [str(r + 1) for r in range(n)]}
