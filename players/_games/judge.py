"""The opening judges of every game, offered to `arena.tournament.openings` through the entry
point group ``cxarena.opening_judges`` (one entry per game name; pyproject.toml).

A judge is ``judge(game, texts) -> Verdict``: `lost_side` 1 or 2 when that side is already lost
after the opening's moves `texts` (the opening is rejected), else None; `value` the exact value
for the first player (1, 0, -1) when known.

- Connect-X's judge is the search engine of its built-in bots, on the columns
  (`players._games.connectx_judge.judge_connectx`, kept apart so that the other games' bots do
  not load that engine).
- `SearchJudge`: the judge of a game whose alpha-beta bot searches with the shared driver
  (`players._games.search.Search`): a `depth`-ply search of the position after the opening,
  kept when it scores within `margin` of even. Each bot module makes one with its own bot,
  depth and margin (`players.othello.alphabeta.judge_opening`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.base import Game
from arena.timing import Deadline
from players._games.search import INF

__all__ = ["JUDGE_BUDGET_S", "SearchJudge", "Verdict"]

#: the time a judge's search may take before it gives up (raises SearchTimeout)
JUDGE_BUDGET_S = 30.0
#: the time limit a judging bot is told it has (its own settings depend on it)
_BOT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Verdict:
    """A judge's answer (module docstring)."""

    lost_side: int | None
    value: int | None = None


@dataclass(frozen=True)
class SearchJudge:
    """The judge of a game whose bot (`bot()`: a fresh one) keeps a shared-driver `search`
    after `init_player`: the position after the opening is searched `depth` plies deep and kept
    when its value is within `margin` of even (`margin` may depend on the initialised bot)."""

    bot: Callable[[], Any]
    depth: int
    margin: int | Callable[[Any], int]

    def __call__(self, game: Game, texts: Sequence[str]) -> Verdict:
        state = game.play_texts(texts)
        out = game.outcome(state)
        if out is not None:  # over: lost for the side that did not win (a draw is nobody's)
            if out.winner is None:
                return Verdict(None, 0)
            return Verdict(2 - out.winner, 1 if out.winner == 0 else -1)
        bot = self.bot()
        bot.init_player(game, True, _BOT_TIMEOUT_S)
        bot.search.reset(Deadline(JUDGE_BUDGET_S))
        score = bot.search.negamax(state, self.depth, -INF, INF)
        margin = self.margin if isinstance(self.margin, int) else self.margin(bot)
        if abs(score) <= margin:
            return Verdict(None)
        # the side to move (0 or 1) is ahead when the score is positive: the other side lost
        mover = game.to_move(state)
        return Verdict(2 - mover if score > 0 else mover + 1)
