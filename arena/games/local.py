"""Play a game between two `GamePlayer` objects in this process: for tests, benchmarks and
examples, not for matches (no time limit is enforced, no fault is contained: the referee does
that). Pure apart from calling the bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .base import Game, Outcome
from .player import GamePlayer

__all__ = ["LocalGame", "play_local"]


@dataclass(frozen=True)
class LocalGame:
    """The moves (text form, passes included) and the outcome of a game played locally."""

    moves: tuple[str, ...]
    outcome: Outcome


def play_local(game: Game, players: Sequence[GamePlayer], timeout_s: float = 1.0,
               seed: int = 0, max_moves: int = 10_000) -> LocalGame:
    """Play `players[0]` (side 0) against `players[1]`; a move a bot answers is checked
    against the rules (IllegalMoveError escapes)."""
    for side, player in enumerate(players):
        player.seed = seed + side
        player.init_player(game, side == 0, timeout_s)
    state = game.initial_state()
    texts: list[str] = []
    while (outcome := game.outcome(state)) is None:
        if len(texts) >= max_moves:
            raise RuntimeError(f"no result after {max_moves} moves")
        answer = players[game.to_move(state)].select_move(state)
        move = game.parse_move(state, answer) if isinstance(answer, str) else answer
        text = game.move_to_text(state, move)
        state = game.apply(state, game.parse_move(state, text))
        texts.append(text)
    return LocalGame(tuple(texts), outcome)
