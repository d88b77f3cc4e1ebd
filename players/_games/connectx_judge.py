"""Connect-X's opening judge (entry point ``connectx`` of ``cxarena.opening_judges``): the search
engine of the built-in Connect-X bots (`players._shared.judge.judge_opening`: its exact solver
and a short search) on the opening's columns."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Game
from players._shared.judge import Judgement, judge_opening

__all__ = ["judge_connectx"]


def judge_connectx(game: Game, texts: Sequence[str]) -> Judgement:
    """The verdict on the board (rows, cols, k) after the columns `texts`."""
    params = game.params
    return judge_opening(params["rows"], params["cols"], params["k"],
                         tuple(int(t) for t in texts))
