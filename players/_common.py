"""Pieces shared by the built-in bots (not a bot: discovery skips modules starting with "_").

Tactics on a `CXBoard`: the columns that win at once for the side to move, and the opponent's
immediate wins that must be blocked.
"""

from __future__ import annotations

from arena.board import CXBoard, CXGameState, has_run

__all__ = ["immediate_threats", "immediate_wins"]

_WINS = (CXGameState.WINP1, CXGameState.WINP2)


def immediate_wins(B: CXBoard) -> list[int]:
    """Columns where the side to move wins with its next piece, ascending."""
    me = _WINS[B.currentPlayer()]
    out = []
    for c in B.getAvailableColumns():
        if B.markColumn(c) is me:
            out.append(c)
        B.unmarkColumn()
    return out


def immediate_threats(B: CXBoard) -> list[int]:
    """Columns where the opponent would win if it could move now (cells the side to move must
    take), ascending. The board is returned unchanged."""
    if B.gameState() is not CXGameState.OPEN:
        return []
    them = _WINS[1 - B.currentPlayer()]
    out = []
    for c in B.getAvailableColumns():
        if _wins_for(B, c, them):
            out.append(c)
    return out


def _wins_for(B: CXBoard, col: int, who: CXGameState) -> bool:
    """Would a piece of `who` in `col` complete K in a row? Checked on the bitboards."""
    M, K = B.M, B.K
    H = M + 1
    b1, b2 = B.bitboards
    bits = b1 if who is CXGameState.WINP1 else b2
    h = B.heights()[col]
    bits |= 1 << (col * H + h)
    return any(has_run(bits, s, K) for s in (1, H, H + 1, H - 1))
