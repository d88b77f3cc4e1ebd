"""An analysis as text (for `cxarena analyze` and `cxarena show --analyze`) and as the plain
data the HTML viewer draws. Pure: returns strings and dicts."""

from __future__ import annotations

from typing import Any

from arena.analysis.engine import THREAT_PLIES, GameAnalysis, PositionValue, describe_value

__all__ = ["render_analysis", "viewer_data"]

_SYMBOLS = ("X", "O")


def _cols(cols: tuple[int, ...]) -> str:
    return ", ".join(str(c) for c in cols)


def render_analysis(a: GameAnalysis, names: tuple[str, str] = ("", "")) -> str:
    """One line per move: ply, who, column, the value before it (side to move), the verdict."""
    who = [f"{_SYMBOLS[i]} {names[i]}".rstrip() for i in range(2)]
    solver = {"numba": "exact solver (compiled)", "python": "exact solver (pure Python)",
              "": "no exact solver for this board"}[a.solver]
    exact = a.exact_from()
    lines = [
        f"Analysis of a {a.M}x{a.N} K={a.K} game: {len(a.moves)} moves, {solver}, "
        f"{a.budget_s:g} s per position, took {a.elapsed_s:.1f} s of CPU.",
        "Values are for the side to move, before its move: 'win in 3' = it wins with its "
        "3rd move from here under perfect play; '~' marks an estimate (not proven).",
        ("Exact from move " + str(exact + 1) + " on." if exact is not None and exact < len(
            a.moves) else "No position near the end was solved exactly."),
        *([] if a.solver else [
            "What it can judge here: a missed immediate win, and a move that allows a forced "
            f"loss a short search proves ({THREAT_PLIES} plies); every other move is "
            "'unclear', and the values are short estimates (not the game's outcome)."]),
        "",
        f"{'move':>4}  {'player':<16} {'col':>3}  {'value before':<28} verdict",
    ]
    for v in a.verdicts:
        before = describe_value(a.positions[v.ply])
        opening = v.ply < a.opening
        # a move of the opening was the harness's, not the player's: judged, never a BLUNDER
        text = v.verdict.upper() if v.verdict == "blunder" and not opening else v.verdict
        if v.reason:
            text += f": {v.reason}"
        if v.better:
            text += f"; better: {_cols(v.better)}"
        if opening:
            side = _SYMBOLS[v.player - 1]
            text = f"opening (played by the harness for {side}, not counted): {text}"
        player = f"opening ({_SYMBOLS[v.player - 1]})" if opening else who[v.player - 1]
        lines.append(f"{v.ply + 1:>4}  {player:<16} {v.col:>3}  {before:<28} {text}")
    last = a.positions[-1]
    lines.append(f"{'end':>4}  {'':<16} {'':>3}  {describe_value(last):<28}")
    b1, b2 = len(a.blunders(1)), len(a.blunders(2))
    lines += ["", f"Blunders: {who[0]}: {b1}, {who[1]}: {b2}."
              + (f" (the {a.opening} moves of the opening are not counted)" if a.opening
                 else "")]
    return "\n".join(lines) + "\n"


def _first_player_view(p: PositionValue) -> float | None:
    """The position's value for the first player in [-1, 1] (None: unknown)."""
    sign = 1 if p.ply % 2 == 0 else -1
    if p.outcome is not None:
        return float(sign * p.outcome)
    if p.estimate is not None:
        return sign * max(-0.99, min(0.99, p.estimate))
    return None


def viewer_data(a: GameAnalysis) -> dict[str, Any]:
    """What the HTML viewer needs: per position (one cell per move and the end) the kind, the
    first player's view in [-1, 1], a label; per move the verdict, reason and better moves."""
    return {
        "solver": a.solver,
        "budget_s": a.budget_s,
        "elapsed_s": round(a.elapsed_s, 2),
        "exact_from": a.exact_from(),
        "positions": [{"ply": p.ply, "kind": p.kind, "value": _first_player_view(p),
                       "label": describe_value(p)} for p in a.positions],
        "moves": [{"ply": v.ply, "player": v.player, "col": v.col, "verdict": v.verdict,
                   "reason": v.reason, "better": list(v.better),
                   "opening": v.ply < a.opening} for v in a.verdicts],
    }
