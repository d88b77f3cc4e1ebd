"""How a new version compares with its author's previous one: the game pairs the rating workers
play between the two (`arena.league.worker`), read as the pentanomial interval and an SPRT."""

from __future__ import annotations

import math
from typing import Any

from arena.league.db import League
from arena.league.entries import CURRENT, PASSED, submission_key
from arena.results.stats import EloEstimate, Pentanomial, Sprt, estimate

__all__ = ["previous_of", "versus_previous"]


def previous_of(lg: League, submission_id: int) -> int | None:
    """The id of the same user's latest earlier version that passed its check, if any."""
    sub = lg.submission(submission_id)
    if sub is None:
        return None
    earlier = [s.id for s in lg.submissions(sub.user)
               if s.id < sub.id and s.status in PASSED]
    return earlier[-1] if earlier else None


def _all_played(lg: League, submission_id: int, previous: int, pairs: int) -> bool:
    """No more pairs of the version against `previous` will be played: none is in flight, and
    it has its `pairs_per_submission` of them (or it is no longer its author's entry, or the
    league is frozen: then no more are planned)."""
    me, other = submission_key(submission_id), submission_key(previous)
    if lg.pair_leased(me, other):
        return False
    if pairs >= lg.config.file.pairs_per_submission or lg.frozen:
        return True
    sub = lg.submission(submission_id)
    current = [s.id for s in lg.submissions(sub.user) if s.status in CURRENT] if sub else []
    return not current or current[-1] != submission_id


def _elo_words(elo: EloEstimate) -> str:
    """"Elo difference +12 ± 80", or the estimate's own words when it has no finite value."""
    if math.isfinite(elo.elo) and math.isfinite(elo.error):
        return f"Elo difference {elo.elo + 0.0:+.0f} ± {elo.error:.0f}"
    return elo.describe()


def versus_previous(lg: League, submission_id: int) -> dict[str, Any] | None:
    """The version's game pairs against its author's previous version: the pentanomial counts,
    the Elo difference with its 95% interval, and an SPRT (H0: Elo <= 0, H1: Elo >= 50), which
    says "inconclusive after N pairs (Elo difference +x ± y)" once every pair it will get is
    played without a decision;
    None when there is no previous version. Games of a pair share a board and follow each
    other; they are the version's games against that one, in order, per board."""

    prev = previous_of(lg, submission_id)
    if prev is None:
        return None
    me, other = submission_key(submission_id), submission_key(prev)
    rows = lg.games_between(me, other)
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
    elo = estimate(penta)
    verdict = {"continue": "no decision yet", "H0": "not better (H0 accepted)",
               "H1": "better (H1 accepted)"}[state.result.value]
    if state.result.value == "continue" and penta.n and _all_played(lg, submission_id, prev,
                                                                    penta.n):
        verdict = (f"inconclusive after {penta.n} pair{'s' if penta.n != 1 else ''} "
                   f"({_elo_words(elo)})")
    return {"previous version": f"v{prev_sub.version}" if prev_sub else str(prev),
            "games": len(rows), "pairs": penta.n,
            "won / drawn / lost": f"{tri.wins} / {tri.draws} / {tri.losses}",
            "pairs (pentanomial)": str(penta), "Elo difference": elo.describe(),
            "SPRT": f"{verdict}: LLR {state.llr:.2f} (bounds {state.lower:.2f} .. "
                    f"{state.upper:.2f}; H0: Elo <= 0, H1: Elo >= 50)"}
