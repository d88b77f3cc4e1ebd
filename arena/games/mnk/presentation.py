"""How the m,n,k-game looks and reads to a person, beside its rules (`game.MNK`): the board as
text (columns a.., rows 1.. from the top) and the viewer's drawing."""

from __future__ import annotations

from typing import Any

from arena.games.base import Presentation
from arena.games.mnk.game import MNK, MNKState

__all__ = ["MNKPresentation"]


class MNKPresentation(Presentation[MNKState, int]):
    SIDES = ("X", "O")
    TITLE = "m,n,k-game"

    game: MNK

    def render(self, state: MNKState) -> str:
        game = self.game
        n = game.n
        lines = ["   " + " ".join(chr(97 + c) for c in range(n))]
        for r in range(game.m):
            row = []
            for c in range(n):
                bit = game.bit(r * n + c)
                row.append("X" if state.black & bit else "O" if state.white & bit else ".")
            lines.append(f"{r + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    def drawing(self, state: MNKState) -> dict[str, Any]:
        game = self.game
        n, bit = game.n, game.bit
        cells = [[1 if state.black & bit(r * n + c) else 2 if state.white & bit(r * n + c)
                  else 0 for c in range(n)] for r in range(game.m)]
        return {"kind": "grid", "rows": game.m, "cols": n, "cells": cells, "gravity": False,
                "colors": ["black", "white"],
                "col_labels": [chr(97 + c) for c in range(n)],
                "row_labels": [str(r + 1) for r in range(game.m)]}
