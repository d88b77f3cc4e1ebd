"""How Nine Men's Morris looks and reads to a person, beside its rules (`game.Morris`): the
board as text (the three squares, columns a-g, rows 7-1 from the top, the pieces in hand) and
the viewer's drawing (each point's place on a 7 x 7 lattice)."""

from __future__ import annotations

from typing import Any

from arena.games.base import Presentation
from arena.games.morris.game import ADJACENT, POINTS, Morris, MorrisMove, MorrisState

__all__ = ["MorrisPresentation"]


class MorrisPresentation(Presentation[MorrisState, MorrisMove]):
    SIDES = ("white", "black")
    TITLE = "Nine Men's Morris"

    game: Morris

    def render(self, state: MorrisState) -> str:
        grid = [[" "] * 25 for _ in range(13)]
        for p in range(24):
            x, y = _xy(p)
            for q in ADJACENT[p]:
                qx, qy = _xy(q)
                if qy == y and qx > x:
                    for cx in range(4 * x + 1, 4 * qx):
                        grid[2 * y][cx] = "-"
                elif qx == x and qy > y:
                    for cy in range(2 * y + 1, 2 * qy):
                        grid[cy][4 * x] = "|"
        for p in range(24):
            x, y = _xy(p)
            grid[2 * y][4 * x] = ("W" if state.white >> p & 1 else
                                  "B" if state.black >> p & 1 else "+")
        lines = []
        for r, row in enumerate(grid):
            label = str(7 - r // 2) if r % 2 == 0 else " "
            lines.append(f"{label} " + "".join(row).rstrip())
        lines.append("  " + "   ".join("abcdefg"))
        lines.append(f"in hand: white {state.in_hand[0]}, black {state.in_hand[1]}")
        return "\n".join(lines)

    def drawing(self, state: MorrisState) -> dict[str, Any]:
        points = []
        for p in range(24):
            x, y = _xy(p)
            piece = 1 if state.white >> p & 1 else 2 if state.black >> p & 1 else 0
            points.append({"name": POINTS[p], "x": x, "y": y, "piece": piece})
        lines = [[p, q] for p in range(24) for q in ADJACENT[p] if p < q]
        return {"kind": "morris", "points": points, "lines": lines,
                "in_hand": list(state.in_hand), "colors": ["white", "black"]}


def _xy(p: int) -> tuple[int, int]:
    """(x, y) of point p on a 7x7 lattice, y = 0 at the top."""
    name = POINTS[p]
    return ord(name[0]) - ord("a"), 7 - int(name[1])
