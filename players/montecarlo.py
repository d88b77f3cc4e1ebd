"""MonteCarlo: flat Monte-Carlo search with random playouts.

For every candidate move the bot plays many random games to the end ("playouts") starting with
that move, and plays the move whose playouts scored best on average (win 1, draw 1/2, loss 0).
There is no tree: the candidates take turns (round-robin), one playout each, until the time
budget is spent, so each gets about the same number of playouts.

Before sampling, three cheap rules (the same "one move of look-ahead" as the L1 bot):
1. an immediate win is played (`players._shared.common.immediate_wins`);
2. an immediate threat of the opponent is blocked (`players._shared.common.immediate_threats`);
3. moves that let the opponent win at once (by playing on top of our piece) are dropped,
   unless every move does.

On boards wider than 12 columns only the columns near the pieces already played are
candidates (see `players._shared.playout.candidate_columns`). A playout still running at the
deadline
is discarded; a candidate without any finished playout is never chosen, and if no playout
finished at all the centre-most candidate is played.

Option (set as an attribute by the harness): ``playouts`` fixes the total number of playouts per
move instead of using the clock (deterministic for a seed while the time limit allows).
"""

from __future__ import annotations

import random

from arena.board import CXBoard
from arena.player import CXPlayer
from arena.timing import Deadline, safe_budget_s
from players._shared.common import immediate_threats, immediate_wins, no_gc_pauses, release_frozen
from players._shared.playout import Position, candidate_columns, random_playout


class MonteCarlo(CXPlayer):
    #: total playouts per move; None: as many as the time budget allows
    playouts: int | None = None

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        release_frozen()  # the previous game's search, frozen by no_gc_pauses
        self.rng = random.Random(self.seed)
        self.budget_s = safe_budget_s(timeout_in_secs)
        self.last_playouts = 0  # playouts finished for the last move

    def playerName(self) -> str:
        return "MonteCarlo"

    def selectColumn(self, B: CXBoard) -> int:
        deadline = Deadline(self.budget_s)
        self.last_playouts = 0
        for tactic in (immediate_wins, immediate_threats):
            found = tactic(B)
            if found:
                return found[0]
        pos = Position.from_board(B)
        me = pos.player
        candidates = candidate_columns(pos)
        safe = [c for c in candidates if not pos.wins_at(c, 3 - me, above=1)]
        candidates = safe or candidates
        if len(candidates) == 1:
            return candidates[0]
        with no_gc_pauses():
            return self._sample(pos, candidates, deadline)

    def _sample(self, pos: Position, candidates: list[int], deadline: Deadline) -> int:
        """Round-robin random playouts over `candidates`; the best average score's column."""
        random = self.rng.random
        me = pos.player
        score = [0.0] * len(candidates)
        count = [0] * len(candidates)
        budget = self.playouts
        done = 0
        while not deadline.expired() and (budget is None or done < budget):
            i = done % len(candidates)
            p = pos.copy()
            if p.play(candidates[i]):  # cannot happen after the tactics, but stay correct
                return candidates[i]
            result = random_playout(p, random, deadline.end_s)
            if result is None:
                break  # out of time in the middle of a playout: discard it
            count[i] += 1
            score[i] += 1.0 if result == me else 0.5 if result == 0 else 0.0
            done += 1
        self.last_playouts = done
        best, best_mean = candidates[0], -1.0  # centre first: ties and no data go to the centre
        for c, s, n in zip(candidates, score, count, strict=True):
            if n and s / n > best_mean:
                best, best_mean = c, s / n
        return best
