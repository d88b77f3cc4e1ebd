"""How a new version compares with its author's previous one: the game pairs the rating workers
play between the two (`arena.league.worker`), read as the pentanomial interval and an SPRT."""

from __future__ import annotations

from typing import Any

from arena.league.db import League
from arena.league.entries import PASSED, submission_key
from arena.results.stats import Pentanomial, Sprt, estimate

__all__ = ["previous_of", "versus_previous"]


def previous_of(lg: League, submission_id: int) -> int | None:
    """The id of the same user's latest earlier version that passed its check, if any."""
    sub = lg.submission(submission_id)
    if sub is None:
        return None
    earlier = [s.id for s in lg.submissions(sub.user)
               if s.id < sub.id and s.status in PASSED]
    return earlier[-1] if earlier else None


def versus_previous(lg: League, submission_id: int) -> dict[str, Any] | None:
    """The version's game pairs against its author's previous version: the pentanomial counts,
    the Elo difference with its 95% interval, and an SPRT (H0: Elo <= 0, H1: Elo >= 50);
    None when there is no previous version. Games of a pair share a board and follow each
    other; they are the version's games against that one, in order, per board."""

    prev = previous_of(lg, submission_id)
    if prev is None:
        return None
    me, other = submission_key(submission_id), submission_key(prev)
    rows = lg.conn.execute(
        "SELECT side_a, board, score_a FROM games WHERE (side_a=? AND side_b=?) OR "
        "(side_a=? AND side_b=?) ORDER BY id", (me, other, other, me)).fetchall()
    by_board: dict[str, list[float]] = {}
    for a, board, score_a in rows:
        by_board.setdefault(board, []).append(score_a if a == me else 1.0 - score_a)
    penta = Pentanomial()
    for scores in by_board.values():
        for i in range(0, len(scores) - 1, 2):
            penta = penta.add_pair(scores[i], scores[i + 1])
    tri = penta.trinomial()
    prev_sub = lg.submission(prev)
    sprt = Sprt(0.0, 50.0)
    state = sprt.state(penta)
    verdict = {"continue": "no decision yet", "H0": "not better (H0 accepted)",
               "H1": "better (H1 accepted)"}[state.result.value]
    return {"previous version": f"v{prev_sub.version}" if prev_sub else str(prev),
            "games": len(rows), "pairs": penta.n,
            "won / drawn / lost": f"{tri.wins} / {tri.draws} / {tri.losses}",
            "pairs (pentanomial)": str(penta), "Elo difference": estimate(penta).describe(),
            "SPRT": f"{verdict}: LLR {state.llr:.2f} (bounds {state.lower:.2f} .. "
                    f"{state.upper:.2f}; H0: Elo <= 0, H1: Elo >= 50)"}
