"""Openings for games other than Connect-X: a few random legal plies from the start, so that
game pairs (the same opening, colours swapped) and rounds do not all replay one game.

`random_opening(game, plies, seed, judge)` plays `plies` uniformly random legal moves from the
start with a generator seeded by `seed`, and keeps the opening only if the rules call it fair
(`Game.fair_opening`: the game goes on, and what the game asks besides, e.g. no piece taken) and the
`judge`, when given, accepts it; else it draws again (at most `TRIES` times, then fewer plies).
The judge is the game's own search, offered by the bots through the entry point group
``cxarena.game_opening_judges`` (one entry per game; `arena.commands.game_opening_judge` loads
it), so that nothing here imports a bot. Pure; same seed and judge, same opening.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from .base import Game, GameError

__all__ = ["TRIES", "GameJudge", "check_opening", "fair_opening", "random_opening"]

#: (game, opening texts) -> True to keep the opening (it leaves a balanced position)
GameJudge = Callable[[Game, Sequence[str]], bool]

#: draws per opening before trying one ply fewer
TRIES = 200


def fair_opening(game: Game, texts: Sequence[str], end: Any) -> bool:
    """The rules' view of an opening (`Game.fair_opening`: the game goes on, and what else the
    game asks, e.g. Morris: no piece was taken)."""
    return game.fair_opening(texts, end)


def random_opening(game: Game, plies: int, seed: int,
                   judge: GameJudge | None = None) -> tuple[str, ...]:
    """`plies` random legal moves (texts) from the start (see the module docstring)."""
    rng = random.Random(seed)
    for n in range(plies, 0, -1):
        for _ in range(TRIES):
            state = game.initial_state()
            texts: list[str] = []
            for _ in range(n):
                moves = game.legal_moves(state)
                if not moves:
                    break
                move = moves[rng.randrange(len(moves))]
                texts.append(game.move_to_text(state, move))
                state = game.apply(state, move)
            if len(texts) == n and fair_opening(game, texts, state) and (
                    judge is None or judge(game, texts)):
                return tuple(texts)
    return ()


def check_opening(game: Game, texts: Sequence[str]) -> None:
    """ValueError unless `texts` are legal from the start and leave the game open."""
    state = game.initial_state()
    for i, text in enumerate(texts):
        try:
            state = game.apply(state, game.parse_move(state, text))
        except GameError as e:
            raise ValueError(f"opening {list(texts)}: move {i + 1} ({text}): {e}") from None
    if game.outcome(state) is not None:
        raise ValueError(f"opening {list(texts)}: the game is over after it")
