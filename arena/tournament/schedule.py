"""The tournament schedule: which games to play, their ids and seeds, and in which order.

Every unordered pair of players meets on every board, each player once as the first player,
`rounds` times. A game's id names it (board, round, first and second player) and its seed is
derived from the tournament seed and that id with SHA-256, so it is the same in every run and
on every machine (Python's hash() is salted per process and would not be).

Games are ordered longest first (biggest boards first, M*N descending) so that a parallel run
does not end waiting on one slow game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from arena.errors import UsageError
from arena.tournament.config import TournamentConfig

__all__ = ["SEED_BITS", "GameSpec", "game_id", "game_seed", "make_schedule"]

#: game seeds are in 0 .. 2**31-1: fine for random.Random, numpy and a Java int
SEED_BITS = 31


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: who plays first (p1) and second (p2) on which board."""

    game_id: str
    M: int
    N: int
    K: int
    round: int  # 1-based
    p1: str  # display names
    p2: str
    spec1: str  # SPECs
    spec2: str
    seed: int
    options1: Mapping[str, Any] = field(default_factory=dict)
    options2: Mapping[str, Any] = field(default_factory=dict)

    @property
    def board(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)

    @property
    def cells(self) -> int:
        return self.M * self.N


def game_id(M: int, N: int, K: int, round_: int, p1: str, p2: str) -> str:
    """The readable id of a game, e.g. ``7x6x4-r1-L0-L1``."""
    return f"{M}x{N}x{K}-r{round_}-{p1}-{p2}"


def game_seed(tournament_seed: int, gid: str) -> int:
    """A stable seed for game `gid` of a tournament seeded with `tournament_seed`."""
    digest = hashlib.sha256(f"cxarena|{tournament_seed}|{gid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << SEED_BITS) - 1)


def make_schedule(config: TournamentConfig) -> list[GameSpec]:
    """Every game of the tournament, longest first. Raises UsageError on an id clash."""
    games: list[GameSpec] = []
    seen: dict[str, GameSpec] = {}
    for a, b in combinations(config.players, 2):
        for M, N, K in config.boards:
            for r in range(1, config.rounds + 1):
                for first, second in ((a, b), (b, a)):
                    gid = game_id(M, N, K, r, first.name, second.name)
                    g = GameSpec(gid, M, N, K, r, first.name, second.name, first.spec,
                                 second.spec, game_seed(config.seed, gid),
                                 dict(first.options), dict(second.options))
                    if gid in seen:  # only possible with names containing '-'
                        raise UsageError(
                            f"{config.path}: players: names {first.name!r} and "
                            f"{second.name!r} make the same game id as another pair "
                            f"({gid}); rename one of them")
                    seen[gid] = g
                    games.append(g)
    # stable sort: within one board size the pairs stay interleaved in a fixed order
    games.sort(key=lambda g: -g.cells)
    return games
